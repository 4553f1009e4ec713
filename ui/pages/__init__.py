"""Side pages of the main window: permissions, activity, models, accounts, folders, plugins.

Each page is a QWidget with a `title` and the constructor `(context, parent=None)`; the main
window lists `PAGES` in its navigation, in this order.
"""

from hearth.ui.pages.accounts import AccountsPage
from hearth.ui.pages.activity import ActivityPage
from hearth.ui.pages.folders import FoldersPage
from hearth.ui.pages.models import ModelsPage
from hearth.ui.pages.permissions import PermissionsPage
from hearth.ui.pages.plugins import PluginsPage

PAGES = [PermissionsPage, ActivityPage, ModelsPage, AccountsPage, FoldersPage, PluginsPage]

__all__ = [
    "PAGES",
    "AccountsPage",
    "ActivityPage",
    "FoldersPage",
    "ModelsPage",
    "PermissionsPage",
    "PluginsPage",
]
