"""The account's folders as IMAP LIST gives them, and finding the Sent, Trash... among them.

Servers with SPECIAL-USE (RFC 6154) flag those folders; for the others, the names the common
mail programs give them are tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SPECIAL_USES = ("\\Sent", "\\Trash", "\\Drafts", "\\Archive", "\\Junk", "\\All", "\\Flagged")
_COMMON_NAMES = {
    "\\Sent": ("Sent", "Sent Items", "Sent Messages", "Sent Mail", "Gesendet"),
    "\\Trash": ("Trash", "Deleted Items", "Deleted Messages", "Bin", "Papierkorb"),
    "\\Drafts": ("Drafts", "Draft", "Entwürfe"),
    "\\Archive": ("Archive", "Archives", "Archiv"),
    "\\Junk": ("Junk", "Spam", "Junk E-mail", "Bulk Mail"),
}


@dataclass(frozen=True)
class Folder:
    """A folder as LISTed: its special use (\\Sent, \\Trash...) if the server says one."""

    name: str
    special_use: str | None
    selectable: bool


@dataclass(frozen=True)
class FolderState:
    """What EXAMINE says of a folder; a new `uidvalidity` means every cached UID is void."""

    uidvalidity: int
    uidnext: int
    exists: int
    # CONDSTORE's counter of changes; 0 when the server does not keep one.
    highestmodseq: int = 0


def listed_folder(raw_flags: Sequence[bytes], name: str) -> Folder:
    """A folder from one LIST answer's flags and (already decoded) name."""
    lowered = {flag.decode("ascii", "replace").lower() for flag in raw_flags}
    special = next((use for use in SPECIAL_USES if use.lower() in lowered), None)
    if special is None and "\\spam" in lowered:
        special = "\\Junk"
    return Folder(name, special, not lowered & {"\\noselect", "\\nonexistent"})


def find_special(folders: Sequence[Folder], use: str) -> str | None:
    """The name of the folder for `use` (e.g. "\\Trash"): flagged so, else by a common name."""
    for folder in folders:
        if folder.special_use and folder.special_use.lower() == use.lower():
            return folder.name
    names = {folder.name.lower(): folder.name for folder in folders if folder.selectable}
    for common in _COMMON_NAMES.get(use, ()):
        for candidate in (common, f"INBOX.{common}", f"INBOX/{common}"):
            if candidate.lower() in names:
                return names[candidate.lower()]
    return None
