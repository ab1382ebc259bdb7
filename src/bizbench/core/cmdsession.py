"""Persistent shell sessions over any registered env: ``bizbench <env> --session DIR <command>``.

For humans and trusted tools on the host (docs/seats.md). An agent gets the hosted seat
instead (``bizbench serve ENV``, :mod:`bizbench.core.seat`): its shell runs in the sandbox and
reaches the simulator only through a socket.

``DIR`` holds only ``session.json`` (env and preset, never the seed). Everything else lives
in a host-side directory keyed by the env and DIR's real path (``$BIZBENCH_STATE_DIR``,
default ``~/.local/state/bizbench/sessions``):

- ``meta.json``: ``{env, seed, preset, preset_hash, seed_secret_id, horizon, dir}``, written by
  ``sim init`` (``horizon``: the ``--horizon`` override in the env's unit, or null; ``dir``:
  DIR, for the command prefix of ``rules``);
- ``commands.jsonl``: a replayable record, one JSON object a line, numbered from 0 (``n``):
  a ``start`` line (the digest of the fresh world), then every ``call`` the daemon ran
  (tool, args, ok) and every ``tamper`` entry, appended after the command ran (an accepted
  call whose arguments the env can say shorter against the state they acted on keeps
  ``args_delta`` instead of ``args``: the env's ``compact_args(tool, args)``, taken before
  the call, and ``expand_args(tool, delta)`` on replay; yc's scratchpad writes keep what
  changed, not the whole pad); every
  :data:`DIGEST_EVERY`-th line, and a ``digest`` line whenever the daemon goes idle, starts
  or stops, carries the env's ``state_digest()`` at that point;
- ``api.sock`` + ``daemon.pid`` + ``daemon.log``: a per-session daemon that keeps the env
  in memory; ``lock``: serialises ``sim init`` and daemon start-up;
- ``files/``: the daemon's env keeps its agent-visible files there (ceo's ``company.db``, which
  its ``query`` tool reads), as a run keeps them in its run directory; the replay rebuilds them.

Nothing is unpickled: the daemon (and :meth:`CommandSession.load`) rebuilds the env by
replaying the record on a fresh env from ``meta.json`` and checks every stored digest. A
digest mismatch, a malformed line, a gap in the numbering or a preset whose hash changed is
a :class:`SessionLogError` naming the line; the daemon then refuses to start (the client
shows the error) rather than serve a different world. The digest detects corruption and
edits of the record; it is not a signature: whoever can write the host directory can also
run the simulator.

Crash safety: a line is appended (and flushed) only after its command ran, and the reply is
sent after that. A crash while a line is written leaves a last line without its newline;
that command's reply was never sent, so the daemon drops the torn line (truncating the file
to its last complete line) and the agent, which saw an error, may retry. Lines written after
the last digest are replayed unverified; the daemon writes a digest as soon as it has
replayed them.

A shell call costs a Python start-up and one socket round trip: the client sends the words
to ``POST /command`` and the daemon parses them (:mod:`bizbench.core.server`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from bizbench.core.errors import ToolResult
from bizbench.core.unixsock import UnixHTTPConnection

__all__ = ["DIGEST_EVERY", "CommandLog", "CommandSession", "SessionLogError", "new_env", "state_root"]

IDLE_S = float(os.environ.get("BIZBENCH_SESSION_IDLE_S", "600"))
START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 120.0
DIGEST_EVERY = 25  # state_digest() costs ~3 ms on a yc world; a call line carries one every N lines
CHECKPOINT_IDLE_S = 0.25  # the daemon writes a digest line once it has been idle this long
MAX_LOGGED_ARGS = 16_000  # characters of a refused call's arguments kept verbatim (else a preview)
_ERROR_MARK = "bizbench session error: "
FILES_DIR = "files"  # in the state directory: the env's agent-visible files (``EnvSpec.make``'s ``files``)


def state_root() -> Path:
    root = os.environ.get("BIZBENCH_STATE_DIR")
    return Path(root) if root else Path.home() / ".local" / "state" / "bizbench" / "sessions"


def new_env(
    env_id: str, seed: int, preset: str | None = None, horizon: int | None = None, files: Path | None = None
) -> Any:
    """A fresh env of a registered env id (ValueError / FileNotFoundError for an unknown preset,
    KeyError for an unknown env); with ``$BIZBENCH_SEED_SECRET`` set, its world is the held-out
    one of that secret. ``files``: where it keeps its agent-visible files (ceo's company.db, which
    its ``query`` reads); None: it keeps none."""
    from bizbench.core.envs import get_env
    from bizbench.core.rng import secret_from_env

    return get_env(env_id).from_preset(preset, seed, horizon, secret_from_env(), files=files)


class SessionLogError(RuntimeError):
    """The session's record cannot be replayed into the world it describes."""


