"""An MCP server that is down until a marker file exists: then it is the reference server
mcp-server-time, the very process (exec), as a user would configure it.

Run as `python late_server.py MARKER`: without MARKER it says so on stderr and exits 1, as a
server whose database or network is not there yet would.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOWN = "not up yet: waiting for"

if __name__ == "__main__":
    marker = Path(sys.argv[1])
    if not marker.exists():
        print(f"{DOWN} {marker.name}", file=sys.stderr, flush=True)
        sys.exit(1)
    time_server = ["-m", "mcp_server_time", "--local-timezone", "Europe/Paris"]
    os.execv(sys.executable, [sys.executable, *time_server])
