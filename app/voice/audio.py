"""Sound as it arrives from a microphone or a file, kept in memory and made ready for Whisper.

A `Recording` takes blocks of any rate, width and channel count, exactly as PortAudio's callback
delivers them, and keeps the level of the latest block for a meter. Whisper wants mono 32-bit
float at 16 kHz; `samples()` converts on the way out, so a file and the microphone go through
one path. Nothing here touches the disk except `read_wav` and `write_wav`, which the user asks
for by name.
"""

from __future__ import annotations

import math
import threading
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hearth.voice.errors import RecordingError

SAMPLE_RATE = 16_000  # what Whisper was trained on
MAX_SECONDS = 120.0  # a push-to-talk message; also bounds memory (7.7 MB at 16 kHz)
QUIET_DBFS = -60.0  # the meter's floor: below this the room is silent
BLOCK_SECONDS = 0.05

Samples = npt.NDArray[np.float32]


class Recording:
    """Blocks of sound in memory, fed from any thread; the caller reads level and length live."""

    def __init__(self, rate: int, *, max_seconds: float = MAX_SECONDS) -> None:
        if rate <= 0:
            raise ValueError(f"sample rate must be positive, not {rate}")
        self.rate = rate
        self.max_frames = int(max_seconds * rate)
        self._blocks: list[Samples] = []
        self._frames = 0
        self._level = 0.0
        self._peak = 0.0
        self._lock = threading.Lock()

    def feed(self, block: npt.NDArray[np.generic]) -> bool:
        """Add a block of frames (one column per channel); False once the recording is full."""
        mono = to_mono_float(block)
        with self._lock:
            room = self.max_frames - self._frames
            if room <= 0:
                return False
            mono = mono[:room]
            self._blocks.append(mono)
            self._frames += len(mono)
            self._level = meter_level(mono)
            self._peak = max(self._peak, float(np.max(np.abs(mono), initial=0.0)))
            return self._frames < self.max_frames

    @property
    def level(self) -> float:
        """The latest block's loudness for a meter, 0.0 (silence) to 1.0 (full scale)."""
        return self._level

    @property
    def peak(self) -> float:
        """The loudest sample so far, 0.0 to 1.0."""
        return self._peak

    @property
    def seconds(self) -> float:
        return self._frames / self.rate

    @property
    def full(self) -> bool:
        return self._frames >= self.max_frames

    def samples(self) -> Samples:
        """Everything recorded, as mono float32 at 16 kHz."""
        with self._lock:
            joined = np.concatenate(self._blocks) if self._blocks else np.zeros(0, np.float32)
        return resample(joined, self.rate, SAMPLE_RATE)

    def clear(self) -> None:
        """Forget the sound (the transcript is all that is kept)."""
        with self._lock:
            self._blocks.clear()
            self._frames = 0
            self._level = 0.0


def to_mono_float(block: npt.NDArray[np.generic]) -> Samples:
    """Frames of int16, int32 or float sound, one column per channel, as mono float32."""
    data = np.asarray(block)
    if data.ndim not in (1, 2):
        raise ValueError(f"expected frames or frames × channels, got shape {data.shape}")
    # Scale before mixing: averaging channels turns whole numbers into floats.
    if data.dtype == np.int16:
        scaled = data.astype(np.float32) / np.float32(32768.0)
    elif data.dtype == np.int32:
        scaled = (data.astype(np.float64) / 2147483648.0).astype(np.float32)
    elif np.issubdtype(data.dtype, np.floating):
        scaled = data.astype(np.float32, copy=True)
    else:
        raise ValueError(f"unsupported sample type {data.dtype}")
    if scaled.ndim == 2:
        return scaled.mean(axis=1, dtype=np.float32) if scaled.shape[1] > 1 else scaled[:, 0]
    return scaled


def meter_level(mono: Samples) -> float:
    """RMS loudness mapped from QUIET_DBFS..0 dBFS onto 0..1."""
    if not len(mono):
        return 0.0
    rms = math.sqrt(float(np.mean(np.square(mono, dtype=np.float64))))
    if rms <= 0.0:
        return 0.0
    dbfs = 20.0 * math.log10(rms)
    return min(1.0, max(0.0, 1.0 - dbfs / QUIET_DBFS))


def resample(mono: Samples, rate: int, target: int) -> Samples:
    """Mono float32 from `rate` to `target` with FFmpeg's resampler (PyAV, a Whisper dependency)."""
    if rate == target or not len(mono):
        return mono.astype(np.float32, copy=False)
    import av  # faster-whisper's own audio decoding uses it; loaded only when rates differ

    resampler = av.AudioResampler(format="flt", layout="mono", rate=target)
    frame = av.AudioFrame.from_ndarray(mono.reshape(1, -1), format="flt", layout="mono")
    frame.sample_rate = rate
    frames = [*resampler.resample(frame), *resampler.resample(None)]  # None: flush the tail
    out = [f.to_ndarray().reshape(-1) for f in frames]
    return np.concatenate(out).astype(np.float32) if out else np.zeros(0, np.float32)


def read_wav(path: Path) -> tuple[int, Iterator[npt.NDArray[np.int16]]]:
    """A 16-bit PCM WAV file's rate and its frames in blocks, as a sound card would give them."""
    try:
        reader = wave.open(str(path), "rb")  # noqa: SIM115 - closed by the generator below
    except (OSError, EOFError, wave.Error) as exc:
        raise RecordingError(f"{path}: not a readable WAV file ({exc})") from exc
    if reader.getsampwidth() != 2:
        width = reader.getsampwidth() * 8
        reader.close()
        raise RecordingError(f"{path}: {width}-bit sound; only 16-bit PCM WAV is read")
    rate, channels = reader.getframerate(), reader.getnchannels()
    block = max(1, int(rate * BLOCK_SECONDS))

    def blocks() -> Iterator[npt.NDArray[np.int16]]:
        with reader:
            while raw := reader.readframes(block):
                whole = len(raw) - len(raw) % (2 * channels)  # a file cut off mid-frame
                if whole:
                    yield np.frombuffer(raw[:whole], dtype="<i2").reshape(-1, channels)

    return rate, blocks()


def record_file(path: Path, *, max_seconds: float = MAX_SECONDS) -> Recording:
    """A WAV file fed block by block into a `Recording`, the way the microphone fills one."""
    rate, blocks = read_wav(path)
    recording = Recording(rate, max_seconds=max_seconds)
    for block in blocks:
        if not recording.feed(block):
            break
    return recording


def write_wav(path: Path, samples: Samples, rate: int = SAMPLE_RATE) -> None:
    """Save mono float sound as 16-bit PCM WAV (only when the user asks for a file)."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(pcm.tobytes())
