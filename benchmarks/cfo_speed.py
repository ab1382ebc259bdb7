"""Speed of the cfo env: one 132-month episode of every baseline, against the issue's 0.1 s target.

Run: ``.venv/bin/python benchmarks/cfo_speed.py [--seeds N] [--preset P]``.

The original EnterpriseArena simulator is not public, so there is no peer figure to compare
with; the ratio printed is against the target (<= 0.1 s per episode, issue 5).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bizbench.envs.cfo.baselines import BASELINES, make_policy, run_policy
from bizbench.envs.cfo.env import CfoEnv

TARGET_S = 0.1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--preset", default="paper")
    args = parser.parse_args()
    print(f"cfo / {args.preset}: one 132-month episode, {args.seeds} seeds, target <= {TARGET_S} s")
    print(f"{'baseline':14s} {'median s':>9s} {'max s':>8s} {'target / median':>16s}")
    for name in BASELINES:
        times = []
        for seed in range(1, args.seeds + 1):
            start = time.perf_counter()
            env = CfoEnv.from_preset(args.preset, seed)
            run_policy(env, make_policy(name))
            times.append(time.perf_counter() - start)
        med = statistics.median(times)
        print(f"{name:14s} {med:9.4f} {max(times):8.4f} {TARGET_S / med:15.1f}x")


if __name__ == "__main__":
    main()
