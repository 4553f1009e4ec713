"""GBNF grammars that make a started tool call name an offered tool with schema-shaped arguments.

Each grammar covers the text after the opening `<tool_call>` tag, up to and including the
closing tag, so the engine can switch it on at the trigger and off after the call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from llama_cpp.llama_grammar import SchemaConverter

from hearth.messages import ToolSpec

# The output parser ends a call at the first "</tool_call>" (and an XML value at the first
# "</parameter>"), so no value may contain "</": a "<" is never directly followed by "/".
_XML_TEXT = r'([^<] | "<"+ [^/<])* "<"*'
# JSON strings as the schema converter writes them, less "</" and the raw control characters
# that `json.loads` refuses (the converter's own `char` lets both through).
_JSON_ESCAPE = r'"\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'
_JSON_CHAR = r'[^"\\<\x00-\x1F] | json-escape | "<"+ ([^"\\/<\x00-\x1F] | json-escape)'
_JSON_STRING = r'"\"" char* "<"* "\"" space'
_PARAMETER_END = json.dumps("\n</parameter>\n")
MAX_SPELLED_RANGE = 1000
OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"


def _literal(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _converter() -> SchemaConverter:
    return SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)


def _format(converter: SchemaConverter) -> str:
    if "char" in converter._rules:
        converter._rules["char"] = _JSON_CHAR
        converter._rules["json-escape"] = _JSON_ESCAPE
    if "string" in converter._rules:
        converter._rules["string"] = _JSON_STRING
    return str(converter.format_grammar())


def _schema(tool: ToolSpec) -> dict[str, Any]:
    schema: dict[str, Any] = _bounded(dict(tool.parameters) or {"type": "object"})
    schema.setdefault("type", "object")
    return schema


def _bounded(schema: Any) -> Any:
    """Spell out small integer ranges, which the schema converter cannot express itself."""
    if isinstance(schema, list):
        return [_bounded(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    low, high = schema.get("minimum"), schema.get("maximum")
    if (
        schema.get("type") == "integer"
        and isinstance(low, int)
        and isinstance(high, int)
        and 0 <= high - low <= MAX_SPELLED_RANGE
    ):
        return {"enum": list(range(low, high + 1))}
    return {key: _bounded(value) for key, value in schema.items()}


def hermes_json_grammar(tools: Sequence[ToolSpec]) -> str:
    """`{"name": "<tool>", "arguments": {...}}` followed by the closing tag."""
    converter = _converter()
    alternatives = []
    for index, tool in enumerate(tools):
        schema = converter.resolve_refs(_schema(tool), f"tool{index}")
        args_rule = converter.visit(schema, f"tool{index}-args")
        call = _literal(f'"{tool.name}", "arguments": ')
        converter._add_rule(f"tool{index}-call", f"{call} {args_rule}")
        alternatives.append(f"tool{index}-call")
    body = " | ".join(alternatives)
    opening, closing = _literal('{"name": '), _literal("}")
    root = f'"\\n"? {opening} ( {body} ) {closing} "\\n"? {_literal(CLOSE_TAG)}'
    converter._add_rule("root", root)
    return _format(converter)


def qwen_xml_grammar(tools: Sequence[ToolSpec]) -> str:
    """`<function=NAME>` with one `<parameter=P>` block per argument, in schema order."""
    converter = _converter()
    converter._add_rule("xml-text", _XML_TEXT)
    alternatives = []
    for index, tool in enumerate(tools):
        schema = converter.resolve_refs(_schema(tool), f"tool{index}")
        params = _xml_parameters(converter, schema, f"tool{index}")
        header = _literal(f"{tool.name}>\n")
        converter._add_rule(f"tool{index}-call", f"{header} {params}".strip())
        alternatives.append(f"tool{index}-call")
    body = " | ".join(alternatives)
    end_function = _literal("</function>")
    root = f'"\\n"? "<function=" ( {body} ) {end_function} "\\n"? {_literal(CLOSE_TAG)}'
    converter._add_rule("root", root)
    return _format(converter)


def _xml_parameters(converter: SchemaConverter, schema: Mapping[str, Any], prefix: str) -> str:
    properties: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    parts = []
    for position, (name, prop_schema) in enumerate(properties.items()):
        value = _xml_value_rule(converter, prop_schema, f"{prefix}-p{position}")
        opening = _literal(f"<parameter={name}>\n")
        block = f"{opening} {value} {_PARAMETER_END}"
        parts.append(f"( {block} )" if name in required else f"( {block} )?")
    return " ".join(parts)


def _xml_value_rule(converter: SchemaConverter, schema: Mapping[str, Any], name: str) -> str:
    """Strings are raw text in the XML form; every other type is written as JSON."""
    if "enum" in schema and all(isinstance(item, str) for item in schema["enum"]):
        options = " | ".join(_literal(item) for item in schema["enum"])
        return str(converter._add_rule(name, options))
    if schema.get("type") == "string" or not schema:
        return "xml-text"
    if schema.get("type") == "boolean":
        # Qwen3.5's template writes Python's str(True), so its training data has both spellings.
        return str(converter._add_rule(name, '"true" | "false" | "True" | "False"'))
    return str(converter.visit(dict(schema), name))
