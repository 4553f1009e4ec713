"""What the mail tools tell the gate and the card before a call runs.

Checks refuse a call that cannot run (an address that reads two ways, a header injection);
`notifies` names everyone a send or reply reaches, its Bcc and a Reply-To included, so the gate
judges the real recipients (a reply's also say which header of the message each comes from, for
the card); previews render the whole message with its warnings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.address_words import refused_recipient
from hearth.connectors.mail.addresses import parse_recipients
from hearth.connectors.mail.compose import Draft, build_message, render_preview, reply_draft
from hearth.connectors.mail.concerns import sender_concerns
from hearth.connectors.mail.errors import BadAddress, MailError
from hearth.connectors.mail.fetching import fetch
from hearth.connectors.mail.ids import message_id, parse_message_id
from hearth.connectors.mail.objects import Address, Envelope

_LISTED = 10


class ProposalHooks:
    """Checks, recipients and previews of the mail tools that send."""

    account: MailAccount

    def draft_of_send(self, arguments: Mapping[str, Any]) -> Draft:
        """The message a `mail.send` call would send; raises `MailError` if it cannot."""
        return Draft(
            sender=self.account.sender(),
            to=_recipients(arguments, "to"),
            cc=_recipients(arguments, "cc"),
            bcc=_recipients(arguments, "bcc"),
            subject=str(arguments.get("subject") or ""),
            body=str(arguments.get("body") or ""),
        )

    def draft_of_reply(self, arguments: Mapping[str, Any]) -> tuple[Draft, Envelope]:
        """The reply a `mail.reply` call would send, and the message it answers."""
        folder, uid = parse_message_id(str(arguments.get("message", "")))
        original, _ = fetch(self.account, folder, uid)
        if original.sender is None and not original.reply_to:
            raise MailError(
                "the message's sender cannot be read one way only, so Hearth will "
                "not reply to it; write a new message to the address you mean"
            )
        draft = reply_draft(
            original,
            sender=self.account.sender(),
            body=str(arguments.get("body") or ""),
            reply_all=bool(arguments.get("reply_all")),
            own_addresses=self.account.own_addresses(),
        )
        return draft, original

    def check_send(self, arguments: Mapping[str, Any]) -> None:
        draft = self.draft_of_send(arguments)
        build_message(draft, message_id="<check@hearth.invalid>")

    def check_reply(self, arguments: Mapping[str, Any]) -> None:
        draft, _ = self.draft_of_reply(arguments)
        build_message(draft, message_id="<check@hearth.invalid>")

    def recipients_of_send(self, arguments: Mapping[str, Any]) -> list[str]:
        return list(self.draft_of_send(arguments).recipients)

    def recipients_of_reply(self, arguments: Mapping[str, Any]) -> dict[str, str]:
        """Everyone a reply reaches, each with the header of the message it comes from."""
        draft, original = self.draft_of_reply(arguments)
        headers = (
            ("Reply-To", original.reply_to),
            ("From", (original.sender,) if original.sender else ()),
            ("To", original.to),
            ("Cc", original.cc),
        )
        where = message_id(original.folder, original.uid)
        origins = {}
        for address in draft.recipients:
            header = next(
                (name for name, found in headers if any(a.email.lower() == address for a in found)),
                "headers",
            )
            origins[address] = f"the {header} of message '{where}'"
        return origins

    def preview_send(self, arguments: Mapping[str, Any]) -> str:
        try:
            draft = self.draft_of_send(arguments)
        except MailError as error:
            return f"Send mail: {error}"
        return render_preview(draft, warnings=self._recipient_warnings(draft))

    def preview_reply(self, arguments: Mapping[str, Any]) -> str:
        try:
            draft, original = self.draft_of_reply(arguments)
        except MailError as error:
            return f"Reply: {error}"
        known = self.account.known_contacts()
        warnings = [c.text for c in sender_concerns(original.sender, original.reply_to, known)]
        if original.reply_to:
            warnings.append(
                "This reply goes to the message's Reply-To: "
                + ", ".join(str(a) for a in original.reply_to)
            )
        warnings += self._recipient_warnings(draft)
        return render_preview(draft, warnings=list(dict.fromkeys(warnings)))

    def preview_move(self, arguments: Mapping[str, Any]) -> str:
        return f"Move to {arguments.get('folder')}:\n" + self._listed(arguments)

    def preview_trash(self, arguments: Mapping[str, Any]) -> str:
        return "Move to the Trash (from the Trash itself: delete for good):\n" + self._listed(
            arguments
        )

    def preview_flag(self, arguments: Mapping[str, Any]) -> str:
        return f"Mark as {arguments.get('state')}:\n" + self._listed(arguments)

    def _listed(self, arguments: Mapping[str, Any]) -> str:
        """One line per message a call acts on, as the cache knows it."""
        lines = []
        for item in _strings(arguments.get("messages"))[:_LISTED]:
            try:
                folder, uid = parse_message_id(item)
            except MailError as error:
                lines.append(f"• {error}")
                continue
            known = self.account.cache.envelope(folder, uid)
            about = f"“{known.subject}” from {known.sender}" if known else "(not listed yet)"
            lines.append(f"• {item}: {about}")
        more = len(_strings(arguments.get("messages"))) - _LISTED
        return "\n".join(lines + ([f"… and {more} more"] if more > 0 else []))

    def _recipient_warnings(self, draft: Draft) -> list[str]:
        known = self.account.known_contacts()
        people: Sequence[Address] = (*draft.to, *draft.cc, *draft.bcc)
        return [
            concern.text
            for person in people
            for concern in sender_concerns(person, (), known)
            if concern.kind == "lookalike_sender"
        ]


def _strings(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [str(item) for item in value]
    raise MailError("recipients must be a list of addresses")


def _recipients(arguments: Mapping[str, Any], name: str) -> tuple[Address, ...]:
    """The addresses of one argument; one the parser refuses is put to the user to correct."""
    values = _strings(arguments.get(name))
    try:
        return parse_recipients(values)
    except BadAddress as error:
        # Find the one address at fault, so the words quote it alone.
        for value in values:
            try:
                parse_recipients([value])
            except BadAddress:
                raise refused_recipient(value, error, name) from None
        raise
