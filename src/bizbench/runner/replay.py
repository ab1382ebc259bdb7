"""``bizbench replay RUN``: re-execute a run's recorded actions on a fresh world and check its result.

A verifiable submission is a run directory: config.json (env, preset, seed, the full world
config) and actions.jsonl (every call the agent made, in order, with whether it was
accepted). Replay checks that the recorded world config is the named preset's as installed
(the horizon override aside), builds a fresh world from it and the seed, and sends it the
accepted calls in order, whoever made them (a baseline, a model through a harness, a user's
agent class or an outside agent on a served seat):

- a refused call changed nothing (DESIGN principle 8) and is not sent again;
- in ceo a read-only tool (``mutates=False``, e.g. ``query``) is not sent again; in yc and
  cfo every accepted call is sent (in cfo each tool call spends the month's budget);
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

from bizbench.runner.runconfig import RunDirError, check_secret, config_changes, open_recorded_env, read_config
from bizbench.runner.rundir import jsonable, read_jsonl, read_result

__all__ = ["ReplayReport", "replay_run"]

#: post-run analyses added to result.json after run format 1 began: a run made before one
#: was added lacks it, which leaves it unverified rather than failing
_ADDED_LATER = {"yc": {"evaluation"}}

#: result.json fields counted from the action log, not computed from the world: replay does
#: not re-send every logged call (refused calls; ceo reads), so it cannot recount them
_LOG_DERIVED = {"ceo": {"tool_calls", "tamper_events"}, "yc": {"tool_calls", "tamper_events"}, "cfo": {"tamper_events"}}


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
    env_id = config["env"]
    report = ReplayReport(str(path), env_id, config["seed"], config_changes=config_changes(config))
    env = open_recorded_env(config, check_secret(path, recorded.get("seed_secret_id")))
    try:
        _send_actions(env, env_id, read_jsonl(path / "actions.jsonl"), report)
        fresh = jsonable(env.result())
    finally:
        if hasattr(env, "close"):
            env.close()
    report.result = fresh
    for key, value in fresh.items():
        if key in _LOG_DERIVED[env_id] or (key not in recorded and key in _ADDED_LATER.get(env_id, ())):
            continue
        report.compared.append(key)
        if key not in recorded:
            report.mismatches[key] = {"recorded": "(missing)", "replayed": value}
        elif not _equal(recorded[key], value):
            report.mismatches[key] = {"recorded": recorded[key], "replayed": value}
    report.unverified = sorted(k for k in recorded if k not in report.compared and k != "provenance")
    return report


def _send_actions(env: Any, env_id: str, rows: list[dict[str, Any]], report: ReplayReport) -> None:
    """Send the accepted calls in order; the first one refused now is the divergence."""
    for n, row in enumerate(rows, 1):
        tool, args = row.get("tool"), row.get("args")
        if row.get("ok") is not True or not isinstance(tool, str):
            report.actions_skipped += 1
            continue
        if not isinstance(args, dict):
            report.divergence = f"action {n} ({tool}) was accepted but its logged arguments are not an object"
            return
        if env_id == "ceo" and tool == "next_turn":
            days = args.get("days")
            if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
                report.divergence = f"action {n} (next_turn): days must be null or a positive integer, got {days!r}"
                return
            env.next_turn(days)
            report.actions_sent += 1
            continue
        if env_id == "ceo" and tool in env.registry and not env.registry.spec(tool).mutates:
            report.actions_skipped += 1
            continue
        answer = env.call_tool(tool, args)
        report.actions_sent += 1
        if not answer.ok:
            report.divergence = f"action {n} ({tool}) was accepted in the run but refused now: {answer.error}"
            return


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