# ---------------------------------------------------------------------- the record
class CommandLog:
    """``commands.jsonl``: append a line per command, replay them into a fresh env."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.next_n = 0
        self.undigested = 0  # lines appended since the last one carrying a digest
        self._file: IO[str] | None = None

    @staticmethod
    def create(path: Path, env: Any) -> None:
        """A new record holding only the ``start`` line (atomic: an old record is replaced whole)."""
        line = json.dumps({"n": 0, "kind": "start", "digest": env.state_digest()}) + "\n"
        _write_atomic(Path(path), line)

    def replay(self, env: Any, repair: bool = False) -> Any:
        """Apply every line to ``env`` (a fresh env of the session's meta) and check the digests.

        A torn last line (no newline: a crash while it was written) is skipped; ``repair``
        also truncates it from the file so appends continue from a clean end.
        """
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data) and repair:
            print(f"dropping a torn last line of {self.path.name} ({len(data) - end} bytes)", file=sys.stderr)
            with self.path.open("r+b") as f:
                f.truncate(end)
        lines = data[:end].decode("utf-8", errors="replace").splitlines()
        if not lines:
            raise SessionLogError(f"{self.path.name} is empty (no start line)")
        self.undigested = 0
        for i, text in enumerate(lines):
            where = f"{self.path.name} line {i + 1}"
            try:
                entry = json.loads(text)
                if not isinstance(entry, dict):
                    raise ValueError("not a JSON object")
            except ValueError as e:
                raise SessionLogError(f"{where} is malformed ({e})") from None
            if entry.get("n") != i:
                got = entry.get("n")
                raise SessionLogError(f"{where} is numbered {got!r}, expected {i} (a line was removed or moved)")
            if (entry.get("kind") == "start") != (i == 0):
                raise SessionLogError(f"{where}: only the first line is a start line")
            _apply(env, entry, where)
            if "digest" in entry:
                if entry["digest"] != env.state_digest():
                    raise SessionLogError(f"{where}: the replayed world does not match its recorded state digest")
                self.undigested = 0
            else:
                self.undigested += 1
        self.next_n = len(lines)
        return env

    def append(self, entry: dict[str, Any], env: Any, digest: bool = False) -> None:
        """Append one line (numbered; with the state digest every :data:`DIGEST_EVERY` lines) and flush."""
        line: dict[str, Any] = {"n": self.next_n, **entry}
        if digest or self.next_n % DIGEST_EVERY == 0:
            line["digest"] = env.state_digest()
        text = json.dumps(line, default=str) + "\n"
        if self._file is None:
            self._file = self.path.open("a", encoding="utf-8")
        self._file.write(text)
        self._file.flush()
        self.next_n += 1
        self.undigested = 0 if "digest" in line else self.undigested + 1

    def append_call(self, name: str, args: Any, result: ToolResult, env: Any, delta: Any = None) -> None:
        """One ``call`` line; ``delta``: the env's ``compact_args`` of ``args`` (kept instead of
        them when the call was accepted)."""
        entry: dict[str, Any] = {"kind": "call", "t": round(time.time(), 3), "tool": name, "args": args}
        if delta is not None and result.ok:
            del entry["args"]
            entry["args_delta"] = delta
        entry["ok"] = result.ok
        if not result.ok:
            text = json.dumps(args, default=str)
            if len(text) > MAX_LOGGED_ARGS:  # junk must not bloat the record; a refused call changed nothing
                entry["args"], entry["truncated"] = text[:500], True
            if result.tamper:
                entry["tamper"] = result.tamper
        self.append(entry, env)

    def checkpoint(self, env: Any) -> None:
        """A ``digest`` line, if any line since the last digest lacks one."""
        if self.undigested:
            self.append({"kind": "digest", "t": round(time.time(), 3)}, env, digest=True)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _apply(env: Any, entry: dict[str, Any], where: str) -> None:
    kind = entry.get("kind")
    if kind in ("start", "digest"):
        return
    if kind == "tamper":
        detail = entry.get("detail")
        env.log_tamper(str(entry.get("tamper")), detail if isinstance(detail, dict) else {"detail": detail})
        return
    if kind != "call" or not isinstance(entry.get("tool"), str):
        raise SessionLogError(f"{where} is malformed (kind {kind!r})")
    args = entry.get("args")
    from bizbench.core.envs import get_env

    if get_env(env.env_id).replay.skips(env.registry, entry["tool"]):  # a read: it changed nothing
        env.restore_read(entry["tool"], args, entry.get("ok") is True, entry.get("tamper"))
        return
    if "args_delta" in entry:
        try:
            args = env.expand_args(entry["tool"], entry["args_delta"])
        except (TypeError, ValueError, IndexError) as e:  # a malformed delta (a bug in the hook surfaces)
            raise SessionLogError(f"{where}: its args_delta cannot be expanded ({e})") from None
    result: ToolResult = env.call_tool(entry["tool"], args)
    if result.ok != entry.get("ok"):
        was = "succeeded" if entry.get("ok") else "failed"
        raise SessionLogError(f"{where}: {entry['tool']} {was} when it ran but not on replay")
    if entry.get("truncated") and entry.get("tamper") and result.tamper != entry["tamper"]:
        env.log_tamper(str(entry["tamper"]), {"tool": entry["tool"], "error": "(arguments not kept)"})


# ---------------------------------------------------------------------- client side
class CommandSession:
    """One session directory and its host-side state."""

    def __init__(self, env_id: str, session_dir: Path) -> None:
        self.env_id = env_id
        self.dir = Path(session_dir).absolute()
        key = hashlib.sha256(f"{env_id}:{os.path.realpath(self.dir)}".encode()).hexdigest()[:24]
        self.state_dir = state_root() / key

    @property
    def exists(self) -> bool:
        return (self.state_dir / "meta.json").exists()

    @property
    def socket(self) -> Path:
        return self.state_dir / "api.sock"

    @property
    def log_path(self) -> Path:
        return self.state_dir / "commands.jsonl"

    def init(self, env: Any, public: dict[str, Any], horizon: int | None = None) -> None:
        """Start a session from a fresh ``env`` (replacing any); ``public`` goes to DIR/session.json
        (no seed!); ``horizon``: the override ``env`` was built with (None: the preset's)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.state_dir, 0o700)
        meta = {"env": self.env_id, "seed": env.seed, "preset": env.preset, "preset_hash": env.preset_hash}
        meta["seed_secret_id"] = env.secret_id
        meta["horizon"] = horizon
        meta["dir"] = str(self.dir)
        with self._locked():
            self.stop_daemon()
            for old in ("state.pkl", "schemas.json"):  # sessions of earlier versions
                (self.state_dir / old).unlink(missing_ok=True)
            CommandLog.create(self.log_path, env)
            _write_atomic(self.state_dir / "meta.json", json.dumps(meta, indent=2) + "\n")
        (self.dir / "session.json").write_text(json.dumps({"env": self.env_id, **public}, indent=2) + "\n")

    def run(self, words: Sequence[str]) -> tuple[bool, Any]:
        """Run one command line; (ok, data or error message). The daemon parses it."""
        if not self.exists:
            public = self._public(words)
            if public is not None:
                return public
            return False, f"No {self.env_id} session in {self.dir}; start one with 'sim init --seed N'."
        reply = self._request("/command", {"words": list(words)})
        return (True, reply.get("data")) if reply.get("success") else (False, reply.get("error", "unknown error"))

    def _public(self, words: Sequence[str]) -> tuple[bool, Any] | None:
        """``help [COMMAND]``, ``COMMAND --help`` and ``rules`` before ``sim init``: the tool list is
        public, so they answer from the env class's registry for its default preset (None: the
        words need a session)."""
        words = list(words)
        if not (words == ["rules"] or words[:1] == ["help"] or "--help" in words):  # else: no heavy import
            return None
        from bizbench.core.cmdline import command_help
        from bizbench.core.envs import get_env
        from bizbench.core.errors import ToolError
        from bizbench.core.server import more_commands

        spec = get_env(self.env_id)
        config = spec.load_config()[0]
        registry = spec.env_class.registry_for(config)
        rules = host_rules(self.env_id, config, registry, str(self.dir))
        if words == ["rules"]:
            return (True, {"rules": rules}) if rules is not None else None
        commands = {words: what for words, what in _LoggedSession.session_command_descriptions.items()}
        more = more_commands(
            registry.parameter_schemas(),
            rules=rules is not None,
            session_commands=commands,
            client_commands=_LoggedSession.client_commands,
        )
        try:
            return True, command_help(registry, words, more)
        except ToolError as e:
            return False, str(e)

    def load(self) -> Any:
        """The session's env, rebuilt by replaying its record (SessionLogError if it does not check)."""
        return _replayed(self.state_dir, repair=False)[0]

    def stop_daemon(self, timeout_s: float = 10.0) -> None:
        """Stop this session's daemon and wait for it to exit; RuntimeError if it still runs afterwards."""
        pid_file = self.state_dir / "daemon.pid"
        pid = None
        if pid_file.exists():
            with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
                pid = int(pid_file.read_text())
                if _is_daemon_of(pid, self.state_dir):  # never signal a process that reused a stale pid
                    os.kill(pid, signal.SIGTERM)
                else:
                    pid = None
            pid_file.unlink(missing_ok=True)
        deadline = time.monotonic() + timeout_s
        while _answers(self.socket) or (pid is not None and _is_daemon_of(pid, self.state_dir)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"a session daemon still runs on {self.socket}")
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
            log_path = self.state_dir / "daemon.log"
            start = log_path.stat().st_size if log_path.exists() else 0
            with log_path.open("a") as log:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "bizbench.core.cmdsession", str(self.state_dir)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,
                    close_fds=True,
                )
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _answers(self.socket):
                if proc.poll() is not None:
                    raise RuntimeError(_daemon_error(log_path, start))
                if time.monotonic() > deadline:
                    raise RuntimeError(f"session daemon did not start; see {log_path}")
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


