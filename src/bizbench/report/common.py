"""The report of an env that has no report module of its own (a plug-in env): the common
result core every env's result.json holds (docs/run-format.md), with no anchors and no plots.
It implements :class:`~bizbench.core.reporting.ReportModule` like ``envs/<id>/report.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bizbench.core.reporting import Chart, Column
from bizbench.core.runs import Run

__all__ = [
    "ANCHOR_LABELS",
    "FAILED_RUN_KEYS",
    "ONE_ANCHOR",
    "PER_RUN",
    "SCORE_KEYS",
    "TABLES",
    "ZERO_ANCHOR",
    "plots",
    "run_metrics",
]

SCORE_KEYS = ("score",)
#: what a run that ended early shows as 0: its score and the cash it left behind
FAILED_RUN_KEYS = ("score", "final_cash")
ZERO_ANCHOR = None
ONE_ANCHOR = None
ANCHOR_LABELS = ("", "")

_COLUMNS = [
    Column("score", "Score", "{:,.2f}", "mean", "result.json score"),
    Column("final_cash", "Final cash ($)", "{:,.0f}", "mean", "result.json final_cash"),
    Column("bankrupt", "Bankruptcies", "{:.0f}", "sum", "result.json bankrupt"),
    Column("survived_pct", "Survived (% of horizon)", "{:.1f}", "mean", "result.json survived_fraction"),
    Column("tool_calls", "Tool calls", "{:.1f}", "mean", "result.json tool_calls"),
    Column("cost_usd", "Mean API cost ($)", "{:.2f}", "mean", "result.json cost_usd"),
]
#: (CSV file stem, title, columns) of each aggregate table
TABLES: list[tuple[str, str, list[Column]]] = [("results", "Results (the common result fields)", _COLUMNS)]
PER_RUN: list[Column] = _COLUMNS


def run_metrics(run: Run, facts: dict[str, Any] | None = None) -> dict[str, float | None]:
    """One finished run's common result fields (None where the result lacks one)."""
    fraction = run.get("survived_fraction")
    bankrupt = run.get("bankrupt")
    return {
        "score": run.get("score"),
        "final_cash": run.get("final_cash"),
        "bankrupt": None if bankrupt is None else float(bool(bankrupt)),
        "survived_pct": None if fraction is None else float(fraction) * 100,
        "tool_calls": run.get("tool_calls"),
        "cost_usd": run.model_cost,
    }


def plots(models: Mapping[str, Sequence[Run]]) -> list[Chart]:
    """No plots: what an env's metrics rows hold is the env's."""
    return []
