"""The cfo env's report module (docs/reports.md): the columns of EnterpriseArena Table 2 from a
run directory, its normalisation anchors and its plots.

Score: ``score`` (eq 2, 0 if bankrupt). Anchors: 0 = the ``always-pass`` baseline on the
run's world; 1 = the human experts' mean score, $152.2M (EnterpriseArena Table 2), for runs
scored the paper's way.

Per run, from result.json (the env counts them from its monthly history):

* **Score** (eq 2, $M): Rev_TTM x 5 + cash - 5,000 x tool calls, 0 if cash ever fell below 0.
* **Score net** ($M): the same with the cash net of the debt still owed at the end, beside
  the paper's score: a loan repaid after the horizon counts in full in eq 2 (the hardened
  preset's own score is already net, so there the two agree).
* **Debt.Out** ($M): debt principal still owed at the end.
* **Surv.%**: 100 if the run survived all months, else 0 (the mean over runs is the rate).
* **Mon.**: months survived.
* **Eq.R / Debt.R / Tot.R** ($M): equity, debt and total capital received.
* **FR%**: successful fundraising requests over requests (a request still pending at the
  end counts as not (yet) successful; missing with no request, the paper's "-").
* **Pk.Cash / End.Cash / Low.Cash** ($M): highest, final and lowest month-end cash.
* **T/Mo**: tool calls (budgeted tools; memory and actions are not tools) per month played.
* **Action distribution**: the month's one action as a share of months played:
  fundraising requests (FR.A%), successful requests (FR.S%), book closings (BC%) and passes
  (Pass%, with the count Pass#). FR.A% + BC% + Pass% = 100.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bizbench.core.reporting import Chart, Column, metric_series
from bizbench.core.runs import Run

__all__ = [
    "ANCHOR_LABELS",
    "HUMAN_SCORE",
    "FAILED_RUN_KEYS",
    "LEGEND",
    "ONE_ANCHOR",
    "PER_RUN",
    "SCORE_KEYS",
    "TABLES",
    "ZERO_ANCHOR",
    "human_experts",
    "plots",
    "run_metrics",
]

#: EnterpriseArena Table 2: the two human experts' mean terminal valuation score.
HUMAN_SCORE = 152.2e6
SCORE_KEYS = ("score",)
#: what a run that ended early shows as 0: eq 2's score, the score net of debt and the end cash
FAILED_RUN_KEYS = ("score", "score_net_of_debt", "final_cash")
ZERO_ANCHOR = "always-pass"
ANCHOR_LABELS = ("always-pass baseline", "human experts $152.2M")


def human_experts(run: Run) -> tuple[float | None, str]:
    """The one anchor: the experts' score, for runs scored as they were (eq 2 on the whole
    company); a per-share or net-cash score (the hardened preset) is another scale: none.
    A constant: it needs no re-created world."""
    from bizbench.envs.cfo.config import CfoConfig, Score

    if CfoConfig.model_validate(run.inner_config).score == Score():
        return HUMAN_SCORE, ""
    return None, "the human experts played the paper's score; this preset scores another way"


ONE_ANCHOR = human_experts


def _pct(num: float, den: float) -> float | None:
    return num / den * 100 if den else None


def _survival(run: Run) -> float | None:
    """EnterpriseArena Table 2 survival: 100 when the run played every month without going
    bankrupt, 0 when it went bankrupt or ended early (an agent error, a turn or dollar limit: a
    failed run, docs/reports.md "Runs that ended early")."""
    bankrupt, played, total = run.get("bankrupt"), run.get("months_survived"), run.get("months_total")
    if bankrupt is None or played is None or total is None:
        return None
    if bankrupt or run.ended_early:
        return 0.0
    return 100.0 if played >= total else 0.0


def run_metrics(run: Run, facts: dict[str, Any] | None = None) -> dict[str, float | None]:
    """One finished cfo run's Table 2 values (None = not measurable)."""
    requests = int(run.get("fundraising_requests") or 0)
    closings = int(run.get("book_closings") or 0)
    passes = int(run.get("passes") or 0)
    months = requests + closings + passes  # one action per month played
    attempts = int(run.get("fundraising_attempts") or 0)
    successes = int(run.get("fundraising_successes") or 0)
    equity, debt = run.get("equity_raised"), run.get("debt_raised")
    tools = run.get("tool_calls")
    return {
        "score": run.get("score"),
        "score_net_of_debt": run.get("score_net_of_debt"),
        "debt_outstanding": run.get("debt_outstanding"),
        "survival_pct": _survival(run),
        "months": run.get("months_survived"),
        "equity_raised": equity,
        "debt_raised": debt,
        "total_raised": None if equity is None or debt is None else equity + debt,
        "fr_success_pct": _pct(successes, attempts),
        "peak_cash": run.get("peak_cash"),
        "final_cash": run.get("final_cash"),
        "low_cash": run.get("low_cash"),
        "tools_per_month": tools / months if tools is not None and months else None,
        "fr_attempt_pct": _pct(requests, months),
        "fr_success_action_pct": _pct(successes, months),
        "book_closing_pct": _pct(closings, months),
        "passes": float(passes),
        "pass_pct": _pct(passes, months),
        "cost_usd": run.model_cost,
    }


