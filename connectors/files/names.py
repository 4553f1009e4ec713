"""Names and paths as people see them: characters that could spoof what a card or terminal shows.

Control characters (C0, DEL, C1), line and paragraph separators, bidirectional overrides and
isolates, and zero-width characters can make a name read as something else ("invoice\u202efdp.exe"
shows as "invoiceexe.pdf"), hide text, or drive a terminal. Hearth never creates a name with one,
and everywhere it shows a path or name it writes them as escapes (`\\u202e`, `\\x1b`). A path
given back in that escaped form names the same file: backslashes are never valid in a path Hearth
accepts, so the escapes cannot be confused with real characters.
"""

from __future__ import annotations

import re

_SPOOFING = re.compile(
    "[\x00-\x1f\x7f-\x9f"  # C0 controls (newline, tab, ESC of ANSI escapes), DEL, C1 controls
    "\u061c\u180e"  # Arabic letter mark, Mongolian vowel separator
    "\u200b-\u200f"  # zero-width space, joiners, left-to-right and right-to-left marks
    "\u2028\u2029"  # line and paragraph separators
    "\u202a-\u202e"  # bidirectional embeddings and overrides
    "\u2060-\u2064\u2066-\u2069"  # word joiner, invisible operators, bidirectional isolates
    "\ufeff"  # zero-width no-break space (byte order mark)
    "\\\\]"  # the backslash itself, so every escape reads back to exactly one name
)
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})")


def spoofing_characters(name: str) -> str:
    """The characters in `name` that could spoof what is shown, escaped; "" when there are none."""
    return "".join(_escape(found) for found in _SPOOFING.finditer(name) if found.group() != "\\")


def shown(text: str, *, keep: str = "") -> str:
    """`text` with every character that could spoof it escaped, except those in `keep`."""
    return _SPOOFING.sub(
        lambda found: found.group() if found.group() in keep else _escape(found), text
    )


def unshown(text: str) -> str:
    """A path or name as `shown` wrote it, with its escapes turned back into characters."""
    return _ESCAPE.sub(lambda found: chr(int(found.group(1) or found.group(2), 16)), text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
