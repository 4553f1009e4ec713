"""Text put in one canonical spelling, so taint survives what a model changes when it copies.

Both sides of every comparison go through here: invisible and bidi characters are dropped,
compatibility forms folded (NFKC), case and whitespace ignored, and paths spelt one way
(`//`, `/./`, a trailing `/`, `..`, `~` and backslashes do not matter).
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hearth.display import shown

# Zero-width characters, bidi embeddings, overrides and isolates, the BOM and the soft hyphen:
# invisible on screen, so text spelt with them reads the same to the model and the user.
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00ad]")
_END = r"""(?=$|[\s"'`,;)\]}>|])"""
_SLASHES = re.compile(r"/{2,}")
_DOT_SEGMENTS = re.compile(r"/(?:\./)+")
_TRAILING_DOT = re.compile(r"/\." + _END)
_TRAILING_SLASH = re.compile(r"(?<=[^\s/])/+" + _END)
_ESCAPES = re.compile(r"""\\(["\\/nrt])""")
_ESCAPED = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "r": "\n", "t": "\t"}
# A path as written in prose: starting at a word boundary with `/`, `~/` or a drive letter.
_PATH = re.compile(
    r"""(?<![^\s"'`(\[<=,:;])(~?/[^\s"'`<>|,;()\[\]{}]*|[A-Za-z]:[\\/][^\s"'`<>|,;()\[\]{}]*)"""
)
_QUOTED_PATH = re.compile(r"""(["'`])(~?/[^"'`\n]+|[A-Za-z]:[\\/][^"'`\n]+)\1""")
_PATH_LIMIT = 200
_LABEL_MAX = 120


def visible(text: str) -> str:
    """`text` without invisible characters, in Unicode compatibility form (NFKC)."""
    return INVISIBLE.sub("", unicodedata.normalize("NFKC", INVISIBLE.sub("", text)))


def normalise(text: str) -> str:
    """Visible text, case-folded, with every run of whitespace made one space."""
    return " ".join(visible(text).split()).casefold()


def canonical(text: str) -> str:
    """Normalised text with every path in it spelt one way."""
    text = normalise(text).replace("\\", "/")
    text = _SLASHES.sub("/", text)
    text = _DOT_SEGMENTS.sub("/", text)
    text = _TRAILING_DOT.sub("", text)
    return _TRAILING_SLASH.sub("", text)


def looks_like_path(text: str) -> bool:
    return text.startswith(("/", "~")) or re.match(r"[A-Za-z]:[\\/]", text) is not None


def lexical_path(text: str) -> str:
    """The path spelt plainly without touching the disk: `~` expanded, `//`, `.`, `..` folded."""
    try:
        expanded = Path(text).expanduser()
    except RuntimeError:  # no home folder to expand `~` to
        expanded = Path(text)
    return os.path.normpath(expanded)


def real_path(text: str) -> str | None:
    """The symlink-free absolute form of a path; None for relative or unusable ones."""
    if not Path(text).is_absolute():
        return None
    try:
        return os.path.realpath(text)
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class Haystack:
    """One text as taint compares against it: canonical, plus the paths it names as written."""

    text: str
    paths: tuple[str, ...]

    @classmethod
    def of(cls, raw: str) -> Haystack:
        readable = visible(_readable(raw))
        paths = tuple(dict.fromkeys(_paths(readable)))[:_PATH_LIMIT]
        spelled = "\n".join(canonical(lexical_path(path)) for path in paths)
        return cls(f"{canonical(readable)}\n{spelled}", paths)

    def has(self, atom: str) -> bool:
        return atom in self.text

    def has_name(self, name: str) -> bool:
        """Whether `name` (canonical) stands alone in the text: a file name, a word."""
        return _whole(name).search(self.text) is not None


def _whole(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.\-]){re.escape(name)}(?![\w\-]|\.\w)")


def _readable(raw: str) -> str:
    """The text plus what its JSON holds (or its escapes undone), so names stand on their own."""
    try:
        data = json.loads(raw)
    except ValueError:
        return f"{raw}\n{_ESCAPES.sub(lambda m: _ESCAPED[m.group(1)], raw)}" if "\\" in raw else raw
    if not isinstance(data, dict | list):
        return raw
    return "\n".join([raw, *_json_leaves(data)])


def _json_leaves(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _json_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_leaves(item)
    elif value is not None:
        yield str(value)


def _paths(text: str) -> Iterator[str]:
    for line in text.splitlines():
        stripped = line.strip()
        if looks_like_path(stripped) and "\t" not in stripped:
            yield stripped
    for match in _QUOTED_PATH.finditer(text):
        yield match.group(2)
    for match in _PATH.finditer(text):
        yield match.group(1).rstrip(".:")


def safe_text(text: str) -> str:
    """`text` on one line as Hearth shows outside text: the gate's wording calls it by this name."""
    return shown(text)


def safe_label(text: str) -> str:
    """One line of safe text, cut to a label's length."""
    label = " ".join(shown(text, lines=True).split())  # a U+2028 or a CR stays visible
    return label if len(label) <= _LABEL_MAX else label[: _LABEL_MAX - 1] + "…"
