"""Run one baseline episode and write its run directory (layout: :mod:`bizbench.runner.rundir`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bizbench.core.rng import secret_from_env
from bizbench.runner.rundir import RunDir, require_new


def run_ceo_baseline(
    agent: str,
    seed: int,
    preset: str = "default",
    days: int | None = None,
    out: Path | None = None,
    options: dict[str, Any] | None = None,
    on_turn: Callable[[int, int], None] | None = None,
    database: bool = True,
) -> dict[str, Any]:
    """Run a ceo baseline for the preset's horizon (or ``days``); returns result.json's content.

    With ``out`` the run directory is written as the run goes, including the agent-visible
    database unless ``database`` is False.
    """
    from bizbench.envs.ceo.baselines import make_policy
    from bizbench.envs.ceo.config import load_config
    from bizbench.envs.ceo.env import CeoEnv

    require_new(out)
    config, preset_hash = load_config(preset)
    if days is not None:
        config = config.model_copy(update={"horizon_days": days})
    run = None
    if out is not None:
        run = RunDir(
            out,
            {
                "env": "ceo",
                "preset": preset,
                "preset_hash": preset_hash,
                "seed": seed,
                "agent": agent,
                "agent_options": options or {},
                "database": database,
                "horizon_days": config.horizon_days,
                "config": config.model_dump(mode="json"),
            },
        )
    env = CeoEnv(config, seed, preset, run=run, database=database, secret=secret_from_env())
    policy = make_policy(agent, seed=seed, **(options or {}))
    started = time.perf_counter()
    while not env.done:
        policy.act(env)
        # The baseline steps the final partial week one day at a time (ref §7.1 step 7).
        remaining = config.horizon_days - env.day
        env.next_turn(1 if remaining < config.days_per_turn else None)
        if on_turn is not None:
            on_turn(env.day, config.horizon_days)
    extra: dict[str, Any] = {"agent": agent, "agent_options": options or {}, "preset_hash": preset_hash}
    extra["wall_seconds"] = round(time.perf_counter() - started, 3)
    if run is None:
        env.close()
        return env.result(**extra)
    return env.finish(title=f"ceo / {preset} / {agent} / seed {seed}", **extra)


def run_yc_baseline(
    agent: str,
    seed: int,
    preset: str = "default",
    out: Path | None = None,
    on_turn: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run a yc baseline for the year; returns result.json's content (same run layout as ceo)."""
    from bizbench.envs.yc.baselines import make_policy
    from bizbench.envs.yc.env import YcEnv

    require_new(out)
    env = YcEnv.from_preset(preset, seed, secret=secret_from_env())
    policy = make_policy(agent, seed=seed)
    run = None
    if out is not None:
        config = {"env": "yc", "preset": preset, "preset_hash": env.preset_hash, "seed": seed, "agent": agent}
        run = RunDir(out, {**config, "config": env.config.model_dump(mode="json")})
    started = time.perf_counter()
    turns = 0
    while not env.done:
        n_actions = len(env.actions)
        policy.act(env)
        turns += 1
        summary = env.status_summary()
        if run is not None:
            run.append("actions", env.actions[n_actions:])
            run.append("metrics", [{"turn": turns, **summary}])
        if on_turn is not None:
            on_turn(turns, 0)
    result = env.result(agent=agent, turns=turns, wall_seconds=round(time.perf_counter() - started, 3))
    if run is not None:
        from bizbench.core.provenance import provenance

        result["provenance"] = provenance()
        finish_yc_run(env, run, result, f"yc / {preset} / {agent} / seed {seed}")
    return result


def _rows_written(run: RunDir, name: str) -> int:
    """Lines already in ``<name>.jsonl`` (RunDir flushes every append, so the file is current)."""
    path = run.path / f"{name}.jsonl"
    if not path.exists():
        return 0
    with path.open() as f:
        return sum(1 for _ in f)


def _yc_funds_points(env: Any) -> list[tuple[str, float]]:
    """Funds after every ledger posting, from the start of the simulation to its current time (exact,
    whoever drove the run: a baseline, a harness or a user's agent)."""
    w = env.world
    balance = w.ledger.start_cents
    points = [(w.cal.iso(w.start), balance / 100)]
    for row, minute in zip(w.ledger.rows, w.ledger_times, strict=True):
        balance += row.cents
        points.append((w.cal.iso(minute), balance / 100))
    points.append((env.time, w.funds_cents / 100))
    return points


def finish_yc_run(env: Any, run: RunDir, result: dict[str, Any], title: str) -> None:
    """The end-of-run files of a yc run: the actions and tamper entries not yet appended (a writer
    may append them as it goes, as the baselines do, or leave them all to this), a closing metrics
    line when nobody wrote per-turn ones, then ledger.csv, result.json and the funds plot."""
    from bizbench.report.plots import plot_funds

    run.append("actions", env.actions[_rows_written(run, "actions") :])
    run.append("tamper", env.tamper[_rows_written(run, "tamper") :])
    if _rows_written(run, "metrics") == 0:
        run.append("metrics", [{"turn": result.get("turns", env.world.resumes), **env.status_summary(consume=False)}])
    points = _yc_funds_points(env)
    run.finish(result, env.world.ledger.rows, lambda path: plot_funds(points, path, title))


def run_cfo_baseline(agent: str, seed: int, preset: str = "paper", out: Path | None = None) -> dict[str, Any]:
    """Run a cfo baseline for the 132 months; the run directory holds monthly metrics, every
    action, the statements of every book closing, the general ledger and result.json."""
    from bizbench.envs.cfo.baselines import make_policy
    from bizbench.envs.cfo.env import CfoEnv

    require_new(out)
    env = CfoEnv.from_preset(preset, seed, secret=secret_from_env())
    policy = make_policy(agent)
    run = None
    if out is not None:
        config = {"env": "cfo", "preset": preset, "preset_hash": env.preset_hash, "seed": seed, "agent": agent}
        run = RunDir(out, {**config, "config": env.config.model_dump(mode="json")})
    started = time.perf_counter()
    while not env.done:
        n_actions = len(env.actions)
        policy(env, env.observation())
        if run is not None:
            run.append("actions", env.actions[n_actions:])
    result = env.result(agent=agent, wall_seconds=round(time.perf_counter() - started, 3))
    if run is not None:
        from bizbench.core.provenance import provenance

        result["provenance"] = provenance()
        finish_cfo_run(env, run, result, f"cfo / {preset} / {agent} / seed {seed}")
    return result


def finish_cfo_run(env: Any, run: RunDir, result: dict[str, Any], title: str) -> None:
    """The end-of-run files of a cfo run: the actions and tamper entries not yet appended, monthly
    metrics, the statements of every book closing, the general ledger, result.json and the cash plot."""
    from bizbench.envs.cfo.records import statements
    from bizbench.report.plots import plot_monthly_cash

    run.append("actions", env.actions[_rows_written(run, "actions") :])
    run.append("tamper", env.tamper[_rows_written(run, "tamper") :])
    metrics = env.monthly_metrics()
    run.append("metrics", metrics)
    run.append("statements", [{"closed_at_month": c, **statements(env.world, c)} for c in env.world.closings])
    run.finish(result, env.ledger_rows(), lambda path: plot_monthly_cash(metrics, path, title))


#: env id -> the function writing an agent run's end-of-run files (env, rundir, result, title)
FINISHERS: dict[str, Callable[[Any, RunDir, dict[str, Any], str], None]] = {
    "cfo": finish_cfo_run,
    "yc": finish_yc_run,
}
