"""What goes wrong in the files connector, worded for the model or the user who reads it."""

from __future__ import annotations

from hearth import ToolFailure


class FilesError(ToolFailure):
    """A file tool could not do what was asked; the message says why, for the model or user."""


class PathRefused(FilesError):
    """A path names something outside the granted folders, or names it in a refused form."""


class GrantReplaced(PathRefused):
    """A granted folder's path now leads to another folder than the one the user granted."""
