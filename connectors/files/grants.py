"""The granted folders as saved, each pinned to the folder it named when the user granted it.

A grant is a fixed point: the device and inode of the granted folder are saved with its path and
checked on every use. When the path leads elsewhere (the folder was swapped for a link, or
renamed away and another made in its place) the grant is refused and nothing is indexed through
it until the user grants the folder again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hearth import SettingsStore
from hearth.connectors.files.errors import GrantReplaced, PathRefused
from hearth.connectors.files.fsops import Grant, open_root, pin
from hearth.connectors.files.names import shown
from hearth.connectors.files.roots import real_root
from hearth.connectors.files.settings import FilesSettings, GrantedFolder

NAME = "files"


class Grants:
    """Reads and changes the granted folders in the files connector's settings."""

    def __init__(self, store: SettingsStore, warn: Callable[[str], None]) -> None:
        self.store = store
        self._on_warning = warn
        self._warned: set[str] = set()

    def settings(self) -> FilesSettings:
        if not self.store.is_saved(NAME):
            return FilesSettings()
        return self.store.load(NAME, FilesSettings)

    def pinned(self) -> list[Grant]:
        """Every grant that has a pin; folders saved by path only are pinned now, once."""
        settings = self.settings()
        folders = [self._pinned(folder) for folder in settings.folders]
        if folders != settings.folders:
            self._save(settings, folders)
        return [_grant(folder) for folder in folders if folder.device is not None]

    def current(self) -> list[Grant]:
        """The grants whose path still leads to the folder granted; warns about the others."""
        return [grant for grant in self.pinned() if self._still_there(grant)]

    def add(self, folder: Path) -> Path:
        """Grant `folder`, pinned as it is now; returns the real path of the grant covering it."""
        root = _grantable(folder)
        grant = pin(root)
        for existing in self.current():
            if root.is_relative_to(existing.path):
                return existing.path
        settings = self.settings()
        # Folders inside the new grant join it; a replaced grant the user grants again goes.
        kept = [
            f
            for f in settings.folders
            if not (Path(f.path).is_relative_to(root) or root.is_relative_to(Path(f.path)))
        ]
        self._save(settings, [*kept, _folder(grant)])
        return root

    def remove(self, folder: Path) -> Path:
        """Revoke the grant `folder` names, by its saved path or its real path now."""
        names = {Path(os.path.normpath(folder.absolute())), real_root(folder)}
        settings = self.settings()
        kept = [f for f in settings.folders if Path(f.path) not in names]
        if len(kept) == len(settings.folders):
            raise PathRefused(f"{shown(str(folder))} is not a granted folder")
        gone = next(Path(f.path) for f in settings.folders if Path(f.path) in names)
        self._save(settings, kept)
        return gone

    def _pinned(self, folder: GrantedFolder) -> GrantedFolder:
        if folder.device is not None:
            return folder
        try:
            return _folder(pin(Path(folder.path)))
        except GrantReplaced:
            self._warn(
                f"{shown(folder.path)} was granted before Hearth pinned granted folders and is a "
                "link now, so it is not used; grant the folder again if that is intended"
            )
        except PathRefused:
            pass  # missing for now: pinned once it is back
        return folder

    def _still_there(self, grant: Grant) -> bool:
        try:
            os.close(open_root(grant))
        except GrantReplaced as replaced:
            self._warn(str(replaced))
            return False
        except PathRefused:
            return False  # gone (an unplugged drive, say): not shown until it is back
        return True

    def _warn(self, text: str) -> None:
        if text not in self._warned:  # checked on every call; said once
            self._warned.add(text)
            self._on_warning(text)

    def _save(self, settings: FilesSettings, folders: list[GrantedFolder]) -> None:
        self.store.save(NAME, settings.model_copy(update={"folders": folders}))


def _grant(folder: GrantedFolder) -> Grant:
    assert folder.device is not None and folder.inode is not None
    return Grant(Path(folder.path), folder.device, folder.inode)


def _folder(grant: Grant) -> GrantedFolder:
    return GrantedFolder(path=str(grant.path), device=grant.device, inode=grant.inode)


def _grantable(folder: Path) -> Path:
    if not folder.is_absolute():
        raise PathRefused(f"{shown(str(folder))}: give the folder's full path")
    root = real_root(folder)
    if not root.is_dir():
        raise PathRefused(f"{shown(str(folder))} is not an existing folder")
    if root == Path(root.anchor):
        raise PathRefused("granting the whole disk is refused; choose a folder such as Documents")
    return root
