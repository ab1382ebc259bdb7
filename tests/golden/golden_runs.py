"""The golden runs: every baseline of every env on 3 seeds, whose figures must never change by accident.

``python tests/golden/golden_runs.py [--slow]`` records ``figures.json`` (fast set) or
``figures_slow.json`` (full-horizon ceo). The tests in ``test_golden.py`` run the same runs and
compare. A run is described by (env, agent, seed, horizon); its figures are the result.json
fields (without the host-dependent ``wall_seconds`` and ``provenance``) and the SHA-256 of the
files whose bytes are the world's (``ledger.csv``; ceo and cfo ``metrics.jsonl``).
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VOLATILE = ("wall_seconds", "provenance")
HASHED = {"ceo": ("ledger.csv", "metrics.jsonl"), "yc": ("ledger.csv",), "cfo": ("ledger.csv", "metrics.jsonl")}
BASELINES = {
    "ceo": ("do-nothing", "random", "rule-based"),
    "yc": ("do-nothing", "random", "greedy", "heuristic"),
    "cfo": ("always-pass", "one-raise", "greedy-equity", "greedy-debt", "prudent-cfo", "late-leverage"),
}
SEEDS = (1, 2, 3)
#: ceo runs of the fast set are cut at this many days (the full horizon runs in the slow set)
CEO_FAST_DAYS = 35


def fast_runs() -> list[tuple[str, str, int, int | None]]:
    runs: list[tuple[str, str, int, int | None]] = []
    for env, agents in BASELINES.items():
        for agent in agents:
            for seed in SEEDS:
                runs.append((env, agent, seed, CEO_FAST_DAYS if env == "ceo" else None))
    return runs


def slow_runs() -> list[tuple[str, str, int, int | None]]:
    return [("ceo", agent, seed, None) for agent in BASELINES["ceo"] for seed in SEEDS] + [
        ("ceo", "rule-based", 42, None)
    ]


def key(env: str, agent: str, seed: int, horizon: int | None) -> str:
    return f"{env}/{agent}/{seed}/{horizon or 'preset'}"


def figures(env: str, agent: str, seed: int, horizon: int | None) -> dict[str, Any]:
    """Run one golden run into a temporary directory; its result fields and file digests."""
    from golden_runner import run_baseline

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        result = run_baseline(env, agent, seed, horizon, out)
        digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in HASHED[env]}
    fields = {k: v for k, v in json.loads(json.dumps(result)).items() if k not in VOLATILE}
    return {"result": fields, "sha256": digests}


def record(slow: bool) -> None:
    runs = slow_runs() if slow else fast_runs()
    out = {key(*r): figures(*r) for r in runs}
    name = "figures_slow.json" if slow else "figures.json"
    (HERE / name).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} runs -> {HERE / name}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    record("--slow" in sys.argv)
