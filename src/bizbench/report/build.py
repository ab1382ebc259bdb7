"""``bizbench report``: run directories in, the papers' tables and plots out.

:func:`build_report` loads the runs (:mod:`.loader`), measures each finished run with its
env's module (:mod:`.metrics_ceo`, :mod:`.metrics_yc`, :mod:`.metrics_cfo`), adds the
normalised score (:mod:`.protocol`), aggregates the runs of each (env, preset, agent/model)
group (:mod:`.aggregate`) and writes, into the output directory, one CSV per table, the
plots (PNG), ``report.md`` (what stdout shows) and ``report.html`` (one self-contained page).

Unfinished runs (no result.json yet) are listed under their path and left out of every
table, plot and aggregate; they never fail the report. Groups are sorted by their mean
headline score, best first.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from bizbench.report import metrics_ceo, metrics_cfo, metrics_yc, plots
from bizbench.report.aggregate import Column, aggregate, group_runs, summarise
from bizbench.report.loader import Run, find_runs
from bizbench.report.protocol import ANCHOR_SOURCES, AnchorCache, Anchors, anchors_for, normalise, score, world_facts
from bizbench.report.tables import Table, aggregate_table, html_page, per_run_table, to_markdown, write_csv

__all__ = ["ENV_ORDER", "Measured", "Report", "build_report"]

ENV_MODULES: dict[str, ModuleType] = {"ceo": metrics_ceo, "yc": metrics_yc, "cfo": metrics_cfo}
ENV_ORDER = ("ceo", "yc", "cfo")
ENV_TITLES = {"ceo": "CEO-Bench (ceo)", "yc": "YC-Bench (yc)", "cfo": "EnterpriseArena (cfo)"}


@dataclass
class Measured:
    """A finished run with its measures and anchors."""

    run: Run
    metrics: dict[str, Any]
    anchors: Anchors


@dataclass
class Report:
    title: str
    sections: list[tuple[str, list[Table], list[Path]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    measured: list[Measured] = field(default_factory=list)
    unfinished: list[Run] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def markdown(self, per_run: bool = True) -> str:
        parts = [f"# {self.title}", ""]
        parts += [f"- {n}" for n in self.notes]
        for heading, tables, images in self.sections:
            parts += ["", f"## {heading}", ""]
            for t in tables:
                if per_run or not t.name.endswith("_runs"):
                    parts.append(to_markdown(t))
            if images:
                parts.append("Plots: " + ", ".join(p.name for p in images) + "\n")
        return "\n".join(parts)


def _model_label(run: Run, presets: set[str]) -> str:
    return run.agent if len(presets) <= 1 else f"{run.agent} [{run.preset}]"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40]


def _measure(run: Run, cache: AnchorCache | None) -> Measured:
    module = ENV_MODULES[run.env]
    facts = world_facts(run, cache) if run.env == "ceo" else None
    anchors = anchors_for(run, cache)
    metrics = dict(module.run_metrics(run, facts))
    metrics["score"] = score(run)
    metrics["normalised"] = normalise(metrics["score"], anchors)
    return Measured(run, metrics, anchors)


def _env_tables(env: str, rows: list[Measured]) -> list[Table]:
    module = ENV_MODULES[env]
    groups = group_runs(rows, lambda m: m.run.group_key)

    def mean_score(item: tuple[Any, list[Any]]) -> float:
        value = summarise(m.metrics["score"] for m in item[1]).value
        return value if value is not None else -math.inf

    ranked = sorted(groups.items(), key=mean_score, reverse=True)
    out = []
    for name, title, columns in module.TABLES:
        summaries = [(key, len(ms), aggregate([m.metrics for m in ms], columns)) for key, ms in ranked]
        notes = ["mean ± 95 % Student-t half-width over runs; n = runs in the group; – = not measurable"]
        out.append(aggregate_table(title, f"{env}_{name}", columns, summaries, notes))
    out.append(_anchor_table(env, rows))
    runs = sorted(rows, key=lambda m: (m.run.preset, m.run.agent, m.run.seed, str(m.run.path)))
    cells = [([m.run.agent, str(m.run.seed), str(m.run.get("ended_by", "")), str(m.run.path)], m.metrics) for m in runs]
    out.append(per_run_table(f"{ENV_TITLES[env]}: every run", f"{env}_runs", module.PER_RUN, cells))
    return out


def _anchor_table(env: str, rows: list[Measured]) -> Table:
    zero_name, one_name = ANCHOR_SOURCES[env]
    seen: dict[tuple[str, int, float | None, float | None, str], None] = {}
    for m in rows:
        seen[(m.run.preset, m.run.seed, m.anchors.zero, m.anchors.one, m.anchors.note)] = None
    money = Column("x", "x", "{:,.0f}")
    header = ["preset", "seed", f"0 = {zero_name}", f"1 = {one_name}", "note"]
    shown = [[p, str(s), money.show(z), money.show(o), n] for p, s, z, o, n in seen]
    raw = [[p, s, z, o, n] for p, s, z, o, n in seen]
    return Table(f"{ENV_TITLES[env]}: normalisation anchors", f"{env}_anchors", header, shown, header, raw)


def _by_model(rows: list[Measured]) -> dict[str, list[Measured]]:
    presets = {m.run.preset for m in rows}
    grouped: dict[str, list[Measured]] = defaultdict(list)
    for m in rows:
        grouped[_model_label(m.run, presets)].append(m)
    return dict(grouped)


def _best_run(rows: list[Measured]) -> Measured:
    """CEO-Bench section 3.1 result selection: the richest run that avoided bankruptcy, else
    the one that survived longest."""
    alive = [m for m in rows if not m.run.get("bankrupt")]
    if alive:
        return max(alive, key=lambda m: m.run.get("final_cash") or 0.0)
    return max(rows, key=lambda m: m.run.get("days_survived") or 0)


def _plots_ceo(rows: list[Measured], out: Path) -> list[Path]:
    models = _by_model(rows)
    series = {
        k: [([d["day"] for d in m.run.metrics], [d["cash"] for d in m.run.metrics]) for m in v]
        for k, v in models.items()
    }
    files = [
        plots.plot_runs_by_model(series, out / "ceo_cash.png", "ceo: cash over time", "simulated day", "cash ($M)", 1e6)
    ]
    for model, ms in models.items():
        best = _best_run(ms)
        metrics = best.run.metrics
        groups = sorted(
            {g for d in metrics for g in (*d.get("subscribers_by_group", {}), *d.get("seats_by_group", {}))}
        )
        layers = {
            g: [d.get("subscribers_by_group", {}).get(g, 0) + d.get("seats_by_group", {}).get(g, 0) for d in metrics]
            for g in groups
        }
        title = f"ceo: customers by group, best run of {model} (seed {best.run.seed})"
        path = out / f"ceo_customers_{_slug(model)}.png"
        files.append(
            plots.plot_stacked_by_group([d["day"] for d in metrics], layers, path, title, "subscribers + seats")
        )
    usage: dict[str, dict[str, float]] = {}
    for model, ms in models.items():
        total: Counter[str] = Counter()
        for m in ms:
            weeks = (m.run.get("days_survived") or 0) / 7
            if weeks:
                total.update({k: v / weeks / len(ms) for k, v in metrics_ceo.tool_counts(m.run).items()})
        usage[model] = dict(total)
    files.append(
        plots.plot_bars_by_model(usage, out / "ceo_tools.png", "ceo: tool calls per week (top 10)", "calls/week")
    )
    return files


def _yc_days(metrics: list[dict[str, Any]]) -> list[float]:
    times = [datetime.fromisoformat(d["time"]) for d in metrics]
    if not times:
        return []
    start = times[0].replace(month=1, day=1, hour=0, minute=0)
    return [(t - start).total_seconds() / 86400 for t in times]


def _plots_yc(rows: list[Measured], out: Path) -> list[Path]:
    models = _by_model(rows)
    series = {
        k: [(_yc_days(m.run.metrics), [d["funds_cents"] / 100 for d in m.run.metrics]) for m in v]
        for k, v in models.items()
    }
    files = [
        plots.plot_runs_by_model(
            series, out / "yc_funds.png", "yc: funds over time", "days into the year", "funds ($K)", 1e3
        )
    ]
    trust: dict[str, dict[str, float]] = {}
    adversarial: dict[str, set[str]] = {}
    for model, ms in models.items():
        values: dict[str, list[float]] = defaultdict(list)
        for m in ms:
            for c in (m.run.get("evaluation") or {}).get("clients", []):
                flagged = c.get("adversarial")  # absent for held-out worlds
                label = c["name"] + (" (ADV)" if flagged else "")
                values[label].append(c["trust"])
                if flagged:
                    adversarial.setdefault(model, set()).add(label)
        if values:
            trust[model] = {k: sum(v) / len(v) for k, v in values.items()}
    if trust:
        title = "yc: final trust per client (mean over runs; hatched = adversarial)"
        files.append(plots.plot_bars_by_model(trust, out / "yc_trust.png", title, "trust (0-5)", None, adversarial))
    return files


def _plots_cfo(rows: list[Measured], out: Path) -> list[Path]:
    models = _by_model(rows)
    series = {
        k: [([d["month"] for d in m.run.metrics], [d["cash"] for d in m.run.metrics]) for m in v]
        for k, v in models.items()
    }
    files = [plots.plot_runs_by_model(series, out / "cfo_cash.png", "cfo: cash by month", "month", "cash ($M)", 1e6)]
    counts = {
        action: {k: [[float(d.get("action") == action) for d in m.run.metrics] for m in v] for k, v in models.items()}
        for action in ("fund_raising_request", "book_closing", "pass")
    }
    title = "cfo: actions over time (EnterpriseArena Fig 2-3)"
    files.append(plots.plot_cumulative_counts(counts, out / "cfo_actions.png", title, "month"))
    return files


PLOTTERS: dict[str, Callable[[list[Measured], Path], list[Path]]] = {
    "ceo": _plots_ceo,
    "yc": _plots_yc,
    "cfo": _plots_cfo,
}


def build_report(
    paths: Sequence[str | Path],
    out: Path,
    anchor_cache: Path | None,
    anchors: bool = True,
    make_plots: bool = True,
    on_run: Callable[[Run], None] | None = None,
) -> Report:
    """Measure, aggregate and write everything into ``out`` (see the module docstring)."""
    runs = find_runs(list(paths))
    out.mkdir(parents=True, exist_ok=True)
    report = Report(f"bizbench report: {len(runs)} run{'s' if len(runs) != 1 else ''}")
    cache = AnchorCache(anchor_cache) if anchors else None
    for run in runs:
        if not run.finished:
            report.unfinished.append(run)
            continue
        if run.env not in ENV_MODULES:
            report.notes.append(f"{run.path}: unknown env {run.env!r}, left out")
            continue
        try:
            if on_run is not None:
                on_run(run)
            report.measured.append(_measure(run, cache))
        except (KeyError, TypeError, ValueError) as e:  # a hand-edited or damaged run: say so, go on
            report.notes.append(f"{run.path}: malformed ({type(e).__name__}: {e}), left out")
    for run in report.unfinished:
        report.notes.append(f"{run.path}: unfinished (no result.json yet), left out of every table")
    if not anchors:
        report.notes.append("normalised scores off (--no-anchors)")
    for env in ENV_ORDER:
        rows = [m for m in report.measured if m.run.env == env]
        if not rows:
            continue
        tables = _env_tables(env, rows)
        images = []
        try:
            images = PLOTTERS[env](rows, out) if make_plots else []
        except (KeyError, TypeError, ValueError) as e:
            report.notes.append(f"{env} plots left out: a run's metrics are malformed ({type(e).__name__}: {e})")
        report.sections.append((ENV_TITLES[env], tables, images))
        report.files += [write_csv(t, out) for t in tables] + images
    (out / "report.md").write_text(report.markdown())
    (out / "report.html").write_text(html_page(report.title, report.sections, report.notes))
    report.files += [out / "report.md", out / "report.html"]
    return report
