"""The ceo seat of the terminal harness: ``bizbench serve ceo`` in its own process.

:class:`CeoSeat` is what :func:`bizbench.runner.agent_episode.run_agent_episode` gets back
from ``TerminalHarness.open_env``: ``preset``, ``preset_hash``, ``config`` (for
config.json), ``done``, ``result(**extra)`` and ``close()``. The simulator runs as
``python -m bizbench.cli serve ceo --seed N --workspace WS --run-dir RUN --preset P``
(DESIGN principle 3): the agent reaches it only through the SDK socket in its workspace,
and the harness talks to the same server from the host (``GET /game-status``, ``POST
/call`` for the dashboard and an auto-advance).

- **Workspace.** A fresh temporary directory (``bizbench-ws-*``), never inside the run
  directory and without the seed's digits in its path (the sandbox shows the path to the
  agent). It is removed at the end, after its git history is saved as
  ``workspace.bundle`` in the run directory (``keep_workspace=True`` keeps it).
- **Run directory.** The served session writes the run directory itself (actions.jsonl,
  metrics.jsonl, company.db, tamper.jsonl, server.log, ledger.csv, result.json, cash.png),
  so a killed run loses nothing. :meth:`start` gets the runner's directory: serve starts
  after the runner wrote config.json there, and the runner's config.json is put back once
  serve has written its own (adding serve's ``horizon_days``). Without a run directory
  (``out=None``) a temporary one is used and removed.
- **Result.** :meth:`result` stops the server (it stops by itself at the episode's end),
  reads the served result.json and merges the runner's fields. The harness's own calls
  (a ``get_dashboard`` per week, auto-advances) are taken out of ``tool_calls`` and counted
  in ``harness_calls``; weeks the harness advanced are left out of ``forecast_errors``.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

from bizbench.agents.harness.terminal.workspace import Workspace
from bizbench.core.unixsock import UnixHTTPConnection

__all__ = ["CeoSeat", "SeatError"]

START_TIMEOUT_S = 180.0
STATUS_TIMEOUT_S = 1900.0  # /game-status waits for a running next_week (the SDK allows 30 min)
CALL_TIMEOUT_S = 1900.0
FINISH_TIMEOUT_S = 900.0  # the server writes company.db, ledger.csv and the plot when it stops
HORIZONS = ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")
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


class CeoSeat:
    """A served ceo session with a workspace, driven by the terminal harness."""

    env_id = "ceo"

    def __init__(
        self,
        seed: int,
        preset: str = "default",
        days: int | None = None,
        workspace: Path | None = None,
        keep_workspace: bool = False,
    ) -> None:
        from bizbench.envs.ceo.config import load_config

        config, preset_hash = load_config(preset)
        if days is not None:
            config = config.model_copy(update={"horizon_days": int(days)})
        self.seed = seed
        self.preset = preset
        self.preset_hash = preset_hash
        self.config = config
        self.days = days
        if workspace is not None and _seed_in(str(Path(workspace).absolute()), seed):
            raise ValueError("the workspace path contains the seed, which the sandbox would show the agent")
        self._own_workspace = workspace is None
        self._workspace = Workspace(Path(workspace)) if workspace is not None else None
        self.keep_workspace = keep_workspace or workspace is not None
        self.run_dir: Path | None = None
        self._temp_run = False
        self.proc: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize | None = None  # type: ignore[type-arg]
        self.harness_calls = 0
        self.auto_advanced_days: list[int] = []
        self.last_status: dict[str, Any] = {"day": 0, "cash": config.start_cash, "done": False, "bankrupt": False}
        self.closed = False

    # ------------------------------------------------------------------ life cycle
    @property
    def workspace(self) -> Workspace:
        """The agent's workspace (a fresh directory is made on first use)."""
        if self._workspace is None:
            self._workspace = Workspace(fresh_workspace(self.seed))
        return self._workspace

    @property
    def started(self) -> bool:
        return self.proc is not None

    @property
    def socket(self) -> Path:
        from bizbench.envs.ceo.sdk import socket_path

        return socket_path(self.workspace.root)

    def start(self, run_dir: Path | None = None) -> None:
        """Start ``bizbench serve ceo`` writing ``run_dir`` (a temporary one when None)."""
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
        cmd = [sys.executable, "-m", "bizbench.cli", "serve", "ceo", "--seed", str(self.seed)]
        cmd += ["--workspace", str(ws), "--run-dir", str(run), "--preset", self.preset]
        if self.days is not None:
            cmd += ["--days", str(int(self.days))]
        with (run / "serve.log").open("ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=run, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        self._finalizer = weakref.finalize(self, _terminate, self.proc)
        self._wait_ready()
        if runner_config is not None:  # serve wrote its own config.json; the runner's is the run's
            served = _read_json(run / "config.json") or {}
            merged = {**runner_config, "horizon_days": served.get("horizon_days", self.config.horizon_days)}
            (run / "config.json").write_text(json.dumps(merged, indent=2) + "\n")

    def _wait_ready(self) -> None:
        assert self.proc is not None and self.run_dir is not None
        conn = Path(self.workspace.real_root) / ".novamind" / "connection.json"
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                log = (self.run_dir / "serve.log").read_text(errors="replace")[-2000:]
                raise SeatError(f"bizbench serve ceo exited with code {self.proc.returncode}: {log.strip()}")
            if conn.exists() and self.socket.exists():
                with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
                    if self._request("GET", "/health", timeout=5.0).get("success"):
                        return
            if time.monotonic() > deadline:
                _terminate(self.proc)
                raise SeatError(f"bizbench serve ceo did not start within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.02)

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
        if self._workspace is not None and self.run_dir is not None and not self._temp_run:
            self._workspace.bundle(self.run_dir / "workspace.bundle")
        if self._workspace is not None and self._own_workspace and not self.keep_workspace:
            self._workspace.remove()
        if self._temp_run and self.run_dir is not None:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    # ------------------------------------------------------------------ the server
    def _request(self, method: str, path: str, payload: Any = None, timeout: float = CALL_TIMEOUT_S) -> Any:
        body = json.dumps(payload).encode() if payload is not None else None
        conn = UnixHTTPConnection(self.socket, timeout)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, path, body=body, headers=headers)
            raw = conn.getresponse().read()
        finally:
            conn.close()
        return json.loads(raw)

    def status(self) -> dict[str, Any]:
        """Day, cash, subscribers, done, bankrupt (read from result.json once the server has ended)."""
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
        if not isinstance(data, dict):
            raise SeatError(f"unexpected /game-status reply: {str(reply)[:200]}")
        self.last_status = data
        return data

    def _status_after_exit(self) -> dict[str, Any]:
        """The server stopped listening: the episode ended (or it was stopped). Where did it end?

        While the server still writes its files (company.db, ledger.csv, the plot), the last
        line of metrics.jsonl says where the run stands; once it has exited, result.json does.
        """
        assert self.proc is not None
        if self.proc.poll() is None:
            last = self._last_metrics()
            if last is not None:
                cash = float(last.get("cash", 0.0))
                self.last_status = {
                    "day": int(last["day"]),
                    "cash": cash,
                    "subscribers": last.get("subscribers"),
                    "done": True,
                    "bankrupt": cash < 0,
                }
                return self.last_status
            try:
                self.proc.wait(FINISH_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise SeatError("the served simulator did not exit after it stopped listening") from None
        served = self._served_result()
        if served is None:
            raise SeatError(f"the served simulator exited with code {self.proc.returncode} and wrote no result.json")
        self.last_status = {
            "day": served.get("days_survived", self.last_status.get("day", 0)),
            "cash": served.get("final_cash"),
            "subscribers": served.get("final_subscribers"),
            "done": True,
            "bankrupt": bool(served.get("bankrupt")),
            "server_ended_by": served.get("ended_by"),
        }
        return self.last_status

    def _last_metrics(self) -> dict[str, Any] | None:
        """The last complete line of the served metrics.jsonl (the last simulated day)."""
        path = self.run_dir / "metrics.jsonl" if self.run_dir is not None else None
        if path is None or not path.exists():
            return None
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 65536))
            lines = f.read().splitlines()
        for line in reversed(lines):
            with contextlib.suppress(ValueError):
                row = json.loads(line)
                if isinstance(row, dict) and "day" in row:
                    return row
        return None

    @property
    def done(self) -> bool:
        return bool(self.status().get("done"))

    def call(self, tool: str, args: dict[str, Any] | None = None) -> tuple[bool, Any]:
        """One tool call made by the harness itself: (ok, data or error message)."""
        self.harness_calls += 1
        try:
            reply = self._request("POST", "/call", {"tool": tool, "args": args or {}})
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise SeatError(f"cannot reach the served simulator: {e}") from None
        if isinstance(reply, dict) and reply.get("success"):
            return True, reply.get("data")
        return False, (reply.get("error") if isinstance(reply, dict) else None) or "error"

    def dashboard(self) -> str:
        """The current dashboard text (what next_week returned)."""
        ok, data = self.call("get_dashboard")
        if not ok:
            return f"(dashboard unavailable: {data})"
        return str(data.get("dashboard", "")) if isinstance(data, dict) else str(data)

    def auto_advance(self, reason: str) -> tuple[bool, Any]:
        """Advance one week without the agent's forecast (a labelled placeholder: current cash, zero width).

        The API requires forecasts, so the harness sends cash-today as every forecast; these
        weeks are listed in ``auto_advanced_days`` and left out of ``forecast_errors``.
        """
        status = self.status()
        cash = float(status.get("cash") or 0.0)
        flat = {"point": cash, "lower": cash, "upper": cash}
        rationale = f"[auto_advance by the harness; no forecast from the agent] {reason}"
        ok, data = self.call("next_week", {"rationale": rationale, "predictions": dict.fromkeys(HORIZONS, flat)})
        if ok:
            self.auto_advanced_days.append(int(status.get("day", 0)))
        return ok, data

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
                "env": "ceo",
                "preset": self.preset,
                "seed": self.seed,
                "final_cash": st.get("cash"),
                "bankrupt": bool(st.get("bankrupt")),
                "days_survived": st.get("day"),
                "horizon_days": self.config.horizon_days,
                "ended_by": "server_error",
            }
        out: dict[str, Any] = {**served, **extra}
        out["preset_hash"] = self.preset_hash
        out["server_ended_by"] = served.get("ended_by")
        if isinstance(served.get("tool_calls"), int):
            out["tool_calls"] = served["tool_calls"] - self.harness_calls
        out["harness_calls"] = self.harness_calls
        out["auto_advances"] = len(self.auto_advanced_days)
        if self.auto_advanced_days:
            scored = self._forecast_errors_without_auto()
            if scored is not None:
                out["forecast_errors"] = scored
        self.close()
        return out

    def _forecast_errors_without_auto(self) -> dict[str, Any] | None:
        from bizbench.envs.ceo.forecasts import forecast_errors

        assert self.run_dir is not None
        db, metrics_path = self.run_dir / "company.db", self.run_dir / "metrics.jsonl"
        if not db.exists() or not metrics_path.exists():
            return None
        skip = set(self.auto_advanced_days)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            con.row_factory = sqlite3.Row
            rows = [dict(r) for r in con.execute("SELECT * FROM predictions")]
        except sqlite3.Error:
            return None
        finally:
            con.close()
        metrics = [json.loads(line) for line in metrics_path.read_text().splitlines() if line.strip()]
        return forecast_errors([r for r in rows if r["submit_day"] not in skip], metrics)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
