"""Hearth's core: engine, models, tools, consent, agent, storage, CLI.

Never imports Qt, `hearth.ui` or `hearth.connectors` (enforced by import-linter). Connectors and
plugins use only what this module exports.
"""

from typing import TYPE_CHECKING

from hearth.background import Every
from hearth.connector import Connector, ConnectorAction, StatusItem
from hearth.display import shown, unshown
from hearth.errors import HearthError, ToolFailure, UndoFailed
from hearth.folders import FolderAccess, IndexStatus
from hearth.generation import ChatModel
from hearth.hookspecs import hookimpl
from hearth.journal import journal_step
from hearth.paths import config_dir, data_dir, write_json_atomically
from hearth.plugins import safe_mode
from hearth.settings import SecretStorageUnavailable, SettingsError, SettingsStore
from hearth.timeslots import TimeSlot
from hearth.tools import (
    Tool,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolResult,
    make_tool,
    tool,
)

__all__ = [
    "Approver",
    "ChatModel",
    "Connector",
    "ConnectorAction",
    "Every",
    "FolderAccess",
    "HearthError",
    "IndexStatus",
    "Proposal",
    "SecretStorageUnavailable",
    "Session",
    "SettingsError",
    "SettingsStore",
    "StatusItem",
    "TimeSlot",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolFailure",
    "ToolResult",
    "Turn",
    "UndoFailed",
    "config_dir",
    "data_dir",
    "hookimpl",
    "journal_step",
    "load_model",
    "make_tool",
    "safe_mode",
    "shown",
    "tool",
    "unshown",
    "write_json_atomically",
]

if TYPE_CHECKING:
    from hearth.scripting import Approver, Proposal, Session, Turn, load_model


def __getattr__(name: str) -> object:
    # `hearth.Session` pulls in the whole agent; a plugin importing `hearth` should not.
    if name in ("Approver", "Proposal", "Session", "Turn", "load_model"):
        from hearth import scripting

        return getattr(scripting, name)
    raise AttributeError(f"module 'hearth' has no attribute {name!r}")
