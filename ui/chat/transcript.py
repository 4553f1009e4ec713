"""The transcript as a Qt list model: one row per message, thinking block, tool card or notice.

Streamed text arrives a token at a time; rows are updated in place and the view is told at most
once per frame, so a fast model never floods the main thread with relayouts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)

from hearth.ui.chat.changes import CardChange
from hearth.ui.chat.entries import (
    AnswerEntry,
    NoticeEntry,
    ReadingEntry,
    ReasoningEntry,
    Tone,
    ToolCardEntry,
    TranscriptEntry,
    UserEntry,
)

ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
FLUSH_MS = 33  # about one frame: streamed text is redrawn at most this often
_Index = QModelIndex | QPersistentModelIndex


class TranscriptModel(QAbstractListModel):
    """The rows of one conversation, oldest first; `ENTRY_ROLE` gives the row's record."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entries: list[TranscriptEntry] = []
        self._rows: dict[int, int] = {}  # entry id -> row
        self._cards: dict[str, ToolCardEntry] = {}  # call id -> card
        self._live_reasoning: ReasoningEntry | None = None
        self._live_answer: AnswerEntry | None = None
        self._reading: ReadingEntry | None = None
        self._dirty: set[int] = set()
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush)

    # Qt's model interface.

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._entries):
            return None
        entry = self._entries[index.row()]
        if role == ENTRY_ROLE:
            return entry
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return entry.copy_text
        return None

    # Reading.

    @property
    def entries(self) -> list[TranscriptEntry]:
        return list(self._entries)

    def entry(self, row: int) -> TranscriptEntry:
        return self._entries[row]

    def card(self, call_id: str) -> ToolCardEntry | None:
        return self._cards.get(call_id)

    def index_of(self, entry: TranscriptEntry) -> QModelIndex:
        row = self._rows.get(entry.id)
        return QModelIndex() if row is None else self.index(row)

    # Writing.

    def clear(self) -> None:
        self.load(())

    def load(self, entries: Iterable[TranscriptEntry]) -> None:
        """Replace every row, e.g. with a conversation read from history."""
        self.beginResetModel()
        self._entries = list(entries)
        self._rows = {entry.id: row for row, entry in enumerate(self._entries)}
        self._cards = {e.call_id: e for e in self._entries if isinstance(e, ToolCardEntry)}
        self._live_reasoning = self._live_answer = self._reading = None
        self._dirty.clear()
        self.endResetModel()

    def add(self, entry: TranscriptEntry) -> TranscriptEntry:
        self._end_reading()
        return self._append(entry)

    def _append(self, entry: TranscriptEntry) -> TranscriptEntry:
        row = len(self._entries)
        self.beginInsertRows(QModelIndex(), row, row)
        self._entries.append(entry)
        self._rows[entry.id] = row
        if isinstance(entry, ToolCardEntry):
            self._cards[entry.call_id] = entry
        self.endInsertRows()
        return entry

    def add_user(self, text: str) -> UserEntry:
        self.end_streams()
        entry = UserEntry(text=text)
        self.add(entry)
        return entry

    def add_notice(self, text: str, tone: Tone = "info") -> NoticeEntry:
        self.end_streams()
        entry = NoticeEntry(text=text, tone=tone)
        self.add(entry)
        return entry

    def add_answer(self, text: str) -> AnswerEntry:
        """A finished answer that was not streamed (a reply Hearth wrote itself)."""
        self.end_streams()
        entry = AnswerEntry(text=text, live=False)
        self.add(entry)
        return entry

    def add_card(self, card: ToolCardEntry) -> ToolCardEntry:
        self.end_streams()
        self.add(card)
        return card

    def show_reading(self, read: int, total: int) -> None:
        """Say how far the model has read its prompt, on a row below the rest, until it writes
        or anything else is shown."""
        live = self._reading
        if live is None:
            self._reading = ReadingEntry(read=read, total=total, after_tools=self._tools_ran())
            self._append(self._reading)
            return
        live.read, live.total = read, total
        self._changed_later(live)

    def _tools_ran(self) -> bool:
        """Whether a tool card came since the user last spoke: the model now reads its result."""
        for entry in reversed(self._entries):
            if isinstance(entry, UserEntry):
                return False
            if isinstance(entry, ToolCardEntry):
                return True
        return False

    def stream_reasoning(self, text: str) -> None:
        if text.strip():
            self._end_reading()
        if self._live_answer is not None:
            self._end_answer()
        live = self._live_reasoning
        if live is None:
            if not text.strip():
                return
            self._live_reasoning = ReasoningEntry(text=text.lstrip())
            self.add(self._live_reasoning)
            return
        live.text = live.text + text if live.text else text.lstrip()
        self._changed_later(live)

    def show_tools(
        self, entry: ReasoningEntry | None, tools: str, *, left_out: bool = False
    ) -> ReasoningEntry:
        """Show the turn's offered tools in its Thoughts: on `entry` when the turn already has
        one in this transcript, else on a new Thoughts row that its thinking then streams into."""
        if entry is not None and entry.id in self._rows:
            entry.tools, entry.tools_left_out = tools, left_out
            self.changed(entry)
            return entry
        self.end_streams()
        entry = ReasoningEntry(tools=tools, tools_left_out=left_out)
        self._live_reasoning = entry
        self.add(entry)
        return entry

    def stream_answer(self, text: str) -> None:
        if text.strip():
            self._end_reading()
        live = self._live_answer
        if live is None:
            if not text.strip():
                return
            self._end_reasoning()
            self._live_answer = AnswerEntry(text=text.lstrip())
            self.add(self._live_answer)
            return
        live.text += text
        self._changed_later(live)

    def end_streams(self) -> None:
        """Nothing is streaming any more: fold the thinking away and settle the answer."""
        self._end_reading()
        self._end_reasoning()
        self._end_answer()
        self.flush()

    def update_card(self, call_id: str, change: CardChange) -> ToolCardEntry | None:
        """Apply `change` to the card of `call_id`; None when there is no such card."""
        card = self._cards.get(call_id)
        if card is None:
            return None
        change.apply(card)
        self.changed(card)
        return card

    def set_collapsed(self, row: int, collapsed: bool) -> None:
        entry = self._entries[row]
        if isinstance(entry, ReasoningEntry) and entry.collapsed != collapsed:
            entry.collapsed = collapsed
            self.changed(entry)

    def toggle_collapsed(self, row: int) -> None:
        entry = self._entries[row]
        if isinstance(entry, ReasoningEntry):
            self.set_collapsed(row, not entry.collapsed)

    def changed(self, entry: TranscriptEntry) -> None:
        """Tell the view now that `entry` must be redrawn."""
        entry.touch()
        self._dirty.discard(entry.id)
        row = self._rows.get(entry.id)
        if row is not None:
            index = self.index(row)
            self.dataChanged.emit(index, index, [ENTRY_ROLE])

    def flush(self) -> None:
        """Announce every row changed by streaming since the last flush."""
        self._flush_timer.stop()
        for entry_id in sorted(self._dirty):
            row = self._rows.get(entry_id)
            if row is not None:
                self.changed(self._entries[row])
        self._dirty.clear()

    def _changed_later(self, entry: TranscriptEntry) -> None:
        entry.touch()
        self._dirty.add(entry.id)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _end_reasoning(self) -> None:
        live, self._live_reasoning = self._live_reasoning, None
        if live is not None:
            live.live = False
            live.collapsed = True
            self.changed(live)

    def _end_answer(self) -> None:
        live, self._live_answer = self._live_answer, None
        if live is not None:
            live.live = False
            self.changed(live)

    def _end_reading(self) -> None:
        live, self._reading = self._reading, None
        if live is None:
            return
        self._dirty.discard(live.id)
        row = self._rows.pop(live.id, None)
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._entries[row]
        for below in range(row, len(self._entries)):
            self._rows[self._entries[below].id] = below
        self.endRemoveRows()
