#!/usr/bin/env python3
"""bizbench yc --session DIR <command> [--flag value ...]: one YC-Bench command, one JSON answer.

DIR is the workspace holding the session's socket (.yc/api.sock). The command's words go to
the session server, which parses and runs them; this script prints exactly one JSON document
on stdout and exits 0 on success, 1 on an error ({"error": "..."}). The session was created
by the host, so there is no `sim init` here. Standard library only.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

RUNTIME_DIR = ".yc"
SOCKET_NAME = "api.sock"
TIMEOUT_S = 120.0
UNIX_PATH_MAX = 100
USAGE = (
    "usage: bizbench yc --session DIR <command> [--flag value ...], DIR being the workspace that holds "
    f"{RUNTIME_DIR}/{SOCKET_NAME} (e.g. bizbench yc --session /workspace company status)"
)


class _UnixConnection(http.client.HTTPConnection):
    """HTTP over the session's Unix socket (long paths through /proc/self/fd)."""

    def __init__(self, path: Path) -> None:
        super().__init__("localhost", timeout=TIMEOUT_S)
        self.unix_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        path = self.unix_path
        if len(os.fsencode(str(path))) <= UNIX_PATH_MAX:
            sock.connect(str(path))
        else:
            fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                sock.connect(f"/proc/self/fd/{fd}/{path.name}")
            finally:
                os.close(fd)
        self.sock = sock


def split_argv(argv: list[str]) -> tuple[str, list[str]]:
    """(DIR, command words) of ``yc --session DIR words...`` or ``yc --session=DIR words...``."""
    if len(argv) < 2 or argv[0] != "yc":
        raise ValueError(USAGE)
    if argv[1] == "--session" and len(argv) >= 3:
        return argv[2], argv[3:]
    if argv[1].startswith("--session="):
        return argv[1].partition("=")[2], argv[2:]
    raise ValueError(USAGE)


def run(argv: list[str]) -> tuple[bool, Any]:
    """(ok, data or error message) of one invocation."""
    try:
        session, words = split_argv(argv)
    except ValueError as e:
        return False, str(e)
    if words[:2] == ["sim", "init"]:
        return False, (
            "sim init is not available: the host created this session (its world is fixed for the run). "
            "Go on with the other commands, e.g. 'company status'."
        )
    sock = Path(session) / RUNTIME_DIR / SOCKET_NAME
    if not session or not sock.is_socket():
        here = Path(__file__).resolve().parent.parent
        return False, f"No yc session in '{session}': the session directory is the workspace ({here})."
    conn = _UnixConnection(sock)
    try:
        body = json.dumps({"words": words})
        conn.request("POST", "/command", body, {"Content-Type": "application/json"})
        raw = conn.getresponse().read()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        return False, f"The yc session server does not answer ({reason}); the simulation may have ended."
    finally:
        conn.close()
    try:
        reply = json.loads(raw)
    except ValueError:
        return False, "The yc session server sent an unreadable answer."
    if not isinstance(reply, dict):
        return False, "The yc session server sent an unreadable answer."
    if reply.get("success"):
        return True, reply.get("data")
    error = str(reply.get("error") or "unknown error")
    if reply.get("request_id"):
        error += f" (request {reply['request_id']})"
    return False, error


def main(argv: list[str]) -> int:
    try:
        ok, out = run(argv)
    except Exception as e:  # noqa: BLE001 - the answer is always one JSON document
        ok, out = False, f"client error: {type(e).__name__}: {e}"
    sys.stdout.write(json.dumps(out if ok else {"error": out}) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
