"""A mail folder's name is outside text: quoted in a refusal, it reaches the model fenced and the
next side effect asks, whatever the standing rules say."""

from __future__ import annotations

import pytest

from hearth.connectors.evaluation.servers.dovecot import DovecotServer
from hearth.connectors.mail.connector import MailConnector
from hearth.consent import fenced_source, unfence
from hearth.ruling import Reason
from tests.app.agent.test_one_boundary import ORDER, Laptop, LaptopPlugin, assert_wifi_asked, run
from tests.connectors.mail.kit import MailPlugin

pytestmark = pytest.mark.server


def test_a_folder_name_quoted_in_a_refusal_is_fenced_and_makes_the_next_side_effect_ask(
    dovecot: DovecotServer, connector: MailConnector
) -> None:
    with connector.account.mailbox() as mailbox:
        mailbox.client.create_folder(ORDER)
    laptop = Laptop()
    assistant, ran = run(
        [MailPlugin(connector), LaptopPlugin(laptop)],
        [
            ("mail.reply", {"message": "Projects/1", "body": "Thanks!"}),
            ("system.set_wifi", {"enabled": False}),
        ],
        ["mail.*", "system.set_wifi"],
    )
    refused, wifi = ran
    assert refused.ruling.reason is Reason.CANNOT_RUN and ORDER in refused.result
    assert fenced_source(refused.observation) is not None
    assert ORDER in unfence(refused.observation)
    assert_wifi_asked(wifi, laptop)
    assistant.close()
