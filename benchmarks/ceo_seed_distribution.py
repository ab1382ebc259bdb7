"""The ceo rule-based baseline across seeds, against the official CEO-Bench engine's distribution.

Run from the repository root::

    .venv/bin/python benchmarks/ceo_seed_distribution.py                      # engine-bugs, seeds 1-30
    .venv/bin/python benchmarks/ceo_seed_distribution.py --preset default --seeds 1-40
    .venv/bin/python benchmarks/ceo_seed_distribution.py --measure-reference ~/ceobench-src \
        --reference-python ~/ceobench-venv/bin/python --seeds 1-30            # measure the engine again

The policy is the paper's best configuration of Appendix B (mid price book / S1 only / heavy
spend / $100K floor). For each seed it takes six figures from ``result.json``: final cash, the
lowest cash and its day, the peak number of individual subscribers and its day, and the
subscribers left at the end. It prints each figure's distribution for bizbench and for the
official engine side by side, a Mann-Whitney U test (do the two differ in location?) and a
Kolmogorov-Smirnov test (in shape?) per figure, and Fisher's exact test on the share of seeds
that end below $1M. The worlds of a seed differ between the engines by construction (their
random streams differ), so only distributions are compared, never seeds.

The engine's figures come from ``benchmarks/data/ceo_official_engine_seeds.json``, measured
with ``--measure-reference``: it runs the Appendix-B driver, unmodified, once per seed
(``PYTHONHASHSEED=0``, 10-30 minutes of one core each) and reads the six figures from the
SQLite database the engine writes (cash from its ledger, subscribers from its subscriptions).
The engine is zlab-princeton/ceobench-src at d2b7b32 (the version docs/reference-notes.md
describes); the driver is ``scripts/run_rule_based_baseline.py`` of the fork hutauf/ceobench-src,
copied into that checkout's ``scripts/``. A seed marked with the fork's own ``engine_commit`` ran on
the fork's older engine, which differs from d2b7b32 where this policy does not go (the quota
penalty, first-period promotions, the price billed after a price change): seed 1 ends the same to
the cent on both.
docs/calibration.md, "Across seeds", reports the result.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

REFERENCE = Path(__file__).parent / "data" / "ceo_official_engine_seeds.json"
DRIVER = "scripts/run_rule_based_baseline.py"
FIGURES = ("final_cash", "min_cash", "min_cash_day", "peak_subscribers", "peak_subscribers_day", "final_subscribers")
MONEY = ("final_cash", "min_cash")
LOW_CASH = 1_000_000.0


def ours(preset: str, seeds: list[int], workers: int | None) -> list[dict[str, float]]:
    """The six figures of bizbench's rule-based runs (its defaults are the paper's best
    configuration), one row per seed."""
    from bizbench.runner.search import seeds_of

    results = seeds_of("ceo", "rule-based", {}, seeds, preset, workers)
    return [{"seed": r["seed"], **{f: r[f] for f in FIGURES}} for r in results]


def engine_figures(database: Path, days: int) -> dict[str, float]:
    """The six figures of one engine run, read from its database after the run: cash is the sum
    of the ledger up to each day's end; a subscriber is an individual ('small') customer's
    subscription from its start day until its end day (the engine's own active count, without
    enterprise accounts, as bizbench counts ``subscribers``)."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        flow = np.zeros(days + 1)
        for day, amount in db.execute("SELECT day, SUM(amount) FROM ledger GROUP BY day"):
            flow[day] += amount
        starts, ends = np.zeros(days + 2), np.zeros(days + 2)
        rows = db.execute(
            "SELECT s.start_day, s.end_day FROM subscriptions s JOIN customers c USING (customer_id) "
            "WHERE s.status != 'lost' AND c.customer_type = 'small'"
        )
        for start, end in rows:
            starts[start] += 1
            if end is not None:
                ends[end] += 1
    cash = np.cumsum(flow)[1:]
    active = (np.cumsum(starts) - np.cumsum(ends))[1 : days + 1]
    return {
        "final_cash": round(float(cash[-1]), 2),
        "min_cash": round(float(cash.min()), 2),
        "min_cash_day": int(cash.argmin()) + 1,
        "peak_subscribers": int(active.max()),
        "peak_subscribers_day": int(active.argmax()) + 1,
        "final_subscribers": int(active[-1]),
    }


def measure_reference(source: Path, python: str, seeds: list[int], out: Path, days: int = 500) -> None:
    """Run the engine's Appendix-B driver on each seed not yet in ``out``; add each seed's figures
    to ``out`` as soon as it ends (a stopped measurement goes on where it stopped). A file measured
    with another engine or driver is refused rather than mixed; each seed records its environment."""
    source = source.resolve()
    if "/" in python:
        python = os.path.abspath(python)  # not resolve(): a virtualenv's python is a symlink
    provenance = _provenance(source)
    data = json.loads(out.read_text()) if out.exists() else {"provenance": provenance, "seeds": []}
    differ = [k for k in ("engine_commit", "driver_sha256") if data["provenance"].get(k) != provenance[k]]
    if differ:
        sys.exit(f"{out} was measured with another {' and '.join(differ)}: measure into another --reference file")
    done = {row["seed"] for row in data["seeds"]}
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(source / "src")}
    for seed in (s for s in seeds if s not in done):
        with tempfile.TemporaryDirectory() as work:
            started = time.perf_counter()
            command = [python, DRIVER, "--seed", str(seed), "--days", str(days), "--workspace", work]
            subprocess.run(command, cwd=source, env=env, check=True, stdout=subprocess.DEVNULL)
            row = {"seed": seed, **run_figures(Path(work), days)}
            row.update(seconds=round(time.perf_counter() - started), environment=_environment(python))
        data["seeds"] = sorted([*data["seeds"], row], key=lambda r: r["seed"])
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"engine seed {seed}: final cash ${row['final_cash']:,.0f} ({row['seconds']} s)", flush=True)


