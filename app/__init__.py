"""Hearth's core: engine, models, tools, consent, agent, storage, CLI.

Never imports Qt, `hearth.ui` or `hearth.connectors` (enforced by import-linter). Connectors and
plugins use only what this module exports.
"""

from hearth.background import Every
from hearth.connector import Connector, ConnectorAction, StatusItem
from hearth.errors import HearthError, ToolFailure, UndoFailed
from hearth.folders import FolderAccess, IndexStatus
from hearth.hookspecs import hookimpl
from hearth.journal import journal_step
from hearth.paths import config_dir, data_dir
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
    "Connector",
    "ConnectorAction",
    "Every",
    "FolderAccess",
    "HearthError",
    "IndexStatus",
    "SecretStorageUnavailable",
    "SettingsError",
    "SettingsStore",
    "StatusItem",
    "TimeSlot",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolFailure",
    "ToolResult",
    "UndoFailed",
    "config_dir",
    "data_dir",
    "hookimpl",
    "journal_step",
    "make_tool",
    "safe_mode",
    "tool",
]
