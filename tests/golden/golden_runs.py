"""The golden runs: every baseline of every env on 3 seeds, whose figures must never change by accident.

``python tests/golden/golden_runs.py [--slow]`` records ``figures.json`` (fast set) or
``figures_slow.json`` (full-horizon ceo). The tests in ``test_golden.py`` run the same runs and
compare. A run is described by (env, agent, seed, horizon); its figures are the result.json
fields (without the host-dependent ``wall_seconds`` and ``provenance``), the SHA-256 of
``ledger.csv`` (money in cents: exact on every machine) and a fingerprint of the ceo and cfo
``metrics.jsonl``.

The metrics' floats are not the same bytes on every machine: numpy's vectorised ``exp`` and
``log`` take another path on a CPU with AVX-512, and the last bits of some values differ (seen:
``p95_ms``, ``product_quality``; never a result field, a count or the ledger, over 500 days). So a
metrics file is fingerprinted as the SHA-256 of everything but its finite floats (counts, money
rounded to the cent by the ledger, text, nulls, the shape), and per float field its sum, its sum
of magnitudes and its day-weighted sum, compared to ``FLOAT_TOLERANCE`` of the magnitudes.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VOLATILE = ("wall_seconds", "provenance")
HASHED = ("ledger.csv",)
#: the envs whose metrics.jsonl is fingerprinted
METRICS = ("ceo", "cfo")
#: a float field's sums may differ by this fraction of its summed magnitudes (the last bits of
#: numpy's SIMD paths, see above; a change of behaviour moves them by far more)
FLOAT_TOLERANCE = 1e-9
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
        digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in HASHED}
        metrics = metrics_fingerprint((out / "metrics.jsonl").read_text()) if env in METRICS else None
    fields = {k: v for k, v in json.loads(json.dumps(result)).items() if k not in VOLATILE}
    return {"result": fields, "sha256": digests} | ({"metrics": metrics} if metrics else {})


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}/{k}")]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}/{i}")]
    return [(path, value)]


def metrics_fingerprint(text: str) -> dict[str, Any]:
    """The SHA-256 of a metrics.jsonl's lines without their finite floats, and per float field
    (a path such as ``/reputation/S1``) [sum, sum of magnitudes, sum of value x line number]."""
    exact = hashlib.sha256()
    sums: dict[str, list[float]] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        for path, v in _leaves(json.loads(line)):
            if isinstance(v, float) and math.isfinite(v):
                s = sums.setdefault(path, [0.0, 0.0, 0.0])
                s[0] += v
                s[1] += abs(v)
                s[2] += v * line_no
                v = "float"
            exact.update(f"{line_no} {path} {json.dumps(v)}\n".encode())
    return {"exact_sha256": exact.hexdigest(), "float_sums": sums, "lines": len(text.splitlines())}


def compare(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs between two runs' figures (empty: the same run)."""
    problems = [
        f"{k}: recorded {v!r}, now {now['result'].get(k, '(missing)')!r}"
        for k, v in recorded["result"].items()
        if now["result"].get(k, "(missing)") != v
    ]
    problems += [
        f"{name} bytes changed" for name, digest in recorded["sha256"].items() if now["sha256"].get(name) != digest
    ]
    if "metrics" in recorded:
        before, after = recorded["metrics"], now["metrics"]
        if (before["exact_sha256"], before["lines"]) != (after["exact_sha256"], after["lines"]):
            problems.append("metrics.jsonl: a count, a text, a null or the shape changed")
        for path, (total, magnitude, weighted) in before["float_sums"].items():
            got = after["float_sums"].get(path)
            tol = FLOAT_TOLERANCE * magnitude
            if (
                got is None
                or abs(got[0] - total) > tol
                or abs(got[1] - magnitude) > tol
                or abs(got[2] - weighted) > tol * before["lines"]
            ):
                problems.append(f"metrics.jsonl {path}: recorded sums {[total, magnitude, weighted]}, now {got}")
    return problems


def record(slow: bool) -> None:
    runs = slow_runs() if slow else fast_runs()
    out = {key(*r): figures(*r) for r in runs}
    name = "figures_slow.json" if slow else "figures.json"
    (HERE / name).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} runs -> {HERE / name}")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    record("--slow" in sys.argv)
