#!/usr/bin/env -S python3 -I -S
"""bizbench ENV --session DIR <command> [--flag value ...]: one command of a served seat, one JSON answer.

The template of every env's ``bin/bizbench`` (:mod:`bizbench.core.seat` fills in the block of
seat constants below). DIR is the workspace holding the session's socket
(<runtime dir>/api.sock). The command's words go to the session server, which parses and runs
them (``POST /command``); this script prints exactly one JSON document on stdout and exits 0
on success, 1 on an error ({"error": "..."}). The session was created by the host, so there is
no `sim init` here. Standard library only, and few modules of it (no pathlib, typing or
http.client): each call pays for its imports.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys

# --- seat constants: bizbench.core.seat writes this block for each env ---
ENV_ID = "env"
RUNTIME_DIR = ".bizbench"
SOCKET_NAME = "api.sock"
ENDED_NAME = "ended.json"
TIMEOUT_S = 120.0
EXAMPLE = "status"
# --- end of seat constants ---

UNIX_PATH_MAX = 100
USAGE = (
    f"usage: bizbench {ENV_ID} --session DIR <command> [--flag value ...], DIR being the workspace that holds "
    f"{RUNTIME_DIR}/{SOCKET_NAME} (e.g. bizbench {ENV_ID} --session /workspace {EXAMPLE})"
)


def _connect(path: str) -> socket.socket:
    """A connection to the session's Unix socket (long paths through /proc/self/fd)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(TIMEOUT_S)
    try:
        if len(os.fsencode(path)) <= UNIX_PATH_MAX:
            sock.connect(path)
        else:
            fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
            try:
                sock.connect(f"/proc/self/fd/{fd}/{os.path.basename(path)}")
            finally:
                os.close(fd)
    except BaseException:
        sock.close()
        raise
    return sock


def post(path: str, endpoint: str, payload: object) -> bytes:
    """The body of the server's answer to one HTTP/1.0 POST (the server closes the connection after it).

    Plain sockets rather than http.client, whose imports cost more than the whole call.
    """
    body = json.dumps(payload).encode()
    head = (
        f"POST {endpoint} HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    with _connect(path) as sock:
        sock.sendall(head.encode() + body)
        chunks = []
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
    raw = b"".join(chunks)
    _, sep, answer = raw.partition(b"\r\n\r\n")
    if not sep:
        raise ConnectionError("incomplete answer")
    return answer


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def ended_message(session: str) -> str | None:
    """Why no server answers, when the server said so on its way out (ENDED_NAME beside its socket)."""
    try:
        with open(os.path.join(session, RUNTIME_DIR, ENDED_NAME), encoding="utf-8") as f:
            reason = json.load(f).get("reason")
    except (OSError, ValueError, AttributeError):
        return None
    if reason == "episode_end":
        return f"The episode has ended: the {ENV_ID} session server has shut down, so no further commands are possible."
    return (
        f"The episode has ended: the run was stopped and the {ENV_ID} session server has shut down, "
        "so no further commands are possible."
    )


def split_argv(argv: list[str]) -> tuple[str, list[str]]:
    """(DIR, command words) of ``ENV --session DIR words...`` or ``ENV --session=DIR words...``."""
    if len(argv) < 2 or argv[0] != ENV_ID:
        raise ValueError(USAGE)
    if argv[1] == "--session" and len(argv) >= 3:
        return argv[2], argv[3:]
    if argv[1].startswith("--session="):
        return argv[1].partition("=")[2], argv[2:]
    raise ValueError(USAGE)


def run(argv: list[str]) -> tuple[bool, object]:
    """(ok, data or error message) of one invocation."""
    try:
        session, words = split_argv(argv)
    except ValueError as e:
        return False, str(e)
    if words[:2] == ["sim", "init"]:
        return False, (
            "sim init is not available: the host created this session (its world is fixed for the run). "
            f"Go on with the other commands, e.g. '{EXAMPLE}'."
        )
    sock = os.path.join(session, RUNTIME_DIR, SOCKET_NAME)
    if session and not _is_socket(sock) and (ended := ended_message(session)):
        return False, ended
    if not session or not _is_socket(sock):
        here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        if session and os.path.realpath(session) == here:  # the server has gone and removed its socket
            return False, f"The {ENV_ID} session server does not answer (no socket); the simulation may have ended."
        return False, f"No {ENV_ID} session in '{session}': the session directory is the workspace ({here})."
    try:
        raw = post(sock, "/command", {"words": words})
    except OSError as e:
        ended = ended_message(session)
        if ended:
            return False, ended
        reason = e.strerror or type(e).__name__
        return False, f"The {ENV_ID} session server does not answer ({reason}); the simulation may have ended."
    try:
        reply = json.loads(raw)
    except ValueError:
        return False, f"The {ENV_ID} session server sent an unreadable answer."
    if not isinstance(reply, dict):
        return False, f"The {ENV_ID} session server sent an unreadable answer."
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
