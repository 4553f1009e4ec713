"""Send llama.cpp's own log lines to Python logging instead of straight to the terminal.

llama.cpp writes through a C callback; llama-cpp-python's default callback prints some lines
(such as "decode: removing memory module entries..." after every stop) to stderr whatever the
verbosity. Ours hands each line to the "hearth.engine.llama_cpp" logger: errors at ERROR, the
rest at DEBUG, so they show only when the user asks for debug logging (`--verbose`). An error
line that only restates a failure Hearth raises itself (the decode status) is DEBUG too.
"""

from __future__ import annotations

import ctypes
import logging
import threading

import llama_cpp

logger = logging.getLogger("hearth.engine.llama_cpp")

# ggml_log_level: NONE 0, INFO 1, WARN 2, ERROR 3, DEBUG 4, CONT 5 (continues the last line).
_ERROR, _CONT = 3, 5
# Error lines that follow a failed decode, which Hearth reports itself (a stop is not an error):
# llama.cpp logs them at ERROR after every aborted decode.
_REPORTED_BY_HEARTH = ("decode: removing memory module entries",)


class _Lines:
    """Joins the fragments llama.cpp writes (a line may arrive in several calls) into lines."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: list[str] = []
        self._level = 0

    def add(self, level: int, text: str) -> list[tuple[int, str]]:
        """Take one fragment; return the (level, line) pairs it completes."""
        done: list[tuple[int, str]] = []
        with self._lock:
            if level != _CONT:
                done += self._flush()
                self._level = level
            self._parts.append(text)
            if text.endswith("\n"):
                done += self._flush()
        return done

    def _flush(self) -> list[tuple[int, str]]:
        line = "".join(self._parts).strip()
        self._parts.clear()
        return [(self._level, line)] if line else []


_lines = _Lines()


def _forward(level: int, text: bytes | None, _user_data: ctypes.c_void_p) -> None:
    fragment = text.decode("utf-8", errors="replace") if text else ""
    for line_level, line in _lines.add(level, fragment):
        error = line_level == _ERROR and not line.startswith(_REPORTED_BY_HEARTH)
        logger.log(logging.ERROR if error else logging.DEBUG, "%s", line)


# Module-level so the ctypes thunk lives as long as llama.cpp may call it.
_callback = llama_cpp.llama_log_callback(_forward)


def route_llama_log() -> None:
    """Make llama.cpp log through Python logging; cheap, so call it before every load.

    Calling it again matters: importing `llama_cpp.llama` installs llama-cpp-python's own
    callback, and the last one set wins.
    """
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
