"""``bizbench replay RUN``: re-execute a run's recorded actions on a fresh world and check its result.

A verifiable submission is a run directory: config.json (env, preset, seed, the full config)
and actions.jsonl (every call the agent made, in order, with whether it was accepted). Replay
builds a fresh world from the recorded config and seed and sends it the accepted calls in
order, whoever made them (a baseline, a model through a harness, a user's agent class or an
outside agent on a served seat). A refused call changed nothing (DESIGN principle 8) and is
not sent again; a call that the agent could only read with (``mutates=False``, e.g. SQL) is
not sent again where the env lets reads leave the state untouched (ceo); in cfo every tool
call spends the month's budget, so every accepted call is sent. Each re-sent call must be
accepted again, and the world's outcome (every result.json field the env computes from its
state) must equal the recorded one.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.rng import secret_from_env, secret_id
from bizbench.runner.resume import ResumeError, read_result
from bizbench.runner.rundir import read_jsonl

__all__ = ["ReplayReport", "replay_run"]

#: result.json fields computed from the action log rather than the world: counts of calls the
#: replay does not re-send (ceo reads, refused calls) and of tamper attempts
_LOG_DERIVED = {"ceo": {"tool_calls", "tamper_events"}, "yc": {"tamper_events"}, "cfo": {"tamper_events"}}


@dataclass
class ReplayReport:
    """What the replay found: ``ok`` when every re-sent call was accepted and every outcome matched."""

    path: str
    env: str
    seed: int
    actions_sent: int = 0
    actions_skipped: int = 0
    divergence: str | None = None
    mismatches: dict[str, dict[str, Any]] = field(default_factory=dict)
    compared: list[str] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.divergence is None and not self.mismatches

    def summary(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "env": self.env,
            "seed": self.seed,
            "ok": self.ok,
            "actions_sent": self.actions_sent,
            "actions_skipped": self.actions_skipped,
            "fields_compared": len(self.compared),
            "divergence": self.divergence,
            "mismatches": self.mismatches,
        }


def replay_run(path: str | Path) -> ReplayReport:
    """Re-execute ``path``'s actions.jsonl on a fresh world and compare the outcome with result.json."""
    path = Path(path)
    recorded = read_result(path)
    if recorded is None:
        raise ResumeError(f"{path} has no result.json: only a finished run can be replayed (bizbench resume first)")
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ResumeError(f"{path}/config.json cannot be read ({e})") from None
    env_id, seed = config.get("env"), int(config.get("seed", 0))
    if env_id not in _LOG_DERIVED:
        raise ResumeError(f"{path}/config.json names no bizbench env (env={env_id!r})")
    secret = secret_from_env()
    if recorded.get("seed_secret_id") != secret_id(secret):
        raise ResumeError(
            f"{path} was run with held-out seeds (secret {recorded.get('seed_secret_id')}); "
            f"set the same $BIZBENCH_SEED_SECRET to replay it (now: {secret_id(secret)})"
        )
    env = _fresh_env(env_id, config, seed, secret)
    report = ReplayReport(str(path), env_id, seed)
    skip_reads = env_id == "ceo"
    for n, row in enumerate(read_jsonl(path / "actions.jsonl"), 1):
        tool, args = row.get("tool"), row.get("args")
        if not row.get("ok", True) or not isinstance(tool, str):
            report.actions_skipped += 1
            continue
        if env_id == "ceo" and tool == "next_turn":
            env.next_turn((args or {}).get("days"))
            report.actions_sent += 1
            continue
        if skip_reads and tool in env.registry and not env.registry.spec(tool).mutates:
            report.actions_skipped += 1
            continue
        answer = env.call_tool(tool, args if isinstance(args, dict) else {})
        report.actions_sent += 1
        if not answer.ok:
            report.divergence = f"action {n} ({tool}) was accepted in the run but refused now: {answer.error}"
            break
    fresh = env.result()
    if hasattr(env, "close"):
        env.close()
    report.result = fresh
    for key, value in fresh.items():
        if key in _LOG_DERIVED[env_id] or key not in recorded:
            continue
        report.compared.append(key)
        if not _equal(recorded[key], json.loads(json.dumps(value, default=_plain))):
            report.mismatches[key] = {"recorded": recorded[key], "replayed": value}
    return report


def _fresh_env(env_id: str, config: dict[str, Any], seed: int, secret: str | None) -> Any:
    """The run's env, built from the config it recorded (not from today's preset file)."""
    preset, digest, cfg = config.get("preset") or "", config.get("preset_hash") or "", config.get("config")
    if not isinstance(cfg, dict):
        raise ResumeError("config.json has no 'config' object to rebuild the world from")
    if env_id == "ceo":
        from bizbench.envs.ceo.config import CeoConfig
        from bizbench.envs.ceo.env import CeoEnv

        return CeoEnv(CeoConfig.model_validate(cfg), seed, preset, secret=secret)
    if env_id == "yc":
        from bizbench.envs.yc.config import YcConfig
        from bizbench.envs.yc.env import YcEnv

        return YcEnv(YcConfig.model_validate(cfg), seed, preset, digest, secret)
    from bizbench.envs.cfo.config import CfoConfig
    from bizbench.envs.cfo.env import CfoEnv

    return CfoEnv(CfoConfig.model_validate(cfg), seed, preset, digest, secret)


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else str(value)


def _equal(a: Any, b: Any) -> bool:
    """JSON values equal, floats to 1e-9 relative (result.json rounds to cents already)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
