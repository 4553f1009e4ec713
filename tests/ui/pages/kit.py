"""A plugin with realistic connectors whose tools really act on a small in-memory desk."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import Field

from hearth import Connector, Tool, hookimpl, tool


@dataclass
class Desk:
    """What the tools change: files read, mail sent, events made, the volume."""

    read: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    volume: int = 30


def file_tools(desk: Desk) -> tuple[Tool, ...]:
    @tool(effect="read", scope="path", scope_kind="path", name="files.read")
    def read(path: str) -> str:
        """Read a text file.

        Args:
            path: Absolute path of the file.
        """
        desk.read.append(path)
        return Path(path).read_text(encoding="utf-8")

    @tool(effect="read", scope="folder", scope_kind="path", name="files.search")
    def search(folder: str, query: str) -> list[str]:
        """Search file names in a folder.

        Args:
            folder: Absolute path of the folder.
            query: Text the file name contains.
        """
        return [p.name for p in Path(folder).iterdir() if query in p.name]

    @tool(effect="write", scope="path", scope_kind="path", name="files.trash")
    def trash(path: str) -> str:
        """Move a file to the trash.

        Args:
            path: Absolute path of the file.
        """
        return f"trashed {path}"

    return (read, search, trash)


def mail_tools(desk: Desk) -> tuple[Tool, ...]:
    @tool(effect="read", name="mail.search")
    def search(query: str) -> list[str]:
        """Search the inbox.

        Args:
            query: Words to look for.
        """
        return []

    @tool(effect="send", scope="to", scope_kind="recipient", name="mail.send")
    def send(to: str, subject: str, body: str) -> str:
        """Send an email.

        Args:
            to: The recipient's address.
            subject: The subject line.
            body: The message text.
        """
        desk.sent.append(to)
        return f"sent to {to}"

    return (search, send)


def calendar_tools(desk: Desk) -> tuple[Tool, ...]:
    @tool(effect="write", scope="calendar", scope_kind="calendar", name="calendar.create")
    def create(calendar: str, title: str) -> str:
        """Create an event.

        Args:
            calendar: The calendar's name.
            title: The event's title.
        """
        desk.events.append(title)
        return f"created {title}"

    return (create,)


def system_tools(desk: Desk) -> tuple[Tool, ...]:
    @tool(
        effect="system",
        scope="setting",
        scope_kind="setting",
        range_arg="level",
        name="system.volume_set",
    )
    def volume_set(setting: str, level: Annotated[int, Field(ge=0, le=100)]) -> str:
        """Set the speaker volume.

        Args:
            setting: Always "volume".
            level: Volume in percent.
        """
        desk.volume = level
        return f"volume is {level}"

    return (volume_set,)


def weather_connector() -> Connector:
    """A connector whose tool lacks the `weather.` prefix: no single rule can cover it."""

    @tool(effect="read", name="forecast_today")
    def forecast_today(city: str) -> str:
        """Today's forecast.

        Args:
            city: The city.
        """
        return "sunny"

    return Connector("weather", "Weather", "Forecasts.", (forecast_today,))


class DeskPlugin:
    """Registers the connectors above, as a third-party plugin would."""

    def __init__(self, desk: Desk, extra: tuple[Connector, ...] = ()) -> None:
        self.desk = desk
        self.extra = extra

    @hookimpl
    def register_connectors(self, register: object) -> None:
        desk = self.desk
        connectors = (
            Connector("files", "Files", "Your granted folders.", file_tools(desk)),
            Connector("mail", "Mail", "IMAP and SMTP mail.", mail_tools(desk)),
            Connector("calendar", "Calendar", "Local and CalDAV calendars.", calendar_tools(desk)),
            Connector("system", "System", "Volume, Wi-Fi, brightness.", system_tools(desk)),
            *self.extra,
        )
        for connector in connectors:
            register(connector)  # type: ignore[operator]
