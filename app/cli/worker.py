"""Run a model stream on a worker thread so Ctrl-C only sets the stop flag.

Interrupting llama.cpp bookkeeping half-way could desync the prompt cache; a worker that
checks a CancelToken between tokens stops cleanly instead.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from hearth import CancelToken

T = TypeVar("T")
_DONE = object()


def stream_on_worker(produce: Callable[[], Iterator[T]], cancel: CancelToken) -> Iterator[T]:
    """Yield what `produce()` yields, computed on a worker thread; Ctrl-C cancels it."""
    items: queue.Queue[object] = queue.Queue()

    def work() -> None:
        try:
            for item in produce():
                items.put(item)
        except BaseException as exc:  # handed to the caller's thread and re-raised there
            items.put(exc)
        finally:
            items.put(_DONE)

    thread = threading.Thread(target=work, name="hearth-inference", daemon=True)
    thread.start()
    while True:
        try:
            item = items.get()
        except KeyboardInterrupt:
            cancel.cancel()
            continue
        if item is _DONE:
            break
        if isinstance(item, BaseException):
            raise item
        yield item  # type: ignore[misc]
    thread.join()
