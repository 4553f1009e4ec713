"""Plain words for arguments that do not fit a tool's signature.

The validators' own messages ("Input should be less than or equal to 100") go to the model; a
card shows the person who may fix the call these instead, one per argument, quoting the value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from hearth.tools.errors import ArgumentProblem

if TYPE_CHECKING:
    import jsonschema

_VALUE_CHARS = 60
_MUST = {
    "string_type": "must be text",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be an object with named fields",
    "model_type": "must be an object with named fields",
}
_JSON_TYPES = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object with named fields",
    "null": "empty (null)",
}


def value_words(value: object) -> str:
    """A value as a problem quotes it: text in quotes, anything else as JSON, cut short."""
    if isinstance(value, str):
        text = f"'{value}'"
    else:
        text = json.dumps(to_jsonable_python(value, fallback=str), ensure_ascii=False)
    return text if len(text) <= _VALUE_CHARS else text[: _VALUE_CHARS - 1] + "…"


def pydantic_problem(tool: str, error: Mapping[str, Any]) -> ArgumentProblem:
    """One pydantic validation error in plain words, on the argument it is about."""
    location = [str(part) for part in error.get("loc", ())]
    argument = location[0] if location else ""
    name = _where(location) or "the arguments"
    kind, context = str(error.get("type", "")), error.get("ctx") or {}
    value = value_words(error.get("input"))
    if kind == "missing":
        return ArgumentProblem(argument, f"{name} is missing; {tool} needs it")
    if kind == "extra_forbidden":
        return ArgumentProblem(argument, f"{tool} takes no argument called '{name}'")
    if kind in _MUST:
        return ArgumentProblem(argument, f"{name} {_MUST[kind]}, not {value}")
    return ArgumentProblem(argument, _limit_words(kind, context, name, value, error))


def _limit_words(
    kind: str, context: Mapping[str, Any], name: str, value: str, error: Mapping[str, Any]
) -> str:
    if kind in ("less_than_equal", "less_than"):
        most = context.get("le", context.get("lt"))
        edge = "at most" if kind == "less_than_equal" else "less than"
        return f"{value} is too high: {name} must be {edge} {most}"
    if kind in ("greater_than_equal", "greater_than"):
        least = context.get("ge", context.get("gt"))
        edge = "at least" if kind == "greater_than_equal" else "more than"
        return f"{value} is too low: {name} must be {edge} {least}"
    if kind in ("literal_error", "enum"):
        return f"{value} is not one of the choices for {name}: {context.get('expected', '')}"
    if kind in ("string_too_short", "too_short"):
        return f"{value} is too short for {name}"
    if kind in ("string_too_long", "too_long"):
        return f"{value} is too long for {name}"
    message = str(error.get("msg", "is not valid"))
    return f"{name}: {message[:1].lower()}{message[1:]}"


def schema_problems(tool: str, error: jsonschema.ValidationError) -> Iterator[ArgumentProblem]:
    """One JSON-schema error (a tool described only by its schema) in plain words."""
    location = [str(part) for part in error.absolute_path]
    argument = location[0] if location else ""
    name = _where(location) or "the arguments"
    instance = error.instance
    rule: Any = error.validator_value  # what the schema's keyword asked for
    if error.validator == "required" and isinstance(instance, Mapping):
        for missing in rule:
            if missing not in instance:
                yield ArgumentProblem(str(missing), f"{missing} is missing; {tool} needs it")
        return
    if error.validator == "additionalProperties" and isinstance(instance, Mapping):
        known = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        for extra in (key for key in instance if key not in known):
            yield ArgumentProblem(str(extra), f"{tool} takes no argument called '{extra}'")
        return
    value = value_words(instance)
    if error.validator == "type":
        kinds = [rule] if isinstance(rule, str) else list(rule)
        words = " or ".join(_JSON_TYPES.get(str(kind), str(kind)) for kind in kinds)
        yield ArgumentProblem(argument, f"{name} must be {words}, not {value}")
    elif error.validator in ("maximum", "exclusiveMaximum"):
        edge = "at most" if error.validator == "maximum" else "less than"
        yield ArgumentProblem(argument, f"{value} is too high: {name} must be {edge} {rule}")
    elif error.validator in ("minimum", "exclusiveMinimum"):
        edge = "at least" if error.validator == "minimum" else "more than"
        yield ArgumentProblem(argument, f"{value} is too low: {name} must be {edge} {rule}")
    elif error.validator == "enum":
        choices = ", ".join(value_words(choice) for choice in rule)
        yield ArgumentProblem(argument, f"{value} is not one of the choices for {name}: {choices}")
    else:
        yield ArgumentProblem(argument, f"{name}: {error.message}")


def _where(location: list[str]) -> str:
    """The argument as a problem names it: "to", or "item 2 of to" for a list's element."""
    if not location:
        return ""
    if len(location) > 1 and location[1].isdigit():
        return f"item {int(location[1]) + 1} of {location[0]}"
    return ".".join(location)
