"""The controls this machine offers: per setting, the first backend that works here.

Backends are probed lazily and the answer kept briefly, so a tool's check, its preview and
its run do not each ask the OS again; a service that starts or stops is noticed soon after.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hearth.connectors.system.controls import SETTINGS, Battery, BatteryReader, Control, Setting
from hearth.connectors.system.errors import NotSupported, SystemSettingError

PROBE_KEPT_S = 10.0


@dataclass(frozen=True)
class Support:
    """Whether a setting works here: the backend that will be used, or why none can be."""

    setting: Setting
    backend: str | None
    reason: str = ""


class Machine:
    """What Hearth can read and change here, from candidate controls in preference order."""

    def __init__(
        self,
        controls: Sequence[Control],
        not_offered: Mapping[Setting, str] | None = None,
        batteries: Sequence[BatteryReader] = (),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.controls = tuple(controls)
        self.not_offered = dict(not_offered or {})
        self.batteries = tuple(batteries)
        self.clock = clock
        self._lock = threading.Lock()
        self._probed: dict[Setting, tuple[float, Control | None, str]] = {}

    def control(self, setting: Setting) -> Control:
        """The control used for `setting`; raises `NotSupported` saying why none works."""
        found, reason = self._probe(setting)
        if found is None:
            raise NotSupported(setting_words(setting), reason)
        return found

    def support(self, setting: Setting) -> Support:
        found, reason = self._probe(setting)
        return Support(setting, found.backend if found else None, reason)

    def supports(self) -> list[Support]:
        return [self.support(setting) for setting in SETTINGS]

    def battery(self) -> tuple[Battery | None, str]:
        """The battery (None without one) and "", or None and why it cannot be read here."""
        reasons = []
        for reader in self.batteries:
            why = reader.unsupported()
            if why:
                reasons.append(f"{reader.backend}: {why}")
                continue
            try:
                return reader.read(), ""
            except SystemSettingError as error:
                reasons.append(f"{reader.backend}: {error}")
        return None, "; ".join(reasons) or "no battery reader for this system"

    def forget(self) -> None:
        """Probe again on next use (after a change failed, the backend may have gone)."""
        with self._lock:
            self._probed.clear()

    def _probe(self, setting: Setting) -> tuple[Control | None, str]:
        with self._lock:
            kept = self._probed.get(setting)
            if kept is not None and self.clock() - kept[0] < PROBE_KEPT_S:
                return kept[1], kept[2]
        found, reason = self._first_working(setting)
        with self._lock:
            self._probed[setting] = (self.clock(), found, reason)
        return found, reason

    def _first_working(self, setting: Setting) -> tuple[Control | None, str]:
        reasons = []
        for control in self.controls:
            if control.setting != setting:
                continue
            why = control.unsupported()
            if not why:
                return control, ""
            reasons.append(why)
        if setting in self.not_offered:
            reasons.append(self.not_offered[setting])
        return None, "; ".join(reasons) or "Hearth has no backend for it on this system"


def setting_words(setting: str) -> str:
    return {"wifi": "Wi-Fi", "do_not_disturb": "Do not disturb"}.get(setting, setting.title())
