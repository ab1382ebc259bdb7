"""Speed of the ceo world: a full rule-based episode, and one synthetic full-market day.

Run from the repository root::

    .venv/bin/python benchmarks/ceo_speed.py                       # both parts, 5M customers
    .venv/bin/python benchmarks/ceo_speed.py --customers 1000000 --days 3
    .venv/bin/python benchmarks/ceo_speed.py --part market         # only the synthetic day

(a) episode: the rule-based baseline (paper's best configuration) for the preset's
    500-day horizon on ``no-surges`` seed 42, no run directory written; wall time, simulated
    days per second, and the ratio against the official engine on the same episode.
(b) market: a world of the ``default`` preset with N active S1 subscribers injected straight
    into the customer columns, then ``World.step_day()`` timed for a few days: seconds per
    simulated day, customer-days per second and peak memory (ru_maxrss).

Each part runs in its own child process so its peak-memory figure is its own. Only the
simulation is timed: no database writes are included (the agent-visible SQLite store does
not exist yet), and no run directory is written.
"""

from __future__ import annotations

import argparse
import platform
import resource
import subprocess
import sys
import time

import numpy as np

# The official CEO-Bench engine (Python/SQLite, one row per customer) took 1,314 s for the
# 500-day rule-based episode (mid / S1 only / heavy / $100K, seed 42) measured on this
# machine (2 cores). Only a ratio measured here against it is meaningful.
OFFICIAL_ENGINE_EPISODE_SECONDS = 1314.0


