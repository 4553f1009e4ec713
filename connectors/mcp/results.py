"""An MCP tool's answer as the text Hearth shows and the model reads."""

from __future__ import annotations

import base64
import binascii
import json

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from hearth import ToolFailure

OUTPUT_LIMIT = 12_000


def result_text(server: str, tool: str, result: CallToolResult) -> str:
    """The text blocks joined, other blocks summarized, capped; an error result raises."""
    parts = [_block(block) for block in result.content]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(part for part in parts if part)
    if result.is_error:
        said = _capped(text) or "no reason given"
        raise ToolFailure(f"the MCP server {server!r} reported an error from {tool}: {said}")
    return _capped(text) or "(the tool returned nothing)"


def _block(block: ContentBlock) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        return f"[{kind}, {_size(_decoded_bytes(block.data))}, {block.mime_type}]"
    if isinstance(block, ResourceLink):
        return f"[resource {block.uri}]"
    if isinstance(block, EmbeddedResource):
        return _resource(block.resource)
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _resource(resource: TextResourceContents | BlobResourceContents) -> str:
    if isinstance(resource, TextResourceContents):
        return f"[resource {resource.uri}]\n{resource.text}"
    return f"[resource {resource.uri}, {_size(_decoded_bytes(resource.blob))}]"


def _decoded_bytes(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count // 1024} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _capped(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    cut = len(text) - OUTPUT_LIMIT
    return f"{text[:OUTPUT_LIMIT]}\n[... {cut} more characters from the MCP server cut]"
