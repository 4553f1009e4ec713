"""What goes wrong in the mail connector, worded for the model or the user who reads it."""

from __future__ import annotations

from typing import Literal

from hearth import CertificateNotTrusted, ToolFailure
from hearth import spaced_fingerprint as spaced

Stage = Literal["settings", "dns", "tcp", "tls", "auth", "capability"]


class MailError(ToolFailure):
    """A mail tool could not do what was asked; the message says why."""


class BadAddress(MailError):
    """An address that cannot be read one way only (CVE-2023-27043 style): refused, not guessed."""


class MessageNotFound(MailError):
    """No message with that id is in the folder (any more)."""


class FolderNotFound(MailError):
    """The account has no folder of that name."""


class Offline(MailError):
    """The server could not be reached; reading falls back to the cache, sending waits."""


class ConnectionProblem(MailError):
    """Connecting failed; `stage` says where: dns, tcp, tls, auth or a missing capability."""

    def __init__(self, stage: Stage, message: str) -> None:
        super().__init__(message)
        self.stage = stage


class UntrustedCertificate(ConnectionProblem, CertificateNotTrusted):
    """A server's certificate was refused; trusting `fingerprint` in `setting` would pass it."""

    def __init__(self, refusal: str, setting: str, fingerprint: str) -> None:
        super().__init__("tls", f"{refusal} Its SHA-256 fingerprint is {spaced(fingerprint)}.")
        self.refusal, self.setting, self.fingerprint = refusal, setting, fingerprint
