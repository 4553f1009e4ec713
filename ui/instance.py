"""One window per data folder: a second `hearth` start asks the running window to come forward.

The running window listens on a local socket (QLocalServer) named after its data folder; a later
start connects, says `show`, waits briefly for `shown` and exits. A window that crashed leaves
its name behind (a socket file on Unix) that no one answers; the next window removes it and
listens itself. Terminal commands (`hearth ask`) never look here: they run beside the window.
The only message is `show`, so the socket keeps Qt's default access (on Unix, the user's umask).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

SHOW = b"show\n"
SHOWN = b"shown\n"
REPLY_TIMEOUT_MS = 2000
ALREADY_OPEN = "Hearth is already open; its window was brought to the front."


def server_name(data_folder: Path) -> str:
    """The socket name for the window of `data_folder`: the same for the same folder."""
    digest = hashlib.sha256(str(data_folder.resolve()).encode("utf-8")).hexdigest()
    return f"hearth-{digest[:24]}"


def ask_running_to_show(name: str, timeout_ms: int = REPLY_TIMEOUT_MS) -> bool:
    """Whether a window answers at `name`; one that does is asked to show itself."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False  # no window, or a crashed one's stale name
    socket.write(SHOW)
    socket.waitForBytesWritten(timeout_ms)
    # A window busy on its main thread still reads the message once it is free.
    socket.waitForReadyRead(timeout_ms)
    socket.disconnectFromServer()
    return True


class InstanceServer(QObject):
    """Listens for later starts of the same data folder; `show_requested` on each one."""

    show_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server = QLocalServer(self)
        self.server.newConnection.connect(self._accept)
        if not self.server.listen(name):
            # Only called once no window answered at `name`: what is left there is stale.
            QLocalServer.removeServer(name)
            self.server.listen(name)

    @property
    def listening(self) -> bool:
        return self.server.isListening()

    @property
    def error(self) -> str:
        return self.server.errorString()

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        # The sockets' signals go to this object, not to the sockets themselves: a socket
        # deleted with the server says `disconnected` from its destructor, too late for its own
        # deleteLater, but Qt has cut this object's connections by then.
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(self._ready)
            socket.disconnected.connect(self._dropped)
            self._read(socket)

    def _ready(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)

    def _dropped(self) -> None:
        socket = self.sender()
        if socket is not None:
            socket.deleteLater()

    def _read(self, socket: QLocalSocket) -> None:
        while socket.canReadLine():
            if bytes(socket.readLine().data()) == SHOW:
                socket.write(SHOWN)
                socket.flush()
                self.show_requested.emit()
