"""Hearth's desktop UI. The only package that may import PySide6 (enforced by import-linter)."""
