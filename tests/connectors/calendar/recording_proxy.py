"""A real loopback HTTP proxy in front of Radicale that writes down every request it forwards.

Requests go upstream byte for byte (method, path, headers, body), so the tests can check what
the CalDAV source actually sent (If-Match, If-None-Match) without trusting its own account.
With `refuse_sync` it answers sync-collection REPORTs as a server without RFC 6578 does (403
with DAV:supported-report), so the ETag-comparing fallback is exercised against real data.
With `multigets_allowed` set, it forwards that many calendar-multiget REPORTs and answers the
rest 502, as a gateway whose server went away in the middle of a sync.
"""

from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
}
_METHODS = ("GET", "HEAD", "PUT", "DELETE", "POST", "OPTIONS", "PROPFIND", "PROPPATCH")
_METHODS += ("REPORT", "MKCOL", "MKCALENDAR", "MOVE", "COPY")
_UNSUPPORTED_REPORT = b'<?xml version="1.0"?><error xmlns="DAV:"><supported-report/></error>'


@dataclass(frozen=True)
class Recorded:
    """One request as the proxy received it."""

    method: str
    path: str
    headers: dict[str, str]  # names lowercased

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class RecordingProxy:
    """`http://127.0.0.1:<port>/` forwarding to `upstream_port`, keeping a list of requests."""

    def __init__(self, upstream_port: int, *, refuse_sync: bool = False) -> None:
        self.upstream_port = upstream_port
        self.refuse_sync = refuse_sync
        self.multigets_allowed: int | None = None
        self.multigets = 0  # calendar-multiget REPORTs received
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/"

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def multiget_refused(self) -> bool:
        """Count one calendar-multiget; whether it is one too many to forward."""
        with self._lock:
            self.multigets += 1
            return self.multigets_allowed is not None and self.multigets > self.multigets_allowed

    def sent(self, method: str) -> list[Recorded]:
        """The requests seen with this method, in order."""
        with self._lock:
            return [request for request in self.requests if request.method == method]

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def _handler_for(proxy: RecordingProxy) -> type[BaseHTTPRequestHandler]:
    class Forwarder(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def forward(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            proxy.record(Recorded(self.command, self.path, headers))
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.command == "REPORT" and proxy.refuse_sync and b"sync-collection" in body:
                self.answer(403, [("Content-Type", "application/xml")], _UNSUPPORTED_REPORT)
                return
            if b"calendar-multiget" in body and proxy.multiget_refused():
                self.answer(502, [], b"")
                return
            upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=30)
            try:
                upstream.putrequest(
                    self.command, self.path, skip_host=True, skip_accept_encoding=True
                )
                for name, value in self.headers.items():
                    if name.lower() not in _HOP_BY_HOP:
                        upstream.putheader(name, value)
                upstream.endheaders(body or None)
                reply = upstream.getresponse()
                content = reply.read()
                kept = [(k, v) for k, v in reply.getheaders() if k.lower() not in _HOP_BY_HOP]
                self.answer(reply.status, kept, content)
            except OSError:
                self.answer(502, [], b"")  # upstream down: a gateway error, like a real proxy
            finally:
                upstream.close()

        def answer(self, status: int, headers: list[tuple[str, str]], content: bytes) -> None:
            self.send_response(status)
            for name, value in headers:
                if name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(content)

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the recorded list is the log."""

    for method in _METHODS:
        setattr(Forwarder, f"do_{method}", Forwarder.forward)
    return Forwarder
