"""`hearth calendar`: add calendar files, connect a CalDAV account, sync, and look."""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path

import click
import pydantic

from hearth import ask_password_option, ask_secret, keep_password, read_fingerprint, shown
from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.library import NAME, SYNCING, CalendarLibrary
from hearth.connectors.calendar.objects import Problem
from hearth.connectors.calendar.status import describe_change, describe_state, overview
from hearth.connectors.calendar.when import read_range

NO_CALENDARS = (
    "No calendars yet. Add a file with:  hearth calendar add-file ~/calendar.ics\n"
    "or an account with:  hearth calendar connect https://server --user NAME"
)


def calendar_commands(library: CalendarLibrary) -> click.Group:
    """`hearth calendar` working on `library`."""
    return click.Group(
        "calendar",
        commands=[
            add_file,
            remove_file,
            connect,
            list_calendars,
            status,
            sync,
            events,
            conflicts,
            drop,
        ],
        help="Calendar files and CalDAV accounts, their sync, and their events.",
        context_settings={"obj": library},
        params=[
            ask_password_option(
                "CalDAV password",
                "the CalDAV password",
                partial(library.settings_store.ask_when_needed, NAME, "password"),
            )
        ],
    )


@click.command("add-file")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.pass_obj
def add_file(library: CalendarLibrary, path: Path) -> None:
    """Let Hearth read (and change) the .ics file at PATH, or every .ics file in a folder."""
    names = library.add_file(path.absolute())
    found = ", ".join(shown(name) for name in names) or "no calendars found yet"
    click.echo(f"Added {shown(str(path))}: {found}")
    _report_unread(library, names)


@click.command("remove-file")
@click.argument("path", type=click.Path(path_type=Path))
@click.pass_obj
def remove_file(library: CalendarLibrary, path: Path) -> None:
    """Stop using the .ics file or folder at PATH (the file itself is left alone)."""
    library.remove_file(path.absolute())
    click.echo(f"Removed {shown(str(path))}")


@click.command("connect")
@click.argument("server")
@click.option("--user", "username", required=True, help="Your user name on the server.")
@click.option(
    "--trust",
    default="",
    metavar="FINGERPRINT",
    help="Trust the server's self-signed certificate with this SHA-256 fingerprint, which a "
    "failed connect shows.",
)
@click.pass_obj
def connect(library: CalendarLibrary, server: str, username: str, trust: str) -> None:
    """Connect the CalDAV account at SERVER (a bare address works). Asks for the password (an
    app password where offered; one line of stdin when that is no terminal), which goes to the
    system keyring, or Hearth's own password store where there is none."""
    # Imported here: caldav's HTTP stack would slow every `hearth` command.
    from hearth.connectors.calendar.discovery import check_connection

    try:
        pinned = read_fingerprint(trust)
    except ValueError as error:
        raise click.UsageError(f"--trust {trust}: {error}") from None
    password = ask_secret("Password", "the CalDAV password")
    found = check_connection(server, username, password, pinned=pinned)
    update = {
        "server": server,
        "username": username,
        "password": pydantic.SecretStr(password),
        "trusted_certificate": pinned,
    }
    settings = library.public_settings().model_copy(update=update)

    def hold() -> None:
        library.save(settings.model_copy(update={"password": None}))
        library.use_password_for_session(password)

    where = keep_password(lambda: library.save(settings), hold)
    click.echo(f"Connected: {', '.join(shown(calendar.name) for calendar in found)}")
    click.echo(where)
    _sync_or_fail(library)


@click.command("list")
@click.pass_obj
def list_calendars(library: CalendarLibrary) -> None:
    """Show every calendar, where it comes from, and how its sync stands."""
    now = time.time()
    states = {state.calendar: state for state in library.store.status()}
    calendars = library.store.calendars()
    if not calendars:
        click.echo(NO_CALENDARS)
    _report_missing(library)
    for calendar in calendars:
        state = states.get(calendar.name)
        line = f"{calendar.name}  ({calendar.source}{'' if calendar.writable else ', read-only'})"
        click.echo(shown(f"{line}  {describe_state(state, now) if state else 'not synced yet'}"))
    _report_problems(library.store.problems(), err=True)


