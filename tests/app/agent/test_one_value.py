"""One value: the gate rules on the path the files tool will use, however the model spelt it.

A deny rule on ~/Documents/Private was beaten by `~/Documents/\\u0050rivate/secret.txt`: the gate
resolved the raw string, the tool decoded the escape first. Now the files connector's own parser
puts every scoped value in its canonical spelling before the gate sees it, and the tool, the
card and the audit all get that same value.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hearth.agent import (
    AgentConfig,
    AllowOnce,
    ConsentAsked,
    EditArguments,
    ToolProposed,
    ToolRan,
)
from hearth.assistant import Assistant
from hearth.connectors.files import FilesConnector
from hearth.consent import Rule
from hearth.ruling import Reason
from tests.app.agent.kit import drive, of
from tests.app.agent.scripted import Reply, ScriptedModel
from tests.connectors.files.kit import FilesPlugin

SECRET = "TOP SECRET: the safe's code is 4411"
# Ways to write "Private" that the files tools read as "Private".
PRIVATE_SPELLINGS = ["\\u0050rivate", "\\x50rivate", "Priv\\u0061te", "P\\u0072ivat\\x65"]


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    """Documents with a Private folder; tests/app/conftest.py grants it to the `files` tool."""
    folder = tmp_path / "Documents"
    (folder / "Private").mkdir(parents=True)
    (folder / "Private" / "secret.txt").write_text(SECRET)
    (folder / "notes.txt").write_text("Remember the budget review.\n")
    return folder.resolve()


def tree(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b"<dir>"
        for path in sorted(folder.rglob("*"))
    }


def calls_into_private(docs: Path, private: str) -> list[tuple[str, dict[str, Any]]]:
    """Every scoped files tool, each naming something in Private through `private`."""
    inside = f"{docs}/{private}"
    return [
        ("files.read", {"path": f"{inside}/secret.txt"}),
        ("files.read", {"path": f"{docs}/Private\\u002fsecret.txt"}),
        ("files.list", {"folder": inside}),
        ("files.search", {"query": "safe", "folder": inside}),
        ("files.write_text", {"path": f"{inside}/new.txt", "text": "planted"}),
        ("files.write_text", {"path": f"{inside}/secret.txt", "text": "x", "overwrite": True}),
        ("files.create_folder", {"path": f"{inside}/sub"}),
        ("files.rename", {"path": f"{inside}/secret.txt", "new_name": "renamed.txt"}),
        ("files.move", {"sources": [f"{inside}/secret.txt"], "destination": str(docs)}),
        ("files.move", {"sources": [f"{docs}/notes.txt"], "destination": inside}),
        ("files.trash", {"paths": [f"{inside}/secret.txt"]}),
    ]


def run_one(
    files: FilesConnector, rules: list[Rule], call: tuple[str, dict[str, Any]], *, headless: bool
) -> tuple[Assistant, list[Any]]:
    assistant = Assistant.open(
        ScriptedModel([Reply(calls=[call]), Reply("Done.")]),
        plugins=[FilesPlugin(files)],
        entry_points=False,
        start_connectors=False,
    )
    for rule in rules:
        assistant.allow(rule)
    session = assistant.session(interactive=not headless, config=AgentConfig(tool_budget=100_000))
    steps = drive(session.run_turn("look after my files"), lambda _: AllowOnce())
    return assistant, steps


def rule(tool: str, decision: str, scope: Path) -> Rule:
    return Rule.create(tool, decision, now=time.time(), scope=str(scope))  # type: ignore[arg-type]


@pytest.mark.parametrize("private", PRIVATE_SPELLINGS)
def test_a_deny_rule_holds_against_every_escaped_spelling_for_every_scoped_files_tool(
    files: FilesConnector, documents: Path, private: str
) -> None:
    rules = [rule("files.*", "allow", documents), rule("files.*", "deny", documents / "Private")]
    before = tree(documents)
    for call in calls_into_private(documents, private):
        assistant, steps = run_one(files, rules, call, headless=True)
        (ran,) = of(steps, ToolRan)
        assert ran.outcome == "denied", call
        assert ran.ruling.reason is Reason.RULE_DENIES, (call, ran.ruling.wording)
        assert SECRET not in ran.observation
        (row,) = assistant.audit.entries(call_id=ran.call.id)
        assert str(documents / "Private") in str(row.arguments), "the audit shows the real path"
        assistant.close()
    assert tree(documents) == before


@pytest.mark.parametrize("private", PRIVATE_SPELLINGS)
def test_an_allow_rule_covers_the_same_file_however_it_is_spelt(
    files: FilesConnector, documents: Path, private: str
) -> None:
    rules = [rule("files.read", "allow", documents / "Private")]
    call = ("files.read", {"path": f"{documents}/{private}/secret.txt"})
    assistant, steps = run_one(files, rules, call, headless=True)
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "executed" and ran.ruling.reason is Reason.RULE_ALLOWS
    assert ran.arguments == {**ran.arguments, "path": str(documents / "Private" / "secret.txt")}
    assert SECRET in ran.result
    assistant.close()


def test_the_card_shows_the_canonical_path_the_tool_will_use(
    files: FilesConnector, documents: Path
) -> None:
    call = ("files.trash", {"paths": [f"{documents}/\\u0050rivate/secret.txt"]})
    assistant, steps = run_one(files, [], call, headless=False)
    canonical = [str(documents / "Private" / "secret.txt")]
    (proposed,) = of(steps, ToolProposed)
    (asked,) = of(steps, ConsentAsked)
    assert proposed.call.arguments["paths"] == asked.request.call.arguments["paths"] == canonical
    (ran,) = of(steps, ToolRan)
    assert ran.outcome == "executed" and ran.arguments == {"paths": canonical}
    assert not (documents / "Private" / "secret.txt").exists()
    row = assistant.audit.entries(call_id=ran.call.id)[0]
    assert row.arguments == {"paths": canonical}
    assert row.proposed_arguments == {"paths": [f"{documents}/\\u0050rivate/secret.txt"]}
    assistant.close()


def test_a_spelling_the_files_parser_refuses_is_never_ruled_on_only_put_to_the_user(
    files: FilesConnector, documents: Path
) -> None:
    for path in (f"{documents}/Private/../Private/secret.txt", f"{documents}/\\x5cPrivate"):
        assistant, steps = run_one(files, [], ("files.read", {"path": path}), headless=False)
        # The only question is to correct it: no gate ruled on the refused spelling, and an
        # "allow" cannot run it as it is.
        (asked,) = of(steps, ConsentAsked)
        assert asked.request.problems and asked.request.durations == ()
        (ran,) = of(steps, ToolRan)
        assert ran.outcome == "denied" and ran.ruling.reason is Reason.INVALID_ARGUMENTS
        assert SECRET not in ran.observation
        assistant.close()
        assistant, steps = run_one(files, [], ("files.read", {"path": path}), headless=True)
        assert of(steps, ConsentAsked) == []
        assert of(steps, ToolRan)[0].outcome == "invalid"
        assistant.close()


def test_an_edit_is_parsed_like_a_proposal_and_still_meets_the_deny_rule(
    files: FilesConnector, documents: Path
) -> None:
    rules = [rule("files.*", "deny", documents / "Private")]
    notes = str(documents / "notes.txt")
    edits = {
        f"{documents}/\\u0050rivate/secret.txt": "denied",  # into the denied folder, escaped
        f"{documents}/\\x6eotes.txt": "executed",  # "notes.txt", escaped: runs as notes.txt
    }
    for edited, outcome in edits.items():
        assistant = Assistant.open(
            ScriptedModel([Reply(calls=[("files.read", {"path": notes})]), Reply("Done.")]),
            plugins=[FilesPlugin(files)],
            entry_points=False,
            start_connectors=False,
        )
        for item in rules:
            assistant.allow(item)
        session = assistant.session(config=AgentConfig(tool_budget=100_000))
        edit = EditArguments({"path": edited})
        steps = drive(session.run_turn("read my notes"), lambda _, edit=edit: edit)
        (ran,) = of(steps, ToolRan)
        assert ran.outcome == outcome, (edited, ran.ruling.wording)
        if outcome == "denied":
            assert ran.ruling.reason is Reason.RULE_DENIES and SECRET not in ran.observation
        else:
            assert ran.arguments is not None and ran.arguments["path"] == notes
        assistant.close()
