"""What every window and page of the desktop app shares: the core, the worker pool, errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import QWidget

from hearth import Assistant, SettingsStore
from hearth.ui.errors import ErrorReporter
from hearth.ui.ops import run_op

if TYPE_CHECKING:
    from hearth import Voice


class UiContext(QObject):
    """The desktop app's handle on Hearth's core.

    Inference has its own worker (see the chat); everything else that touches disk, network or
    connectors runs on `pool` through `run`. `voice` is voice input's core, shared by every
    window. `plugins_did_change` fires (on this thread) after
    a plugin file changed and was reloaded, once `watch_plugins()` started the watcher.
    """

    plugins_did_change = Signal()
    voice_did_change = Signal()  # the voice settings changed, or a speech model arrived

    def __init__(
        self,
        assistant: Assistant,
        settings: SettingsStore | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.assistant = assistant
        self.settings = settings or SettingsStore()
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(4)
        self.errors = ErrorReporter(self)

    @property
    def voice(self) -> Voice:
        # Made on first use, off the main thread where it can be: voice input brings numpy,
        # PortAudio's wrapper and the speech models, none of which the first window needs.
        return self.assistant.voice

    def run(
        self,
        work: Callable[[], Any],
        *,
        receiver: QObject,
        success: Callable[[Any], None] | None = None,
        doing: str = "finish that",
    ) -> None:
        """Run `work` on the pool; a failure is shown to the user as 'Could not <doing>'."""
        parent = receiver if isinstance(receiver, QWidget) else None
        run_op(
            self.pool,
            work,
            receiver=receiver,
            success=success,
            failure=lambda error: self.errors.show(parent, doing, error),
        )

    def watch_plugins(self) -> None:
        """Reload the user's plugin files as they change; pages follow `plugins_did_change`."""
        # Emitted from the watcher's thread; Qt queues it to this object's thread.
        self.assistant.watch_plugins(self.plugins_did_change.emit)

    def shutdown(self) -> None:
        """Wait for background work; called before the application quits."""
        self.pool.waitForDone()
