"""Hearth's core: engine, models, tools, consent, agent, storage, CLI.

Never imports Qt, `hearth.ui` or `hearth.connectors` (enforced by import-linter). This module is
the one door: connectors, plugins, scripts and the faces (the window, the terminal) use only the
names it exports, never a submodule (also enforced).

Every name loads on first use, from the module that defines it: a plugin that imports `hearth`
pulls in only what it names (never the agent or the models), and `hearth --help` only the errors
and `shown`.
"""

from importlib import import_module
from typing import TYPE_CHECKING

# Loaded on first use (see the module's docstring); mypy reads the same names below.
# fmt: off
_ON_USE: dict[str, tuple[str, ...]] = {
    "hearth.agent": (
        "AgentConfig", "AgentSession", "AllowFor", "AllowOnce", "Answer", "AnswerDelta",
        "CallMalformed", "ConsentAsked", "ConsentRequest", "Deny", "EditArguments",
        "ReasoningDelta", "Step", "ToolProposed", "ToolRan", "ToolsOffered", "TurnDone",
        "TurnFailed",
    ),
    "hearth.agent.offered": ("connector_titles", "offered_line"),
    "hearth.agent.records": ("TurnRecord",),
    "hearth.agent.session": ("ToolChoice",),
    "hearth.assistant": ("Assistant", "NoModelLoaded", "StartupStep"),
    "hearth.background": ("Every",),
    "hearth.consent": ("UNTRUSTED_WARNING", "Rule", "RuleBook", "unfence"),
    "hearth.consent.changes": ("RuleChange",),
    "hearth.consent.permissions": ("Permissions",),
    "hearth.cpu_variant": ("choose_variant", "llama_system_info", "loaded_library_folder"),
    "hearth.display": ("shown", "shown_data", "unshown"),
    "hearth.engine_settings": (
        "LIMITS", "PREFIX_CACHE", "TOOL_BUDGET", "save_setting", "saved_setting",
    ),
    "hearth.errors": (
        "CertificateNotTrusted", "DownloadCancelled", "HearthError", "ModelError",
        "ModelNotFoundError", "ToolFailure", "UndoFailed", "read_fingerprint", "spaced_fingerprint",
    ),
    "hearth.folders": ("FolderAccess", "IndexStatus"),
    "hearth.generation": (
        "ChatModel", "EngineEvent", "GenerationDone", "GenerationSettings", "ModelInfo",
        "PromptProgress",
    ),
    "hearth.messages": ("CancelToken", "Message", "ToolSpec"),
    "hearth.models": ("GGUFSummary", "ThreadPolicy"),
    "hearth.models.catalog": ("Catalog", "CatalogEntry"),
    "hearth.models.download": ("DownloadProgress", "ProgressCallback"),
    "hearth.models.hub": ("HubUnreachable", "ModelUnavailable"),
    "hearth.models.inventory": ("ModelRow",),
    "hearth.models.library": ("Models",),
    "hearth.models.lookup": ("InstalledModel",),
    "hearth.models.speed_history": ("CpuMeter", "SpeedHistory", "SpeedReport"),
    "hearth.models.threads_setting": ("MAX_THREADS",),
    "hearth.paths": (
        "bundle_dir", "config_dir", "data_dir", "plugins_dir", "write_json_atomically",
    ),
    "hearth.plugins.connector": ("Connector", "ConnectorAction", "StatusItem"),
    "hearth.plugins.hookspecs": ("hookimpl",),
    "hearth.plugins.loading": ("load_plugins",),
    "hearth.plugins.report": ("PluginFailure", "PluginInfo", "PluginReport"),
    "hearth.plugins.sources": (
        "DISABLE_ENV", "entry_point_candidates", "safe_mode", "user_candidates",
    ),
    "hearth.plugins.user_files": ("disabled_plugins", "set_plugin_disabled"),
    "hearth.ruling": ("DURATION_WORDS", "EFFECT_WORDS", "Decider", "Duration", "Reason", "Ruling"),
    "hearth.scripting": ("Approver", "Proposal", "Session", "Turn", "load_model"),
    "hearth.secrets": (
        "MIN_PASSWORD_LENGTH", "NoSecretStore", "Place", "SecretStorageUnavailable", "Secrets",
        "SecretsLocked", "VaultError", "WrongPassword", "shared_secrets", "use_password_prompt",
    ),
    "hearth.secrets.terminal": (
        "ask_password_option", "ask_secret", "ask_store_password", "create_password_store",
        "keep_password",
    ),
    "hearth.settings.forms": ("Saved", "complete_settings", "hidden_fields", "read_saved"),
    "hearth.settings.model": (
        "FormField", "SettingsError", "SettingsStore", "form_fields", "secret_fields",
    ),
    "hearth.shown_text": ("ShownStream", "shown_reply"),
    "hearth.sqlite": ("open_sqlite",),
    "hearth.store": (
        "AuditEntry", "AuditLog", "Conversation", "Decision", "ExportFormat", "RuleTable",
        "open_database",
    ),
    "hearth.store.conversations": ("conversation_title",),
    "hearth.store.history": ("StoredConversation",),
    "hearth.store.journal": ("journal_step",),
    "hearth.timeslots": ("TimeSlot",),
    "hearth.tools": (
        "ArgumentProblem", "ArgumentRefused", "Provenance", "Summarized", "Tool",
        "ToolArgumentsError", "ToolDefinitionError", "ToolRegistry", "ToolResult", "list_summary",
        "make_tool", "summary_of", "tool",
    ),
    "hearth.undoing": ("Undone",),
    "hearth.voice.audio": ("Recording",),
    "hearth.voice.capture": ("Microphone",),
    "hearth.voice.errors": ("SpeechModelError", "VoiceError", "VoiceUnavailable"),
    "hearth.voice.service": ("Readiness",),
    "hearth.voice.settings": ("VoiceSettings",),
    "hearth.voice.speech_models": ("InstalledSpeechModel", "SpeechEntry"),
    "hearth.voice.transcribe": ("Transcript",),
    "hearth.voice.voice": ("Voice",),
    "hearth.wording": ("counted",),
}

