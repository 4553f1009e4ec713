"""Sampling settings: request overrides, then GGUF `general.sampling.*`, then the model card."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from hearth.generation import GenerationSettings

# GGUF keys as written by llama.cpp's convert script (general.sampling.<key>).
GGUF_SAMPLING_KEYS = {
    "temp": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "penalty_repeat": "repeat_penalty",
}


@dataclass(frozen=True, slots=True)
class Sampling:
    temperature: float = 0.7
    top_p: float = 0.9
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    seed: int | None = None

    def with_gguf(self, values: Mapping[str, float]) -> Sampling:
        """Overlay the sampling defaults a GGUF declares about itself."""
        updates: dict[str, float | int] = {}
        for key, field_name in GGUF_SAMPLING_KEYS.items():
            if key in values:
                value = values[key]
                updates[field_name] = int(value) if field_name == "top_k" else float(value)
        return replace(self, **updates)  # type: ignore[arg-type]

    def with_request(self, settings: GenerationSettings) -> Sampling:
        """Overlay what one request asks for explicitly."""
        updates = {
            name: getattr(settings, name)
            for name in ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed")
            if getattr(settings, name) is not None
        }
        return replace(self, **updates)
