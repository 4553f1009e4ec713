"""A light line scanner for ICS text: unfold it and cut it into top-level components.

Each component keeps the physical line it starts on, so a problem found later can name its place.
Structural faults (a missing or mismatched END) drop the component and are reported as a `Problem`;
text that ends before END:VCALENDAR is marked `cut`, so a half-written file is never taken as whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from hearth.connectors.calendar.objects import Problem

MAX_TEXT_CHARS = 64 * 1024  # per property line; longer text is cut, and the reader reports it
_NEWLINE = re.compile(r"\r\n|\r|\n")
_TOP_LEVEL = {"VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE"}


@dataclass
class Line:
    """One unfolded content line, the physical line it starts on, and its length before cutting."""

    number: int
    text: str
    length: int

    @property
    def cut(self) -> bool:
        return self.length > len(self.text)

    def name(self) -> str:
        return re.split("[;:]", self.text, maxsplit=1)[0].strip().upper()


@dataclass
class Block:
    """The lines of one top-level component, from its BEGIN to its END."""

    kind: str
    line: int
    lines: list[Line]

    def label(self) -> str:
        names = {line.name(): line.text for line in reversed(self.lines)}
        for key in ("TZID", "SUMMARY", "UID"):
            if key in names:
                return f"{self.kind} '{split_line(names[key])[1][:60]}'"
        return self.kind


@dataclass
class Scanned:
    """A calendar's own lines, its whole components, and why it is cut short (None if whole)."""

    header: list[Line]
    blocks: list[Block]
    cut: str | None = None


def split_line(text: str) -> tuple[str, str]:
    """Split a content line at the first colon outside double quotes: (name;params, value)."""
    quoted = False
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char == ":" and not quoted:
            return text[:index], text[index + 1 :]
    return text, ""


def _unfold(text: str) -> Iterable[Line]:
    parts: list[str] = []
    start = length = kept = 0
    for number, raw in enumerate(_NEWLINE.split(text), 1):
        if raw[:1] in (" ", "\t") and parts:
            length += len(raw) - 1
            if kept < MAX_TEXT_CHARS:
                parts.append(raw[1 : 1 + MAX_TEXT_CHARS - kept])
                kept += len(parts[-1])
            continue
        if parts:
            yield Line(start, "".join(parts), length)
        parts = [raw[:MAX_TEXT_CHARS]] if raw.strip() else []
        start, length, kept = number, len(raw), len(raw[:MAX_TEXT_CHARS])
    if parts:
        yield Line(start, "".join(parts), length)


def blocks(text: str, where: str, problems: list[Problem]) -> Scanned | None:
    """Cut text into calendar-level lines and whole components; None if no VCALENDAR begins."""
    header: list[Line] = []
    found: list[Block] = []
    current: Block | None = None
    stack: list[str] = []
    strays: list[Line] = []  # END lines at the calendar's own level, closing nothing
    inside = seen = skipping = False
    last: Line | None = None

    def drop(block: Block, message: str) -> None:
        problems.append(Problem(where, block.line, block.label(), "not read: " + message))

    for line in _unfold(text):
        name, last = line.name(), line
        value = split_line(line.text)[1].strip().upper() if name in ("BEGIN", "END") else ""
        if value == "VCALENDAR":
            if current is not None:
                drop(current, f"no END:{current.kind} before line {line.number}")
            if name == "BEGIN" and seen:
                message = "a second calendar begins here; its events are read as the first's"
                problems.append(Problem(where, line.number, "VCALENDAR", message))
            inside, seen, skipping, current = name == "BEGIN", True, False, None
        elif not inside:
            continue
        elif current is None or (name == "BEGIN" and value in _TOP_LEVEL):
            if current is not None:
                drop(current, f"no END:{current.kind} before line {line.number}")
                current = None
            if name == "BEGIN":
                current, stack, skipping = Block(value, line.number, [line]), [value], False
            elif name == "END" and not skipping:
                strays.append(line)
            elif not skipping:
                header.append(line)
        else:
            current.lines.append(line)
            if name == "BEGIN":
                stack.append(value)
            elif name == "END" and value != stack[-1]:
                drop(current, f"END:{value} on line {line.number} does not close BEGIN:{stack[-1]}")
                current, skipping = None, True
            elif name == "END":
                stack.pop()
                if not stack:
                    found.append(current)
                    current = None
    if current is not None:
        drop(current, f"the text ends before END:{current.kind}")
    if not seen:
        return None
    return Scanned(header, found, _cut(inside, last, strays, where, problems))


def _cut(
    inside: bool, last: Line | None, strays: list[Line], where: str, problems: list[Problem]
) -> str | None:
    """Why the text is not whole, if it is not; a stray END as its last line (END:VCALENDARD)
    is taken as the calendar's end, as icalendar takes it."""
    closing = strays.pop() if inside and strays and strays[-1] is last else None
    for stray in strays:
        message = f"{stray.text} on line {stray.number} closes nothing; left out"
        problems.append(Problem(where, stray.number, "VCALENDAR", message))
    if closing is not None:
        message = f"{closing.text} on line {closing.number} is read as END:VCALENDAR"
        problems.append(Problem(where, closing.number, "VCALENDAR", message))
        return None
    if inside and last is not None:
        return f"it ends on line {last.number}, before END:VCALENDAR"
    return None
