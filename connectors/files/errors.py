"""What goes wrong in the files connector, worded for the model or the user who reads it."""

from __future__ import annotations

from hearth import ArgumentRefused, ToolFailure


class FilesError(ToolFailure):
    """A file tool could not do what was asked; the message says why, for the model or user."""


class PathRefused(FilesError):
    """A path names something outside the granted folders, or names it in a refused form."""


class PathMalformed(PathRefused, ArgumentRefused):
    """A path written in a form Hearth refuses (relative, `~`, `..`, a Windows form): the person
    asked may correct it; `words` say what is wrong in plain words."""


class GrantReplaced(PathRefused):
    """A granted folder's path now leads to another folder than the one the user granted."""
