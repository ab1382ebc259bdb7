"""The yc env: one seeded YC-Bench world driven through its commands.

Agents, baselines and harnesses act only through :meth:`YcEnv.call` / :meth:`YcEnv.call_tool`
(the tool registry, paper Appendix A) and read the per-turn :meth:`YcEnv.status_summary`
(paper section 3 "Observations"); they never touch the world's hidden state (docs/principles.md,
principle 3). It implements the Env contract of :mod:`bizbench.core.env` (time unit: the
month of the paper's one-year horizon). The env does no I/O: it keeps its action log, tamper
log and per-turn metrics rows in memory for the session to persist; shell sessions
(``bizbench.core.cmdsession``) rebuild it between calls by replaying their command log on a
fresh env of the same seed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bizbench.core.env import EnvBase
from bizbench.core.ledger import LedgerRow
from bizbench.core.registry import ConfiguredRegistry, ToolResult
from bizbench.envs.yc import views
from bizbench.envs.yc.config import Clock, YcConfig, load_config
from bizbench.envs.yc.evaluation import evaluation
from bizbench.envs.yc.tools import TOOLS, registry
from bizbench.envs.yc.world.tasks import ACTIVE, CANCELLED, FAILED, SUCCEEDED
from bizbench.envs.yc.world.world import YcWorld

__all__ = ["YcEnv"]


_PROBE = 64  # characters of the new text looked up in the old one (notes trimmed at the front)
_CANDIDATES = 8  # places of the probe tried


def edit_ops(old: str, new: str) -> list[Any]:
    """``new`` as pieces of ``old`` and new text: ``[i, j]`` copies ``old[i:j]``, a string is inserted.

    One kept run at the front (the pad may have been trimmed there), what changed, one kept run at
    the end: an append or an edit in place costs its own length, not the pad's. Exact by
    construction (checked: otherwise the whole text)."""
    start, a = 0, _common_prefix(old, new)
    probe = new[:_PROBE]
    at = old.find(probe, 1) if len(probe) == _PROBE and a < _PROBE else -1
    for _ in range(_CANDIDATES):  # where the new text starts in the old one (the longest run wins)
        if at < 0:
            break
        run = _common_prefix(old[at:], new)
        if run > a:
            start, a = at, run
        at = old.find(probe, at + 1)
    rest_old, rest_new = old[start + a :], new[a:]
    b = _common_prefix(rest_old[::-1], rest_new[::-1])
    ops: list[Any] = [[start, start + a]] if a else []
    middle = rest_new[: len(rest_new) - b]
    if middle:
        ops.append(middle)
    if b:
        ops.append([len(old) - b, len(old)])
    return ops if apply_ops(old, ops) == new else [new]


def apply_ops(old: str, ops: Any) -> str:
    """The text :func:`edit_ops` describes (ValueError for a malformed list)."""
    if not isinstance(ops, list):
        raise ValueError("an edit is a list")
    parts = []
    for op in ops:
        if isinstance(op, str):
            parts.append(op)
        elif (
            isinstance(op, list)
            and len(op) == 2
            and all(type(x) is int for x in op)
            and 0 <= op[0] <= op[1] <= len(old)
        ):
            parts.append(old[op[0] : op[1]])
        else:
            raise ValueError(f"bad edit piece {str(op)[:60]}")
    return "".join(parts)


def _common_prefix(x: str, y: str) -> int:
    return len(os.path.commonprefix([x, y]))


def _check_horizon(config: YcConfig) -> None:
    """A horizon set after validation (``--horizon``: ``EnvSpec.with_horizon`` copies the config)
    within the clock's bounds; ValueError naming ``--horizon`` otherwise (docs/principles.md principle 8)."""
    try:
        Clock.model_validate(config.clock.model_dump())
    except ValidationError:
        bound = next(m.le for m in Clock.model_fields["horizon_months"].metadata if hasattr(m, "le"))
        got = config.clock.horizon_months
        raise ValueError(f"--horizon must be a whole number of months from 1 to {bound}, got {got}") from None