_M = "{:,.1f}"
#: (CSV file stem, title, columns) of each aggregate table
TABLES: list[tuple[str, str, list[Column]]] = [
    (
        "table2_capital",
        "EnterpriseArena Table 2: overall performance and capital",
        [
            Column("score", "Score ($M)", _M, "mean", "Table 2, eq 2", 1e6),
            Column("normalised", "Normalised score", "{:.3f}", "mean", "protocol"),
            Column("score_net_of_debt", "Score net ($M)", _M, "mean", "eq 2, cash net of debt", 1e6),
            Column("debt_outstanding", "Debt.Out ($M)", _M, "mean", "", 1e6),
            Column("survival_pct", "Surv.%", "{:.0f}", "mean", "Table 2"),
            Column("months", "Mon.", "{:.0f}", "mean", "Table 2"),
            Column("equity_raised", "Eq.R ($M)", _M, "mean", "Table 2", 1e6),
            Column("debt_raised", "Debt.R ($M)", _M, "mean", "Table 2", 1e6),
            Column("total_raised", "Tot.R ($M)", _M, "mean", "Table 2", 1e6),
            Column("fr_success_pct", "FR%", "{:.0f}", "mean", "Table 2"),
            Column("peak_cash", "Pk.Cash ($M)", _M, "mean", "Table 2", 1e6),
            Column("final_cash", "End.Cash ($M)", _M, "mean", "Table 2", 1e6),
            Column("low_cash", "Low.Cash ($M)", _M, "mean", "Table 2", 1e6),
        ],
    ),
    (
        "table2_behaviour",
        "EnterpriseArena Table 2: agent behaviour",
        [
            Column("tools_per_month", "T/Mo", "{:.1f}", "mean", "Table 2"),
            Column("fr_attempt_pct", "FR.A%", "{:.1f}", "mean", "Table 2"),
            Column("fr_success_action_pct", "FR.S%", "{:.1f}", "mean", "Table 2"),
            Column("book_closing_pct", "BC%", "{:.1f}", "mean", "Table 2"),
            Column("passes", "Pass#", "{:.0f}", "mean", "Table 2"),
            Column("pass_pct", "Pass%", "{:.1f}", "mean", "Table 2"),
            Column("cost_usd", "API cost ($)", "{:.2f}", "mean", ""),
        ],
    ),
]

PER_RUN: list[Column] = [
    Column("score", "Score ($M)", _M, scale=1e6),
    Column("normalised", "Norm.", "{:.3f}"),
    Column("score_net_of_debt", "Score net ($M)", _M, scale=1e6),
    Column("debt_outstanding", "Debt.Out ($M)", _M, scale=1e6),
    Column("months", "Mon.", "{:.0f}"),
    Column("total_raised", "Tot.R ($M)", _M, scale=1e6),
    Column("fr_success_pct", "FR%", "{:.0f}"),
    Column("peak_cash", "Pk.Cash ($M)", _M, scale=1e6),
    Column("final_cash", "End.Cash ($M)", _M, scale=1e6),
    Column("low_cash", "Low.Cash ($M)", _M, scale=1e6),
    Column("tools_per_month", "T/Mo", "{:.1f}"),
    Column("fr_attempt_pct", "FR.A%", "{:.1f}"),
    Column("book_closing_pct", "BC%", "{:.1f}"),
    Column("pass_pct", "Pass%", "{:.1f}"),
]

#: What each column's label means, printed under the tables (``bizbench report``).
LEGEND: dict[str, str] = {
    "score": "eq 2: Rev_TTM x 5 + cash - $5,000 x tool calls; 0 if cash fell below 0",
    "normalised": "0 = always-pass on the run's world, 1 = the human experts' $152.2M (paper scoring only)",
    "score_net_of_debt": "eq 2 with the cash net of the debt still owed at the end",
    "debt_outstanding": "debt principal still owed at the end",
    "survival_pct": "runs that played every month without cash below 0",
    "months": "months survived",
    "equity_raised": "equity received",
    "debt_raised": "debt received",
    "total_raised": "equity + debt received",
    "fr_success_pct": "successful fundraising requests / requests (one still pending counts as not successful)",
    "peak_cash": "highest month-end cash",
    "final_cash": "cash at the end",
    "low_cash": "lowest month-end cash",
    "tools_per_month": "budgeted tool calls per month played",
    "fr_attempt_pct": "months whose action was a fundraising request",
    "fr_success_action_pct": "months whose request later succeeded",
    "book_closing_pct": "months whose action was book_closing",
    "passes": "months whose action was pass",
    "pass_pct": "months whose action was pass, as a share",
    "cost_usd": "model API cost",
}


# ---------------------------------------------------------------------------- plots
ACTIONS = ("fund_raising_request", "book_closing", "pass")


def plots(models: Mapping[str, Sequence[Run]]) -> list[Chart]:
    """Cash by month with model means (Fig 4) and the cumulative monthly actions (Figs 2-3)."""
    cash = metric_series(models, "month", "cash")
    counts = {
        action: {k: [[float(d.get("action") == action) for d in r.metrics] for r in v] for k, v in models.items()}
        for action in ACTIONS
    }
    return [
        Chart("cash", "runs", "cfo: cash by month", cash, "month", "cash ($M)", 1e6),
        Chart("actions", "cumulative", "cfo: actions over time (EnterpriseArena Fig 2-3)", counts, "month"),
    ]
