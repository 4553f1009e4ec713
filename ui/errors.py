"""The one place errors reach the user: what went wrong, and what they can do next."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from hearth import HearthError, shown

BUG_ADVICE = (
    "This looks like a bug in Hearth, not something you did. Nothing you typed was lost; "
    "please report it with the details below."
)


class ErrorReporter(QObject):
    """Shows errors in a non-blocking dialog and announces each one (tests listen to it)."""

    error_shown = Signal(str, str)  # (what the user was doing, the message shown)

    def show(self, parent: QWidget | None, doing: str, error: BaseException) -> QMessageBox:
        text, advice = describe_error(error)
        box = QMessageBox(parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Hearth")
        box.setText(f"Could not {doing}.")
        box.setInformativeText(f"{text}\n\n{advice}" if advice else text)
        if not isinstance(error, HearthError):
            box.setDetailedText(f"{type(error).__name__}: {error}")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.error_shown.emit(doing, text)
        return box


def describe_error(error: BaseException) -> tuple[str, str]:
    """The message for the user and the advice that goes with it."""
    if isinstance(error, HearthError):
        # Hearth's own errors already say what failed and what to do about it.
        return str(error), ""
    if isinstance(error, OSError):
        return f"{error.strerror or error} ({getattr(error, 'filename', '') or ''})", (
            "Check that the file or folder exists and that you may use it, then try again."
        )
    return f"{type(error).__name__}: {error}", BUG_ADVICE


def status_unavailable(error: BaseException) -> str:
    """The line shown where a connector's status could not be read: never an empty reason."""
    return f"Status not available: {reason(error)}"


def reason(error: BaseException) -> str:
    """What `error` says, as outside text (it may quote a server or a file); when it says
    nothing, which kind of error it was."""
    said = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    if said.strip():
        return shown(said.strip())
    return f"the connector gave no reason ({type(error).__name__})"
