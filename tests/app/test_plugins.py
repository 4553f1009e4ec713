"""Built-in and third-party plugins register through the same hooks; broken ones are skipped."""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pydantic
import pytest

from hearth.plugins.connector import Connector, PluginError
from hearth.plugins.hookspecs import hookimpl
from hearth.plugins.loading import ENTRY_POINT_GROUP, is_builtin, load_plugins
from hearth.tools import Tool, ToolRegistry, tool


@tool(effect="read", name="clock.now", keywords=("time",))
def now(zone: str = "UTC") -> str:
    """The current time.

    Args:
        zone: A time zone name.
    """
    return f"12:00 {zone}"


@tool(effect="read", name="mail.search", keywords=("search",))
def search_mail(query: str) -> list[str]:
    """Search mail.

    Args:
        query: Words to look for.
    """
    return [query]


class MailSettings(pydantic.BaseModel):
    host: str
    password: pydantic.SecretStr


def check_mail(settings: MailSettings) -> None:
    """Pretend the server answered."""


class Clock:
    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(now)


class Mail:
    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(
            Connector(
                name="mail",
                title="Email",
                description="Read and send mail over IMAP and SMTP.",
                tools=(search_mail,),
                settings=MailSettings,
                test_connection=check_mail,
                keywords=("mail", "email", "search"),
            )
        )


class Broken:
    """Registers a tool, then fails: none of what it registered may stay."""

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(now)
        raise RuntimeError("server unreachable")


class Typo:
    @hookimpl
    def register_tool(self, register: Callable[[Tool], None]) -> None:
        register(now)


class NotATool:
    @hookimpl
    def register_tools(self, register: Callable[[object], None]) -> None:
        register(now.function)


class BadConnector:
    @hookimpl
    def register_connectors(self, register: Callable[[Connector], None]) -> None:
        register(Connector(name="My Mail", title="Mail", description="Mail."))


def test_object_plugins_register_tools_and_connectors() -> None:
    registry = ToolRegistry()
    report = load_plugins(registry, plugins=[Clock(), Mail()], entry_points=False)
    assert report.loaded == ["Clock", "Mail"]
    assert report.failed == []
    assert [t.name for t in registry] == ["clock.now", "mail.search"]
    mail = registry.get("mail.search")
    assert mail is not None and mail.connector == "mail"
    assert mail.keywords == ("search", "mail", "email")
    assert registry.by_connector("mail") == [mail]
    connector = report.connector("mail")
    assert connector is not None and connector.settings is MailSettings
    assert registry.get("clock.now") is now


def test_a_plugin_whose_hook_raises_is_reported_and_skipped_whole() -> None:
    registry = ToolRegistry()
    report = load_plugins(registry, plugins=[Broken(), Mail()], entry_points=False)
    assert [(f.plugin, f.error) for f in report.failed] == [
        ("Broken", "RuntimeError: server unreachable")
    ]
    assert report.loaded == ["Mail"]
    assert [t.name for t in registry] == ["mail.search"]


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        (Typo(), "register_tool: not a Hearth hook"),
        (NotATool(), r"register\(\) takes a Tool.*@hearth.tool"),
        (BadConnector(), "connector name 'My Mail' must be lower-case"),
    ],
)
def test_plugin_mistakes_are_reported_clearly(plugin: object, message: str) -> None:
    registry = ToolRegistry()
    report = load_plugins(registry, plugins=[plugin, Clock()], entry_points=False)
    assert len(report.failed) == 1
    assert report.failed[0].plugin == type(plugin).__name__
    assert re.search(message, report.failed[0].error), report.failed[0].error
    assert [t.name for t in registry] == ["clock.now"]


def test_a_plugin_taking_a_registered_name_is_skipped() -> None:
    class ClockAgain:
        @hookimpl
        def register_tools(self, register: Callable[[Tool], None]) -> None:
            register(search_mail)
            register(now)

    registry = ToolRegistry()
    report = load_plugins(registry, plugins=[Clock(), ClockAgain()], entry_points=False)
    assert report.failed[0].plugin == "ClockAgain"
    assert "'clock.now' is already taken" in report.failed[0].error
    assert [t.name for t in registry] == ["clock.now"]


def test_connector_tools_must_be_tools() -> None:
    with pytest.raises(PluginError, match="tools must be Tool objects"):
        Connector(name="x", title="X", description="X.", tools=(now.function,))  # type: ignore[arg-type]


PLUGIN = '''
from hearth import hookimpl, tool


@tool(effect="read", name="weather.today")
def today(city: str) -> str:
    """Today's weather.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


@hookimpl
def register_tools(register):
    register(today)
'''


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real directory on sys.path where tests install distributions with entry points."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        if name.startswith("sample_"):
            del sys.modules[name]


def install(site: Path, dist: str, points: dict[str, str], modules: dict[str, str]) -> None:
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in points.items())
    (info / "entry_points.txt").write_text(f"[hearth.plugins]\n{lines}")
    for module, source in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(source))


def test_third_party_entry_points_are_skipped_while_disabled(site: Path) -> None:
    install(site, "hearth-weather", {"weather": "sample_weather"}, {"sample_weather": PLUGIN})
    registry = ToolRegistry()
    report = load_plugins(registry)
    assert report.disabled == ["weather"]
    assert "weather" not in report.loaded
    assert "sample_weather" not in sys.modules
    assert registry.get("weather.today") is None


def test_third_party_entry_points_load_when_enabled(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    install(site, "hearth-weather", {"weather": "sample_weather"}, {"sample_weather": PLUGIN})
    registry = ToolRegistry()
    report = load_plugins(registry)
    assert "weather" in report.loaded
    weather = registry.get("weather.today")
    assert weather is not None and weather.invoke({"city": "Oslo"}) == "sunny in Oslo"


def test_an_entry_point_that_fails_to_import_is_reported(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HEARTH_DISABLE_PLUGINS")
    install(site, "hearth-ghost", {"ghost": "sample_missing_module"}, {})
    registry = ToolRegistry()
    report = load_plugins(registry, plugins=[Clock()])
    failures = {f.plugin: f.error for f in report.failed}
    assert failures["ghost"] == "ModuleNotFoundError: No module named 'sample_missing_module'"
    assert "Clock" in report.loaded and registry.get("clock.now") is now


def test_built_in_entry_points_load_even_while_third_party_ones_are_disabled(site: Path) -> None:
    # A "hearth" distribution first on sys.path stands in for Hearth's own entry points.
    install(site, "hearth", {"weather": "sample_builtin_weather"}, {})
    (site / "sample_builtin_weather.py").write_text(PLUGIN)
    install(site, "hearth-other", {"other": "sample_other"}, {"sample_other": PLUGIN})
    registry = ToolRegistry()
    report = load_plugins(registry)
    assert report.loaded == ["weather"]
    assert report.disabled == ["other"]
    assert registry.get("weather.today") is not None


def test_installed_third_party_plugins_never_load_in_tests() -> None:
    points = entry_points(group=ENTRY_POINT_GROUP)
    report = load_plugins(ToolRegistry())
    assert report.failed == []
    assert set(report.loaded) == {point.name for point in points if is_builtin(point)}
    assert set(report.disabled) == {point.name for point in points if not is_builtin(point)}
