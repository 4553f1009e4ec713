"""Sweeping the temporary entries a killed Hearth left in the granted folders.

A move across filesystems copies under a hidden temporary name (`transfer.temporary_name`), and
renames the original to one before removing it; a replacing write writes one too. A process
killed meanwhile leaves it behind, half written or half removed. Such a name carries the id of
the process that made it, so a sweep removes only names whose process is gone: never one this
Hearth, or another one running, may still be using. Nothing else is touched, whatever its name.
Entries are removed through the held folder's descriptor, a folder with everything in it,
without following a link (a link named so is removed, not followed).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys

from hearth.connectors.files.fsops import SUPPORTED
from hearth.connectors.files.transfer import remove_entry, temporary_owner

log = logging.getLogger(__name__)


def is_leftover(name: str) -> bool:
    """Whether `name` is a temporary copy whose Hearth process is gone."""
    owner = temporary_owner(name)
    return owner is not None and owner != os.getpid() and not _alive(owner)


def sweep_leftover(folder: int, name: str) -> bool:
    """Remove `name` from the held `folder` if it is a leftover; whether it was removed."""
    if not SUPPORTED or not is_leftover(name):
        return False
    try:
        remove_entry(folder, name)
    except OSError as error:
        log.warning("could not remove Hearth's leftover copy %s: %s", name, error)
        return False
    log.info("removed %s, a copy a stopped Hearth left unfinished", name)
    return True


def sweep(folder: int) -> list[str]:
    """Remove every leftover directly in the held `folder`; the names removed."""
    if not SUPPORTED:
        return []
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        names = [entry.name for entry in entries if temporary_owner(entry.name) is not None]
        return [name for name in names if sweep_leftover(folder, name)]
    return []


def _alive(pid: int) -> bool:
    if sys.platform == "win32":
        return True  # os.kill would end the process there; Hearth never writes a copy on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, run by someone else
    return True
