"""`hearth mail`: connect an account, test it, sync, list, and settle the outbox."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import click
import pydantic

from hearth import (
    HearthError,
    ask_password_option,
    ask_secret,
    keep_password,
    read_fingerprint,
    shown,
)
from hearth import spaced_fingerprint as spaced
from hearth.connectors.mail import sending
from hearth.connectors.mail.account import NAME, MailAccount
from hearth.connectors.mail.ids import message_id
from hearth.connectors.mail.settings import MailSettings
from hearth.connectors.mail.status import summary

SECURITY = ("auto", "tls", "starttls")


def mail_commands(account: MailAccount) -> click.Group:
    """`hearth mail` working on `account`."""
    return click.Group(
        "mail",
        commands=[connect, test, sync, list_messages, outbox, status],
        help="Your mail account, its sync and its outbox.",
        context_settings={"obj": account},
        params=[
            ask_password_option(
                "Mail password",
                "the mail password",
                partial(account.settings_store.ask_when_needed, NAME, "password"),
            )
        ],
    )


@click.command()
@click.option("--address", prompt="Email address")
@click.option("--name", "display_name", default="", help="Your name as recipients see it.")
@click.option("--imap", default="", metavar="HOST[:PORT]", help="When there is no preset.")
@click.option("--smtp", default="", metavar="HOST[:PORT]", help="When there is no preset.")
@click.option("--imap-security", type=click.Choice(SECURITY), default="auto", show_default=True)
@click.option("--smtp-security", type=click.Choice(SECURITY), default="auto", show_default=True)
@click.option("--username", default="", help="Login name, when it is not the address.")
@click.option(
    "--trust",
    multiple=True,
    metavar="FINGERPRINT",
    help="Trust the self-signed certificate with this SHA-256 fingerprint, which a failed "
    "connect shows, for whichever server (IMAP or SMTP) presents it; give it twice for two.",
)
@click.pass_obj
def connect(
    account: MailAccount,
    address: str,
    display_name: str,
    imap: str,
    smtp: str,
    imap_security: str,
    smtp_security: str,
    username: str,
    trust: tuple[str, ...],
) -> None:
    """Set up the mail account and test it; the password goes to the system keyring, or
    Hearth's own password store where there is none."""
    password = ask_secret("Password (an app password is best)", "the mail password")
    (imap_host, imap_port), (smtp_host, smtp_port) = _server(imap), _server(smtp)
    try:
        settings = MailSettings.model_validate(
            {
                "address": address,
                "display_name": display_name,
                "username": username,
                "password": password,
                "imap_host": imap_host,
                "imap_port": imap_port,
                "imap_security": imap_security,
                "smtp_host": smtp_host,
                "smtp_port": smtp_port,
                "smtp_security": smtp_security,
            }
        )
    except pydantic.ValidationError as error:
        raise click.UsageError(str(error.errors()[0]["msg"])) from None
    settings = settings.model_copy(update=_pins(trust, settings))

    def hold() -> None:
        account.save(settings.model_copy(update={"password": None}))
        account.use_password_for_session(password)

    click.echo(keep_password(lambda: account.save(settings), hold))
    _run(lambda: click.echo(shown(_check(account))))


@click.command()
@click.pass_obj
def test(account: MailAccount) -> None:
    """Log in to IMAP and SMTP and say what works (or which step failed)."""
    _run(lambda: click.echo(shown(_check(account))))


@click.command()
@click.pass_obj
def sync(account: MailAccount) -> None:
    """Bring the local cache up to date with the server."""

    def work() -> None:
        for report in account.sync():
            reset = " (the server renumbered it: cache rebuilt)" if report.reset else ""
            click.echo(f"{shown(report.folder)}: {report.added} new, {report.removed} gone{reset}")

    _run(work)


@click.command("list")
@click.argument("folder", default="INBOX")
@click.option("--limit", default=20, show_default=True)
@click.pass_obj
def list_messages(account: MailAccount, folder: str, limit: int) -> None:
    """List the newest messages of FOLDER from the cache (run `sync` first for fresh ones)."""
    # The folder, sender and subject are the mail's and the server's: each is shown.
    for envelope in account.cache.envelopes(folder, limit=limit):
        when = envelope.date.strftime("%Y-%m-%d %H:%M") if envelope.date else ""
        mark = "*" if envelope.unread else " "
        click.echo(
            f"{mark} {shown(message_id(folder, envelope.uid)):<14} {when}  "
            f"{shown(str(envelope.sender or '?'))}: {shown(envelope.subject)}"
        )


