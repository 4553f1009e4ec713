"""Real tools and a real file-backed rule store for the consent tests."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from hearth.tools.tool import Effect, Scope, ScopeKind, Tool


def make_tool(
    name: str,
    effect: Effect,
    scope: Scope | None = None,
    scope_kind: ScopeKind | None = None,
    range_arg: str | None = None,
) -> Tool:
    def function(**arguments: Any) -> str:
        return f"{name} ran"

    parameters = {"type": "object", "properties": {}}
    return Tool(
        name, f"{name} for tests.", parameters, function, effect, scope, scope_kind, range_arg
    )


READ_FILE = make_tool("files.read", "read", "path", "path")
WRITE_FILE = make_tool("files.write", "write", "path", "path")
MOVE_FILES = make_tool("files.move", "write", ("sources", "destination"), "path")
SEND_TO_ALL = make_tool("mail.send_all", "send", ("to", "cc"), "recipient")
SET_WIFI = make_tool("system.wifi", "system")
SEND_MAIL = make_tool("mail.send", "send", "to", "recipient")
LIST_EVENTS = make_tool("calendar.list_events", "read", "calendar", "calendar")
ADD_EVENT = make_tool("calendar.add_event", "write", "calendar", "calendar")
SET_SETTING = make_tool("system.set", "system", "name", "setting", "value")
# A tool whose calls always touch one setting: it names it as its `resource`, not an argument.
SET_VOLUME = replace(
    make_tool("system.set_volume", "system", None, "setting", "level"), resource="volume"
)
NOW = make_tool("clock.now", "read")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class JsonRuleFile:
    """Rules kept as JSON rows in one real file, as the store keeps them in SQLite."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _rows(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        rows: dict[str, dict[str, Any]] = json.loads(self.path.read_text())
        return rows

    def load_rules(self) -> list[dict[str, Any]]:
        return list(self._rows().values())

    def save_rule(self, id: str, data: dict[str, Any]) -> None:
        rows = self._rows()
        rows[id] = data
        self.path.write_text(json.dumps(rows))

    def delete_rule(self, id: str) -> None:
        rows = self._rows()
        rows.pop(id, None)
        self.path.write_text(json.dumps(rows))
