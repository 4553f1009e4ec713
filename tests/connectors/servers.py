"""The evaluation's loopback servers as the tests need them: one that cannot run here is a
skip locally and a failure under CI, like every other missing dependency (`require`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hearth.connectors.evaluation.servers import ServerUnavailable
from tests.conftest import require


@contextmanager
def server_required() -> Iterator[None]:
    """Turn a `ServerUnavailable` raised inside into `require` with the same message."""
    try:
        yield
    except ServerUnavailable as error:
        require(str(error))
