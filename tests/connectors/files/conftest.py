"""A real granted folder with real files, a library indexing it, its tools by name, and a
granted folder on another filesystem."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import to_jsonable_python

from hearth import Tool
from hearth.connectors.files import FileLibrary, FilesConnector
from tests.connectors.files.samples import make_docx, make_pdf

SHM = Path("/dev/shm")


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "Documents"
    (folder / "projects").mkdir(parents=True)
    (folder / "notes.txt").write_text("Remember the quarterly budget review on Friday.\n")
    (folder / "projects" / "plan.md").write_text("# Plan\n\nMigrate the heron database.\n")
    make_pdf(folder / "invoice.pdf", ["Invoice 4411", "Total due: 1,234 kroner"])
    make_docx(folder / "letter.docx", "Dear landlord, the radiator is broken.")
    return folder


@pytest.fixture
def connector(documents: Path) -> Iterator[FilesConnector]:
    """Settings and index in the test's own HEARTH_HOME, where `hearth files` finds them too."""
    files = FilesConnector(FileLibrary(poll_seconds=0.5))
    files.grant(documents)
    yield files
    files.close()


@pytest.fixture
def other_drive(documents: Path, connector: FilesConnector) -> Iterator[Path]:
    """A granted folder on another filesystem (tmpfs), when this machine has one."""
    if not SHM.is_dir() or SHM.stat().st_dev == documents.stat().st_dev:
        pytest.skip("needs /dev/shm on a filesystem of its own")
    with tempfile.TemporaryDirectory(dir=SHM) as folder:
        drive = Path(folder) / "Drive"
        drive.mkdir()
        connector.grant(drive)
        yield drive


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob(".hearth-*"))


@pytest.fixture
def library(connector: FilesConnector) -> FileLibrary:
    return connector.library


@pytest.fixture
def tools(connector: FilesConnector) -> dict[str, Tool]:
    return {tool.name: tool for tool in connector.tools}


def call(tools: dict[str, Tool], name: str, **arguments: Any) -> Any:
    """Run a tool the way the executor does (validate, invoke) and return the JSON it keeps."""
    return to_jsonable_python(tools[name].invoke(arguments), fallback=str)
