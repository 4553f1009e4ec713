"""The line at the foot of the window that says what is still loading behind it."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

MODEL = "the model"
PLUGINS = "plugins"


class LoadingStatus(QStatusBar):
    """ "Loading the model and plugins…" while they load behind the window; hidden once all
    are here, so a window with nothing loading has no status bar."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("loadingStatus")
        self.setSizeGripEnabled(False)
        self.label = QLabel()
        self.label.setContentsMargins(12, 2, 12, 4)
        self.addWidget(self.label, 1)
        self._loading: list[str] = []
        self.hide()

    def begin(self, what: str) -> None:
        if what not in self._loading:
            self._loading.append(what)
        self._render()

    def end(self, what: str) -> None:
        if what in self._loading:
            self._loading.remove(what)
        self._render()

    def loading(self) -> tuple[str, ...]:
        return tuple(self._loading)

    def text(self) -> str:
        return self.label.text()

    def _render(self) -> None:
        *rest, last = self._loading or [""]
        said = f"{', '.join(rest)} and {last}" if rest else last
        self.label.setText(f"Loading {said}…" if said else "")
        self.setVisible(bool(said))
