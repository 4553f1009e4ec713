"""First use of a mail account whose IMAP and SMTP servers have self-signed certificates of
their own: Test connection shows each fingerprint in turn, "Trust this certificate" pins it
for that server only, and the next test passes. One pin for both (the old single field) made
SMTP fail with "is not the one you trusted" once IMAP's was trusted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme
from pytestqt.qtbot import QtBot

from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.imap import presented_fingerprint
from hearth.connectors.mail.smtp import presented_smtp_fingerprint
from hearth.ui.context import UiContext
from hearth.ui.pages.connector_settings import ConnectorSettingsPanel
from tests.connectors.mail.conftest import dovecot, mail_ca, trust_mail_ca  # noqa: F401
from tests.connectors.mail.test_imap import distrust_the_test_ca
from tests.ui.conftest import save_screenshot
from tests.ui.pages.test_mail_account import (  # noqa: F401 (fixtures)
    TEST_TIMEOUT_MS,
    assistant,
    enter_test_servers,
    mail,
    page,
    panel,
    scroll_to,
)

pytestmark = pytest.mark.server


@pytest.fixture
def own_smtp(trust_mail_ca: Path) -> Iterator[SmtpServer]:  # noqa: F811
    """An SMTP server whose certificate is its own, not Dovecot's."""
    server = SmtpServer(trustme.CA(), "tls").start()
    yield server
    server.stop()


def test_each_server_is_trusted_by_its_own_fingerprint(
    qtbot: QtBot,
    panel: ConnectorSettingsPanel,  # noqa: F811
    context: UiContext,
    dovecot: DovecotServer,  # noqa: F811
    own_smtp: SmtpServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    distrust_the_test_ca(tmp_path, monkeypatch)
    imap_pin = presented_fingerprint(dovecot.host, dovecot.tls_port, "tls")
    smtp_pin = presented_smtp_fingerprint(own_smtp.host, own_smtp.port, "tls")
    assert imap_pin and smtp_pin and imap_pin != smtp_pin
    errors: list[object] = []
    context.errors.error_shown.connect(lambda *args: errors.append(args))
    enter_test_servers(panel, dovecot, own_smtp, dovecot.password)

    with qtbot.waitSignal(panel.connection_did_test, timeout=TEST_TIMEOUT_MS) as tested:
        panel.test_button.click()
    refused_for("IMAP", imap_pin, tested.args, panel)
    qtbot.wait(100)  # the page lays out the lines just shown before it can scroll to them
    scroll_to(panel, panel.trust_offer)
    save_screenshot(panel.window(), "accounts_mail_trust")

    with qtbot.waitSignal(panel.connection_did_test, timeout=TEST_TIMEOUT_MS) as tested:
        panel.trust_offer.button.click()  # pins it, then tests again
    assert panel.form.inputs["imap_trusted_certificate"].value() == imap_pin
    # Trusting IMAP's certificate pins IMAP only: SMTP is refused for its own certificate,
    # and is offered its own pin, not told IMAP's "is not the one you trusted".
    assert not panel.form.inputs["smtp_trusted_certificate"].value()
    refused_for("SMTP", smtp_pin, tested.args, panel)

    with qtbot.waitSignal(panel.connection_did_test, timeout=TEST_TIMEOUT_MS) as tested:
        panel.trust_offer.button.click()
    assert panel.form.inputs["smtp_trusted_certificate"].value() == smtp_pin
    assert tested.args[0] is True, tested.args[1]
    assert tested.args[1].startswith("Connected: IMAP")
    assert not panel.trust_offer.isVisible()
    assert errors == []  # the panel said it all; no dialog on top


def refused_for(
    protocol: str,
    pin: str,
    said: list[object],
    panel: ConnectorSettingsPanel,  # noqa: F811
) -> None:
    succeeded, message = said
    assert succeeded is False
    assert isinstance(message, str) and message.startswith(f"{protocol} (")
    assert "authority this computer does not trust" in message
    spaced = ":".join(pin[i : i + 2] for i in range(0, 64, 2)).upper()
    assert f"Its SHA-256 fingerprint is {spaced}." in message
    offer = panel.trust_offer
    assert offer.isVisible()
    assert offer.fingerprint.text() == f"{spaced[:47]}\n{spaced[48:]}"
    assert panel.status.text().endswith("fingerprint in the settings.")  # shown under it
