"""A CalDAV server with a self-signed certificate: refused with its fingerprint shown, then
used once that fingerprint is trusted, by `check_connection`, the source that syncs, and
`hearth calendar connect --trust`. A different certificate is refused before any login."""

from __future__ import annotations

import hashlib
import ssl
from pathlib import Path

import caldav
import pytest
from click.testing import CliRunner

from hearth import spaced_fingerprint
from hearth.cli.main import cli
from hearth.connectors.calendar.caldav_source import CalDavSource
from hearth.connectors.calendar.discovery import check_connection, presented_fingerprint
from hearth.connectors.calendar.errors import (
    CalendarError,
    ConnectionProblem,
    UntrustedCertificate,
)
from hearth.connectors.evaluation.servers.radicale import PASSWORD, USER, RadicaleServer
from hearth.secrets import SystemKeyring
from hearth.settings.model import SettingsStore
from tests.connectors.calendar.test_discovery import tls_radicale  # noqa: F401 (fixture)

pytestmark = pytest.mark.server
WRONG = "ab" * 32


@pytest.fixture
def served(tls_radicale: RadicaleServer) -> tuple[str, str]:  # noqa: F811
    """The server's https address, with a Work calendar, and its certificate's fingerprint."""
    url = f"https://127.0.0.1:{tls_radicale.port}/"
    pem = ssl.get_server_certificate(("127.0.0.1", tls_radicale.port))
    pin = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest()
    # The test's own client, to set the server up: not Hearth, which never skips the check.
    client = caldav.DAVClient(url=url, username=USER, password=PASSWORD, ssl_verify_cert=False)
    client.principal().make_calendar(name="Work")
    return url, pin


def test_an_untrusted_certificate_comes_with_its_fingerprint(served: tuple[str, str]) -> None:
    url, pin = served
    assert presented_fingerprint("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))) == pin
    with pytest.raises(UntrustedCertificate) as refused:
        check_connection(url, USER, PASSWORD, timeout_s=5)
    assert refused.value.stage == "tls" and refused.value.fingerprint == pin
    assert refused.value.setting == "trusted_certificate"
    assert str(refused.value).endswith(f"Its SHA-256 fingerprint is {spaced_fingerprint(pin)}.")


def test_the_trusted_certificate_is_used_and_no_other(served: tuple[str, str]) -> None:
    url, pin = served
    assert [c.name for c in check_connection(url, USER, PASSWORD, pinned=pin)] == ["Work"]
    assert [c.name for c in CalDavSource(url, USER, PASSWORD, pinned=pin).calendars()] == ["Work"]
    with pytest.raises(ConnectionProblem, match="not the one you trusted") as refused:
        check_connection(url, USER, PASSWORD, pinned=WRONG, timeout_s=5)
    assert refused.value.stage == "tls" and not isinstance(refused.value, UntrustedCertificate)
    with pytest.raises(CalendarError, match="not the one you trusted; no password was sent"):
        CalDavSource(url, USER, PASSWORD, pinned=WRONG).calendars()


def test_connect_trust_keeps_the_pin(
    served: tuple[str, str], secure_keyring: SystemKeyring, hearth_home: Path
) -> None:
    url, pin = served
    runner = CliRunner()
    refused = runner.invoke(cli, ["calendar", "connect", url, "--user", USER], input=PASSWORD)
    assert isinstance(refused.exception, UntrustedCertificate)  # `hearth` prints it, exit 1
    assert spaced_fingerprint(pin) in str(refused.exception)
    connected = runner.invoke(
        cli,
        ["calendar", "connect", url, "--user", USER, "--trust", spaced_fingerprint(pin)],
        input=PASSWORD,
    )
    assert connected.exit_code == 0, connected.output
    assert "Connected: Work" in connected.output and "Work: synced just now" in connected.output
    saved = SettingsStore().load("calendar", _settings())
    assert saved.trusted_certificate == pin


def _settings() -> type:
    from hearth.connectors.calendar.settings import CalendarSettings

    return CalendarSettings
