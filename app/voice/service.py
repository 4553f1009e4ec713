"""Voice input's core for every front end: is it ready here, and the loaded transcriber.

The desktop app and `hearth voice` share this. Whether voice can work is asked in order of
what the user would fix first: the Python packages, PortAudio, a microphone, a speech model.
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass

from hearth.models.threads_setting import thread_policy
from hearth.voice.audio import Recording
from hearth.voice.capture import load_sounddevice, microphone_problem
from hearth.voice.errors import SpeechModelError, VoiceUnavailable
from hearth.voice.settings import VoiceSettings, load_voice_settings, save_voice_settings
from hearth.voice.speech_models import InstalledSpeechModel, entry_for, find_speech_model
from hearth.voice.transcribe import MISSING_PACKAGES, Transcriber, Transcript


@dataclass(frozen=True, slots=True)
class Readiness:
    """Whether voice input can work now; if not, one sentence on why and what to do."""

    problem: str | None
    model: InstalledSpeechModel | None = None

    @property
    def ready(self) -> bool:
        return self.problem is None


class Dictation:
    """The user's voice settings, the readiness check and one loaded Whisper model.

    Thread-safe: the desktop app checks and transcribes on its worker pool.
    """

    def __init__(self, settings: VoiceSettings | None = None, *, window: bool = False) -> None:
        self._settings = settings or load_voice_settings()
        self._window = window
        self._transcriber: Transcriber | None = None
        self._lock = threading.Lock()

    @property
    def settings(self) -> VoiceSettings:
        return self._settings

    def update(self, settings: VoiceSettings, *, save: bool = True) -> None:
        """Use (and keep, unless `save` is False) new settings; a new model loads on next use."""
        if save:
            save_voice_settings(settings)
        with self._lock:
            self._settings = settings

    def readiness(self) -> Readiness:
        """What stands in the way of voice input here, checked now (it may take ~0.1 s)."""
        settings = self._settings
        try:
            load_sounddevice()
        except VoiceUnavailable as error:
            return Readiness(str(error))
        if importlib.util.find_spec("faster_whisper") is None:
            return Readiness(MISSING_PACKAGES)
        problem = microphone_problem(settings.microphone)
        if problem is not None:
            return Readiness(problem)
        model = find_speech_model(settings)
        if model is None:
            entry = entry_for(settings)
            return Readiness(
                f"The speech model {entry.label} is not installed. Download it on the Models"
                " page, under Voice input."
            )
        return Readiness(None, model)

    def transcriber(self) -> Transcriber:
        """The Whisper model for the current settings, loaded (once) on this thread."""
        with self._lock:
            model = find_speech_model(self._settings)
            if model is None:
                raise SpeechModelError(
                    f"The speech model {entry_for(self._settings).label} is not installed."
                    " Download it on the Models page, under Voice input."
                )
            current = self._transcriber
            if current is None or current.model_dir != model.path:
                threads = thread_policy()
                # Leave the window a core, as decoding does: the app stays responsive.
                count = threads.decode if self._window else threads.prefill
                current = self._transcriber = Transcriber(model.path, threads=count)
        current.load()
        return current

    def transcribe(
        self, recording: Recording, *, cancel: threading.Event | None = None
    ) -> Transcript:
        """The words in a finished recording; the sound is forgotten afterwards."""
        try:
            samples = recording.samples()
        finally:
            recording.clear()
        return self.transcriber().transcribe(samples, cancel=cancel)
