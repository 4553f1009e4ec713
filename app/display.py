"""The one way Hearth shows text it did not write: what could change how it reads, made visible.

A file name, a mail subject or body, a calendar's name, a server's message, or an argument the
model copied from one of them can hold characters that change what a person reads without being
seen: bidirectional controls ("invoice\\u202efdp.exe" reads "invoiceexe.pdf"), line and paragraph
separators that start a line of their own ("⚠ Hearth: this file is safe"), control characters
and the ESC that starts a terminal's escape sequences (moving the cursor, erasing a line, setting
the window title), and zero-width or other invisible characters. `shown` writes each as an escape
(`\\u202e`, `\\x1b`), so a card, a terminal, a table or an export shows what the text really is.
"""

from __future__ import annotations

import re
import unicodedata

# Invisible characters that are not Unicode format characters (those are all escaped): the
# combining grapheme joiner, Hangul and Khmer fillers, Mongolian variation selectors, the blank
# Braille pattern and the variation selectors.
_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\uffa0\ufe00-\ufe0f"
    "\U000e0100-\U000e01ef]"
)
_HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")  # controls, format, separators, surrogates
_EMOJI_STYLE = "\ufe0e\ufe0f"  # text or emoji style for the symbol just before: kept there
_MARKS_SHOWN = 4  # combining marks on one letter beyond this are escaped (stacked "Zalgo" text)
_ESCAPE = re.compile(
    r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\U(000[0-9a-fA-F]{5}|0010[0-9a-fA-F]{4})"
)


def shown(text: str, *, lines: bool = False, reversible: bool = False) -> str:
    """`text` with every character that could change how it reads written as an escape.

    Escaped: C0 and C1 controls (ESC, BEL, CR, VT, FF, NEL…), DEL, bidirectional controls, line
    and paragraph separators, zero-width and other invisible characters, and a combining mark on
    an escape or past the fourth on one letter. With `lines`, line breaks and tabs stay, for text
    shown on several lines on purpose (a message body); CR LF counts as a line break. With
    `reversible`, the backslash is escaped too (`\\x5c`), so `unshown` gives back exactly `text`.
    """
    if text.isascii() and text.isprintable() and not (reversible and "\\" in text):
        return text
    if lines:
        text = text.replace("\r\n", "\n")
    out: list[str] = []
    escaped_last = False
    marks = 0
    for char in text:
        is_mark = unicodedata.category(char) in ("Mn", "Me")
        marks = marks + 1 if is_mark else 0
        before = out[-1][-1:] if out else ""
        if _hidden(char, before, lines=lines, reversible=reversible) or (
            is_mark and (escaped_last or marks > _MARKS_SHOWN)
        ):
            out.append(_escape(char))
            escaped_last = True
        else:
            out.append(char)
            escaped_last = False
    return "".join(out)


def shown_data(data: object, *, lines: bool = False) -> object:
    """JSON-like `data` with every string in it `shown`, keys too (always on one line)."""
    if isinstance(data, str):
        return shown(data, lines=lines)
    if isinstance(data, dict):
        return {shown(str(key)): shown_data(value, lines=lines) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [shown_data(item, lines=lines) for item in data]
    return data


def unshown(text: str) -> str:
    """Text as `shown(…, reversible=True)` wrote it, its escapes turned back into characters."""
    return _ESCAPE.sub(lambda found: chr(int(next(g for g in found.groups() if g), 16)), text)


def _hidden(char: str, before: str, *, lines: bool, reversible: bool) -> bool:
    if char == "\\":
        return reversible
    if lines and char in "\n\t":
        return False
    if char.isascii():
        return not char.isprintable()
    if char in _EMOJI_STYLE and before and unicodedata.category(before) == "So":
        return False
    return unicodedata.category(char) in _HIDDEN_CATEGORIES or _INVISIBLE.match(char) is not None


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
