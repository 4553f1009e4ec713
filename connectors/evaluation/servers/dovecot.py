"""A real Dovecot IMAP server on loopback, run from a throwaway config (for tests and evals).

It listens on loopback only: IMAPS (implicit TLS) and IMAP with STARTTLS, where a login
without TLS is refused (on `strict_host`, see `DovecotServer`). Its certificate comes from
the test CA. The helpers act as another mail client (a phone, say) on the same mailbox.
"""

from __future__ import annotations

import email.utils
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

import imapclient
import imapclient.exceptions
import trustme

from hearth.connectors.evaluation.servers import ServerUnavailable, free_port
from hearth.connectors.evaluation.servers.dovecot_config import (
    MAIL_GID,
    MAIL_UID,
    SPECIAL_FOLDERS,
    dovecot_config,
)

USER, PASSWORD, ADDRESS = "ann", "correct horse", "ann@example.org"
DOVECOT = Path("/usr/sbin/dovecot")
_START_TIMEOUT_S = 10.0
_APPENDUID = re.compile(rb"APPENDUID (\d+) (\d+)")


def message(
    subject: str,
    body: str = "Hello",
    sender: str = "Bob <bob@example.com>",
    to: str = ADDRESS,
    **headers: str,
) -> bytes:
    """A simple RFC 5322 message with CRLF line ends; `In_Reply_To=...` gives In-Reply-To."""
    mail = EmailMessage(policy=SMTP)
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Date"] = email.utils.formatdate(localtime=False)
    mail["Message-ID"] = email.utils.make_msgid(domain="example.com")
    for name, value in headers.items():
        header = name.replace("_", "-")
        del mail[header]
        mail[header] = value
    mail.set_content(body)
    return mail.as_bytes()


def _make_traversable(path: Path) -> None:
    """Let Dovecot's unprivileged processes walk down to `path` (pytest's tmp is 0700)."""
    for folder in [path, *path.parents]:
        mode = folder.stat().st_mode
        if not mode & 0o001:
            folder.chmod(mode | 0o001)


def _wait_until_gone(group: int) -> None:
    """Wait until no live process is left in `group` (zombies hold no ports or files)."""
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        alive = False
        for entry in Path("/proc").iterdir():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == group and fields[0] not in ("Z", "X"):
                alive = True
                break
        if not alive:
            return
        time.sleep(0.02)
    raise RuntimeError(f"Dovecot processes of group {group} did not exit")


