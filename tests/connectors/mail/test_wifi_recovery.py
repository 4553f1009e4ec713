"""Wi-Fi off, a send fails, Wi-Fi on, the send goes: the real mail and system connectors
through the agent with a scripted model, the real gate, Dovecot and an SMTP server.

NetworkManager cannot run here, so nmcli answers from recordings of its real output (nmcli(1):
`nmcli -t -f RUNNING general` prints "running", `nmcli -t -f WIFI radio` prints "enabled" or
"disabled", `nmcli radio wifi on` prints nothing). Switching the radio on starts the SMTP
server, as the network coming back would make it reachable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from hearth import Connector, hookimpl
from hearth.agent import ConsentAsked, ToolRan
from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.evaluation.servers.smtp import SmtpServer
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.system.connector import SystemConnector
from hearth.connectors.system.linux_network import NmcliWifi
from hearth.connectors.system.machine import Machine
from tests.app.agent.kit import of
from tests.app.agent.turns import Turn, results, scripted_turns
from tests.connectors.system.recorded import RecordedRunner, said

pytestmark = pytest.mark.server


class Laptop:
    """NetworkManager's Wi-Fi radio, with the mail server reachable only while it is on."""

    def __init__(self, smtp: SmtpServer) -> None:
        self.smtp = smtp
        self.port = smtp.port
        self.server: SmtpServer | None = None
        smtp.stop()
        self.wifi = False
        self.runner = RecordedRunner(
            {
                ("nmcli", "-t", "-f", "RUNNING", "general"): said("running\n"),
                ("nmcli", "-t", "-f", "WIFI", "radio"): self.radio,
                ("nmcli", "radio", "wifi", "on"): self.switch_on,
            },
            programs=["nmcli"],
        )

    def radio(self) -> object:
        return said("enabled\n" if self.wifi else "disabled\n")

    def switch_on(self) -> object:
        self.wifi = True
        self.server = SmtpServer(self.smtp.ca, "tls")
        self.server.port = self.port
        self.server.start()
        return said()

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


class Plugin:
    def __init__(self, *connectors: Connector) -> None:
        self.connectors = connectors

    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        for connector in self.connectors:
            register(connector)


@pytest.fixture
def laptop(smtp_server: SmtpServer) -> Iterator[Laptop]:
    machine = Laptop(smtp_server)
    yield machine
    machine.close()


@pytest.fixture
def turn(connector: MailConnector, laptop: Laptop) -> Iterator[Turn]:
    system = SystemConnector(Machine([NmcliWifi(laptop.runner)]))
    with scripted_turns(Plugin(connector, system)) as run:
        yield run


def test_a_send_that_failed_offline_goes_once_wifi_is_back_with_consent_for_each_step(
    dovecot: DovecotServer, laptop: Laptop, turn: Turn, connector: MailConnector
) -> None:
    send = {"to": ["bob@example.com"], "subject": "Notes", "body": "The notes from today."}
    assistant, steps = turn(
        "Send Bob today's notes.",
        ("mail.send", send),
        ("system.set_wifi", {"enabled": True}),
        ("mail.send", send),
    )
    asked = [step.request.tool.name for step in of(steps, ConsentAsked)]
    assert asked == ["mail.send", "system.set_wifi", "mail.send"]
    [wifi_card] = [s for s in of(steps, ConsentAsked) if s.request.tool.effect == "system"]
    assert "Turn Wi-Fi on (it is off now, using nmcli)" in (wifi_card.request.preview or "")

    first, switched, again = results(steps)
    assert first["state"] == "queued" and "cannot be reached" in first["note"]
    assert switched["changed"] == [{"setting": "wifi", "before": False, "after": True}]
    assert (again["state"], again["message_id"]) == ("filed", first["message_id"])
    assert laptop.server is not None and len(laptop.server.received) == 1
    assert [entry.state for entry in connector.account.outbox.entries()] == ["filed"]
    assert ("nmcli", "radio", "wifi", "on") in laptop.runner.calls
    assert all(ran.outcome == "executed" for ran in of(steps, ToolRan))
    assert [row.outcome for row in assistant.audit.entries() if row.outcome][-1] == "executed"
