"""`hearth calendar`: add calendar files, connect a CalDAV account, sync, and look."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta
from pathlib import Path

import click
import pydantic

from hearth.connectors.calendar.errors import CalendarError
from hearth.connectors.calendar.library import CalendarLibrary
from hearth.connectors.calendar.status import describe_change, describe_state
from hearth.connectors.calendar.when import read_range


def calendar_commands(library: CalendarLibrary) -> click.Group:
    """`hearth calendar` working on `library`."""
    return click.Group(
        "calendar",
        commands=[add_file, remove_file, connect, list_calendars, sync, events, conflicts, drop],
        help="Calendar files and CalDAV accounts, their sync, and their events.",
        context_settings={"obj": library},
    )


@click.command("add-file")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.pass_obj
def add_file(library: CalendarLibrary, path: Path) -> None:
    """Let Hearth read (and change) the .ics file at PATH, or every .ics file in a folder."""
    names = library.add_file(path.absolute())
    click.echo(f"Added {path}: {', '.join(names) or 'no calendars found yet'}")
    _report_unread(library, names)


@click.command("remove-file")
@click.argument("path", type=click.Path(path_type=Path))
@click.pass_obj
def remove_file(library: CalendarLibrary, path: Path) -> None:
    """Stop using the .ics file or folder at PATH (the file itself is left alone)."""
    library.remove_file(path.absolute())
    click.echo(f"Removed {path}")


@click.command("connect")
@click.argument("server")
@click.option("--user", "username", required=True, help="Your user name on the server.")
@click.password_option(confirmation_prompt=False, help="An app password where offered.")
@click.pass_obj
def connect(library: CalendarLibrary, server: str, username: str, password: str) -> None:
    """Connect the CalDAV account at SERVER (a bare address works); the password goes to the
    system keyring."""
    # Imported here: caldav's HTTP stack would slow every `hearth` command.
    from hearth.connectors.calendar.discovery import check_connection

    found = check_connection(server, username, password)
    update = {"server": server, "username": username, "password": pydantic.SecretStr(password)}
    library.save(library.settings().model_copy(update=update))
    click.echo(f"Connected: {', '.join(calendar.name for calendar in found)}")
    library.refresh()


@click.command("list")
@click.pass_obj
def list_calendars(library: CalendarLibrary) -> None:
    """Show every calendar, where it comes from, and how its sync stands."""
    now = time.time()
    states = {state.calendar: state for state in library.store.status()}
    calendars = library.store.calendars()
    if not calendars:
        click.echo(
            "No calendars yet. Add a file with:  hearth calendar add-file ~/calendar.ics\n"
            "or an account with:  hearth calendar connect https://server --user NAME"
        )
    for path in library.missing_files():
        click.echo(f"not found: {path} (added, but not there now)")
    for calendar in calendars:
        state = states.get(calendar.name)
        line = f"{calendar.name}  ({calendar.source}{'' if calendar.writable else ', read-only'})"
        click.echo(f"{line}  {describe_state(state, now) if state else 'not synced yet'}")
    for problem in library.store.problems():
        click.echo(f"could not read: {problem.describe()}", err=True)


@click.command("sync")
@click.pass_obj
def sync(library: CalendarLibrary) -> None:
    """Fetch changes now and send changes made while offline."""
    now = time.time()
    for state in library.refresh():
        click.echo(f"{state.calendar}: {describe_state(state, now)}")
    for problem in library.store.problems():
        click.echo(f"could not read: {problem.describe()}", err=True)


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
        click.echo(f"{_when(item.start, item.end)}  {item.title}  [{item.calendar}]")
    if not found:
        click.echo("No events.")
    for problem in problems:
        click.echo(f"could not read: {problem.describe()}", err=True)


@click.command("conflicts")
@click.pass_obj
def conflicts(library: CalendarLibrary) -> None:
    """Changes made offline that clashed with a change on the server; nothing was overwritten."""
    found = library.store.conflicts()
    if not found:
        click.echo("No conflicts.")
    for change in found:
        click.echo(f"{change.id}  {describe_change(change)}")


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
            errors.append(state.error)
        for problem in library.store.problems(name):
            click.echo(f"could not read: {problem.describe()}", err=True)
    if errors:
        raise CalendarError("; ".join(errors))


def _when(start: datetime | date, end: datetime | date) -> str:
    if isinstance(start, datetime) and isinstance(end, datetime):
        return f"{start:%a %d %b %H:%M}–{end:%H:%M}"
    last = end - timedelta(days=1) if end > start else start
    return f"{start:%a %d %b}" + (f"–{last:%a %d %b}" if last != start else "") + " all day"
