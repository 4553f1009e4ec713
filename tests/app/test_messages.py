"""The stop flag's listeners: how a cancel reaches the engine's flag inside llama.cpp."""

from __future__ import annotations

import threading

from hearth.messages import CancelToken


def test_a_listener_hears_the_cancel_once() -> None:
    cancel = CancelToken()
    heard: list[str] = []
    cancel.when_cancelled(lambda: heard.append("stop"))
    cancel.cancel()
    cancel.cancel()
    assert cancel.cancelled and heard == ["stop"]


def test_a_listener_added_after_the_cancel_hears_it_at_once() -> None:
    cancel = CancelToken()
    cancel.cancel()
    heard: list[str] = []
    cancel.when_cancelled(lambda: heard.append("stop"))
    assert heard == ["stop"]


def test_a_listener_that_stopped_listening_hears_nothing() -> None:
    cancel = CancelToken()
    heard: list[str] = []
    stop_listening = cancel.when_cancelled(lambda: heard.append("stop"))
    stop_listening()
    stop_listening()
    cancel.cancel()
    assert heard == []


def test_a_cancel_from_another_thread_reaches_the_listener() -> None:
    cancel = CancelToken()
    heard = threading.Event()
    cancel.when_cancelled(heard.set)
    threading.Thread(target=cancel.cancel).start()
    assert heard.wait(10)