@click.command()
@click.pass_obj
def status(account: MailAccount) -> None:
    """One line on the account: last check, messages waiting or unsure."""
    line = summary(account, time.time())  # it holds the server's last error
    click.echo(shown(line) if line else "No mail account is set up.")


@click.group(invoke_without_command=True)
@click.pass_context
def outbox(context: click.Context) -> None:
    """Messages waiting to be sent, and sends whose outcome is unknown."""
    if context.invoked_subcommand is None:
        account: MailAccount = context.obj
        entries = account.outbox.entries(states=("queued", "unknown", "failed", "sent"))
        if not entries:
            click.echo("The outbox is empty.")
        for entry in entries:
            click.echo(
                f"{entry.state:<8} {shown(entry.message_id)}  to "
                f"{shown(', '.join(entry.recipients))}"
                f"{'  — ' + shown(entry.detail) if entry.detail else ''}"
            )


@outbox.command("send")
@click.argument("message_id")
@click.pass_obj
def outbox_send(account: MailAccount, message_id: str) -> None:
    """Send a waiting (queued) message now: you confirm it by running this."""
    _run(lambda: click.echo(shown(sending.send_queued(account, message_id).note or "Sent.")))


@outbox.command("check")
@click.pass_obj
def outbox_check(account: MailAccount) -> None:
    """Look for every unknown send in Sent by its Message-ID."""

    def work() -> None:
        for entry in account.outbox.entries(states=("unknown",)):
            found = sending.reconcile(account, entry.message_id)
            click.echo(
                f"{shown(entry.message_id)}: "
                + (
                    "found in Sent: it was sent."
                    if found
                    else "not in Sent. If you know it arrived, run "
                    "`hearth mail outbox mark-sent ID`; to send it again, "
                    "`hearth mail outbox resend ID`."
                )
            )

    _run(work)


@outbox.command("mark-sent")
@click.argument("message_id")
@click.pass_obj
def outbox_mark_sent(account: MailAccount, message_id: str) -> None:
    """Say an unknown message did go out; it is never sent again."""
    _run(lambda: sending.mark_sent(account, message_id))


@outbox.command("resend")
@click.argument("message_id")
@click.pass_obj
def outbox_resend(account: MailAccount, message_id: str) -> None:
    """Send an unknown message again, after you checked it did not arrive."""
    _run(lambda: click.echo(shown(sending.resend(account, message_id).note or "Sent.")))


@outbox.command("discard")
@click.argument("message_id")
@click.pass_obj
def outbox_discard(account: MailAccount, message_id: str) -> None:
    """Drop a waiting, failed or unknown message from the outbox without sending it."""
    _run(lambda: account.outbox.mark(message_id, "discarded", "discarded by the user"))


def _pins(trust: tuple[str, ...], settings: MailSettings) -> dict[str, str]:
    """The settings that pin each fingerprint given to the server that presents it."""
    if not trust:
        return {}
    from hearth.connectors.mail.check import PIN_SETTING, Protocol, presented

    shows: dict[Protocol, str | None] = {
        "IMAP": presented("IMAP", settings.imap()),
        "SMTP": presented("SMTP", settings.smtp()),
    }
    pins = {}
    for given in trust:
        try:
            wanted = read_fingerprint(given)
        except ValueError as error:
            raise click.UsageError(f"--trust {given}: {error}") from None
        matching = [protocol for protocol, found in shows.items() if found == wanted]
        if not matching:
            presented_now = "; ".join(
                f"{protocol} presents {spaced(found) if found else 'no readable certificate'}"
                for protocol, found in shows.items()
            )
            raise click.UsageError(f"No server presents {spaced(wanted)}: {presented_now}.")
        pins.update({PIN_SETTING[protocol]: wanted for protocol in matching})
    return pins


def _server(value: str) -> tuple[str, int]:
    host, colon, port = value.strip().rpartition(":")
    if colon and port.isdigit():
        return host, int(port)
    return value.strip(), 0


def _check(account: MailAccount) -> str:
    from hearth.connectors.mail.check import check_connection

    settings = account.settings()
    password = settings.password.get_secret_value() if settings.password else ""
    return check_connection(settings, password)


def _run(work: Callable[[], object]) -> None:
    try:
        work()
    except HearthError as error:  # often a server's words
        raise click.ClickException(shown(str(error))) from None
