"""Names and paths as the files connector shows them: Hearth's one escaping rule, reversibly.

Control characters (C0, DEL, C1), line and paragraph separators, bidirectional overrides and
isolates, and zero-width characters can make a name read as something else ("invoice\\u202efdp.exe"
shows as "invoiceexe.pdf"), hide text, or drive a terminal. Hearth never creates a name with one,
and everywhere it shows a path or name it writes them as escapes (`\\u202e`, `\\x1b`) with
`hearth.shown`. A path given back in that escaped form names the same file: the backslash itself
is escaped too (`\\x5c`), so `unshown` reads every escape back to exactly one name.
"""

from __future__ import annotations

import re

import hearth
from hearth import unshown

__all__ = ["shown", "spoofing_characters", "unshown"]

_ESCAPE = re.compile(r"\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}")
_BACKSLASH = "\\x5c"


def shown(text: str) -> str:
    """`text` with every character that could spoof it escaped, the backslash included."""
    return hearth.shown(text, reversible=True)


def spoofing_characters(name: str) -> str:
    """The characters in `name` that could spoof what is shown, escaped; "" when there are none."""
    return "".join(e for e in _ESCAPE.findall(shown(name)) if e != _BACKSLASH)