def _daemon_error(log_path: Path, start: int) -> str:
    """The error a daemon that exited during start-up wrote to its log."""
    with log_path.open("rb") as f:
        f.seek(start)
        text = f.read().decode("utf-8", errors="replace")
    marked = [line.removeprefix(_ERROR_MARK) for line in text.splitlines() if line.startswith(_ERROR_MARK)]
    if marked:
        return f"the session cannot be restored: {marked[-1]}"
    return f"session daemon exited during start-up; see {log_path}"


def _replayed(state_dir: Path, repair: bool, files: Path | None = None) -> tuple[Any, CommandLog]:
    meta_path = state_dir / "meta.json"
    try:
        meta = json.loads(meta_path.read_text())
        env_id, seed, preset, horizon = meta["env"], meta["seed"], meta["preset"], meta.get("horizon")
        if not isinstance(seed, int) or not isinstance(preset, str) or not isinstance(env_id, str):
            raise TypeError("env, seed and preset must be a string, an integer and a string")
        if horizon is not None and not isinstance(horizon, int):
            raise TypeError("horizon must be an integer or null")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SessionLogError(f"meta.json is unreadable ({e})") from None
    try:
        env = new_env(env_id, seed, preset, horizon, files)
    except (KeyError, ValueError, FileNotFoundError) as e:
        raise SessionLogError(f"the session's env cannot be built ({e})") from None
    if meta.get("preset_hash") != env.preset_hash:
        raise SessionLogError(f"the preset {preset!r} changed since the session started (its hash differs)")
    if meta.get("seed_secret_id") != env.secret_id:
        raise SessionLogError(
            "the session was started with a different $BIZBENCH_SEED_SECRET (or with/without one); set the same one"
        )
    log = CommandLog(state_dir / "commands.jsonl")
    try:
        log.replay(env, repair=repair)
    except OSError as e:
        raise SessionLogError(f"commands.jsonl is unreadable ({e})") from None
    return env, log


