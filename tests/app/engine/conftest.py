"""Fixtures shared by the engine tests."""

from tests.app.engine.test_remote import scripted

__all__ = ["scripted"]