def _peak_rss_mb() -> float:
    """Peak resident set size of this process (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if platform.system() == "Darwin" else peak / 1024


def bench_episode(preset: str, seed: int, days: int | None) -> None:
    from bizbench.runner.episode import run_baseline

    print(
        f"(a) rule-based episode: preset {preset}, seed {seed}, {'preset horizon' if days is None else f'{days} days'}",
        flush=True,
    )
    started = time.perf_counter()
    result = run_baseline("ceo", "rule-based", seed, preset, days)
    wall = time.perf_counter() - started
    n = result["days_survived"]
    print(f"    days simulated        {n}  (bankrupt: {result['bankrupt']})")
    print(f"    final cash            ${result['final_cash']:,.2f}")
    print(f"    peak subscribers      {result['peak_subscribers']:,} (day {result['peak_subscribers_day']})")
    print(f"    wall time             {wall:,.1f} s")
    print(f"    days per second       {n / wall:,.2f}")
    if n == 500:
        print(f"    official engine       {OFFICIAL_ENGINE_EPISODE_SECONDS:,.0f} s (same episode, this machine)")
        print(f"    speed-up              {OFFICIAL_ENGINE_EPISODE_SECONDS / wall:,.1f}x")
    else:
        print("    speed-up              n/a (the official figure is for the full 500 days)")
    print(f"    peak memory           {_peak_rss_mb():,.0f} MB (ru_maxrss)")


def build_market(customers: int, seed: int) -> object:
    """A default-preset world with ``customers`` active S1 subscribers on plan A."""
    from bizbench.envs.ceo.config import load_config
    from bizbench.envs.ceo.world.customers import SUBSCRIBED
    from bizbench.envs.ceo.world.world import World

    cfg, _ = load_config("default")
    # Deep pockets: the benchmark times the mechanics, bankruptcy is irrelevant.
    world = World(cfg.model_copy(update={"start_cash": 1e12}), seed)
    rng = np.random.default_rng(seed)
    n = customers
    c_max = np.maximum(15.0, rng.normal(50.0, 10.0, n))
    world.state.customers.append(
        n,
        {
            "group": 0,  # S1
            "status": SUBSCRIBED,
            "plan": 0,  # A
            "c_max": c_max,
            "effective_c_max": c_max,
            "q_min": 0.1,
            "q_max": 0.55,
            "s_left": 1.2,
            "s_right": 2.8,
            "usage_rate": 80.0,
            "usage_demand": 80.0,
            "eta_ads": 0.05,
            "rho_ads": 0.01,
            "start_day": 0,
            "created_day": 0,
            "billing_mod": (np.arange(n) % 30).astype(np.int8),  # anchors spread over the month
            "listed_price": 12.0,
            "effective_price": 12.0,
            "first_billing_done": True,
        },
    )
    # A mature product, as after months of development spend, so subscribers mostly stay.
    world.state.bonus_shared = 0.1
    world.state.bonus_group[0] = 0.5
    s = world.state.settings
    s.prices[:] = (12.0, 25.0, 55.0)
    s.tiers[:] = (1, 2, 4)
    # A daily cap of 55 units keeps 5M subscribers (<= 275M units/day) inside capacity tier 7
    # (300M units/day), so the day is not dominated by overload and outages.
    s.quotas[:] = (55.0, 250.0, 1_000.0)
    s.capacity_tier = 7
    s.operations = 0.05 * n
    s.development = 200.0
    s.targeted_dev[0] = 6000.0
    s.ad_spend[0, 0] = 750.0
    return world


def bench_market(customers: int, days: int, seed: int) -> None:
    print(f"(b) synthetic full-market day: {customers:,} active S1 subscribers, {days} simulated days", flush=True)
    t0 = time.perf_counter()
    world = build_market(customers, seed)
    build = time.perf_counter() - t0
    print(f"    build world           {build:,.1f} s")
    times = []
    for k in range(days):
        t = time.perf_counter()
        # Customer posts are sampled on a turn's last day only (reference-notes §1.3), as in a real turn.
        m = world.step_day(sample_posts=k == days - 1)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - t)
        print(
            f"    day {m['day']:>3}               {times[-1]:,.2f} s  "
            f"(subscribers {m['subscribers']:,}, leads {m['leads']:,}, cancellations {m['cancellations']:,})",
            flush=True,
        )
    total = sum(times)
    print(f"    seconds per day       {total / days:,.2f} (mean), {min(times):,.2f} (best)")
    print(f"    customer-days / s     {customers * days / total:,.0f}")
    print(f"    peak memory           {_peak_rss_mb():,.0f} MB (ru_maxrss, whole process)")
    print("    note: simulation only; no database writes are included (the agent-visible SQLite")
    print("          store does not exist yet) and no run directory is written.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--customers", type=int, default=5_000_000, help="active subscribers in part (b)")
    ap.add_argument("--days", type=int, default=3, help="simulated days timed in part (b)")
    ap.add_argument("--part", choices=("all", "episode", "market"), default="all")
    ap.add_argument("--preset", default="no-surges", help="preset of part (a)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--episode-days", type=int, default=None, help="override the horizon of part (a)")
    args = ap.parse_args()
    if args.customers < 1 or args.days < 1:
        ap.error("--customers and --days must be positive")

    if args.part == "episode":
        bench_episode(args.preset, args.seed, args.episode_days)
        return
    if args.part == "market":
        bench_market(args.customers, args.days, args.seed)
        return
    import numpy

    print(
        f"ceo speed benchmark: python {platform.python_version()}, numpy {numpy.__version__}, "
        f"{platform.machine()}, load average {' '.join(f'{x:.2f}' for x in _loadavg())}"
    )
    base = [sys.executable, __file__, "--seed", str(args.seed)]
    episode = base + ["--part", "episode", "--preset", args.preset]
    if args.episode_days is not None:
        episode += ["--episode-days", str(args.episode_days)]
    market = base + ["--part", "market", "--customers", str(args.customers), "--days", str(args.days)]
    for cmd in (episode, market):
        subprocess.run(cmd, check=True)


def _loadavg() -> tuple[float, ...]:
    try:
        import os

        return os.getloadavg()
    except OSError:
        return ()


if __name__ == "__main__":
    main()
