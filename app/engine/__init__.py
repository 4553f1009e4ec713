"""Model backends and everything between a conversation and tokens.

The backends load lazily: importing `hearth.engine` must not load llama.cpp.
"""

from typing import TYPE_CHECKING, Any

from hearth.engine.threads import ThreadPolicy, configure_openmp
from hearth.generation import (
    AnswerDelta,
    ChatModel,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    MalformedToolCall,
    ModelInfo,
    PromptProgress,
    ReasoningDelta,
    ToolCallEmitted,
)
from hearth.messages import CancelToken, Message, ToolCall, ToolSpec

configure_openmp()  # before anything loads llama.cpp, and with it libgomp

if TYPE_CHECKING:
    from hearth.engine.llama import LlamaCppModel
    from hearth.engine.remote import RemoteModel
    from hearth.engine.sampling import Sampling
    from hearth.engine.template import ChatTemplate

_LAZY = {
    "LlamaCppModel": "hearth.engine.llama",
    "RemoteModel": "hearth.engine.remote",
    "Sampling": "hearth.engine.sampling",
    "ChatTemplate": "hearth.engine.template",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hearth.engine' has no attribute {name!r}")


__all__ = [
    "AnswerDelta",
    "CancelToken",
    "ChatModel",
    "ChatTemplate",
    "EngineEvent",
    "GenerationDone",
    "GenerationSettings",
    "GenerationStats",
    "LlamaCppModel",
    "MalformedToolCall",
    "Message",
    "ModelInfo",
    "PromptProgress",
    "ReasoningDelta",
    "RemoteModel",
    "Sampling",
    "ThreadPolicy",
    "ToolCall",
    "ToolCallEmitted",
    "ToolSpec",
]
