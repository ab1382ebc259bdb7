"""The ceo env's report module (docs/reports.md): CEO-Bench Table 3 and the section 3.4 skill
measures from a run directory, its normalisation anchors and its plots.

Score: ``final_cash`` (the common ``score``; format-1 runs keep it only as ``final_cash``).
Anchors: 0 = the ``do-nothing`` baseline on the run's world; 1 = the Appendix D upper-bound
estimate of the run's config (:func:`bizbench.envs.ceo.upper_bound.estimate`, ``reported``;
$2.28B on ``default``).

Table 3 (per model over its runs): bankruptcies, max final cash, max and mean survival
days, turns per week, API cost. Section 3.4 isolates skills; each is computed per run:

* **Best-channel ad share** ("Uncovering hidden information", Fig 12a): for each customer
  group with ad spend, the share of its dollars spent on its best channel, averaged over
  those groups (%; random guessing over five channels is 20 %). Dollars are rebuilt from
  ``set_targeted_ad_spend`` calls in actions.jsonl (the ledger books advertising as one
  total): a call's daily table holds from the day it is made until the next call or the
  run's end. The best channel is the one with the most expected leads per $1,000 in the
  run's config (reference-notes §3.1, ``channel_leads``); the table's later +-5 % noise (reference-notes §3.2) is
  not tracked.
* **4-week forecast error** ("Seeing into the future", Fig 12b): the mean absolute
  percentage error of the ``cash_4wk`` point forecasts submitted in the first four weeks
  (submission day < 28) against the cash 28 days later, scored like result.json's
  ``forecast_errors`` (:func:`bizbench.envs.ceo.forecasts.forecast_errors`). Missing when
  no such forecast reached its day (baselines submit none).
* **Days to "competitor"** ("Speed of adaptation", Fig 12c): days from the first competitor
  event to the first later mention of "competitor" (case-insensitive, so "competitors" and
  "Competitor's" count) in the agent's own text: next_week rationales, the text of its model
  replies and the files it writes (write_file / edit_file). Event days are hidden; they are
  re-created from the run's config and seed (:func:`competitor_event_days`). Missing when
  the run has no agent text, ended before the first event, or never mentions it.
* **"if" per 1,000 words** ("Planning", Fig 12d): whole-word, case-insensitive "if" per
  1,000 words of the agent's memos: its next_week rationales and the files it writes. Per
  1,000 words (not per memo) so long and short memos weigh by their length.
* **Targeted development share** ("Taking fine-grained actions", Fig 10): targeted
  (group-specific) development dollars over all development dollars, from ledger.csv (%).
* **Tool calls per week** (Fig 11): tool calls in actions.jsonl (a baseline's
  ``next_turn`` is not a tool) per simulated week survived; :func:`tool_counts` gives the
  per-tool split for the plot.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bizbench.core.reporting import Chart, Column, metric_series, slug
from bizbench.core.runs import Run
from bizbench.envs.ceo.viewer import list_prices

__all__ = [
    "ANCHOR_LABELS",
    "ANCHOR_WORLD_OPTIONS",
    "ONE_ANCHOR",
    "PER_RUN",
    "SCORE_KEYS",
    "TABLES",
    "ZERO_ANCHOR",
    "agent_texts",
    "best_channel_share",
    "competitor_event_days",
    "plots",
    "run_metrics",
    "tool_counts",
    "upper_bound",
    "world_facts",
]

_MEMO_TOOLS = {"write_file": ("content",), "edit_file": ("new",)}
_WORD = re.compile(r"[A-Za-z0-9_']+")
_IF = re.compile(r"\bif\b", re.IGNORECASE)


def competitor_event_days(config: Any, seed: int) -> list[int]:
    """The days competitor events fire in the run's world (hidden; for the adaptation measure).

    The event draws come from the world's own ``competitor`` stream, one uniform draw per day
    plus a fixed number per event (reference-notes §4.16), and whether an event fires depends only on the
    day and the previous event: the timing does not depend on what the agent did (the size
    does). So stepping only that mechanic over the horizon gives the run's event days."""
    from bizbench.core.rng import secret_from_env, world_entropy
    from bizbench.envs.ceo.world import competitor
    from bizbench.envs.ceo.world.judge import RuleJudge
    from bizbench.envs.ceo.world.posttext import TEMPLATE_WRITER
    from bizbench.envs.ceo.world.world import World

    # the competitor's schedule does not depend on the posts' judge or writer: the deterministic ones
    world = World(config, world_entropy(seed, secret_from_env()), RuleJudge(), TEMPLATE_WRITER)
    state, rng = world.state, world.streams.get("competitor")
    for day in range(1, config.horizon_days + 1):
        state.day = day
        competitor.maybe_fire(state, world.params, rng)
    return [int(e["day"]) for e in state.competitor_events]


