"""A loopback listener that records every connection made to it (whatever is sent: HTTP, TLS,
nothing at all), to prove that the server under test never called out to it."""

from __future__ import annotations

import socketserver
import threading
from typing import Any


class Listener:
    """A TCP server on 127.0.0.1 (a free port) in a thread; `connections` holds the first bytes
    each connection sent. Use it as a context manager."""

    def __init__(self) -> None:
        self.connections: list[bytes] = []
        self._lock = threading.Lock()
        listener = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.settimeout(2.0)
                try:
                    data = self.request.recv(4096)
                except OSError:
                    data = b""
                with listener._lock:
                    listener.connections.append(data)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def __enter__(self) -> Listener:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
