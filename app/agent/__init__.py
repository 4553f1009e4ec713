"""The agent loop: a conversation turn as a stream of typed steps, with every tool call gated."""

from hearth.agent.executor import Executor
from hearth.agent.selection import select_tools
from hearth.agent.session import DEFAULT_SYSTEM_PROMPT, AgentConfig, Session
from hearth.agent.steps import (
    AllowFor,
    AllowOnce,
    Answer,
    ConsentAsked,
    ConsentRequest,
    Deny,
    EditArguments,
    Step,
    ToolProposed,
    ToolRan,
    TurnDone,
    TurnFailed,
    TurnStats,
)
from hearth.engine.types import AnswerDelta, ReasoningDelta

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "AgentConfig",
    "AllowFor",
    "AllowOnce",
    "Answer",
    "AnswerDelta",
    "ConsentAsked",
    "ConsentRequest",
    "Deny",
    "EditArguments",
    "Executor",
    "ReasoningDelta",
    "Session",
    "Step",
    "ToolProposed",
    "ToolRan",
    "TurnDone",
    "TurnFailed",
    "TurnStats",
    "select_tools",
]