def run_figures(workspace: Path, days: int) -> dict[str, float]:
    """One finished driver run's figures, checked against the summary the driver wrote itself,
    with the days it ran and whether it shut down bankrupt."""
    figures = engine_figures(workspace / "rule_based_world.db", days)
    summary = json.loads((workspace / "rule_based_summary.json").read_text())
    if abs(summary["final_cash"] - figures["final_cash"]) > 0.01:
        raise ValueError(
            f"{workspace}: the ledger ends at {figures['final_cash']}, the driver says {summary['final_cash']}"
        )
    return {**figures, "days_run": summary["days_run"], "bankrupt": summary["shutdown"]}


def _provenance(source: Path) -> dict[str, str]:
    """What was measured: the engine's commit (when ``source`` is itself a git checkout; '+ changes'
    when tracked files differ from it) and the driver's SHA-256."""

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True).stdout.strip()

    commit = "not a git checkout"
    if git("rev-parse", "--show-toplevel") == str(source):
        commit = git("rev-parse", "HEAD") + (
            " + changes" if git("status", "--porcelain", "--untracked-files=no") else ""
        )
    return {
        "engine_commit": commit,
        "driver_sha256": hashlib.sha256((source / DRIVER).read_bytes()).hexdigest(),
        "measured": time.strftime("%Y-%m-%d"),
    }


def _environment(python: str) -> str:
    """The Python and the engine's libraries that ran a seed."""
    script = "import sys, numpy, pandas, pydantic; print(sys.version.split()[0], numpy.__version__, "
    script += "pandas.__version__, pydantic.VERSION)"
    versions = subprocess.run([python, "-c", script], capture_output=True, text=True).stdout.split()
    py, np_, pd, pyd = (versions + ["?"] * 4)[:4]
    return f"PYTHONHASHSEED=0, Python {py}, numpy {np_}, pandas {pd}, pydantic {pyd}"


def _shown(figure: str, value: float) -> str:
    return f"${value / 1e6:,.2f}M" if figure in MONEY else f"{value:,.0f}"


def _summary(figure: str, values: np.ndarray) -> str:
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    spread = f"IQR {_shown(figure, q1)}-{_shown(figure, q3)}"
    return (
        f"median {_shown(figure, med)}, {spread}, range {_shown(figure, values.min())}-{_shown(figure, values.max())}"
    )


def compare(mine: list[dict[str, float]], engine: list[dict[str, float]]) -> None:
    """Print each figure's two distributions and the two-sample tests."""
    print(f"bizbench: {len(mine)} seeds; official engine: {len(engine)} seeds")
    for figure in FIGURES:
        a = np.array([r[figure] for r in mine], dtype=float)
        b = np.array([r[figure] for r in engine], dtype=float)
        mw = stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
        ks = stats.ks_2samp(a, b).pvalue
        print(f"\n{figure}")
        print(f"  bizbench  {_summary(figure, a)}")
        print(f"  engine    {_summary(figure, b)}")
        print(f"  Mann-Whitney U p = {mw:.3f}   Kolmogorov-Smirnov p = {ks:.3f}")
    low_a = sum(r["final_cash"] < LOW_CASH for r in mine)
    low_b = sum(r["final_cash"] < LOW_CASH for r in engine)
    table = [[low_a, len(mine) - low_a], [low_b, len(engine) - low_b]]
    print(
        f"\nseeds ending below $1M: bizbench {low_a}/{len(mine)}, engine {low_b}/{len(engine)}, "
        f"Fisher's exact p = {stats.fisher_exact(table).pvalue:.3f}"
    )


def main() -> None:
    from bizbench.runner.sweep_spec import parse_seeds

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="engine-bugs", help="bizbench preset (engine-bugs reproduces the engine)")
    ap.add_argument(
        "--seeds", type=parse_seeds, default="1-30", help="seeds of bizbench's runs (and of a measurement), e.g. 1-30"
    )
    ap.add_argument("--workers", type=int, default=None, help="parallel processes (default: all cores)")
    ap.add_argument("--reference", type=Path, default=REFERENCE, help="the engine's figures (JSON)")
    ap.add_argument(
        "--measure-reference",
        type=Path,
        metavar="ENGINE_SOURCE",
        default=None,
        help="a checkout of the engine (with scripts/run_rule_based_baseline.py) to measure into --reference",
    )
    ap.add_argument(
        "--reference-python",
        default=sys.executable,
        help="the Python that runs the engine (3.11+ with numpy, pandas, pydantic)",
    )
    args = ap.parse_args()
    if args.measure_reference is not None:
        measure_reference(args.measure_reference, args.reference_python, args.seeds, args.reference)
        return
    engine = json.loads(args.reference.read_text())["seeds"] if args.reference.exists() else []
    if not engine:
        sys.exit(f"{args.reference} holds no engine seeds: measure them with --measure-reference")
    started = time.perf_counter()
    mine = ours(args.preset, args.seeds, args.workers)
    print(f"bizbench preset {args.preset}, {len(args.seeds)} seeds: {time.perf_counter() - started:,.0f} s\n")
    compare(mine, engine)


if __name__ == "__main__":
    main()
