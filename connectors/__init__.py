"""Hearth's built-in connectors: calendar, mail, files, system.

Rule (enforced by import-linter): connectors use only `hearth`'s public API and never import Qt.
"""
