"""Turn a typed function with a Google-style docstring into a `Tool`.

The JSON schema comes from the signature (pydantic); the docstring's first paragraph is the
tool's description and each `Args:` entry becomes that parameter's description, which the model
reads. A parameter without a description is a definition error, never a silent gap.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, get_args

import pydantic

from hearth.timeslots import TimeSlot
from hearth.tools.errors import ToolDefinitionError
from hearth.tools.signature import arguments_model, unsupported_type_error
from hearth.tools.tool import Effect, Notified, Scope, ScopeKind, Tool

NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*")
_SECTION = re.compile(r"^(?P<name>[A-Z][A-Za-z ]*):\s*$")
_ARG_SECTIONS = frozenset({"Args", "Arguments", "Parameters"})
_ARG_ENTRY = re.compile(r"^(?P<name>\w+)\s*(\([^)]*\))?\s*:\s*(?P<text>.*)$")
# Keywords whose values are data, not schemas: never strip a "title" out of a default.
_DATA_KEYWORDS = frozenset({"default", "enum", "const", "examples"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs"})
_DEFS_PREFIX = "#/$defs/"


def make_tool(
    function: Callable[..., Any],
    *,
    effect: Effect,
    scope: Scope | None = None,
    scope_kind: ScopeKind | None = None,
    range_arg: str | None = None,
    resource: str | None = None,
    preview: Callable[[Mapping[str, Any]], str] | None = None,
    undo: Callable[[Mapping[str, Any], Any], Any] | None = None,
    name: str | None = None,
    keywords: Iterable[str] = (),
    source_label: Callable[[Mapping[str, Any]], str] | None = None,
    check: Callable[[Mapping[str, Any]], None] | None = None,
    notifies: Callable[[Mapping[str, Any]], Notified] | None = None,
    slots: Callable[[Mapping[str, Any]], Sequence[TimeSlot]] | None = None,
    canonical: Callable[[str], str] | None = None,
) -> Tool:
    """Build a `Tool` from a typed, documented function; raises `ToolDefinitionError`.

    `scope` names the argument holding the resource a call touches, or a tuple naming every
    such argument (all of one `scope_kind`); a rule allows a call only if it covers them all.
    A tool whose calls always touch the same resource (`system.set_volume`: "volume") names it
    in `resource` instead, with its `scope_kind`; `range_arg` still scopes rules by a number.
    `source_label(arguments)` words what a call read, for cards naming untrusted content.
    `notifies(arguments)` names the people a call would notify (calendar invitations); a call
    naming anyone is judged as a send to them as well (`Tool.as_invitation`). `slots(arguments)`
    gives the stretches of time a card draws for the call. `canonical(value)` is the
    resource owner's parser: each value of a `scope` argument is put through it before the
    gate rules on the call (a spelling it refuses raises `ToolFailure`), and the tool runs with
    what it returns.
    """
    tool_name = name or str(getattr(function, "__name__", ""))
    _check_name(tool_name)
    description, documented = parse_docstring(inspect.getdoc(function), tool_name)
    model = arguments_model(function, tool_name, documented)
    _check_documented(tool_name, list(model.model_fields), documented)
    scope = _scope_names(tool_name, scope)
    _check_consent_metadata(tool_name, effect, scope, scope_kind, range_arg, resource, model)
    try:
        parameters = plain_schema(model)
    except pydantic.PydanticUserError as error:
        hints = typing.get_type_hints(function, include_extras=True)
        raise unsupported_type_error(tool_name, hints, error) from None
    return Tool(
        name=tool_name,
        description=description,
        parameters=parameters,
        function=function,
        effect=effect,
        scope=scope,
        scope_kind=scope_kind,
        range_arg=range_arg,
        resource=resource,
        preview=preview,
        undo=undo,
        # A lone string is one keyword, not a sequence of letters.
        keywords=(keywords,) if isinstance(keywords, str) else tuple(keywords),
        source_label=source_label,
        notifies=notifies,
        slots=slots,
        check=check,
        canonical=canonical,
    )


def _scope_names(tool_name: str, scope: object) -> Scope | None:
    """One argument name as given, or several as a tuple; anything else is a definition error."""
    if scope is None or isinstance(scope, str):
        return scope
    names = tuple(scope) if isinstance(scope, list | tuple) else ()
    if not names or not all(isinstance(name, str) for name in names):
        raise ToolDefinitionError(
            f"tool {tool_name!r}: scope must name an argument or a tuple of argument names"
        )
    if len(set(names)) != len(names):
        raise ToolDefinitionError(f"tool {tool_name!r}: scope names an argument twice")
    return names[0] if len(names) == 1 else names


def parse_docstring(doc: str | None, tool_name: str) -> tuple[str, dict[str, str]]:
    """The first paragraph and the `Args:` descriptions of a cleaned Google-style docstring."""
    if not doc or not doc.strip():
        raise ToolDefinitionError(f"tool {tool_name!r} needs a docstring: the model reads it")
    lines = doc.strip().splitlines()
    first: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line):
            break
        first.append(line.strip())
    if not first:
        raise ToolDefinitionError(f"tool {tool_name!r}: the docstring must start with a summary")
    arguments: dict[str, str] = {}
    for index, line in enumerate(lines):
        match = _SECTION.match(line)
        if match and match["name"] in _ARG_SECTIONS:
            arguments = _parse_args_section(lines[index + 1 :])
    return " ".join(first), arguments


def _parse_args_section(lines: list[str]) -> dict[str, str]:
    entries: dict[str, list[str]] = {}
    entry_indent: int | None = None
    current: list[str] | None = None
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if entry_indent is None:
            entry_indent = indent
        if indent < entry_indent or indent == 0:
            break
        match = _ARG_ENTRY.match(line.strip())
        if indent == entry_indent and match:
            current = entries.setdefault(match["name"], [])
            current.append(match["text"].strip())
        elif current is not None:
            current.append(line.strip())
    return {name: " ".join(part for part in parts if part) for name, parts in entries.items()}


def plain_schema(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with `$defs` inlined (except recursive ones) and titles dropped."""
    raw = model.model_json_schema()
    defs: dict[str, Any] = raw.pop("$defs", {})
    kept: set[str] = set()
    schema: dict[str, Any] = _inline(raw, defs, frozenset(), kept)
    kept_defs: dict[str, Any] = {}
    while pending := kept - kept_defs.keys():
        for def_name in sorted(pending):
            kept_defs[def_name] = _inline(defs[def_name], defs, frozenset({def_name}), kept)
    if kept_defs:
        schema["$defs"] = kept_defs
    schema["additionalProperties"] = False
    return schema


