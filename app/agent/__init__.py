"""The agent loop: a conversation turn as a stream of typed steps, with every tool call gated."""

from hearth.agent.answers import AllowFor, AllowOnce, Answer, Deny, EditArguments
from hearth.agent.executor import Executor
from hearth.agent.offer import Offer, OfferPlanner
from hearth.agent.selection import select_tools
from hearth.agent.session import AgentConfig, Session, default_system_prompt, turn_context
from hearth.agent.steps import (
    CallMalformed,
    ConsentAsked,
    ConsentRequest,
    Step,
    TaintLine,
    ToolProposed,
    ToolRan,
    ToolsOffered,
    TurnDone,
    TurnFailed,
    TurnStats,
)
from hearth.generation import AnswerDelta, ReasoningDelta

# `hearth.Session` is the scripting API's; the agent's own loop is exported under this name.
AgentSession = Session

__all__ = [
    "AgentConfig",
    "AgentSession",
    "AllowFor",
    "AllowOnce",
    "Answer",
    "AnswerDelta",
    "CallMalformed",
    "ConsentAsked",
    "ConsentRequest",
    "Deny",
    "EditArguments",
    "Executor",
    "Offer",
    "OfferPlanner",
    "ReasoningDelta",
    "Session",
    "Step",
    "TaintLine",
    "ToolProposed",
    "ToolRan",
    "ToolsOffered",
    "TurnDone",
    "TurnFailed",
    "TurnStats",
    "default_system_prompt",
    "select_tools",
    "turn_context",
]
