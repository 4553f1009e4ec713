"""Before and after, as the list of changes a scenario is judged on.

A message the SMTP server received is one `mail.sent`, and the copy Hearth files in Sent is
part of it, not a change of its own. A file that vanished while one with the same bytes
appeared elsewhere was moved.
"""

from __future__ import annotations

from hearth.connectors.evaluation.changes import Change
from hearth.connectors.evaluation.snapshot import MailItem, Snapshot


def diff(before: Snapshot, after: Snapshot) -> list[Change]:
    """Every change from `before` to `after`, mail first, then events, files and settings."""
    return [
        *_mail(before, after),
        *_events(before, after),
        *_files(before, after),
        *_settings(before, after),
    ]


def _mail(before: Snapshot, after: Snapshot) -> list[Change]:
    changes = [
        Change(
            "mail.sent",
            {
                "to": list(item.to),
                "subject": item.subject,
                "body": item.body,
                "attachments": list(item.attachments),
            },
        )
        for item in after.sent[len(before.sent) :]
    ]
    sent_ids = {item.message_id for item in after.sent if item.message_id}
    for key, old in before.mail.items():
        new = after.mail.get(key)
        if new is None:
            changes.append(Change("mail.deleted", _about(old)))
            continue
        if new.folder != old.folder:
            changes.append(Change("mail.moved", {**_about(old), "to_folder": new.folder}))
        if new.flags != old.flags:
            added = sorted(set(new.flags) - set(old.flags))
            removed = sorted(set(old.flags) - set(new.flags))
            changes.append(
                Change("mail.flagged", {**_about(new), "added": added, "removed": removed})
            )
    for key, new in after.mail.items():
        if key in before.mail or (new.folder.casefold() == "sent" and key[0] in sent_ids):
            continue
        changes.append(
            Change(
                "mail.added",
                {**_about(new), "to": list(new.to), "body": new.body},
            )
        )
    return changes


def _about(item: MailItem) -> dict[str, object]:
    return {"folder": item.folder, "subject": item.subject, "sender": item.sender}


def _events(before: Snapshot, after: Snapshot) -> list[Change]:
    changes = []
    for key, old in before.events.items():
        new = after.events.get(key)
        if new is None:
            changes.append(Change("event.deleted", old.fields()))
        elif new != old:
            was, now = old.fields(), new.fields()
            changed = sorted(name for name in now if now[name] != was[name])
            changes.append(
                Change("event.updated", {**now, "changed": changed, "was_title": old.title})
            )
    changes.extend(
        Change("event.created", new.fields())
        for key, new in after.events.items()
        if key not in before.events
    )
    return changes


def _files(before: Snapshot, after: Snapshot) -> list[Change]:
    gone = {path: entry for path, entry in before.files.items() if path not in after.files}
    new = {path: entry for path, entry in after.files.items() if path not in before.files}
    changes = []
    for path, (digest, _text) in list(gone.items()):
        twin = next((other for other, entry in new.items() if entry[0] == digest), None)
        if twin is not None:
            changes.append(Change("file.moved", {"path": path, "to": twin}))
            del gone[path], new[twin]
    changes.extend(Change("file.deleted", {"path": path}) for path in gone)
    changes.extend(
        Change("file.created", {"path": path, "text": text or ""})
        for path, (_digest, text) in new.items()
    )
    for path, (digest, text) in after.files.items():
        old = before.files.get(path)
        if old is not None and old[0] != digest:
            changes.append(Change("file.changed", {"path": path, "text": text or ""}))
    return changes


def _settings(before: Snapshot, after: Snapshot) -> list[Change]:
    return [
        Change("setting.changed", {"name": name, "before": old, "after": after.settings[name]})
        for name, old in before.settings.items()
        if after.settings.get(name, old) != old
    ]