def _weeks(run: Run) -> float | None:
    days = run.get("days_survived")
    return days / 7 if days else None


def _ok_calls(run: Run, tool: str) -> list[dict[str, Any]]:
    return [a for a in run.actions if a.get("tool") == tool and a.get("ok")]


AUTO_ADVANCE = "[auto_advance"  # the terminal harness's own next_week (no forecast from the agent)


def _weeks_submitted(run: Run) -> list[tuple[int, dict[str, Any]]]:
    """(day submitted, arguments) of the agent's accepted next_week calls. actions.jsonl logs a
    call once it returns, with the day it advanced to, so a week was submitted on the day the
    previous one ended (0 for the first). The harness's auto-advances are left out."""
    out, start = [], 0
    for a in _ok_calls(run, "next_week"):
        args = a.get("args") or {}
        if not str(args.get("rationale", "")).startswith(AUTO_ADVANCE):
            out.append((start, args))
        start = int(a.get("day", start))
    return out


def _ad_tables(run: Run, group_ids: list[str], channels: tuple[str, ...]) -> list[tuple[int, np.ndarray]]:
    """(day, [group, channel] $/day) of every accepted set_targeted_ad_spend call."""
    g_index, c_index = {g: i for i, g in enumerate(group_ids)}, {c: i for i, c in enumerate(channels)}
    out = []
    for a in _ok_calls(run, "set_targeted_ad_spend"):
        spend = (a.get("args") or {}).get("targeted_spend") or {}
        table = np.zeros((len(group_ids), len(channels)))
        group_outer = bool(spend) and all(k in g_index for k in spend)  # the tool accepts both nestings
        for outer, inner in spend.items():
            for key, dollars in (inner or {}).items():
                g, c = (outer, key) if group_outer else (key, outer)
                if g in g_index and c in c_index:
                    table[g_index[g], c_index[c]] = float(dollars)
        out.append((int(a.get("day", 0)), table))
    return out


def best_channel_share(run: Run) -> float | None:
    """Section 3.4 best-channel share (%), see the module docstring."""
    from bizbench.envs.ceo.config import CHANNELS

    groups = run.inner_config.get("groups") or []
    if not groups:
        return None
    ids = [g["id"] for g in groups]
    leads = np.array([[g["channel_leads"][c] for c in CHANNELS] for g in groups], dtype=float)
    best = leads.argmax(axis=1)
    end = int(run.get("days_survived") or 0)
    tables = _ad_tables(run, ids, CHANNELS)
    if not tables:  # never set targeted ad spend: no share to measure
        return None
    dollars = np.zeros_like(leads)
    for (day, table), nxt in zip(tables, [t[0] for t in tables[1:]] + [end], strict=True):
        dollars += table * max(0, min(nxt, end) - day)
    per_group = dollars.sum(axis=1)
    spent = per_group > 0
    if not spent.any():
        return None
    on_best = dollars[np.arange(len(ids)), best]
    return float(np.mean(on_best[spent] / per_group[spent]) * 100)


def _given(forecast: dict[str, Any], bound: str) -> Any:
    """A forecast's interval bound, or its point when the bound is missing."""
    value = forecast.get(bound)
    return forecast["point"] if value is None else value


