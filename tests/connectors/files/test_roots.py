"""Every way of naming something outside the granted folders is refused, by the tools too."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth import Tool
from hearth.connectors.files import PathRefused
from hearth.connectors.files.roots import check_new_name, real_root, resolve_inside
from tests.connectors.files.conftest import call


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.txt").write_text("the neighbour's wifi password")
    return secret


def roots_of(documents: Path) -> list[Path]:
    return [real_root(documents)]


def test_plain_paths_inside_are_accepted(documents: Path) -> None:
    roots = roots_of(documents)
    assert resolve_inside(str(documents / "notes.txt"), roots) == real_root(documents) / "notes.txt"
    assert resolve_inside(str(documents), roots) == real_root(documents)
    new = resolve_inside(str(documents / "projects" / "new.txt"), roots, must_exist=False)
    assert new.name == "new.txt"


@pytest.mark.parametrize(
    "form",
    [
        "{docs}/../outside/secret.txt",
        "{docs}/projects/../../outside/secret.txt",
        "{docs}/./notes.txt",
        "notes.txt",
        "Documents/notes.txt",
        "./notes.txt",
        "~/notes.txt",
        "",
        "C:\\Users\\me\\notes.txt",
        "C:notes.txt",
        "\\\\server\\share\\notes.txt",
        "//server/share/notes.txt",
        "{docs}/notes.txt:secret-stream",
        "{docs}/notes.txt::$DATA",
        "{docs}\\..\\outside\\secret.txt",
        "{docs}/notes.txt\x00.pdf",
        "{docs}/.ssh/id_rsa",
        "{docs}-evil/notes.txt",
        "/etc/passwd",
        "/",
    ],
)
def test_escape_forms_are_refused(documents: Path, form: str) -> None:
    raw = form.format(docs=documents)
    (documents.parent / "Documents-evil").mkdir(exist_ok=True)
    (documents.parent / "Documents-evil" / "notes.txt").write_text("not granted")
    with pytest.raises(PathRefused):
        resolve_inside(raw, roots_of(documents))
    with pytest.raises(PathRefused):
        resolve_inside(raw, roots_of(documents), must_exist=False)


def test_symlinks_are_never_followed(documents: Path, outside: Path) -> None:
    (documents / "link-out").symlink_to(outside)
    (documents / "file-link").symlink_to(outside / "secret.txt")
    (documents / "inner-link").symlink_to(documents / "projects")
    for name in ("link-out/secret.txt", "file-link", "inner-link/plan.md", "link-out/new.txt"):
        with pytest.raises(PathRefused, match="symbolic link"):
            resolve_inside(str(documents / name), roots_of(documents), must_exist=False)


def test_a_folder_granted_through_a_link_works_but_links_below_it_do_not(
    documents: Path, tmp_path: Path, outside: Path
) -> None:
    via = tmp_path / "docs-shortcut"
    via.symlink_to(documents)
    roots = roots_of(documents)
    assert resolve_inside(str(via / "notes.txt"), roots) == real_root(documents) / "notes.txt"
    (documents / "projects" / "escape").symlink_to(outside)
    with pytest.raises(PathRefused):
        resolve_inside(str(via / "projects" / "escape" / "secret.txt"), roots)


def test_an_existing_posix_name_with_a_colon_is_usable(documents: Path) -> None:
    (documents / "meeting 10:30.txt").write_text("agenda")
    found = resolve_inside(str(documents / "meeting 10:30.txt"), roots_of(documents))
    assert found.name == "meeting 10:30.txt"


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "..\\x", ".hidden", "x:stream", "C:"])
def test_new_names_must_be_plain(name: str) -> None:
    with pytest.raises(PathRefused):
        check_new_name(name)


def test_every_tool_refuses_to_reach_outside(
    tools: dict[str, Tool], documents: Path, outside: Path
) -> None:
    (documents / "link-out").symlink_to(outside)
    before = sorted(p.name for p in outside.iterdir())
    secret = str(outside / "secret.txt")
    via_link = str(documents / "link-out" / "secret.txt")
    attempts = [
        ("files.read", {"path": secret}),
        ("files.read", {"path": via_link}),
        ("files.read", {"path": f"{documents}/../outside/secret.txt"}),
        ("files.list", {"folder": str(outside)}),
        ("files.search", {"query": "password", "folder": str(outside)}),
        ("files.move", {"sources": [secret], "destination": str(documents)}),
        ("files.move", {"sources": [str(documents / "notes.txt")], "destination": str(outside)}),
        (
            "files.move",
            {"sources": [str(documents / "notes.txt")], "destination": str(documents / "link-out")},
        ),
        ("files.rename", {"path": via_link, "new_name": "mine.txt"}),
        ("files.rename", {"path": str(documents / "notes.txt"), "new_name": "../../x.txt"}),
        ("files.create_folder", {"path": str(outside / "new")}),
        ("files.write_text", {"path": str(outside / "new.txt"), "text": "x"}),
        ("files.write_text", {"path": str(documents / "link-out" / "new.txt"), "text": "x"}),
        ("files.write_text", {"path": "C:\\evil.txt", "text": "x"}),
        ("files.trash", {"paths": [secret]}),
        ("files.trash", {"paths": [via_link]}),
    ]
    for name, arguments in attempts:
        with pytest.raises(PathRefused):
            call(tools, name, **arguments)
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "secret.txt").read_text() == "the neighbour's wifi password"
    assert (documents / "notes.txt").exists()


def test_search_never_returns_anything_outside(
    tools: dict[str, Tool], documents: Path, outside: Path, library: object
) -> None:
    (documents / "link-out").symlink_to(outside)
    library.scanner.scan(real_root(documents))  # type: ignore[attr-defined]
    found = call(tools, "files.search", query="password")["results"]
    assert found == []
    assert (outside / "secret.txt").exists()