class YcEnv(EnvBase):
    """A YC-Bench company for one seed: commands in, JSON out."""

    registry = ConfiguredRegistry(TOOLS, registry)  # the instance's: its config's limits and fees
    env_id = "yc"
    world_class: type[YcWorld] = YcWorld  # an arena seat's is its rival company (arena.py)

    def __init__(
        self,
        config: YcConfig,
        seed: int = 42,
        preset: str = "default",
        preset_hash: str = "",
        secret: str | None = None,
        files: Path | None = None,  # noqa: ARG002 - the contract's; yc keeps no agent-visible files
    ) -> None:
        _check_horizon(config)
        self.world = self.world_class(config, self._begin(config, seed, preset, preset_hash, secret))
        self._events_seen = 0  # world.log entries already reported by status_summary
        self._metrics: list[dict[str, Any]] = []  # one row per turn (successful sim resume), not yet taken
        self._metrics_events = 0  # world.log entries already in a metrics row
        self.turns = 0  # successful sim resumes

    @classmethod
    def from_preset(
        cls, preset: str = "default", seed: int = 42, horizon_months: int | None = None, secret: str | None = None
    ) -> YcEnv:
        """A fresh env from a named preset (``default`` is the paper's Table 2)."""
        config, digest = load_config(preset)
        if horizon_months is not None:
            clock = config.clock.model_copy(update={"horizon_months": horizon_months})
            config = config.model_copy(update={"clock": clock})
        return cls(config, seed, preset, digest, secret)

    # ------------------------------------------------------------------ agent interface
    def call_tool(self, name: str, args: Any) -> ToolResult:
        """Call a tool with an argument mapping (the server's and the shell's entry point)."""
        w = self.world
        if w.done and name in self.registry and self.registry.spec(name).mutates:
            result = ToolResult(ok=False, error="The simulation has ended; no further actions are accepted.")
        else:
            result = self.registry.call(self, name, args)
        self.actions.append(
            {"time": w.cal.iso(w.now), "tool": name, "args": args, "ok": result.ok, "error": result.error}
        )
        if result.ok and name == "sim_resume":
            self.turns += 1
            events = w.log[self._metrics_events :]
            self._metrics_events = len(w.log)
            status = self.status_summary(consume=False)
            self._metrics.append({"turn": self.turns, **status, "events_since_last_turn": events})
        if result.tamper:
            self.log_tamper(result.tamper, {"tool": name, "error": result.error})
        return result

    def compact_args(self, name: str, args: Any) -> Any:
        """A host session's record of ``scratchpad write`` (:mod:`bizbench.core.cmdsession`): the edit
        from the pad now to the new content (:func:`edit_ops`), not the whole pad on every write;
        None (keep the arguments) for any other call."""
        if name != "scratchpad_write" or not isinstance(args, dict) or set(args) != {"content"}:
            return None
        content = args["content"]
        if not isinstance(content, str):
            return None
        return edit_ops(self.world.scratchpad, content)

    def expand_args(self, name: str, delta: Any) -> dict[str, Any]:
        """The arguments :meth:`compact_args` shortened, from the pad now (replay runs in order)."""
        if name != "scratchpad_write":
            raise ValueError(f"no compact form for {name!r}")
        return {"content": apply_ops(self.world.scratchpad, delta)}

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        """Record a suspicious attempt (unknown tool, non-finite number ...); the run goes on."""
        self.tamper.append({"time": self.world.cal.iso(self.world.now), "kind": kind, **detail})

    # ------------------------------------------------------------------ observation
    def status_summary(self, consume: bool = True) -> dict[str, Any]:
        """The per-turn status (section 3 "Observations"): time, funds, monthly payroll, runway, active
        tasks and the events since the previous summary (``consume=False`` leaves them unreported)."""
        w = self.world
        events = w.log[self._events_seen :]
        if consume:
            self._events_seen = len(w.log)
        status = views.company_status(w)
        return {
            "time": status["time"],
            "weekday": status["weekday"],
            "funds_cents": status["funds_cents"],
            "monthly_payroll_cents": status["monthly_payroll_cents"],
            "runway_months": status["runway_months"],
            "next_payroll": status["next_payroll"],
            "active_task_count": status["active_tasks"],
            "open_tasks": views.active_summary(w),
            "events_since_last_turn": events,
            "done": w.done,
            "bankrupt": w.bankrupt,
        }

    def observation(self) -> dict[str, Any]:
        """What the agent sees at the start of a turn: the status summary (consumes its events)."""
        return self.status_summary()

    def advance(self) -> None:
        """End the turn: ``sim resume`` (the paper's only way to move time)."""
        self.call_tool("sim_resume", {})

    @property
    def done(self) -> bool:
        return self.world.done

    @property
    def bankrupt(self) -> bool:
        return self.world.bankrupt

    @property
    def horizon(self) -> int:
        """The horizon in months (Table 2: one year)."""
        return int(self.config.clock.horizon_months)

    @property
    def elapsed(self) -> int:
        """Whole calendar months from the start to the simulated time now."""
        w = self.world
        return max(m for m in range(self.horizon + 1) if w.cal.add_months(m) <= max(w.now, w.cal.add_months(0)))

    def cash(self) -> float:
        return round(self.world.funds_cents / 100, 2)

    def score(self) -> float:
        """The paper's score: funds at the end (section 3; bankrupt runs keep their negative funds)."""
        return self.cash()

    def take_rows(self) -> dict[str, list[dict[str, Any]]]:
        """The metrics rows (one per turn) produced since the last call."""
        rows, self._metrics = self._metrics, []
        return {"metrics": rows}

    def ledger_rows(self) -> list[LedgerRow]:
        return list(self.world.ledger.rows)

    def money_points(self) -> list[tuple[Any, float]]:
        """Funds after every ledger posting, in months since the start (exact, whoever drove the run)."""
        w = self.world
        month = w.cal.add_months(1) - w.cal.add_months(0)
        balance = w.ledger.start_cents
        points: list[tuple[Any, float]] = [(0.0, balance / 100)]
        for row, minute in zip(w.ledger.rows, w.ledger_times, strict=True):
            balance += row.cents
            points.append(((minute - w.start) / month, balance / 100))
        points.append(((w.now - w.start) / month, w.funds_cents / 100))
        return points

    def close(self) -> None:
        return None

    @property
    def scratchpad(self) -> str:
        """The agent's notes (the session injects them into the system prompt every turn)."""
        return self.world.scratchpad

    @property
    def time(self) -> str:
        return self.world.cal.iso(self.world.now)

    def status(self) -> dict[str, Any]:
        """A compact status line (for progress bars and servers)."""
        w = self.world
        return {"time": self.time, "funds_cents": w.funds_cents, "done": w.done, "bankrupt": w.bankrupt}

    def result(self, **extra: Any) -> dict[str, Any]:
        """The run's result.json content: the score is the final funds (section 3; Table 2)."""
        w = self.world
        counts = {s: 0 for s in (SUCCEEDED, FAILED, CANCELLED)}
        for t in w.tasks.values():
            if t.status in counts:
                counts[t.status] += 1
        return {
            "env": "yc",
            "preset": self.preset,
            "preset_hash": self.preset_hash,
            "seed": self.seed,
            "seed_secret_id": self.secret_id,
            **extra,
            "final_funds_cents": w.funds_cents,
            "final_funds": round(w.funds_cents / 100, 2),
            "bankrupt": w.bankrupt,
            "done": w.done,
            "time": self.time,
            "horizon_end": w.cal.iso(w.horizon),
            "min_funds_cents": w.min_funds_cents,
            "tasks_accepted": len(w.tasks),
            "tasks_succeeded": counts[SUCCEEDED],
            "tasks_failed": counts[FAILED],
            "tasks_cancelled": counts[CANCELLED],
            "tasks_open": sum(t.status == ACTIVE or t.status == "accepted" for t in w.tasks.values()),
            "prestige": {d: round(p, 4) for d, p in w.prestige.items()},
            "monthly_payroll_cents": w.payroll_cents,
            "payrolls_paid": w.payrolls_paid,
            "resumes": w.resumes,
            "tool_calls": len(self.actions),
            "tamper_events": len(self.tamper),
            # hidden facts for reports, written after the run (held-out worlds keep their clients secret)
            "evaluation": evaluation(w, reveal_clients=self.secret_id is None),
        }

    def state_digest(self) -> str:
        """SHA-256 of the whole state (hidden parts and random streams included).

        Equal digests mean equal worlds: same seed + same commands => same digest, in any process."""
        blob = json.dumps(self.world.snapshot(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def system_prompt(self, harness: str = "cli-chat", command_prefix: str = "yc-bench") -> str:
        """The agent's instructions (Appendix C, corrected to the mechanics this world implements).
        Every harness gets the commands as command lines; a harness that calls tools by name
        says how a command maps to a tool (``task accept --task-id T`` is ``task_accept``)."""
        from bizbench.envs.yc.prompt import system_prompt

        return self.with_note(system_prompt(self.config, command_prefix))

    @property
    def turn(self) -> int:
        return self.turns

    def hidden_values(self) -> list[str | int | float]:
        """What must never reach the agent (check_env's hidden check, docs/envs.md): the seed, the
        clients' reward multipliers (the agent sees a tier band) and which are adversarial, the
        tasks' scope creep and true work, and the words that name them (docs/principles.md, principle 3)."""
        w = self.world
        values: list[str | int | float] = [self.seed, "adversar", "scope_creep", "true_work"]
        values += [c.multiplier for c in w.clients[:12]]
        values += [t.true_work for t in list(w.tasks.values())[:12] if t.true_work]
        return values

    def memory(self) -> str:
        return self.world.scratchpad
