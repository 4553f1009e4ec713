"""A long result: the model reads a page, is told what was left out, and can read the rest."""

from __future__ import annotations

import json
import re

from hearth.agent import Executor, ToolRan
from hearth.agent.pages import RESULT_LIMIT, result_text
from hearth.messages import CancelToken, ToolCall
from tests.app.agent.kit import World, drive, of
from tests.app.agent.shelf import BOOKS, NAMES, Books, shelf_world

NOTE = re.compile(r"\n\[(.*)\]$")


def ran(world: World, name: str, **arguments: object) -> ToolRan:
    executor = Executor(world.registry, world.gate, world.audit, world.intents)
    steps = drive(executor.handle(ToolCall(name, arguments), None, CancelToken()), None)
    (done,) = of(steps, ToolRan)
    assert done.outcome == "executed"
    return done


def page_of(text: str) -> tuple[list[str], str]:
    """The names on a page, and its note."""
    found = NOTE.search(text)
    assert found is not None, text[-200:]
    data = json.loads(text[: found.start()])
    return [book["name"] for book in data["results"]], found.group(1)


def test_a_60_item_result_says_what_it_left_out_and_the_next_page_has_the_rest() -> None:
    world = shelf_world()
    first = ran(world, "shelf.search", words="story")
    names, note = page_of(first.result)
    assert len(first.result) <= RESULT_LIMIT and 0 < len(names) < 60
    assert note == f"showing results 1–{len(names)} of 60; call again with page=2 for more"
    assert note in first.observation  # what the model reads, fenced
    assert first.returned == BOOKS.paged(1) and first.summary == "60 results: a.md, b.txt, c.pdf, …"

    second = ran(world, "shelf.search", words="story", page=2)
    rest, note = page_of(second.result)
    assert names + rest == NAMES
    assert note == f"showing results {len(names) + 1}–60 of 60"
    assert second.summary == first.summary  # the card sums up the whole result

    past = ran(world, "shelf.search", words="story", page=3)
    assert past.result.endswith("[page 3 is past the end: the 60 results fit on 2 pages]")


def test_a_tool_that_does_not_page_says_how_many_items_it_left_out() -> None:
    everything = ran(shelf_world(), "shelf.all")
    names, note = page_of(everything.result)
    assert note == f"showing results 1–{len(names)} of 60; the other {60 - len(names)} are left out"
    assert names == NAMES[: len(names)]


def test_text_and_results_without_a_list_are_cut_with_the_count_of_characters() -> None:
    text = "x" * (RESULT_LIMIT + 25)
    assert result_text(text) == "x" * RESULT_LIMIT + "\n[... 25 more characters cut]"
    record = {"text": "y" * RESULT_LIMIT}
    assert result_text(record).endswith(
        f"\n[... {len(json.dumps(record)) - RESULT_LIMIT} more characters cut]"
    )
    assert result_text(["short"]) == '["short"]'


def test_the_audit_keeps_the_model_s_text_and_the_card_s_line() -> None:
    world = shelf_world()
    first = ran(world, "shelf.search", words="story")
    (row,) = [e for e in world.audit.entries(call_id=first.call.id) if e.outcome == "executed"]
    assert row.card_summary == "60 results: a.md, b.txt, c.pdf, …"
    assert row.result_summary.startswith('{"results": [{"name": "a.md"')


def test_a_page_past_the_end_of_a_one_item_result_counts_it_in_the_singular() -> None:
    one = Books(results=BOOKS.results[:1]).paged(2)
    assert result_text(one).endswith("[page 2 is past the end: the 1 result fits on 1 page]")
