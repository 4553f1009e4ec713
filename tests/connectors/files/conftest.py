"""A real granted folder with real files, a library indexing it, and its tools by name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_core import to_jsonable_python

from hearth import Tool
from hearth.connectors.files import FileLibrary, FilesConnector
from tests.connectors.files.samples import make_docx, make_pdf


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
def library(connector: FilesConnector) -> FileLibrary:
    return connector.library


@pytest.fixture
def tools(connector: FilesConnector) -> dict[str, Tool]:
    return {tool.name: tool for tool in connector.tools}


def call(tools: dict[str, Tool], name: str, **arguments: Any) -> Any:
    """Run a tool the way the executor does (validate, invoke) and return the JSON it keeps."""
    return to_jsonable_python(tools[name].invoke(arguments), fallback=str)
