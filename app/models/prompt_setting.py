"""Where loaded models keep their prompt prefixes' states, as the engine settings say."""

from __future__ import annotations

from pathlib import Path

from hearth.engine.prefix import PrefixStates
from hearth.engine_settings import PREFIX_CACHE, saved_setting
from hearth.paths import cache_dir


def prefix_folder() -> Path:
    return cache_dir() / "prefixes"


def prefix_states() -> PrefixStates | None:
    """The kept states of prompt prefixes; None when the cache is turned off (size 0)."""
    megabytes = saved_setting(PREFIX_CACHE)
    if megabytes == 0:
        return None
    return PrefixStates(prefix_folder(), disk_bytes=megabytes * 2**20)
