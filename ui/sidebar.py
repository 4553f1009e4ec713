"""The window's left side: conversations and the pages; a rail of icons in narrow windows.

Below `FOLD_BELOW` the side bar folds to icons, so the chat and the pages keep their room. Its
toggle unfolds it again (the conversations live there); in a narrow window it folds back as
soon as the user has picked a conversation or a page, like a drawer.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from hearth.ui import theme
from hearth.ui.chat.conversations import ConversationList

SIDEBAR_WIDTH = 264
RAIL_WIDTH = 64
FOLD_BELOW = 900  # window widths under this fold the side bar to its icons
ICON_ROLE = Qt.ItemDataRole.UserRole
PAGE_ICONS = {
    "permission": "shield",
    "activity": "activity",
    "audit": "activity",
    "model": "cpu",
    "account": "user",
    "folder": "folder",
    "plugin": "puzzle",
}


def page_icon(title: str) -> str:
    lowered = title.lower()
    return next((icon for key, icon in PAGE_ICONS.items() if key in lowered), "page")


class _IconsOnly(QStyledItemDelegate):
    """Draws a navigation row as its icon alone; the title stays the item's text and tooltip."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.text = ""
        option.decorationAlignment = Qt.AlignmentFlag.AlignCenter
        option.displayAlignment = Qt.AlignmentFlag.AlignCenter


def _rail_button(tip: str) -> QToolButton:
    button = QToolButton()
    button.setToolTip(tip)
    button.setAccessibleName(tip)
    button.setProperty("flat", True)
    button.setIconSize(QSize(20, 20))
    button.setFixedSize(36, 36)
    return button


class Sidebar(QWidget):
    """Brand, conversations and page navigation; `fit_window` folds it in narrow windows."""

    folded_did_change = Signal(bool)

    def __init__(
        self,
        conversations: ConversationList,
        pages: list[tuple[str, str]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.conversations = conversations
        self.folded = False
        self._narrow = False
        self.toggle = _rail_button("Show or hide the conversations")
        self.toggle.clicked.connect(lambda: self.set_folded(not self.folded))
        self.new_button = _rail_button("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(conversations.new_requested)
        self.logo = QLabel()
        self.logo.setPixmap(theme.app_icon().pixmap(28, 28))
        self.brand = QLabel("Hearth")
        self.brand.setObjectName("brand")
        self.pages_title = QLabel("PAGES")
        self.pages_title.setObjectName("sectionTitle")
        self.navigation = _navigation(pages)
        self._has_pages = len(pages) > 1  # the Chat row alone is nothing to navigate
        self.navigation.setVisible(self._has_pages)
        self._delegates = (QStyledItemDelegate(self.navigation), _IconsOnly(self.navigation))
        self._spacer = QWidget()
        self._lay_out()
        self.refresh_icons()
        self.set_folded(False)

    def _lay_out(self) -> None:
        layout = self._layout = QVBoxLayout(self)
        layout.setSpacing(10)
        brand = QHBoxLayout()
        brand.addWidget(self.logo)
        brand.addWidget(self.brand, 1)
        brand.addWidget(self.toggle)
        layout.addLayout(brand)
        layout.addWidget(self.new_button, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.conversations, 1)
        layout.addWidget(self._spacer, 1)
        layout.addWidget(self.pages_title)
        layout.addWidget(self.navigation)

    def set_folded(self, folded: bool) -> None:
        """Show only icons (folded) or everything, with the conversations."""
        changed = folded != self.folded
        self.folded = folded
        for widget in (self.logo, self.brand, self.conversations):
            widget.setVisible(not folded)
        self.new_button.setVisible(folded)
        self._spacer.setVisible(folded)
        self.pages_title.setVisible(not folded and self._has_pages)
        self.navigation.setItemDelegate(self._delegates[folded])
        if folded:
            self._layout.setContentsMargins(8, 14, 8, 12)
            self.setFixedWidth(RAIL_WIDTH)
        else:
            self._layout.setContentsMargins(14, 14, 14, 12)
            self.setMinimumWidth(200)
            self.setMaximumWidth(16_777_215)
        self.toggle.setToolTip("Show the conversations" if folded else "Hide the conversations")
        self.navigation.updateGeometry()
        if changed:
            self.folded_did_change.emit(folded)

    def fit_window(self, width: int) -> None:
        """Fold when the window becomes narrower than `FOLD_BELOW`, unfold when it widens."""
        narrow = width < FOLD_BELOW
        if narrow != self._narrow:  # crossing the line overrides the user's last toggle
            self._narrow = narrow
            self.set_folded(narrow)

    def something_chosen(self) -> None:
        """A conversation or page was picked: a narrow window needs its room back."""
        if self._narrow and not self.folded:
            self.set_folded(True)

    def refresh_icons(self) -> None:
        colours = theme.current()
        self.toggle.setIcon(theme.icon("sidebar", colours.muted))
        self.new_button.setIcon(theme.icon("plus", colours.text))
        for row in range(self.navigation.count()):
            item = self.navigation.item(row)
            item.setIcon(theme.icon(item.data(ICON_ROLE), colours.muted))


def _navigation(pages: list[tuple[str, str]]) -> QListWidget:
    """The Chat row and one row per page, each with its icon and its title as tooltip."""
    navigation = QListWidget()
    navigation.setObjectName("navigation")
    navigation.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    for title, icon in pages:
        item = QListWidgetItem(title)
        item.setData(ICON_ROLE, icon)
        item.setToolTip(title)
        navigation.addItem(item)
    navigation.setCurrentRow(0)
    navigation.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    navigation.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    navigation.setSizeAdjustPolicy(QListWidget.SizeAdjustPolicy.AdjustToContents)
    navigation.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    return navigation
