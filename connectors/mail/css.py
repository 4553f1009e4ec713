"""CSS from untrusted mail, read only to decide which text the sender hid from the reader.

Colours, lengths, declarations and simple stylesheet rules are parsed just far enough to
compute an element's effective style. Nothing is ever fetched: `url(...)` and `@import` are
never followed, and the work a hostile stylesheet can cause is bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import soupsieve
from bs4.element import Tag

# Bounds on the work an attacker's stylesheet can cause (each match is a few microseconds).
_MAX_RULES = 2_000
_MAX_MATCHES = 400_000

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
class Rule:
    """One selector of a stylesheet rule, with its declarations split by `!important`."""

    order: int
    specificity: tuple[int, int, int]
    selector: soupsieve.SoupSieve
    declarations: dict[str, str]
    important: dict[str, str]


def parse_number(value: str | None) -> float | None:
    """A plain number or percentage (`50%` is 0.5); None if `value` is not one."""
    match = re.fullmatch(r"\s*(-?\d*\.?\d+)\s*(%?)\s*", value or "")
    if match is None:
        return None
    return float(match.group(1)) / (100 if match.group(2) else 1)


def length_px(value: str | None, relative_to: float | None) -> float | None:
    """A CSS length in pixels; relative units scale `relative_to`. None if unknown."""
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


def parse_colour(value: str | None) -> Colour | None:
    """A named, hex, rgb() or rgba() colour as (r, g, b, alpha); None if not understood."""
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
        number = parse_number(part)
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


def declarations(css: str) -> tuple[dict[str, str], dict[str, str]]:
    """Split `a: b; c: d !important` into normal and important declarations, lower-cased."""
    normal: dict[str, str] = {}
    important: dict[str, str] = {}
    for declaration in css.split(";"):
        name, _, value = declaration.partition(":")
        name, value = name.strip().lower(), value.strip().lower()
        if name and value:
            target = important if value.endswith("!important") else normal
            target[name] = value.removesuffix("!important").strip()
    return normal, important


def stylesheet_rules(css: str) -> list[Rule]:
    """The rules of a `<style>` sheet, one per selector; at-rules and bad selectors skipped."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules: list[Rule] = []
    for match in re.finditer(r"([^{}]+)\{([^{}]*)\}", css):
        normal, important = declarations(match.group(2))
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
            rules.append(Rule(len(rules), specificity, compiled, normal, important))
    return rules


class RuleIndex:
    """Stylesheet rules bucketed by their subject's id, class or tag: few are tried per element."""

    def __init__(self, rules: list[Rule]) -> None:
        self.by_key: dict[str, list[Rule]] = {}
        self.everywhere: list[Rule] = []
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
        """The element's own declarations: matching rules, then inline style, by cascade order."""
        classes = element.get_attribute_list("class")
        keys = [f"#{element.get('id')}", element.name.lower()] + [f".{c}" for c in classes]
        candidates = self.everywhere + [rule for key in keys for rule in self.by_key.get(key, [])]
        self.matches_left -= len(candidates)
        matched = [r for r in candidates if self.matches_left > 0 and r.selector.match(element)]
        matched.sort(key=lambda rule: (rule.specificity, rule.order))
        inline_normal, inline_important = declarations(_inline_style(element))
        style: dict[str, str] = {}
        for rule in matched:
            style.update(rule.declarations)
        style.update(inline_normal)
        for rule in matched:
            style.update(rule.important)
        style.update(inline_important)
        return style


def _inline_style(element: Tag) -> str:
    value = element.get("style")
    return value if isinstance(value, str) else ""
