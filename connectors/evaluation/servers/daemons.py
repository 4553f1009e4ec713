"""Starting and stopping the private desktop daemons (PulseAudio, a D-Bus session bus).

Each daemon runs as a child of this process with its output in a log, is stopped through the
`ExitStack` that started it, and is waited for; a daemon that does not come up is reported
with its log, so a broken install says why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hearth import HearthError
from hearth.connectors.evaluation.servers import ServerUnavailable

START_TIMEOUT_S = 15.0  # generous: CI runners have two slow cores
STOP_TIMEOUT_S = 5.0
_POLL_S = 0.02

Environment = Mapping[str, str | None]  # None: the variable is unset


class ServerFailed(HearthError):
    """A server started here did not come up or stopped answering; the message holds its log."""


def program(name: str, what: str, package: str) -> str:
    """The full path of `name`; `ServerUnavailable` saying how to install it when it is missing."""
    path = shutil.which(name)
    if path is None:
        raise ServerUnavailable(
            f"{what} is not installed: install it with `sudo apt install {package}`."
        )
    return path


def private_dirs(root: Path) -> dict[str, str]:
    """Make HOME, config, state and runtime folders under `root`; their variables."""
    for sub in ("home", "config", "state", "run"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "run").chmod(0o700)  # private, as the XDG spec requires of a runtime dir
    return {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "config"),
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_RUNTIME_DIR": str(root / "run"),
    }


def merged(base: Mapping[str, str], *changes: Environment) -> dict[str, str]:
    """`base` with each of `changes` applied in turn (None removes the variable)."""
    env = dict(base)
    for change in changes:
        for name, value in change.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
    return env


@dataclass
class Started:
    """A daemon this process started: how, its process, and where its output goes."""

    argv: Sequence[str]
    process: subprocess.Popen[bytes]
    log: Path


def spawn(
    stack: ExitStack,
    argv: Sequence[str],
    log: Path,
    stdout: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Started:
    """Start `argv` with its output in `log` (or `stdout`); the stack stops it and waits."""
    with ExitStack() as files:
        errors = files.enter_context(log.open("wb"))
        out = files.enter_context(stdout.open("wb")) if stdout else errors
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=errors, env=env
        )
    stack.callback(stop, process)
    return Started(argv, process, log)


def stop(process: subprocess.Popen[Any]) -> None:
    """Terminate `process` and wait for it; kill it if it does not exit in time."""
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def quiet_run(
    argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`argv` with no input, its output captured as text in the C locale, never a shell."""
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env={**(os.environ if env is None else env), "LC_ALL": "C"},
        check=False,
    )


def answers(argv: Sequence[str], prefix: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether `argv` exits 0 and prints a line starting with `prefix`, within 2 s."""
    try:
        done = quiet_run(argv, 2, env)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and done.stdout.startswith(prefix)


def wait_until(ready: Callable[[], bool], started: Sequence[Started], what: str) -> None:
    """Poll `ready` until it holds; `ServerFailed` with the logs if a daemon exits or time runs
    out."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while not ready():
        gone = [one for one in started if one.process.poll() is not None]
        if gone or time.monotonic() > deadline:
            why = f"{gone[0].argv[0]} exited" if gone else f"not ready within {START_TIMEOUT_S:g} s"
            logs = "\n".join(
                f"--- {one.log.name}\n{one.log.read_text(errors='replace')}" for one in started
            )
            raise ServerFailed(f"{what} did not start ({why}):\n{logs}")
        time.sleep(_POLL_S)


def activated_by(address: str, name: str) -> list[int]:
    """The ids of live processes named `name` that the bus at `address` started, from /proc.

    dbus-daemon forks twice to start a service, so the service is not its child: it is known
    by the DBUS_STARTER_ADDRESS the bus gives it (the address plus ",guid=...").
    """
    wanted = (
        f"DBUS_STARTER_ADDRESS={address}".encode(),
        f"DBUS_STARTER_ADDRESS={address},".encode(),
    )
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or _name(int(entry.name)) != name:
            continue
        try:
            env = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(item == wanted[0] or item.startswith(wanted[1]) for item in env):
            found.append(int(entry.name))
    return found


def wait_gone(pid: int, name: str) -> None:
    """Wait for `pid` (named `name`) to exit; kill it if it outlives the wait."""
    # It is not our child, so it can only be polled, not waited for.
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        if _name(pid) != name:
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _name(pid: int) -> str | None:
    """The name of process `pid`, or None once it has exited (or is a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state = stat[stat.rindex(")") + 2 :].split()[0]
    return stat[stat.index("(") + 1 : stat.rindex(")")] if state != "Z" else None
