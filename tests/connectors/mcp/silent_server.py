"""An MCP server that never answers: it reads every request and replies to none.

Run as `python silent_server.py PIDFILE`: it writes its process id there first, so a test can
tell that it started and, later, that it is gone. It ends when its stdin closes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).write_text(str(os.getpid()), encoding="utf-8")
    print("listening, and never answering", file=sys.stderr, flush=True)
    for _request in sys.stdin:
        pass
