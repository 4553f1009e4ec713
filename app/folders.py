"""What a front end may do with granted folders, whichever connector keeps them.

The files connector implements `FolderAccess`; the Folders page and `hearth files` reach it
through `Assistant.folders()` and never import the connector.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

IndexState = Literal["idle", "scanning", "watching", "polling"]


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """What the indexer is doing: its state, the folder it reads, progress and warnings."""

    state: IndexState
    root: Path | None = None
    done: int = 0
    total: int = 0
    skipped: int = 0
    warnings: tuple[str, ...] = ()


@runtime_checkable
class FolderAccess(Protocol):
    """The folders Hearth may see, and their index."""

    def roots(self) -> list[Path]:
        """The granted folders that exist now, as real paths."""
        ...

    def grant(self, folder: Path) -> Path:
        """Let Hearth see `folder` and everything in it; returns the real path granted."""
        ...

    def revoke(self, folder: Path) -> None:
        """Stop seeing `folder`; its entries leave the index."""
        ...

    def indexed_count(self, root: Path) -> int:
        """How many entries below `root` the index holds."""
        ...

    def status(self) -> IndexStatus: ...

    def subscribe(self, listener: Callable[[IndexStatus], None]) -> Callable[[], None]:
        """Call `listener` with each new status, from the indexer's thread; returns unsubscribe."""
        ...