class DovecotServer:
    """`dovecot -F` with one user, maildir storage and the usual special-use folders.

    It listens on 127.0.0.1 (`host`, also "localhost") and on 127.0.0.2 (`strict_host`),
    same ports. Dovecot counts a connection whose client and server addresses are equal as
    "secured" and allows a password without TLS there, so on `host` the STARTTLS port
    takes a plaintext LOGIN. A client reaching 127.0.0.2 comes from 127.0.0.1, so there
    TLS is really required: use `strict_host` to prove a password never goes out in clear.
    """

    host = "127.0.0.1"
    strict_host = "127.0.0.2"

    def __init__(self, root: Path, ca: trustme.CA, hostname: str = "localhost") -> None:
        if not DOVECOT.exists():
            raise ServerUnavailable(
                f"Dovecot is not installed ({DOVECOT} is missing): "
                "install it with `sudo apt install dovecot-imapd`."
            )
        self.root = root
        self.ca = ca
        self.user, self.password, self.address = USER, PASSWORD, ADDRESS
        self.tls_port = 0
        self.starttls_port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.home = root / "home" / USER
        self.home.mkdir(parents=True, exist_ok=True)
        _make_traversable(root)
        shutil.chown(self.home, MAIL_UID, MAIL_GID)
        certificate = ca.issue_cert(hostname, "localhost", self.host, self.strict_host)
        certificate.private_key_pem.write_to_path(str(root / "key.pem"))
        certificate.cert_chain_pems[0].write_to_path(str(root / "cert.pem"))  # no intermediates
        (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}::::::\n")

    @property
    def log_path(self) -> Path:
        return self.root / "dovecot.log"

    def log_text(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def _write_config(self) -> Path:
        config = self.root / "dovecot.conf"
        hosts = (self.host, self.strict_host)
        text = dovecot_config(self.root, self.log_path, hosts, self.tls_port, self.starttls_port)
        config.write_text(text)
        return config

    def start(self) -> DovecotServer:
        if not self.tls_port:
            self.tls_port, self.starttls_port = free_port(), free_port()
        config = self._write_config()
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [str(DOVECOT), "-F", "-c", str(config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # so that `stop` can kill all its processes at once
            )
        deadline = time.monotonic() + _START_TIMEOUT_S
        ports = (self.tls_port, self.starttls_port)
        addresses = [(host, port) for host in (self.host, self.strict_host) for port in ports]
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"Dovecot exited:\n{self.log_text()}")
            try:
                for address in addresses:
                    socket.create_connection(address, timeout=0.2).close()
                self.client().logout()  # listening is not enough: the auth service must be up
                return self
            except (OSError, imapclient.exceptions.IMAPClientError) as error:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"Dovecot not ready: {error}\n{self.log_text()}") from error
                time.sleep(0.05)

    def stop(self) -> None:
        """Kill the whole Dovecot process group at once (a graceful stop takes a second)."""
        if self.process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        _wait_until_gone(self.process.pid)
        self.process = None

    # Another mail client on the same mailbox ----------------------------------------------

    def client_context(self) -> ssl.SSLContext:
        """A context that trusts the test CA only (and checks the host name)."""
        return ssl.create_default_context(cadata=self.ca.cert_pem.bytes().decode())

    def client(self) -> imapclient.IMAPClient:
        """A logged-in IMAPS client; the caller logs out."""
        client = imapclient.IMAPClient(
            self.host, port=self.tls_port, ssl=True, ssl_context=self.client_context(), timeout=10
        )
        client.login(self.user, self.password)
        return client

    @contextmanager
    def session(self) -> Iterator[imapclient.IMAPClient]:
        client = self.client()
        try:
            yield client
        finally:
            client.logout()

    def append(self, folder: str, raw: bytes, flags: Sequence[str] = ()) -> int:
        """Store a message as another client would; returns its UID (from APPENDUID)."""
        with self.session() as client:
            reply = client.append(folder, raw, flags=tuple(flags))
        found = _APPENDUID.search(reply)
        if found is None:
            raise RuntimeError(f"no APPENDUID in {reply!r}")
        return int(found.group(2))

    def uids(self, folder: str) -> list[int]:
        with self.session() as client:
            client.select_folder(folder, readonly=True)
            return sorted(int(uid) for uid in client.search("ALL"))

    def flags(self, folder: str, uid: int) -> tuple[str, ...]:
        with self.session() as client:
            client.select_folder(folder, readonly=True)
            found = client.get_flags([uid])
        if uid not in found:
            raise KeyError(f"no UID {uid} in {folder}")
        # \Recent belongs to one session (and is gone in IMAP4rev2), so it is left out.
        flags = (flag.decode() if isinstance(flag, bytes) else str(flag) for flag in found[uid])
        return tuple(flag for flag in flags if flag != "\\Recent")

    def fetch_raw(self, folder: str, uid: int) -> bytes:
        with self.session() as client:
            client.select_folder(folder, readonly=True)
            found = client.fetch([uid], ["BODY.PEEK[]"])
        if uid not in found:
            raise KeyError(f"no UID {uid} in {folder}")
        return bytes(found[uid][b"BODY[]"])

    def uidvalidity(self, folder: str) -> int:
        with self.session() as client:
            return int(client.folder_status(folder, ["UIDVALIDITY"])[b"UIDVALIDITY"])

    def empty_all(self) -> None:
        """Leave the mailbox as `start` made it: every folder empty, any other folder gone.

        It works as another client would: UID STORE \\Deleted and UID EXPUNGE in each folder,
        then DELETE for each folder the configuration did not create (children first).
        """
        configured = {"INBOX", *SPECIAL_FOLDERS}
        with self.session() as client:
            listed = [(set(flags), str(name)) for flags, _, name in client.list_folders()]
            for flags, name in sorted(listed, key=lambda item: -item[1].count("/")):
                if not flags & {b"\\Noselect", b"\\NonExistent"}:
                    client.select_folder(name)
                    uids = client.search("ALL")
                    if uids:
                        client.delete_messages(uids)
                        client.uid_expunge(uids)
                    client.unselect_folder()
                if name not in configured:
                    client.delete_folder(name)

    def _maildir(self, folder: str) -> Path:
        maildir = self.home / "Maildir"
        if folder.upper() == "INBOX":
            return maildir
        return maildir / ("." + folder.replace("/", "."))

    def reset_uidvalidity(self, folder: str) -> None:
        """Make the server forget its UIDs for `folder` while the messages stay.

        This is what a server does after its index is lost or rebuilt (a restore from
        backup, a migration): Dovecot is stopped, the folder's `dovecot-uidlist` and
        index files are removed, and on restart (same ports) it numbers the messages
        afresh under a new UIDVALIDITY. Flags live in the maildir file names and survive.
        Works for INBOX too, which IMAP cannot delete and recreate.
        """
        maildir = self._maildir(folder)
        if not maildir.is_dir():
            raise KeyError(f"no folder {folder}")
        self.stop()
        for stale in [maildir / "dovecot-uidlist", *maildir.glob("dovecot.index*")]:
            stale.unlink(missing_ok=True)
        self.start()
