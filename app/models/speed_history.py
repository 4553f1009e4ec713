"""The decode speed this computer usually reaches with a model, to say when it is busy.

A reply that decodes far slower than the best this machine has done with the same model file
and thread count gets a plain explanation: other programs are using the processor (measured
while the reply was written), or, when they are not, the computer may be saving power.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from hearth.engine.cpu_load import CpuMeter
from hearth.errors import HearthError
from hearth.generation import ChatModel, ModelInfo
from hearth.paths import data_dir, write_json_atomically

log = logging.getLogger(__name__)

__all__ = ["CpuMeter", "SpeedHistory", "SpeedReport"]

HISTORY_FILE = "speeds.json"
MIN_TOKENS = 16  # shorter replies measure too noisily to judge
SLOW = 0.5  # "far below": under half the usual speed
OTHERS_BUSY = 0.5  # cores other programs used on average for the machine to count as busy


@dataclass(frozen=True)
class SpeedReport:
    tokens_per_second: float
    usual: float | None  # the best this machine did before with this model and threads
    others_cores: float

    @property
    def slow(self) -> bool:
        return self.usual is not None and self.tokens_per_second < SLOW * self.usual

    @property
    def busy(self) -> bool:
        return self.others_cores >= OTHERS_BUSY

    def label(self) -> str | None:
        """A few words for a status line, or None when the speed is as usual."""
        if not self.slow:
            return None
        return "computer busy" if self.busy else "slower than usual"

    def advice(self) -> str | None:
        """One sentence for the status, or None when the speed is as usual."""
        if not self.slow:
            return None
        figures = f"{self.tokens_per_second:.0f} tokens/s; usually {self.usual:.0f}"
        if self.busy:
            return (
                f"Your computer is busy with other programs, so replies are slower than usual "
                f"({figures})."
            )
        return f"Replies are slower than usual ({figures}); the computer may be saving power."


class SpeedHistory:
    """Best decode speed per model file and thread count, kept in the data folder."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path  # found on first use, so making one touches no disk
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = data_dir() / HISTORY_FILE
        return self._path

    @staticmethod
    def key(info: ModelInfo) -> str:
        return f"{info.source}|{info.quantization}|{info.threads}"

    def check_reply(
        self, model: ChatModel, tokens: int, seconds: float, others_cores: float
    ) -> SpeedReport | None:
        """`check` for a reply `model` just wrote; a model whose details cannot be read (a
        server gone away) is not judged, and the reply stands."""
        try:
            info = model.info
        except HearthError as error:
            log.info("not judging the reply's speed: %s", error)
            return None
        return self.check(info, tokens, seconds, others_cores)

    def check(
        self, info: ModelInfo, tokens: int, seconds: float, others_cores: float
    ) -> SpeedReport | None:
        """Judge this reply's speed against the usual one, and remember a new best."""
        if tokens < MIN_TOKENS or seconds <= 0:
            return None
        speed = tokens / seconds
        with self._lock:
            best = self._read()
            usual = best.get(self.key(info))
            if usual is None or speed > usual:
                best[self.key(info)] = speed
                self._write(best)
        return SpeedReport(speed, usual, others_cores)

    def _read(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("starting a new speed history; %s was unreadable: %s", self.path, error)
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: float(v) for k, v in data.items() if isinstance(v, int | float) and v > 0}

    def _write(self, best: dict[str, float]) -> None:
        try:
            write_json_atomically(self.path, best)
        except OSError as error:  # the history is a nicety; a full disk must not fail a reply
            log.warning("could not keep the speed history in %s: %s", self.path, error)
