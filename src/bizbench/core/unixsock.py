"""Unix-socket helpers shared by the tool server and the light session client (standard library only)."""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
from collections.abc import Iterator
from pathlib import Path

__all__ = ["UNIX_PATH_MAX", "UnixHTTPConnection", "short_unix_path"]

UNIX_PATH_MAX = 100  # sun_path holds 108 bytes; longer paths go through /proc/self/fd


@contextlib.contextmanager
def short_unix_path(path: Path) -> Iterator[str]:
    """``path`` itself, or a /proc/self/fd alias of it when it is too long for sun_path."""
    if len(os.fsencode(str(path))) <= UNIX_PATH_MAX:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket, for paths of any length."""

    def __init__(self, path: Path, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.unix_path = Path(path)

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        with short_unix_path(self.unix_path) as short:
            sock.connect(short)
        self.sock = sock
