"""The user's voice settings, kept in the config folder as `voice.json`."""

from __future__ import annotations

import json
import logging
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from hearth.paths import config_dir, write_json_atomically

log = logging.getLogger(__name__)

SETTINGS_FILE = "voice.json"

Language = Literal["english", "any"]
Size = Literal["tiny", "base"]


class VoiceSettings(BaseModel):
    """Which speech model to use, whether to send at once, and which microphone."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    # "english": the English-only model (smaller and more accurate for English);
    # "any": the multilingual one, which finds the language itself.
    language: Language = "english"
    size: Size = "tiny"
    # The transcript waits in the message box for review unless the user turns this on.
    send_at_once: bool = False
    # A PortAudio input device name; None: the system's default input.
    microphone: str | None = None


def load_voice_settings() -> VoiceSettings:
    """The saved settings; the defaults when there are none or they are unreadable."""
    path = config_dir() / SETTINGS_FILE
    try:
        return VoiceSettings.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return VoiceSettings()
    except (OSError, ValueError, ValidationError) as error:
        log.warning("ignoring %s, voice uses its defaults: %s", path, error)
        return VoiceSettings()


def save_voice_settings(settings: VoiceSettings) -> None:
    """Keep `settings` for the next start."""
    write_json_atomically(config_dir() / SETTINGS_FILE, settings.model_dump())
