"""The yc env's report module (docs/reports.md): YC-Bench Table 3 (behaviour), Table 4 (cost)
and Fig 4-5 from a run directory, its normalisation anchors and its plots.

Score: ``final_funds`` (the common ``score``; format-1 runs keep it only as ``final_funds``).
Anchors: 0 = the ``do-nothing`` baseline, 1 = the ``heuristic`` baseline, both on the run's
world.

* **SP/100T** (Table 3): scratchpad writes (``scratchpad_write`` and ``scratchpad_append``,
  accepted) per 100 turns.
* **Inspect/Accept** (Table 3): accepted ``task_inspect`` calls over accepted
  ``task_accept`` calls (missing when nothing was accepted).
* **Avg Conc.** (Table 3, "mean simultaneously active tasks"): the mean over turns of the
  dispatched tasks in progress at the end of each turn, from metrics.jsonl's
  ``active_task_count`` (one line per turn; a run whose harness wrote only the closing line
  gives that one value).
* **Cmd/Turn** (Table 3, "commands executed per turn"): commands in actions.jsonl per turn,
  not counting the harness's own ``sim resume`` after idle turns (trajectory
  ``auto_advance`` events).
* **Adversarial acceptance** (Fig 4a): tasks accepted from adversarial clients over all
  accepted tasks (%); the paper's market share of adversarial tasks is ~32 %.
* **Failure causes** (Fig 5a): failed tasks by cause, from result.json's ``evaluation``
  (:mod:`bizbench.envs.yc.evaluation` defines the causes).
* **Cost, tokens, runtime** (Table 4): result.json's ``cost_usd``, input + output tokens and
  ``wall_seconds`` in minutes.

The hidden facts (adversarial clients, failure causes, final trust) come from result.json's
``evaluation``, written at the end of runs since it was added; older runs show them missing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from bizbench.core.reporting import Chart, Column
from bizbench.core.runs import Run
from bizbench.envs.yc.evaluation import FAILURE_CAUSES

__all__ = ["ANCHOR_LABELS", "ONE_ANCHOR", "PER_RUN", "SCORE_KEYS", "TABLES", "ZERO_ANCHOR", "plots", "run_metrics"]

#: the headline score: the common ``score`` (final funds), or ``final_funds`` in format-1 runs
SCORE_KEYS = ("score", "final_funds")
ZERO_ANCHOR = "do-nothing"
ONE_ANCHOR = "heuristic"
ANCHOR_LABELS = ("do-nothing baseline", "heuristic baseline")


def _count(run: Run, *tools: str) -> int:
    return sum(1 for a in run.actions if a.get("tool") in tools and a.get("ok"))


def _ratio(num: float | None, den: float | None, scale: float = 1.0) -> float | None:
    return None if num is None or not den else num / den * scale


def run_metrics(run: Run, facts: dict[str, Any] | None = None) -> dict[str, float | None]:
    """One finished yc run's values (None = not measurable)."""
    turns = run.get("turns")
    evaluation = run.get("evaluation") or {}
    causes = evaluation.get("failure_causes") or {}
    active = [m["active_task_count"] for m in run.metrics if "active_task_count" in m]
    auto = sum(1 for e in run.trajectory if e.get("kind") == "auto_advance")
    tokens = run.get("tokens") or {}
    accepted = run.get("tasks_accepted")
    adversarial = evaluation.get("tasks_accepted_adversarial")
    wall = run.get("wall_seconds")
    out: dict[str, float | None] = {
        "final_funds": run.get("final_funds"),
        "bankrupt": float(bool(run.get("bankrupt"))),
        "turns": turns,
        "sp_per_100_turns": _ratio(_count(run, "scratchpad_write", "scratchpad_append"), turns, 100),
        "inspect_per_accept": _ratio(_count(run, "task_inspect"), _count(run, "task_accept")),
        "avg_concurrency": sum(active) / len(active) if active else None,
        "cmds_per_turn": _ratio(len(run.actions) - auto, turns),
        "adversarial_pct": _ratio(adversarial, accepted, 100),
        "tasks_failed": run.get("tasks_failed"),
        "cost_usd": run.model_cost,
        "tokens": tokens.get("input_tokens", 0) + tokens.get("output_tokens", 0) if tokens else None,
        "runtime_min": wall / 60 if wall is not None else None,
    }
    for cause in FAILURE_CAUSES:
        out[f"fail_{cause}"] = causes.get(cause) if causes else None
    return out