def forecast_error_4wk(run: Run) -> float | None:
    """Section 3.4 early 4-week forecast error (MAPE %, first four weeks' submissions)."""
    from bizbench.envs.ceo.forecasts import forecast_errors

    predictions = []
    for day, args in _weeks_submitted(run):
        f = (args.get("predictions") or {}).get("cash_4wk")
        if day < 28 and isinstance(f, dict) and "point" in f:
            predictions.append(
                {
                    "submit_day": day,
                    "horizon_days": 28,
                    "metric": "cash",
                    "predicted_value": float(f["point"]),
                    "predicted_lower": float(_given(f, "lower")),
                    "predicted_upper": float(_given(f, "upper")),
                }
            )
    mape = forecast_errors(predictions, run.metrics)["4wk"]["mape_pct"]
    return None if mape is None else float(mape)


def agent_texts(run: Run, memos_only: bool = False) -> list[tuple[int, str]]:
    """(day, text) the agent wrote: next_week rationales, files it wrote and (unless
    ``memos_only``) its replies. Baselines write none."""
    texts = []
    for day, args in _weeks_submitted(run):
        rationale = args.get("rationale")
        if isinstance(rationale, str):
            texts.append((day, rationale))
    for e in run.trajectory:
        when = e.get("day")
        if not isinstance(when, int):
            continue
        if e.get("kind") == "model_call" and not memos_only and isinstance(e.get("content"), str):
            texts.append((when, e["content"]))
        elif e.get("kind") == "tool_call" and e.get("ok") and e.get("name") in _MEMO_TOOLS:
            args = e.get("arguments") or {}
            texts.extend((when, args[k]) for k in _MEMO_TOOLS[e["name"]] if isinstance(args.get(k), str))
    return sorted(texts, key=lambda t: t[0])


def days_to_competitor_mention(run: Run, event_days: list[int] | None) -> float | None:
    """Section 3.4 adaptation speed (days), see the module docstring."""
    if not event_days:
        return None
    first = min(event_days)
    if first > int(run.get("days_survived") or 0):
        return None
    mentions = [day for day, text in agent_texts(run) if day >= first and "competitor" in text.lower()]
    return float(min(mentions) - first) if mentions else None


def if_per_1000_words(run: Run) -> float | None:
    """Section 3.4 planning: "if" per 1,000 words of memos."""
    memos = [text for _, text in agent_texts(run, memos_only=True)]
    words = sum(len(_WORD.findall(t)) for t in memos)
    if words == 0:
        return None
    return sum(len(_IF.findall(t)) for t in memos) / words * 1000


def targeted_dev_share(run: Run) -> float | None:
    """Fig 10: targeted development dollars / all development dollars (%)."""
    dev = [r for r in run.ledger if r.get("category") == "development"]
    total = sum(-float(r["amount"]) for r in dev)
    if total <= 0:
        return None
    return sum(-float(r["amount"]) for r in dev if r.get("note") == "targeted") / total * 100


def tool_counts(run: Run) -> Counter[str]:
    """Tool calls by name (Fig 11); a baseline's ``next_turn`` is a turn, not a tool."""
    return Counter(str(a.get("tool")) for a in run.actions if a.get("tool") != "next_turn")


def run_metrics(run: Run, facts: dict[str, Any] | None) -> dict[str, float | None]:
    """One finished ceo run's Table 3 and section 3.4 values (None = not measurable)."""
    weeks = _weeks(run)
    model_calls = run.get("model_calls")
    tools = sum(tool_counts(run).values())
    return {
        "final_cash": run.get("final_cash"),
        "bankrupt": float(bool(run.get("bankrupt"))),
        "days_survived": run.get("days_survived"),
        "turns_per_week": model_calls / weeks if model_calls is not None and weeks else None,
        "cost_usd": run.model_cost,
        "best_channel_pct": best_channel_share(run),
        "forecast_ape_4wk_pct": forecast_error_4wk(run),
        "competitor_days": days_to_competitor_mention(run, (facts or {}).get("competitor_event_days")),
        "if_per_1000_words": if_per_1000_words(run),
        "targeted_dev_pct": targeted_dev_share(run),
        "tools_per_week": tools / weeks if weeks else None,
    }