def _inline(node: Any, defs: Mapping[str, Any], seen: frozenset[str], kept: set[str]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, seen, kept) for item in node]
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX):
        target = ref.removeprefix(_DEFS_PREFIX)
        siblings = _inline({k: v for k, v in node.items() if k != "$ref"}, defs, seen, kept)
        if target in seen:
            kept.add(target)
            return {"$ref": ref, **siblings}
        return {**_inline(defs[target], defs, seen | {target}, kept), **siblings}
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DATA_KEYWORDS:
            result[key] = value
        elif key in _SCHEMA_MAPS:
            result[key] = {n: _inline(s, defs, seen, kept) for n, s in value.items()}
        elif key != "title":
            result[key] = _inline(value, defs, seen, kept)
    if result.get("type") == "object" and "properties" in result:
        # Grammars then forbid keys the model invented instead of letting them through.
        result.setdefault("additionalProperties", False)
    return result


def _check_name(name: str) -> None:
    if not NAME_PATTERN.fullmatch(name):
        raise ToolDefinitionError(
            f"tool name {name!r} must be lower-case words joined by '_' or '.', "
            "like 'search_mail' or 'files.search'"
        )


def _check_documented(tool_name: str, parameters: list[str], documented: Mapping[str, str]) -> None:
    missing = [p for p in parameters if not documented.get(p)]
    if missing:
        listed = ", ".join(repr(p) for p in missing)
        raise ToolDefinitionError(
            f"tool {tool_name!r}: argument {listed} has no description; "
            "describe each argument under 'Args:' in the docstring"
        )
    unknown = [p for p in documented if p not in parameters]
    if unknown:
        listed = ", ".join(repr(p) for p in unknown)
        raise ToolDefinitionError(f"tool {tool_name!r}: 'Args:' documents unknown {listed}")


def _check_consent_metadata(
    tool_name: str,
    effect: str,
    scope: Scope | None,
    scope_kind: str | None,
    range_arg: str | None,
    resource: str | None,
    model: type[pydantic.BaseModel],
) -> None:
    problem = _consent_metadata_problem(
        effect, scope, scope_kind, range_arg, resource, model.model_fields
    )
    if problem:
        raise ToolDefinitionError(f"tool {tool_name!r}: {problem}")


def _consent_metadata_problem(
    effect: str,
    scope: Scope | None,
    scope_kind: str | None,
    range_arg: str | None,
    resource: str | None,
    fields: Mapping[str, object],
) -> str | None:
    if effect not in get_args(Effect):
        return f"effect must be one of {', '.join(get_args(Effect))}, not {effect!r}"
    if scope is not None and resource is not None:
        return "scope names an argument and resource a fixed resource: give one, not both"
    if resource is not None and (not isinstance(resource, str) or not resource.strip()):
        return "resource must be a non-empty name, like 'volume'"
    if (scope is None and resource is None) != (scope_kind is None):
        return "scope or resource goes with scope_kind: say what a call touches and how to match it"
    if scope_kind is not None and scope_kind not in get_args(ScopeKind):
        return f"scope_kind must be one of {', '.join(get_args(ScopeKind))}, not {scope_kind!r}"
    scoped = (scope,) if isinstance(scope, str) else tuple(scope or ())
    named = [("scope", argument) for argument in scoped] + [("range_arg", range_arg)]
    for role, argument in named:
        if argument is not None and argument not in fields:
            return f"{role} {argument!r} is not an argument of the function"
    if range_arg is not None and scope_kind != "setting":
        return "range_arg only applies to scope_kind='setting'"
    return None
