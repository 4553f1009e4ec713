"""The user's CPU thread setting: automatic, or a fixed count, kept in the config folder."""

from __future__ import annotations

import json
import logging
from typing import Protocol, runtime_checkable

from hearth.engine.threads import ThreadPolicy
from hearth.engine_settings import SETTING_FILE, save_engine_setting
from hearth.generation import ChatModel
from hearth.paths import config_dir

log = logging.getLogger(__name__)

MAX_THREADS = 256


def saved_threads() -> int | None:
    """The saved thread count, or None for automatic (also when the file is unreadable)."""
    path = config_dir() / SETTING_FILE
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("threads")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, AttributeError) as error:
        log.warning("ignoring %s, threads are automatic: %s", path, error)
        return None
    if value is None or (isinstance(value, int) and 1 <= value <= MAX_THREADS):
        return value
    log.warning("ignoring threads=%r in %s, threads are automatic", value, path)
    return None


def save_threads(count: int | None) -> None:
    """Keep `count` threads (None: automatic) for the next model load."""
    if count is not None and not 1 <= count <= MAX_THREADS:
        raise ValueError(f"threads must be between 1 and {MAX_THREADS}, not {count}")
    save_engine_setting("threads", count)


def thread_policy(*, override: int | None = None) -> ThreadPolicy:
    """`override` (--threads), else the saved setting, else the automatic policy."""
    count = override or saved_threads()
    return ThreadPolicy.fixed(count) if count else ThreadPolicy.automatic()


@runtime_checkable
class RunsOnThreads(Protocol):
    """A model computed on this machine's CPU threads (not a remote server)."""

    def use_threads(self, threads: ThreadPolicy) -> None: ...


def apply_threads(model: ChatModel | None, threads: ThreadPolicy) -> bool:
    """Use `threads` in the loaded model from its next reply; False for a remote model.

    Waits for a reply in progress to end, so never call it on a UI thread.
    """
    if not isinstance(model, RunsOnThreads):
        return False
    model.use_threads(threads)
    return True
