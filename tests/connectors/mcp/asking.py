"""`hearth ask` through the real command, with a scripted model and the real MCP plugin."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner, Result

from hearth.assistant import Assistant
from hearth.cli import ask_cmd, chat
from hearth.consent import Rule
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.mcp.kit import McpPlugin


def hearth_ask(
    monkeypatch: pytest.MonkeyPatch,
    plugin: McpPlugin,
    call: tuple[str, dict[str, Any]],
    *options: str,
) -> Result:
    """`hearth ask [options] "Use the <server> server."`: the model makes `call`, then says
    "Done."; the request names the server, so the turn offers its tools. A saved rule lets the
    call's tool run even after untrusted text (the servers' tool descriptions), as a user can
    make one: without it, a run with no terminal to ask in refuses every MCP call."""
    model = ScriptedModel([Reply(calls=[call]), Reply(text="Done.")])
    monkeypatch.setattr(chat, "load_model", lambda choice, n_ctx, threads: model)

    def assistant(chat_model: Any = None, **options: Any) -> Assistant:
        opened = Assistant.open(
            chat_model, plugins=[plugin], entry_points=False, start_connectors=False, **options
        )
        opened.allow(Rule.create(call[0], "allow", now=time.time(), after_untrusted=True))
        return opened

    monkeypatch.setattr(chat, "Assistant", SimpleNamespace(open=assistant))
    server = call[0].partition(".")[0]
    request = f"Use the {server} server."
    result = CliRunner().invoke(ask_cmd.ask, [*options, request], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result
