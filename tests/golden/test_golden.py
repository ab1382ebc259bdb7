"""Golden figures: every baseline of every env on seeds 1-3 gives exactly the figures recorded
before the Env contract was introduced (issue 13: behaviour must not change).

A field may be added to result.json; a recorded field may not change, nor the bytes of
ledger.csv, nor the ceo and cfo metrics.jsonl beyond the last bits of their floats (which differ
between CPUs: golden_runs.py). Re-record (``python tests/golden/golden_runs.py``) only for a
deliberate change of the mechanics, and say why in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_runs import compare, fast_runs, figures, key, metrics_fingerprint, slow_runs

HERE = Path(__file__).resolve().parent
FAST = json.loads((HERE / "figures.json").read_text())
SLOW = json.loads((HERE / "figures_slow.json").read_text())


@pytest.mark.parametrize("run", fast_runs(), ids=lambda r: key(*r))
def test_every_baseline_keeps_its_recorded_figures(run):
    assert compare(FAST[key(*run)], figures(*run)) == []


@pytest.mark.slow
@pytest.mark.parametrize("run", slow_runs(), ids=lambda r: key(*r))
def test_every_full_horizon_ceo_baseline_keeps_its_recorded_figures(run):
    assert compare(SLOW[key(*run)], figures(*run)) == []


def test_the_demo_run_is_the_documented_figure():
    assert SLOW[key("ceo", "rule-based", 42, None)]["result"]["final_cash"] == 35_797_224.93


def _figures_of(metrics_lines: list[dict]) -> dict:
    text = "\n".join(json.dumps(line) for line in metrics_lines)
    return {"result": {"score": 1.0}, "sha256": {"ledger.csv": "ab"}, "metrics": metrics_fingerprint(text)}


DAYS = [
    {"day": 1, "cash": 10.25, "p95_ms": 254.65628082778244, "by_group": {"S1": 0.5}, "mean": None},
    {"day": 2, "cash": 12.75, "p95_ms": 260.1, "by_group": {"S1": 0.25}, "mean": 3.5},
]


def test_a_float_that_differs_in_its_last_bits_between_cpus_is_the_same_figure():
    # 254.65628082778244 and the next float up: numpy's AVX-512 exp differs from its AVX2 one by so much
    moved = [DAYS[0] | {"p95_ms": 254.65628082778247}, DAYS[1]]
    assert compare(_figures_of(DAYS), _figures_of(moved)) == []


@pytest.mark.parametrize(
    ("day", "field", "value", "problem"),
    [
        (1, "p95_ms", 254.6563, "/p95_ms"),  # moved by 4e-8 of the summed magnitudes
        (0, "by_group", {"S1": 0.5, "S2": 0.0}, "the shape"),  # a float field added
        (1, "cash", 12.76, "/cash"),  # a cent
        (0, "day", 3, "a count"),  # an integer
        (1, "mean", None, "/mean"),  # a float turned null
    ],
)
def test_a_change_of_a_metrics_figure_beyond_the_last_bits_is_caught(day, field, value, problem):
    changed = [dict(d) for d in DAYS]
    changed[day][field] = value
    problems = compare(_figures_of(DAYS), _figures_of(changed))
    assert any(problem in p for p in problems), problems


def test_the_same_floats_swapped_between_days_are_caught():
    swapped = [DAYS[0] | {"cash": 12.75}, DAYS[1] | {"cash": 10.25}]  # same sums, other days
    assert ["/cash" in p for p in compare(_figures_of(DAYS), _figures_of(swapped))] == [True]


def test_a_field_dropped_from_the_metrics_is_caught():
    dropped = [{k: v for k, v in d.items() if k != "p95_ms"} for d in DAYS]
    assert any("/p95_ms" in p for p in compare(_figures_of(DAYS), _figures_of(dropped)))