__all__ = [  # noqa: RUF022 (grouped by line, not one name per line)
    "AgentConfig", "AgentSession", "AllowFor", "AllowOnce", "Answer", "AnswerDelta", "Approver",
    "ArgumentProblem", "ArgumentRefused", "Assistant", "AuditEntry", "AuditLog", "CallMalformed",
    "CancelToken", "Catalog", "CatalogEntry", "CertificateNotTrusted", "ChatModel", "Connector",
    "ConnectorAction", "ConsentAsked", "ConsentRequest", "Conversation", "CpuMeter", "DISABLE_ENV",
    "DURATION_WORDS", "Decider", "Decision", "Deny", "DownloadCancelled", "DownloadProgress",
    "Duration", "EFFECT_WORDS", "EditArguments", "EngineEvent", "Every", "ExportFormat",
    "FolderAccess", "FormField", "GGUFSummary", "GenerationDone", "GenerationSettings",
    "HearthError", "HubUnreachable", "IndexStatus", "InstalledModel", "InstalledSpeechModel",
    "LIMITS", "MAX_THREADS", "MIN_PASSWORD_LENGTH", "Message", "Microphone", "ModelError",
    "ModelInfo", "ModelNotFoundError", "ModelRow", "ModelUnavailable", "Models", "NoModelLoaded",
    "NoSecretStore", "PREFIX_CACHE", "Permissions", "Place", "PluginFailure", "PluginInfo",
    "PluginReport", "ProgressCallback", "PromptProgress", "Proposal", "Provenance", "Readiness",
    "Reason", "ReasoningDelta", "Recording", "Rule", "RuleBook", "RuleChange", "RuleTable",
    "Ruling", "Saved", "SecretStorageUnavailable", "Secrets", "SecretsLocked", "Session",
    "SettingsError", "SettingsStore", "ShownStream", "SpeechEntry", "SpeechModelError",
    "SpeedHistory", "SpeedReport", "StartupStep", "StatusItem", "Step", "StoredConversation",
    "Summarized", "TOOL_BUDGET", "ThreadPolicy", "TimeSlot", "Tool", "ToolArgumentsError",
    "ToolChoice", "ToolDefinitionError", "ToolFailure", "ToolProposed", "ToolRan", "ToolRegistry",
    "ToolResult", "ToolSpec", "ToolsOffered", "Transcript", "Turn", "TurnDone", "TurnFailed",
    "TurnRecord", "UNTRUSTED_WARNING", "UndoFailed", "Undone", "VaultError", "Voice", "VoiceError",
    "VoiceSettings", "VoiceUnavailable", "WrongPassword", "ask_password_option", "ask_secret",
    "ask_store_password", "bundle_dir", "choose_variant", "complete_settings", "config_dir",
    "connector_titles", "conversation_title", "counted", "create_password_store", "data_dir",
    "disabled_plugins", "entry_point_candidates", "form_fields", "hidden_fields", "hookimpl",
    "journal_step", "keep_password", "list_summary", "llama_system_info", "load_model",
    "load_plugins", "loaded_library_folder", "make_tool", "offered_line", "open_database",
    "open_sqlite", "plugins_dir", "read_fingerprint", "read_saved", "safe_mode", "save_setting",
    "saved_setting", "secret_fields", "set_plugin_disabled", "shared_secrets", "shown",
    "shown_data", "shown_reply", "spaced_fingerprint", "summary_of", "tool", "unfence", "unshown",
    "use_password_prompt", "user_candidates", "write_json_atomically",
]

