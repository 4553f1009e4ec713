"""TLS for IMAP and SMTP: the system's trust store, or one certificate the user pinned.

There is no insecure fallback. A self-signed server works only after the user copies its
SHA-256 fingerprint into the settings; the pin is checked right after the handshake, before
any password is sent, and any other certificate is refused.
"""

from __future__ import annotations

import hashlib
import ssl

from hearth import spaced_fingerprint as spaced
from hearth.connectors.mail.errors import ConnectionProblem

_WHY = {
    10: "it has expired",
    9: "it is not valid yet",
    18: "it is self-signed",
    19: "it is signed by an authority this computer does not trust",
    20: "it is signed by an authority this computer does not trust",
    21: "its chain of signatures is incomplete",
    62: "it was issued for another name",
}


def client_context(pinned: str = "") -> ssl.SSLContext:
    """A context that verifies against the system store, or (pinned) defers to `check_pin`."""
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if pinned:
        # Verified by fingerprint in `check_pin` before anything is sent, never skipped.
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def fingerprint(certificate: bytes) -> str:
    """The SHA-256 fingerprint of a DER certificate, as 64 lower-case hex digits."""
    return hashlib.sha256(certificate).hexdigest()


def check_pin(sock: object, pinned: str, host: str) -> None:
    """Refuse the connection unless the peer's certificate is the pinned one (if any)."""
    if not pinned:
        return
    certificate = sock.getpeercert(binary_form=True) if isinstance(sock, ssl.SSLSocket) else None
    if not certificate:
        raise ConnectionProblem("tls", f"{host} sent no certificate, so it cannot be trusted")
    found = fingerprint(certificate)
    if found != pinned:
        raise ConnectionProblem(
            "tls",
            f"the certificate of {host} ({spaced(found)}) is not the one you trusted "
            f"({spaced(pinned)}); no password was sent. If the server really changed its "
            "certificate, trust the new fingerprint in the settings.",
        )


def tls_problem(error: ssl.SSLError, host: str) -> ConnectionProblem:
    """A TLS failure worded for the user: which check failed and what they can do."""
    if isinstance(error, ssl.SSLCertVerificationError):
        why = _WHY.get(error.verify_code, error.verify_message or "it could not be verified")
        return ConnectionProblem(
            "tls",
            f"the certificate of {host} was refused: {why}. Hearth never connects insecurely; "
            "if this is your own server, trust its certificate by its SHA-256 fingerprint in "
            "the settings.",
        )
    reason = error.reason or str(error)
    return ConnectionProblem("tls", f"TLS with {host} failed: {reason}")
