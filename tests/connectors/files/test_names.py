"""Names that could spoof what the user approves: refused when new, escaped wherever shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth import Tool
from hearth.cli.main import cli
from hearth.connectors.files import FilesError
from hearth.connectors.files.names import shown, unshown
from tests.connectors.files.conftest import call

SPOOFS = [
    "report\u202etxt.exe",  # right-to-left override: shows as "reportexe.txt"
    "two\nlines.txt",
    "red\x1b[31m.txt",  # an ANSI colour escape
    "zero\u200bwidth.txt",
    "mark\u200f.txt",
    "isolate\u2066.txt",
    "bom\ufeff.txt",
    "c1\x85.txt",
    "delete\x7f.txt",
    "tab\t.txt",
]


@pytest.mark.parametrize("name", SPOOFS)
def test_new_names_that_could_spoof_are_refused(
    tools: dict[str, Tool], documents: Path, name: str
) -> None:
    before = sorted(p.name for p in documents.iterdir())
    attempts = [
        ("files.rename", {"path": str(documents / "notes.txt"), "new_name": name}),
        ("files.create_folder", {"path": str(documents / name)}),
        ("files.write_text", {"path": str(documents / name), "text": "x"}),
    ]
    for tool, arguments in attempts:
        with pytest.raises(FilesError, match="control, invisible or direction"):
            call(tools, tool, **arguments)
    assert sorted(p.name for p in documents.iterdir()) == before


def test_moving_an_item_with_a_spoofing_name_is_refused(
    tools: dict[str, Tool], documents: Path
) -> None:
    planted = documents / "invoice\u202efdp.exe"
    planted.write_text("not an invoice")
    with pytest.raises(FilesError, match="control, invisible or direction"):
        call(tools, "files.move", sources=[str(planted)], destination=str(documents / "projects"))
    assert planted.exists()


def test_previews_escape_what_could_spoof(tools: dict[str, Tool], documents: Path) -> None:
    evil = "evil\u202etxt.exe"
    previews = [
        tools["files.rename"].describe({"path": str(documents / "notes.txt"), "new_name": evil}),
        tools["files.move"].describe(
            {"sources": [str(documents / evil)], "destination": str(documents / "a\x1b[2Jb")}
        ),
        tools["files.trash"].describe({"paths": [str(documents / "x\u200b" / "y\ny")]}),
        tools["files.create_folder"].describe({"path": str(documents / "new\u2066")}),
        tools["files.write_text"].describe(
            {"path": str(documents / "n\x85.txt"), "text": "line one\n\x1b[8mhidden\x1b[0m"}
        ),
    ]
    for preview in previews:
        assert not any(c in preview for c in "\u202e\x1b\u200b\u2066\x85"), repr(preview)
    assert "evil\\u202etxt.exe" in previews[0]
    assert "a\\x1b[2Jb" in previews[1] and "y\\x0ay" in previews[2]
    assert "line one\n\\x1b[8mhidden" in previews[4]  # the text keeps its line breaks


def test_results_and_the_terminal_show_existing_spoofing_names_escaped(
    tools: dict[str, Tool], documents: Path
) -> None:
    planted = documents / "invoice\u202eexe.txt"
    planted.write_text("quokka invoice")
    listing = call(tools, "files.list", folder=str(documents))
    names = [entry["name"] for entry in listing["entries"]]
    assert "invoice\\u202eexe.txt" in names and not any("\u202e" in n for n in names)
    # The escaped form the model saw names the same file.
    escaped = str(documents / "invoice\\u202eexe.txt")
    assert call(tools, "files.read", path=escaped)["text"] == "quokka invoice"
    renamed = call(tools, "files.rename", path=escaped, new_name="invoice.txt")
    assert renamed["moved"][0]["from"].endswith("invoice\\u202eexe.txt")
    (documents / "red\x1b[31m.txt").write_text("quokka colours")
    runner = CliRunner()
    assert runner.invoke(cli, ["files", "grant", str(documents)]).exit_code == 0
    found = runner.invoke(cli, ["files", "search", "quokka"])
    assert found.exit_code == 0, found.output
    assert "red\\x1b[31m.txt" in found.output and "\x1b[31m" not in found.output


@pytest.mark.parametrize("name", [*SPOOFS, "plain.txt", "back\\slash", "a\\x1b literal", "été"])
def test_shown_names_read_back_to_exactly_the_same_name(name: str) -> None:
    escaped = shown(name)
    assert unshown(escaped) == name
    assert escaped.isprintable() and "\u202e" not in escaped
