"""Where Hearth keeps its data, following each OS's conventions (platformdirs).

`HEARTH_HOME` overrides everything; tests and portable installs use it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import platformdirs

APP_NAME = "Hearth"


def home_override() -> Path | None:
    """The folder `HEARTH_HOME` names, or None when Hearth uses the platform's folders."""
    value = os.environ.get("HEARTH_HOME")
    return Path(value).expanduser() if value else None


def data_dir() -> Path:
    """Directory for databases and other durable state."""
    home = home_override()
    path = home / "data" if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir() -> Path:
    """Directory holding the user's downloaded and imported GGUF models."""
    path = data_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """Directory for what Hearth can always compute again (a prompt prefix's model state)."""
    home = home_override()
    path = home / "cache" if home else Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Directory for user settings."""
    home = home_override()
    path = (
        home / "config" if home else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    )
    path.mkdir(parents=True, exist_ok=True)
    return path


def plugins_dir() -> Path:
    """Folder of the user's plugin files: each `.py` file in it is a plugin."""
    path = config_dir() / "plugins"
    path.mkdir(parents=True, exist_ok=True)
    return path


def bundle_dir() -> Path | None:
    """Root of a frozen (PyInstaller) build's bundled files, or None when running from source."""
    if not getattr(sys, "frozen", False):
        return None
    return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))


def write_json_atomically(path: Path, data: object) -> None:
    """Write to a temp file beside `path`, flush it to disk, then rename it over `path`."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_bytes_atomically(path, [text.encode("utf-8")])


def write_bytes_atomically(path: Path, parts: Iterable[bytes | memoryview]) -> None:
    """`parts` written one after another to a temp file beside `path`, flushed to disk, then
    renamed over `path`: a reader sees the old file or the whole new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for part in parts:
                handle.write(part)
            handle.flush()
            os.fsync(handle.fileno())
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def fsync_directory(directory: Path) -> None:
    """Make renames in `directory` durable; Windows cannot open a directory to fsync it."""
    if os.name == "nt":
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
