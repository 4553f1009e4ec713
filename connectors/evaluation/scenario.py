"""A scenario file (TOML): where the world starts, what the user says, and what may change.

Dates in a scenario are written relative to the day it runs, so a suite never goes stale:
`{today}`, `{tomorrow}`, `{day+3}` and `{day-2}` become ISO dates (YYYY-MM-DD) in the
machine's time zone before the file is checked.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import pydantic

from hearth import HearthError

Category = Literal["single", "multi_step", "multi_turn", "decline", "ask", "injection"]
Vector = Literal[
    "mail_body",
    "mail_html",
    "attachment_name",
    "event_description",
    "invitation",
    "file",
    "calendar_name",
    "folder_name",
    "refusal",
    "mcp_description",
    "display_name",
    "server_message",
]
Goal = Literal["send", "forward", "delete", "invite", "settings", "write"]
SUITES = ("tasks", "injection")
_PLACEHOLDER = re.compile(r"\{(today|tomorrow|day([+-]\d{1,3}))\}")


class ScenarioError(HearthError):
    """A scenario file that cannot be read or does not follow the format."""


class _Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", frozen=True)


class Attachment(_Strict):
    name: str
    text: str = ""


class Mail(_Strict):
    """A message in the mailbox when the scenario starts."""

    folder: str = "INBOX"
    sender: str = pydantic.Field(alias="from")
    to: str = "Ann <ann@example.org>"
    subject: str
    body: str = ""
    html: str = ""
    date: str = ""  # ISO date-time; empty for an hour before the run
    flags: tuple[str, ...] = ()
    attachments: tuple[Attachment, ...] = ()


class Event(_Strict):
    """An event in one of the user's calendars (an invitation when it has an organizer)."""

    calendar: str = "Work"
    title: str
    start: str  # ISO local date-time, or a date for an all-day event
    end: str = ""
    location: str = ""
    description: str = ""
    organizer: str = ""
    attendees: tuple[str, ...] = ()


class File(_Strict):
    """A text file under the user's granted Documents folder (path relative to it)."""

    path: str
    text: str


class Settings(_Strict):
    """The laptop's settings when the scenario starts."""

    wifi: bool = True
    volume: int = pydantic.Field(default=50, ge=0, le=100)
    mute: bool = False
    brightness: int = pydantic.Field(default=70, ge=0, le=100)
    do_not_disturb: bool = False


class McpTool(_Strict):
    """A tool of the MCP server "Notes" the scenario runs: the description is the server's."""

    name: str = pydantic.Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str
    reply: str = "Done."  # what every call returns


class SmtpRefusal(_Strict):
    """A recipient the SMTP server refuses at RCPT, with the reply text it gives."""

    to: str
    reply: str = pydantic.Field(pattern=r"^5\d\d ")  # e.g. "550 5.1.1 No such mailbox"


class State(_Strict):
    mail: tuple[Mail, ...] = ()
    events: tuple[Event, ...] = ()
    files: tuple[File, ...] = ()
    settings: Settings = Settings()
    mcp: tuple[McpTool, ...] = ()
    smtp_refusals: tuple[SmtpRefusal, ...] = ()


class Rule(_Strict):
    """A standing consent rule the user made before the scenario (tool pattern and scope)."""

    tool: str
    scope: str | None = None


class CallPattern(_Strict):
    """A tool call, by tool name and argument matchers (see `changes.matches`)."""

    tool: str
    arguments: dict[str, Any] = {}


class PlannedCall(_Strict):
    """A concrete call for the tests' scripted models: `turn` is the user turn (from 1) it
    answers; a text argument "@mail:SUBJECT" or "@event:TITLE" names an item of the initial
    state by its id, which only exists once the servers hold it."""

    tool: str
    arguments: dict[str, Any] = {}
    turn: int = pydantic.Field(default=1, ge=1)


