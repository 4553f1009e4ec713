"""Match a rule's scope pattern against the resources a call names, by the tool's scope kind.

A pattern covers a call only if it covers every resource the call touches: each element of
each scoped argument (a move's sources and its destination, every recipient). Every matcher
fails closed: a value it cannot parse, a relative path, a missing argument or an unknown kind
never matches, so the call falls through to "ask".
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from hearth.tools.tool import Tool

_ADDRESS = re.compile(r'[^\s@<>()\[\],;:"\\]+@[^\s@<>()\[\],;:"\\]+')
_NAMED = re.compile(r'(?:"[^"]*"|[^<>"@,]*?)\s*<(?P<addr>[^<>]*)>')
_NUMBER = r"-?\d+(?:\.\d+)?"
_SETTING = re.compile(rf"(?P<name>[^:]+?)(?::(?P<lo>{_NUMBER})-(?P<hi>{_NUMBER}))?")


def scope_matches(tool: Tool, pattern: str | None, arguments: Mapping[str, Any]) -> bool:
    """Whether a rule scope `pattern` covers every resource this call names."""
    return _covered(tool, pattern, arguments, all)


def scope_touches(tool: Tool, pattern: str | None, arguments: Mapping[str, Any]) -> bool:
    """Whether `pattern` covers any resource this call names: a deny rule's test, so one
    denied recipient among allowed ones still denies the call."""
    return _covered(tool, pattern, arguments, any)


def _covered(
    tool: Tool,
    pattern: str | None,
    arguments: Mapping[str, Any],
    quantifier: Callable[[Iterable[bool]], bool],
) -> bool:
    if pattern is None:
        return True
    values = tool.scoped_values(arguments)
    if not values:
        return False
    if tool.scope_kind == "setting":
        number = arguments.get(tool.range_arg) if tool.range_arg else None
        return quantifier(
            isinstance(v, str) and setting_matches(pattern, v, number) for v in values
        )
    matcher = _MATCHERS.get(tool.scope_kind or "")
    if matcher is None:
        return False
    return quantifier(matcher(pattern, value) for value in values)


def path_matches(pattern: str, value: object) -> bool:
    """Whether the real path of `value` (or of each in a list) lies in the folder `pattern`."""
    folder = real_path(str(Path(pattern).expanduser()))
    if folder is None:
        return False
    values = value if isinstance(value, list) else [value]
    paths = [real_path(item) if isinstance(item, str) else None for item in values]
    return bool(paths) and all(p is not None and p.is_relative_to(folder) for p in paths)


def pin_scope(tool: Tool, pattern: str) -> str | None:
    """A rule's scope as it is stored: folders as their real path now, so a later symlink
    retarget cannot move the rule; None when a folder pattern is not a usable full path."""
    if tool.scope_kind != "path":
        return pattern
    resolved = real_path(str(Path(pattern).expanduser()))
    return str(resolved) if resolved else None


def real_path(value: str) -> Path | None:
    """The absolute, symlink-free form of `value`; None for relative or unusable paths."""
    if not value or not Path(value).is_absolute():
        # Relative paths would resolve against the process's cwd, which the model does not own.
        return None
    try:
        return Path(os.path.realpath(value))
    except (OSError, ValueError):
        return None


def recipient_matches(pattern: str, value: object) -> bool:
    """Whether every recipient in `value` is one of the addresses or @domains in `pattern`."""
    allowed = [part.strip().lower() for part in pattern.split(",") if part.strip()]
    addresses = parse_recipients(value)
    if not allowed or not addresses:
        return False
    return all(any(_address_fits(a, p) for p in allowed) for a in addresses)


def _address_fits(address: str, pattern: str) -> bool:
    if pattern.startswith("@"):
        return address.rpartition("@")[2] == pattern[1:]
    return address == pattern


def parse_recipients(value: object) -> list[str] | None:
    """Lower-cased addresses from a string or list of "a@b.c" / "Name <a@b.c>" forms.

    None when any part is not a plain address: an unparseable recipient must not be waved through.
    """
    items = value if isinstance(value, list) else [value]
    found: list[str] = []
    for item in items:
        if not isinstance(item, str):
            return None
        for part in _split_addresses(item):
            address = _one_address(part)
            if address is None:
                return None
            found.append(address)
    return found or None


def _split_addresses(text: str) -> list[str]:
    """Split on commas that are outside quotes and angle brackets."""
    parts: list[str] = []
    current: list[str] = []
    quoted = angled = False
    for char in text:
        if char == '"' and not angled:
            quoted = not quoted
        elif char in "<>" and not quoted:
            angled = char == "<"
        if char == "," and not quoted and not angled:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts]


def _one_address(part: str) -> str | None:
    named = _NAMED.fullmatch(part)
    address = named.group("addr").strip() if named else part
    if not _ADDRESS.fullmatch(address):
        return None
    return address.lower()


def calendar_matches(pattern: str, value: object) -> bool:
    """Whether `value` is the calendar named `pattern`, ignoring case."""
    return isinstance(value, str) and value.casefold() == pattern.casefold()


def setting_matches(pattern: str, name: str, number: object) -> bool:
    """Whether setting `name` (and `number`, if the pattern has a lo-hi range) fits `pattern`."""
    parsed = _SETTING.fullmatch(pattern.strip())
    if parsed is None or parsed.group("name").strip().casefold() != name.casefold():
        return False
    if parsed.group("lo") is None:
        return True
    if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
        return False
    return float(parsed.group("lo")) <= number <= float(parsed.group("hi"))


_ANY_SCOPE = {
    "path": "any granted folder",
    "recipient": "any recipient",
    "calendar": "any calendar",
    "setting": "any setting",
}


def unscoped_choice(tool: Tool, arguments: Mapping[str, Any]) -> str | None:
    """The words for a grant with no pattern, offered when the call names no resource at all."""
    if not tool.scope_args or tool.scoped_values(arguments) is not None:
        return None
    return _ANY_SCOPE.get(tool.scope_kind or "", "any resource")


def cannot_scope(tool: Tool, arguments: Mapping[str, Any]) -> str:
    """Why no "Allow for…" grant can cover this call; empty when one can."""
    if not tool.scope_args or unscoped_choice(tool, arguments):
        return ""
    if scope_suggestions(tool, arguments):
        return ""
    return (
        f"no rule can cover this call: its {tool.scope_kind or 'resource'} is not one a rule "
        "can name (a full path, a plain address), so it can only be allowed once"
    )


def exact_scope(tool: Tool, arguments: Mapping[str, Any]) -> str | None:
    """The narrowest pattern covering just this call's resource; None if it names none usable."""
    suggestions = scope_suggestions(tool, arguments)
    return suggestions[0] if suggestions else None


