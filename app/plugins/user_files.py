"""User plugins: the `.py` files in the plugins folder, and which plugins the user turned off.

Files starting with `_` or `.` are left alone. Finding the files runs none of them (that is
`hearth.plugins.file_loading`), so listing what exists stays cheap.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from hearth.paths import config_dir, write_json_atomically

log = logging.getLogger(__name__)

SETTINGS_FILE = "plugins.json"


def plugin_files(folder: Path) -> list[Path]:
    """The plugin files in `folder`, by name."""
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if is_plugin_file(path) and path.is_file())


def is_plugin_file(path: Path) -> bool:
    """Whether a file of this name would be loaded as a plugin (existing or not)."""
    return path.suffix == ".py" and not path.name.startswith(("_", "."))


def plugin_name(path: Path) -> str:
    """The file's stem as a plugin and connector name: lower-case letters, digits and `_`."""
    name = re.sub(r"[^a-z0-9_]+", "_", path.stem.lower())
    name = re.sub(r"^[^a-z]+", "", name).rstrip("_")
    return name or "plugin"


def disabled_plugins() -> frozenset[str]:
    """Names of the plugins the user turned off (`plugins.json`); unreadable means none."""
    stored = _settings()
    names = stored.get("disabled", [])
    if not isinstance(names, list):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))


def set_plugin_disabled(name: str, disabled: bool) -> None:
    """Turn a plugin off or back on for every later start; written atomically."""
    stored = _settings()
    names = set(disabled_plugins())
    if disabled:
        names.add(name)
    else:
        names.discard(name)
    stored["disabled"] = sorted(names)
    write_json_atomically(config_dir() / SETTINGS_FILE, stored)


def _settings() -> dict[str, object]:
    path = config_dir() / SETTINGS_FILE
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("ignoring %s: %s", path, error)
        return {}
    return stored if isinstance(stored, dict) else {}
