"""How far the model has read the prompt, on one line of stderr that the reply then replaces.

Only a terminal gets it: piped output (a script, a test) stays exactly the reply.
"""

from __future__ import annotations

import math
import sys
from typing import TextIO

import click

from hearth import PromptProgress

CLEAR = "\r\x1b[2K"  # back to the line's start, then erase the whole line


class ReadingLine:
    """`reading… 40%`, dimmed, rewritten in place after each batch; `clear` wipes it."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._terminal = self._stream.isatty()
        self._shown = False

    def show(self, progress: PromptProgress) -> None:
        if not self._terminal:
            return
        said = click.style(f"reading… {math.floor(progress.fraction * 100)}%", dim=True)
        self._stream.write(CLEAR + said)
        self._stream.flush()
        self._shown = True

    def clear(self) -> None:
        """Wipe the line, before anything else is printed."""
        if self._shown:
            self._stream.write(CLEAR)
            self._stream.flush()
            self._shown = False
