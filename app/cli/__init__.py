"""Hearth's command line: the desktop launcher and headless subcommands."""
