"""Hearth's core: engine, models, CLI. Never imports Qt, `hearth.ui` or `hearth.connectors`."""

from hearth.errors import HearthError

__all__ = ["HearthError"]
