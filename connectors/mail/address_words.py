"""What is wrong with an address the parser refused, in words a person can act on.

The parser's own reasons ("addr-spec local part with no domain") are for the model and the log;
these look at the address as written and say what to change ("'bob@' is missing the part after
@"). They only word a refusal already made: nothing here decides whether an address is valid.
"""

from __future__ import annotations

import re

from hearth import ArgumentRefused, shown
from hearth.connectors.mail.errors import BadAddress

_ANGLED = re.compile(r"<([^<>]*)>\s*$")
_EXAMPLE = "an address looks like name@example.org"
_CHARS = 80


class RecipientRefused(BadAddress, ArgumentRefused):
    """A recipient the parser refuses, which the person asked may correct; `words` say why."""


def refused_recipient(value: str, error: BadAddress, argument: str = "") -> RecipientRefused:
    """`error` as a refusal the user may correct, worded for them."""
    return RecipientRefused(str(error), words=address_problem(value), argument=argument)


def address_problem(value: str) -> str:
    """Why `value` is no address Hearth will send to, quoting it."""
    text = value.strip()
    quoted = f"'{_cut(shown(text))}'"
    if not text:
        return f"The address is empty; {_EXAMPLE}"
    if "," in text or ";" in text:
        return f"{quoted} holds more than one address; give each one on its own"
    found = _ANGLED.search(text)
    address = found.group(1).strip() if found else text
    local, at, domain = address.rpartition("@") if "@" in address else (address, "", "")
    if not at:
        return f"{quoted} has no @; {_EXAMPLE}"
    if "@" in local:
        return f"{quoted} has more than one @; {_EXAMPLE}"
    if not domain:
        return f"{quoted} is missing the part after @"
    if not local:
        return f"{quoted} is missing the part before @"
    if any(char.isspace() for char in address):
        return f"{quoted} contains a space; addresses have none"
    if "." not in domain or ".." in domain or domain.startswith(".") or domain.endswith("."):
        return f"The part after @ in {quoted} is not a complete domain, like example.org"
    return f"{quoted} is not an address Hearth can read one way only; {_EXAMPLE}"


def _cut(text: str) -> str:
    return text if len(text) <= _CHARS else text[: _CHARS - 1] + "…"
