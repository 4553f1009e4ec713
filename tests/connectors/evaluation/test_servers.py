"""The evaluation servers' resets between scenarios, each checked on the real server."""

from __future__ import annotations

import smtplib
import ssl
from pathlib import Path

import caldav
import pytest
import trustme

from hearth.connectors.evaluation.servers import ServerUnavailable, dovecot_config
from hearth.connectors.evaluation.servers import dovecot as dovecot_module
from hearth.connectors.evaluation.servers.dovecot import ADDRESS, DovecotServer, message
from hearth.connectors.evaluation.servers.radicale import (
    OTHER_PASSWORD,
    OTHER_USER,
    PASSWORD,
    USER,
    RadicaleServer,
)
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from tests.connectors.calendar.conftest import radicale  # noqa: F401 (fixture)
from tests.connectors.calendar.kit import event_ics
from tests.connectors.mail.conftest import dovecot, mail_ca, smtp_server, trust_mail_ca  # noqa: F401
from tests.connectors.servers import server_required

pytestmark = pytest.mark.server

CONFIGURED = {"INBOX", *dovecot_config.SPECIAL_FOLDERS}


def folders(server: DovecotServer) -> set[str]:
    with server.session() as client:
        return {str(name) for _, _, name in client.list_folders()}


def test_empty_all_empties_every_folder_and_removes_the_ones_a_scenario_added(
    dovecot: DovecotServer,  # noqa: F811
) -> None:
    for folder in CONFIGURED:
        dovecot.append(folder, message(f"In {folder}"), flags=["\\Seen"])
    with dovecot.session() as client:
        client.create_folder("Receipts")
        client.create_folder("Receipts/2026")
    dovecot.append("Receipts/2026", message("Invoice"))
    dovecot.append("INBOX", message("Flagged"), flags=["\\Flagged"])
    dovecot.append("INBOX", message("Already deleted"), flags=["\\Deleted"])

    dovecot.empty_all()

    assert folders(dovecot) == CONFIGURED
    for folder in CONFIGURED:
        assert dovecot.uids(folder) == [], folder
    uid = dovecot.append("INBOX", message("After the reset"))
    assert dovecot.uids("INBOX") == [uid]
    dovecot.empty_all()  # nothing left to delete is fine too
    assert dovecot.uids("INBOX") == []


def _send(server: SmtpServer, subject: str) -> bytes:
    raw = message(subject, to="carol@example.net", sender=ADDRESS)
    context = ssl.create_default_context()
    with smtplib.SMTP_SSL("localhost", server.port, context=context, timeout=10) as smtp:
        smtp.login(server.user, server.password)
        smtp.sendmail(ADDRESS, ["carol@example.net"], raw)
    return raw


def test_take_all_returns_what_was_received_in_order_and_forgets_it(
    smtp_server: SmtpServer,  # noqa: F811
) -> None:
    assert smtp_server.take_all() == []
    first, second = _send(smtp_server, "One"), _send(smtp_server, "Two")

    assert [got.data for got in smtp_server.take_all()] == [first, second]
    assert smtp_server.received == []
    assert smtp_server.take_all() == []
    third = _send(smtp_server, "Three")
    assert [got.data for got in smtp_server.take_all()] == [third]


def _principal(server: RadicaleServer, user: str, password: str) -> caldav.Principal:
    return caldav.DAVClient(url=server.url, username=user, password=password).principal()


def test_empty_deletes_every_calendar_of_one_user_and_no_one_elses(
    radicale: RadicaleServer,  # noqa: F811
) -> None:
    alice = _principal(radicale, USER, PASSWORD)
    for name in ("Work", "Personal"):
        calendar = alice.make_calendar(name=name)
        calendar.save_event(event_ics(f"{name}-1", "Meeting", "20261201T100000", "20261201T110000"))
    bob = _principal(radicale, OTHER_USER, OTHER_PASSWORD)
    bob.make_calendar(name="Bob's")

    assert radicale.empty(USER) == 2

    assert _principal(radicale, USER, PASSWORD).calendars() == []
    [kept] = _principal(radicale, OTHER_USER, OTHER_PASSWORD).calendars()
    assert kept.get_display_name() == "Bob's"
    assert radicale.empty(USER) == 0
    _principal(radicale, USER, PASSWORD).make_calendar(name="Work")
    [work] = _principal(radicale, USER, PASSWORD).calendars()
    assert work.get_display_name() == "Work" and work.events() == []


def test_a_missing_dovecot_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dovecot_module, "DOVECOT", tmp_path / "no-dovecot-here")
    with pytest.raises(
        ServerUnavailable, match=r"install it with `sudo apt install dovecot-imapd`"
    ):
        DovecotServer(tmp_path / "dovecot", trustme.CA())


def test_an_unavailable_server_is_a_skip_here_and_a_failure_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="install radicale"), server_required():
        raise ServerUnavailable("Radicale is missing: install radicale.")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="install radicale"), server_required():
        raise ServerUnavailable("Radicale is missing: install radicale.")
