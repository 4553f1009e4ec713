"""What goes wrong with a tool: a function that cannot be one, or arguments that do not fit it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hearth.errors import HearthError, ToolFailure


class ToolDefinitionError(HearthError):
    """A function cannot become a tool: bad name, missing docs, unsupported signature."""


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """What is wrong with one argument of a call, in plain words for the person who may fix it
    ("'bob@' is missing the part after @"); `argument` is "" when no single one is at fault."""

    argument: str
    words: str


class ToolArgumentsError(HearthError):
    """Arguments proposed for a tool do not fit it; the text is meant for the model, `problems`
    say the same to a person, one argument at a time, so a card can mark what to fix."""

    def __init__(self, message: str, problems: Sequence[ArgumentProblem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class ArgumentRefused(ToolFailure):
    """A value its owner's parser refuses in that spelling (a relative path, an address with no
    domain): the call cannot run as proposed, but the person asked can correct it.

    The message is the model's; `words` say what is wrong in plain words for a person, quoting
    the value. `argument` names the argument when the raiser knows it (a `check` hook); a
    `canonical` parser, which sees one value, leaves it to the tool to fill in.
    """

    def __init__(self, message: str, *, words: str, argument: str = "") -> None:
        super().__init__(message)
        self.words = words
        self.argument = argument
