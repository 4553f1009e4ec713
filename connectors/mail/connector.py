"""The mail connector: an IMAP and SMTP account, its tools, `hearth mail`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import click

from hearth import Connector, ConnectorAction
from hearth.connectors.mail.account import NAME, MailAccount
from hearth.connectors.mail.address_words import refused_recipient
from hearth.connectors.mail.addresses import parse_recipients
from hearth.connectors.mail.errors import BadAddress
from hearth.connectors.mail.outbox_actions import outbox_actions
from hearth.connectors.mail.reading import ReadingTools
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.status import summary
from hearth.connectors.mail.writing import WritingTools


class MailConnector(ReadingTools, WritingTools, Connector):
    """Read, search and send mail; everything read from mail is untrusted."""

    name = NAME
    title = "Mail"
    description = "Your mail over IMAP and SMTP, readable offline; sends only with your consent."
    keywords = (
        "mail",
        "email",
        "emails",
        "inbox",
        "message",
        "messages",
        "unread",
        "reply",
        "send",
        "forward",
        "sender",
        "subject",
    )
    settings = MailSettings
    scope_kind = "recipient"

    def __init__(self, account: MailAccount | None = None) -> None:
        super().__init__()
        self.account = account or MailAccount()

    def canonical_resource(self, recipient: str) -> str:
        """One recipient as the message will carry it, read by the address parser that sends;
        one it refuses is put to the user to correct, in plain words."""
        try:
            return str(parse_recipients([recipient])[0])
        except BadAddress as error:
            raise refused_recipient(recipient, error) from None

    def test_connection(self, settings: MailSettings) -> str:
        """Log in to IMAP and SMTP; raises saying what failed (dns, tcp, tls, auth, ...)."""
        from hearth.connectors.mail.check import check_connection

        password = settings.password.get_secret_value() if settings.password else ""
        return check_connection(settings, password)

    def actions(self) -> Sequence[ConnectorAction]:
        return outbox_actions(self.account)

    def settings_saved(self) -> None:
        self.account.sync_soon()

    def status_line(self) -> str | None:
        return summary(self.account, time.time())

    def commands(self) -> Iterable[click.Command]:
        # Here, not at the top: only `hearth mail` needs it, never the window or a turn.
        from hearth.connectors.mail.cli import mail_commands

        return [mail_commands(self.account)]

    def start(self) -> None:
        self.account.start()

    def stop(self) -> None:
        self.account.stop()
