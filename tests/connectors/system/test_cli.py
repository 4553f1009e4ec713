"""`hearth system status` through the installed CLI and its entry point, on this machine's real
commands with a real PulseAudio server running."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hearth.cli.main import cli
from tests.connectors.system.audio_fixtures import AudioServer

pytestmark = pytest.mark.server


def test_status_names_each_backend_or_why_not(pulse_server: AudioServer) -> None:
    shown = CliRunner().invoke(cli, ["system", "status"])
    assert shown.exit_code == 0, shown.output
    lines = {line.split("  ")[0]: line for line in shown.output.splitlines()}
    assert list(lines) == ["Wi-Fi", "Volume", "Mute", "Brightness", "Do not disturb", "Battery"]
    assert "100%" in lines["Volume"] and "(via " in lines["Volume"]
    assert "off" in lines["Mute"]
    # This machine has no NetworkManager and no backlight: each says why, never pretends.
    assert "not supported here  (nmcli is not installed" in lines["Wi-Fi"]
    assert "not supported here" in lines["Brightness"]


def test_status_as_json_is_what_the_model_reads(pulse_server: AudioServer) -> None:
    shown = CliRunner().invoke(cli, ["system", "status", "--json"])
    assert shown.exit_code == 0, shown.output
    status = json.loads(shown.output)
    assert (status["volume"], status["mute"]) == (100, False)
    assert "wifi" in status["unsupported"] and status["wifi"] is None
