"""One turn as the desktop window runs it: `Assistant.open()`, `session()`, the executor, a standing
rule. A scripted model proposes `hold` (the test's plugin), so no model has to load.

Run by test_live_calls.py as `python -m tests.app.live_window`; prints `ran <outcome>`.
"""

from __future__ import annotations

import time

from hearth.agent import ConsentAsked, Deny, ToolRan
from hearth.assistant import Assistant
from hearth.consent import Rule
from hearth.messages import CancelToken
from tests.app.agent.scripted import Reply, ScriptedModel


def main() -> None:
    model = ScriptedModel([Reply(calls=[("holder.hold", {"note": "window"})]), Reply(text="Done.")])
    assistant = Assistant.open(model)
    try:
        # What "Always allow" on the window's card leaves: a standing rule, so no one is asked.
        assistant.allow(Rule.create("holder.hold", "allow", now=time.time()))
        session = assistant.session()
        for step in session.run_turn("Hold the note.", CancelToken()):
            if isinstance(step, ConsentAsked):
                step.request.answer(Deny("the test expected the standing rule to allow it"))
            if isinstance(step, ToolRan):
                print(f"ran {step.outcome}", flush=True)
    finally:
        assistant.close()


if __name__ == "__main__":
    main()
