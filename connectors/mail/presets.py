"""Server settings of the common providers, picked by the address's domain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Security = Literal["tls", "starttls"]


@dataclass(frozen=True)
class Preset:
    """How to reach one provider; `files_sent` means its SMTP server files a Sent copy itself."""

    imap_host: str
    smtp_host: str
    imap_port: int = 993
    imap_security: Security = "tls"
    smtp_port: int = 465
    smtp_security: Security = "tls"
    files_sent: bool = False


_GMAIL = Preset("imap.gmail.com", "smtp.gmail.com", files_sent=True)
_OUTLOOK = Preset(
    "outlook.office365.com",
    "smtp.office365.com",
    smtp_port=587,
    smtp_security="starttls",
    files_sent=True,
)
_ICLOUD = Preset("imap.mail.me.com", "smtp.mail.me.com", smtp_port=587, smtp_security="starttls")
_YAHOO = Preset("imap.mail.yahoo.com", "smtp.mail.yahoo.com")
_FASTMAIL = Preset("imap.fastmail.com", "smtp.fastmail.com")

PRESETS: dict[str, Preset] = {
    "gmail.com": _GMAIL,
    "googlemail.com": _GMAIL,
    "outlook.com": _OUTLOOK,
    "hotmail.com": _OUTLOOK,
    "live.com": _OUTLOOK,
    "icloud.com": _ICLOUD,
    "me.com": _ICLOUD,
    "mac.com": _ICLOUD,
    "yahoo.com": _YAHOO,
    "fastmail.com": _FASTMAIL,
    "fastmail.fm": _FASTMAIL,
    "gmx.de": Preset("imap.gmx.net", "mail.gmx.net", smtp_port=587, smtp_security="starttls"),
    "gmx.net": Preset("imap.gmx.net", "mail.gmx.net", smtp_port=587, smtp_security="starttls"),
    "web.de": Preset("imap.web.de", "smtp.web.de", smtp_port=587, smtp_security="starttls"),
    "posteo.de": Preset("posteo.de", "posteo.de"),
    "proton.me": Preset(
        "127.0.0.1",
        "127.0.0.1",
        imap_port=1143,
        imap_security="starttls",
        smtp_port=1025,
        smtp_security="starttls",
    ),
}


def preset_for(address: str) -> Preset | None:
    """The preset for an address's provider; None for a domain Hearth does not know."""
    return PRESETS.get(address.rpartition("@")[2].strip().lower())
