"""Check an installed model against its install record once, the first time it is loaded.

A bundled or downloaded model has a record of its size and sha256. The first load hashes the
file (about a second for 800 MB); a stamp in the data folder (size, mtime, sha256) then vouches
for it, so later starts skip the hash unless the file changed. A file without a record (a
package's test model, a file picked by hand) is checked only by its GGUF structure, on load.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hearth import paths
from hearth.errors import ChecksumMismatch, ModelFileError
from hearth.models.lookup import read_sidecar, sha256_file

STAMP_FILE = "checked-models.json"


@dataclass(frozen=True, slots=True)
class FirstCheck:
    """What the check found: the size, the recorded sha256, and whether it hashed now."""

    size: int
    sha256: str | None
    hashed: Literal["now", "before", "no record"]


def check_once(path: Path) -> FirstCheck:
    """Size and sha256 against the model's record, hashing only until a stamp vouches for it."""
    record = read_sidecar(path)
    stat = path.stat()
    if record is None:
        return FirstCheck(stat.st_size, None, "no record")
    if stat.st_size != record.size:
        raise ModelFileError(
            path,
            f"it is {stat.st_size:,} bytes but was {record.size:,} when it was installed, so it"
            " is truncated or damaged; install it again",
        )
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": record.sha256}
    stamps = _read_stamps()
    if stamps.get(str(path)) == stamp:
        return FirstCheck(stat.st_size, record.sha256, "before")
    if sha256_file(path) != record.sha256:
        raise ChecksumMismatch(
            f"The model {path.name} does not match the sha256 recorded when it was installed,"
            " so it is damaged; install it again."
        )
    paths.write_json_atomically(_stamp_path(), {**stamps, str(path): stamp})
    return FirstCheck(stat.st_size, record.sha256, "now")


def _stamp_path() -> Path:
    return paths.data_dir() / STAMP_FILE


def _read_stamps() -> dict[str, Any]:
    try:
        data = json.loads(_stamp_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