# ---------------------------------------------------------------------- daemon side
class _LoggedSession:
    """The daemon's session: the env in memory, every command appended to the record.

    Besides the tools it answers ``sim result`` (``session_commands``: the result.json fields of
    the session so far) and lists ``sim init``, which the client answers (``client_commands``)."""

    lock_free_tools: frozenset[str] = frozenset()
    logs_tool_tamper = True
    stops_at_episode_end = False
    client_commands = {"sim init --seed N [--preset P] [--horizon H]": "start (or replace) this session"}
    session_command_descriptions = {"sim result": "the session's result.json fields, as of now"}

    def __init__(self, state_dir: Path) -> None:
        # The env's agent-visible files (ceo's company.db) live with the host state, rebuilt by the replay.
        self.env, self.log = _replayed(state_dir, repair=True, files=state_dir / FILES_DIR)
        self.session_commands = {"sim result": (self.session_command_descriptions["sim result"], self.result)}
        self.registry = self.env.registry  # the server parses shell words against it
        self.lock = threading.Lock()  # calls (server call lock) and tamper reports (its tamper lock) both append
        self.checkpoint()  # lines replayed unverified (after a crash) get a digest now
        self.last_activity = time.monotonic()

    def call_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        with self.lock:
            self.last_activity = time.monotonic()
            delta = self.env.compact_args(name, args)  # EnvBase's hook, against the state the call acts on
            result: ToolResult = self.env.call_tool(name, args)
            self.log.append_call(name, args, result, self.env, delta)
        return result

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        with self.lock:
            self.env.log_tamper(kind, detail)
            self.log.append({"kind": "tamper", "t": round(time.time(), 3), "tamper": kind, "detail": detail}, self.env)

    def checkpoint(self) -> None:
        with self.lock:
            self.log.checkpoint(self.env)

    def status(self) -> dict[str, Any]:
        """The env's status (the ``status`` command); the daemon serves on after the episode's
        end, so read-only commands keep answering (``stops_at_episode_end``)."""
        with self.lock:
            return {**self.env.status(), "done": self.env.done}

    def result(self) -> dict[str, Any]:
        """``sim result``: the fields result.json would hold if the session ended now (the
        Session's common core, the env's fields, ``agent`` "session" and the provenance);
        ``wall_seconds`` is null: a host session's calls span many processes. Not recorded: it
        changes nothing. Only a host session answers it (its evaluation holds hidden facts)."""
        from bizbench.core.envs import get_env
        from bizbench.core.provenance import provenance
        from bizbench.core.session import Session

        result = Session(get_env(self.env.env_id), self.env, agent="session").result(agent="session")
        return {**result, "wall_seconds": None, "provenance": provenance()}

    def observation(self) -> dict[str, Any]:
        """What a player sees at the start of a turn (the ``observation`` command). Not recorded:
        it changes nothing a tool or the state digest depends on (yc's lists the events since the
        last observation, counted again from the start by a restarted daemon)."""
        with self.lock:
            return dict(self.env.observation())