def scope_suggestions(tool: Tool, arguments: Mapping[str, Any]) -> list[str]:
    """Patterns a consent card can offer for this call, narrowest first; each covers it all."""
    values = tool.scoped_values(arguments)
    if not values:
        return []
    if tool.scope_kind == "path":
        found = _path_suggestions(values)
    elif tool.scope_kind == "recipient":
        found = _recipient_suggestions(values)
    elif tool.scope_kind == "calendar":
        found = _calendar_suggestions(values)
    elif tool.scope_kind == "setting":
        number = arguments.get(tool.range_arg) if tool.range_arg else None
        found = _setting_suggestions(values, number)
    else:
        found = []
    return [pattern for pattern in dict.fromkeys(found) if scope_matches(tool, pattern, arguments)]


def _path_suggestions(values: list[object]) -> list[str]:
    paths = [real_path(item) if isinstance(item, str) else None for item in values]
    if not paths or any(path is None for path in paths):
        return []
    exact = Path(os.path.commonpath([str(path) for path in paths]))
    # The filesystem root is never offered: that would be a grant of everything.
    return [str(folder) for folder in (exact, exact.parent) if folder != Path(folder.anchor)]


def _recipient_suggestions(values: list[object]) -> list[str]:
    # A single pattern must cover every recipient, so lists are offered joined.
    addresses = list(dict.fromkeys(parse_recipients(values) or []))
    domains = dict.fromkeys(f"@{address.rpartition('@')[2]}" for address in addresses)
    return [", ".join(addresses), ", ".join(domains)] if addresses else []


def _calendar_suggestions(values: list[object]) -> list[str]:
    names = {value.casefold() for value in values if isinstance(value, str) and value.strip()}
    first = values[0]
    # One calendar pattern names one calendar: a call touching two cannot get an exact scope.
    return [first] if len(names) == 1 and isinstance(first, str) else []


def scope_words(tool: Tool, pattern: str) -> str:
    """A pattern as "Allow for…" offers it: "volume up to 60", "volume at 40 only", "volume at
    any level"; patterns of other kinds read well as they are."""
    parsed = _SETTING.fullmatch(pattern.strip()) if tool.scope_kind == "setting" else None
    if parsed is None:
        return pattern
    name, low, high = parsed.group("name").strip(), parsed.group("lo"), parsed.group("hi")
    if low is None:
        return f"{name} at any level" if tool.range_arg else name
    if float(low) == float(high):
        return f"{name} at {high} only"
    if float(low) == 0:
        return f"{name} up to {high}"
    return f"{name} from {low} to {high}"


def _setting_suggestions(values: list[object], number: object) -> list[str]:
    names = {value.casefold() for value in values if isinstance(value, str)}
    name = values[0]
    if len(names) != 1 or not isinstance(name, str) or not name.strip() or ":" in name:
        return []
    if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
        return [name]
    text = _number_text(number)
    # "Up to this level" is the grant people make for a level ("volume up to 60 without asking").
    up_to = [f"{name}:0-{text}"] if number > 0 else []
    return [f"{name}:{text}-{text}", *up_to, name]


def _number_text(number: float) -> str:
    if float(number).is_integer():
        return str(int(number))
    return f"{number:.6f}".rstrip("0")


_MATCHERS: dict[str, Callable[[str, object], bool]] = {
    "path": path_matches,
    "recipient": recipient_matches,
    "calendar": calendar_matches,
}
