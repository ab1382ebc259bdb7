"""A baseline's option search (CEO-Bench Table 4: the 24 rule-based configurations of
Appendix B) on local processes: every configuration of :attr:`Baseline.search_space` on one
seed, ranked by score, then the best one across seeds."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from bizbench.core.envs import get_env
from bizbench.runner.episode import run_baseline

__all__ = ["search", "seeds_of"]

Job = tuple[str, str, dict[str, Any], int, str | None]


def _run_one(job: Job) -> dict[str, Any]:
    env_id, agent, options, seed, preset = job
    spec = get_env(env_id)
    baseline = spec.baseline(agent)
    result = run_baseline(
        env_id, agent, seed, preset, options=options, world_options={k: False for k in spec.world_options}
    )
    result["label"] = baseline.label(options) if baseline.label else str(options)
    return result


def run_jobs(
    jobs: Iterable[Job], workers: int | None = None, on_done: Callable[[dict[str, Any]], None] | None = None
) -> list[dict[str, Any]]:
    """Run (env, baseline, options, seed, preset) jobs on local processes; results in completion order."""
    jobs = list(jobs)
    workers = workers or os.cpu_count() or 1
    results = []
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        futures = [pool.submit(_run_one, job) for job in jobs]
        for fut in as_completed(futures):
            res = fut.result()
            results.append(res)
            if on_done is not None:
                on_done(res)
    return results


def search(
    env_id: str,
    agent: str | None = None,
    preset: str | None = None,
    seed: int = 42,
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Every configuration of the baseline's search space on one seed, best score first."""
    spec = get_env(env_id)
    baseline = spec.baseline(agent or spec.default_baseline)
    if baseline.search_space is None:
        raise ValueError(f"the {spec.id} {baseline.name} baseline has no option search")
    jobs = [(spec.id, baseline.name, options, seed, preset) for options in baseline.search_space()]
    results = run_jobs(jobs, workers, on_done)
    return sorted(results, key=lambda r: r["score"], reverse=True)


def seeds_of(
    env_id: str,
    agent: str,
    options: dict[str, Any],
    seeds: Iterable[int],
    preset: str | None,
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """One configuration across several seeds, sorted by seed."""
    results = run_jobs([(env_id, agent, options, s, preset) for s in seeds], workers, on_done)
    return sorted(results, key=lambda r: r["seed"])
