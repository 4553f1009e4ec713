from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from hearth.consent import scope_matches, scope_suggestions, scope_words
from hearth.consent.scopes import (
    calendar_matches,
    parse_recipients,
    path_matches,
    recipient_matches,
    setting_matches,
)
from hearth.tools.tool import ScopeKind
from tests.app.consent.kit import (
    LIST_EVENTS,
    MOVE_FILES,
    NOW,
    READ_FILE,
    SEND_MAIL,
    SEND_TO_ALL,
    SET_SETTING,
    make_tool,
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """/…/home with Docs (a file, a subfolder), Docs2, Secret and links in and out of Docs."""
    home = tmp_path / "home"
    docs = home / "Docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "note.txt").write_text("n")
    (home / "Docs2").mkdir()
    (home / "Secret").mkdir()
    (home / "Secret" / "key.txt").write_text("k")
    (docs / "escape").symlink_to(home / "Secret")
    (docs / "key-link.txt").symlink_to(home / "Secret" / "key.txt")
    (home / "docs-link").symlink_to(docs)
    return home


def test_the_folder_itself_and_files_under_it_match(home: Path) -> None:
    docs = str(home / "Docs")
    for inside in (docs, f"{docs}/", f"{docs}/note.txt", f"{docs}/sub", f"{docs}/sub/new.txt"):
        assert path_matches(docs, inside), inside


def test_a_sibling_with_a_common_prefix_does_not_match(home: Path) -> None:
    assert not path_matches(str(home / "Docs"), str(home / "Docs2"))
    assert not path_matches(str(home / "Docs"), str(home / "Docs2" / "x.txt"))
    assert not path_matches(str(home / "Docs"), str(home))


def test_dot_dot_cannot_climb_out(home: Path) -> None:
    docs = str(home / "Docs")
    assert not path_matches(docs, f"{docs}/../Secret/key.txt")
    assert not path_matches(docs, f"{docs}/sub/../../Secret")
    assert path_matches(docs, f"{docs}/sub/../note.txt")


def test_symlinks_leaving_the_folder_do_not_match(home: Path) -> None:
    docs = str(home / "Docs")
    assert not path_matches(docs, f"{docs}/escape/key.txt")
    assert not path_matches(docs, f"{docs}/escape")
    assert not path_matches(docs, f"{docs}/key-link.txt")


def test_a_symlink_into_the_folder_matches_by_where_it_points(home: Path) -> None:
    assert path_matches(str(home / "Docs"), str(home / "docs-link" / "note.txt"))
    assert path_matches(str(home / "docs-link"), str(home / "Docs" / "note.txt"))


def test_a_symlink_loop_does_not_match_or_crash(home: Path) -> None:
    (home / "Docs" / "loop").symlink_to(home / "Docs" / "loop")
    # realpath leaves a loop unresolved inside Docs; it names nothing outside.
    assert not path_matches(str(home / "Secret"), str(home / "Docs" / "loop"))


def test_relative_paths_never_match(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(home / "Docs")
    assert not path_matches(str(home / "Docs"), "note.txt")
    assert not path_matches(str(home / "Docs"), "./note.txt")
    assert not path_matches("Docs", str(home / "Docs" / "note.txt"))
    assert not path_matches(str(home / "Docs"), "")


def test_tilde_is_expanded_in_the_pattern_only(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(home))
    assert path_matches("~/Docs", str(home / "Docs" / "note.txt"))
    assert not path_matches("~/Docs", "~/Docs/note.txt")
    assert not path_matches(str(home / "Docs"), "~/Docs/note.txt")


def test_odd_path_values_do_not_match(home: Path) -> None:
    docs = str(home / "Docs")
    for value in (None, 3, {"p": docs}, [], f"{docs}/a\x00b", [docs, 5]):
        assert not path_matches(docs, value), value


def test_every_path_in_a_list_must_match(home: Path) -> None:
    docs = home / "Docs"
    assert path_matches(str(docs), [str(docs / "note.txt"), str(docs / "sub")])
    assert not path_matches(str(docs), [str(docs / "note.txt"), str(home / "Secret")])


@pytest.mark.parametrize(
    ("pattern", "value", "expected"),
    [
        ("bob@example.com", "bob@example.com", True),
        ("bob@example.com", "BOB@Example.COM", True),
        ("bob@example.com", "Bob Smith <bob@example.com>", True),
        ("bob@example.com", '"Smith, Bob" <bob@example.com>', True),
        ("bob@example.com", "bob@example.com.evil", False),
        ("bob@example.com", "xbob@example.com", False),
        ("@example.com", "alice@example.com", True),
        ("@example.com", "alice@EXAMPLE.com", True),
        ("@example.com", "alice@evil-example.com", False),
        ("@example.com", "alice@example.com.evil", False),
        ("@example.com", "alice@mail.example.com", False),
        ("@example.com", "alice@example.com.", False),
        ("@example.com", "example.com@evil.com", False),
        ("@example.com", "bob@example.com <eve@evil.com>", False),
        ("@example.com", '"bob@example.com" <eve@evil.com>', False),
        ("@example.com", "alice@example.com)<eve@evil.com>", False),
        ("@example.com", "alice@example.com, eve@evil.com", False),
        ("@example.com", "alice@example.com; eve@evil.com", False),
        ("@example.com", ["alice@example.com", "bob@example.com"], True),
        ("@example.com", ["alice@example.com", "eve@evil.com"], False),
        ("@example.com", "alice@example.com, Bob <bob@example.com>", True),
        ("@example.com", [], False),
        ("@example.com", "", False),
        ("@example.com", "alice", False),
        ("@example.com", 42, False),
        ("@example.com, eve@evil.com", ["a@example.com", "Eve <EVE@evil.com>"], True),
        ("@example.com, eve@evil.com", ["a@example.com", "mallory@evil.com"], False),
    ],
)
def test_recipient_patterns(pattern: str, value: object, expected: bool) -> None:
    assert recipient_matches(pattern, value) is expected


def test_recipients_parse_names_and_lists() -> None:
    assert parse_recipients('"Doe, Jane" <Jane@Doe.org>, bob@x.io') == ["jane@doe.org", "bob@x.io"]
    assert parse_recipients(["a@b.c", "<d@e.f>"]) == ["a@b.c", "d@e.f"]
    assert parse_recipients("a@b.c,") is None
    assert parse_recipients("Jane <jane@doe.org") is None


@pytest.mark.parametrize(
    ("pattern", "value", "expected"),
    [
        ("Work", "work", True),
        ("Work", "WORK", True),
        ("Work", "Work ", False),
        ("Work", "Workshop", False),
        ("Work", ["Work"], False),
        ("Work", None, False),
    ],
)
def test_calendar_patterns(pattern: str, value: object, expected: bool) -> None:
    assert calendar_matches(pattern, value) is expected


@pytest.mark.parametrize(
    ("pattern", "name", "number", "expected"),
    [
        ("volume", "volume", 90, True),
        ("volume", "Volume", None, True),
        ("volume", "brightness", 10, False),
        ("volume:0-50", "volume", 50, True),
        ("volume:0-50", "volume", 0, True),
        ("volume:0-50", "volume", 25.5, True),
        ("volume:0-50", "volume", 51, False),
        ("volume:0-50", "volume", -1, False),
        ("volume:0-50", "volume", None, False),
        ("volume:0-50", "volume", "20", False),
        ("volume:0-50", "volume", True, False),
        ("volume:0-50", "volume", float("nan"), False),
        ("temp:-10--5", "temp", -7, True),
        ("temp:-10--5", "temp", -4, False),
        ("volume:0-", "volume", 10, False),
        ("volume:abc", "volume", 10, False),
    ],
)
def test_setting_patterns(pattern: str, name: str, number: object, expected: bool) -> None:
    assert setting_matches(pattern, name, number) is expected


def test_setting_ranges_apply_to_the_tools_range_argument() -> None:
    assert scope_matches(SET_SETTING, "volume:0-50", {"name": "volume", "value": 30})
    assert not scope_matches(SET_SETTING, "volume:0-50", {"name": "volume", "value": 80})
    assert not scope_matches(SET_SETTING, "volume:0-50", {"name": "volume"})


def test_no_pattern_matches_anything_and_a_missing_argument_matches_no_pattern() -> None:
    assert scope_matches(READ_FILE, None, {})
    assert scope_matches(NOW, None, {})
    assert not scope_matches(READ_FILE, "/", {})
    assert not scope_matches(NOW, "anything", {"path": "/"})


def test_an_unknown_kind_never_matches() -> None:
    odd = make_tool("odd.thing", "read", "thing", cast(ScopeKind, "colour"))
    assert not scope_matches(odd, "red", {"thing": "red"})
    assert scope_matches(odd, None, {"thing": "red"})


def test_suggestions_offer_the_file_then_its_folder(home: Path) -> None:
    note = home / "docs-link" / "note.txt"
    assert scope_suggestions(READ_FILE, {"path": str(note)}) == [
        str(home / "Docs" / "note.txt"),
        str(home / "Docs"),
    ]
    assert scope_suggestions(READ_FILE, {"path": "note.txt"}) == []
    assert scope_suggestions(READ_FILE, {"path": "/"}) == []
    assert scope_suggestions(READ_FILE, {}) == []


def test_suggestions_offer_recipients_then_their_domains() -> None:
    arguments: dict[str, Any] = {"to": ["Ann <ann@a.org>", "bob@b.org", "cy@a.org"]}
    assert scope_suggestions(SEND_MAIL, arguments) == [
        "ann@a.org, bob@b.org, cy@a.org",
        "@a.org, @b.org",
    ]
    assert scope_suggestions(SEND_MAIL, {"to": "bob@b.org"}) == ["bob@b.org", "@b.org"]
    assert scope_suggestions(SEND_MAIL, {"to": "not an address"}) == []


def test_suggestions_for_calendars_and_settings() -> None:
    assert scope_suggestions(LIST_EVENTS, {"calendar": "Work"}) == ["Work"]
    assert scope_suggestions(SET_SETTING, {"name": "volume", "value": 30}) == [
        "volume:30-30",
        "volume:0-30",
        "volume",
    ]
    assert scope_suggestions(SET_SETTING, {"name": "volume", "value": 0.25}) == [
        "volume:0.25-0.25",
        "volume:0-0.25",
        "volume",
    ]
    silent = {"name": "volume", "value": 0}
    assert scope_suggestions(SET_SETTING, silent) == ["volume:0-0", "volume"]
    assert scope_suggestions(SET_SETTING, {"name": "volume"}) == ["volume"]


def test_setting_patterns_read_as_words_on_the_card() -> None:
    assert scope_words(SET_SETTING, "volume:0-60") == "volume up to 60"
    assert scope_words(SET_SETTING, "volume:40-40") == "volume at 40 only"
    assert scope_words(SET_SETTING, "volume:20-60") == "volume from 20 to 60"
    assert scope_words(SET_SETTING, "volume") == "volume at any level"
    assert scope_words(SEND_MAIL, "@example.com") == "@example.com"


def test_a_rule_covers_a_call_only_if_it_covers_every_scoped_argument(home: Path) -> None:
    docs, sub = str(home / "Docs"), str(home / "Docs" / "sub")
    inside = {"sources": [f"{docs}/note.txt"], "destination": sub}
    assert scope_matches(MOVE_FILES, docs, inside)
    # Finding 3: the destination used to go unchecked, so this moved files out of Docs.
    out = {"sources": [f"{docs}/note.txt"], "destination": str(home / "Docs2")}
    assert not scope_matches(MOVE_FILES, docs, out)
    escape = {"sources": [f"{docs}/note.txt"], "destination": f"{docs}/escape"}
    assert not scope_matches(MOVE_FILES, docs, escape)
    assert not scope_matches(MOVE_FILES, docs, {"sources": [f"{docs}/note.txt"]})
    assert not scope_matches(MOVE_FILES, docs, {"sources": [], "destination": sub})
    assert not scope_matches(
        MOVE_FILES, docs, {"sources": [f"{docs}/note.txt"], "destination": None}
    )


def test_every_recipient_of_every_scoped_argument_must_be_covered() -> None:
    both = {"to": "ann@example.com", "cc": ["Bob <bob@example.com>"]}
    assert scope_matches(SEND_TO_ALL, "@example.com", both)
    leak = {"to": "ann@example.com", "cc": ["Bob <bob@example.com>", "x@evil.com"]}
    assert not scope_matches(SEND_TO_ALL, "@example.com", leak)
    assert scope_suggestions(SEND_TO_ALL, both) == [
        "ann@example.com, bob@example.com",
        "@example.com",
    ]


def test_suggestions_cover_sources_and_destination_together(home: Path) -> None:
    docs = home / "Docs"
    call = {"sources": [str(docs / "note.txt")], "destination": str(docs / "sub")}
    assert scope_suggestions(MOVE_FILES, call) == [str(docs), str(home)]
    out = {"sources": [str(docs / "note.txt")], "destination": str(home / "Docs2")}
    assert scope_suggestions(MOVE_FILES, out)[0] == str(home)
