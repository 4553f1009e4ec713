"""`Assistant.open(defer_plugins=True)`: the plugins load later, once, off the opening thread;
a session waits for them, and connectors start as they arrive."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hearth import Assistant, Connector, hookimpl, tool
from tests.app.agent.scripted import Reply, ScriptedModel

WAIT_S = 10.0


@tool(effect="read", name="desk.look")
def look(where: str) -> str:
    """Look at the desk.

    Args:
        where: Which drawer.
    """
    return where


class Desk(Connector):
    name = "desk"
    title = "Desk"
    description = "The desk and its drawers."

    def __init__(self) -> None:
        super().__init__(tools=(look,))
        self.started = 0

    def start(self) -> None:
        self.started += 1


class SlowPlugin:
    """Registers its connector once the test lets it (a big import takes as long)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0
        self.desk = Desk()

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        self.calls += 1
        assert self.release.wait(WAIT_S)
        register(self.desk)


def open_deferred(plugin: SlowPlugin, *, start: bool = False) -> Assistant:
    return Assistant.open(
        ScriptedModel([Reply(text="Hello.")]),
        plugins=[plugin],
        entry_points=False,
        user_plugins=False,
        start_connectors=start,
        defer_plugins=True,
    )


def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_nothing_loads_until_asked_and_two_callers_share_one_load() -> None:
    plugin = SlowPlugin()
    assistant = open_deferred(plugin)
    try:
        assert plugin.calls == 0 and not assistant.plugins_loaded
        assert list(assistant.tools) == [] and assistant.connectors() == []
        first = threading.Thread(target=assistant.load_plugins)
        second = threading.Thread(target=assistant.load_plugins)
        first.start()
        until(lambda: plugin.calls == 1)
        second.start()
        assert not assistant.plugins_loaded and assistant.connectors() == []  # nothing half-done
        plugin.release.set()
        first.join(WAIT_S)
        second.join(WAIT_S)
        assert plugin.calls == 1 and assistant.plugins_loaded
        assert assistant.connectors() == [plugin.desk]
        assert assistant.tools.get("desk.look") is not None
        assert [info.name for info in assistant.plugin_infos()] == ["SlowPlugin"]
    finally:
        plugin.release.set()
        assistant.close()


def test_a_session_opened_before_the_plugins_loaded_waits_for_their_tools() -> None:
    plugin = SlowPlugin()
    assistant = open_deferred(plugin)
    try:
        threading.Timer(0.2, plugin.release.set).start()
        session = assistant.session()
        assert assistant.plugins_loaded
        assert "desk.look" in {t.name for t in session.tools}
    finally:
        plugin.release.set()
        assistant.close()


def test_connectors_start_as_they_arrive_and_not_after_closing() -> None:
    plugin = SlowPlugin()
    plugin.release.set()
    assistant = open_deferred(plugin, start=True)
    assert plugin.desk.started == 0
    assistant.load_plugins()
    assert plugin.desk.started == 1
    assistant.load_plugins()  # already loaded: nothing happens again
    assert plugin.desk.started == 1 and plugin.calls == 1
    assistant.close()

    late = SlowPlugin()
    late.release.set()
    closed = open_deferred(late, start=True)
    closed.close()
    closed.load_plugins()  # a load that ends after closing starts nothing
    assert late.desk.started == 0
