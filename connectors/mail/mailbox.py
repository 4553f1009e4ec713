"""The IMAP operations Hearth uses, by UID, on one logged-in connection.

Reading never marks a message read: folders are examined read-only and bodies fetched with
BODY.PEEK. Removing a message expunges exactly its UIDs (MOVE, or UID EXPUNGE from UIDPLUS),
never a bare EXPUNGE, which would also erase what another mail program marked \\Deleted.
The user's words reach the server only as imapclient search criteria (`MailQuery`), never
spliced into a command line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from types import TracebackType
from typing import Any

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientAbortError, IMAPClientError

from hearth.connectors.mail.errors import (
    ConnectionProblem,
    FolderNotFound,
    MailError,
    MessageNotFound,
    Offline,
)
from hearth.connectors.mail.fetched import ENVELOPE_FETCH, envelope, flags, search_headers
from hearth.connectors.mail.folders import Folder, FolderState, find_special, listed_folder
from hearth.connectors.mail.objects import Envelope
from hearth.connectors.mail.search_query import MailQuery, safe_words
from hearth.connectors.mail.search_text import SearchHeaders

_COPYUID = re.compile(rb"(\d+) ([\d:,]+) ([\d:,]+)")
_APPENDUID = re.compile(rb"\[APPENDUID \d+ (\d+)\]", re.IGNORECASE)


class Mailbox:
    """One logged-in IMAP connection; use as a context manager to log out at the end."""

    def __init__(self, client: IMAPClient) -> None:
        self.client = client
        client.normalise_times = False  # dates keep their zone, as the Date header gave it
        # Public so a test can take the path of a server without MOVE on a real server.
        self.can_move = client.has_capability("MOVE")
        if client.has_capability("CONDSTORE"):
            client.enable("CONDSTORE")  # EXAMINE then says when anything last changed
        self._selected: tuple[str, bool] | None = None
        self._folders: list[Folder] | None = None
        self.changed = False  # whether this connection moved, deleted or stored mail

    def __enter__(self) -> Mailbox:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.client.logout()
        except (OSError, IMAPClientError):
            with suppress(OSError):
                self.client.shutdown()

    # Folders

    def folders(self) -> list[Folder]:
        if self._folders is None:
            with _talking():
                listed = self.client.list_folders()
            self._folders = [listed_folder(raw_flags, name) for raw_flags, _, name in listed]
        return self._folders

    def special(self, use: str) -> str | None:
        """The folder with special use `use` (e.g. "\\Trash"), by SPECIAL-USE or a common name."""
        return find_special(self.folders(), use)

    def special_use_of(self, folder: str) -> str | None:
        for known in self.folders():
            if known.name == folder:
                return known.special_use
        return None

    def examine(self, folder: str) -> FolderState:
        """Select `folder` read-only (nothing can become read) and say what it holds."""
        response = self._select(folder, readonly=True, fresh=True)
        return FolderState(
            uidvalidity=int(response.get(b"UIDVALIDITY", 0)),
            uidnext=int(response.get(b"UIDNEXT", 0)),
            exists=int(response.get(b"EXISTS", 0)),
            highestmodseq=int(response.get(b"HIGHESTMODSEQ", 0)),
        )

    def _select(self, folder: str, *, readonly: bool, fresh: bool = False) -> dict[bytes, Any]:
        if not fresh and self._selected == (folder, readonly):
            return {}
        self._selected = None
        try:
            with _talking():
                response: dict[bytes, Any] = self.client.select_folder(folder, readonly=readonly)
        except MailError as error:
            names = [known.name for known in self.folders()]
            if folder not in names:
                raise FolderNotFound(
                    f"there is no folder {folder!r}; the folders are: {', '.join(names)}"
                ) from error
            raise
        self._selected = (folder, readonly)
        return response

    # Reading

    def envelopes(self, folder: str, uids: Sequence[int], *, batch: int = 500) -> list[Envelope]:
        """The headers of the messages `uids` still in `folder`, in UID order."""
        return [found for found, _ in self.listings(folder, uids, batch=batch)]

    def listings(
        self, folder: str, uids: Sequence[int], *, batch: int = 500
    ) -> list[tuple[Envelope, SearchHeaders | None]]:
        """Each message's envelope and the headers a search compares, in UID order."""
        self._select(folder, readonly=True)
        found: list[tuple[Envelope, SearchHeaders | None]] = []
        ordered = sorted(set(uids))
        for start in range(0, len(ordered), batch):
            with _talking():
                response = self.client.fetch(ordered[start : start + batch], ENVELOPE_FETCH)
            found += [
                (envelope(folder, uid, data), search_headers(data))
                for uid, data in sorted(response.items())
            ]
        return found

    def whole(self, folder: str, uids: Sequence[int]) -> dict[int, bytes]:
        """The messages `uids` still in `folder`, whole; PEEK, so they stay unread."""
        if not uids:
            return {}
        self._select(folder, readonly=True)
        with _talking():
            response = self.client.fetch(list(uids), ["BODY.PEEK[]"])
        return {
            uid: bytes(value)
            for uid, data in response.items()
            if isinstance(value := data.get(b"BODY[]"), bytes)
        }

    def flags(self, folder: str) -> dict[int, tuple[str, ...]]:
        """The flags of every message in `folder`, by UID."""
        found: dict[int, tuple[str, ...]] = {}
        uids = self.all_uids(folder)
        for start in range(0, len(uids), 5000):
            with _talking():
                response = self.client.fetch(uids[start : start + 5000], ["FLAGS"])
            found |= {uid: flags(data.get(b"FLAGS", ())) for uid, data in response.items()}
        return found

    def all_uids(self, folder: str) -> list[int]:
        self._select(folder, readonly=True)
        with _talking():
            return sorted(self.client.search("ALL"))

    def raw(self, folder: str, uid: int, limit: int) -> bytes:
        """The message's first `limit` bytes; PEEK, so it stays unread."""
        self._select(folder, readonly=True)
        with _talking():
            response = self.client.fetch([uid], [f"BODY.PEEK[]<0.{limit}>"])
        for key, value in response.get(uid, {}).items():
            if key.startswith(b"BODY[]") and isinstance(value, bytes):
                return value
        raise MessageNotFound(f"message {uid} is no longer in {folder}")

    def search(self, folder: str, query: MailQuery, *, uids: str | None = None) -> list[int]:
        """UIDs of the messages matching `query`, among the UID set `uids` when given."""
        if query.impossible:
            return []  # only IMAP syntax was asked for, and no message holds that
        criteria = query.criteria()
        if uids is not None:
            criteria = ["UID", uids, *([] if criteria == ["ALL"] else criteria)]
        return self._search(folder, criteria)

    def find_message_id(self, folder: str, message_id: str) -> list[int]:
        """UIDs of the messages in `folder` whose Message-ID is exactly `message_id`."""
        fragments = safe_words(message_id)
        if not fragments:
            return []
        candidates = self._search(folder, ["HEADER", "Message-ID", max(fragments, key=len)])
        # HEADER searches match substrings: keep only the exact id.
        wanted = message_id.strip()
        return [
            found.uid for found in self.envelopes(folder, candidates) if found.message_id == wanted
        ]

    def _search(self, folder: str, criteria: list[object]) -> list[int]:
        self._select(folder, readonly=True)
        text = " ".join(str(item) for item in criteria)
        charset = None if text.isascii() else "UTF-8"
        with _talking():
            return sorted(self.client.search(criteria, charset=charset))

    # Changing

    def move(self, folder: str, uids: Sequence[int], destination: str) -> dict[int, int] | None:
        """Move exactly `uids`; the new UIDs by old one when the server says (COPYUID)."""
        if not uids:
            return {}
        if destination not in [known.name for known in self.folders()]:
            self._select(destination, readonly=True)  # raises FolderNotFound
        self._select(folder, readonly=False)
        self._pop_copyuid()
        self.changed = True
        with _talking():
            if self.can_move:
                self.client.move(list(uids), destination)
            else:
                self._require_uidplus()
                self.client.copy(list(uids), destination)
                self.client.add_flags(list(uids), [b"\\Deleted"], silent=True)
                self.client.uid_expunge(list(uids))
        return self._pop_copyuid()

    def trash(self, folder: str, uids: Sequence[int]) -> dict[int, int] | None:
        """Move `uids` to Trash; in Trash itself, delete exactly those messages for good."""
        trash = self.special("\\Trash")
        if trash is None:
            raise MailError("this account has no Trash folder, so nothing was deleted")
        if folder != trash:
            return self.move(folder, uids, trash)
        self._select(folder, readonly=False)
        self._require_uidplus()
        self.changed = True
        with _talking():
            self.client.add_flags(list(uids), [b"\\Deleted"], silent=True)
            self.client.uid_expunge(list(uids))
        return None

    def set_flags(
        self, folder: str, uids: Sequence[int], add: Sequence[str] = (), remove: Sequence[str] = ()
    ) -> None:
        self._select(folder, readonly=False)
        with _talking():
            if add:
                self.client.add_flags(list(uids), list(add), silent=True)
            if remove:
                self.client.remove_flags(list(uids), list(remove), silent=True)

    def append(self, folder: str, raw: bytes, flags: Sequence[str] = ()) -> int | None:
        """Store a message in `folder`; its UID when the server says (APPENDUID)."""
        self.changed = True
        try:
            with _talking():
                answer = self.client.append(folder, raw, flags=list(flags))
        except MailError as error:
            names = [known.name for known in self.folders()]
            if folder not in names:
                raise FolderNotFound(
                    f"there is no folder {folder!r}; the folders are: {', '.join(names)}"
                ) from error
            raise
        found = _APPENDUID.search(answer if isinstance(answer, bytes) else b"")
        return int(found.group(1)) if found else None

    def _require_uidplus(self) -> None:
        if not self.client.has_capability("UIDPLUS"):
            raise ConnectionProblem(
                "capability",
                "the server lacks UIDPLUS, so Hearth cannot delete single messages safely",
            )

    def _pop_copyuid(self) -> dict[int, int] | None:
        # imapclient returns the untagged FETCH data of UID commands, not their response
        # codes; imaplib keeps COPYUID (from MOVE's untagged OK or COPY's tagged OK) here.
        responses = self.client._imap.untagged_responses.pop("COPYUID", None)
        if not responses:
            return None
        last = responses[-1]
        found = _COPYUID.search(last if isinstance(last, bytes) else b"")
        if not found:
            return None
        old, new = _uid_set(found.group(2)), _uid_set(found.group(3))
        return dict(zip(old, new, strict=False)) if len(old) == len(new) else None


def _uid_set(text: bytes) -> list[int]:
    uids: list[int] = []
    for part in text.split(b","):
        low, _, high = part.partition(b":")
        first, last = int(low), int(high or low)
        uids += range(min(first, last), max(first, last) + 1)
    return uids


@contextmanager
def _talking() -> Iterator[None]:
    """Map the connection dropping to `Offline`, and a refused command to `MailError`."""
    try:
        yield
    except (IMAPClientAbortError, OSError) as error:
        raise Offline(f"the connection to the mail server was lost ({error})") from error
    except IMAPClientError as error:
        raise MailError(f"the mail server refused: {error}") from error
