"""The in-memory sound pipeline: any block a sound card gives becomes Whisper's mono 16 kHz."""

from __future__ import annotations

import struct
import wave
from pathlib import Path

import numpy as np
import pytest

from hearth.voice.audio import (
    SAMPLE_RATE,
    Recording,
    read_wav,
    record_file,
    resample,
    to_mono_float,
    write_wav,
)
from hearth.voice.errors import RecordingError


def sine(frequency: float, rate: int, seconds: float, amplitude: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amplitude * np.sin(2 * np.pi * frequency * t)).astype(np.float32)


def peak_frequency(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[np.argmax(spectrum)])


@pytest.mark.parametrize(
    ("dtype", "full_scale"),
    [(np.int16, 32767), (np.int32, 2**31 - 1), (np.float32, 1.0)],
)
@pytest.mark.parametrize("channels", [1, 2])
def test_blocks_of_every_width_become_mono_float(
    dtype: type[np.generic], full_scale: float, channels: int
) -> None:
    wave_ = sine(440, SAMPLE_RATE, 0.1)
    block = np.repeat((wave_ * full_scale).astype(dtype)[:, None], channels, axis=1)
    recording = Recording(SAMPLE_RATE)
    assert recording.feed(block)
    samples = recording.samples()
    assert samples.dtype == np.float32
    assert samples.shape == (len(wave_),)
    np.testing.assert_allclose(samples, wave_, atol=1e-4)
    assert recording.peak == pytest.approx(0.5, abs=1e-3)
    assert recording.seconds == pytest.approx(0.1)


def test_stereo_is_the_mean_of_the_channels() -> None:
    left = np.full(100, 10000, np.int16)
    right = np.full(100, -2000, np.int16)
    mono = to_mono_float(np.stack([left, right], axis=1))
    np.testing.assert_allclose(mono, 4000 / 32768, rtol=1e-6)


