"""Hearth tools for an MCP server's tools: namespaced, schema-checked, and always asking.

Every MCP tool is a `write`, whatever its annotations claim: the server is third-party code and
its `readOnlyHint` is a hint, not a promise Hearth can check. The card shows the claims as such.
A tool the server runs only as a task (`execution.taskSupport: "required"`) is left out: Hearth
calls tools directly, and the server would refuse every such call.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema
from mcp_types import CallToolResult, ToolAnnotations
from mcp_types import Tool as McpTool

from hearth import Tool
from hearth.connectors.mcp.names import sanitized, unique
from hearth.connectors.mcp.results import result_text

DESCRIPTION_LIMIT = 1000
_PREVIEW_ARGUMENTS = 4000
TASK_ONLY = "the server runs it only as a task (taskSupport 'required'), which Hearth does not do"

logger = logging.getLogger(__name__)

Caller = Callable[[str, dict[str, Any]], CallToolResult]


@dataclass(frozen=True)
class SkippedTool:
    """A tool the server offers that Hearth cannot offer the model, and why."""

    name: str
    reason: str


def hearth_tools(
    connector: str, server: str, listed: list[McpTool], call: Caller
) -> tuple[list[Tool], list[SkippedTool]]:
    """A Hearth tool `<connector>.<tool>` for each usable tool `listed`, and those left out."""
    tools: list[Tool] = []
    skipped: list[SkippedTool] = []
    taken: set[str] = set()
    for item in listed:
        schema, problem = _usable_schema(item)
        if schema is None:
            logger.info("MCP server %r: tool %r left out: %s", server, item.name, problem)
            skipped.append(SkippedTool(item.name, problem))
            continue
        name = unique(sanitized(item.name), taken)
        taken.add(name)
        tools.append(_tool(f"{connector}.{name}", server, item, schema, call))
    return tools, skipped


def claims(annotations: ToolAnnotations | None) -> str:
    """What the server says about a tool, in words: "read-only, idempotent" or ""."""
    if annotations is None:
        return ""
    said = [
        word
        for hint, yes, no in (
            (annotations.read_only_hint, "read-only", "changes things"),
            (annotations.destructive_hint, "destructive", "not destructive"),
            (annotations.idempotent_hint, "idempotent", ""),
            (annotations.open_world_hint, "reaches the outside world", "stays local"),
        )
        if hint is not None and (word := yes if hint else no)
    ]
    return ", ".join(said)


def _tool(name: str, server: str, item: McpTool, schema: dict[str, Any], call: Caller) -> Tool:
    real = item.name

    def run(**arguments: Any) -> str:
        return result_text(server, real, call(real, arguments))

    description = (item.description or item.title or f"The tool {real} of {server}").strip()
    if len(description) > DESCRIPTION_LIMIT:
        description = description[: DESCRIPTION_LIMIT - 1] + "…"
    return Tool(
        name=name,
        description=description,
        parameters=schema,
        function=run,
        effect="write",
        preview=lambda arguments: _preview(server, item, arguments),
        keywords=tuple(dict.fromkeys(["mcp", *_words(server), *_words(real)])),
        source_label=lambda _: f"the MCP server '{server}', tool {real}",
        told_by=f"the MCP server '{server}'",
    )


def _preview(server: str, item: McpTool, arguments: Mapping[str, Any]) -> str:
    shown = json.dumps(dict(arguments), indent=2, ensure_ascii=False, default=str)
    if len(shown) > _PREVIEW_ARGUMENTS:
        shown = shown[:_PREVIEW_ARGUMENTS] + "\n…"
    said = claims(item.annotations)
    claim = (
        f"The server claims: {said} (not checked by Hearth)"
        if said
        else "The server makes no claims about this tool."
    )
    return "\n".join([f"MCP server: {server}", f"Tool: {item.name}", f"Arguments: {shown}", claim])


def left_out(listed: list[McpTool]) -> list[SkippedTool]:
    """The tools `listed` that Hearth cannot offer the model, each with why."""
    return [SkippedTool(item.name, why) for item in listed if (why := _usable_schema(item)[1])]


def _usable_schema(item: McpTool) -> tuple[dict[str, Any] | None, str]:
    """The tool's input schema if Hearth can call the tool, else None and why not."""
    if item.execution is not None and item.execution.task_support == "required":
        return None, TASK_ONLY
    return _object_schema(item.input_schema)


def _object_schema(given: object) -> tuple[dict[str, Any] | None, str]:
    """The input schema as an object schema Hearth can check arguments against."""
    if not isinstance(given, Mapping):
        return None, "its input schema is not a JSON object"
    schema = copy.deepcopy(dict(given))
    kind = schema.setdefault("type", "object")
    if kind != "object":
        return None, f"its input schema is of type {kind!r}, not an object"
    schema.setdefault("properties", {})
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        return None, f"its input schema is not valid: {error.message}"
    return schema, ""


def _words(name: str) -> list[str]:
    return [word for word in sanitized(name).split("_") if len(word) > 2 and word != "mcp"]
