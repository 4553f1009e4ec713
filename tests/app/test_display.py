"""`hearth.shown`, the one way outside text is shown: every hidden character becomes an escape."""

from __future__ import annotations

import pytest

from hearth import shown, unshown
from hearth.display import shown_data
from tests.fixtures.spoofing import SPOOFS, assert_safe, escape_of

MORE = ["plain.txt", "été", "back\\slash", "a\\x1b literal", "\\u202e literal", "❤\ufe0f", ""]


def test_the_corpus_is_large_enough() -> None:
    assert len(SPOOFS) >= 30


@pytest.mark.parametrize("spoof", SPOOFS)
def test_every_hidden_character_is_an_escape_on_one_line(spoof: str) -> None:
    one_line = shown(spoof)
    assert_safe(one_line, spoof)
    assert "\n" not in one_line and one_line.isprintable()


@pytest.mark.parametrize("spoof", SPOOFS)
def test_with_lines_only_line_feeds_and_tabs_stay(spoof: str) -> None:
    several = shown(spoof, lines=True)
    assert_safe(several, spoof, lines=True)
    assert spoof.count("\n") - spoof.count("\r\n") <= several.count("\n") <= spoof.count("\n")


@pytest.mark.parametrize("text", [*SPOOFS, *MORE])
def test_reversible_text_reads_back_exactly(text: str) -> None:
    escaped = shown(text, reversible=True)
    assert unshown(escaped) == text
    assert_safe(escaped, text)


@pytest.mark.parametrize("text", [*SPOOFS, *MORE])
def test_showing_shown_text_again_changes_nothing(text: str) -> None:
    once = shown(text)
    assert shown(once) == once
    assert shown(shown(text, reversible=True)) == shown(text, reversible=True)


def test_the_escapes_are_written_one_way() -> None:
    assert shown("invoice\u202efdp.exe") == "invoice\\u202efdp.exe"
    assert shown("a\x1b[2Jb\x85") == "a\\x1b[2Jb\\x85"
    assert shown("tag\U000e0041") == "tag\\U000e0041"
    assert shown("C:\\temp") == "C:\\temp"  # shown text keeps its backslashes…
    assert shown("C:\\temp", reversible=True) == "C:\\x5ctemp"  # …reversible text escapes them
    assert shown("a\r\nb", lines=True) == "a\nb"  # CR LF is a line break, a lone CR is not
    assert shown("a\rb", lines=True) == "a\\x0db"
    assert escape_of("\u2028") == "\\u2028" and shown("\u2028") == "\\u2028"


def test_readable_text_stays_as_it_is() -> None:
    for text in [
        "Grüße, Zoë",
        "東京の会議",
        "مرحبا بالعالم",
        "שלום",
        "❤\ufe0f 🎉",
        "e\u0301t\u0301e\u0301",
    ]:
        assert shown(text) == text


def test_a_mark_on_an_escape_and_a_stack_of_marks_are_escaped() -> None:
    assert shown("\u202e\u0301") == "\\u202e\\u0301"
    stacked = shown("e" + "\u0301" * 6)
    assert stacked == "e" + "\u0301" * 4 + "\\u0301" * 2


def test_data_is_shown_to_its_keys() -> None:
    data = {"na\u202eme": ["a\x1b", {"b": "c\u2028"}], "n": 3, "none": None}
    assert shown_data(data) == {"na\\u202eme": ["a\\x1b", {"b": "c\\u2028"}], "n": 3, "none": None}
    assert shown_data({"body": "one\ntwo\x07"}, lines=True) == {"body": "one\ntwo\\x07"}
