"""The model indicator: which model is loaded, its quantisation, speed and context in use."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

from hearth import ModelInfo
from hearth.ui.chat.controller import TurnSpeed
from hearth.ui.context import UiContext
from hearth.ui.pages.chrome import set_tone

LOADING = "Loading model…"
NO_MODEL = "No model loaded"


NAME_CHARS = 28
ELIDE = Qt.TextElideMode.ElideRight


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1].rstrip() + "…"


class ModelStatus(QLabel):
    """A small chip: "SmolLM2 · Q8_0 · 92 tok/s · 812 / 4,096 tokens".

    A reply far slower than this computer's usual speed says why, in the warning colour.
    """

    def __init__(self, context: UiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusChip")
        self.context = context
        self.info: ModelInfo | None = None
        self._full = ""
        self.name = ""  # what the user calls the model: its catalog name or a cleaned file name
        self.speed: TurnSpeed | None = None
        self._loading = False
        self._render()

    def set_loading(self, loading: bool) -> None:
        self._loading = loading
        self._render()

    def refresh(self) -> None:
        """Read the model's description on the pool: a remote model's may need the network."""
        model = self.context.assistant.model
        if model is None:
            self.show_model(None)
            return

        def described() -> tuple[ModelInfo, str]:
            info = model.info
            return info, self.context.assistant.models.display_name(info)

        self.context.run(
            described,
            receiver=self,
            success=lambda found: self.show_model(*found),
            doing="read the model's details",
        )

    def show_model(self, info: ModelInfo | None, name: str | None = None) -> None:
        if info is not self.info:
            self.speed = None
        self.info = info
        self.name = name or (info.name if info else "")
        self._loading = False
        self._render()

    def show_speed(self, speed: TurnSpeed) -> None:
        self.speed = speed
        self._render()

    def _render(self) -> None:
        if self.info is None:
            self._show(LOADING if self._loading else NO_MODEL)
            self.setToolTip("Choose a model under Models." if not self._loading else "")
            return
        info = self.info
        parts = [_short(self.name or info.name), info.quantization]
        report = self.speed.report if self.speed else None
        slow = report.label() if report else None
        if self.speed is not None and self.speed.tokens_per_second > 0:
            parts.append(
                f"{self.speed.tokens_per_second:.0f} tok/s" + (f" ({slow})" if slow else "")
            )
        used = self.speed.context_used if self.speed else 0
        parts.append(f"{used:,} / {info.context_length:,} tokens")
        self._show(" · ".join(part for part in parts if part))
        set_tone(self, "warn" if slow else None)
        advice = report.advice() if report else None
        self.setToolTip(
            (f"{advice}\n\n" if advice else "")
            + f"{info.name} ({info.architecture}, {info.quantization})\n{info.source}\n"
            f"Tool-call format: {info.tool_format}\nContext in use: {used:,} of "
            f"{info.context_length:,} tokens"
        )

    def full_text(self) -> str:
        return self._full

    def _show(self, text: str) -> None:
        self._full = text
        self._elide()

    def _elide(self) -> None:
        # Narrow windows cut the chip short with "…" rather than mid-letter; the tooltip has it all.
        room = self.contentsRect().width() - 2 * self.margin()
        metrics = self.fontMetrics()
        fits = room <= 0 or metrics.horizontalAdvance(self._full) <= room
        self.setText(self._full if fits else metrics.elidedText(self._full, ELIDE, room))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def sizeHint(self) -> QSize:
        """What the whole text needs, however much of it is shown now."""
        hint = super().sizeHint()
        metrics = self.fontMetrics()
        extra = metrics.horizontalAdvance(self._full) - metrics.horizontalAdvance(self.text())
        return QSize(hint.width() + max(0, extra), hint.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())
