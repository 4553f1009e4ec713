"""The mail tools that change things: draft, send, reply, move, flag and trash.

Sends go through the outbox (see `sending`). Moves and trash act by UID only and never run a
bare EXPUNGE, so another client's deleted-but-kept messages are left alone; they can be undone
while the server reports where the messages went.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from hearth import UndoFailed, tool
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.compose import Draft, build_message, new_message_id
from hearth.connectors.mail.errors import MailError
from hearth.connectors.mail.ids import message_id, parse_message_id
from hearth.connectors.mail.proposals import ProposalHooks
from hearth.connectors.mail.results import DraftSaved, MessagesChanged, SendResult
from hearth.connectors.mail.sending import send

FLAGS = {
    "read": ("\\Seen", True),
    "unread": ("\\Seen", False),
    "flagged": ("\\Flagged", True),
    "unflagged": ("\\Flagged", False),
    "answered": ("\\Answered", True),
}
MAX_MESSAGES = 200


class WritingTools(ProposalHooks):
    """The mail connector's tools that change mail or send it."""

    @tool(
        effect="write",
        name="mail.draft",
        keywords=("draft", "write", "compose"),
        check="check_send",
        preview="preview_send",
    )
    def draft(
        self, to: list[str], subject: str, body: str, cc: list[str] | None = None
    ) -> DraftSaved:
        """Save a message in Drafts without sending it.

        Args:
            to: Addresses it will go to.
            subject: The subject line.
            body: The text.
            cc: Addresses to copy.
        """
        draft = self.draft_of_send({"to": to, "subject": subject, "body": body, "cc": cc})
        mid = new_message_id(draft.sender)
        raw = build_message(draft, message_id=mid)
        with self.account.mailbox() as mailbox:
            folder = mailbox.special("\\Drafts") or "Drafts"
            mailbox.append(folder, raw, ["\\Draft", "\\Seen"])
        return DraftSaved(folder=folder, message_id=mid)

    @tool(
        effect="send",
        scope="to",
        scope_kind="recipient",
        name="mail.send",
        keywords=("send", "email", "mail", "write", "tell"),
        check="check_send",
        notifies="recipients_of_send",
        preview="preview_send",
    )
    def send(
        self,
        to: list[str],
        subject: str,
        body: str,
        cc: list[str] | None = None,
        bcc: list[str] | None = None,
    ) -> SendResult:
        """Send an email.

        Args:
            to: Addresses to send it to.
            subject: The subject line.
            body: The text.
            cc: Addresses to copy.
            bcc: Addresses to copy without the others seeing them.
        """
        draft = self.draft_of_send(
            {"to": to, "subject": subject, "body": body, "cc": cc, "bcc": bcc}
        )
        return _sent(self.account, draft)

    @tool(
        effect="send",
        name="mail.reply",
        keywords=("reply", "answer", "respond"),
        check="check_reply",
        notifies="recipients_of_reply",
        preview="preview_reply",
    )
    def reply(self, message: str, body: str, reply_all: bool = False) -> SendResult:
        """Reply to a message; the reply goes where the message asks replies to go.

        Args:
            message: The id of the message to answer, e.g. INBOX/42.
            body: The text of the reply.
            reply_all: Also to everyone else the message went to.
        """
        draft, _ = self.draft_of_reply({"message": message, "body": body, "reply_all": reply_all})
        return _sent(self.account, draft)

    @tool(
        effect="write",
        name="mail.move",
        keywords=("move", "archive", "file"),
        undo="undo_move",
        preview="preview_move",
    )
    def move(self, messages: list[str], folder: str) -> MessagesChanged:
        """Move messages to another folder.

        Args:
            messages: Ids of the messages, e.g. ["INBOX/42"].
            folder: The folder to move them to, e.g. Archive.
        """
        placed: dict[str, str] = {}
        with self.account.mailbox() as mailbox:
            for source, uids in _by_folder(messages).items():
                moved = mailbox.move(source, uids, folder) or {}
                placed |= {message_id(source, a): message_id(folder, b) for a, b in moved.items()}
        self._forget(messages)
        return _changed("moved", messages, folder, placed)

    @tool(
        effect="write",
        name="mail.trash",
        keywords=("delete", "trash", "remove", "bin", "throw", "discard"),
        undo="undo_move",
        preview="preview_trash",
    )
    def trash(self, messages: list[str]) -> MessagesChanged:
        """Move messages to the Trash (already in Trash: delete them for good).

        Args:
            messages: Ids of the messages, e.g. ["INBOX/42"].
        """
        placed: dict[str, str] = {}
        with self.account.mailbox() as mailbox:
            trash = mailbox.special("\\Trash") or "Trash"
            for source, uids in _by_folder(messages).items():
                moved = mailbox.trash(source, uids) or {}
                placed |= {message_id(source, a): message_id(trash, b) for a, b in moved.items()}
        self._forget(messages)
        return _changed("trashed", messages, trash, placed)

    @tool(
        effect="write",
        name="mail.flag",
        keywords=("flag", "mark", "star", "read"),
        undo="undo_flag",
        preview="preview_flag",
    )
    def flag(self, messages: list[str], state: str) -> MessagesChanged:
        """Mark messages read, unread, flagged, unflagged or answered.

        Args:
            messages: Ids of the messages, e.g. ["INBOX/42"].
            state: One of read, unread, flagged, unflagged, answered.
        """
        name, on = _flag(state)
        with self.account.mailbox() as mailbox:
            for folder, uids in _by_folder(messages).items():
                mailbox.set_flags(
                    folder, uids, add=[name] if on else [], remove=[] if on else [name]
                )
        return MessagesChanged(action=state, ids=list(messages))

    def undo_move(self, arguments: Mapping[str, Any], result: MessagesChanged) -> None:
        if len(result.new_ids) != len(result.ids):
            raise UndoFailed(
                "the server did not say where the messages went, so they cannot "
                f"be moved back; find them in {result.destination}"
            )
        back: dict[str, list[str]] = defaultdict(list)
        for old, new in zip(result.ids, result.new_ids, strict=True):
            back[parse_message_id(old)[0]].append(new)
        with self.account.mailbox() as mailbox:
            for folder, ids in back.items():
                mailbox.move(result.destination, [parse_message_id(i)[1] for i in ids], folder)

    def undo_flag(self, arguments: Mapping[str, Any], result: MessagesChanged) -> None:
        name, on = _flag(result.action)
        with self.account.mailbox() as mailbox:
            for folder, uids in _by_folder(result.ids).items():
                mailbox.set_flags(
                    folder, uids, add=[] if on else [name], remove=[name] if on else []
                )

    def _forget(self, messages: Sequence[str]) -> None:
        for folder, uids in _by_folder(messages).items():
            self.account.cache.remove(folder, uids)


