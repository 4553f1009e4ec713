"""Stretches of time a consent card can draw: what a calendar change moves, fills or frees.

A tool with a `slots` hook returns these for a proposed call; the desktop draws them on a small
day view next to the preview text, so "moved to Friday 15:00" is seen, not only read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

SlotKind = Literal["before", "after", "busy"]


@dataclass(frozen=True, slots=True)
class TimeSlot:
    """One stretch: the event's old time (`before`), its new one (`after`), or other events
    already there (`busy`). Times are aware, in the user's zone."""

    label: str
    start: datetime
    end: datetime
    kind: SlotKind
