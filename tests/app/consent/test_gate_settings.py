"""The gate on settings: a rule's range covers a level, a tool whose calls always touch one
setting is scoped by it, and a grant names that setting."""

from __future__ import annotations

import pytest

from hearth.consent import ConsentError
from tests.app.consent.kit import SET_SETTING, SET_VOLUME
from tests.app.consent.test_gate import Setup


@pytest.fixture
def s() -> Setup:
    return Setup()


def test_a_range_rule_allows_inside_its_range_only(s: Setup) -> None:
    s.rule("system.set", "allow", "volume:0-50")
    assert s.ask(SET_SETTING, {"name": "volume", "value": 50}).outcome == "allow"
    assert s.ask(SET_SETTING, {"name": "volume", "value": 51}).outcome == "ask"
    assert s.ask(SET_SETTING, {"name": "brightness", "value": 5}).outcome == "ask"


def test_a_tool_with_a_fixed_resource_is_scoped_by_it_and_its_range(s: Setup) -> None:
    s.rule("system.*", "allow", "volume:0-60")
    assert s.ask(SET_VOLUME, {"level": 60}).outcome == "allow"
    assert s.ask(SET_VOLUME, {"level": 61}).outcome == "ask"
    s.rule("system.set_volume", "allow", "brightness:0-100")
    assert s.ask(SET_VOLUME, {"level": 90}).outcome == "ask"
    s.rule("system.set_volume", "deny", "volume:95-100")
    assert s.ask(SET_VOLUME, {"level": 97}).outcome == "deny"


def test_a_grant_for_a_fixed_resource_names_it(s: Setup) -> None:
    assert s.gate.grant(SET_VOLUME, {"level": 45}, "always").scope == "volume:45-45"
    assert s.gate.grant(SET_VOLUME, {"level": 45}, "always", scope="volume:0-60").scope == (
        "volume:0-60"
    )
    with pytest.raises(ConsentError, match="does not cover"):
        s.gate.grant(SET_VOLUME, {"level": 45}, "always", scope="brightness:0-60")
