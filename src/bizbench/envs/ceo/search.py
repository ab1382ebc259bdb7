"""The Appendix B configuration search: Table 4's 24 rule-based configurations, in parallel."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from typing import Any

from bizbench.envs.ceo.baselines import RuleBased, search_space


def _run_one(job: tuple[dict[str, Any], int, str]) -> dict[str, Any]:
    from bizbench.runner.episode import run_ceo_baseline

    options, seed, preset = job
    result = run_ceo_baseline("rule-based", seed, preset, options=options)
    result["label"] = RuleBased(**options).label
    return result


def _options(policy: RuleBased) -> dict[str, Any]:
    return {
        k: v for k, v in asdict(policy).items() if k in ("price_book", "target_rule", "spend_package", "cash_floor")
    }


def run_jobs(
    jobs: Iterable[tuple[dict[str, Any], int, str]],
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run (options, seed, preset) jobs on local processes; results in completion order."""
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
    preset: str = "no-surges",
    seed: int = 42,
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """All 24 configurations on one seed, ranked by final cash (best first)."""
    results = run_jobs([(_options(p), seed, preset) for p in search_space()], workers, on_done)
    return sorted(results, key=lambda r: r["final_cash"], reverse=True)


def seeds_of(
    options: dict[str, Any],
    seeds: Iterable[int],
    preset: str,
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """One configuration across several seeds, sorted by seed."""
    results = run_jobs([(options, s, preset) for s in seeds], workers, on_done)
    return sorted(results, key=lambda r: r["seed"])
