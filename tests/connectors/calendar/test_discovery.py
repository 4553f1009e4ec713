"""check_connection names the stage that failed, each found for real on loopback."""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Iterator
from pathlib import Path

import caldav
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hearth.connectors.calendar.caldav_source import CalDavSource
from hearth.connectors.calendar.discovery import check_connection
from hearth.connectors.calendar.errors import CalendarError, ConnectionProblem
from hearth.connectors.evaluation.servers import free_port
from hearth.connectors.evaluation.servers.radicale import (
    OTHER_PASSWORD,
    OTHER_USER,
    PASSWORD,
    USER,
    RadicaleServer,
)
from tests.connectors.servers import server_required


def stage_of(url: str, username: str = USER, password: str = PASSWORD) -> ConnectionProblem:
    with pytest.raises(ConnectionProblem) as failed:
        check_connection(url, username, password, timeout_s=5)
    return failed.value


def self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_radicale(tmp_path: Path) -> Iterator[RadicaleServer]:
    """Radicale over TLS with a self-signed certificate no trust store knows."""
    with server_required():
        server = RadicaleServer(tmp_path / "tls-radicale")
    cert, key = self_signed(tmp_path)
    config = server.folder / "config"
    tls = f"[server]\nssl = True\ncertificate = {cert}\nkey = {key}\n"
    config.write_text(config.read_text().replace("[server]\n", tls, 1))
    yield server.start()
    server.stop()


def test_lists_the_calendars_when_everything_works(radicale: RadicaleServer) -> None:
    client = caldav.DAVClient(url=radicale.url, username=USER, password=PASSWORD)
    client.principal().make_calendar(name="Home")

    [home] = check_connection(radicale.url, USER, PASSWORD)

    assert home.name == "Home" and home.source == "caldav" and home.writable


def test_a_name_that_does_not_resolve_is_the_dns_stage() -> None:
    problem = stage_of("https://calendar.hearth-test.invalid/")
    assert problem.stage == "dns"
    assert "could not be found" in str(problem) and "check the address" in str(problem)


def test_a_closed_port_is_the_tcp_stage() -> None:
    problem = stage_of(f"http://127.0.0.1:{free_port()}/")
    assert problem.stage == "tcp"
    assert "refused the connection" in str(problem)


def test_an_untrusted_certificate_is_the_tls_stage_and_never_bypassed(
    tls_radicale: RadicaleServer,
) -> None:
    url = f"https://127.0.0.1:{tls_radicale.port}/"

    problem = stage_of(url)

    assert problem.stage == "tls"
    assert "self-signed certificate" in str(problem) and "not connect insecurely" in str(problem)
    with pytest.raises(CalendarError, match="could not be verified"):
        CalDavSource(url, USER, PASSWORD).calendars()  # the source refuses it too


def test_a_wrong_password_is_the_auth_stage(radicale: RadicaleServer) -> None:
    problem = stage_of(radicale.url, password="not the password")
    assert problem.stage == "auth"
    assert "check the user name and password" in str(problem)


def test_a_login_without_calendars_is_the_calendars_stage(radicale: RadicaleServer) -> None:
    problem = stage_of(radicale.url, OTHER_USER, OTHER_PASSWORD)
    assert problem.stage == "calendars"
    assert "no calendars yet" in str(problem)
