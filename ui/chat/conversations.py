"""The conversation list: new, search, rename (F2) and delete (Del), stored by the core."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QIcon, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QLineEdit,
    QListView,
    QMenu,
    QMessageBox,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from hearth import Conversation
from hearth.ui import theme
from hearth.ui.context import UiContext

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_DELAY_MS = 200
_Index = QModelIndex | QPersistentModelIndex


class ConversationListModel(QAbstractListModel):
    """Stored conversations, newest first; editing a title asks for a rename."""

    rename_requested = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._conversations: list[Conversation] = []

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._conversations)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        conversation = self._conversations[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return conversation.title
        if role == Qt.ItemDataRole.ToolTipRole:
            when = conversation.updated_at.astimezone().strftime("%d %b %Y, %H:%M")
            return f"{conversation.title}\nLast message {when}"
        if role == ID_ROLE:
            return conversation.id
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        title = str(value).strip()
        if role != Qt.ItemDataRole.EditRole or not title:
            return False
        self.rename_requested.emit(self._conversations[index.row()].id, title)
        return True

    def set_conversations(self, conversations: list[Conversation]) -> None:
        self.beginResetModel()
        self._conversations = list(conversations)
        self.endResetModel()

    def row_of(self, conversation_id: int | None) -> int | None:
        for row, conversation in enumerate(self._conversations):
            if conversation.id == conversation_id:
                return row
        return None


class RenameDelegate(QStyledItemDelegate):
    """Draws rows as usual; the F2 rename box covers the whole row, not its padded text."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        editor = super().createEditor(parent, option, index)
        editor.setObjectName("renameEditor")  # the stylesheet lines its text up with the row's
        return editor

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: _Index
    ) -> None:
        # The default takes the row's text rectangle, which the stylesheet's item padding
        # shrinks to a sliver once the box's own border and padding are inside it.
        editor.setGeometry(option.rect)


class SearchBox(QLineEdit):
    """The search field; Esc here clears it, and never reaches the window's Stop shortcut."""

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and _is_escape(event):
            event.accept()  # the key comes to keyPressEvent instead of firing a shortcut
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if _is_escape(event):
            self.clear()
            return
        super().keyPressEvent(event)


def _is_escape(event: QEvent) -> bool:
    return isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape


class ConversationList(QWidget):
    """New conversation, search box and the list; the store is only touched through ops."""

    conversation_chosen = Signal(int)
    conversation_renamed = Signal(int, str)
    conversation_deleted = Signal(int)
    new_requested = Signal()
    refreshed = Signal()

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.current_id: int | None = None
        self.new_button = QPushButton("New conversation")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(self.new_requested)
        self.search = SearchBox()
        self.search.setPlaceholderText("Search conversations")
        self.search.setClearButtonEnabled(True)
        self._search_icon = self.search.addAction(QIcon(), QLineEdit.ActionPosition.LeadingPosition)
        self.model = ConversationListModel(self)
        self.model.rename_requested.connect(self.rename)
        self.list = QListView()
        self.list.setObjectName("conversations")
        self.list.setModel(self.model)
        self.list.setItemDelegate(RenameDelegate(self.list))
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setUniformItemSizes(True)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.clicked.connect(self._chosen)
        self.list.activated.connect(self._chosen)
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(self._search_timer.start)
        delete = QAction(
            "Delete", self.list, shortcut=QKeySequence(QKeySequence.StandardKey.Delete)
        )
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(self._delete_current)
        self.list.addAction(delete)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        self.refresh_icons()

    def refresh_icons(self) -> None:
        self.new_button.setIcon(theme.icon("plus", theme.current().text))
        self._search_icon.setIcon(theme.icon("search", theme.current().muted))

    def refresh(self) -> None:
        """Reload the list (or the search results) from the store."""
        text = self.search.text().strip()
        assistant = self.context.assistant
        self.context.run(
            lambda: assistant.list_conversations(text),
            receiver=self,
            success=self._show,
            doing="list your conversations",
        )

    def select(self, conversation_id: int | None) -> None:
        """Mark the conversation the chat shows, without opening it again."""
        self.current_id = conversation_id
        row = self.model.row_of(conversation_id)
        if row is None:
            self.list.clearSelection()
            self.list.setCurrentIndex(QModelIndex())
        else:
            self.list.setCurrentIndex(self.model.index(row))

    def rename(self, conversation_id: int, title: str) -> None:
        assistant = self.context.assistant

        def renamed(_: object) -> None:
            self.conversation_renamed.emit(conversation_id, title)
            self.refresh()

        self.context.run(
            lambda: assistant.rename_conversation(conversation_id, title),
            receiver=self,
            success=renamed,
            doing="rename the conversation",
        )

    def delete(self, conversation_id: int) -> None:
        assistant = self.context.assistant

        def deleted(_: object) -> None:
            self.conversation_deleted.emit(conversation_id)
            self.refresh()

        self.context.run(
            lambda: assistant.delete_conversation(conversation_id),
            receiver=self,
            success=deleted,
            doing="delete the conversation",
        )

    def start_rename(self) -> None:
        if self.list.currentIndex().isValid():
            self.list.edit(self.list.currentIndex())

    def confirm_delete(self, conversation_id: int, title: str) -> QMessageBox:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete conversation",
            f"Delete “{title}”?",
            parent=self.window(),
        )
        box.setInformativeText(
            "Its messages are removed. The activity log keeps its record of tool calls."
        )
        delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def clicked(button: QAbstractButton) -> None:
            if button is delete:
                self.delete(conversation_id)

        box.buttonClicked.connect(clicked)
        box.open()
        return box

    def _show(self, conversations: list[Conversation]) -> None:
        self.model.set_conversations(conversations)
        self.select(self.current_id)
        self.refreshed.emit()

    def _chosen(self, index: QModelIndex) -> None:
        conversation_id = index.data(ID_ROLE)
        if conversation_id is not None:
            self.current_id = conversation_id
            self.conversation_chosen.emit(conversation_id)

    def _delete_current(self) -> None:
        index = self.list.currentIndex()
        if index.isValid():
            self.confirm_delete(index.data(ID_ROLE), index.data())

    def _menu(self, position: QPoint) -> None:
        index = self.list.indexAt(position)
        if not index.isValid():
            return
        self.list.setCurrentIndex(index)
        menu = QMenu(self)
        menu.addAction("Rename", self.start_rename, QKeySequence(Qt.Key.Key_F2))
        menu.addAction("Delete", self._delete_current, QKeySequence.StandardKey.Delete)
        menu.exec(self.list.viewport().mapToGlobal(position))
