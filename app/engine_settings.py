"""The engine's settings file (threads, the tools' prompt budget, the prefix cache's size).

A light module: a session reads its tool budget here without loading the model code. A value
that is not a whole number in range is ignored with a warning, and the default holds.
"""

from __future__ import annotations

import json
import logging

from hearth.paths import config_dir, write_json_atomically

log = logging.getLogger(__name__)

SETTING_FILE = "engine.json"
DEFAULT_PREFIX_CACHE_MB = 1024
# About all the built-in tools but one connector: room left for the conversation in 8K tokens.
DEFAULT_TOOL_BUDGET = 4500
TOOL_BUDGET = "tool_prompt_tokens"
PREFIX_CACHE = "prefix_cache_mb"
LIMITS = {TOOL_BUDGET: (0, 1_000_000), PREFIX_CACHE: (0, 1_000_000)}
DEFAULTS = {TOOL_BUDGET: DEFAULT_TOOL_BUDGET, PREFIX_CACHE: DEFAULT_PREFIX_CACHE_MB}


def saved_setting(name: str) -> int:
    """The saved value of `name` (one of LIMITS), or its default."""
    value = saved_engine_settings().get(name, DEFAULTS[name])
    low, high = LIMITS[name]
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    log.warning("ignoring %s=%r in the engine settings, using %s", name, value, DEFAULTS[name])
    return DEFAULTS[name]


def save_setting(name: str, value: int | None) -> None:
    """Keep `value` for `name`; None goes back to the default."""
    if value is not None:
        low, high = LIMITS[name]
        if not low <= value <= high:
            raise ValueError(f"{name} must be between {low} and {high}, not {value}")
    save_engine_setting(name, value if value is not None else DEFAULTS[name])


def saved_engine_settings() -> dict[str, object]:
    """Everything in the engine's settings file; empty when it is missing or unreadable."""
    path = config_dir() / SETTING_FILE
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("ignoring %s: %s", path, error)
        return {}
    return values if isinstance(values, dict) else {}


def save_engine_setting(name: str, value: object) -> None:
    """Keep one engine setting, and every other one as it was."""
    values = saved_engine_settings()
    values[name] = value
    write_json_atomically(config_dir() / SETTING_FILE, values)