@click.command("status")
@click.pass_obj
def status(library: CalendarLibrary) -> None:
    """How the calendars stand, in one line, then each part not read and each file not found;
    from the cache, without going online."""
    line = overview(library.store.status(), library.missing_files(), time.time())
    click.echo(shown(line) if line else NO_CALENDARS)
    _report_problems(library.store.problems(), err=False)
    _report_missing(library)


@click.command("sync")
@click.pass_obj
def sync(library: CalendarLibrary) -> None:
    """Fetch changes now and send changes made while offline."""
    _sync_or_fail(library)


def _sync_or_fail(library: CalendarLibrary) -> None:
    problem = library.account_problem()
    now = time.time()
    for state in library.refresh():
        click.echo(shown(f"{state.calendar}: {describe_state(state, now)}"))
    _report_problems(library.store.problems(), err=True)
    if problem:
        raise click.ClickException(problem[:1].upper() + problem[1:])
    if not library.store.calendars():
        click.echo(NO_CALENDARS)


@click.command("events")
@click.argument("start", default="today")
@click.argument("end", required=False)
@click.option("--calendar", help="Only this calendar.")
@click.pass_obj
def events(library: CalendarLibrary, start: str, end: str | None, calendar: str | None) -> None:
    """List events from START (default today) to END (a date, included), from the cache."""
    begin, finish = read_range(start, end, library.zone(), today=library.today())
    found, problems = library.occurrences(begin, finish, calendar)
    for item in found:
        click.echo(f"{_when(item.start, item.end)}  {shown(item.title)}  [{shown(item.calendar)}]")
    if not found:
        click.echo("No events.")
    _report_problems(problems, err=True)


@click.command("conflicts")
@click.pass_obj
def conflicts(library: CalendarLibrary) -> None:
    """Changes made offline that clashed with a change on the server; nothing was overwritten."""
    found = library.store.conflicts()
    if not found:
        click.echo("No conflicts.")
    for change in found:
        click.echo(f"{change.id}  {shown(describe_change(change))}")


@click.command("drop")
@click.argument("change_id", type=int)
@click.pass_obj
def drop(library: CalendarLibrary, change_id: int) -> None:
    """Give up a conflicting offline change, keeping the server's version."""
    library.store.discard(change_id)
    click.echo(f"Dropped {change_id}; the server's version stays.")


def _report_unread(library: CalendarLibrary, names: list[str]) -> None:
    """Say on stderr what of these calendars could not be read; an error if one not at all."""
    states = {state.calendar: state for state in library.store.status()}
    errors = []
    for name in names:
        state = states.get(name)
        if state is not None and not state.online and state.error:
            errors.append(shown(state.error))
        _report_problems(library.store.problems(name), err=True)
    if errors:
        raise CalendarError("; ".join(errors))


def _report_problems(problems: Iterable[Problem], *, err: bool) -> None:
    for problem in problems:
        if problem.component == SYNCING:
            click.echo(shown(f"{problem.where}: {problem.message}"), err=err)
        else:
            click.echo(f"could not read: {shown(problem.describe())}", err=err)


def _report_missing(library: CalendarLibrary) -> None:
    for path in library.missing_files():
        click.echo(f"not found: {shown(path)} (added, but not there now)")


def _when(start: datetime | date, end: datetime | date) -> str:
    if isinstance(start, datetime) and isinstance(end, datetime):
        return f"{start:%a %d %b %H:%M}–{end:%H:%M}"
    last = end - timedelta(days=1) if end > start else start
    return f"{start:%a %d %b}" + (f"–{last:%a %d %b}" if last != start else "") + " all day"
