"""A connector that really logs in to a loopback server, for the Accounts page tests."""

from __future__ import annotations

import socket
import socketserver
import threading
from typing import Literal

import pydantic

from hearth import HearthError

PASSWORD = "correct horse battery"


class ServerSettings(pydantic.BaseModel):
    """Settings a connector declares; the page knows nothing else about them."""

    host: str = pydantic.Field(description="Server name or address.")
    port: int = pydantic.Field(description="TCP port.")
    password: pydantic.SecretStr = pydantic.Field(description="Your account password.")
    security: Literal["none", "tls"] = "none"
    verbose: bool = False
    shares: list[str] = pydantic.Field(default_factory=list, json_schema_extra={"form": False})


def check_server(settings: ServerSettings) -> str:
    """Log in over a real socket: send the password, expect OK."""
    address = (settings.host, settings.port)
    try:
        with socket.create_connection(address, timeout=3) as connection:
            connection.sendall(settings.password.get_secret_value().encode() + b"\n")
            reply = connection.makefile("rb").readline().strip()
    except OSError as error:
        raise HearthError(
            f"Could not reach {settings.host}:{settings.port} ({error.strerror or error}). "
            "Check the host and port, and that the server is running."
        ) from None
    if reply != b"OK":
        raise HearthError(f"{settings.host} refused the password. Check it and try again.")
    return "logged in"


class LoginServer(socketserver.ThreadingTCPServer):
    """A loopback server answering OK to the right password, NO to anything else."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), LoginHandler)
        self.passwords: list[str] = []
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def stop(self) -> None:
        if self.thread.is_alive():
            self.shutdown()
            self.thread.join(5)
        self.server_close()


class LoginHandler(socketserver.StreamRequestHandler):
    server: LoginServer

    def handle(self) -> None:
        password = self.rfile.readline().decode().strip()
        self.server.passwords.append(password)
        self.wfile.write(b"OK\n" if password == PASSWORD else b"NO\n")