def _sent(account: MailAccount, draft: Draft) -> SendResult:
    outcome = send(account, draft)
    return SendResult(
        message_id=outcome.message_id,
        state=outcome.state,
        to=list(draft.recipients),
        note=outcome.note,
    )


def _changed(
    action: str, messages: Sequence[str], destination: str, placed: Mapping[str, str]
) -> MessagesChanged:
    """The result, its new ids in the order of `ids` (none unless the server named them all)."""
    ids = [message_id(*parse_message_id(item)) for item in messages]
    new_ids = [placed[i] for i in ids] if all(i in placed for i in ids) else []
    return MessagesChanged(action=action, ids=ids, destination=destination, new_ids=new_ids)


def _by_folder(messages: Sequence[str]) -> dict[str, list[int]]:
    if not messages:
        raise MailError("name at least one message, e.g. INBOX/42")
    if len(messages) > MAX_MESSAGES:
        raise MailError(f"at most {MAX_MESSAGES} messages at a time")
    grouped: dict[str, list[int]] = defaultdict(list)
    for item in messages:
        folder, uid = parse_message_id(item)
        grouped[folder].append(uid)
    return dict(grouped)


def _flag(state: str) -> tuple[str, bool]:
    try:
        return FLAGS[state.strip().lower()]
    except KeyError:
        raise MailError(f"{state!r} is not one of {', '.join(FLAGS)}") from None
