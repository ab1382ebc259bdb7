"""``bizbench replay RUN``: re-execute a run's recorded actions on a fresh world and check its result.

A verifiable submission is a run directory: config.json (env, preset, seed, the full world
config) and actions.jsonl (every call the agent made, in order, with whether it was
accepted). Replay checks that the recorded world config is the named preset's as installed
(the horizon override aside), builds a fresh world from it and the seed, and sends it the
accepted calls in order, whoever made them (a baseline, a model through a harness, a user's
agent class or an outside agent on a served seat):

- a refused call changed nothing (docs/principles.md principle 8) and is not sent again;
- the env's replay rules (:class:`bizbench.core.env.ReplayRules`) say whether an accepted
  read-only call (``mutates=False``, e.g. ceo ``query``) is sent again (it must be where a read
  spends a budget, as in cfo) and which logged name is the env's turn end (ceo ``next_turn``);
- every re-sent call must be accepted again;
- every result.json field the env computes from its world must be present and equal.

What replay cannot verify is listed in the report (``unverified``): who made the calls (the
agent and model names), the meters of a model run (turns, tokens, cost, ``ended_by``) and
the counts of calls it does not re-send.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.env import ReplayRules
from bizbench.core.envs import get_env
from bizbench.core.jsonio import jsonable, read_jsonl
from bizbench.core.runlog import read_result
from bizbench.core.session import Session
from bizbench.runner.runconfig import RunDirError, check_secret, config_changes, open_recorded_env, read_config

__all__ = ["ReplayReport", "replay_run"]

#: core fields that are the meters of whoever drove the run, not the world's
_DRIVER_FIELDS = frozenset({"tokens", "cost_usd", "ended_by", "incomplete_reason"})


@dataclass
class ReplayReport:
    """What the replay found: ``ok`` when the world is the preset's, every re-sent call was
    accepted again and every outcome matched."""

    path: str
    env: str
    seed: int
    actions_sent: int = 0
    actions_skipped: int = 0
    config_changes: list[str] = field(default_factory=list)
    divergence: str | None = None
    mismatches: dict[str, dict[str, Any]] = field(default_factory=dict)
    compared: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.config_changes and self.divergence is None and not self.mismatches

    def summary(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "env": self.env,
            "seed": self.seed,
            "ok": self.ok,
            "actions_sent": self.actions_sent,
            "actions_skipped": self.actions_skipped,
            "fields_compared": len(self.compared),
            "config_changes": self.config_changes,
            "divergence": self.divergence,
            "mismatches": self.mismatches,
            "unverified": self.unverified,
        }


def replay_run(path: str | Path) -> ReplayReport:
    """Re-execute ``path``'s actions.jsonl on a fresh world and compare the outcome with result.json."""
    path = Path(path)
    config = read_config(path)
    recorded = read_result(path)
    if recorded is None:
        raise RunDirError(
            f"{path} has no readable result.json: only a finished run can be replayed (bizbench resume finishes it)"
        )
    spec = get_env(config["env"])
    rules = spec.replay
    report = ReplayReport(str(path), spec.id, config["seed"], config_changes=config_changes(config))
    env = open_recorded_env(config, check_secret(path, recorded.get("seed_secret_id")))
    session = Session(spec, env)
    try:
        _send_actions(session, rules, read_jsonl(path / "actions.jsonl"), report)
    finally:
        own = set(env.result())
        fresh = jsonable(session.finish())
    report.result = fresh
    skipped = rules.log_derived | _DRIVER_FIELDS | {"wall_seconds"}
    # a format-1 run predates the common result core: the core fields its env did not compute
    # itself are left unverified there, like the env's fields added later
    added = rules.added_later | (set(fresh) - own if config.get("run_format", 1) < 2 else set())
    for key, value in fresh.items():
        if key in skipped or (key not in recorded and key in added):
            continue
        report.compared.append(key)
        if key not in recorded:
            report.mismatches[key] = {"recorded": "(missing)", "replayed": value}
        elif not _equal(recorded[key], value):
            report.mismatches[key] = {"recorded": recorded[key], "replayed": value}
    report.unverified = sorted(k for k in recorded if k not in report.compared and k != "provenance")
    return report


def _send_actions(env: Any, rules: ReplayRules, rows: list[dict[str, Any]], report: ReplayReport) -> None:
    """Send the accepted calls in order; the first one refused now is the divergence."""
    for n, row in enumerate(rows, 1):
        tool, args = row.get("tool"), row.get("args")
        if row.get("ok") is not True or not isinstance(tool, str):
            report.actions_skipped += 1
            continue
        if not rules.resend_reads and tool in env.registry and not env.registry.spec(tool).mutates:
            report.actions_skipped += 1  # a read changes nothing; its record may keep only a digest
            continue
        if not isinstance(args, dict):
            report.divergence = f"action {n} ({tool}) was accepted but its logged arguments are not an object"
            return
        if tool == rules.advance_action:
            problem = _advance_problem(env, args)
            if problem:
                report.divergence = f"action {n} ({tool}): {problem}"
                return
            env.advance(**args)
            report.actions_sent += 1
            continue
        answer = env.call_tool(tool, args)
        report.actions_sent += 1
        if not answer.ok:
            report.divergence = f"action {n} ({tool}) was accepted in the run but refused now: {answer.error}"
            return


def _advance_problem(env: Any, args: dict[str, Any]) -> str:
    """Why logged turn-end arguments cannot be sent again ('' when they can): only the names
    ``advance`` takes, each a whole number >= 1 or null."""
    import inspect

    takes = set(inspect.signature(env.env.advance).parameters)
    unknown = sorted(set(args) - takes)
    if unknown:
        return f"unknown argument(s) {', '.join(unknown)}"
    for key, value in args.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            return f"{key} must be null or a positive integer, got {value!r}"
    return ""


def _equal(a: Any, b: Any) -> bool:
    """JSON values equal, floats to 1e-9 relative (result.json rounds money to cents already)."""
    if isinstance(a, float) or isinstance(b, float):
        both_numbers = all(isinstance(x, int | float) and not isinstance(x, bool) for x in (a, b))
        return both_numbers and math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
