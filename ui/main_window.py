"""The main window: conversations and pages on the left, the chat (or a page) on the right."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import QLabel, QMainWindow, QSplitter, QStackedWidget, QWidget

from hearth import AgentConfig
from hearth.ui import theme
from hearth.ui.chat.controller import ChatController
from hearth.ui.chat.conversations import ConversationList
from hearth.ui.chat.panel import ChatPanel
from hearth.ui.context import UiContext
from hearth.ui.loading_status import LoadingStatus
from hearth.ui.pages import NAVIGATION
from hearth.ui.sidebar import RAIL_WIDTH, SIDEBAR_WIDTH, Sidebar, page_icon

CHAT = "Chat"
MIN_WIDTH = 640  # docs/user-guide.md gives this number; the layout is tested down to it
MIN_HEIGHT = 520
# Pages that show what plugins bring (connectors, their tools, the plugins themselves): opened
# while the plugins still load, they say so and are made once the plugins are here.
NEED_PLUGINS = frozenset({"Permissions", "Accounts", "Folders", "Plugins"})
PLUGINS_LOADING = "Loading plugins…"


class Page(Protocol):
    """A side page: a QWidget class with a `title`, built from the shared context."""

    title: str

    def __call__(self, context: UiContext, parent: QWidget | None = None) -> QWidget: ...


def available_pages() -> list[Page]:
    """The side pages, in the order the sidebar shows them; each module is imported when its
    page is first opened."""
    return [cast(Page, page) for page in NAVIGATION]


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
        self.setMinimumSize(MIN_WIDTH, MIN_HEIGHT)
        self.controller = ChatController(context, config, self)
        self.chat = ChatPanel(context, self.controller)
        self.conversations = ConversationList(context)
        self.page_classes = list(available_pages() if pages is None else pages)
        self.pages: dict[str, QWidget] = {}
        self.stack = QStackedWidget()
        self.stack.addWidget(self.chat)
        rows = [(CHAT, "chat"), *((p.title, page_icon(p.title)) for p in self.page_classes)]
        self.sidebar = Sidebar(self.conversations, rows)
        self.navigation = self.sidebar.navigation
        self.splitter = QSplitter()
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self.stack)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(0, False)
        self.splitter.setCollapsible(1, False)
        self.splitter.setSizes([SIDEBAR_WIDTH, 1180 - SIDEBAR_WIDTH])
        self.splitter.setHandleWidth(1)
        self.setCentralWidget(self.splitter)
        self.loading = LoadingStatus()
        self.setStatusBar(self.loading)
        self.waiting = QLabel(PLUGINS_LOADING, alignment=Qt.AlignmentFlag.AlignCenter)
        self.waiting.setObjectName("pagePlaceholder")
        self.stack.addWidget(self.waiting)
        self._waiting_for: str | None = None
        self._connect()
        self._add_shortcuts()
        self._closed = False
        self.conversations.refresh()
        self.chat.focus_composer()

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
        self.navigation.currentTextChanged.connect(self.open_page)
        self.sidebar.folded_did_change.connect(self._sidebar_folded)
        self.context.plugins_did_change.connect(self._plugins_changed)

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
        self.sidebar.something_chosen()
        items = self.navigation.findItems(title, Qt.MatchFlag.MatchExactly)
        if items and self.navigation.currentItem() is not items[0]:
            self.navigation.setCurrentItem(items[0])

    def _page(self, title: str) -> QWidget | None:
        if title in self.pages:
            return self.pages[title]
        self._waiting_for = None
        if title in NEED_PLUGINS and not self.context.assistant.plugins_loaded:
            self._waiting_for = title
            return self.waiting
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

    def _plugins_changed(self) -> None:
        # A page opened while the plugins loaded is made now, in the placeholder's place.
        title, self._waiting_for = self._waiting_for, None
        if title is not None and self.stack.currentWidget() is self.waiting:
            self.open_page(title)

    def _model_changed(self, *_: object) -> None:
        self.chat.hide_first_run()
        self.chat.status.refresh()

    def refresh_icons(self) -> None:
        self.chat.refresh_icons()
        self.conversations.refresh_icons()
        self.sidebar.refresh_icons()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.sidebar.fit_window(self.width())

    def _sidebar_folded(self, folded: bool) -> None:
        # The splitter keeps a pane's old width unless told: the rail's, or the usual one back.
        side = RAIL_WIDTH if folded else SIDEBAR_WIDTH
        self.splitter.setSizes([side, max(0, self.splitter.width() - side)])

    def _focus_search(self) -> None:
        self.sidebar.set_folded(False)
        self.conversations.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.conversations.search.selectAll()

    def _rename_current(self) -> None:
        self.sidebar.set_folded(False)
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
