"""Side pages of the main window: permissions, activity, models, accounts, folders, plugins.

Each page is a QWidget with a `title` and the constructor `(context, parent=None)`; the main
window lists `NAVIGATION` in this order. A page's module is imported when the page is first
made, not when the window is: the Models page alone brings the hub client. `PAGES` (the classes
themselves) and each class by name are imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from hearth.ui.context import UiContext
    from hearth.ui.pages.accounts import AccountsPage
    from hearth.ui.pages.activity import ActivityPage
    from hearth.ui.pages.folders import FoldersPage
    from hearth.ui.pages.models import ModelsPage
    from hearth.ui.pages.permissions import PermissionsPage
    from hearth.ui.pages.plugins import PluginsPage


@dataclass(frozen=True)
class PageEntry:
    """A page as the navigation lists it: its title, and its class, imported when first made."""

    title: str
    module: str
    name: str

    def page_class(self) -> Any:
        """The page's class (a QWidget subclass taking `(context, parent=None)`)."""
        page = getattr(import_module(f"{__name__}.{self.module}"), self.name)
        assert page.title == self.title, (page.title, self.title)
        return page

    def __call__(self, context: UiContext, parent: QWidget | None = None) -> QWidget:
        page: QWidget = self.page_class()(context, parent)
        return page


NAVIGATION = [
    PageEntry("Permissions", "permissions", "PermissionsPage"),
    PageEntry("Activity", "activity", "ActivityPage"),
    PageEntry("Models", "models", "ModelsPage"),
    PageEntry("Accounts", "accounts", "AccountsPage"),
    PageEntry("Folders", "folders", "FoldersPage"),
    PageEntry("Plugins", "plugins", "PluginsPage"),
]

__all__ = [
    "NAVIGATION",
    "PAGES",
    "AccountsPage",
    "ActivityPage",
    "FoldersPage",
    "ModelsPage",
    "PageEntry",
    "PermissionsPage",
    "PluginsPage",
]


def __getattr__(name: str) -> Any:
    if name == "PAGES":
        return [entry.page_class() for entry in NAVIGATION]
    entry = next((entry for entry in NAVIGATION if entry.name == name), None)
    if entry is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return entry.page_class()
