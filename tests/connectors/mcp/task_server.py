"""A real MCP server of the 2025-11-25 era, run as `python task_server.py`: one of its tools runs
only as a task (`execution.taskSupport: "required"`), as `simulate-research-query` does in the
reference server `@modelcontextprotocol/server-everything`.

It speaks only the initialize handshake, as the TypeScript reference servers do: that era's tool
listing carries `execution`. Like them it greets on stderr as it starts. Each call is appended to
the file named by `MCP_TEST_LOG` first, so a test can tell whether the server ever saw it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolExecution,
)

LOG_ENV = "MCP_TEST_LOG"
GREETING = "Starting task server on stdio..."
TOOLS = [
    Tool(
        name="research",
        description="Research a topic at length, as a task the client polls.",
        input_schema={"type": "object", "properties": {"topic": {"type": "string"}}},
        execution=ToolExecution(task_support="required"),
    ),
    Tool(
        name="lookup",
        description="Look a word up at once (a task only if the client wants one).",
        input_schema={"type": "object", "properties": {"word": {"type": "string"}}},
        execution=ToolExecution(task_support="optional"),
    ),
]


async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    path = os.environ.get(LOG_ENV)
    if path:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write(f"{params.name}\n")
    word = (params.arguments or {}).get("word", "")
    return CallToolResult(content=[TextContent(type="text", text=f"{word}: a word")])


server: Server[Any] = Server("tasks", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    print(GREETING, file=sys.stderr, flush=True)
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        options = server.create_initialization_options()
        await serve_loop(server, read, write, lifespan_state=state, init_options=options)


if __name__ == "__main__":
    anyio.run(main)
