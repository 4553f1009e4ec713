"""A real MCP server over stdio whose tools a scenario writes: `python -m` this module.

The tools, their descriptions and replies come as JSON in `HEARTH_EVAL_MCP_TOOLS`, so a scenario
can hand the model a server-written description, as a third-party server would.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

TOOLS_ENV = "HEARTH_EVAL_MCP_TOOLS"
SERVER = "Notes"


def _replying(reply: str) -> Callable[..., str]:
    def call(text: str = "") -> str:
        return reply

    return call


def main() -> None:
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("scenario-notes", log_level="WARNING")
    for tool in json.loads(os.environ.get(TOOLS_ENV, "[]")):
        app.add_tool(_replying(tool["reply"]), name=tool["name"], description=tool["description"])
    app.run()


if __name__ == "__main__":
    main()
