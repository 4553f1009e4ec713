"""The files connector as an object: its tools, the door front ends use, `hearth files`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth import FolderAccess, IndexStatus, ToolFailure
from hearth.agent import AgentConfig, AllowOnce, ToolRan
from hearth.assistant import Assistant
from hearth.cli.main import cli
from hearth.connectors.files import FilesConnector, FilesError, PathRefused
from hearth.connectors.files.roots import real_root
from hearth.messages import CancelToken
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin

TOOLS = [
    "files.search",
    "files.list",
    "files.read",
    "files.move",
    "files.rename",
    "files.create_folder",
    "files.write_text",
    "files.trash",
]


def test_its_tools_share_the_connectors_consent_metadata(connector: FilesConnector) -> None:
    tools = {tool.name: tool for tool in connector.tools}
    assert sorted(tools) == sorted(TOOLS)
    assert all(tool.connector == "files" and tool.scope_kind == "path" for tool in tools.values())
    assert {name: tool.scope for name, tool in tools.items()} == {
        "files.search": "folder",
        "files.list": "folder",
        "files.read": "path",
        "files.move": ("sources", "destination"),
        "files.rename": "path",
        "files.create_folder": "path",
        "files.write_text": "path",
        "files.trash": "paths",
    }
    reading = {name for name, tool in tools.items() if tool.effect == "read"}
    assert reading == {"files.search", "files.list", "files.read"}
    assert all(tools[name].undo is not None for name in TOOLS if name not in reading)
    # The connector's keywords suggest every tool; each adds its own verbs.
    assert all({"file", "folder", "pdf"} <= set(tool.keywords) for tool in tools.values())
    assert "tidy" in tools["files.move"].keywords and "tidy" not in tools["files.read"].keywords


def test_each_connector_object_binds_tools_of_its_own(connector: FilesConnector) -> None:
    other = FilesConnector(connector.library)
    assert other.search is not connector.search
    assert other.library is connector.library
    assert connector.list.function.__self__ is connector


def test_front_ends_reach_it_through_folder_access(
    connector: FilesConnector, documents: Path, tmp_path: Path
) -> None:
    assistant = Assistant.open(
        plugins=[FilesPlugin(connector)], entry_points=False, start_connectors=False
    )
    try:
        folders = assistant.folders()
        assert folders is connector and isinstance(folders, FolderAccess)
    finally:
        assistant.close()
    root = real_root(documents)
    assert connector.roots() == [root]
    connector.library.scanner.scan(root)
    assert connector.indexed_count(root) == 5  # notes, invoice, letter, projects, plan
    seen: list[IndexStatus] = []
    unsubscribe = connector.subscribe(seen.append)
    other = tmp_path / "Other"
    other.mkdir()
    assert connector.grant(other) == real_root(other)
    connector.revoke(other)
    unsubscribe()
    assert connector.roots() == [root]
    assert connector.status().state == "idle"
    with pytest.raises(PathRefused, match="not a granted folder"):
        connector.revoke(other)


def test_expected_failures_are_tool_failures() -> None:
    assert issubclass(FilesError, ToolFailure) and issubclass(PathRefused, FilesError)


def test_a_refused_path_is_an_observation_for_the_model(
    connector: FilesConnector, documents: Path, tmp_path: Path
) -> None:
    """A world condition goes back to the model as an error; the turn goes on."""
    outside = str(tmp_path / "elsewhere.txt")
    read = ("files.read", {"path": outside})
    listing = ("files.list", {"folder": str(documents)})
    replies = [Reply(calls=[read]), Reply(calls=[listing]), Reply(text="It is not in there.")]
    model = ScriptedModel(replies)
    assistant = Assistant.open(
        model, plugins=[FilesPlugin(connector)], entry_points=False, start_connectors=False
    )
    try:
        session = assistant.session(config=AgentConfig(tool_budget=100_000))
        steps = drive(session.run_turn("read elsewhere.txt", CancelToken()), lambda _: AllowOnce())
    finally:
        assistant.db.close()
    refused, listed = of(steps, ToolRan)
    assert refused.outcome == "invalid"  # refused by the tool's check, before anyone was asked
    assert "Error:" in refused.observation and "outside the folders you granted" in refused.result
    assert listed.outcome == "executed" and '"entries": [' in listed.result


def test_hearth_files_commands_work_on_the_granted_folders(documents: Path, tmp_path: Path) -> None:
    """`hearth files` comes from the built-in plugin's connector, like any plugin's commands."""
    runner = CliRunner()
    granted = runner.invoke(cli, ["files", "grant", str(documents)])
    assert granted.exit_code == 0, granted.output
    assert f"Granted {real_root(documents)}" in granted.output
    assert "5 entries, 5 read" in granted.output
    listed = runner.invoke(cli, ["files", "list"])
    assert f"{real_root(documents)}  (5 indexed)" in listed.output
    found = runner.invoke(cli, ["files", "search", "radiator"])
    assert found.exit_code == 0 and "letter.docx" in found.output
    assert "[radiator]" in found.output
    revoked = runner.invoke(cli, ["files", "revoke", str(documents)])
    assert revoked.exit_code == 0, revoked.output
    assert "No folders granted yet" in runner.invoke(cli, ["files", "list"]).output
    assert "No matches." in runner.invoke(cli, ["files", "search", "radiator"]).output
