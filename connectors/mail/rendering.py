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
import soupsieve
from bs4 import BeautifulSoup
from bs4.element import NavigableString, PreformattedString, Tag

MAX_HTML_CHARS = 1_000_000
# Bounds on the work an attacker's stylesheet can cause (each match is a few microseconds).
_MAX_RULES = 2_000
_MAX_MATCHES = 400_000
_DROPPED_TAGS = ("script", "style", "head", "template", "noscript", "iframe", "object", "embed")
_OFFSCREEN_PX = -999.0
_TINY_FONT_PX = 4 / 3  # 1pt; anything this small is unreadable
_COLOUR_SLACK = 8  # #fefefe on white is as invisible as #ffffff

# Joiners and emoji/hyphenation marks that appear in ordinary text: removed, not counted as hidden.
_BENIGN_INVISIBLE = frozenset("\u00ad\u200c\u200d\ufe0e\ufe0f")
_INVISIBLE_EXTRA = frozenset("\u034f\u115f\u1160\u3164\uffa0\u180e")

Colour = tuple[int, int, int, float]
_NAMED_HEX = (
    "white:ffffff black:000000 red:ff0000 green:008000 blue:0000ff yellow:ffff00 "
    "gray:808080 grey:808080 silver:c0c0c0 maroon:800000 purple:800080 fuchsia:ff00ff "
    "lime:00ff00 olive:808000 navy:000080 teal:008080 aqua:00ffff cyan:00ffff "
    "magenta:ff00ff orange:ffa500 snow:fffafa ivory:fffff0 whitesmoke:f5f5f5 "
    "ghostwhite:f8f8ff floralwhite:fffaf0 seashell:fff5ee mintcream:f5fffa azure:f0ffff "
    "aliceblue:f0f8ff linen:faf0e6 oldlace:fdf5e6 honeydew:f0fff0 lavenderblush:fff0f5 "
    "beige:f5f5dc cornsilk:fff8dc lightyellow:ffffe0 gainsboro:dcdcdc "
    "lightgray:d3d3d3 lightgrey:d3d3d3 darkgray:a9a9a9 darkgrey:a9a9a9 dimgray:696969 "
    "dimgrey:696969 darkslategray:2f4f4f darkslategrey:2f4f4f midnightblue:191970"
)
_NAMED_COLOURS: dict[str, Colour] = {
    name: (int(hexa[0:2], 16), int(hexa[2:4], 16), int(hexa[4:6], 16), 1.0)
    for name, hexa in (pair.split(":") for pair in _NAMED_HEX.split())
}


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


@dataclass(frozen=True)
class _Rule:
    order: int
    specificity: tuple[int, int, int]
    selector: soupsieve.SoupSieve
    declarations: dict[str, str]
    important: dict[str, str]


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
    rules = _stylesheet_rules(" ".join(style.get_text() for style in soup.find_all("style")))
    for special in soup.find_all(string=lambda s: isinstance(s, PreformattedString)):
        special.extract()  # comments, CDATA, doctypes: never shown
    for dropped in soup.find_all(_DROPPED_TAGS):
        dropped.decompose()
    hidden = _remove_hidden(soup, _RuleIndex(rules))
    converter = html2text.HTML2Text()
    converter.ignore_images = True
    converter.images_to_alt = False
    converter.body_width = 0
    converter.unicode_snob = True
    text, invisible = strip_invisible(converter.handle(str(soup)))
    return Rendered(text=text.strip(), hidden_chars=hidden + invisible)


def _remove_hidden(soup: BeautifulSoup, rules: _RuleIndex) -> int:
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
        _length_px(style.get(p), 16.0) == 0 for p in ("height", "width", "max-height", "max-width")
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
        or any((_length_px(style.get(p), 16.0) or 0.0) <= _OFFSCREEN_PX for p in offsets)
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
    colour = _parse_colour(style.get("color") or _attribute(element, "color"))
    background = parent.background
    shorthand = style.get("background", "")
    declared = style.get("background-color") or _attribute(element, "bgcolor")
    if declared is None and shorthand:
        declared = next((word for word in shorthand.split() if _parse_colour(word)), None)
    if (
        declared is not None
        and (parsed := _parse_colour(declared)) is not None
        and parsed[3] >= 0.1
    ):
        background = parsed
    elif (
        "url(" in shorthand
        or "url(" in style.get("background-image", "")
        or element.has_attr("background")
    ):
        background = None  # text over an image we do not load: its colour tells us nothing
    visibility = style.get("visibility")
    opacity = _number(style.get("opacity"))
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
    size = _length_px(value, parent_px)
    return parent_px if size is None else size


