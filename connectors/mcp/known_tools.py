"""The tools a server listed the last time it answered, kept to offer before it answers again.

Servers start in the background, so a command's first turn often begins before a server has
listed its tools. Offering the tools it listed last time keeps that turn's offer (and the
model state kept for it) the same as on a run where the server was quick; a call made before
the server answers waits for its start, and the fresh listing replaces this one. The file is
keyed by the server's command, arguments, environment or URL: a changed server starts afresh.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

from hearth import data_dir, write_json_atomically
from hearth.connectors.mcp.config import ServerConfig
from hearth.connectors.mcp.names import file_stem

if TYPE_CHECKING:
    from mcp_types import Tool as McpTool

logger = logging.getLogger(__name__)


class KnownTools:
    """The remembered listing of the server `name` as configured by `server`."""

    def __init__(self, name: str, server: ServerConfig) -> None:
        self.path = data_dir() / "mcp" / "tools" / f"{file_stem(name)}.json"
        self._fingerprint = server.fingerprint()

    def load(self) -> list[McpTool]:
        """The listing kept for this very server; empty when there is none or it is unusable."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as error:
            logger.info("%s: not used (%s)", self.path, error)
            return []
        if not isinstance(data, dict) or data.get("server") != self._fingerprint:
            return []
        return _tools(data.get("tools"), self.path)

    def save(self, listed: list[McpTool]) -> None:
        """Keep `listed` for the next start; a failure to write only costs that start's offer."""
        tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomically(self.path, {"server": self._fingerprint, "tools": tools})
        except OSError as error:
            logger.warning("%s: the MCP server's tools were not kept: %s", self.path, error)


def _tools(raw: Any, path: Path) -> list[McpTool]:
    from mcp_types import Tool as McpTool

    try:
        return pydantic.TypeAdapter(list[McpTool]).validate_python(raw)
    except pydantic.ValidationError as error:
        logger.info("%s: not used (%s)", path, error.errors()[0]["msg"])
        return []
