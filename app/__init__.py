"""Hearth's core: engine, models, tools, consent, agent, storage, CLI.

Never imports Qt, `hearth.ui` or `hearth.connectors` (enforced by import-linter). Connectors and
plugins use only what this module exports.
"""

from hearth.errors import HearthError, UndoFailed
from hearth.paths import data_dir
from hearth.plugins import Connector, hookimpl
from hearth.settings import SecretStorageUnavailable, SettingsError, SettingsStore
from hearth.tools import Tool, ToolArgumentsError, ToolDefinitionError, make_tool, tool

__all__ = [
    "Connector",
    "HearthError",
    "SecretStorageUnavailable",
    "SettingsError",
    "SettingsStore",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "UndoFailed",
    "data_dir",
    "hookimpl",
    "make_tool",
    "tool",
]
