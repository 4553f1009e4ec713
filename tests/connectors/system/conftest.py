"""Fixtures for the system connector's tests: real audio servers and a real session bus."""

from tests.connectors.system.audio_fixtures import *  # noqa: F403
from tests.connectors.system.desktop_fixtures import *  # noqa: F403
