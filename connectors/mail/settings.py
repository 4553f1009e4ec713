"""The mail account's settings: the address, IMAP and SMTP servers, a pinned certificate."""

from __future__ import annotations

import re
from typing import Literal

import pydantic

from hearth import read_fingerprint
from hearth.connectors.mail.presets import Security, preset_for

Choice = Literal["auto", "tls", "starttls"]


class MailSettings(pydantic.BaseModel):
    """Saved by the Accounts page and `hearth mail`; the password is kept by `hearth.secrets`.

    Empty server fields take the provider's preset for the address (Gmail, Outlook, iCloud,
    Fastmail, Yahoo, GMX, web.de, Posteo, Proton Bridge).
    """

    address: str = pydantic.Field(default="", title="Email address")
    display_name: str = pydantic.Field(default="", title="Your name")
    username: str = pydantic.Field(
        default="", title="User name", description="Empty means the email address."
    )
    password: pydantic.SecretStr | None = pydantic.Field(
        default=None,
        title="Password",
        description="Use an app password where your provider offers one. Kept in the "
        "keyring (or Hearth's password store), never in a settings file.",
    )
    imap_host: str = pydantic.Field(default="", title="IMAP server")
    imap_port: int = pydantic.Field(
        default=0, ge=0, le=65535, title="IMAP port", description="0 means the usual port."
    )
    imap_security: Choice = pydantic.Field(
        default="auto",
        title="IMAP security",
        description="tls: encrypted from the start (port 993); starttls: upgraded (port 143); "
        "auto: the provider's preset, else tls. Never unencrypted.",
    )
    smtp_host: str = pydantic.Field(default="", title="SMTP server")
    smtp_port: int = pydantic.Field(
        default=0, ge=0, le=65535, title="SMTP port", description="0 means the usual port."
    )
    smtp_security: Choice = pydantic.Field(
        default="auto",
        title="SMTP security",
        description="tls: port 465; starttls: port 587; auto: the provider's preset, else tls.",
    )
    server_files_sent: Literal["auto", "yes", "no"] = pydantic.Field(
        default="auto",
        title="Server files sent mail",
        description="Whether the SMTP server puts a copy in Sent itself (Gmail and Outlook "
        "do); auto: the provider's preset, else no, and Hearth files the copy.",
    )
    imap_trusted_certificate: str = pydantic.Field(
        default="",
        title="IMAP trusted certificate (SHA-256)",
        description="Only for an IMAP server with a self-signed certificate: its SHA-256 "
        "fingerprint, which 'Test connection' shows. Any other certificate is refused.",
    )
    smtp_trusted_certificate: str = pydantic.Field(
        default="",
        title="SMTP trusted certificate (SHA-256)",
        description="The same for the SMTP server, which often has a certificate of its own.",
    )
    sync_minutes: int = pydantic.Field(default=5, ge=1, le=1440, title="Check every (minutes)")

    @pydantic.field_validator("address")
    @classmethod
    def _plain_address(cls, address: str) -> str:
        address = address.strip()
        if address and not re.fullmatch(
            r"[^@\s<>\"(),;]+@[^@\s<>\"(),;]+\.[^@\s<>\"(),;]+", address
        ):
            raise ValueError(f"{address!r} is not a plain email address like ann@example.org")
        return address

    @pydantic.model_validator(mode="before")
    @classmethod
    def _one_pin_for_both(cls, data: object) -> object:
        # Settings saved before each server had its own pin had one for both.
        if isinstance(data, dict) and "trusted_certificate" in data:
            data = dict(data)
            pinned = data.pop("trusted_certificate")
            data.setdefault("imap_trusted_certificate", pinned)
            data.setdefault("smtp_trusted_certificate", pinned)
        return data

    @pydantic.field_validator("imap_trusted_certificate", "smtp_trusted_certificate")
    @classmethod
    def _fingerprint(cls, value: str) -> str:
        return read_fingerprint(value)

    @property
    def login(self) -> str:
        return self.username or self.address

    def imap(self) -> tuple[str, int, Security]:
        """Host, port and security for IMAP, the preset filling what is left empty."""
        preset = preset_for(self.address)
        host = self.imap_host or (preset.imap_host if preset else "")
        security = _security(self.imap_security, preset.imap_security if preset else None)
        port = self.imap_port or (preset.imap_port if preset else _port(security, 993, 143))
        return host, port, security

    def smtp(self) -> tuple[str, int, Security]:
        """Host, port and security for SMTP, the preset filling what is left empty."""
        preset = preset_for(self.address)
        host = self.smtp_host or (preset.smtp_host if preset else "")
        security = _security(self.smtp_security, preset.smtp_security if preset else None)
        port = self.smtp_port or (preset.smtp_port if preset else _port(security, 465, 587))
        return host, port, security

    def files_sent(self) -> bool:
        if self.server_files_sent != "auto":
            return self.server_files_sent == "yes"
        preset = preset_for(self.address)
        return bool(preset and preset.files_sent)


def _security(chosen: Choice, preset: Security | None) -> Security:
    if chosen != "auto":
        return chosen
    return preset or "tls"


def _port(security: Security, implicit: int, starttls: int) -> int:
    return implicit if security == "tls" else starttls
