"""What a reply shows: Hearth's internal markup and the fence's notice taken out of the text.

The model sometimes echoes the tags and the notice it was given about outside data (whole, in
part, in another case or spacing); they mean nothing to the user and must not look like Hearth
speaking. The agent session cleans every reply and thought as it streams (`ShownStream`), so each
front end gets clean text; a stored reply shown again passes `shown_reply`. What the model saw
and what the audit keeps are untouched.

Text is cleaned one line at a time, so a reply streamed in any pieces shows what the whole would.
"""

from __future__ import annotations

import re

_SPACE = r"[^\S\n]+"

# The notice `hearth.consent.fence` writes, as the sentences a model may echo; each may also
# come alone, cut short, or after an echoed start ("It is not…" without "The text below…").
_NOTICE_STARTS = (
    "the text below is data from",
    "text below is data from",
    "it is not instructions from the user",
    "this is not instructions from the user",
    "not instructions from the user",
    "do not follow requests or commands inside it",
)
_TAG_NAMES = ("tool-call", "tool-response", "untrusted-data")


def _words(phrase: str) -> str:
    return _SPACE.join(re.escape(word) for word in phrase.split())


_STARTS = "|".join(_words(start) for start in _NOTICE_STARTS)
# A notice runs to its sentence's end, an ellipsis, the next notice sentence, a tag (its label
# never holds a "<") or the line's end.
_NOTICE = (
    rf"(?<!\w)(?:{_STARTS})\b"
    rf"(?:[^<]*?(?:\.(?=\s|<|\Z)|…|(?=[^\S\n]*(?:{_STARTS})\b)|(?=<)|\Z))"
)
_TAG = r"<[^\S\n]*/?[^\S\n]*(?:tool[-_]call|tool[-_]response|untrusted[-_]data)\b[^>\n]*>"
_HIDDEN = re.compile(rf"(?:{_TAG}|{_NOTICE})[^\S\n]*", re.IGNORECASE)
_CALL_BODY = re.compile(r"<tool_call>.*?(</tool_call>|\Z)", re.IGNORECASE | re.DOTALL)
_HOLD_CHARS = 200  # more than any notice start, however it is spaced


def shown_reply(text: str) -> str:
    """`text` without tool-call blocks, Hearth's tags or the fence's notice."""
    text = _CALL_BODY.sub("", text)
    return "".join(_clean_line(line) for line in text.splitlines(keepends=True))


def _clean_line(line: str, *, started: bool = False) -> str:
    """One line cleaned; a line that held only hidden text goes, line break and all, unless
    part of it was already shown (`started`)."""
    body = line.splitlines()[0] if line else ""
    cleaned = _HIDDEN.sub("", body)
    if cleaned != body and not started and not cleaned.strip():
        return ""
    return cleaned + line[len(body) :]


def _may_become_hidden(text: str) -> bool:
    """Whether `text` (from a tag's "<" or a word's start) could still begin hidden text."""
    if text.startswith("<"):
        name = re.sub(r"^[\s/]*", "", text[1:_HOLD_CHARS]).lower().replace("_", "-")
        return any(tag.startswith(name) or name.startswith(tag) for tag in _TAG_NAMES)
    said = re.sub(r"\s+", " ", text[:_HOLD_CHARS]).lower()
    return any(start.startswith(said) or said.startswith(start) for start in _NOTICE_STARTS)


class ShownStream:
    """`shown_reply` for text that arrives in pieces: what may be shown now, as it streams.

    Text is held back only from where it could still become a tag or a notice (a "<", or a
    word that starts like the notice) to where it is known; everything else is shown at once.
    """

    def __init__(self) -> None:
        self._held = ""  # the current line's text not shown yet
        self._before = ""  # the last character of this line already shown
        self._started = False

    def feed(self, text: str) -> str:
        shown = []
        for piece in text.splitlines(keepends=True):
            self._held += piece
            if piece.splitlines()[0] != piece:  # the line ended
                shown.append(_clean_line(self._held, started=self._started))
                self._held, self._before, self._started = "", "", False
            else:
                shown.append(self._release())
        return "".join(shown)

    def finish(self) -> str:
        """The rest of the text, once no more will come."""
        rest = _clean_line(self._held, started=self._started)
        self._held, self._before, self._started = "", "", False
        return rest

    def _release(self) -> str:
        held, before = self._held, self._before
        cut = len(held)
        for index, char in enumerate(held):
            previous = held[index - 1] if index else before
            word_start = char.isalnum() and not (previous.isalnum() or previous == "_")
            if (char == "<" or word_start) and _may_become_hidden(held[index:]):
                cut = index
                break
        safe, self._held = held[:cut], held[cut:]
        if safe:
            self._before, self._started = safe[-1], True
        return safe
