"""A deny rule denies a call when it covers any resource the call touches, not only all."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.consent.kit import MOVE_FILES, SEND_TO_ALL
from tests.app.consent.test_gate import Setup


@pytest.fixture
def s() -> Setup:
    return Setup()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    (tmp_path / "Docs").mkdir()
    (tmp_path / "Docs" / "a.txt").write_text("a")
    return tmp_path / "Docs"


def test_a_deny_rule_denies_when_it_covers_any_resource_of_the_call(s: Setup, docs: Path) -> None:
    """One denied recipient among allowed ones, or one source in a denied folder, denies."""
    s.rule("mail.send_all", "allow")
    s.rule("mail.send_all", "deny", "@evil.test")
    mixed = {"to": ["bob@example.com"], "cc": ["eve@evil.test"]}
    assert s.ask(SEND_TO_ALL, mixed).outcome == "deny"
    assert s.ask(SEND_TO_ALL, {"to": ["bob@example.com"], "cc": []}).outcome != "deny"
    (docs / "secret").mkdir()
    (docs / "secret" / "key.txt").write_text("k")
    s.rule("files.move", "allow")
    s.rule("files.move", "deny", str(docs / "secret"))
    move = {
        "sources": [str(docs / "a.txt"), str(docs / "secret" / "key.txt")],
        "destination": str(docs),
    }
    assert s.ask(MOVE_FILES, move).outcome == "deny"
