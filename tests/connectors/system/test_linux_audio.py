"""Volume and mute through wpctl and pactl, against real PipeWire and PulseAudio servers.

Only malformed answers, which a healthy server never gives, come from recordings. Their
formats: wpctl prints `printf ("Volume: %.2f%s", volume, mute ? " [MUTED]\\n" : "\\n")` and
reports a missing default node as "Translate ID error: ..." on stderr with exit status 0
(wireplumber 0.4 src/tools/wpctl.c; both seen from wpctl 0.4.13 here). pactl prints
"Volume: " + pa_cvolume_snprint_verbose() ("<channel>: <raw> / <pct>% / <dB> dB" joined by
",   ") and "Mute: yes|no" (pulseaudio src/utils/pactl.c, src/pulse/volume.c).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from hearth.connectors.system.commands import CommandRunner, Output, Runner
from hearth.connectors.system.controls import Control, Value
from hearth.connectors.system.errors import CommandFailed, SystemSettingError
from hearth.connectors.system.linux_audio import (
    PROBE_TIMEOUT_S,
    PactlMute,
    PactlVolume,
    WpctlMute,
    WpctlVolume,
    audio_controls,
)
from tests.conftest import require
from tests.connectors.system.audio_fixtures import AudioServer
from tests.connectors.system.recorded import RecordedRunner, said

WPCTL_GET = ("wpctl", "get-volume", "@DEFAULT_AUDIO_SINK@")
PACTL_VOLUME = ("pactl", "get-sink-volume", "@DEFAULT_SINK@")
PACTL_MUTE = ("pactl", "get-sink-mute", "@DEFAULT_SINK@")
PACTL_40 = (
    "Volume: front-left: 26214 /  40% / -23.88 dB,   front-right: 26214 /  40% / -23.88 dB\n"
    "        balance 0.00\n"
)
NO_DEFAULT = "Translate ID error: '-1' is not a valid ID (returned by default-nodes-api)\n"


def _server_command(*argv: str) -> None:
    """Change the test server behind the control's back, as another mixer would."""
    subprocess.run(argv, check=True, capture_output=True, timeout=5)


# -- Both servers -------------------------------------------------------------------------

SERVERS = {
    "pulse_server": (PactlVolume, PactlMute),
    "pipewire_server": (WpctlVolume, WpctlMute),
}


@pytest.fixture(params=list(SERVERS))
def controls(request: pytest.FixtureRequest) -> tuple[Control, Control]:
    """The volume and mute controls of one real server, started for the test."""
    request.getfixturevalue(request.param)
    volume, mute = SERVERS[request.param]
    runner = CommandRunner()
    return volume(runner), mute(runner)


@pytest.mark.server
def test_volume_is_written_and_read_back(controls: tuple[Control, Control]) -> None:
    volume, _ = controls
    assert volume.unsupported() == ""
    for level in (40, 0, 5, 100, 40):
        volume.write(level)
        assert volume.read() == level


@pytest.mark.server
def test_mute_is_read_back_and_leaves_the_volume_alone(controls: tuple[Control, Control]) -> None:
    volume, mute = controls
    assert mute.unsupported() == ""
    volume.write(40)
    assert mute.read() is False
    mute.write(True)
    assert mute.read() is True
    assert volume.read() == 40
    mute.write(False)
    assert mute.read() is False
    assert volume.read() == 40


# -- PulseAudio ---------------------------------------------------------------------------


@pytest.mark.server
def test_pactl_reports_a_boosted_volume_and_the_loudest_channel(pulse_server: AudioServer) -> None:
    volume = PactlVolume(CommandRunner())
    _server_command("pactl", "set-sink-volume", "@DEFAULT_SINK@", "150%")
    assert volume.read() == 150
    _server_command("pactl", "set-sink-volume", "@DEFAULT_SINK@", "30%", "55%")
    assert volume.read() == 55


def test_pactl_without_a_server_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if CommandRunner().which("pactl") is None:
        require("pactl (Debian package pulseaudio-utils) is not installed")
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("HOME", str(tmp_path))
    # An explicit server address also keeps pactl from autospawning a daemon.
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'nobody-listens'}")
    for control in (PactlVolume(CommandRunner()), PactlMute(CommandRunner())):
        assert control.unsupported() == (
            "no PulseAudio server answers (pactl: Connection failure: Connection refused)"
        )
        with pytest.raises(CommandFailed, match="pactl failed: Connection failure"):
            control.read()


# -- PipeWire -----------------------------------------------------------------------------


