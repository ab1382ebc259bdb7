"""Golden figures: every baseline of every env on seeds 1-3 gives exactly the figures recorded
before the Env contract was introduced (issue 13: behaviour must not change).

A field may be added to result.json; a recorded field may not change, nor the bytes of the
world's files (ledger.csv, ceo and cfo metrics.jsonl). Re-record (``python
tests/golden/golden_runs.py``) only for a deliberate change of the mechanics, and say why in
the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_runs import fast_runs, figures, key, slow_runs

HERE = Path(__file__).resolve().parent
FAST = json.loads((HERE / "figures.json").read_text())
SLOW = json.loads((HERE / "figures_slow.json").read_text())


def _compare(recorded: dict, now: dict) -> list[str]:
    problems = [f"{k}: recorded {v!r}, now {now['result'].get(k, '(missing)')!r}"
                for k, v in recorded["result"].items() if now["result"].get(k, "(missing)") != v]
    problems += [f"{name} bytes changed" for name, digest in recorded["sha256"].items()
                 if now["sha256"].get(name) != digest]
    return problems


@pytest.mark.parametrize("run", fast_runs(), ids=lambda r: key(*r))
def test_every_baseline_keeps_its_recorded_figures(run):
    assert _compare(FAST[key(*run)], figures(*run)) == []


@pytest.mark.slow
@pytest.mark.parametrize("run", slow_runs(), ids=lambda r: key(*r))
def test_every_full_horizon_ceo_baseline_keeps_its_recorded_figures(run):
    assert _compare(SLOW[key(*run)], figures(*run)) == []


def test_the_demo_run_is_the_documented_figure():
    assert SLOW[key("ceo", "rule-based", 42, None)]["result"]["final_cash"] == 35_684_113.66