class Pattern(pydantic.BaseModel):
    """A change, by kind and field matchers (see `changes.matches`)."""

    model_config = pydantic.ConfigDict(extra="allow", frozen=True)
    kind: str

    def fields(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class Attack(_Strict):
    """What the instructions planted in the data try to make Hearth do."""

    vector: Vector
    goal: Goal
    calls: tuple[CallPattern, ...] = pydantic.Field(min_length=1)
    changes: tuple[Pattern, ...] = pydantic.Field(min_length=1)
    script: tuple[PlannedCall, ...] = pydantic.Field(min_length=1)  # what a hijacked model does


class Scenario(_Strict):
    """One scenario: judged by the environment's diff against `expect` and `allow`."""

    id: str = pydantic.Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    category: Category
    summary: str
    turns: tuple[str, ...] = pydantic.Field(min_length=1)
    state: State = State()
    rules: tuple[Rule, ...] = ()
    approve: tuple[CallPattern, ...] = ()
    expect: tuple[Pattern, ...] = ()
    allow: tuple[Pattern, ...] = ()
    attack: Attack | None = None
    solution: tuple[PlannedCall, ...] = ()  # calls that solve it, proving it can be solved

    @pydantic.model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if (self.category == "injection") != (self.attack is not None):
            raise ValueError("an injection scenario, and only one, describes its attack")
        if self.category in ("decline", "ask") and self.expect:
            raise ValueError(f"a {self.category} scenario expects no change")
        if self.category not in ("decline", "ask", "injection") and not self.expect:
            raise ValueError("a task scenario expects at least one change")
        if self.expect and not self.solution:
            raise ValueError("a scenario that expects changes gives a solution that makes them")
        if any(call.turn > len(self.turns) for call in self.solution):
            raise ValueError("a solution call answers a turn the scenario does not have")
        return self


def parse_scenario(text: str, origin: str, today: date) -> Scenario:
    """The scenario in `text` (TOML), its dates made concrete for `today`."""
    try:
        data = tomllib.loads(_dated(text, today))
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{origin} is not valid TOML: {error}") from None
    try:
        return Scenario.model_validate(data)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise ScenarioError(f"{origin}: {where}: {first['msg']}") from None


def load_suite(
    suites: Iterable[str] = SUITES, extra: Iterable[Path] = (), today: date | None = None
) -> list[Scenario]:
    """The built-in scenarios of `suites`, then those in `extra` files or folders, by id."""
    day = today or date.today()
    found: list[Scenario] = []
    for suite in suites:
        folder = resources.files("hearth.resources").joinpath("scenarios", suite)
        for entry in sorted(folder.iterdir(), key=lambda item: item.name):
            if entry.name.endswith(".toml"):
                found.append(parse_scenario(entry.read_text("utf-8"), entry.name, day))
    for path in extra:
        files = sorted(path.glob("*.toml")) if path.is_dir() else [path]
        for file in files:
            try:
                text = file.read_text("utf-8")
            except OSError as error:
                raise ScenarioError(f"cannot read {file}: {error.strerror}") from None
            found.append(parse_scenario(text, str(file), day))
    _unique(found)
    return found


def _unique(scenarios: list[Scenario]) -> None:
    seen: dict[str, int] = {}
    for scenario in scenarios:
        seen[scenario.id] = seen.get(scenario.id, 0) + 1
    if twice := sorted(name for name, count in seen.items() if count > 1):
        raise ScenarioError(f"two scenarios share the id {twice[0]!r}")


def _dated(text: str, today: date) -> str:
    def concrete(match: re.Match[str]) -> str:
        word, offset = match.group(1), match.group(2)
        days = 1 if word == "tomorrow" else int(offset) if offset else 0
        return (today + timedelta(days=days)).isoformat()

    return _PLACEHOLDER.sub(concrete, text)


def as_mapping(pattern: Pattern | CallPattern) -> Mapping[str, Any]:
    """A pattern's matchers, for error messages and the report."""
    if isinstance(pattern, CallPattern):
        return {"tool": pattern.tool, **pattern.arguments}
    return {"kind": pattern.kind, **pattern.fields()}
