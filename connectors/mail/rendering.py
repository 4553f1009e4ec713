"""HTML mail made into plain text for the model, with text the sender hid from the user removed.

A sender can hide instructions from the reader (white on white, zero size, display:none, ...)
that a model reading the raw text would still obey. We drop such text and count what we
dropped so the user can be told. Nothing is ever fetched: images are ignored, links are text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

import html2text
from bs4 import BeautifulSoup
from bs4.element import NavigableString, PreformattedString, Tag

from hearth.connectors.mail.css import (
    Colour,
    RuleIndex,
    length_px,
    parse_colour,
    parse_number,
    stylesheet_rules,
)

MAX_HTML_CHARS = 1_000_000
_DROPPED_TAGS = ("script", "style", "head", "template", "noscript", "iframe", "object", "embed")
_OFFSCREEN_PX = -999.0
_TINY_FONT_PX = 4 / 3  # 1pt; anything this small is unreadable
_COLOUR_SLACK = 8  # #fefefe on white is as invisible as #ffffff

# Joiners and emoji/hyphenation marks that appear in ordinary text: removed, not counted as hidden.
_BENIGN_INVISIBLE = frozenset("\u00ad\u200c\u200d\ufe0e\ufe0f")
_INVISIBLE_EXTRA = frozenset("\u034f\u115f\u1160\u3164\uffa0\u180e")


@dataclass(frozen=True)
class Rendered:
    """Readable text, and how many characters the sender hid from the user that we removed."""

    text: str
    hidden_chars: int


@dataclass(frozen=True)
class _Inherited:
    colour: Colour | None
    background: Colour | None
    font_px: float | None
    invisible: bool
    opacity: float


def strip_invisible(text: str) -> tuple[str, int]:
    """Remove zero-width, bidi, tag and other format characters; return the text and a count."""
    kept: list[str] = []
    counted = 0
    for char in text:
        if _is_invisible(char):
            counted += char not in _BENIGN_INVISIBLE
        else:
            kept.append(char)
    return "".join(kept), counted


def _is_invisible(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char) in ("Cf", "Cs")
        or char in _INVISIBLE_EXTRA
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0000 <= code <= 0xE01EF  # tag characters and supplementary variation selectors
        or (code < 0x20 and char not in "\t\n\r")
    )


def render_html(html: str) -> Rendered:
    """Turn untrusted HTML into plain text without the parts a reader could not see."""
    # Lone surrogates (from lenient decoding) cannot be parsed; they become "?".
    markup = html[:MAX_HTML_CHARS].encode("utf-8", "replace").decode("utf-8")
    soup = BeautifulSoup(markup, "html.parser")
    rules = stylesheet_rules(" ".join(style.get_text() for style in soup.find_all("style")))
    for special in soup.find_all(string=lambda s: isinstance(s, PreformattedString)):
        special.extract()  # comments, CDATA, doctypes: never shown
    for dropped in soup.find_all(_DROPPED_TAGS):
        dropped.decompose()
    hidden = _remove_hidden(soup, RuleIndex(rules))
    converter = html2text.HTML2Text()
    converter.ignore_images = True
    converter.images_to_alt = False
    converter.body_width = 0
    converter.unicode_snob = True
    text, invisible = strip_invisible(converter.handle(str(soup)))
    return Rendered(text=text.strip(), hidden_chars=hidden + invisible)


def _remove_hidden(soup: BeautifulSoup, rules: RuleIndex) -> int:
    root = _Inherited((0, 0, 0, 1.0), (255, 255, 255, 1.0), 16.0, False, 1.0)
    hidden = 0
    stack: list[tuple[Tag, _Inherited]] = [(soup, root)]
    while stack:  # iterative: hostile HTML can nest far deeper than Python's recursion limit
        element, inherited = stack.pop()
        style = rules.style_of(element) if element is not soup else {}
        state = _inherit(element, style, inherited)
        if element is not soup and _hides_subtree(element, style, state):
            hidden += _visible_length(element.get_text())
            element.decompose()
            continue
        for child in list(element.children):
            if isinstance(child, Tag):
                stack.append((child, state))
            elif isinstance(child, NavigableString) and _hides_text(state):
                hidden += _visible_length(str(child))
                child.extract()
    return hidden


def _visible_length(text: str) -> int:
    return sum(1 for char in text if not char.isspace())


def _hides_subtree(element: Tag, style: dict[str, str], state: _Inherited) -> bool:
    overflow_hidden = "hidden" in (style.get("overflow", "") + style.get("overflow-y", ""))
    zero_box = any(
        length_px(style.get(p), 16.0) == 0 for p in ("height", "width", "max-height", "max-width")
    )
    positioned = style.get("position", "static") in ("absolute", "fixed", "relative")
    offsets = ["text-indent", "margin-left", "margin-top"] + (
        ["left", "top", "right"] if positioned else []
    )
    return (
        element.has_attr("hidden")
        or style.get("display") == "none"
        or state.opacity < 0.1
        or style.get("mso-hide") == "all"
        or (overflow_hidden and zero_box)
        or any((length_px(style.get(p), 16.0) or 0.0) <= _OFFSCREEN_PX for p in offsets)
        or re.sub(r"[\s,]|px", "", style.get("clip", "")) == "rect(0000)"
        or style.get("clip-path", "").replace(" ", "") in ("inset(50%)", "inset(100%)", "circle(0)")
        or "scale(0)" in style.get("transform", "").replace(" ", "")
    )


def _hides_text(state: _Inherited) -> bool:
    if state.invisible or (state.font_px is not None and state.font_px <= _TINY_FONT_PX):
        return True
    if state.colour is None:
        return False
    if state.colour[3] < 0.1:
        return True
    return state.background is not None and all(
        abs(a - b) <= _COLOUR_SLACK
        for a, b in zip(state.colour[:3], state.background[:3], strict=True)
    )


def _inherit(element: Tag, style: dict[str, str], parent: _Inherited) -> _Inherited:
    colour = parse_colour(style.get("color") or _attribute(element, "color"))
    background = parent.background
    shorthand = style.get("background", "")
    declared = style.get("background-color") or _attribute(element, "bgcolor")
    if declared is None and shorthand:
        declared = next((word for word in shorthand.split() if parse_colour(word)), None)
    if declared is not None and (parsed := parse_colour(declared)) is not None and parsed[3] >= 0.1:
        background = parsed
    elif (
        "url(" in shorthand
        or "url(" in style.get("background-image", "")
        or element.has_attr("background")
    ):
        background = None  # text over an image we do not load: its colour tells us nothing
    visibility = style.get("visibility")
    opacity = parse_number(style.get("opacity"))
    return replace(
        parent,
        colour=colour or parent.colour,
        background=background,
        font_px=_font_px(style, parent.font_px),
        invisible=visibility in ("hidden", "collapse")
        or (parent.invisible and visibility != "visible"),
        opacity=parent.opacity * (1.0 if opacity is None else max(0.0, min(opacity, 1.0))),
    )


def _attribute(element: Tag, name: str) -> str | None:
    value = element.get(name)
    return value if isinstance(value, str) else None


def _font_px(style: dict[str, str], parent_px: float | None) -> float | None:
    value = style.get("font-size")
    if value is None and (
        shorthand := re.search(r"(?:^|\s)([\d.]+[a-z%]*)\s*(?:/|\s|$)", style.get("font", ""))
    ):
        value = shorthand.group(1)  # `font: 0/0 a` is a classic way to hide text
    size = length_px(value, parent_px)
    return parent_px if size is None else size