_MONEY = "{:,.0f}"
#: (CSV file stem, title, columns) of each aggregate table
TABLES: list[tuple[str, str, list[Column]]] = [
    (
        "table3",
        "CEO-Bench Table 3: results",
        [
            Column("bankrupt", "Bankruptcies", "{:.0f}", "sum", "Table 3"),
            Column("final_cash", "Max final cash ($)", _MONEY, "max", "Table 3"),
            Column("final_cash", "Final cash ($)", _MONEY, "mean", "Table 3"),
            Column("days_survived", "Max survival days", "{:.0f}", "max", "Table 3"),
            Column("days_survived", "Mean survival days", "{:.1f}", "mean", "Table 3"),
            Column("days_survived", "Survival days std", "{:.1f}", "std", "Table 3"),
            Column("turns_per_week", "Turns/week", "{:.1f}", "mean", "Table 3"),
            Column("cost_usd", "Mean API cost ($)", "{:.2f}", "mean", "Table 3 (there: the best run's)"),
            Column("normalised", "Normalised score", "{:.3f}", "mean", "protocol"),
        ],
    ),
    (
        "skills",
        "CEO-Bench section 3.4: skill measures",
        [
            Column("best_channel_pct", "Best-channel ad share (%)", "{:.1f}", "mean", "§3.4, Fig 12a"),
            Column("forecast_ape_4wk_pct", "4-week forecast error (%)", "{:.1f}", "mean", "§3.4, Fig 12b"),
            Column("competitor_days", "Days to 'competitor'", "{:.1f}", "mean", "§3.4, Fig 12c"),
            Column("if_per_1000_words", "'if' per 1k words", "{:.2f}", "mean", "§3.4, Fig 12d"),
            Column("targeted_dev_pct", "Targeted dev share (%)", "{:.1f}", "mean", "§3.4, Fig 10"),
            Column("tools_per_week", "Tool calls/week", "{:.1f}", "mean", "Fig 11"),
        ],
    ),
]

PER_RUN: list[Column] = [
    Column("final_cash", "Final cash ($)", _MONEY),
    Column("bankrupt", "Bankrupt", "{:.0f}"),
    Column("days_survived", "Days", "{:.0f}"),
    Column("turns_per_week", "Turns/week", "{:.1f}"),
    Column("cost_usd", "Cost ($)", "{:.2f}"),
    Column("normalised", "Norm.", "{:.3f}"),
    Column("best_channel_pct", "Best ch. %", "{:.1f}"),
    Column("forecast_ape_4wk_pct", "4wk APE %", "{:.1f}"),
    Column("competitor_days", "Comp. days", "{:.0f}"),
    Column("if_per_1000_words", "if/1k", "{:.2f}"),
    Column("targeted_dev_pct", "Tgt dev %", "{:.1f}"),
    Column("tools_per_week", "Tools/wk", "{:.1f}"),
]


# ---------------------------------------------------------------------------- score and anchors
#: the headline score: the common ``score`` (final cash), or ``final_cash`` in format-1 runs
SCORE_KEYS = ("score", "final_cash")
ZERO_ANCHOR = "do-nothing"
ANCHOR_LABELS = ("do-nothing baseline", "Appendix D upper bound")
#: the anchor baseline writes no company.db (about 1 s for 500 days)
ANCHOR_WORLD_OPTIONS = {"database": False}


def upper_bound(run: Run) -> tuple[float | None, str]:
    """The one anchor: the Appendix D upper-bound estimate of the run's own config (its
    horizon included), a function of the config alone."""
    from bizbench.envs.ceo.config import CeoConfig
    from bizbench.envs.ceo.upper_bound import estimate

    return float(estimate(CeoConfig.model_validate(run.inner_config)).reported), ""


ONE_ANCHOR = upper_bound


def world_facts(run: Run) -> dict[str, Any]:
    """The hidden facts the measures need, from the run's re-created world: the competitor
    event days (for "days to 'competitor'")."""
    from bizbench.envs.ceo.config import CeoConfig

    return {"competitor_event_days": competitor_event_days(CeoConfig.model_validate(run.inner_config), run.seed)}


# ---------------------------------------------------------------------------- plots
def _best_run(runs: Sequence[Run]) -> Run:
    """CEO-Bench section 3.1 result selection: the richest run that avoided bankruptcy and played
    to its horizon (a run that ended early is a failed run, docs/reports.md), else the one that
    survived longest."""
    alive = [r for r in runs if not r.get("bankrupt") and not r.ended_early]
    if alive:
        return max(alive, key=lambda r: r.get("final_cash") or 0.0)
    return max(runs, key=lambda r: r.get("days_survived") or 0)


