"""Sampling settings: request overrides, then GGUF `general.sampling.*`, then the model card."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from hearth.generation import GenerationSettings

# Catalog keys → Sampling fields. All but the last are GGUF keys as written by llama.cpp's
# convert script (general.sampling.<key>); gguf-py defines no key for the presence penalty, so
# it takes the name of llama.cpp's own sampling parameter (`penalty_present`).
GGUF_SAMPLING_KEYS = {
    "temp": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "min_p": "min_p",
    "penalty_repeat": "repeat_penalty",
    "penalty_present": "presence_penalty",
}


@dataclass(frozen=True, slots=True)
class Sampling:
    """One turn's sampler settings, as llama.cpp's sampler chain takes them."""

    temperature: float = 0.7
    top_p: float = 0.9
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    presence_penalty: float = 0.0
    seed: int | None = None

    def with_gguf(self, values: Mapping[str, float]) -> Sampling:
        """Overlay the sampling defaults a GGUF (or a model card) declares."""
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


@dataclass(frozen=True, slots=True)
class ModelSampling:
    """A model's sampling for turns that think and for turns that do not."""

    thinking: Sampling = Sampling()
    no_think: Sampling = Sampling()

    @classmethod
    def same(cls, sampling: Sampling) -> ModelSampling:
        """One set of values for both kinds of turn."""
        return cls(sampling, sampling)

    @classmethod
    def from_card(
        cls, thinking: Mapping[str, float], no_think: Mapping[str, float]
    ) -> ModelSampling:
        """A model card's two sets of values, keyed like GGUF `general.sampling.*`."""
        return cls(Sampling().with_gguf(thinking), Sampling().with_gguf(no_think))

    def with_gguf(self, values: Mapping[str, float]) -> ModelSampling:
        """Overlay a GGUF's own values on both sets (a file states them for every turn)."""
        return ModelSampling(self.thinking.with_gguf(values), self.no_think.with_gguf(values))

    def for_turn(
        self, settings: GenerationSettings, *, thinking: bool, may_call_tools: bool
    ) -> Sampling:
        """The sampling for one turn: by thinking mode, then the request's own overrides.

        `may_call_tools`: tools are offered and `tool_choice` is not "none".
        """
        chosen = (self.thinking if thinking else self.no_think).with_request(settings)
        if may_call_tools:
            # A presence penalty lowers every token already in the context, and a tool call has
            # to repeat the tool's name, its argument keys and the format's tags exactly as the
            # prompt spells them: penalised, the model misspells or drops them and the call no
            # longer parses. So a turn that may call a tool samples with no presence penalty.
            return replace(chosen, presence_penalty=0.0)
        return chosen
