"""The Session: any env, wrapped so that everything done to it is recorded (docs/principles.md principle 9).

Whoever drives an env — a baseline, a model harness, a served seat, a user's agent class —
drives it through a :class:`Session`. The session passes every call to the env and, as each
happens, appends and flushes what the env logged: the action (accepted or refused), tamper
entries, and the rows of the env's other logs (metrics, cfo statements). When the run ends,
:meth:`Session.finish` writes ``ledger.csv``, ``cash.png`` and, last, ``result.json`` with the
common result core (:class:`~bizbench.core.runlog.ResultCore`). The env never touches the run
directory; without one (``run_dir=None``) the session records nothing and only computes the
result.

Anything the session does not define (the env's ``config``, ``registry``, ``world`` for a
baseline's eyes, ``status_summary`` ...) is the env's: a session stands wherever an env does.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from bizbench.core.env import Env, EnvSpec
from bizbench.core.errors import ToolResult
from bizbench.core.limits import RunBudget
from bizbench.core.runlog import ActionRecord, ResultCore, RunDir, action_record, log_lines, tamper_record

__all__ = ["Session"]

logger = logging.getLogger(__name__)


class Session:
    """An env and its run directory (see the module docstring)."""

    #: for a :class:`~bizbench.core.server.ToolServer`: the env's ``call_tool`` logs the tamper of
    #: a refused call itself (the server must not log it twice)
    logs_tool_tamper = True

    def __init__(
        self,
        spec: EnvSpec,
        env: Env,
        run_dir: Path | None = None,
        agent: str = "?",
        **meta: Any,
    ) -> None:
        """``meta``: the run's other config.json fields (agent options, harness, model, limits ...)."""
        self.spec = spec
        self.env = env
        self.agent = agent
        self.started = time.perf_counter()
        self._lock = threading.RLock()
        self._written = {"actions": 0, "tamper": 0}
        self.budget = RunBudget()
        self.run: RunDir | None = None
        if run_dir is not None:
            self.run = RunDir(
                run_dir,
                {
                    "env": spec.id,
                    "preset": env.preset,
                    "preset_hash": env.preset_hash,
                    "seed": env.seed,
                    "agent": agent,
                    **meta,
                    "horizon": env.horizon,
                    "unit": spec.unit,
                    "config": env.config.model_dump(mode="json"),
                },
            )
        self.flush()  # what the env logged while it was built

    @property
    def path(self) -> Path | None:
        return self.run.path if self.run is not None else None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "env":  # copy, pickle: a session is not its env
            raise AttributeError(name)
        return getattr(self.env, name)

    # ------------------------------------------------------------------ acting
    def call(self, name: str, **args: Any) -> ToolResult:
        return self.call_tool(name, args)

    def call_tool(self, name: str, args: Any) -> ToolResult:
        """One tool call (never raises), recorded as it returns. Past a budget of the run
        (:class:`~bizbench.core.limits.RunBudget`) the call is refused before the env sees it."""
        refused = self._over_budget(name)
        if refused is not None:
            return refused
        try:
            result = self.env.call_tool(name, args)
        except Exception as e:  # noqa: BLE001 - the contract says call_tool never raises; if it does, the call is still recorded
            logger.exception("internal error in %s's call_tool(%r)", self.spec.id, name)
            result = ToolResult(ok=False, error=f"internal_error: {type(e).__name__}")
            self.env.actions.append({"tool": name, "args": args, "ok": False, "error": result.error})
        self.flush()
        return result

    def _over_budget(self, name: Any) -> ToolResult | None:
        """The refusal of a call past the run's log or per-turn call budget (None: the call may go
        on). The first refusal of each budget writes one tamper entry; the rest are only counted."""
        with self._lock:
            refusal = self.budget.refusal(self.env.turn, lambda: not self.env.registry.mutates(name))
            if refusal is None:
                return None
            kind, error = refusal
            self.budget.over_budget += 1
            self._report_spent(kind, error)
            return ToolResult(ok=False, error=error)

    def _report_spent(self, kind: str, error: str) -> None:
        """The one tamper entry of a budget spent (written past the budget: it says why)."""
        if self.budget.first_report(kind):
            self.env.log_tamper(kind, {"error": error})
            self.flush()

    def advance(self, **args: Any) -> None:
        """End the turn the env's default way, recorded."""
        self.env.advance(**args)
        self.flush()

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        """A suspicious attempt seen outside the env (a seat's server, a harness), recorded; past
        the run's log budget only counted (result.json ``tamper_over_budget``)."""
        with self._lock:
            if self.budget.log_bytes >= self.budget.max_log_bytes:
                self.budget.tamper_over_budget += 1
                self._report_spent("log_budget_spent", self.budget.full_error())
                return
            self.env.log_tamper(kind, detail)
            self.flush()

    def flush(self) -> None:
        """Append what the env logged since the last flush: tamper entries first, then the calls
        as actions.jsonl keeps them (:func:`~bizbench.core.runlog.action_record`), which also
        replace the env's in-memory rows (no call's large arguments stay in memory). Their bytes
        count against the run's log budget, with or without a run directory."""
        with self._lock:
            env = self.env
            start, end = self._written["actions"], len(env.actions)
            records = [action_record(a, self._resent(a)) for a in env.actions[start:end]]
            env.actions[start:end] = records
            tamper = [tamper_record(t) for t in env.tamper[self._written["tamper"] :]]
            self._written["actions"] = end
            self._written["tamper"] += len(tamper)
            lines = {"tamper": log_lines(tamper), "actions": log_lines(records)}
            self.budget.log_bytes += sum(len(line) for group in lines.values() for line in group)
            rows = env.take_rows()
            if self.run is None:
                return
            for record in records:
                ActionRecord.model_validate(record)  # the run log's model: a malformed row is a bug, not data
            for name, group in lines.items():
                self.run.append_lines(name, group)
            for name, log in rows.items():
                self.run.append(name, log)

    def _resent(self, row: dict[str, Any]) -> bool:
        """Whether ``bizbench replay`` sends this accepted call again (its arguments are then kept
        whole): every call, unless the env's replay rules skip read-only ones."""
        if self.spec.replay.resend_reads or row.get("ok") is not True:
            return True  # (a refused call is bounded whatever this says; no registry lookup for it)
        return not self.spec.replay.skips(self.env.registry, row.get("tool"))

    def status(self) -> dict[str, Any]:
        """The env's status with the contract's words (for servers and progress bars)."""
        env = self.env
        own = env.status() if hasattr(env, "status") else {}
        return {
            **own,
            "turn": env.turn,
            "elapsed": env.elapsed,
            "unit": self.spec.unit,
            "done": env.done,
            "bankrupt": env.bankrupt,
        }

    # ------------------------------------------------------------------ the end
    def result(self, ended_by: str | None = None, meter: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        """result.json's content: the common core, the env's fields, then ``extra`` (agent, harness ...)."""
        env = self.env
        horizon = env.horizon
        survived = min(env.elapsed, horizon)
        completed = bool(env.done and not env.bankrupt and env.elapsed >= horizon)
        if ended_by is None:
            ended_by = "bankrupt" if env.bankrupt else "completed" if completed else "incomplete"
        meter = meter or {}
        unit = self.spec.unit
        fields = env.result(**extra)
        core = {
            "final_cash": env.cash(),
            "bankrupt": env.bankrupt,
            "completed": completed,
            "incomplete_reason": None if completed or env.bankrupt else _why_early(ended_by, survived, horizon, unit),
            "survived": survived,
            "survived_fraction": round(survived / horizon, 6) if horizon else 0.0,
            "score": env.score(),
            "horizon": horizon,
            "unit": unit,
            "tool_calls": fields.get("tool_calls", 0),
            "tokens": meter.get("tokens"),
            "cost_usd": meter.get("cost_usd"),  # None: no model was metered (a baseline, an agent class)
            "ended_by": ended_by,
        }
        result = {**{k: v for k, v in core.items() if k not in fields}, **fields, **meter, "ended_by": ended_by}
        if self.budget.over_budget:
            result["calls_over_budget"] = self.budget.over_budget  # refused unsent and unlogged (core/limits.py)
        if self.budget.tamper_over_budget:
            result["tamper_over_budget"] = self.budget.tamper_over_budget
        ResultCore.model_validate({"env": self.spec.id, "preset": env.preset, "seed": env.seed, **result})
        return result

    def finish(
        self,
        ended_by: str | None = None,
        meter: dict[str, Any] | None = None,
        title: str = "",
        plot: bool = True,
        **extra: Any,
    ) -> dict[str, Any]:
        """End the run: its result (returned) and, with a run directory, ledger.csv, cash.png
        (unless not ``plot``: a replay's record is compared, never looked at) and result.json
        (written last: its presence means the run is finished)."""
        from bizbench.core.provenance import provenance

        with self._lock:
            self.flush()
            wall = round(time.perf_counter() - self.started, 3)
            result = self.result(ended_by, meter, **extra)
            result.setdefault("wall_seconds", wall)
            self.env.close()
            if self.run is None:
                return result
            result["provenance"] = provenance()
            from bizbench.core.plots import plot_money
            from bizbench.core.runlog import write_result

            self.run.write_ledger(self.env.ledger_rows(), getattr(self.env, "ledger_header", None))
            title = title or f"{self.spec.id} / {self.env.preset} / {self.agent} / seed {self.env.seed}"
            if plot:
                plot_money(self.env.money_points(), self.run.path / "cash.png", self.spec.unit, title)
            self.run.close()
            write_result(self.run.path, result)
            return result


def _why_early(ended_by: str, survived: int, horizon: int, unit: str) -> str:
    """result.json's ``incomplete_reason``: what ended the run, and where."""
    return f"{ended_by}: the run ended after {survived} of {horizon} {unit}s, before its horizon"
