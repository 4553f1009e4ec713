"""What Hearth knows about a model file once it has been checked, before llama.cpp loads it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class GGUFSummary:
    """What Hearth needs to know about a model file before loading it."""

    path: Path
    size: int
    version: int
    architecture: str
    name: str | None
    quantization: str | None
    context_length: int | None
    chat_template: str | None
    bos_token: str | None
    eos_token: str | None
    sampling: dict[str, float]
    tensor_count: int
    vocab_size: int
