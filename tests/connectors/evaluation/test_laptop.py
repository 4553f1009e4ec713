"""The evaluation's laptop: real PulseAudio, gsettings on a private bus, a sysfs-like backlight
and the modelled radio, set and read directly and changed through the system connector's real
tools by the agent."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.agent import ToolRan
from hearth.connectors.evaluation.laptop import DEFAULTS, Laptop
from hearth.connectors.evaluation.radio import LoopbackRadio
from hearth.connectors.evaluation.servers import ServerUnavailable
from hearth.connectors.system.connector import SystemConnector
from tests.app.agent.kit import of
from tests.app.agent.turns import results, scripted_turns
from tests.conftest import require
from tests.connectors.mail.test_wifi_recovery import Plugin

pytestmark = pytest.mark.server


@pytest.fixture
def switched() -> list[bool]:
    return []


@pytest.fixture
def laptop(tmp_path: Path, switched: list[bool]) -> Iterator[Laptop]:
    machine = Laptop(tmp_path / "laptop", on_wifi=switched.append)
    try:
        machine.start()
    except ServerUnavailable as missing:
        require(str(missing))
    yield machine
    machine.stop()


def descendants() -> set[int]:
    """This process's live children, grandchildren and so on, from /proc."""
    parents: dict[int, list[int]] = {}
    for pid in _pids():
        stat = _stat(pid)
        if stat is not None and stat.split()[0] != "Z":
            parents.setdefault(int(stat.split()[1]), []).append(pid)
    found, todo = set(), [os.getpid()]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def living_in(root: Path) -> dict[int, str]:
    """Live processes (but this one) whose environment names `root`, by id, with their names.

    dbus-daemon forks twice to start dconf-service, so that is nobody's child here."""
    found = {}
    for pid in _pids() - {os.getpid()}:
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes()
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if str(root).encode() in env and (_stat(pid) or "Z").split()[0] != "Z":
            found[pid] = name
    return found


def _pids() -> set[int]:
    return {int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()}


def _stat(pid: int) -> str | None:
    """State, parent and the rest of /proc/<pid>/stat, after the name."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :]


def test_a_state_applied_directly_is_read_back(laptop: Laptop, switched: list[bool]) -> None:
    assert laptop.read() == DEFAULTS
    state = {"wifi": False, "volume": 35, "mute": True, "brightness": 20, "do_not_disturb": True}
    laptop.apply(state)
    assert laptop.read() == state
    assert switched == [False]
    laptop.apply({"wifi": False, "volume": 0})
    assert laptop.read() == {**state, "volume": 0}
    assert switched == [False]  # the radio was off already: nothing to tell


def test_every_setting_changed_through_the_real_tools_is_seen_by_read(
    laptop: Laptop, switched: list[bool]
) -> None:
    system = SystemConnector(laptop.machine())
    backends = {support.setting: support.backend for support in system.machine.supports()}
    assert backends == {
        "wifi": "loopback radio",
        "volume": "pactl",
        "mute": "pactl",
        "brightness": "sysfs",
        "do_not_disturb": "gsettings",
    }
    laptop.apply({"wifi": False})
    calls = [
        ("Wi-Fi on, please.", ("system.set_wifi", {"enabled": True}), {"wifi": True}),
        ("Volume 42.", ("system.set_volume", {"level": 42}), {"volume": 42}),
        ("Mute the sound.", ("system.mute", {"muted": True}), {"mute": True}),
        ("Brightness 85.", ("system.set_brightness", {"level": 85}), {"brightness": 85}),
        (
            "Do not disturb.",
            ("system.set_do_not_disturb", {"enabled": True}),
            {"do_not_disturb": True},
        ),
        ("Wi-Fi off.", ("system.set_wifi", {"enabled": False}), {"wifi": False}),
    ]
    expected = {**DEFAULTS, "wifi": False}
    with scripted_turns(Plugin(system)) as turn:
        for ask, call, change in calls:
            _, steps = turn(ask, call)
            assert [ran.outcome for ran in of(steps, ToolRan)] == ["executed"], ask
            expected.update(change)
            assert laptop.read() == expected, ask
        _, steps = turn("What's the status of my settings?", ("system.status", {}))
    [status] = results(steps)
    assert {name: status[name] for name in expected} == expected
    assert switched == [False, True, False]


def test_stop_leaves_no_process_behind_and_restores_the_environment(tmp_path: Path) -> None:
    before = dict(os.environ)
    laptop = Laptop(tmp_path / "laptop")
    try:
        laptop.start()
    except ServerUnavailable as missing:
        require(str(missing))
    try:
        root = Path(os.environ["XDG_RUNTIME_DIR"]).parent
        assert os.environ["PULSE_SERVER"] == f"unix:{root / 'native'}"
        assert os.environ["XDG_CURRENT_DESKTOP"] == "GNOME"
        laptop.apply({"do_not_disturb": True})  # the bus starts dconf-service to save it
        started = living_in(root)
        assert sorted(started.values()) == ["dbus-daemon", "dconf-service", "pulseaudio"]
    finally:
        laptop.stop()
    assert living_in(root) == {}
    assert not root.exists()
    assert dict(os.environ) == before
    laptop.stop()
    assert dict(os.environ) == before


def test_a_missing_daemon_names_the_package_and_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Everything the laptop runs but pulseaudio, so the bus starts before the failure.
    path = tmp_path / "bin"
    path.mkdir()
    for program in ("dbus-daemon", "gsettings", "pactl"):
        where = next(
            (
                Path(d) / program
                for d in os.environ["PATH"].split(":")
                if (Path(d) / program).exists()
            ),
            None,
        )
        if where is None:
            require(f"{program} is not installed")
        (path / program).symlink_to(where)
    monkeypatch.setenv("PATH", str(path))
    before, already = dict(os.environ), descendants()
    folders = set(Path(tempfile.gettempdir()).glob("hearth-laptop-*"))
    laptop = Laptop(tmp_path / "laptop")
    with pytest.raises(ServerUnavailable, match=r"`sudo apt install pulseaudio`"):
        laptop.start()
    assert descendants() <= already
    assert set(Path(tempfile.gettempdir()).glob("hearth-laptop-*")) <= folders
    assert dict(os.environ) == before
    laptop.stop()
    with pytest.raises(RuntimeError, match="start the laptop"):
        laptop.read()


def test_the_radio_keeps_its_state_when_the_network_cannot_follow() -> None:
    def refuse(on: bool) -> None:
        raise OSError("the SMTP port is taken")

    radio = LoopbackRadio(refuse)
    with pytest.raises(OSError):
        radio.write(False)
    assert radio.read() is True and radio.detail() == "loopback"
    told: list[bool] = []
    radio.on_wifi = told.append
    radio.write(True)
    radio.write(False)
    assert (told, radio.read(), radio.detail()) == ([False], False, "")
