from __future__ import annotations

import pytest

from hearth.messages import Message, ToolCall
from hearth.ruling import Decider, Reason, Ruling
from hearth.store import AuditLog, ConversationStore, Database, NotFound
from hearth.store.conversations import MIGRATIONS, UNTITLED


@pytest.fixture
def store(db: Database) -> ConversationStore:
    return ConversationStore(db)


def test_messages_round_trip_exactly(store: ConversationStore) -> None:
    call = ToolCall(
        "send_mail",
        {"to": ["ana@example.org"], "body": 'Grüße 👋\n"quoted"', "options": {"n": 3, "x": None}},
        id="call_abc123",
    )
    sent = [
        Message.system("You are Hearth."),
        Message.user("mail Ana"),
        Message.assistant("", reasoning="she wants mail", tool_calls=[call, ToolCall("f", {})]),
        Message.tool_result(call, "sent"),
        Message.assistant("Done.", reasoning=""),
        Message("tool", "", tool_call_id="call_x", name=None),
    ]
    conversation = store.create("Ana")
    assert [store.append(conversation, message) for message in sent] == list(range(len(sent)))
    received = store.messages(conversation)
    assert received == sent
    assert received[2].tool_calls[0].arguments == call.arguments


def test_list_is_newest_first_and_append_bumps_a_conversation(store: ConversationStore) -> None:
    first, second = store.create("first"), store.create("second")
    assert [c.id for c in store.list()] == [second, first]
    store.append(first, Message.user("again"))
    assert [c.id for c in store.list()] == [first, second]
    assert store.get(first).updated_at >= store.get(first).created_at


def test_rename(store: ConversationStore) -> None:
    conversation = store.create("old")
    store.rename(conversation, "new")
    assert store.get(conversation).title == "new"


def test_delete_cascades_to_messages_but_keeps_the_audit(db: Database) -> None:
    store, log = ConversationStore(db), AuditLog(db)
    gone, kept = store.create("gone"), store.create("kept")
    store.append(gone, Message.user("bye"))
    store.append(kept, Message.user("hi"))
    log.append(
        call_id="c1",
        tool="t",
        arguments={},
        ruling=Ruling(True, Decider.USER, Reason.ALLOWED_ONCE, "You allowed it once."),
        outcome="proposed",
        conversation_id=gone,
    )
    store.delete(gone)
    assert [c.id for c in store.list()] == [kept]
    assert db.query("SELECT count(*) FROM messages")[0][0] == 1
    assert [e.conversation_id for e in log.entries()] == [gone]
    assert store.create("later") not in {gone, kept}  # ids are never reused


def test_unknown_conversations_raise_not_found(store: ConversationStore) -> None:
    for action in (
        lambda: store.get(99),
        lambda: store.rename(99, "x"),
        lambda: store.delete(99),
        lambda: store.append(99, Message.user("x")),
        lambda: store.messages(99),
        lambda: store.set_tokens(99, 1),
    ):
        with pytest.raises(NotFound, match="no conversation 99"):
            action()


def test_search_finds_titles_and_message_text(store: ConversationStore) -> None:
    trip = store.create("Trip to Lisbon")
    budget = store.create("Budget")
    store.append(budget, Message.user("Is 100% of the RENT_due paid?"))
    store.append(budget, Message.assistant("thinking", reasoning="check the lisbon receipts"))
    store.create("Other")
    assert [c.id for c in store.search("lisbon")] == [budget, trip]
    assert [c.id for c in store.search("rent_DUE")] == [budget]
    assert [c.id for c in store.search("100%")] == [budget]
    assert store.search("0%%") == []
    assert store.search("t_r") == []  # _ is literal, not a wildcard


def test_an_untitled_conversation_is_named_by_its_first_message_only(
    store: ConversationStore,
) -> None:
    untitled, named = store.create(), store.create("Groceries")
    for conversation in (untitled, named):
        store.append(conversation, Message.system("You are Hearth."))
        store.append(conversation, Message.user("  What is\n on my   list today? " + "x" * 80))
        store.append(conversation, Message.user("And tomorrow?"))
    assert store.get(untitled).title == "What is on my list today? " + "x" * 34  # 60 characters
    assert store.get(named).title == "Groceries"
    blank = store.create()
    store.append(blank, Message.user("   "))
    store.append(blank, Message.user("later words"))
    assert store.get(blank).title == UNTITLED  # its first message named it: nothing to say


def test_the_tokens_a_conversation_fills_are_kept(store: ConversationStore) -> None:
    conversation = store.create("x")
    assert store.get(conversation).tokens == 0
    store.set_tokens(conversation, 1234)
    assert [c.tokens for c in store.list()] == [1234]


def test_untitled_conversations_stored_before_titling_get_their_title(db: Database) -> None:
    db.migrate("conversations", MIGRATIONS[:1])  # the file as an earlier Hearth left it
    made = "2026-12-01T09:00:00+00:00"
    with db.transaction() as conn:
        for title in (UNTITLED, "Kept", UNTITLED):
            conn.execute(
                "INSERT INTO conversations (title, created_at, updated_at) VALUES (?, ?, ?)",
                (title, made, made),
            )
        for conversation in (1, 2):  # the third has no message at all
            for seq, (role, text) in enumerate([("assistant", "Hi"), ("user", " Budget\nfor May")]):
                conn.execute(
                    "INSERT INTO messages VALUES (?, ?, ?, ?, '', NULL, NULL, NULL, ?)",
                    (conversation, seq, role, text, made),
                )
    store = ConversationStore(db)
    assert [store.get(n).title for n in (1, 2, 3)] == ["Budget for May", "Kept", UNTITLED]
    assert store.get(1).tokens == 0