def test_unsupported_blocks_are_our_bug() -> None:
    with pytest.raises(ValueError, match="unsupported sample type"):
        to_mono_float(np.zeros((10, 1), np.uint8))
    with pytest.raises(ValueError, match="shape"):
        to_mono_float(np.zeros((2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="positive"):
        Recording(0)


def test_level_is_zero_for_silence_and_near_one_at_full_scale() -> None:
    recording = Recording(SAMPLE_RATE)
    recording.feed(np.zeros((800, 1), np.float32))
    assert recording.level == 0.0
    assert recording.peak == 0.0
    recording.feed(np.full((800, 1), 32767, np.int16))  # a square wave at full scale
    assert recording.level > 0.99
    recording.feed(sine(440, SAMPLE_RATE, 0.05, amplitude=0.001)[:, None])  # -63 dBFS RMS
    assert recording.level == 0.0
    recording.feed(sine(440, SAMPLE_RATE, 0.05, amplitude=0.1)[:, None])  # -23 dBFS RMS
    assert 0.55 < recording.level < 0.65
    assert recording.peak > 0.99  # the loudest block so far is kept


def test_a_full_recording_takes_no_more() -> None:
    block = 3 * SAMPLE_RATE // 10
    recording = Recording(SAMPLE_RATE, max_seconds=0.5)
    assert recording.feed(np.ones(block, np.float32))
    assert not recording.feed(np.ones(block, np.float32))  # this block filled it: stop now
    assert recording.full
    assert not recording.feed(np.full(block, 0.25, np.float32))  # dropped, not appended
    assert recording.seconds == 0.5
    samples = recording.samples()
    assert len(samples) == SAMPLE_RATE // 2
    assert not np.any(samples == 0.25)


def test_clear_forgets_the_sound() -> None:
    recording = Recording(SAMPLE_RATE)
    recording.feed(sine(440, SAMPLE_RATE, 0.2)[:, None])
    recording.clear()
    assert recording.seconds == 0.0
    assert recording.level == 0.0
    assert len(recording.samples()) == 0


@pytest.mark.parametrize("rate", [22050, 44100, 48000])
def test_resampling_keeps_the_pitch_and_the_length(rate: int) -> None:
    seconds = 2.0
    recording = Recording(rate)
    for block in np.array_split(sine(440, rate, seconds)[:, None], 40):
        recording.feed(block)  # in blocks, the way a sound card delivers them
    samples = recording.samples()
    assert samples.dtype == np.float32
    assert abs(len(samples) - seconds * SAMPLE_RATE) <= 64
    assert peak_frequency(samples, SAMPLE_RATE) == pytest.approx(440, abs=2)
    middle = samples[len(samples) // 4 : -len(samples) // 4]
    assert np.max(np.abs(middle)) == pytest.approx(0.5, abs=0.02)  # no gain, no clipping


def test_resampling_nothing_or_to_the_same_rate_returns_it() -> None:
    assert len(resample(np.zeros(0, np.float32), 48000, SAMPLE_RATE)) == 0
    same = sine(440, SAMPLE_RATE, 0.1)
    np.testing.assert_array_equal(resample(same, SAMPLE_RATE, SAMPLE_RATE), same)


def test_a_wav_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "tone.wav"
    tone = sine(440, SAMPLE_RATE, 1.0)
    write_wav(path, tone)
    rate, blocks = read_wav(path)
    assert rate == SAMPLE_RATE
    frames = np.concatenate(list(blocks))
    assert frames.dtype == np.int16
    assert frames.shape == (SAMPLE_RATE, 1)
    np.testing.assert_allclose(to_mono_float(frames), tone, atol=1 / 16000)
    np.testing.assert_allclose(record_file(path).samples(), tone, atol=1 / 16000)


def test_write_wav_clips_instead_of_wrapping(tmp_path: Path) -> None:
    path = tmp_path / "loud.wav"
    write_wav(path, np.array([2.0, -2.0, 0.0], np.float32))
    _, blocks = read_wav(path)
    np.testing.assert_array_equal(np.concatenate(list(blocks))[:, 0], [32767, -32767, 0])


def test_record_file_stops_at_max_seconds(tmp_path: Path) -> None:
    path = tmp_path / "long.wav"
    write_wav(path, sine(440, SAMPLE_RATE, 3.0))
    recording = record_file(path, max_seconds=1.0)
    assert recording.full
    assert len(recording.samples()) == SAMPLE_RATE


def test_a_stereo_wav_at_another_rate_is_mixed_and_resampled(tmp_path: Path) -> None:
    path = tmp_path / "stereo.wav"
    tone = (sine(440, 44100, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(2)
        writer.setsampwidth(2)
        writer.setframerate(44100)
        writer.writeframes(np.stack([tone, tone], axis=1).tobytes())
    samples = record_file(path).samples()
    assert abs(len(samples) - SAMPLE_RATE) <= 64
    assert np.max(np.abs(samples)) == pytest.approx(0.5, abs=0.02)
    assert peak_frequency(samples, SAMPLE_RATE) == pytest.approx(440, abs=2)


def test_garbage_is_not_a_wav(tmp_path: Path) -> None:
    path = tmp_path / "garbage.wav"
    path.write_bytes(b"this is not a RIFF file at all" * 10)
    with pytest.raises(RecordingError, match="not a readable WAV file"):
        read_wav(path)


def test_an_empty_or_missing_file_is_not_a_wav(tmp_path: Path) -> None:
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(RecordingError, match="not a readable WAV file"):
        read_wav(empty)
    with pytest.raises(RecordingError, match="not a readable WAV file"):
        read_wav(tmp_path / "missing.wav")


def test_a_truncated_header_is_not_a_wav(tmp_path: Path) -> None:
    whole = tmp_path / "whole.wav"
    write_wav(whole, sine(440, SAMPLE_RATE, 0.5))
    cut = tmp_path / "cut.wav"
    cut.write_bytes(whole.read_bytes()[:30])  # inside the fmt chunk
    with pytest.raises(RecordingError, match="not a readable WAV file"):
        read_wav(cut)


def test_a_wav_cut_in_its_data_keeps_what_is_there(tmp_path: Path) -> None:
    whole = tmp_path / "whole.wav"
    write_wav(whole, sine(440, SAMPLE_RATE, 1.0))
    cut = tmp_path / "cut.wav"
    cut.write_bytes(whole.read_bytes()[: 44 + 2 * 4000 + 1])  # an odd byte: half a frame
    samples = record_file(cut).samples()
    assert len(samples) == 4000


def test_an_8_bit_wav_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "8bit.wav"
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(1)
        writer.setframerate(8000)
        writer.writeframes(bytes(range(256)) * 10)
    with pytest.raises(RecordingError, match="8-bit sound; only 16-bit PCM"):
        read_wav(path)


def test_a_float_wav_is_refused(tmp_path: Path) -> None:
    # WAVE_FORMAT_IEEE_FLOAT (3), which the wave module cannot read.
    data = np.zeros(100, "<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, 16000, 64000, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(data)) + data
    path = tmp_path / "float.wav"
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    with pytest.raises(RecordingError, match="not a readable WAV file"):
        read_wav(path)
