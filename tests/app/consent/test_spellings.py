"""The gate's verdict on any spelling of a resource is its verdict on what the tool will touch.

For each scoped kind (paths, recipients, calendars), generated spellings go through the owner's
parser exactly as the executor puts them, and the gate's verdict is compared with its verdict
on the resource the tool itself reads from that spelling: the file `locate` walks to, the
address the message goes to, the calendar the store finds. A spelling the parser refuses must
be one the tool refuses too.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth import SettingsStore, ToolArgumentsError, ToolFailure
from hearth.connectors.calendar.changes import ChangeLog
from hearth.connectors.calendar.connector import CalendarConnector
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.files import FileLibrary, FilesConnector
from hearth.connectors.files.roots import locate
from hearth.connectors.mail.account import MailAccount
from hearth.connectors.mail.addresses import parse_recipients
from hearth.connectors.mail.connector import MailConnector
from hearth.connectors.mail.settings import MailSettings
from hearth.consent import ConsentGate, Rule, RuleBook, TaintTracker
from hearth.tools import Tool

pytestmark = pytest.mark.slow

CASES = settings(
    max_examples=10_000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
INVISIBLE = ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u00ad"]


def outcome(gate: ConsentGate, tool: Tool, arguments: dict[str, Any]) -> str:
    judged = tool.as_invitation(arguments) or tool
    verdict = gate.evaluate(
        judged, tool.name, arguments, conversation_id=None, taint=TaintTracker()
    )
    return verdict.outcome


def gate_with(*rules: tuple[str, str, str]) -> ConsentGate:
    book = RuleBook()
    for name, decision, scope in rules:
        book.add(Rule.create(name, decision, now=0, scope=scope))  # type: ignore[arg-type]
    return ConsentGate(book)


def parsed(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments as the executor hands them to the gate; None when the parser refuses (a
    spelling the user may correct comes back as `ToolArgumentsError`)."""
    try:
        return tool.canonical_arguments(arguments)
    except (ToolFailure, ToolArgumentsError):
        return None


# Paths


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FilesConnector]]:
    documents = (tmp_path_factory.mktemp("spellings") / "Documents").resolve()
    for folder in ("Private", "Public"):
        (documents / folder).mkdir(parents=True)
    (documents / "Private" / "secret.txt").write_text("secret")
    (documents / "Public" / "a.txt").write_text("a")
    (documents / "notes.txt").write_text("n")
    files = FilesConnector(FileLibrary(poll_seconds=60))
    files.grant(documents)
    yield documents, files
    files.close()


def _escape(char: str, how: int) -> str:
    if how == 1:
        return f"\\u{ord(char):04x}"
    if how == 2 and ord(char) < 0x100:
        return f"\\x{ord(char):02X}"
    if how == 3:
        return char.swapcase()
    return char


@st.composite
def path_spellings(draw: st.DrawFn, root: str) -> str:
    target = draw(st.sampled_from(["Private/secret.txt", "Public/a.txt", "notes.txt", "Private"]))
    parts = target.split("/")
    written = []
    for part in parts:
        hows = draw(st.lists(st.integers(0, 3), min_size=len(part), max_size=len(part)))
        word = "".join(_escape(char, how) for char, how in zip(part, hows, strict=True))
        if draw(st.integers(0, 9)) == 0:
            word = draw(st.sampled_from(INVISIBLE)).join([word[:1], word[1:]])
        written.append(word)
    separators = [
        draw(st.sampled_from(["/", "//", "/./", "/x/../", "\\u002f", "\\x2F"])) for _ in parts
    ]
    text = root + "".join(sep + word for sep, word in zip(separators, written, strict=True))
    if draw(st.booleans()):
        text += draw(st.sampled_from(["/", "//", "/.", ""]))
    return unicodedata.normalize(draw(st.sampled_from(["NFC", "NFD", "NFKC"])), text)


def test_every_spelling_of_a_path_gets_the_verdict_of_the_file_the_tool_would_touch(
    desk: tuple[Path, FilesConnector],
) -> None:
    documents, files = desk
    private = documents / "Private"
    gate = gate_with(("files.*", "allow", str(documents)), ("files.*", "deny", str(private)))
    tools = {item.name: item for item in files.tools}
    read, move = tools["files.read"], tools["files.move"]

    @CASES
    @given(spelling=path_spellings(str(documents)))
    def check(spelling: str) -> None:
        try:
            touched: Path | None = locate(spelling, files.library.grants()).path
        except ToolFailure:
            touched = None
        for tool, arguments, plainly in (
            (read, {"path": spelling}, {"path": str(touched)}),
            (
                move,
                {"sources": [str(documents / "notes.txt")], "destination": spelling},
                {"sources": [str(documents / "notes.txt")], "destination": str(touched)},
            ),
        ):
            canonical = parsed(tool, arguments)
            assert (canonical is None) == (touched is None), spelling
            if canonical is None or touched is None:
                continue
            expected = "deny" if touched.is_relative_to(private) else "allow"
            assert outcome(gate, tool, canonical) == outcome(gate, tool, plainly) == expected

    check()