_FAILURES = [Column(f"fail_{c}", c.replace("_", " "), "{:.1f}", "mean", "Fig 5a") for c in FAILURE_CAUSES]

#: (CSV file stem, title, columns) of each aggregate table
TABLES: list[tuple[str, str, list[Column]]] = [
    (
        "table3",
        "YC-Bench results and Table 3: behaviour",
        [
            Column("final_funds", "Final funds ($)", "{:,.0f}", "mean", "Fig 1"),
            Column("bankrupt", "Bankrupt", "{:.0f}", "sum", "Table 4"),
            Column("normalised", "Normalised score", "{:.3f}", "mean", "protocol"),
            Column("sp_per_100_turns", "SP/100T", "{:.1f}", "mean", "Table 3"),
            Column("inspect_per_accept", "Inspect/Accept", "{:.2f}", "mean", "Table 3"),
            Column("avg_concurrency", "Avg Conc.", "{:.1f}", "mean", "Table 3"),
            Column("cmds_per_turn", "Cmd/Turn", "{:.2f}", "mean", "Table 3"),
            Column("adversarial_pct", "Adversarial accepted (%)", "{:.1f}", "mean", "Fig 4a"),
        ],
    ),
    (
        "table4",
        "YC-Bench Table 4 (cost) and Fig 5a (failed tasks by cause, per run)",
        [
            Column("cost_usd", "Cost ($)", "{:.2f}", "mean", "Table 4"),
            Column("tokens", "Tokens (M)", "{:.2f}", "mean", "Table 4", scale=1e6),
            Column("runtime_min", "Runtime (min)", "{:.1f}", "mean", "Table 4"),
            Column("tasks_failed", "Failed tasks", "{:.1f}", "mean", "Fig 5a"),
            *_FAILURES,
        ],
    ),
]

PER_RUN: list[Column] = [
    Column("final_funds", "Final funds ($)", "{:,.0f}"),
    Column("bankrupt", "Bankrupt", "{:.0f}"),
    Column("normalised", "Norm.", "{:.3f}"),
    Column("turns", "Turns", "{:.0f}"),
    Column("sp_per_100_turns", "SP/100T", "{:.1f}"),
    Column("inspect_per_accept", "Insp/Acc", "{:.2f}"),
    Column("avg_concurrency", "Conc.", "{:.1f}"),
    Column("cmds_per_turn", "Cmd/Turn", "{:.2f}"),
    Column("adversarial_pct", "Adv. %", "{:.1f}"),
    Column("tasks_failed", "Failed", "{:.0f}"),
    Column("cost_usd", "Cost ($)", "{:.2f}"),
    Column("tokens", "Tokens (M)", "{:.2f}", scale=1e6),
]


# ---------------------------------------------------------------------------- plots
def _days(metrics: list[dict[str, Any]]) -> list[float]:
    """Days into the year of each turn's status line."""
    times = [datetime.fromisoformat(d["time"]) for d in metrics]
    if not times:
        return []
    start = times[0].replace(month=1, day=1, hour=0, minute=0)
    return [(t - start).total_seconds() / 86400 for t in times]


def plots(models: Mapping[str, Sequence[Run]]) -> list[Chart]:
    """Funds of every run with model means (Fig 2) and final trust per client (Fig 3b)."""
    funds = {k: [(_days(r.metrics), [d["funds_cents"] / 100 for d in r.metrics]) for r in v] for k, v in models.items()}
    charts = [Chart("funds", "runs", "yc: funds over time", funds, "days into the year", "funds ($K)", 1e3)]
    trust: dict[str, dict[str, float]] = {}
    adversarial: dict[str, set[str]] = {}
    for model, runs in models.items():
        values: dict[str, list[float]] = defaultdict(list)
        for r in runs:
            for c in (r.get("evaluation") or {}).get("clients", []):
                flagged = c.get("adversarial")  # absent for held-out worlds
                label = c["name"] + (" (ADV)" if flagged else "")
                values[label].append(c["trust"])
                if flagged:
                    adversarial.setdefault(model, set()).add(label)
        if values:
            trust[model] = {k: sum(v) / len(v) for k, v in values.items()}
    if trust:
        title = "yc: final trust per client (mean over runs; hatched = adversarial)"
        charts.append(Chart("trust", "bars", title, trust, "trust (0-5)", top=None, highlight=adversarial))
    return charts
