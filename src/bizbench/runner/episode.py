"""Run one baseline episode and write its run directory.

Layout (DESIGN.md "run directory"): ``config.json``, ``metrics.jsonl`` (one line per
simulated day, appended as the run goes), ``actions.jsonl`` (every tool call and turn),
``ledger.csv``, ``result.json`` and ``cash.png``.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bizbench.core.provenance import provenance


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def run_ceo_baseline(
    agent: str,
    seed: int,
    preset: str = "default",
    days: int | None = None,
    out: Path | None = None,
    options: dict[str, Any] | None = None,
    on_turn: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run a ceo baseline for the preset's horizon (or ``days``); returns result.json's content."""
    from bizbench.envs.ceo.baselines import make_policy
    from bizbench.envs.ceo.config import load_config
    from bizbench.envs.ceo.env import CeoEnv

    config, preset_hash = load_config(preset)
    if days is not None:
        config = config.model_copy(update={"horizon_days": days})
    env = CeoEnv(config, seed, preset)
    policy = make_policy(agent, seed=seed, **(options or {}))
    started = time.perf_counter()
    metrics_file = actions_file = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(
            json.dumps(
                {
                    "env": "ceo",
                    "preset": preset,
                    "preset_hash": preset_hash,
                    "seed": seed,
                    "agent": agent,
                    "agent_options": options or {},
                    "horizon_days": config.horizon_days,
                    "config": config.model_dump(mode="json"),
                },
                indent=2,
            )
        )
        metrics_file = (out / "metrics.jsonl").open("w")
        actions_file = (out / "actions.jsonl").open("w")
    try:
        while not env.done:
            n_actions = len(env.actions)
            policy.act(env)
            # The baseline steps the final partial week one day at a time (ref §7.1 step 7).
            remaining = config.horizon_days - env.day
            records = env.next_turn(1 if remaining < config.days_per_turn else None)
            if metrics_file is not None and actions_file is not None:
                for a in env.actions[n_actions:]:
                    actions_file.write(json.dumps(_jsonable(a)) + "\n")
                for r in records:
                    metrics_file.write(json.dumps(_jsonable(r)) + "\n")
                metrics_file.flush()
                actions_file.flush()
            if on_turn is not None:
                on_turn(env.day, config.horizon_days)
    finally:
        if metrics_file is not None and actions_file is not None:
            metrics_file.close()
            actions_file.close()
    elapsed = time.perf_counter() - started
    metrics = env.world.metrics
    result = {
        "env": "ceo",
        "preset": preset,
        "seed": seed,
        "agent": agent,
        "agent_options": options or {},
        "final_cash": round(env.world.state.ledger.cash, 2),
        "bankrupt": bool(env.world.state.bankrupt),
        "days_survived": int(env.day),
        "horizon_days": config.horizon_days,
        "peak_subscribers": max((m["subscribers"] for m in metrics), default=0),
        "min_cash": round(min((m["cash"] for m in metrics), default=config.start_cash), 2),
        "min_cash_day": int(min(metrics, key=lambda m: m["cash"])["day"]) if metrics else 0,
        "peak_subscribers_day": int(max(metrics, key=lambda m: m["subscribers"])["day"]) if metrics else 0,
        "final_subscribers": metrics[-1]["subscribers"] if metrics else 0,
        "wall_seconds": round(elapsed, 3),
        "preset_hash": preset_hash,
        "provenance": provenance(),
    }
    if out is not None:
        with (out / "ledger.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["day", "category", "amount", "group", "note"])
            for row in env.world.state.ledger.rows:
                w.writerow([row.day, row.category, f"{row.cents / 100:.2f}", row.group, row.note])
        (out / "result.json").write_text(json.dumps(result, indent=2))
        from bizbench.report.plots import plot_cash

        plot_cash(metrics, out / "cash.png", title=f"ceo / {preset} / {agent} / seed {seed}")
    return result
