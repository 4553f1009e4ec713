"""Warnings about a message a reader should see: a deceptive sender, text the sender hid."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from confusable_homoglyphs import confusables

from hearth.connectors.mail.objects import Address, Concern

_ADDRESS_LIKE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DOMAIN_LIKE = re.compile(r"(?<![\w@.-])(?:[\w-]+\.)+([^\W\d_]{2,24})(?![\w.-])")
# Names like "node.js team" are not domains; file-type endings are the usual false alarm.
_NOT_TLDS = frozenset({"js", "ts", "py", "rb", "md", "sh", "rs", "txt", "pdf", "doc", "jpg", "png"})
# The Unicode data maps non-Latin lookalikes onto Latin, but not Latin onto Latin (i vs l,
# rn vs m, vv vs w) and maps "0" to capital "O"; fold those by hand after lowercasing.
_ASCII_FOLD = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l"})
_DIGRAPHS = (("rn", "m"), ("vv", "w"))


def hidden_concern(chars: int) -> Concern | None:
    """The concern for `chars` characters of hidden text removed, or None when none were."""
    if chars <= 0:
        return None
    return Concern(
        "hidden_text", f"hidden text removed ({chars} characters the sender made invisible)"
    )


def sender_concerns(
    sender: Address | None, reply_to: Sequence[Address], known: Iterable[str] = ()
) -> tuple[Concern, ...]:
    """Lookalike sender domain, a Reply-To elsewhere, an address posing in the display name."""
    found = [
        _lookalike_concern(sender, tuple(known)),
        _reply_to_concern(sender, reply_to),
        _name_concern(sender),
    ]
    return tuple(concern for concern in found if concern is not None)


def message_concerns(
    sender: Address | None, reply_to: Sequence[Address], known: Iterable[str], hidden_chars: int
) -> tuple[Concern, ...]:
    """Everything a reader should know about a message, most serious first."""
    hidden = hidden_concern(hidden_chars)
    return sender_concerns(sender, reply_to, known) + ((hidden,) if hidden else ())


def _reply_to_concern(sender: Address | None, reply_to: Sequence[Address]) -> Concern | None:
    sender_email = sender.email.lower() if sender else ""
    elsewhere = [a.email for a in reply_to if a.email.lower() != sender_email]
    if not elsewhere:
        return None
    target = ", ".join(dict.fromkeys(elsewhere))
    origin = f"not {sender.email}" if sender else "and the message names no sender"
    return Concern("reply_to_differs", f"Replies go to {target}, {origin}.")


def _name_concern(sender: Address | None) -> Concern | None:
    if sender is None or not sender.name:
        return None
    real = sender.email.lower()
    posing = [m for m in _ADDRESS_LIKE.findall(sender.name) if m.lower() != real]
    without_addresses = _ADDRESS_LIKE.sub(" ", sender.name)
    for match in _DOMAIN_LIKE.finditer(without_addresses):
        domain = match.group(0).lower()
        if match.group(1).lower() not in _NOT_TLDS and not _within(sender.domain, domain):
            posing.append(match.group(0))
    if not posing:
        return None
    return Concern(
        "name_has_address",
        f'The sender\'s name shows "{posing[0]}", but the mail really comes from {sender.email}.',
    )


def _lookalike_concern(sender: Address | None, known: tuple[str, ...]) -> Concern | None:
    if sender is None or "@" not in sender.email:
        return None
    domain = _decode_idna(sender.domain)
    known_domains = {_decode_idna(k.rpartition("@")[2].lower()) for k in known if k.strip()}
    known_addresses = {k.lower() for k in known if "@" in k}
    if sender.email.lower() in known_addresses or any(_within(domain, k) for k in known_domains):
        return None
    skeleton, shown = _skeleton(domain), _ascii_form(domain)
    for known_domain in sorted(known_domains):
        if skeleton == _skeleton(known_domain) or skeleton.endswith("." + _skeleton(known_domain)):
            return Concern(
                "lookalike_sender",
                f"The sender's domain {shown} looks like {known_domain} but is not it.",
            )
    if _mixes_scripts(domain):
        return Concern(
            "lookalike_sender",
            f"The sender's domain {shown} mixes alphabets, a common disguise.",
        )
    return None


def _within(domain: str, parent: str) -> bool:
    return domain == parent or domain.endswith("." + parent)


def _ascii_form(domain: str) -> str:
    """The domain as its lookalike letters cannot disguise it: punycode, or escaped."""
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain.encode("ascii", "backslashreplace").decode("ascii")


def _decode_idna(domain: str) -> str:
    labels = []
    for label in domain.lower().split("."):
        try:
            labels.append(
                label.encode("ascii").decode("idna") if label.startswith("xn--") else label
            )
        except UnicodeError:
            labels.append(label)  # undecodable punycode stays as written; it still compares
    return ".".join(labels)


@functools.lru_cache(maxsize=4096)  # a listing names the same few domains again and again
def _mixes_scripts(domain: str) -> bool:
    return any(confusables.is_mixed_script(label) for label in domain.split("."))


@functools.lru_cache(maxsize=4096)
def _skeleton(text: str) -> str:
    """What `text` looks like: each character mapped to the Latin letter it imitates."""
    shown = []
    for char in unicodedata.normalize("NFKC", text):
        prototypes = [] if char.isascii() else confusables.confusables_data.get(char, [])
        latin = next((p["c"] for p in prototypes if p["c"].strip("\u200e").isascii()), char)
        shown.append(latin.strip("\u200e"))
    folded = "".join(shown).lower().translate(_ASCII_FOLD)
    for digraph, letter in _DIGRAPHS:
        folded = folded.replace(digraph, letter)
    return folded
