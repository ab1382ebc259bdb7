"""Persistent shell sessions over a registry env: ``bizbench <env> --session DIR <command>``.

``DIR`` is the agent's: it holds only ``session.json`` (env and preset, never the seed).
Everything else lives in a host-side directory keyed by DIR's real path
(``$BIZBENCH_STATE_DIR``, default ``~/.local/state/bizbench/sessions``), outside anything the
agent's sandbox mounts, so hidden state cannot be read from DIR:

- ``state.pkl``: the env, saved after every command that changes it (crash-safe);
- ``schemas.json``: the commands' argument schemas, so the client parses without the registry;
- ``commands.jsonl``: every command run;
- ``api.sock`` + ``daemon.pid``: a per-session daemon that keeps the env in memory.

A command is parsed by a client that imports only the standard library and this package's
light modules, then sent to the daemon (started on first use, stopped after an idle
timeout). So a shell call costs a Python start-up and a socket round trip, not the import
of the simulator.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bizbench.core.cmdline import parse_command
from bizbench.core.errors import ToolError, ToolResult
from bizbench.core.unixsock import UnixHTTPConnection

__all__ = ["CommandSession", "state_root"]

IDLE_S = float(os.environ.get("BIZBENCH_SESSION_IDLE_S", "600"))
START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 120.0


def state_root() -> Path:
    root = os.environ.get("BIZBENCH_STATE_DIR")
    return Path(root) if root else Path.home() / ".local" / "state" / "bizbench" / "sessions"


class CommandSession:
    """One session directory and its host-side state."""

    def __init__(self, env_id: str, session_dir: Path) -> None:
        self.env_id = env_id
        self.dir = Path(session_dir).absolute()
        key = hashlib.sha256(f"{env_id}:{os.path.realpath(self.dir)}".encode()).hexdigest()[:24]
        self.state_dir = state_root() / key

    @property
    def exists(self) -> bool:
        return (self.state_dir / "state.pkl").exists()

    @property
    def socket(self) -> Path:
        return self.state_dir / "api.sock"

    # ------------------------------------------------------------------ client side
    def init(self, env: Any, public: dict[str, Any]) -> None:
        """Start a session with a fresh env (replacing any); ``public`` goes to DIR/session.json (no seed!)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.state_dir, 0o700)
        with self._locked():
            self.stop_daemon()
            _save(self.state_dir, env)
            (self.state_dir / "schemas.json").write_text(json.dumps(env.registry.parameter_schemas()))
            (self.state_dir / "commands.jsonl").write_text("")
        (self.dir / "session.json").write_text(json.dumps({"env": self.env_id, **public}, indent=2) + "\n")

    def run(self, words: Sequence[str]) -> tuple[bool, Any]:
        """Run one command; (ok, data or error message)."""
        if not self.exists:
            return False, f"No {self.env_id} session in {self.dir}; start one with 'sim init --seed N'."
        schemas = json.loads((self.state_dir / "schemas.json").read_text())
        try:
            name, args = parse_command(schemas, words)
        except ToolError as e:
            if e.tamper:
                self._request("/tamper", {"kind": e.tamper, "detail": {"command": " ".join(words)[:500]}})
            return False, str(e)
        reply = self._request("/call", {"tool": name, "args": args})
        return (True, reply.get("data")) if reply.get("success") else (False, reply.get("error", "unknown error"))

    def load(self) -> Any:
        """The saved env (what the daemon last persisted)."""
        with (self.state_dir / "state.pkl").open("rb") as f:
            return pickle.load(f)

    def stop_daemon(self, timeout_s: float = 10.0) -> None:
        """Stop this session's daemon; RuntimeError if one still answers afterwards."""
        pid_file = self.state_dir / "daemon.pid"
        if pid_file.exists():
            with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
                pid = int(pid_file.read_text())
                if _is_daemon_of(pid, self.state_dir):  # never signal a process that reused a stale pid
                    os.kill(pid, signal.SIGTERM)
            pid_file.unlink(missing_ok=True)
        deadline = time.monotonic() + timeout_s
        while _answers(self.socket):
            if time.monotonic() > deadline:
                raise RuntimeError(f"a session daemon still answers on {self.socket}")
            time.sleep(0.02)

    def _request(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        if not _answers(self.socket):
            self._start_daemon()
        conn = UnixHTTPConnection(self.socket, CALL_TIMEOUT_S)
        try:
            conn.request("POST", path, json.dumps(payload), {"Content-Type": "application/json"})
            return dict(json.loads(conn.getresponse().read() or b"{}"))
        finally:
            conn.close()

    def _start_daemon(self) -> None:
        with self._locked():
            if _answers(self.socket):
                return
            self.socket.unlink(missing_ok=True)
            log = (self.state_dir / "daemon.log").open("a")
            subprocess.Popen(
                [sys.executable, "-m", "bizbench.core.cmdsession", str(self.state_dir)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                close_fds=True,
            )
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _answers(self.socket):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"session daemon did not start; see {self.state_dir / 'daemon.log'}")
                time.sleep(0.01)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with (self.state_dir / "lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


# ---------------------------------------------------------------------- daemon side
class _PersistingSession:
    """The daemon's session: the env in memory, saved after each change, with an idle clock."""

    lock_free_tools: frozenset[str] = frozenset()
    logs_tool_tamper = True

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        with (state_dir / "state.pkl").open("rb") as f:
            self.env = pickle.load(f)
        self.last_activity = time.monotonic()

    def call_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        self.last_activity = time.monotonic()
        result: ToolResult = self.env.call_tool(name, args)
        if (result.ok and self.env.registry.spec(name).mutates) or result.tamper:
            _save(self.state_dir, self.env)
        with (self.state_dir / "commands.jsonl").open("a") as f:
            f.write(json.dumps({"time": time.time(), "tool": name, "args": args, "ok": result.ok}, default=str) + "\n")
        return result

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        self.env.log_tamper(kind, detail)
        _save(self.state_dir, self.env)

    def status(self) -> dict[str, Any]:
        return {"done": False}  # read-only commands keep working after the episode ends


def serve(state_dir: Path) -> None:
    """Daemon main: serve the session's socket until SIGTERM or ``IDLE_S`` without a command."""
    from bizbench.core.server import ToolServer

    session = _PersistingSession(state_dir)
    server = ToolServer(session, socket_path=state_dir / "api.sock")
    server.start()
    (state_dir / "daemon.pid").write_text(str(os.getpid()))

    def watchdog() -> None:
        while True:
            time.sleep(min(1.0, IDLE_S))
            if time.monotonic() - session.last_activity > IDLE_S:
                server.request_stop()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    try:
        server.serve()
    finally:
        (state_dir / "daemon.pid").unlink(missing_ok=True)


# ---------------------------------------------------------------------- helpers
def _save(state_dir: Path, env: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=".state-")
    with os.fdopen(fd, "wb") as f:
        pickle.dump(env, f, protocol=5)
    os.replace(tmp, state_dir / "state.pkl")


def _is_daemon_of(pid: int, state_dir: Path) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"bizbench.core.cmdsession" in cmdline and str(state_dir).encode() in cmdline


def _answers(path: Path) -> bool:
    if not path.exists():
        return False
    try:
        conn = UnixHTTPConnection(path, 2.0)
        conn.request("GET", "/health")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