def serve(state_dir: Path) -> None:
    """Daemon main: serve the session's socket until SIGTERM or ``IDLE_S`` without a command."""
    from bizbench.core.server import ToolServer

    try:
        session = _LoggedSession(state_dir)
    except SessionLogError as e:
        print(_ERROR_MARK + str(e), file=sys.stderr, flush=True)
        sys.exit(3)
    seat = _seat(session.env.env_id)
    server = ToolServer(
        session,
        socket_path=state_dir / "api.sock",
        status_keys=None if seat is None else seat.status_keys,  # `status` answers as GET /game-status does
        rules=_rules(session.env, state_dir),
    )
    server.start()
    (state_dir / "daemon.pid").write_text(str(os.getpid()))

    def watchdog() -> None:
        tick = min(CHECKPOINT_IDLE_S, IDLE_S)
        while True:
            time.sleep(tick)
            idle = time.monotonic() - session.last_activity
            if idle > IDLE_S:
                server.request_stop()
                return
            if idle > CHECKPOINT_IDLE_S and session.log.undigested:
                session.checkpoint()

    threading.Thread(target=watchdog, daemon=True).start()
    try:
        server.serve()
    finally:
        session.checkpoint()
        session.log.close()
        (state_dir / "daemon.pid").unlink(missing_ok=True)


