"""Sound from a microphone through PortAudio (the sounddevice package), into a `Recording`.

sounddevice loads PortAudio when it is imported, so it is imported only when the user first
reaches for the microphone. PortAudio reads the list of devices once, when it starts; the list
is read again whenever no stream is open, so a microphone plugged in later is seen. The sound
stays in memory: nothing here writes it to disk.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from hearth.voice.audio import MAX_SECONDS, SAMPLE_RATE, Recording
from hearth.voice.errors import RecordingError, VoiceUnavailable

MISSING_PACKAGE = (
    "Voice input needs the sounddevice package, which is not installed;"
    " install it with: pip install 'hearth[voice]'"
)
MISSING_PORTAUDIO = (
    "Voice input needs the PortAudio library, which is not installed here. Install it"
    " (Debian/Ubuntu: sudo apt install libportaudio2; Fedora: sudo dnf install portaudio;"
    " macOS: brew install portaudio), then restart Hearth."
)
NO_MICROPHONE = "No microphone was found. Plug one in or turn it on, then try again."
GONE_MICROPHONE = (
    "The microphone '{name}' is not connected; choose another in Models → Voice input."
)
OPEN_FAILED = (
    "The microphone could not be opened ({detail}). Check that it is connected and not in use"
    " by another program, then try again."
)

# Pa_Terminate closes every open stream, so the device list is read again only while none is.
_streams_lock = threading.Lock()
_streams_open = 0


def load_sounddevice() -> ModuleType:
    """The sounddevice module, or VoiceUnavailable saying what to install."""
    try:
        import sounddevice as module
    except ImportError as exc:
        raise VoiceUnavailable(MISSING_PACKAGE) from exc
    except OSError as exc:  # sounddevice's own "PortAudio library not found"
        raise VoiceUnavailable(MISSING_PORTAUDIO) from exc
    sounddevice: ModuleType = module  # untyped: mypy sees Any
    return sounddevice


@dataclass(frozen=True)
class InputDevice:
    """A PortAudio device that can record: its index, name, usual rate and channel count."""

    index: int
    name: str
    default_rate: float
    channels: int
    is_default: bool


def input_devices() -> list[InputDevice]:
    """Every device that can record, as PortAudio sees it now."""
    sd = load_sounddevice()
    with _streams_lock:
        return _scan(sd, fresh=True)


def microphone_problem(name: str | None) -> str | None:
    """Why recording from `name` (None: the default input) cannot start, or None if it can.

    Raises VoiceUnavailable when sounddevice or PortAudio is missing: that needs installing,
    not plugging in.
    """
    try:
        _choose(input_devices(), name)
    except RecordingError as problem:
        return str(problem)
    return None


class Microphone:
    """One recording from an input device at a time; the sound goes into a `Recording`."""

    def __init__(self, device: str | None = None, *, max_seconds: float = MAX_SECONDS) -> None:
        self.device = device
        self.max_seconds = max_seconds
        self.overflows = 0  # blocks PortAudio reported as late: sound was lost before them
        self._recording: Recording | None = None
        self._stream: Any = None
        self._stop_request: type[BaseException] = Exception

    @property
    def recording(self) -> Recording | None:
        """The sound of the latest `start()`, live while recording."""
        return self._recording

    @property
    def active(self) -> bool:
        """Whether sound is still arriving; False once full, stopped, or the device is lost."""
        return self._stream is not None and bool(self._stream.active)

    def start(self) -> Recording:
        """Open the device and record into a new `Recording`, which fills in the background."""
        if self._stream is not None:
            raise RuntimeError("this microphone is already recording")
        sd = load_sounddevice()
        self.overflows = 0
        self._stop_request = sd.CallbackStop
        global _streams_open
        with _streams_lock:
            try:
                # The list PortAudio already has: reading it again costs time at every press.
                stream = self._open(sd, _choose(_scan(sd, fresh=False), self.device))
            except RecordingError:
                if _streams_open:
                    raise
                # Plugged in or pulled out since the list was read: read it again, try once more.
                stream = self._open(sd, _choose(_scan(sd, fresh=True), self.device))
            _streams_open += 1
            self._stream = stream
        assert self._recording is not None
        return self._recording

    def stop(self) -> Recording:
        """Close the device and return the sound; calling it again changes nothing."""
        if self._recording is None:
            raise RuntimeError("this microphone was never started")
        self._close()
        return self._recording

    def cancel(self) -> None:
        """Close the device and forget the sound."""
        self._close()
        if self._recording is not None:
            self._recording.clear()

    def __enter__(self) -> Self:
        if self._stream is None:
            self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._close()

    def _open(self, sd: ModuleType, device: InputDevice) -> Any:
        """A started stream from `device` feeding a new `Recording` (lock held)."""
        rate, channels = _settings(sd, device)
        self._recording = Recording(rate, max_seconds=self.max_seconds)
        stream = None
        try:
            # PortAudio chooses the block size: it knows the host's buffer sizes.
            stream = sd.InputStream(
                device=device.index,
                samplerate=rate,
                channels=channels,
                dtype="float32",
                callback=self._callback,
            )
            stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            if stream is not None:
                stream.close(ignore_errors=True)
            raise RecordingError(OPEN_FAILED.format(detail=_one_line(exc))) from exc
        return stream

    def _callback(
        self, indata: npt.NDArray[np.float32], frames: int, time: object, status: Any
    ) -> None:
        # PortAudio's thread: only hand the block over; never print or block here.
        if status.input_overflow:
            self.overflows += 1
        recording = self._recording
        if recording is None or not recording.feed(indata):
            raise self._stop_request

    def _close(self) -> None:
        global _streams_open
        with _streams_lock:
            stream, self._stream = self._stream, None
            if stream is None:
                return
            try:
                # A lost device fails to stop; the stream must be closed all the same.
                stream.stop(ignore_errors=True)
            finally:
                stream.close(ignore_errors=True)
                _streams_open -= 1


def _scan(sd: ModuleType, *, fresh: bool) -> list[InputDevice]:
    """The input devices; `fresh`: read again from PortAudio unless a stream is open (lock held)."""
    if fresh and _streams_open == 0:
        try:
            sd._terminate()
            sd._initialize()
        except sd.PortAudioError as exc:
            raise RecordingError(OPEN_FAILED.format(detail=_one_line(exc))) from exc
    try:
        default = sd.query_devices(kind="input")["index"]
    except sd.PortAudioError:  # PortAudio has no default input: there is no input at all
        default = None
    return [
        InputDevice(
            index=info["index"],
            name=info["name"],
            default_rate=float(info["default_samplerate"]),
            channels=int(info["max_input_channels"]),
            is_default=info["index"] == default,
        )
        for info in sd.query_devices()
        if info["max_input_channels"] > 0
    ]


def _choose(devices: list[InputDevice], name: str | None) -> InputDevice:
    """The device called `name` exactly (None: the default input), or why there is none."""
    if name is None:
        chosen = next((d for d in devices if d.is_default), devices[0] if devices else None)
        if chosen is None:
            raise RecordingError(NO_MICROPHONE)
        return chosen
    for device in devices:
        if device.name == name:
            return device
    raise RecordingError(GONE_MICROPHONE.format(name=name) if devices else NO_MICROPHONE)


def _settings(sd: ModuleType, device: InputDevice) -> tuple[int, int]:
    """Whisper's rate in mono if the device takes it, else its own rate (resampled later)."""
    own_rate = int(device.default_rate) or SAMPLE_RATE
    # Some sound cards record only in stereo; the Recording mixes the channels down.
    tries = [(SAMPLE_RATE, 1), (own_rate, 1), (own_rate, min(2, device.channels))]
    for rate, channels in tries:
        try:
            sd.check_input_settings(
                device=device.index, samplerate=rate, channels=channels, dtype="float32"
            )
        except (sd.PortAudioError, ValueError):
            continue
        return rate, channels
    return own_rate, 1  # opening it says why it fails


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
