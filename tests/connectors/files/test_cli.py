"""`hearth files` reports: what a grant and a later index say, and searches without words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.main import cli
from hearth.connectors.files import FileLibrary
from hearth.connectors.files.roots import real_root
from tests.connectors.files.privileges import as_a_user
from tests.fixtures.spoofing import A_FEW, assert_safe, unstyled


@pytest.fixture
def locked(documents: Path) -> Iterator[Path]:
    """A text file nobody may read, among the documents."""
    path = documents / "locked.txt"
    path.write_text("the heron's secret")
    path.chmod(0)
    yield path
    path.chmod(0o644)


def skipped_line(path: Path) -> str:
    return f"skipped: {real_root(path.parent) / path.name}: could not read: Permission denied"


def test_the_first_grant_names_an_unreadable_file_as_a_later_index_does(locked: Path) -> None:
    runner = CliRunner()
    with as_a_user():
        granted = runner.invoke(cli, ["files", "grant", str(locked.parent)])
        indexed = runner.invoke(cli, ["files", "index"])
    assert granted.exit_code == 0 and indexed.exit_code == 0, granted.output + indexed.output
    # notes, invoice, letter, projects, plan: read; locked.txt: named, with the reason.
    assert "6 entries, 5 read, 0 removed, 1 skipped" in granted.output
    assert "6 entries, 0 read, 0 removed, 1 skipped" in indexed.output
    for output in (granted.output, indexed.output):
        assert output.count(skipped_line(locked)) == 1


def test_a_file_made_readable_is_read_by_the_next_index(locked: Path) -> None:
    runner = CliRunner()
    with as_a_user():
        runner.invoke(cli, ["files", "grant", str(locked.parent)])
    locked.chmod(0o644)  # only the mode changes, not the size or the time it was modified
    indexed = runner.invoke(cli, ["files", "index"])
    assert "6 entries, 1 read, 0 removed, 0 skipped" in indexed.output
    assert "locked.txt" in runner.invoke(cli, ["files", "search", "secret"]).output


def test_the_folders_page_counts_an_unreadable_file_once(locked: Path) -> None:
    """Granted while Hearth runs, as the Folders page does; rescans do not count it again."""
    library = FileLibrary(poll_seconds=0.5)
    try:
        with as_a_user():
            library.start()
            library.grant(locked.parent)
            assert library.wait_idle(60)
            assert library.status().skipped == 1
            library.rescan()
            assert library.wait_idle(60)
        assert library.status().skipped == 1
        [entry] = library.index.skipped()
        assert (
            entry.path.name == "locked.txt" and entry.skipped == "could not read: Permission denied"
        )
    finally:
        library.close()


@pytest.mark.parametrize("query", ["?!", "...", "-", "_", '"'])
def test_a_search_without_words_says_so(documents: Path, query: str) -> None:
    runner = CliRunner()
    runner.invoke(cli, ["files", "grant", str(documents)])
    found = runner.invoke(cli, ["files", "search", query])
    assert found.exit_code != 0
    assert "The query has no words to search for" in found.output
    assert "notes.txt" not in found.output


@pytest.mark.parametrize(
    "query", ['"budget', "budget*", "name:budget", "^budget", "budget AND", "NEAR(budget)"]
)
def test_search_syntax_is_only_words(documents: Path, query: str) -> None:
    runner = CliRunner()
    runner.invoke(cli, ["files", "grant", str(documents)])
    found = runner.invoke(cli, ["files", "search", query])
    assert found.exit_code == 0, found.output
    assert "notes.txt" in found.output


@pytest.mark.parametrize("spoof", A_FEW)
def test_folder_and_file_names_are_shown_escaped(tmp_path: Path, spoof: str) -> None:
    folder = tmp_path / f"folder {spoof}"
    folder.mkdir()
    (folder / f"{spoof}.txt").write_text("the heron's secret")
    runner = CliRunner()
    commands = (["grant", str(folder)], ["list"], ["search", "heron"], ["revoke", str(folder)])
    for arguments in commands:
        done = runner.invoke(cli, ["files", *arguments], color=True)  # color: ESC sequences kept
        assert done.exit_code == 0, done.output
        assert "\\x5c" not in done.output  # no backslash in these names
        assert_safe(unstyled(done.output), spoof, lines=True)
