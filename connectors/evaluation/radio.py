"""The evaluation laptop's Wi-Fi radio: a modelled switch, since NetworkManager cannot run here."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import ClassVar

from hearth.connectors.system.controls import Control, Setting, Value, checked_switch

NETWORK = "loopback"


class LoopbackRadio(Control):
    """The Wi-Fi radio, modelled: an on/off state, and the mail server reachable only while on.

    NetworkManager needs the system bus, root and a wireless device, none of which an
    evaluation run has, and `nmcli` cannot be pointed at a private instance. So the radio is
    this object's `on`, a bool, and nothing else of Wi-Fi is simulated: no scan, no network
    to choose, no DHCP, no signal. What a scenario can observe of it is modelled faithfully:
    switching it calls `on_wifi(on)`, which the evaluation uses to stop the SMTP server when
    the radio goes off and start it again on the same port when it comes back, as the network
    going away and returning would. Everything reaches the servers over loopback, so
    `detail()` names "loopback" as the network joined while the radio is on.

    The Wi-Fi tools reach it through the `Machine` as they would reach `nmcli`; it answers
    instantly and never refuses, so what is judged is the model's choice, not a backend's.
    """

    setting: ClassVar[Setting] = "wifi"
    backend: ClassVar[str] = "loopback radio"

    def __init__(self, on_wifi: Callable[[bool], None], on: bool = True) -> None:
        self.on_wifi = on_wifi
        self.on = on
        self._lock = threading.Lock()

    def unsupported(self) -> str:
        return ""

    def read(self) -> bool:
        with self._lock:
            return self.on

    def write(self, value: Value) -> None:
        """Switch the radio; `on_wifi` is told only when the state really changes."""
        wanted = checked_switch(value)
        with self._lock:
            if wanted == self.on:
                return
            # Told first: if the network cannot follow, the radio keeps its old state.
            self.on_wifi(wanted)
            self.on = wanted

    def detail(self) -> str:
        return NETWORK if self.read() else ""
