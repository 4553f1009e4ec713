"""The files connector's settings: which folders Hearth may see, and how far its tools may go."""

from __future__ import annotations

from typing import Any

import pydantic


class GrantedFolder(pydantic.BaseModel):
    """A granted folder's real path, and the device and inode of the folder granted there.

    Hearth refuses the path once it leads to another folder (a link, or a folder renamed away
    and recreated). Settings saved before folders were pinned hold paths only; those are pinned
    to what the path names the first time Hearth reads them.
    """

    model_config = pydantic.ConfigDict(frozen=True)

    path: str
    device: int | None = None
    inode: int | None = None


class FilesSettings(pydantic.BaseModel):
    """Saved by the Folders page and `hearth files grant`; read on every call."""

    folders: list[GrantedFolder] = pydantic.Field(
        default_factory=list,
        title="Granted folders",
        description="Folders Hearth may see. Everything else on this computer stays invisible.",
        # Granted on the Folders page or with `hearth files grant`, which check each folder.
        json_schema_extra={"form": False},
    )
    allow_overwrite: bool = pydantic.Field(
        default=False,
        title="Let Hearth replace existing files",
        description="When off, files.write_text only creates new files. The old text is kept "
        "so the change can be undone.",
    )
    rescan_minutes: int = pydantic.Field(
        default=10,
        ge=1,
        le=1440,
        title="Rescan every (minutes)",
        description="A full check of the granted folders that catches changes the live "
        "watcher missed.",
    )

    @pydantic.field_validator("folders", mode="before")
    @classmethod
    def _paths_only_from_before_pinning(cls, folders: Any) -> Any:
        if not isinstance(folders, list):
            return folders
        return [{"path": folder} if isinstance(folder, str) else folder for folder in folders]
