"""The main window: conversations and pages on the left, the chat (or a page) on the right."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from hearth import AgentConfig
from hearth.ui import theme
from hearth.ui.chat.controller import ChatController
from hearth.ui.chat.conversations import ConversationList
from hearth.ui.chat.panel import ChatPanel
from hearth.ui.context import UiContext
from hearth.ui.pages import PAGES

CHAT = "Chat"
SIDEBAR_WIDTH = 264
PAGE_ICONS = {
    "permission": "shield",
    "activity": "activity",
    "audit": "activity",
    "model": "cpu",
    "account": "user",
    "folder": "folder",
    "plugin": "puzzle",
}


class Page(Protocol):
    """A side page: a QWidget class with a `title`, built from the shared context."""

    title: str

    def __call__(self, context: UiContext, parent: QWidget | None = None) -> QWidget: ...


def available_pages() -> list[Page]:
    """The side pages, in the order the sidebar shows them."""
    return [cast(Page, page) for page in PAGES]


def page_icon(title: str) -> str:
    lowered = title.lower()
    return next((icon for key, icon in PAGE_ICONS.items() if key in lowered), "page")


class MainWindow(QMainWindow):
    """Hearth's window. Closing it stops any reply and ends the inference thread."""

    closed = Signal()

    def __init__(
        self,
        context: UiContext,
        *,
        config: AgentConfig | None = None,
        pages: Sequence[Page] | None = None,
    ) -> None:
        super().__init__()
        self.context = context
        self.setWindowTitle("Hearth")
        self.setWindowIcon(theme.app_icon())
        self.resize(1180, 780)
        self.setMinimumSize(760, 520)
        self.controller = ChatController(context, config, self)
        self.chat = ChatPanel(context, self.controller)
        self.conversations = ConversationList(context)
        self.page_classes = list(available_pages() if pages is None else pages)
        self.pages: dict[str, QWidget] = {}
        self.stack = QStackedWidget()
        self.stack.addWidget(self.chat)
        self.navigation = self._build_navigation()
        splitter = QSplitter()
        splitter.addWidget(self._build_sidebar())
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([SIDEBAR_WIDTH, 1180 - SIDEBAR_WIDTH])
        splitter.setHandleWidth(1)
        self.setCentralWidget(splitter)
        self._connect()
        self._add_shortcuts()
        self._closed = False
        self.conversations.refresh()
        self.chat.focus_composer()

    def _build_sidebar(self) -> QWidget:
        sidebar = QWidget()
        sidebar.setObjectName("sidebar")
        sidebar.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        sidebar.setMinimumWidth(200)
        layout = QVBoxLayout(sidebar)
        layout.setContentsMargins(14, 14, 14, 12)
        layout.setSpacing(10)
        brand = QHBoxLayout()
        logo = QLabel()
        logo.setPixmap(theme.app_icon().pixmap(28, 28))
        name = QLabel("Hearth")
        name.setObjectName("brand")
        brand.addWidget(logo)
        brand.addWidget(name, 1)
        layout.addLayout(brand)
        layout.addWidget(self.conversations, 1)
        if self.page_classes:
            title = QLabel("PAGES")
            title.setObjectName("sectionTitle")
            layout.addWidget(title)
        layout.addWidget(self.navigation)
        return sidebar

    def _build_navigation(self) -> QListWidget:
        navigation = QListWidget()
        navigation.setObjectName("navigation")
        navigation.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        for title, icon in [
            (CHAT, "chat"),
            *((p.title, page_icon(p.title)) for p in self.page_classes),
        ]:
            item = QListWidgetItem(title)
            item.setData(Qt.ItemDataRole.UserRole, icon)
            navigation.addItem(item)
        navigation.setCurrentRow(0)
        navigation.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        navigation.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        navigation.setSizeAdjustPolicy(QListWidget.SizeAdjustPolicy.AdjustToContents)
        navigation.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        navigation.setVisible(bool(self.page_classes))
        navigation.currentTextChanged.connect(self.open_page)
        self._refresh_navigation_icons(navigation)
        return navigation

    def _refresh_navigation_icons(self, navigation: QListWidget) -> None:
        for row in range(navigation.count()):
            item = navigation.item(row)
            item.setIcon(theme.icon(item.data(Qt.ItemDataRole.UserRole), theme.current().muted))

    def _connect(self) -> None:
        controller, conversations = self.controller, self.conversations
        conversations.conversation_chosen.connect(self.open_conversation)
        conversations.new_requested.connect(self.new_conversation)
        conversations.conversation_renamed.connect(controller.conversation_renamed)
        conversations.conversation_deleted.connect(controller.conversation_deleted)
        controller.conversation_did_open.connect(self._conversation_stored)
        controller.conversation_did_change.connect(self._conversation_changed)
        controller.busy_did_change.connect(self._busy_changed)
        self.chat.open_models_requested.connect(lambda: self.open_page("Models"))
        self.chat.voice.state_did_change.connect(lambda _state: self._sync_escape())

    def _add_shortcuts(self) -> None:
        def bind(
            keys: QKeySequence | QKeySequence.StandardKey | str, action: Callable[[], object]
        ) -> QShortcut:
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(action)
            return shortcut

        bind("Ctrl+N", self.new_conversation)
        bind("Ctrl+L", self.chat.focus_composer)
        bind(QKeySequence.StandardKey.Find, self._focus_search)
        bind("Ctrl+K", self._focus_search)
        bind("Ctrl+T", self.chat.composer.use_tool.toggle)
        bind("F2", self._rename_current)
        self.stop_shortcut = bind("Esc", self.controller.stop)
        self.stop_shortcut.setEnabled(False)  # only while a reply runs: Esc also cancels edits
        for row in range(min(9, self.navigation.count())):
            bind(f"Ctrl+{row + 1}", partial(self.navigation.setCurrentRow, row))

    def new_conversation(self) -> None:
        self.controller.new_conversation()
        self.show_chat()
        self.chat.focus_composer()

    def open_conversation(self, conversation_id: int) -> None:
        self.controller.open_conversation(conversation_id)
        self.show_chat()

    def show_chat(self) -> None:
        self.open_page(CHAT)

    def open_page(self, title: str) -> None:
        """Show the chat or the side page with this title (created on first use)."""
        widget = self.chat if title == CHAT else self._page(title)
        if widget is None:
            return
        self.stack.setCurrentWidget(widget)
        items = self.navigation.findItems(title, Qt.MatchFlag.MatchExactly)
        if items and self.navigation.currentItem() is not items[0]:
            self.navigation.setCurrentItem(items[0])

    def _page(self, title: str) -> QWidget | None:
        if title in self.pages:
            return self.pages[title]
        page_class = next((p for p in self.page_classes if p.title == title), None)
        if page_class is None:
            return None
        try:
            page = page_class(self.context, self.stack)
        except Exception as error:  # a broken page must not take the chat down with it
            self.context.errors.show(self, f"open {title}", error)
            return None
        self.pages[title] = page
        self.stack.addWidget(page)
        switched = getattr(page, "model_did_change", None)
        if switched is not None:
            switched.connect(self._model_changed)
        return page

    def _model_changed(self, *_: object) -> None:
        self.chat.hide_first_run()
        self.chat.status.refresh()

    def refresh_icons(self) -> None:
        self.chat.refresh_icons()
        self.conversations.refresh_icons()
        self._refresh_navigation_icons(self.navigation)

    def _focus_search(self) -> None:
        self.conversations.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.conversations.search.selectAll()

    def _rename_current(self) -> None:
        self.conversations.list.setFocus()
        self.conversations.start_rename()

    def _conversation_stored(self, conversation_id: int) -> None:
        self.conversations.current_id = conversation_id
        self.conversations.refresh()

    def _conversation_changed(self, conversation_id: int | None, title: str) -> None:
        self.conversations.select(conversation_id)
        self.setWindowTitle(f"{title} — Hearth" if title else "Hearth")

    def _busy_changed(self, busy: bool) -> None:
        self._sync_escape()
        if not busy:
            self.conversations.refresh()  # the conversation moved to the top

    def _sync_escape(self) -> None:
        # One Esc at a time: while the user is talking, it cancels that (the chat's own).
        listening = self.chat.voice_escape.isEnabled()
        self.stop_shortcut.setEnabled(self.controller.busy and not listening)

    def shutdown(self) -> None:
        """Stop listening, the reply and the inference thread; safe to call more than once."""
        if not self._closed:
            self._closed = True
            self.chat.voice.cancel()
            self.controller.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
        self.closed.emit()
