"""Model backends and everything between a conversation and tokens."""

from hearth.engine.llama import LlamaCppModel
from hearth.engine.remote import RemoteModel
from hearth.engine.sampling import Sampling
from hearth.engine.template import ChatTemplate
from hearth.engine.types import (
    AnswerDelta,
    CancelToken,
    ChatModel,
    EngineEvent,
    GenerationDone,
    GenerationSettings,
    GenerationStats,
    MalformedToolCall,
    Message,
    ModelInfo,
    ReasoningDelta,
    ToolCall,
    ToolCallEmitted,
    ToolSpec,
)

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
    "ReasoningDelta",
    "RemoteModel",
    "Sampling",
    "ToolCall",
    "ToolCallEmitted",
    "ToolSpec",
]
