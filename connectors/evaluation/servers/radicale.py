"""A real Radicale CalDAV server on loopback, run from a throwaway config (tests and evals).

It can be stopped and started again on the same port with the same storage, which is how the
tests take the server away (offline) and bring it back.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urljoin
from xml.etree import ElementTree

import httpx

from hearth.connectors.evaluation.servers import ServerUnavailable, free_port

USER, PASSWORD = "alice", "correct horse"
OTHER_USER, OTHER_PASSWORD = "bob", "battery staple"
_PASSWORDS = {USER: PASSWORD, OTHER_USER: OTHER_PASSWORD}
_START_TIMEOUT_S = 20.0
_DAV = "{DAV:}"
_CHILDREN = '<?xml version="1.0"?><propfind xmlns="DAV:"><prop><resourcetype/></prop></propfind>'


class RadicaleServer:
    """`python -m radicale` on 127.0.0.1 with htpasswd logins and strict preconditions."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        if importlib.util.find_spec("radicale") is None:
            raise ServerUnavailable(
                "Radicale, the CalDAV server, is not installed: "
                "install it with `pip install 'hearth[eval]'` (or `pip install radicale`)."
            )
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "users").write_text(f"{USER}:{PASSWORD}\n{OTHER_USER}:{OTHER_PASSWORD}\n")
        (folder / "config").write_text(
            "[server]\n"
            f"hosts = 127.0.0.1:{self.port}\n"
            "[auth]\n"
            "type = htpasswd\n"
            f"htpasswd_filename = {folder / 'users'}\n"
            "htpasswd_encryption = plain\n"
            # Radicale answers a missing or wrong login after about a second, against password
            # guessing; a CalDAV client's first request carries no login (the 401 names the
            # scheme), so on loopback every new connection would wait that second.
            "delay = 0\n"
            "[rights]\n"
            "type = owner_only\n"
            "[storage]\n"
            f"filesystem_folder = {folder / 'collections'}\n"
            "strict_preconditions = True\n"
            "[logging]\n"
            "level = warning\n"
        )

    @property
    def url(self) -> str:
        """The bare server URL a user would type; discovery finds the rest."""
        return f"http://127.0.0.1:{self.port}/"

    def empty(self, user: str) -> int:
        """Delete every collection of `user` over HTTP, as that user; returns how many.

        The user's own principal collection stays: Radicale makes it at the first login.
        """
        auth = (user, _PASSWORDS[user])
        home = urljoin(self.url, f"{user}/")
        with httpx.Client(auth=auth, timeout=10) as client:
            listing = client.request(
                "PROPFIND", home, headers={"Depth": "1"}, content=_CHILDREN.encode()
            )
            if listing.status_code == httpx.codes.NOT_FOUND:
                return 0
            listing.raise_for_status()
            children = [
                urljoin(home, href)
                for href in _collection_hrefs(listing.content)
                if urljoin(home, href) != home
            ]
            for child in children:
                client.delete(child).raise_for_status()
        return len(children)

    def start(self) -> RadicaleServer:
        with (self.folder / "server.log").open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "radicale", "--config", str(self.folder / "config")],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Radicale exited: {(self.folder / 'server.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("Radicale did not start listening in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def _collection_hrefs(multistatus: bytes) -> list[str]:
    """The hrefs of the collections in a PROPFIND answer."""
    root = ElementTree.fromstring(multistatus)
    return [
        href
        for response in root.iter(f"{_DAV}response")
        if response.find(f".//{_DAV}resourcetype/{_DAV}collection") is not None
        and (href := response.findtext(f"{_DAV}href"))
    ]
