"""What a tool card says, in words: its state, why Hearth asks, the decision and the result.

Each sentence is built from the core's records as written there (the request's reason, the
`Ruling`, the result's summary); every outside word passes `hearth.shown`.
"""

from __future__ import annotations

from hearth import shown
from hearth.ui.chat.entries import CardState, ToolCardEntry
from hearth.ui.chat.outcome import argument_diff, filled_words

_REFUSED = ("denied", "invalid")
OUTCOME_WORDS = {
    "executed": "Done",
    "partial": "Partly done",
    "failed": "Failed",
    "denied": "Not run",
    "invalid": "Not run",
    "unknown": "Interrupted",
}


def state_words(entry: ToolCardEntry) -> str:
    if entry.state is CardState.PROPOSED:
        return "Checking permission…"
    if entry.state is CardState.ASKING:
        return "Needs your correction" if entry.problems else "Needs your approval"
    if entry.state is CardState.ANSWERED:
        return "Working…"
    words = OUTCOME_WORDS.get(entry.outcome, "")
    if entry.outcome == "executed" and entry.duration_ms >= 1:
        words += f" in {_duration(entry.duration_ms)}"
    return words


def _duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def why(entry: ToolCardEntry) -> str:
    asking = entry.state is CardState.ASKING and not entry.problems
    if asking and entry.overridden:
        # The rule of two's reason already says why the rule is set aside: said once.
        return f"Your rule would allow this ({shown(entry.overridden)}), but {shown(entry.reason)}."
    lines = []
    if entry.reason:
        lines.append(f"Why Hearth asks: {shown(entry.reason)}.")
    if asking:
        rule = f"Rule: {shown(entry.rule)}." if entry.rule else "Rule: none yet — Hearth asks."
        lines.append(rule)
    return "\n".join(lines)


def result_words(entry: ToolCardEntry) -> str:
    lines = []
    decided = shown(entry.ruling.sentence()) if entry.ruling is not None else ""
    if decided:
        lines.append(decided)
    summary = shown(entry.summary, lines=True)  # the core's line, escaped again to be sure
    if entry.outcome == "executed":
        lines.append(f"✓  {summary}" if summary else "✓  Done.")
    elif summary and not (decided and entry.outcome in _REFUSED):
        # A refusal's summary is what the model read of the ruling above: said once.
        lines.append(summary)
    return "\n".join(lines)


def edit_words(entry: ToolCardEntry) -> str:
    """The user's edit, one "name: old → new" line per changed argument, then the defaults
    Hearth filled in."""
    changes = argument_diff(entry.proposed, entry.arguments) if entry.proposed is not None else []
    edit = "You changed:\n" + "\n".join(f"  {line}" for line in changes) if changes else ""
    return "\n".join(part for part in (edit, filled_words(entry.filled)) if part)
