"""Stopping llama.cpp mid-computation without taking Python's GIL.

ggml asks its abort callback after every node of the compute graph: about 600 times for each
token of SmolLM2. A Python callback takes the GIL each time, so decoding waited on any other
Python thread holding it, above all the window's thread drawing the previous token; on a busy
machine that thread can lose its core while holding the GIL, and decoding stalls with it.

The callback is instead the C library's `strlen`, pointed at a two-byte flag: it reads 0 until
the flag is raised and 1 after, so llama.cpp reads the flag without running any Python. The
second byte stays zero, so the answer is exactly 0 or 1, the values a C `bool` return holds.
"""

from __future__ import annotations

import ctypes
import sys

import llama_cpp


def _libc() -> ctypes.CDLL:
    if sys.platform == "win32":
        return ctypes.cdll.msvcrt
    return ctypes.CDLL(None)  # the symbols already loaded: the C library is among them


# Made once: llama.cpp keeps calling the function pointer for as long as the process runs.
_READ_FLAG = ctypes.cast(_libc().strlen, llama_cpp.ggml_abort_callback)


class AbortFlag:
    """A stop flag llama.cpp reads as it computes; raised from any thread, never lowered."""

    def __init__(self) -> None:
        self._bytes = ctypes.create_string_buffer(2)

    def raise_flag(self) -> None:
        self._bytes[0] = b"!"

    def watch(self, ctx: llama_cpp.llama_context_p) -> None:
        """Make `ctx` stop computing once this flag is raised. The caller keeps the flag
        alive for as long as `ctx` may compute with it."""
        llama_cpp.llama_set_abort_callback(
            ctx, _READ_FLAG, ctypes.cast(self._bytes, ctypes.c_void_p)
        )
