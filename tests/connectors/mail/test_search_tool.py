"""mail.search against a real Dovecot: the cache answers what a sync covered, the server only
the rest, and the result says which answered and as of when."""

from __future__ import annotations

from datetime import datetime

import pytest

from hearth import summary_of
from hearth.connectors.evaluation.servers.dovecot import DovecotServer, message
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.errors import FolderNotFound
from tests.connectors.mail.kit import run

pytestmark = pytest.mark.server
SYNCED_AT = 1_800_000_000.0
FRESH_S = 5 * 60  # the account's sync interval, as the settings have it by default


def minute(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).isoformat(sep=" ", timespec="minutes")


@pytest.fixture
def now(connector: MailConnector) -> list[float]:
    """The account's clock; set `now[0]` to move it."""
    moment = [SYNCED_AT]
    connector.account.clock = lambda: moment[0]
    return moment


def subjects(connector: MailConnector, **arguments: object) -> tuple[list[str], object]:
    found = run(connector, "mail.search", **arguments)
    return [m.subject for m in found.messages], found


def test_a_synced_folder_is_answered_by_the_cache_alone(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    dovecot.append("INBOX", message("Invoice March", "Please pay by Friday."))
    dovecot.append("INBOX", message("Lunch", "Noodles?", sender="Carol <carol@x.example>"))
    connector.account.sync()
    dovecot.stop()  # a search that asked the server would now say it is offline
    now[0] += FRESH_S - 1
    found, result = subjects(connector, words="friday")
    assert found == ["Invoice March"]
    assert (result.source, result.as_of, result.note) == ("cache", minute(SYNCED_AT), None)
    assert subjects(connector, words="oodle", sender="CAROL")[0] == ["Lunch"]
    assert summary_of(result).endswith(f"Searched the cache, as of {minute(SYNCED_AT)}")


def test_mail_since_the_last_sync_is_asked_of_the_server_once_that_sync_is_old(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    dovecot.append("INBOX", message("Old plan", "garden"))
    connector.account.sync()
    dovecot.append("INBOX", message("New plan", "garden"))
    found, result = subjects(connector, words="garden")
    assert (found, result.source) == (["Old plan"], "cache")  # as of the sync, said so
    now[0] += FRESH_S + 1
    found, result = subjects(connector, words="garden")
    assert (found, result.source) == (["New plan", "Old plan"], "cache and server")
    assert result.as_of == minute(SYNCED_AT)
    dovecot.stop()
    found, result = subjects(connector, words="garden")
    # Offline, the cache answers what it can: New plan's body, which holds the word, it lacks.
    assert (found, result.source) == (["Old plan"], "cache")
    assert "Offline" in result.note


def test_bodies_not_indexed_yet_are_searched_on_the_server(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    dovecot.append("INBOX", message("Tickets", "Row 7, seats 3 and 4."))
    run(connector, "mail.list")  # syncs headers only; bodies wait for the background sync
    found, result = subjects(connector, words="seats")
    assert (found, result.source) == (["Tickets"], "cache and server")
    found, result = subjects(connector, words="tick")  # the subject decides it, but the
    assert (found, result.source) == (["Tickets"], "cache and server")  # body is unknown
    found, result = subjects(connector, words="", sender="bob")
    assert (found, result.source) == (["Tickets"], "cache")  # headers are enough here


def test_a_folder_never_synced_is_searched_on_the_server(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    dovecot.append("Archive", message("Receipt", "Thank you for your order."))
    found, result = subjects(connector, words="order", folder="Archive")
    assert (found, result.source, result.as_of) == (["Receipt"], "server", minute(SYNCED_AT))
    assert summary_of(result).endswith("Searched the server")
    assert subjects(connector, words="nothing like it", folder="Archive")[0] == []
    found, result = subjects(connector, words='"*"', folder="Archive")  # IMAP syntax only
    assert (found, result.source) == ([], "cache")  # no message holds it: nothing to ask


def test_a_folder_renumbered_since_the_sync_is_searched_whole(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    dovecot.append("INBOX", message("First", "kiwi"))
    connector.account.sync()
    dovecot.reset_uidvalidity("INBOX")
    dovecot.append("INBOX", message("Second", "kiwi"))
    now[0] += FRESH_S + 1
    found, result = subjects(connector, words="kiwi", folder="INBOX")
    assert (sorted(found), result.source) == (["First", "Second"], "server")
    ids = {message.id for message in result.messages}
    assert ids == {f"INBOX/{uid}" for uid in dovecot.uids("INBOX")}


def test_a_folder_deleted_since_the_sync_does_not_stop_a_search_of_all(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    with dovecot.session() as client:
        client.create_folder("Projects")
    dovecot.append("Projects", message("Plan", "kiwi"))
    dovecot.append("INBOX", message("Note", "kiwi"))
    connector.account.sync()
    with dovecot.session() as client:
        client.delete_folder("Projects")
    now[0] += FRESH_S + 1
    found, result = subjects(connector, words="kiwi")
    assert sorted(found) == ["Note", "Plan"]  # Plan as of the sync, which the card says
    assert result.source == "cache and server"
    with pytest.raises(FolderNotFound):
        run(connector, "mail.search", words="kiwi", folder="Projects")


def test_mail_hearth_moved_is_found_where_it_went_before_the_next_sync(
    dovecot: DovecotServer, connector: MailConnector, now: list[float]
) -> None:
    uid = dovecot.append("INBOX", message("Newsletter", "kiwi"))
    connector.account.sync()
    run(connector, "mail.move", messages=[f"INBOX/{uid}"], folder="Archive")
    found, result = subjects(connector, words="kiwi", folder="Archive")
    assert (found, result.source) == (["Newsletter"], "cache and server")
    assert subjects(connector, words="kiwi", folder="INBOX")[0] == []
    now[0] += 1
    connector.account.sync()
    found, result = subjects(connector, words="kiwi")
    assert (found, result.source) == (["Newsletter"], "cache")
