"""`Every`: a connector's background job (a sync), run now and then at an interval until stopped.

One daemon thread per job. A `HearthError` (the server is down, the settings are incomplete)
is a condition of the world: it is logged and kept in `last_error`, and the job runs again at
its next turn. Anything else is a bug: it is logged with its traceback, and the job goes on,
since a sync that silently died would be worse than one that reports each failure.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from hearth.errors import HearthError

log = logging.getLogger(__name__)
_MIN_WAIT_S = 1.0


class Every:
    """Run `work` at start and then every `minutes()` minutes (read anew each time)."""

    def __init__(self, name: str, work: Callable[[], object], minutes: Callable[[], float]) -> None:
        self.name = name
        self.work = work
        self.minutes = minutes
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name=f"hearth-{self.name}", daemon=True)
        self._thread.start()

    def now(self) -> None:
        """Run again as soon as the run in progress (if any) ends, not at the next interval:
        after new settings, say, which the user expects to see used at once."""
        self._wake.set()

    def stop(self) -> None:
        """Stop after the run in progress, if any; safe to call twice."""
        self._stop.set()
        self._wake.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            self._wake.clear()
            try:
                self.work()
                self.last_error = None
            except HearthError as error:
                self.last_error = str(error)
                log.warning("%s did not run: %s", self.name, error)
            except Exception:
                self.last_error = "an internal error (see the log)"
                log.exception("%s failed", self.name)
            try:
                interval = self.minutes() * 60
            except HearthError as error:
                log.warning("%s: no interval (%s); trying again in 5 minutes", self.name, error)
                interval = 300
            self._wake.wait(max(_MIN_WAIT_S, interval - (time.monotonic() - started)))
