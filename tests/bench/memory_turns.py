"""The turns tests/bench/memory.py repeats: a user's requests across every connector.

Each scripted turn makes its calls one per step, as a model would, and the user allows each.
Changes come in pairs that undo each other over two rounds (a note moved and moved back, a
file written and thrown away, an event moved and moved back, a flag set and cleared, the volume
down and up), or within the
turn (an event created, then deleted by the id its creation returned), so the data the servers
hold stays the same size and what grows is Hearth's. Sent mail is the exception: one message a
round lands in the Sent folder, and the bench takes each off the SMTP server as it arrives.

Real-model turns put a question to the SmolLM2 test model, each the first of a new
conversation, with the tools the planner offers for it; the model may propose anything, so the
user denies every card it raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hearth.messages import Message
from tests.bench.loopback_world import STATE, World

Call = tuple[str, dict[str, Any]]
# A call made from what the conversation holds so far (the id a creation returned).
LaterCall = Callable[[list[Message]], Call]
_RETURNED_ID = re.compile(r'"id":\s*"([^"]+)"')


@dataclass(frozen=True)
class Turn:
    text: str
    calls: tuple[Call | LaterCall, ...] = ()
    real: bool = False  # answered by the real model, which may propose anything


REAL_TURNS = (
    Turn("Say hello to me in one short sentence.", real=True),
    Turn("Which files are in my Documents folder?", real=True),
    Turn("What is on my calendar today?", real=True),
)


def scripted_turns(world: World, round_: int) -> list[Turn]:
    """Round `round_` of the scripted turns; odd rounds undo what even rounds changed."""
    documents, day = world.documents, world.now.date().isoformat()
    back = round_ % 2 == 1
    laptop = STATE.settings
    planning = world.id_of("event", "Planning")
    minutes = world.id_of("mail", "Minutes of the board meeting")
    notes, letters, plan = documents / "notes.txt", documents / "Letters", documents / "plan.txt"
    moved = (str(letters / "notes.txt"), str(documents)) if back else (str(notes), str(letters))
    return [
        Turn(
            "What files are in my Documents folder? Read the budget file.",
            (
                ("files.list", {"folder": str(documents)}),
                ("files.read", {"path": str(documents / "budget-2025.txt")}),
            ),
        ),
        Turn("Search my files for the tax return.", (("files.search", {"query": "tax return"}),)),
        (
            Turn("Throw plan.txt away.", (("files.trash", {"paths": [str(plan)]}),))
            if back
            else Turn(
                "Write today's plan into a file called plan.txt.",
                (("files.write_text", {"path": str(plan), "text": f"Plan {round_}"}),),
            )
        ),
        Turn(
            "Move my notes file into the Letters folder." if not back else "Move the notes back.",
            (("files.move", {"sources": [moved[0]], "destination": moved[1]}),),
        ),
        Turn(
            "What is on my calendar today, and when am I free?",
            (
                ("calendar.list_events", {"start": day}),
                ("calendar.find_free_slot", {"start": day, "duration_minutes": 30}),
            ),
        ),
        Turn(
            "Move the Planning meeting.",
            (
                (
                    "calendar.update_event",
                    {
                        "calendar": "Work",
                        "id": planning,
                        "start": f"{day}T{'09' if back else '11'}:00",
                    },
                ),
            ),
        ),
        Turn(
            "Add a dentist appointment to my calendar, then remove it again.",
            (
                (
                    "calendar.create_event",
                    {"calendar": "Work", "title": "Dentist", "start": f"{day}T15:00"},
                ),
                _delete_created,
            ),
        ),
        Turn(
            "Any new mail? Read the board minutes.",
            (("mail.list", {}), ("mail.read", {"message": minutes})),
        ),
        Turn("Search my mail for the drawings.", (("mail.search", {"words": "drawings"}),)),
        Turn(
            "Flag the board minutes email." if not back else "Unflag the board minutes email.",
            (("mail.flag", {"messages": [minutes], "state": "unflagged" if back else "flagged"}),),
        ),
        Turn(
            "Send Kari an email to thank her for the drawings.",
            (
                (
                    "mail.send",
                    {
                        "to": ["kari@fjord.example"],
                        "subject": "Drawings",
                        "body": f"Thanks! ({round_})",
                    },
                ),
            ),
        ),
        Turn(
            "How is my laptop doing? Turn the volume "
            + ("up." if back else "down, and the screen dimmer."),
            (
                ("system.status", {}),
                ("system.set_volume", {"level": laptop.volume if back else 30}),
                ("system.set_brightness", {"level": laptop.brightness if back else 40}),
            ),
        ),
        Turn(
            "Turn do not disturb " + ("off." if back else "on."),
            (("system.set_do_not_disturb", {"enabled": not back}),),
        ),
    ]


def _delete_created(messages: list[Message]) -> Call:
    made = _RETURNED_ID.search(messages[-1].content)
    if made is None:
        raise RuntimeError(f"the creation returned no id: {messages[-1].content[:300]}")
    return ("calendar.delete_event", {"calendar": "Work", "id": made.group(1)})
