"""Outside text: words neither the user nor Hearth wrote, which reach the model only fenced.

A tool's output, an error that quotes a file or calendar name, a server's message, the
description an MCP server gives its tool: any of them may carry instructions from a stranger.
They travel as `OutsideText`, never as a plain `str`, and `TaintTracker.fence` is the one place
that turns one into prompt text, recording it as read (the rule of two) as it fences it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OutsideText:
    """`text` from outside, and `source`, what it is in words ("error from files.read of …")."""

    text: str
    source: str
