"""Calibration of the ceo world against the paper and the official engine (docs/calibration.md).

Full-horizon runs: marked ``slow`` (``make test-slow``; CI runs them after the fast suite).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bizbench.runner.episode import run_baseline
from bizbench.runner.search import search, seeds_of

pytestmark = pytest.mark.slow

PAPER_BEST = {"price_book": "mid", "target_rule": "s1_only", "spend_package": "heavy", "cash_floor": 100_000.0}
ADS_ONLY = {
    "price_book": "mid",
    "target_rule": "s1_then_s3",
    "spend_package": "heavy",
    "cash_floor": 0.0,
    "development": False,
}


@pytest.fixture(scope="module", params=["no-surges", "default"])
def ranked(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    return request.param, search("ceo", "rule-based", request.param, seed=42, workers=2)


def test_paper_best_configuration_is_best_and_in_range(ranked: tuple[str, list[dict[str, Any]]]) -> None:
    """Appendix B: mid / S1 only / heavy / $100K is the best of the 24 (or within 20 %) and
    ends seed 42 between $5M and $50M; the $300K floor gives the same result."""
    preset, results = ranked
    assert len(results) == 24
    best = results[0]["final_cash"]
    by_label = {r["label"]: r for r in results}
    paper = by_label["mid/s1_only/heavy/$100K"]
    assert paper["final_cash"] >= 0.8 * best, preset
    assert 5e6 <= paper["final_cash"] <= 50e6, preset
    assert not paper["bankrupt"]
    assert by_label["mid/s1_only/heavy/$300K"]["final_cash"] == paper["final_cash"]


@pytest.mark.parametrize("preset", ["no-surges", "default"])
def test_paper_best_configuration_is_solvent_on_seeds_1_to_10(preset: str) -> None:
    results = seeds_of("ceo", "rule-based", PAPER_BEST, range(1, 11), preset, workers=2)
    assert [r["seed"] for r in results] == list(range(1, 11))
    assert not any(r["bankrupt"] for r in results), [(r["seed"], r["final_cash"]) for r in results]


def test_removing_the_competitor_raises_final_cash() -> None:
    quiet = {"database": False}
    with_competitor = run_baseline("ceo", "rule-based", 42, "no-surges", options=PAPER_BEST, world_options=quiet)
    without = run_baseline("ceo", "rule-based", 42, "no-competitor", options=PAPER_BEST, world_options=quiet)
    assert without["final_cash"] > with_competitor["final_cash"]


def test_ads_without_development_goes_bankrupt() -> None:
    """Heavy advertising for S1 and S3 with no development spend and no cash floor."""
    result = run_baseline("ceo", "rule-based", 42, "default", options=ADS_ONLY, world_options={"database": False})
    assert result["bankrupt"], result["final_cash"]


ENGINE_SEEDS = Path(__file__).parents[2] / "benchmarks" / "data" / "ceo_official_engine_seeds.json"
#: fewer engine seeds than this make bands too wide to mean anything (issue 19 asks for 20 or more)
MIN_ENGINE_SEEDS = 20


def engine_bands(n: int, draws: int = 100_000) -> tuple[tuple[float, float], int]:
    """What n seeds of the official engine give, from its measured seeds (docs/calibration.md,
    "Across seeds"): the central 95 % of the median final cash of n seeds drawn with replacement,
    and the 97.5th percentile of how many of them end below $1M (a fixed draw: the same bands on
    every run)."""
    cash = np.array([row["final_cash"] for row in json.loads(ENGINE_SEEDS.read_text())["seeds"]])
    if len(cash) < MIN_ENGINE_SEEDS:
        raise ValueError(f"{ENGINE_SEEDS.name} holds {len(cash)} engine seeds; the bands need {MIN_ENGINE_SEEDS}")
    sample = np.random.default_rng(0).choice(cash, size=(draws, n))
    low, high = np.percentile(np.median(sample, axis=1), [2.5, 97.5])
    return (float(low), float(high)), int(np.percentile((sample < 1e6).sum(axis=1), 97.5))


def test_engine_bugs_seeds_1_to_10_sit_inside_the_official_engines_distribution() -> None:
    """The rule-based baseline on seeds 1-10 of engine-bugs: the median final cash and the number
    of seeds ending below $1M lie where 10 seeds of the official engine would put them."""
    results = seeds_of("ceo", "rule-based", {}, range(1, 11), "engine-bugs", workers=2)
    cash = [r["final_cash"] for r in results]
    (low, high), most_below = engine_bands(len(cash))
    assert low <= float(np.median(cash)) <= high, (low, np.median(cash), high)
    assert sum(c < 1e6 for c in cash) <= most_below, (cash, most_below)
