"""The system tools' results word themselves for their cards."""

from __future__ import annotations

from hearth import summary_of
from hearth.connectors.system.results import Change, SettingChanged, SystemStatus


def test_a_change_reads_as_before_and_after() -> None:
    changed = SettingChanged(changed=[Change(setting="volume", before=40, after=60)])
    assert summary_of(changed) == "Volume: 40 → 60"
    wifi = SettingChanged(changed=[Change(setting="wifi", before=True, after=False)])
    assert summary_of(wifi) == "Wi-Fi: on → off"


def test_a_status_reads_as_what_could_be_read() -> None:
    status = SystemStatus(wifi=True, wifi_network="Home\u202e", volume=40, battery_percent=80)
    assert summary_of(status) == "Wi-Fi on (Home\\u202e), volume 40%, battery 80%"
    assert summary_of(SystemStatus()) == "Nothing could be read here."
