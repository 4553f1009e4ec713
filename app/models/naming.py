"""The name a person sees for a loaded model: its catalog name, else a cleaned file name."""

from __future__ import annotations

import re
from pathlib import Path

from hearth.generation import ModelInfo
from hearth.models.lookup import installed_models

# A quantisation suffix on a GGUF file name: ".Q4_1", "-Q4_K_M", "_q8_0", ".BF16", ".f16".
_QUANT = re.compile(r"[._-](?:I?Q\d[\w]*|BF16|F16|F32)$", re.IGNORECASE)


def display_name(info: ModelInfo) -> str:
    """The catalog's name for a catalog file ("BotPsy 0.8B"), else the file's cleaned stem.

    Reads the installed models from disk, so call it off the UI thread.
    """
    source = Path(info.source)
    if source.suffix.lower() != ".gguf":
        return info.name  # a remote model: its server's name
    for installed in installed_models():
        if installed.entry is not None and _same_file(installed.path, source):
            return installed.entry.label.split(",")[0].strip()
    return clean_file_name(source.name)


def clean_file_name(name: str) -> str:
    """ "SmolLM2-135M-Instruct.Q4_1.gguf" -> "SmolLM2 135M Instruct"."""
    stem = name[: -len(".gguf")] if name.lower().endswith(".gguf") else name
    stem = _QUANT.sub("", stem)
    return " ".join(re.split(r"[-_\s]+", stem)).strip() or name


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
