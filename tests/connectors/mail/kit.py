"""Helpers for the mail connector tests: an account on the test servers, the plugin wrapper."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from hearth import Connector, SettingsStore, hookimpl
from hearth.connectors.evaluation.servers.dovecot import ADDRESS, PASSWORD, USER, DovecotServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.account import NAME, MailAccount
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.settings import MailSettings


class MailPlugin:
    def __init__(self, connector: MailConnector) -> None:
        self.connector = connector

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(self.connector)


def account_settings(dovecot: DovecotServer, smtp: SmtpServer, **changes: object) -> MailSettings:
    """Ann's account on the test servers, both over implicit TLS."""
    settings = MailSettings(
        address=ADDRESS,
        display_name="Ann",
        username=USER,
        password=SecretStr(PASSWORD),
        imap_host=dovecot.host,
        imap_port=dovecot.tls_port,
        imap_security="tls",
        smtp_host=smtp.host,
        smtp_port=smtp.port,
        smtp_security=smtp.mode,
    )
    return settings.model_copy(update=changes)


def open_account(
    folder: Path, dovecot: DovecotServer, smtp: SmtpServer, **changes: object
) -> MailAccount:
    store = SettingsStore(folder / "connectors")
    store.save(NAME, account_settings(dovecot, smtp, **changes))
    return MailAccount(store, folder / "mail")


def run(connector: MailConnector, name: str, **arguments: object) -> Any:
    """Call the tool `name` (e.g. "mail.list") as the agent would, arguments validated."""
    [found] = [tool for tool in connector.tools if tool.name == name]
    return found.invoke(arguments)