if TYPE_CHECKING:
    from hearth.agent import (  # noqa: I001 (kept compact, like _ON_USE)
        AgentConfig, AgentSession, AllowFor, AllowOnce, Answer, AnswerDelta, CallMalformed,
        ConsentAsked, ConsentRequest, Deny, EditArguments, ReasoningDelta, Step, ToolProposed,
        ToolRan, ToolsOffered, TurnDone, TurnFailed,
    )
    from hearth.agent.offered import connector_titles, offered_line
    from hearth.agent.records import TurnRecord
    from hearth.agent.session import ToolChoice
    from hearth.assistant import Assistant, NoModelLoaded, StartupStep
    from hearth.background import Every
    from hearth.consent import UNTRUSTED_WARNING, Rule, RuleBook, unfence
    from hearth.consent.changes import RuleChange
    from hearth.consent.permissions import Permissions
    from hearth.cpu_variant import choose_variant, llama_system_info, loaded_library_folder
    from hearth.display import shown, shown_data, unshown
    from hearth.engine_settings import (
        LIMITS, PREFIX_CACHE, TOOL_BUDGET, save_setting, saved_setting,
    )
    from hearth.errors import (
        CertificateNotTrusted, DownloadCancelled, HearthError, ModelError, ModelNotFoundError,
        ToolFailure, UndoFailed, read_fingerprint, spaced_fingerprint,
    )
    from hearth.folders import FolderAccess, IndexStatus
    from hearth.generation import (
        ChatModel, EngineEvent, GenerationDone, GenerationSettings, ModelInfo, PromptProgress,
    )
    from hearth.messages import CancelToken, Message, ToolSpec
    from hearth.models import GGUFSummary, ThreadPolicy
    from hearth.models.catalog import Catalog, CatalogEntry
    from hearth.models.download import DownloadProgress, ProgressCallback
    from hearth.models.hub import HubUnreachable, ModelUnavailable
    from hearth.models.inventory import ModelRow
    from hearth.models.library import Models
    from hearth.models.lookup import InstalledModel
    from hearth.models.speed_history import CpuMeter, SpeedHistory, SpeedReport
    from hearth.models.threads_setting import MAX_THREADS
    from hearth.paths import bundle_dir, config_dir, data_dir, plugins_dir, write_json_atomically
    from hearth.plugins.connector import Connector, ConnectorAction, StatusItem
    from hearth.plugins.hookspecs import hookimpl
    from hearth.plugins.loading import load_plugins
    from hearth.plugins.report import PluginFailure, PluginInfo, PluginReport
    from hearth.plugins.sources import (
        DISABLE_ENV, entry_point_candidates, safe_mode, user_candidates,
    )
    from hearth.plugins.user_files import disabled_plugins, set_plugin_disabled
    from hearth.ruling import DURATION_WORDS, EFFECT_WORDS, Decider, Duration, Reason, Ruling
    from hearth.scripting import Approver, Proposal, Session, Turn, load_model
    from hearth.secrets import (
        MIN_PASSWORD_LENGTH, NoSecretStore, Place, SecretStorageUnavailable, Secrets, SecretsLocked,
        VaultError, WrongPassword, shared_secrets, use_password_prompt,
    )
    from hearth.secrets.terminal import (
        ask_password_option, ask_secret, ask_store_password, create_password_store,
        keep_password,
    )
    from hearth.settings.forms import Saved, complete_settings, hidden_fields, read_saved
    from hearth.settings.model import (
        FormField, SettingsError, SettingsStore, form_fields, secret_fields,
    )
    from hearth.shown_text import ShownStream, shown_reply
    from hearth.sqlite import open_sqlite
    from hearth.store import (
        AuditEntry, AuditLog, Conversation, Decision, ExportFormat, RuleTable, open_database,
    )
    from hearth.store.conversations import conversation_title
    from hearth.store.history import StoredConversation
    from hearth.store.journal import journal_step
    from hearth.timeslots import TimeSlot
    from hearth.tools import (
        ArgumentProblem, ArgumentRefused, Provenance, Summarized, Tool, ToolArgumentsError,
        ToolDefinitionError, ToolRegistry, ToolResult, list_summary, make_tool, summary_of, tool,
    )
    from hearth.undoing import Undone
    from hearth.voice.audio import Recording
    from hearth.voice.capture import Microphone
    from hearth.voice.errors import SpeechModelError, VoiceError, VoiceUnavailable
    from hearth.voice.service import Readiness
    from hearth.voice.settings import VoiceSettings
    from hearth.voice.speech_models import InstalledSpeechModel, SpeechEntry
    from hearth.voice.transcribe import Transcript
    from hearth.voice.voice import Voice
    from hearth.wording import counted
# fmt: on

_HOME = {name: module for module, names in _ON_USE.items() for name in names}


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'hearth' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
