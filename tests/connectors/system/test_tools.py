"""The system tools through the agent, on real backends: volume and mute on a real PulseAudio
server, do-not-disturb through real gsettings and dconf, brightness on a sysfs-like folder.
Every change asks (or passes a range rule), is read back, and is undone through the journal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.agent import ConsentAsked, Deny, ToolRan
from hearth.connectors.system.commands import CommandRunner
from hearth.connectors.system.connector import SystemConnector
from hearth.connectors.system.linux_audio import audio_controls
from hearth.connectors.system.linux_backlight import SysfsBrightness
from hearth.connectors.system.linux_desktop import GsettingsDnd
from hearth.connectors.system.machine import Machine
from tests.app.agent.kit import of
from tests.app.agent.turns import Turn, results, scripted_turns
from tests.connectors.mail.test_wifi_recovery import Plugin
from tests.connectors.system.audio_fixtures import AudioServer

pytestmark = pytest.mark.server


@pytest.fixture
def system(backlight_dir: Path) -> SystemConnector:
    runner = CommandRunner()
    controls = [*audio_controls(runner), SysfsBrightness(backlight_dir), GsettingsDnd(runner)]
    return SystemConnector(Machine(controls))


@pytest.fixture
def turn(system: SystemConnector) -> Iterator[Turn]:
    with scripted_turns(Plugin(system)) as run:
        yield run


def volume(system: SystemConnector) -> int | bool:
    return system.machine.control("volume").read()


def test_a_volume_change_asks_is_read_back_and_undone(
    pulse_server: AudioServer, system: SystemConnector, turn: Turn
) -> None:
    assistant, steps = turn("Quieter, 30 please.", ("system.set_volume", {"level": 30}))
    [asked] = of(steps, ConsentAsked)
    assert asked.request.tool.effect == "system"
    assert asked.request.preview == "Set the volume to 30% (it is 100% now, using pactl)"
    [changed] = results(steps)
    assert changed["changed"] == [{"setting": "volume", "before": 100, "after": 30}]
    assert volume(system) == 30

    [ran] = of(steps, ToolRan)
    done = assistant.undo(ran.call.id)
    assert done.summary == "the volume is 100% again"
    assert volume(system) == 100


def test_a_range_rule_allows_inside_it_and_asks_beyond_it(
    pulse_server: AudioServer, system: SystemConnector, turn: Turn
) -> None:
    rules = (("system.set_volume", "volume:0-60"),)
    _, steps = turn("Volume 50.", ("system.set_volume", {"level": 50}), rules=rules)
    assert of(steps, ConsentAsked) == [] and volume(system) == 50
    _, steps = turn(
        "Volume 70.",
        ("system.set_volume", {"level": 70}),
        rules=rules,
        answer=lambda _: Deny("too loud"),
    )
    assert len(of(steps, ConsentAsked)) == 1 and volume(system) == 50


def test_mute_keeps_the_level_and_status_reads_everything(
    pulse_server: AudioServer, session_bus: str, system: SystemConnector, turn: Turn
) -> None:
    _, steps = turn(
        "Mute, then what's on?", ("system.mute", {"muted": True}), ("system.status", {})
    )
    _, status = results(steps)
    assert status["volume"] == 100 and status["mute"] is True
    assert status["brightness"] == 50 and status["do_not_disturb"] is False
    assert set(status["unsupported"]) == {"wifi", "battery"}
    assert "Wi-Fi is not supported on this machine" in status["unsupported"]["wifi"]


def test_do_not_disturb_through_gsettings_and_back(
    session_bus: str, system: SystemConnector, turn: Turn
) -> None:
    assistant, steps = turn("Focus time.", ("system.set_do_not_disturb", {"enabled": True}))
    assert system.machine.control("do_not_disturb").read() is True
    [ran] = of(steps, ToolRan)
    assert assistant.undo(ran.call.id).summary == "do-not-disturb is off again"
    assert system.machine.control("do_not_disturb").read() is False


def test_an_unsupported_setting_is_said_to_the_model_and_nobody_is_asked(
    turn: Turn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No sound server answers: both audio backends say why, and nothing can start one.
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path / 'nobody'}")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    _, steps = turn("Louder.", ("system.set_volume", {"level": 80}))
    assert of(steps, ConsentAsked) == []
    [ran] = of(steps, ToolRan)
    assert ran.outcome == "invalid"  # checked before anyone is asked, like a missing file
    said = json.dumps(ran.result)
    assert "Volume is not supported on this machine" in said
    assert "no PulseAudio server answers" in said
