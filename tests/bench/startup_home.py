"""A lived-in Hearth home for the start-up benchmark: three connectors and two MCP servers.

Files has a granted folder (granted through `hearth files grant`, as a user does); mail and
calendar are set up against loopback ports where nothing listens; MCP has the reference time
server and a server that never answers. Nothing here needs a password: a start-up must not
wait on any of it.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

TIMEOUT_S = 120
NEVER_ANSWERS = "import time; time.sleep(1e9)"


def closed_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def populate(home: Path, hearth: Path, env: dict[str, str]) -> Path:
    """Set `home` up as described above; returns it."""
    documents = home / "Documents"
    documents.mkdir(parents=True)
    for n in range(20):
        (documents / f"note-{n}.txt").write_text(f"Note {n}: the budget review is on Friday.\n")
    subprocess.run(
        [str(hearth), "files", "grant", str(documents), "--no-index"],
        env={**env, "HEARTH_HOME": str(home)},
        capture_output=True,
        timeout=TIMEOUT_S,
        check=True,
    )
    connectors = home / "config" / "connectors"
    connectors.mkdir(parents=True, exist_ok=True)
    mail = {
        "address": "me@example.org",
        "username": "me@example.org",
        "imap_host": "127.0.0.1",
        "imap_port": closed_port(),
        "smtp_host": "127.0.0.1",
        "smtp_port": closed_port(),
    }
    (connectors / "mail.json").write_text(json.dumps(mail))
    calendar = {"server": f"http://127.0.0.1:{closed_port()}/dav/", "username": "me"}
    (connectors / "calendar.json").write_text(json.dumps(calendar))
    servers = {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "silent": {"command": sys.executable, "args": ["-c", NEVER_ANSWERS]},
    }
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return home


def copy_of(template: Path, target: Path) -> Path:
    """A fresh copy of a populated home, so no run sees what an earlier one left."""
    shutil.copytree(template, target, symlinks=True)
    return target
