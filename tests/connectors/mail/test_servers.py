"""The mail test servers themselves: TLS trust, logins, folders, helpers and SMTP behaviour."""

from __future__ import annotations

import base64
import smtplib
import socket
import ssl
from pathlib import Path

import imapclient
import pytest
import trustme
from imapclient.exceptions import LoginError

from hearth.connectors.evaluation.servers.dovecot import (
    ADDRESS,
    PASSWORD,
    USER,
    DovecotServer,
    message,
)
from hearth.connectors.evaluation.servers.smtp import SmtpServer


def test_imaps_trusts_only_the_test_ca_and_checks_the_host_name(dovecot: DovecotServer) -> None:
    with imapclient.IMAPClient(
        "localhost", port=dovecot.tls_port, ssl_context=ssl.create_default_context()
    ) as client:
        client.login(USER, PASSWORD)
        capabilities = client.capabilities()
    assert {b"MOVE", b"UIDPLUS", b"SPECIAL-USE", b"IDLE"} <= set(capabilities)

    context = ssl.create_default_context()
    with (
        socket.create_connection((dovecot.host, dovecot.tls_port)) as raw,
        pytest.raises(ssl.SSLCertVerificationError) as refused,
    ):
        context.wrap_socket(raw, server_hostname="mail.example.net")
    assert refused.value.verify_code == 62  # issued for another name


def test_a_client_that_does_not_trust_the_ca_is_refused(
    dovecot: DovecotServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other))
    monkeypatch.setenv("SSL_CERT_FILE", str(other))
    with pytest.raises(ssl.SSLCertVerificationError) as refused:
        imapclient.IMAPClient(
            dovecot.host, port=dovecot.tls_port, ssl_context=ssl.create_default_context()
        )
    assert refused.value.verify_code in (19, 20)


def test_starttls_login_works_and_plaintext_login_is_refused(dovecot: DovecotServer) -> None:
    with imapclient.IMAPClient(dovecot.strict_host, port=dovecot.starttls_port, ssl=False) as plain:
        assert b"LOGINDISABLED" in plain.capabilities()
        with pytest.raises(LoginError):
            plain.login(USER, PASSWORD)

    with imapclient.IMAPClient(dovecot.host, port=dovecot.starttls_port, ssl=False) as client:
        client.starttls(ssl.create_default_context())
        client.login(USER, PASSWORD)
        assert client.select_folder("INBOX")[b"EXISTS"] == 0


def test_special_use_folders_exist_and_are_subscribed(dovecot: DovecotServer) -> None:
    with dovecot.session() as client:
        uses = {name: set(flags) for flags, _, name in client.list_folders()}
        subscribed = {name for _, _, name in client.list_sub_folders()}
    assert uses["Sent"] >= {b"\\Sent"}
    assert uses["Drafts"] >= {b"\\Drafts"}
    assert uses["Trash"] >= {b"\\Trash"}
    assert uses["Archive"] >= {b"\\Archive"}
    assert uses["Junk"] >= {b"\\Junk"}
    assert {"INBOX", "Sent", "Drafts", "Trash", "Archive", "Junk"} <= subscribed


def test_append_uids_flags_and_fetch_raw_round_trip(dovecot: DovecotServer) -> None:
    raw = message("Lunch?", "Noon at the usual place.", In_Reply_To="<x@example.com>")
    first = dovecot.append("INBOX", raw, flags=["\\Seen", "$Important"])
    second = dovecot.append("INBOX", message("Second"))
    assert second > first
    assert dovecot.uids("INBOX") == [first, second]
    assert set(dovecot.flags("INBOX", first)) == {"\\Seen", "$Important"}
    assert dovecot.flags("INBOX", second) == ()
    assert dovecot.fetch_raw("INBOX", first) == raw
    assert b"In-Reply-To: <x@example.com>\r\n" in raw
    assert f"To: {ADDRESS}\r\n".encode() in raw
    assert dovecot.flags("INBOX", second) == ()  # fetch_raw peeks; nothing marked read


def test_reset_uidvalidity_renumbers_and_keeps_the_messages(dovecot: DovecotServer) -> None:
    for folder in ("INBOX", "Archive"):
        kept = dovecot.append(folder, message(f"Kept in {folder}"), flags=["\\Flagged"])
        before = dovecot.uidvalidity(folder)
        dovecot.reset_uidvalidity(folder)
        assert dovecot.uidvalidity(folder) != before
        [uid] = dovecot.uids(folder)
        assert f"Kept in {folder}".encode() in dovecot.fetch_raw(folder, uid)
        assert "\\Flagged" in dovecot.flags(folder, uid)
        assert kept >= 1


def _auth_plain(user: str, password: str) -> str:
    return base64.b64encode(f"\0{user}\0{password}".encode()).decode()


def test_smtp_over_implicit_tls_needs_auth_and_records_mail(smtp_server: SmtpServer) -> None:
    raw = message("Hi", to="carol@example.net", sender=ADDRESS)
    context = ssl.create_default_context()
    with smtplib.SMTP_SSL("localhost", smtp_server.port, context=context, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            smtp.sendmail(ADDRESS, ["carol@example.net"], raw)
        assert refused.value.smtp_code == 530
        with pytest.raises(smtplib.SMTPAuthenticationError) as wrong:
            smtp.login(USER, "wrong")
        assert wrong.value.smtp_code == 535
        smtp.login(USER, PASSWORD)
        smtp.sendmail(ADDRESS, ["carol@example.net"], raw)
    [got] = smtp_server.received
    assert (got.mail_from, got.rcpt_tos, got.data) == (ADDRESS, ["carol@example.net"], raw)
    assert smtp_server.auth_attempts == 3  # smtplib tries PLAIN, then LOGIN, with "wrong"


def test_smtp_starttls_allows_auth_only_after_tls(smtp_starttls: SmtpServer) -> None:
    raw = message("Hi", to="carol@example.net", sender=ADDRESS)
    with smtplib.SMTP("localhost", smtp_starttls.port, timeout=10) as smtp:
        smtp.ehlo()
        assert not smtp.has_extn("auth")
        code, _ = smtp.docmd("AUTH", f"PLAIN {_auth_plain(USER, PASSWORD)}")
        assert code == 530
        smtp.starttls(context=ssl.create_default_context())
        smtp.login(USER, PASSWORD)
        smtp.sendmail(ADDRESS, ["carol@example.net"], raw)
    assert [got.data for got in smtp_starttls.received] == [raw]


@pytest.mark.parametrize("mode", ["tls", "starttls"])
def test_drop_after_data_records_the_mail_but_the_client_sees_a_disconnect(
    mode: str, request: pytest.FixtureRequest
) -> None:
    server: SmtpServer = request.getfixturevalue(
        "smtp_server" if mode == "tls" else "smtp_starttls"
    )
    server.drop_after_data = True
    raw = message("Did it go?", to="carol@example.net", sender=ADDRESS)
    context = ssl.create_default_context()
    if mode == "tls":
        smtp: smtplib.SMTP = smtplib.SMTP_SSL("localhost", server.port, context=context, timeout=10)
    else:
        smtp = smtplib.SMTP("localhost", server.port, timeout=10)
        smtp.starttls(context=context)
    smtp.login(USER, PASSWORD)
    smtp.mail(ADDRESS)
    smtp.rcpt("carol@example.net")
    with pytest.raises(smtplib.SMTPServerDisconnected):
        smtp.data(raw)
    smtp.close()
    assert [got.data for got in server.received] == [raw]
