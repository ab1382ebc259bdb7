"""Persistent shell sessions over a registry env: ``bizbench <env> --session DIR <command>``.

``DIR`` is the agent's: it holds only ``session.json`` (env and preset, never the seed).
The live state (a pickled env) and the command log are kept in a host-side directory keyed
by DIR's real path (``$BIZBENCH_STATE_DIR``, default ``~/.local/state/bizbench/sessions``),
outside anything the agent's sandbox mounts, so hidden state cannot be read from DIR. Each
call loads the state, runs one command under a file lock, saves it atomically and appends
the command to the log, so sessions persist across calls and survive crashes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bizbench.core.cmdline import parse_command
from bizbench.core.registry import ToolError

__all__ = ["CommandSession", "state_root"]


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

    def init(self, env: Any, public: dict[str, Any]) -> None:
        """Start a session with a fresh env; ``public`` goes to DIR/session.json (no seed!)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.state_dir, 0o700)
        with self._locked():
            self._save(env)
            (self.state_dir / "commands.jsonl").write_text("")
        (self.dir / "session.json").write_text(json.dumps({"env": self.env_id, **public}, indent=2) + "\n")

    def run(self, words: Sequence[str], after: Callable[[Any], None] | None = None) -> tuple[bool, Any]:
        """Run one command; (ok, data or error message). ``after`` sees the env before it is saved."""
        if not self.exists:
            return False, f"No {self.env_id} session in {self.dir}; start one with 'sim init --seed N'."
        with self._locked():
            env = self._load()
            try:
                name, args = parse_command(env.registry, words)
            except ToolError as e:
                if e.tamper:
                    env.log_tamper(e.tamper, {"command": " ".join(words)[:500]})
                    self._save(env)
                return False, str(e)
            result = env.call_tool(name, args)
            if after is not None:
                after(env)
            self._save(env)
            with (self.state_dir / "commands.jsonl").open("a") as f:
                row = {"time": time.time(), "command": list(words), "ok": result.ok}
                f.write(json.dumps(row) + "\n")
        return (True, result.data) if result.ok else (False, result.error)

    def load(self) -> Any:
        with self._locked():
            return self._load()

    # ------------------------------------------------------------------ storage
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with (self.state_dir / "lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> Any:
        with (self.state_dir / "state.pkl").open("rb") as f:
            return pickle.load(f)

    def _save(self, env: Any) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.state_dir, prefix=".state-")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(env, f, protocol=5)
        os.replace(tmp, self.state_dir / "state.pkl")
