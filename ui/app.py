"""`hearth` with no subcommand: the desktop app.

The window appears at once; the model and the plugins (with their connectors) load on the
worker pool behind it, and the line at its foot says what is still loading. Without a model,
the chat says so and points to the Models page.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping

import psutil
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from hearth import (
    Assistant,
    ChatModel,
    HearthError,
    ModelNotFoundError,
    Secrets,
    data_dir,
    use_password_prompt,
)
from hearth.ui import theme
from hearth.ui.context import UiContext
from hearth.ui.instance import ALREADY_OPEN, InstanceServer, ask_running_to_show, server_name
from hearth.ui.loading_status import MODEL, PLUGINS
from hearth.ui.main_window import MainWindow
from hearth.ui.ops import run_op
from hearth.ui.pages.password_store import ask_to_unlock
from hearth.ui.tray import Tray

QUIT_AFTER_ENV = "HEARTH_QUIT_AFTER_MS"
SCREENSHOT_ENV = "HEARTH_SCREENSHOT"
SCREENSHOT_DELAY_MS = 200  # lets the first layout and style pass settle before the grab
CONTEXT_TOKENS = 8192
SIGNAL_POLL_MS = 250
# Qt platforms that draw without a window system; any other needs DISPLAY or WAYLAND_DISPLAY.
HEADLESS_PLATFORMS = frozenset(
    {"offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb", "vkkhrdisplay"}
)
NO_DISPLAY = (
    "Hearth found no display for its window (DISPLAY and WAYLAND_DISPLAY are unset); "
    "in the terminal, scripts/run chat works (hearth chat where Hearth is installed)."
)
FIRST_RUN = (
    "No model is installed yet. Hearth needs one on this computer to answer you: "
    "download the recommended model or import a .gguf file you already have."
)
FIRST_RUN_NO_PAGE = (
    FIRST_RUN + " In a terminal: hearth models download, or hearth models import FILE."
)


def display_missing(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt would find no display here and abort the process instead of raising."""
    if not platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "dragonfly")):
        return False
    # QT_QPA_PLATFORM may list fallbacks ("wayland;xcb") and give options ("vnc:size=...").
    chosen = {name.split(":")[0] for name in env.get("QT_QPA_PLATFORM", "").split(";")}
    if chosen & HEADLESS_PLATFORMS:
        return False
    return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def load_installed_model(assistant: Assistant) -> ChatModel:
    """Load the best installed model (bundled, then the user's, then packaged) and use it."""
    models = assistant.models
    model = models.load(models.resolve(), CONTEXT_TOKENS, models.thread_policy())
    # Adopted here rather than on the main thread, so a model loaded just as the app quits
    # is still closed with the assistant.
    assistant.use_model(model)
    return model


def start_loading_model(
    window: MainWindow,
    context: UiContext,
    load: Callable[[Assistant], ChatModel] = load_installed_model,
) -> None:
    """Load a model on the pool; without one, the chat explains how to get one."""
    chat = window.chat
    chat.status.set_loading(True)
    window.loading.begin(MODEL)

    def loaded(_model: ChatModel) -> None:
        window.loading.end(MODEL)
        chat.hide_first_run()
        chat.status.refresh()

    def failed(error: Exception) -> None:
        window.loading.end(MODEL)
        chat.status.set_loading(False)
        has_page = any(page.title == "Models" for page in window.page_classes)
        if isinstance(error, ModelNotFoundError):
            chat.show_first_run(
                FIRST_RUN if has_page else FIRST_RUN_NO_PAGE, can_open_models=has_page
            )
            return
        chat.show_first_run(f"The model could not be loaded: {error}", can_open_models=has_page)
        context.errors.show(window, "load the model", error)

    run_op(
        context.pool,
        lambda: load(context.assistant),
        receiver=window,
        success=loaded,
        failure=failed,
    )


def start_loading(window: MainWindow, context: UiContext) -> None:
    """Load the model and the plugins behind the window, side by side, and find where
    passwords are kept (the keyring's probe starts programs) to ask for the store's password."""
    start_loading_model(window, context)
    start_loading_plugins(window, context)

    def found(secrets: Secrets) -> None:
        ask_to_unlock(secrets, window)

    context.run(
        lambda: context.settings.secrets,
        receiver=window,
        success=found,
        doing="find where passwords are kept",
    )


def start_loading_plugins(window: MainWindow, context: UiContext) -> None:
    """Load the plugins and start their connectors on the pool; once they are here, the pages
    that show them fill in, the plugin files are watched and what went wrong is said."""
    window.loading.begin(PLUGINS)

    def loaded(_: object) -> None:
        window.loading.end(PLUGINS)
        context.watch_plugins()
        context.plugins_did_change.emit()
        report_startup_problems(window, context.assistant)

    def failed(error: Exception) -> None:
        window.loading.end(PLUGINS)
        context.errors.show(window, "load the plugins", error)

    run_op(
        context.pool,
        context.assistant.load_plugins,
        receiver=window,
        success=loaded,
        failure=failed,
    )