@pytest.mark.server
def test_wpctl_reports_a_boosted_volume(pipewire_server: AudioServer) -> None:
    _server_command("wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "1.5")
    assert WpctlVolume(CommandRunner()).read() == 150


def test_wpctl_without_a_server_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if CommandRunner().which("wpctl") is None:
        require("wpctl (Debian package wireplumber) is not installed")
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    for name in ("PIPEWIRE_REMOTE", "PIPEWIRE_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    for control in (WpctlVolume(CommandRunner()), WpctlMute(CommandRunner())):
        assert control.unsupported() == (
            "no PipeWire server answers (wpctl: Could not connect to PipeWire)"
        )
        with pytest.raises(CommandFailed, match="wpctl failed: Could not connect to PipeWire"):
            control.read()


# -- Choosing and probing -----------------------------------------------------------------


def test_controls_come_in_preference_order() -> None:
    controls = audio_controls(RecordedRunner({}, programs=[]))
    assert [(c.backend, c.setting) for c in controls] == [
        ("wpctl", "volume"),
        ("wpctl", "mute"),
        ("pactl", "volume"),
        ("pactl", "mute"),
    ]


def test_a_missing_program_is_named_without_running_anything() -> None:
    runner = RecordedRunner({}, programs=[])
    reasons = [control.unsupported() for control in audio_controls(runner)]
    assert reasons == ["wpctl is not installed"] * 2 + ["pactl is not installed"] * 2
    assert runner.calls == []


def test_the_probe_is_one_quick_read() -> None:
    runner = RecordedRunner(
        {WPCTL_GET: said("Volume: 0.40\n"), PACTL_VOLUME: said(PACTL_40)},
        programs=["wpctl", "pactl"],
    )
    assert WpctlVolume(runner).unsupported() == PactlVolume(runner).unsupported() == ""
    assert runner.calls == [WPCTL_GET, PACTL_VOLUME]
    assert runner.timeouts == [PROBE_TIMEOUT_S, PROBE_TIMEOUT_S]


def test_a_hung_server_is_reported_by_the_probe() -> None:
    def hangs() -> Output:
        raise CommandFailed("wpctl did not answer within 2 s")

    runner = RecordedRunner({WPCTL_GET: hangs}, programs=["wpctl"])
    assert WpctlMute(runner).unsupported() == (
        "no PipeWire server answers (wpctl did not answer within 2 s)"
    )


# -- Unreadable answers (recorded) ----------------------------------------------------------


def test_pipewire_without_a_default_sink_is_clear() -> None:
    runner = RecordedRunner({WPCTL_GET: said("", stderr=NO_DEFAULT)}, programs=["wpctl"])
    for control in (WpctlVolume(runner), WpctlMute(runner)):
        assert control.unsupported() == (
            "PipeWire has no default audio output (wpctl: " + NO_DEFAULT.strip() + ")"
        )
        with pytest.raises(SystemSettingError) as raised:
            control.read()
        assert str(raised.value).startswith("`wpctl get-volume @DEFAULT_AUDIO_SINK@` printed no")
        assert "Translate ID error" in str(raised.value)


@pytest.mark.parametrize(
    ("control", "argv", "stdout"),
    [
        (WpctlVolume, WPCTL_GET, "Volume: loud\n"),
        (WpctlVolume, WPCTL_GET, "Volume: 0.40 [MUTED] [MUTED]\n"),
        (WpctlMute, WPCTL_GET, "Mute: no\n"),
        (PactlVolume, PACTL_VOLUME, ""),
        (PactlVolume, PACTL_VOLUME, "Volume: front-left: 26214 / n/a\n"),
        (PactlVolume, PACTL_VOLUME, "Lautstärke: front-left: 26214 /  40% / -23.88 dB\n"),
        (PactlMute, PACTL_MUTE, "Mute: maybe\n"),
        (PactlMute, PACTL_MUTE, "Stumm: nein\n"),
    ],
)
def test_garbage_output_is_a_clear_error(
    control: Callable[[Runner], Control], argv: tuple[str, ...], stdout: str
) -> None:
    runner = RecordedRunner({argv: said(stdout)}, programs=[argv[0]])
    with pytest.raises(SystemSettingError) as raised:
        control(runner).read()
    message = str(raised.value)
    assert message.startswith(f"`{' '.join(argv)}` printed no ")
    assert type(raised.value) is SystemSettingError
    if stdout:
        assert repr(stdout.strip()) in message


def test_a_mono_pulse_sink_is_read() -> None:
    mono = "Volume: mono: 65536 / 100% / 0.00 dB\n        balance 0.00\n"
    runner = RecordedRunner({PACTL_VOLUME: said(mono)}, programs=["pactl"])
    assert PactlVolume(runner).read() == 100


# -- Our own bugs: no command is ever built from a bad value ----------------------------------


@pytest.mark.parametrize(
    ("control", "value"),
    [
        (WpctlVolume, 101),
        (WpctlVolume, -1),
        (WpctlVolume, 40.0),
        (WpctlVolume, "40"),
        (WpctlVolume, True),
        (PactlVolume, 101),
        (PactlVolume, "40; rm -rf ~"),
        (PactlVolume, False),
        (WpctlMute, 1),
        (WpctlMute, "yes"),
        (PactlMute, 0),
        (PactlMute, None),
    ],
)
def test_a_bad_value_raises_before_any_command(
    control: Callable[[Runner], Control], value: object
) -> None:
    runner = RecordedRunner({}, programs=["wpctl", "pactl"])
    with pytest.raises((TypeError, ValueError)):
        control(runner).write(value)  # type: ignore[arg-type]
    assert runner.calls == []


@pytest.mark.parametrize(
    ("control", "value", "argv"),
    [
        (WpctlVolume, 7, ("wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "0.07")),
        (WpctlMute, True, ("wpctl", "set-mute", "@DEFAULT_AUDIO_SINK@", "1")),
        (PactlVolume, 7, ("pactl", "set-sink-volume", "@DEFAULT_SINK@", "7%")),
        (PactlMute, False, ("pactl", "set-sink-mute", "@DEFAULT_SINK@", "0")),
    ],
)
def test_a_write_is_one_command_with_a_formatted_value(
    control: Callable[[Runner], Control], value: Value, argv: tuple[str, ...]
) -> None:
    runner = RecordedRunner({argv: said()}, programs=[argv[0]])
    control(runner).write(value)
    assert runner.calls == [argv]
