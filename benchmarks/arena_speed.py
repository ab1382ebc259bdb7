"""Cost of an arena against single-player runs (issue 21: a 4-seat arena at most 2x a single-player run).

Run: ``.venv/bin/python benchmarks/arena_speed.py [--seeds N]``.

For each line-up, the CPU seconds (this process's, all threads) of a 4-seat yc arena of a year
against the mean of the single-player years of its seats' baselines, on the same seeds, in this
process. Identical deterministic seats contest the same tasks and are awarded none of them
(docs/arena.md), so an arena of four copies of one baseline does less work than four runs;
the mixed line-up is the honest figure.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bizbench.runner.arena import run_arena
from bizbench.runner.episode import run_baseline

LINEUPS = {
    "4 x greedy": ["greedy"] * 4,
    "4 x heuristic": ["heuristic"] * 4,
    "heuristic, greedy, random, do-nothing": ["heuristic", "greedy", "random", "do-nothing"],
}
TARGET = 2.0


def cpu(fn: object) -> float:
    start = time.process_time()
    fn()  # type: ignore[operator]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="Seeds 1..N of each line-up.")
    args = parser.parse_args()
    seeds = range(1, args.seeds + 1)
    single: dict[str, float] = {}
    for agent in sorted({a for lineup in LINEUPS.values() for a in lineup}):
        single[agent] = statistics.mean(cpu(lambda a=agent, s=s: run_baseline("yc", a, seed=s)) for s in seeds)
        print(f"single-player yc year, {agent:<10}: {single[agent]:.3f} s CPU (mean of {len(seeds)} seeds)")
    print(f"\n4-seat yc arena, a year (target: <= {TARGET:.0f}x the single-player run)")
    for label, lineup in LINEUPS.items():
        arena = statistics.mean(cpu(lambda s=s, lineup=lineup: run_arena("yc", lineup, seed=s)) for s in seeds)
        base = statistics.mean(single[a] for a in lineup)
        ratio, of_sum = arena / base, arena / sum(single[a] for a in lineup)
        verdict = "PASS" if ratio <= TARGET else "MISS"
        print(
            f"  {label:<40} {arena:.3f} s CPU = {ratio:.2f}x its seats' single-player mean  {verdict}"
            f"  ({of_sum:.2f}x the sum of their four single-player runs)"
        )


if __name__ == "__main__":
    main()