def report_startup_problems(window: MainWindow, assistant: Assistant) -> None:
    """Plugins that were skipped and side effects a crash left unconfirmed, in one message."""
    lines = [
        f"Plugin {failure.plugin} was skipped: {failure.error}"
        for failure in assistant.plugin_failures()
    ]
    lines += [
        f"A previous run started {intent.tool} but never confirmed it finished; check whether it "
        "happened. Hearth will not retry it."
        for intent in assistant.unresolved
    ]
    if lines:
        window.context.errors.show(
            window, "start everything cleanly", HearthError("\n".join(lines))
        )


def quit_after(window: MainWindow) -> None:
    """For smoke tests: close the window after $HEARTH_QUIT_AFTER_MS milliseconds."""
    delay = os.environ.get(QUIT_AFTER_ENV, "").strip()
    if delay.isdigit():
        QTimer.singleShot(int(delay), window.close)


def screenshot_then_quit(window: MainWindow) -> None:
    """For bundle tests: save the shown window to $HEARTH_SCREENSHOT (a .png), then quit."""
    target = os.environ.get(SCREENSHOT_ENV, "").strip()
    if not target:
        return

    def grab() -> None:
        # From the process's creation, so the frozen bootloader's unpacking counts too.
        shown = time.time() - psutil.Process().create_time() - SCREENSHOT_DELAY_MS / 1000
        if window.grab().save(target):
            print(f"{SCREENSHOT_ENV}: window shown {shown:.2f} s after start", file=sys.stderr)
        else:
            print(f"Hearth could not save a screenshot to {target}.", file=sys.stderr)
        window.close()

    QTimer.singleShot(SCREENSHOT_DELAY_MS, grab)


def close_on_interrupt(window: MainWindow) -> Callable[..., object] | int | None:
    """Ctrl+C in the terminal closes the window cleanly; returns the handler it replaced."""
    previous = signal.signal(signal.SIGINT, lambda *_: window.close())
    # Python only runs signal handlers between bytecodes; a tick lets it out of Qt's loop.
    ticker = QTimer(window, interval=SIGNAL_POLL_MS)
    ticker.timeout.connect(lambda: None)
    ticker.start()
    return previous


def claim_the_window(app: QApplication) -> InstanceServer | None:
    """Listen for later starts; None when a running window took the call and came forward.

    Done before the assistant opens, so a second start never recovers or loads anything.
    """
    name = server_name(data_dir())
    if ask_running_to_show(name):
        return None
    instance = InstanceServer(name, app)
    if not instance.listening:
        print(f"Later starts of Hearth cannot find this window: {instance.error}", file=sys.stderr)
    return instance


def keep_stderr() -> None:
    """Point Python's stderr at a copy of file descriptor 2 that no library can redirect.

    sounddevice points fd 2 at /dev/null while PortAudio starts, which it does on a worker
    when the window checks for a microphone. Meanwhile, whatever any other thread printed
    vanished: an error, a crash's stack, the bundle test's "window shown" line. Only C code
    that writes to fd 2 itself (ALSA's probing) is silenced now.
    """
    if sys.stderr is None:  # no console at all
        return
    try:
        copy = os.dup(2)
    except OSError:
        return
    encoding, errors = sys.stderr.encoding, sys.stderr.errors
    sys.stderr = os.fdopen(copy, "w", encoding=encoding, errors=errors, buffering=1)
    if faulthandler.is_enabled():
        faulthandler.enable(sys.stderr, all_threads=True)


def main() -> int:
    """Run the desktop app until its window closes; the exit status."""
    keep_stderr()
    if display_missing(os.environ):
        print(NO_DISPLAY, file=sys.stderr)
        return 1
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Hearth")
    app.setDesktopFileName("hearth")
    instance = claim_the_window(app)
    if instance is None:
        print(ALREADY_OPEN)
        return 0
    app.setWindowIcon(theme.app_icon())
    watcher = theme.ThemeWatcher(app)
    # The window asks for the password store's password in its own dialog, never on the
    # terminal it may have been started from.
    use_password_prompt(None)
    try:
        assistant = Assistant.open(window=True, defer_plugins=True)
    except HearthError as error:
        instance.close()
        QMessageBox.critical(None, "Hearth", f"Hearth could not start.\n\n{error}")
        return 1
    context = UiContext(assistant)
    window = MainWindow(context)
    watcher.theme_did_change.connect(lambda _theme: window.refresh_icons())
    tray = Tray(window)
    instance.show_requested.connect(tray.show_window)
    window.closed.connect(app.quit)
    window.show()
    # Once the window has been painted: the loading threads would slow its first paint.
    QTimer.singleShot(0, lambda: start_loading(window, context))
    quit_after(window)
    screenshot_then_quit(window)
    previous_interrupt = close_on_interrupt(window)
    try:
        return app.exec()
    finally:
        signal.signal(signal.SIGINT, previous_interrupt)
        instance.close()
        tray.hide()
        window.shutdown()
        context.shutdown()
        assistant.close()
