"""Speed-up of ``bizbench sweep`` on local processes: Table 4's 24-configuration search as a sweep.

Run: ``.venv/bin/python benchmarks/sweep_speed.py [--days N] [--workers W] [--no-thread-limit]``.

The 24 rule-based configurations of ``bizbench search`` (price book x target rule x spend
package x cash floor, preset no-surges, one seed) are written as one sweep file whose
``grid`` holds the four option axes, then run twice side by side: serially (one worker
process) and with the local backend's W worker processes (default: all cores). Both write
full run directories (company.db off). Printed: both wall times with the mean time of a run
and the cores used by the sweep and by other processes meanwhile (a shared machine's load
shows there), the speed-up (serial / parallel; the issue's target is >= 1.7x on 2 cores) and
whether the two gave the same results.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from bizbench.envs.ceo.baselines import CASH_FLOORS, PRICE_BOOKS, SPEND_PACKAGES, TARGET_RULES, RuleBased, search_space
from bizbench.runner.sweep import LocalBackend, expand, load_sweep, run_sweep

TARGET = 1.7


def sweep_file(path: Path, out: Path, preset: str, seed: int, days: int | None) -> Path:
    grid = {
        "price_book": list(PRICE_BOOKS),
        "target_rule": list(TARGET_RULES),
        "spend_package": list(SPEND_PACKAGES),
        "cash_floor": list(CASH_FLOORS),
    }
    lines = [f'out = "{out}"', "", "[[runs]]", 'env = "ceo"', f'preset = "{preset}"', 'agents = ["rule-based"]']
    lines += [f"seeds = {seed}", "db = false"] + ([f"days = {days}"] if days else [])
    lines.append("grid = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in grid.items()) + " }")
    path.write_text("\n".join(lines) + "\n")
    return path


def cpu_seconds() -> tuple[float, float]:
    """(CPU seconds of this process and its finished children, busy CPU seconds of the machine)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    ours = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    try:
        ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        busy = (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
    except (OSError, ValueError, IndexError):
        busy = float("nan")
    return ours, busy


def timed(label: str, file: Path, workers: int, limit_threads: bool) -> tuple[float, dict[str, float]]:
    """Run the sweep; print its wall time, the mean run time and the cores it and others used."""
    spec = load_sweep(file)
    ours0, busy0 = cpu_seconds()
    start = time.perf_counter()
    state = run_sweep(spec, LocalBackend(workers, limit_threads=limit_threads))
    wall = time.perf_counter() - start
    ours1, busy1 = cpu_seconds()
    failed = [r["name"] for r in state.rows.values() if r["status"] != "done"]
    if failed:
        raise SystemExit(f"runs did not finish: {failed}")
    mean_run = sum(r["wall_seconds"] for r in state.rows.values()) / len(state.rows)
    ours, others = (ours1 - ours0) / wall, (busy1 - busy0 - (ours1 - ours0)) / wall
    print(f"{label:24s} {wall:8.1f} s   mean run {mean_run:6.2f} s   cores: sweep {ours:4.2f}, others {others:4.2f}")
    return wall, {name: row["final_cash"] for name, row in state.rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=None, help="Horizon override (default: the preset's 500).")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="Parallel workers (default: cores).")
    parser.add_argument("--preset", default="no-surges")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--no-thread-limit", action="store_true", help="Leave numeric thread pools at their default size."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sweep-speed-") as tmp:
        root = Path(tmp)
        serial_file = sweep_file(root / "serial.toml", root / "serial", args.preset, args.seed, args.days)
        parallel_file = sweep_file(root / "parallel.toml", root / "parallel", args.preset, args.seed, args.days)
        runs = expand(load_sweep(serial_file))
        assert sorted(RuleBased(**r.options).label for r in runs) == sorted(p.label for p in search_space())
        horizon = f"{args.days} days" if args.days else "the preset's horizon"
        print(f"Table 4 search as a sweep: {len(runs)} ceo runs, {args.preset}, seed {args.seed}, {horizon}")
        print(f"{os.cpu_count()} cores; numeric thread pools {'default' if args.no_thread_limit else 'capped at 1'}")
        limit = not args.no_thread_limit
        serial, a = timed("serial (1 worker)", serial_file, 1, limit)
        parallel, b = timed(f"local ({args.workers} workers)", parallel_file, args.workers, limit)
        ratio = serial / parallel
        verdict = "meets" if ratio >= TARGET else "misses"
        print(f"speed-up                 {ratio:8.2f}x  ({verdict} the {TARGET}x target)")
        print(f"identical results: {a == b}")


if __name__ == "__main__":
    main()
