"""Voice input as a front end sees it: settings, microphones, speech models and transcripts.

The window and `hearth voice` reach voice input only through `Voice`; each method hands over to
the module that does the work. Constructing one reads nothing and opens nothing: the settings
are read on first use, PortAudio is loaded when a microphone is listed or opened, and Whisper
when something is transcribed.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.voice.audio import Recording, record_file, write_wav
from hearth.voice.capture import Microphone, input_devices
from hearth.voice.service import Dictation, Readiness
from hearth.voice.settings import VoiceSettings
from hearth.voice.speech_models import (
    InstalledSpeechModel,
    SpeechEntry,
    entry_for,
    installed_speech_models,
    speech_catalog,
    speech_entry,
    verify_speech_model,
)
from hearth.voice.transcribe import Transcript

if TYPE_CHECKING:
    from hearth.models.download import ProgressCallback


class Voice:
    """The user's voice settings, the microphones, the speech models and one loaded Whisper.

    Thread-safe, like the `Dictation` it holds: the window calls it from its worker pool.
    `window`: transcribe on one core fewer, so the desktop app stays responsive.
    """

    def __init__(self, *, window: bool = False) -> None:
        self._window = window
        self._dictation: Dictation | None = None
        self._lock = threading.Lock()

    def _dictating(self) -> Dictation:
        with self._lock:
            if self._dictation is None:
                self._dictation = Dictation(window=self._window)
            return self._dictation

    @property
    def settings(self) -> VoiceSettings:
        """The saved settings (read once, on first use)."""
        return self._dictating().settings

    def save_settings(self, settings: VoiceSettings) -> None:
        """Keep `settings` and use them from now on; another model loads on next use."""
        self._dictating().update(settings)

    def readiness(self) -> Readiness:
        """What stands in the way of voice input here, checked now (it may take ~0.1 s)."""
        return self._dictating().readiness()

    def microphones(self) -> list[str]:
        """The names of the input devices PortAudio sees now."""
        return [device.name for device in input_devices()]

    def microphone(self) -> Microphone:
        """The microphone the settings choose, not yet open."""
        return Microphone(self.settings.microphone)

    def record_file(self, path: Path) -> Recording:
        """A 16-bit WAV file as a `Recording`, filled the way the microphone fills one."""
        return record_file(path)

    def write_wav(self, path: Path, recording: Recording) -> None:
        """Save a recording as 16 kHz mono WAV (only when the user asks for a file)."""
        write_wav(path, recording.samples())

    def load_speech_model(self) -> None:
        """Load the chosen Whisper model now, so the next transcript needs no wait for it."""
        self._dictating().transcriber()

    def transcribe(
        self, recording: Recording, *, cancel: threading.Event | None = None
    ) -> Transcript:
        """The words in a finished recording; the sound is forgotten afterwards."""
        return self._dictating().transcribe(recording, cancel=cancel)

    def catalog(self) -> tuple[SpeechEntry, ...]:
        """The speech models Hearth can download, in the order they are listed."""
        return speech_catalog()

    def entry(self, model_id: str) -> SpeechEntry:
        """The catalog entry with this id; CatalogError listing the known ids otherwise."""
        return speech_entry(model_id)

    def entry_for(self, settings: VoiceSettings) -> SpeechEntry:
        """The speech model `settings` choose."""
        return entry_for(settings)

    def installed_models(self) -> list[InstalledSpeechModel]:
        """Every usable speech model folder, the one voice input prefers first."""
        return installed_speech_models()

    def verify(self, model: InstalledSpeechModel) -> None:
        """Re-hash an installed model's files; ChecksumMismatch names a damaged one."""
        verify_speech_model(model)

    def download(
        self,
        entry: SpeechEntry,
        *,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> Path:
        """Download, verify and install a speech model (resumable); returns its folder."""
        # Here, not at the top: the hub client is for downloads, and the window opens without.
        from hearth.voice.speech_download import download_speech_model

        return download_speech_model(entry, progress=progress, cancel=cancel)
