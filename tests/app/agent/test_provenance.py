"""Which arguments that ran were the model's, Hearth's defaults or the user's edit: worked out
once in the core, the same live and read back from the audit log."""

from __future__ import annotations

from typing import Any

from hearth import AllowOnce, Deny, EditArguments, Provenance, ToolRan
from hearth.agent import Executor
from hearth.messages import CancelToken, ToolCall
from tests.app.agent.kit import World, drive, of
from tests.app.agent.shelf import shelf_world


def test_a_default_is_filled_in_not_edited() -> None:
    made = Provenance.of({"words": "x"}, {"words": "x", "page": 1}, {"words": "x", "page": 1})
    assert made == Provenance(filled={"page": 1}, edited_from=None)


def test_a_default_left_unset_is_not_shown() -> None:
    made = Provenance.of({}, {"first_line": None}, {"first_line": None})
    assert made == Provenance()


def test_an_edit_keeps_the_call_as_the_user_saw_it() -> None:
    seen = {"words": "x", "page": 1}
    made = Provenance.of({"words": "x"}, seen, {"words": "y", "page": 1})
    assert made.edited_from == seen and made.filled == {"page": 1}


def test_a_default_the_user_changed_is_their_edit_not_a_default() -> None:
    made = Provenance.of({"words": "x"}, {"words": "x", "page": 1}, {"words": "x", "page": 3})
    assert made.filled == {} and made.edited_from == {"words": "x", "page": 1}


def test_nothing_ran_nothing_to_say() -> None:
    assert Provenance.of({"words": "x"}, {"words": "x", "page": 1}, None) == Provenance()


def run(answer: Any) -> tuple[World, ToolRan]:
    world = shelf_world()
    executor = Executor(world.registry, world.gate, world.audit, world.intents)
    call = ToolCall("shelf.search", {"words": "story"})
    (ran,) = of(drive(executor.handle(call, None, CancelToken()), lambda _: answer), ToolRan)
    return world, ran


def test_allowed_as_proposed_the_page_is_hearths_default_and_nobody_edited() -> None:
    world, ran = run(AllowOnce())
    assert ran.outcome == "executed"
    assert ran.provenance == Provenance(filled={"page": 1}, edited_from=None)
    (decided, _outcome) = world.audit.entries(tool="shelf.search")
    assert decided.provenance == ran.provenance


def test_an_edit_is_on_the_record_as_what_the_user_changed() -> None:
    world, ran = run(EditArguments({"words": "poems", "page": 1}))
    assert ran.outcome == "executed" and ran.arguments == {"words": "poems", "page": 1}
    assert ran.provenance.edited_from == {"words": "story", "page": 1}
    assert ran.provenance.filled == {"page": 1}
    (decided, _outcome) = world.audit.entries(tool="shelf.search")
    assert decided.edited_from == {"words": "story", "page": 1}
    assert decided.provenance == ran.provenance


def test_a_denied_call_claims_no_defaults_and_no_edit() -> None:
    world, ran = run(Deny())
    assert ran.provenance == Provenance()
    (decided,) = world.audit.entries(tool="shelf.search")
    assert decided.provenance == Provenance()
