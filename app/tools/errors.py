"""What goes wrong with a tool: a function that cannot be one, or arguments that do not fit it."""

from __future__ import annotations

from hearth.errors import HearthError


class ToolDefinitionError(HearthError):
    """A function cannot become a tool: bad name, missing docs, unsupported signature."""


class ToolArgumentsError(HearthError):
    """Arguments proposed for a tool do not fit its signature; the text is meant for the model."""
