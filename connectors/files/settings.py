"""The files connector's settings: which folders Hearth may see, and how far its tools may go."""

from __future__ import annotations

import pydantic


class FilesSettings(pydantic.BaseModel):
    """Saved by the Folders page and `hearth files grant`; read on every call."""

    folders: list[str] = pydantic.Field(
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