# ---------------------------------------------------------------------- helpers
def _seat(env_id: str) -> Any:
    """The env's :class:`~bizbench.core.seat.Seat`, or None when it declares none."""
    from bizbench.core.seat import seat_of

    try:
        return seat_of(env_id)
    except (ValueError, KeyError, ImportError):
        return None


def _rules(env: Any, state_dir: Path) -> str | None:
    """The ``rules`` of a host session (:func:`host_rules` with the session's directory)."""
    try:
        where = json.loads((state_dir / "meta.json").read_text()).get("dir") or "DIR"
    except (ValueError, OSError):
        where = "DIR"
    return host_rules(env.env_id, env.config, env.registry, where)


def host_rules(env_id: str, config: Any, registry: Any, where: str) -> str | None:
    """The ``rules`` of a host session in ``where``: the seat's host instructions, else its
    instructions, with the session's own prefix (``bizbench ENV --session DIR``, DIR shell-quoted).
    Instructions that never name that prefix (they teach the seat's SDK, e.g. "only through its
    Python SDK") or an env without instructions get a host-session text instead. None when the
    env has no seat."""
    import shlex

    seat = _seat(env_id)
    if seat is None:
        return None
    prefix = f"bizbench {env_id} --session {shlex.quote(where)}"
    if seat.host_instructions is not None:
        return seat.host_instructions(config, prefix).rstrip() + "\n"
    if seat.instructions is not None:
        text = seat.rules_text(config, registry, prefix)
        if prefix in text:
            return text
    return f"""# {seat.title}: a host session

This session runs on the host and is played with shell commands, one JSON answer each:

    {prefix} <command words> [--flag value ...]

- `{prefix} help` lists every command; `help COMMAND` (or `COMMAND --help`) gives its
  description and flags. The commands are the env's tools (`bizbench tools {env_id}`).
- `observation` shows what a player sees at the start of a turn, `status` where the
  episode stands and `sim result` its result so far.
- A failed command is an error that names the problem and changes nothing.
- `sim init --seed N [--preset P] [--horizon H]` starts (or replaces) the session.
"""


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


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
