"""Speed of the yc env against the issue's targets and the original YC-Bench's published costs.

Run: ``.venv/bin/python benchmarks/yc_speed.py [--years N] [--calls N] [--shell N]``.

A shell call goes through the session's daemon (started by the first command after
`sim init`, not timed here). Figures for the original implementation are cited from the reference facts (same class of
machine; not re-measured here): a greedy year takes ~8 s in-process and 17-20 s through its
CLI, and one CLI command costs ~0.7 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bizbench.core.cmdsession import CommandSession
from bizbench.envs.yc.baselines import make_policy, run_policy
from bizbench.envs.yc.env import YcEnv

ORIGINAL = {"greedy year in-process": 8.0, "greedy year via CLI": 18.5, "one CLI command": 0.7}


def greedy_years(n: int) -> list[float]:
    times = []
    for seed in range(1, n + 1):
        env = YcEnv.from_preset("default", seed)
        t = time.perf_counter()
        run_policy(env, make_policy("greedy"))
        times.append(time.perf_counter() - t)
    return times


def in_process_commands(calls: int) -> dict[str, float]:
    env = YcEnv.from_preset("default", 1)
    run_policy(env, make_policy("greedy"), max_turns=40)  # a company mid-year
    out = {}
    for name, args in (
        ("company_status", {}),
        ("market_browse", {}),
        ("employee_list", {}),
        ("task_list", {}),
        ("finance_ledger", {}),
    ):
        samples = []
        for _ in range(calls):
            t = time.perf_counter()
            env.call(name, **args)
            samples.append(time.perf_counter() - t)
        out[name] = statistics.median(samples)
    return out


def shell_calls(n: int) -> float:
    bizbench = str(Path(sys.executable).with_name("bizbench"))
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BIZBENCH_STATE_DIR=str(Path(tmp) / "state"))
        session = str(Path(tmp) / "session")
        subprocess.run(
            [bizbench, "yc", "--session", session, "sim", "init", "--seed", "1"],
            check=True,
            env=env,
            capture_output=True,
        )
        samples = []
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run(
                [bizbench, "yc", "--session", session, "market", "browse", "--limit", "5"],
                check=True,
                env=env,
                capture_output=True,
            )
            samples.append(time.perf_counter() - t)
        os.environ["BIZBENCH_STATE_DIR"] = env["BIZBENCH_STATE_DIR"]
        CommandSession("yc", Path(session)).stop_daemon()  # the session daemon would idle on otherwise
    return statistics.median(samples)


def run_command_year() -> float:
    bizbench = str(Path(sys.executable).with_name("bizbench"))
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        subprocess.run(
            [bizbench, "run", "yc", "--agent", "greedy", "--seed", "1", "--out", str(Path(tmp) / "r")],
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--years", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--shell", type=int, default=10)
    a = ap.parse_args()
    year = statistics.median(greedy_years(a.years))
    cmds = in_process_commands(a.calls)
    worst = max(cmds, key=cmds.__getitem__)
    shell = shell_calls(a.shell)
    whole = run_command_year()
    rows = [
        ("greedy year in-process (median)", year, 0.2, ORIGINAL["greedy year in-process"]),
        (f"one in-process command (median, worst: {worst})", cmds[worst], 0.020, ORIGINAL["one CLI command"]),
        ("one shell call `bizbench yc --session` (median)", shell, 0.300, ORIGINAL["one CLI command"]),
        ("`bizbench run yc` greedy year, start-up included", whole, 3.0, ORIGINAL["greedy year via CLI"]),
    ]
    print(f"{'figure':<58}{'measured':>11}{'target':>9}  {'':<5}{'original':>9}  ratio")
    for label, value, target, original in rows:
        verdict = "PASS" if value <= target else "MISS"
        print(
            f"{label:<58}{value * 1e3:>9.1f}ms{target * 1e3:>7.0f}ms  {verdict:<5}{original:>8.1f}s  "
            f"{original / value:,.0f}x faster"
        )
    print("in-process commands (median ms): " + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in cmds.items()))


if __name__ == "__main__":
    main()
