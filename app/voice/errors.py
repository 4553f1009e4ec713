"""Errors of voice input: what is missing on this machine, and what failed while listening."""

from __future__ import annotations

from hearth.errors import HearthError


class VoiceError(HearthError):
    """Voice input could not record or transcribe; the message says why and what to do."""


class VoiceUnavailable(VoiceError):
    """Something voice input needs is missing here: the packages, PortAudio, a microphone."""


class RecordingError(VoiceError):
    """The microphone could not be opened, or stopped delivering sound."""


class SpeechModelError(VoiceError):
    """No speech model is installed, or the installed one is damaged."""
