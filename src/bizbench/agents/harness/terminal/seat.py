"""The served seat of the terminal harness: ``bizbench serve ENV`` in its own process, for any env with a seat.

:class:`ServedSeat` is what :func:`bizbench.runner.agent_episode.run_agent_episode` gets back
from ``TerminalHarness.open_env``: ``preset``, ``preset_hash``, ``config`` (for
config.json), ``done``, ``result(**extra)`` and ``close()``. The env is found by its spec
(:func:`bizbench.core.envs.get_env`) and its seat by :func:`bizbench.core.seat.seat_of`;
the simulator runs as ``bizbench serve ENV --seed N --workspace WS --run-dir RUN --preset P
[--horizon H]`` (:func:`bizbench.core.seat.launch_serve`, docs/principles.md principle 3). The agent
reaches it only through the seat in its workspace (the SDK, ``bin/bizbench``); the harness
talks to the same server from the host: ``GET /game-status`` (where the run stands, its
``turn``), ``GET /observation`` (the turn's observation; not a tool call) and ``POST
/advance`` (the env's default turn end), which only the host may use: it sends the control
token that ``bizbench serve`` wrote to the run directory (``control.token``), never to the
workspace.

- **Workspace.** A fresh temporary directory (``bizbench-ws-*``), never inside the run
  directory and without the seed's digits in its path (the sandbox shows the path to the
  agent). It is removed at the end, after its git history is saved as
  ``workspace.bundle`` in the run directory (``keep_workspace=True`` keeps it).
- **Run directory.** The served session writes the run directory itself (actions.jsonl,
  metrics.jsonl, tamper.jsonl, server.log, ledger.csv, result.json, cash.png and the env's
  own logs), so a killed run loses nothing. :meth:`start` gets the runner's directory: serve
  starts after the runner wrote config.json there, and the runner's config.json is put back
  once serve has written its own. Without a run directory (``out=None``) a temporary one is
  used and removed.
- **Result.** :meth:`result` stops the server (it stops by itself at the episode's end),
  reads the served result.json and merges the runner's fields. The tool calls the env
  counted for the harness's auto-advances are taken out of ``tool_calls``;
  ``harness_calls`` counts the harness's requests that changed the world (the
  auto-advances, also in ``auto_advances``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

from bizbench.agents.harness.terminal.workspace import Workspace
from bizbench.core.seat import BIN_DIR, Seat, launch_serve, seat_of
from bizbench.core.seat import SeatError as _LaunchError
from bizbench.core.server import CONTROL_HEADER, CONTROL_TOKEN
from bizbench.core.unixsock import UnixHTTPConnection

__all__ = ["SERVED_FILES", "SeatError", "ServedSeat", "render_observation"]

START_TIMEOUT_S = 180.0
STATUS_TIMEOUT_S = 1900.0  # /game-status waits for a running turn end (the SDK allows 30 min)
CALL_TIMEOUT_S = 1900.0
FINISH_TIMEOUT_S = 900.0  # the server writes its last files (ledger, plot, env logs) when it stops
SERVED_FILES = (
    "actions.jsonl",
    "metrics.jsonl",
    "company.db",
    "tamper.jsonl",
    "ledger.csv",
    "server.log",
    "serve.log",
    "workspace.bundle",
)


class SeatError(RuntimeError):
    """The served simulator cannot be started or reached."""


def _seed_in(path: str, seed: int) -> bool:
    return re.search(rf"(?<![0-9]){seed}(?![0-9])", path) is not None


def fresh_workspace(seed: int) -> Path:
    """A new empty directory whose path does not contain the seed."""
    for _ in range(100):
        path = tempfile.mkdtemp(prefix="bizbench-ws-")
        if not _seed_in(path, seed):
            return Path(path)
        Path(path).rmdir()
    raise SeatError("could not make a workspace path without the seed's digits")


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server left running (interpreter exit, garbage collection)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def render_observation(data: Any) -> str:
    """An observation for the model: multi-line strings (ceo's dashboard) as they are, the rest as JSON."""
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return json.dumps(data, indent=1, default=str)
    texts = {k: v for k, v in data.items() if isinstance(v, str) and "\n" in v}
    rest = {k: v for k, v in data.items() if k not in texts}
    parts = [json.dumps(rest, indent=1, default=str)] if rest else []
    parts += [text.rstrip() for text in texts.values()]
    return "\n\n".join(parts)


class ServedSeat:
    """A served session of any env with a seat, with a workspace, driven by the terminal harness."""

    def __init__(
        self,
        spec: Any,
        seed: int,
        preset: str | None = None,
        horizon: int | None = None,
        workspace: Path | None = None,
        keep_workspace: bool = False,
    ) -> None:
        self.spec = spec
        self.env_id: str = spec.id
        self.seat: Seat = seat_of(spec)
        preset = preset or spec.default_preset
        config, preset_hash = spec.load_config(preset)
        self.config = spec.with_horizon(config, horizon)
        self.horizon_value = spec.horizon_of(self.config)
        self.unit: str = spec.unit
        self.seed = seed
        self.preset = preset
        self.preset_hash = preset_hash
        self.horizon = horizon
        if workspace is not None and _seed_in(str(Path(workspace).absolute()), seed):
            raise ValueError("the workspace path contains the seed, which the sandbox would show the agent")
        self._own_workspace = workspace is None
        self._workspace = self._make_workspace(Path(workspace)) if workspace is not None else None
        self.keep_workspace = keep_workspace or workspace is not None
        self.run_dir: Path | None = None
        self._temp_run = False
        self.proc: subprocess.Popen[bytes] | None = None
        self._token: str | None = None
        self._finalizer: weakref.finalize | None = None  # type: ignore[type-arg]
        self.harness_calls = 0
        self.harness_tool_calls = 0  # of the env's tool_calls, those the auto-advances made
        self.auto_advances = 0
        self.last_status: dict[str, Any] = {"turn": 0, "elapsed": 0, "done": False, "bankrupt": False}
        self.closed = False

    def _make_workspace(self, root: Path) -> Workspace:
        return Workspace(root, managed=(self.seat.runtime_dir, BIN_DIR))

    # ------------------------------------------------------------------ life cycle
    @property
    def workspace(self) -> Workspace:
        """The agent's workspace (a fresh directory is made on first use)."""
        if self._workspace is None:
            self._workspace = self._make_workspace(fresh_workspace(self.seed))
        return self._workspace

    @property
    def started(self) -> bool:
        return self.proc is not None

    @property
    def socket(self) -> Path:
        return self.seat.socket_path(Path(self.workspace.real_root))

    def instructions(self) -> str:
        """The env's instructions for an agent in this seat (they name the seat's shell prefix)."""
        if self.seat.instructions is None:
            raise SeatError(f"the seat of {self.env_id} declares no instructions for a seated agent")
        return self.seat.instructions(self.config, self.seat.command_prefix())

    def sandbox_options(self) -> dict[str, Any]:
        return self.seat.sandbox_options()

    def start(self, run_dir: Path | None = None) -> None:
        """Start ``bizbench serve ENV`` writing ``run_dir`` (a temporary one when None)."""
        if self.proc is not None:
            raise SeatError("the seat is already started")
        if run_dir is None:
            run_dir, self._temp_run = Path(tempfile.mkdtemp(prefix="bizbench-served-")), True
        run = Path(run_dir).absolute()
        ws = Path(self.workspace.real_root)
        if run == ws or ws in run.parents or run in ws.parents:
            raise SeatError("the run directory and the workspace must not contain each other")
        run.mkdir(parents=True, exist_ok=True)
        self.run_dir = run
        runner_config = _read_json(run / "config.json")
        args = ["--preset", self.preset]
        if self.horizon is not None:
            args += ["--horizon", str(int(self.horizon))]
        try:
            with (run / "serve.log").open("ab") as log:
                self.proc = launch_serve(
                    self.env_id, self.seed, ws, run, *args, log=log, cwd=run, timeout_s=START_TIMEOUT_S
                )
        except _LaunchError as e:
            said = (run / "serve.log").read_text(errors="replace")[-2000:].strip()
            raise SeatError(f"{e}{': ' + said if said else ''}") from None
        self._finalizer = weakref.finalize(self, _terminate, self.proc)
        try:
            self._token = (run / CONTROL_TOKEN).read_text().strip()
        except OSError:
            self._token = None  # auto-advance then fails with a clear error
        if runner_config is not None:  # serve wrote its own config.json; the runner's is the run's
            (run / "config.json").write_text(json.dumps(runner_config, indent=2) + "\n")

    def stop(self, timeout_s: float = FINISH_TIMEOUT_S) -> None:
        """Stop the server (SIGTERM unless the episode already ended) and wait for its files."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        if not self.last_status.get("done"):
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        """Stop the server, save the workspace's history to the run directory, clean up."""
        if self.closed:
            return
        self.closed = True
        self.stop()
        if self._finalizer is not None:
            self._finalizer.detach()
        if self.run_dir is not None:
            (self.run_dir / CONTROL_TOKEN).unlink(missing_ok=True)  # useless once the server is gone
        if self._workspace is not None and self.run_dir is not None and not self._temp_run:
            self._workspace.bundle(self.run_dir / "workspace.bundle")
        if self._workspace is not None and self._own_workspace and not self.keep_workspace:
            self._workspace.remove()
        if self._temp_run and self.run_dir is not None:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    # ------------------------------------------------------------------ the server
    def _request(
        self,
        method: str,
        path: str,
        payload: Any = None,
        timeout: float = CALL_TIMEOUT_S,
        headers: dict[str, str] | None = None,
    ) -> Any:
        body = json.dumps(payload).encode() if payload is not None else None
        conn = UnixHTTPConnection(self.socket, timeout)
        try:
            sent = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers={**sent, **(headers or {})})
            raw = conn.getresponse().read()
        finally:
            conn.close()
        return json.loads(raw)

    def status(self) -> dict[str, Any]:
        """The served status (at least turn, elapsed, done, bankrupt); read from result.json
        once the server has ended."""
        deadline = time.monotonic() + 10.0
        while True:
            try:
                reply = self._request("GET", "/game-status", timeout=STATUS_TIMEOUT_S)
                break
            except (OSError, http.client.HTTPException, ValueError):
                if self.proc is None:
                    raise SeatError("the seat has not been started") from None
                if self.proc.poll() is None and self.socket.exists():  # a hiccup: try again for a while
                    if time.monotonic() > deadline:
                        raise SeatError("the served simulator does not answer") from None
                    time.sleep(0.05)
                    continue
                return self._status_after_exit()
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, dict) or "turn" not in data:
            raise SeatError(f"unexpected /game-status reply (it must hold the turn): {str(reply)[:200]}")
        self.last_status = data
        return data

    def _status_after_exit(self) -> dict[str, Any]:
        """The server stopped listening: the episode ended (or it was stopped). Where did it end?

        The server exits once it has written its files; result.json then says where the run
        stands (the turn moved on: the last turn was ended)."""
        assert self.proc is not None
        try:
            self.proc.wait(FINISH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise SeatError("the served simulator did not exit after it stopped listening") from None
        served = self._served_result()
        if served is None:
            raise SeatError(f"the served simulator exited with code {self.proc.returncode} and wrote no result.json")
        last = self.last_status
        self.last_status = {
            "turn": int(last.get("turn", 0)) + 1,
            "elapsed": served.get("survived", last.get("elapsed", 0)),
            "done": True,
            "bankrupt": bool(served.get("bankrupt")),
            "server_ended_by": served.get("ended_by"),
        }
        return self.last_status

    @property
    def done(self) -> bool:
        return bool(self.status().get("done"))

    def observation(self) -> Any:
        """The turn's observation (``GET /observation``: free, not a tool call)."""
        try:
            reply = self._request("GET", "/observation")
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise SeatError(f"cannot reach the served simulator: {e}") from None
        if isinstance(reply, dict) and reply.get("success"):
            return reply.get("data")
        return {"error": (reply.get("error") if isinstance(reply, dict) else None) or "observation unavailable"}

    def auto_advance(self) -> tuple[bool, Any]:
        """End the turn the env's default way (``POST /advance`` with the control token)."""
        if self._token is None:
            return False, f"no {CONTROL_TOKEN} in the run directory"
        self.harness_calls += 1
        try:
            reply = self._request("POST", "/advance", {}, headers={CONTROL_HEADER: self._token})
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise SeatError(f"cannot reach the served simulator: {e}") from None
        if isinstance(reply, dict) and reply.get("success"):
            data = reply.get("data") or {}
            self.auto_advances += 1
            self.harness_tool_calls += int(data.get("tool_calls") or 0)
            return True, data
        return False, (reply.get("error") if isinstance(reply, dict) else None) or "error"

    # ------------------------------------------------------------------ result
    def _served_result(self) -> dict[str, Any] | None:
        return _read_json(self.run_dir / "result.json") if self.run_dir is not None else None

    def result(self, **extra: Any) -> dict[str, Any]:
        """result.json: the served session's result with the runner's fields (stops the server)."""
        self.stop()
        served = self._served_result()
        if served is None:  # the server died before writing it: what the harness saw last
            st = self.last_status
            served = {
                "env": self.env_id,
                "preset": self.preset,
                "seed": self.seed,
                "bankrupt": bool(st.get("bankrupt")),
                "survived": st.get("elapsed"),
                "horizon": self.horizon_value,
                "unit": self.unit,
                "ended_by": "server_error",
            }
        out: dict[str, Any] = {**served, **extra}
        out["preset_hash"] = self.preset_hash
        out["server_ended_by"] = served.get("ended_by")
        if isinstance(served.get("tool_calls"), int):
            out["tool_calls"] = served["tool_calls"] - self.harness_tool_calls
        out["harness_calls"] = self.harness_calls
        out["auto_advances"] = self.auto_advances
        self.close()
        return out


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
