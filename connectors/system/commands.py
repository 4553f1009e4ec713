"""Running the OS's own commands: argument lists only, never a shell, always a time limit.

Values reach a command only as separate arguments the backend formatted itself from validated
numbers and booleans, so nothing the model writes is ever parsed by a shell.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from hearth.connectors.system.errors import CommandFailed

TIMEOUT_S = 5.0
_LOCALE = {"LC_ALL": "C", "LANG": "C"}  # output parsed by the backends stays in English


@dataclass(frozen=True)
class Output:
    """What a finished command printed and its exit status."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str = ""
    stderr: str = ""

    def checked(self) -> Output:
        """This output, or `CommandFailed` naming the command and its first error line."""
        if self.returncode == 0:
            return self
        said = (self.stderr.strip() or self.stdout.strip()).splitlines()
        why = said[0] if said else f"exit status {self.returncode}"
        raise CommandFailed(f"{self.argv[0]} failed: {why}")


class Runner(Protocol):
    """Finds and runs programs; the real one is `CommandRunner`."""

    def which(self, program: str) -> str | None:
        """The program's full path, or None when it is not installed."""
        ...

    def run(self, argv: Sequence[str], timeout: float = TIMEOUT_S) -> Output:
        """Run `argv` to completion; raises `CommandFailed` if it cannot start or times out."""
        ...


class CommandRunner:
    """Runs commands with `subprocess`, without a shell, in the C locale, with no stdin."""

    def which(self, program: str) -> str | None:
        return shutil.which(program)

    def run(self, argv: Sequence[str], timeout: float = TIMEOUT_S) -> Output:
        args = _checked_argv(argv)
        try:
            done = subprocess.run(
                args,
                capture_output=True,
                text=True,
                errors="replace",
                stdin=subprocess.DEVNULL,
                timeout=timeout,
                env={**os.environ, **_LOCALE},
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CommandFailed(f"{args[0]} did not answer within {timeout:g} s") from None
        except OSError as error:
            raise CommandFailed(f"{args[0]} could not be started: {error.strerror}") from None
        return Output(args, done.returncode, done.stdout, done.stderr)


def _checked_argv(argv: Sequence[str]) -> tuple[str, ...]:
    # Our own bug if this fails: backends build these lists from validated values.
    args = tuple(argv)
    if isinstance(argv, str) or not args or not all(isinstance(a, str) for a in args):
        raise TypeError(f"a command is a list of strings, not {argv!r}")
    if any("\0" in arg for arg in args):
        raise ValueError(f"a command argument holds a NUL byte: {args!r}")
    return args
