"""Reading files as an ordinary user would, even when the tests run as root.

Root reads a file whatever its mode, because of two capabilities. Clearing them from this
thread's effective set (threads it starts inherit that) makes `chmod 000` refuse root too; the
permitted set is untouched, so they are raised again afterwards.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

_CAPABILITY_VERSION_3 = 0x20080522
_DAC_OVERRIDE = 1
_DAC_READ_SEARCH = 2


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


@contextmanager
def as_a_user() -> Iterator[None]:
    """File permissions apply to this thread and those it starts, as they do for a user."""
    if os.geteuid() != 0:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    header = _Header(_CAPABILITY_VERSION_3, 0)
    data = (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        pytest.skip("running as root, and capabilities cannot be read here")
    saved = data[0].effective
    data[0].effective = saved & ~((1 << _DAC_OVERRIDE) | (1 << _DAC_READ_SEARCH))
    if libc.capset(ctypes.byref(header), data) != 0:
        pytest.skip("running as root, and root's permission bypass cannot be turned off here")
    try:
        yield
    finally:
        data[0].effective = saved
        libc.capset(ctypes.byref(header), data)