# Recipients


@pytest.fixture(scope="module")
def mail(tmp_path_factory: pytest.TempPathFactory) -> MailConnector:
    home = tmp_path_factory.mktemp("mail")
    store = SettingsStore(home / "connectors")
    store.save("mail", MailSettings(address="me@mycompany.com"))
    return MailConnector(MailAccount(store, home / "mail"))


@st.composite
def recipient_spellings(draw: st.DrawFn) -> str:
    local = draw(st.sampled_from(["bob", "eve", "Bob", "EVE", "b.o.b", "bob+x"]))
    domain = draw(
        st.sampled_from(
            ["mycompany.com", "MyCompany.COM", "evil.com", "mycompany.com.evil.com", "mycompany.co"]
        )
    )
    address = f"{local}@{domain}"
    name = draw(
        st.sampled_from(
            ["", "Bob", '"Bob, CEO"', '"bob@mycompany.com"', "=?utf-8?q?B=C3=B6b?=", '"x <y@z>"']
        )
    )
    form = draw(st.integers(0, 4))
    if form == 0:
        text = address
    elif form == 1:
        text = f"{name} <{address}>"
    elif form == 2:
        text = f"<{address}>"
    elif form == 3:
        text = f"{address} ({name or 'note'})"
    else:
        text = f"  {name}<{address}>  "
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from(INVISIBLE)).join([text[:3], text[3:]])
    return unicodedata.normalize(draw(st.sampled_from(["NFC", "NFKC"])), text)


def test_every_spelling_of_a_recipient_gets_the_verdict_of_the_address_mail_goes_to(
    mail: MailConnector,
) -> None:
    gate = gate_with(
        ("mail.send", "allow", "@mycompany.com"), ("mail.send", "deny", "eve@mycompany.com")
    )
    send = next(item for item in mail.tools if item.name == "mail.send")
    base = {"subject": "Hi", "body": "Hello"}

    @CASES
    @given(spelling=recipient_spellings())
    def check(spelling: str) -> None:
        try:
            goes_to: str | None = parse_recipients([spelling])[0].email
        except ToolFailure:
            goes_to = None
        canonical = parsed(send, {**base, "to": [spelling]})
        assert (canonical is None) == (goes_to is None), spelling
        if canonical is None or goes_to is None:
            return
        domain = goes_to.rpartition("@")[2].lower()
        expected = (
            "deny"
            if goes_to.lower() == "eve@mycompany.com"
            else "allow"
            if domain == "mycompany.com"
            else "ask"
        )
        plainly = {**base, "to": [goes_to]}
        assert outcome(gate, send, canonical) == outcome(gate, send, plainly) == expected, spelling

    check()


# Calendars


@pytest.fixture(scope="module")
def calendars(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CalendarConnector]:
    home = tmp_path_factory.mktemp("calendars")
    for name in ("Work", "Private", "Family"):
        (home / f"{name}.ics").write_text(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n"
            f"X-WR-CALNAME:{name}\r\nEND:VCALENDAR\r\n"
        )
    library = CalendarLibrary(SettingsStore(home / "connectors"), home / "cache.sqlite")
    library.add_file(home)
    library.refresh()
    connector = CalendarConnector(library, ChangeLog(home / "changes.sqlite"))
    yield connector
    connector.changes.close()
    library.stop()


@st.composite
def calendar_spellings(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(["Work", "Private", "Family", "Team"]))
    hows = draw(st.lists(st.integers(0, 3), min_size=len(name), max_size=len(name)))
    text = "".join(
        char.swapcase() if how == 3 else char for char, how in zip(name, hows, strict=True)
    )
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from(INVISIBLE)).join([text[:2], text[2:]])
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from([" ", "\t"])) + text
    return unicodedata.normalize(draw(st.sampled_from(["NFC", "NFKC"])), text)


def test_every_spelling_of_a_calendar_gets_the_verdict_of_the_calendar_the_store_finds(
    calendars: CalendarConnector,
) -> None:
    gate = gate_with(("calendar.*", "allow", "Work"), ("calendar.*", "deny", "Private"))
    listing = next(item for item in calendars.tools if item.name == "calendar.list_events")

    @CASES
    @given(spelling=calendar_spellings())
    def check(spelling: str) -> None:
        try:
            found: str | None = calendars.library.store.calendar(spelling).name
        except ToolFailure:
            found = None
        canonical = parsed(listing, {"calendar": spelling, "start": "today"})
        assert (canonical is None) == (found is None), spelling
        if canonical is None or found is None:
            return
        expected = {"Work": "allow", "Private": "deny"}.get(found, "ask")
        plainly = {"calendar": found, "start": "today"}
        assert outcome(gate, listing, canonical) == outcome(gate, listing, plainly) == expected

    check()