def _customers(run: Run) -> tuple[list[float], dict[str, list[float]]]:
    """Days and subscribers + seats of each group, from metrics.jsonl (Fig 9)."""
    metrics = run.metrics
    by_group = [(d.get("subscribers_by_group", {}), d.get("seats_by_group", {})) for d in metrics]
    groups = sorted({g for subs, seats in by_group for g in (*subs, *seats)})
    layers = {g: [subs.get(g, 0) + seats.get(g, 0) for subs, seats in by_group] for g in groups}
    return [d["day"] for d in metrics], layers


def plots(models: Mapping[str, Sequence[Run]]) -> list[Chart]:
    """Cash of every run with model means (Figs 2-3), customers by group of each model's best
    run (Fig 9) and tool calls per week (Fig 11)."""
    cash = metric_series(models, "day", "cash")
    charts = [Chart("cash", "runs", "ceo: cash over time", cash, "simulated day", "cash ($M)", 1e6)]
    for model, runs in models.items():
        best = _best_run(runs)
        title = f"ceo: customers by group, best run of {model} (seed {best.seed})"
        name, layers = f"customers_{slug(model)}", _customers(best)
        charts.append(Chart(name, "stacked", title, layers, "simulated day", "subscribers + seats"))
    usage: dict[str, dict[str, float]] = {}
    for model, runs in models.items():
        total: Counter[str] = Counter()
        for r in runs:
            weeks = (r.get("days_survived") or 0) / 7
            if weeks:
                total.update({k: v / weeks / len(runs) for k, v in tool_counts(r).items()})
        usage[model] = dict(total)
    charts.append(Chart("tools", "bars", "ceo: tool calls per week (top 10)", usage, "calls/week"))
    return charts


def arena_plots(seats: Sequence[Run]) -> list[Chart]:
    """One arena's companies (docs/arena.md): each one's share of the market's subscribers over
    time and of each group's at the end, and the list price of each plan over time (from the
    ``set_prices`` calls its record holds)."""
    names = [f"seat {i}: {run.agent}" for i, run in enumerate(seats)]
    days = [[d["day"] for d in run.metrics] for run in seats]
    counts = [[float(d["subscribers"]) for d in run.metrics] for run in seats]
    horizon = max((len(c) for c in counts), default=0)
    totals = [sum(c[t] for c in counts if t < len(c)) for t in range(horizon)]
    share = {
        name: [(x, [100.0 * n / totals[t] if totals[t] else 0.0 for t, n in enumerate(c)])]
        for name, x, c in zip(names, days, counts, strict=True)
    }
    charts = [
        Chart("share", "runs", "ceo arena: share of the market's subscribers", share, "simulated day", "share (%)")
    ]
    last = [run.metrics[-1].get("subscribers_by_group", {}) if run.metrics else {} for run in seats]
    groups = sorted({g for by_group in last for g, n in by_group.items() if n})
    by_group = {
        name: {g: 100.0 * own.get(g, 0) / sum(b.get(g, 0) for b in last) for g in groups}
        for name, own in zip(names, last, strict=True)
    }
    title = "ceo arena: each company's share of each group's subscribers at the end"
    charts.append(Chart("group_share", "bars", title, by_group, "share of the group (%)", top=12))
    for plan in range(3):
        prices = {
            name: [_price_steps(run, plan, x[-1] if x else 0)] for name, run, x in zip(names, seats, days, strict=True)
        }
        label = "ABC"[plan]
        charts.append(
            Chart(
                f"price_{label}", "runs", f"ceo arena: list price of plan {label}", prices, "simulated day", "$ / month"
            )
        )
    return charts


def _price_steps(run: Run, plan: int, last_day: int) -> tuple[list[float], list[float]]:
    """Plan ``plan``'s list price from day 0 to ``last_day``, stepping at each accepted ``set_prices``."""
    changes = list_prices(run.actions)
    x = [day for day, _ in changes] + [float(last_day)]
    y = [prices["ABC"[plan]] for _, prices in changes]
    return x, y + y[-1:]