def _number(value: str | None) -> float | None:
    match = re.fullmatch(r"\s*(-?\d*\.?\d+)\s*(%?)\s*", value or "")
    if match is None:
        return None
    return float(match.group(1)) / (100 if match.group(2) else 1)


def _length_px(value: str | None, relative_to: float | None) -> float | None:
    match = re.fullmatch(
        r"\s*(-?\d*\.?\d+)\s*(px|pt|em|rem|%|cm|mm|in|pc|ex|ch|vw|vh)?\s*", value or ""
    )
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2) or "px"
    if number == 0:
        return 0.0
    scale = {"px": 1.0, "pt": 4 / 3, "rem": 16.0, "cm": 37.8, "mm": 3.78, "in": 96.0, "pc": 16.0}
    if unit in scale:
        return number * scale[unit]
    if relative_to is None or unit in ("vw", "vh"):
        return None
    return number * relative_to / (100 if unit == "%" else 1) / (2 if unit in ("ex", "ch") else 1)


def _parse_colour(value: str | None) -> Colour | None:
    value = (value or "").strip().lower()
    if value == "transparent":
        return (0, 0, 0, 0.0)
    if value in _NAMED_COLOURS:
        return _NAMED_COLOURS[value]
    if re.fullmatch(r"#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})", value):
        digits = value[1:] if len(value) > 5 else "".join(c * 2 for c in value[1:])
        alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
        return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16), alpha)
    match = re.fullmatch(r"rgba?\(([^)]*)\)", value)
    if match is None:
        return None
    values: list[float] = []
    for part in (p for p in re.split(r"[\s,/]+", match.group(1)) if p):
        number = _number(part)
        if number is None:
            return None
        values.append(number * 255 if part.endswith("%") and len(values) < 3 else number)
    if len(values) not in (3, 4):
        return None
    return (
        round(values[0]),
        round(values[1]),
        round(values[2]),
        values[3] if len(values) == 4 else 1.0,
    )


def _declarations(css: str) -> tuple[dict[str, str], dict[str, str]]:
    normal: dict[str, str] = {}
    important: dict[str, str] = {}
    for declaration in css.split(";"):
        name, _, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip().lower()
        if name and value:
            target = important if value.endswith("!important") else normal
            target[name] = value.removesuffix("!important").strip()
    return normal, important


def _stylesheet_rules(css: str) -> list[_Rule]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules: list[_Rule] = []
    for match in re.finditer(r"([^{}]+)\{([^{}]*)\}", css):
        normal, important = _declarations(match.group(2))
        for selector in match.group(1).rsplit(";", 1)[-1].split(","):
            selector = selector.strip()
            if not selector or selector.startswith("@") or len(rules) >= _MAX_RULES:
                continue
            try:
                compiled = soupsieve.compile(selector)
            except Exception:  # a malformed or unsupported selector is skipped
                continue
            specificity = (
                selector.count("#"),
                len(re.findall(r"[.\[:]", selector)),
                len(re.findall(r"(?:^|[\s>+~])[a-z]", selector)),
            )
            rules.append(_Rule(len(rules), specificity, compiled, normal, important))
    return rules


class _RuleIndex:
    """Stylesheet rules bucketed by their subject's id, class or tag: few are tried per element."""

    def __init__(self, rules: list[_Rule]) -> None:
        self.by_key: dict[str, list[_Rule]] = {}
        self.everywhere: list[_Rule] = []
        self.matches_left = _MAX_MATCHES
        for rule in rules:
            subject = re.split(r"[\s>+~]+", rule.selector.pattern.strip())[-1]
            key = re.match(r"[a-zA-Z][\w-]*|[#.][\w-]+", subject)
            if key is None or re.search(r"[\[\]()\"'\\]", rule.selector.pattern):
                self.everywhere.append(rule)  # unsure of the subject: try it on every element
            else:
                name = key.group(0) if key.group(0)[0] in "#." else key.group(0).lower()
                self.by_key.setdefault(name, []).append(rule)

    def style_of(self, element: Tag) -> dict[str, str]:
        classes = element.get_attribute_list("class")
        keys = [f"#{element.get('id')}", element.name.lower()] + [f".{c}" for c in classes]
        candidates = self.everywhere + [rule for key in keys for rule in self.by_key.get(key, [])]
        self.matches_left -= len(candidates)
        matched = [r for r in candidates if self.matches_left > 0 and r.selector.match(element)]
        matched.sort(key=lambda rule: (rule.specificity, rule.order))
        inline_normal, inline_important = _declarations(_attribute(element, "style") or "")
        style: dict[str, str] = {}
        for rule in matched:
            style.update(rule.declarations)
        style.update(inline_normal)
        for rule in matched:
            style.update(rule.important)
        style.update(inline_important)
        return style
