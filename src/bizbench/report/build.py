"""``bizbench report``: run directories in, the papers' tables and plots out.

:func:`build_report` loads the runs (:mod:`bizbench.core.runs`), measures each finished run
with its env's report module (``envs/<id>/report.py``, found through the env's spec; an env
without one gets the common result fields of :mod:`.common`), adds the normalised score
(:mod:`.protocol`), aggregates the runs of each set-up (env, preset, agent/model;
:func:`setup_key`, :mod:`.aggregate`) and writes, into the output directory, one CSV per table, the plots the
env's module asks for (PNG, :mod:`.plots`), ``report.md`` (what stdout shows) and
``report.html`` (one self-contained page). Sections follow the registry's order of envs.

Every figure that ``bizbench replay`` did not verify is marked (:data:`.tables.MARK`): all
of a run without a current verdict in the verdict store (never replayed, failed, or a checked
file changed since), and of a verified run each measure its env's module computes otherwise
from the verified part of the record alone (:meth:`~bizbench.core.runs.Run.part`), i.e. one
that reads something replay cannot check (the trajectory, the meters, refused calls).

Unfinished runs (no result.json yet) are listed under their path and left out of every
table, plot and aggregate; they never fail the report. A directory set aside after an
interruption (``<name>.incomplete-<n>``, a tournament's match cut short) is left out with a
note. A run of an env not registered here, or whose env's report module cannot be loaded, is
left out with a note. Groups are sorted by their mean headline score, best first.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.envs import list_envs
from bizbench.core.runs import Run, agent_label, find_runs
from bizbench.report import common, plots
from bizbench.report.aggregate import Column, aggregate, group_runs, summarise
from bizbench.report.arenas import arena_sections, set_aside, within
from bizbench.report.protocol import (
    AnchorCache,
    Anchors,
    anchors_for,
    normalise,
    report_module,
    score,
    world_facts,
)
from bizbench.report.tables import MARK, Group, Table, aggregate_table, html_page, per_run_table, to_markdown, write_csv
from bizbench.runner.replay import NOT_REPLAYED, VERIFIED, Verdict, read_verdict, same_value

__all__ = ["Measured", "Report", "build_report", "env_titles", "setup_key"]


#: The column every env's first table and per-run table gain: runs that ended before their
#: horizon without going bankrupt, each scored as a failed run (protocol.FAILED_SCORE).
ENDED_EARLY = Column("ended_early", "Ended early", "{:.0f}", "sum", "failed runs (docs/reports.md)")
ENDED_EARLY_MEANS = "runs that stopped before their horizon without going bankrupt, each scored 0 as a failed run"
VERIFIED_MEANS = 'verified = runs whose record `bizbench replay` verified (docs/reports.md "Verified figures")'


def env_titles() -> dict[str, str]:
    """The registered envs in the registry's order, with their report section titles."""
    return {spec.id: f"{spec.id}: {spec.title}" for spec in list_envs()}


@dataclass
class Measured:
    """A finished run with its measures and anchors, its replay verdict and the measures that
    replay did not verify."""

    run: Run
    metrics: dict[str, Any]
    anchors: Anchors
    verdict: Verdict
    unverified: frozenset[str]


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


def _arena_setup(run: Run) -> str:
    """How a seat of an arena (config.json's ``arena``) qualifies its preset: it played another
    game, against rivals (`` in a 3-seat arena``); empty for a run played alone."""
    arena = run.config.get("arena")
    if arena is None:
        return ""
    seats = arena.get("seats") if isinstance(arena, dict) else None
    return f" in a {seats}-seat arena" if isinstance(seats, int) and not isinstance(seats, bool) else " in an arena"


def setup_key(run: Run) -> tuple[str, str, str]:
    """What runs are aggregated by: the run's :attr:`~bizbench.core.runs.Run.group_key` (env,
    preset qualified by a changed horizon or harness options, agent/model), the preset qualified
    further when the run is a seat of an arena, so it is never pooled with runs played alone
    (``default in a 3-seat arena``)."""
    env, preset, agent = run.group_key
    return env, preset + _arena_setup(run), agent


def _plot_preset(run: Run) -> str:
    """The preset a plot's model label names: a seat of an arena is drawn apart from runs played alone."""
    return run.preset + _arena_setup(run)


def _model_label(run: Run, presets: set[str]) -> str:
    return run.agent if len(presets) <= 1 else f"{run.agent} [{_plot_preset(run)}]"


def _measures(run: Run, module: Any, cache: AnchorCache | None) -> tuple[dict[str, Any], Anchors]:
    """A run's measures (the env's, its headline and normalised score) and its anchors."""
    facts = world_facts(run, cache)
    anchors = anchors_for(run, cache)
    metrics = dict(module.run_metrics(run, facts))
    metrics["score"] = score(run)
    if run.ended_early:  # a failed run: its value columns say so, never the cash it left behind
        failed_keys = getattr(module, "FAILED_RUN_KEYS", module.SCORE_KEYS)
        metrics.update({key: metrics["score"] for key in failed_keys if key in metrics})
    metrics[ENDED_EARLY.key] = float(run.ended_early is not None)
    metrics["normalised"] = normalise(metrics["score"], anchors)
    return metrics, anchors


def _measure(run: Run, module: Any, cache: AnchorCache | None, verdicts: Path | None) -> Measured:
    metrics, anchors = _measures(run, module, cache)
    verdict = read_verdict(run.path, verdicts)
    return Measured(run, metrics, anchors, verdict, _unverified(run, module, cache, metrics, verdict))


def _unverified(
    run: Run, module: Any, cache: AnchorCache | None, metrics: dict[str, Any], verdict: Verdict
) -> frozenset[str]:
    """The measures replay did not verify: every one of a run it did not verify; of a verified
    run, those that come out otherwise when measured from the verified part of its record alone."""
    if not verdict.verified:
        return frozenset(metrics)
    part = run.part(verdict.result_fields, verdict.files, verdict.action_lines)
    try:
        verified, _ = _measures(part, module, cache)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):  # a measure that needs what replay cannot check
        return frozenset(metrics)
    return frozenset(key for key, value in metrics.items() if not same_value(value, verified.get(key)))


def _replay_notes(measured: list[Measured]) -> list[str]:
    """What replay verified of the runs: a count, why each run that failed or changed is not
    verified, and how to verify the rest."""
    verified = sum(m.verdict.verified for m in measured)
    notes = [f"replay: {verified} of {len(measured)} runs verified; {MARK} marks every figure replay did not verify"]
    notes += [f"{m.run.path}: {m.verdict.status}" for m in measured if m.verdict.status not in (VERIFIED, NOT_REPLAYED)]
    if any(m.verdict.status == NOT_REPLAYED for m in measured):
        notes.append("to verify a run not replayed: `bizbench replay RUN` (plots draw every run, verified or not)")
    return notes


def _legend(module: Any, columns: Sequence[Column]) -> list[str]:
    """The column legend printed under a table: the env's ``LEGEND`` (column key -> meaning)."""
    legend = {ENDED_EARLY.key: ENDED_EARLY_MEANS, **getattr(module, "LEGEND", {})}
    lines = [f"{c.label} = {legend[c.key]}" for c in columns if c.key in legend]
    return ["Columns: " + "; ".join(lines) + "."] if lines else []


def _env_tables(env: str, title: str, module: Any, rows: list[Measured]) -> list[Table]:
    groups = group_runs(rows, lambda m: setup_key(m.run))

    def mean_score(item: tuple[Any, list[Any]]) -> float:
        value = summarise(m.metrics["score"] for m in item[1]).value
        return value if value is not None else -math.inf

    ranked = sorted(groups.items(), key=mean_score, reverse=True)
    out = []
    for index, (name, heading, columns) in enumerate(module.TABLES):
        columns = [*columns, ENDED_EARLY] if index == 0 else columns
        group_rows = [
            Group(
                key,
                len(ms),
                sum(m.verdict.verified for m in ms),
                aggregate([m.metrics for m in ms], columns),
                frozenset().union(*(m.unverified for m in ms)),
            )
            for key, ms in ranked
        ]
        notes = ["mean ± 95 % Student-t half-width over runs; n = runs in the group; – = not measurable"]
        notes += [VERIFIED_MEANS, *_legend(module, columns)]
        out.append(aggregate_table(heading, f"{env}_{name}", columns, group_rows, notes))
    if module.ZERO_ANCHOR is not None:
        out.append(_anchor_table(env, title, module.ANCHOR_LABELS, rows))
    runs = sorted(rows, key=lambda m: (m.run.preset, m.run.agent, m.run.seed, str(m.run.path)))
    cells = [(_identity(m), m.metrics, m.unverified) for m in runs]
    per_run = [*module.PER_RUN, ENDED_EARLY]
    out.append(per_run_table(f"{title}: every run", f"{env}_runs", per_run, cells, _legend(module, per_run)))
    return out


def _identity(m: Measured) -> list[str]:
    """A run's cells in the every-run table: agent, seed, how it ended, its replay verdict, its path."""
    agent = agent_label(m.run.agent)
    return [agent, str(m.run.seed), str(m.run.get("ended_by", "")), m.verdict.label, str(m.run.path)]


def _anchor_table(env: str, title: str, labels: tuple[str, str], rows: list[Measured]) -> Table:
    zero_name, one_name = labels
    seen: dict[tuple[str, int, float | None, float | None, str], None] = {}
    for m in rows:
        seen[(setup_key(m.run)[1], m.run.seed, m.anchors.zero, m.anchors.one, m.anchors.note)] = None  # as the tables
    money = Column("x", "x", "{:,.0f}")
    header = ["preset", "seed", f"0 = {zero_name}", f"1 = {one_name}", "note"]
    shown = [[p, str(s), money.show(z), money.show(o), n] for p, s, z, o, n in seen]
    raw = [[p, s, z, o, n] for p, s, z, o, n in seen]
    return Table(f"{title}: normalisation anchors", f"{env}_anchors", header, shown, header, raw)


def _by_model(rows: list[Measured]) -> dict[str, list[Run]]:
    """The runs of each model (qualified by the preset when the rows span several; a seat of an
    arena's by its arena too)."""
    presets = {_plot_preset(m.run) for m in rows}
    grouped: dict[str, list[Run]] = defaultdict(list)
    for m in rows:
        grouped[_model_label(m.run, presets)].append(m.run)
    return dict(grouped)


def _plots(env: str, module: Any, rows: list[Measured], out: Path) -> list[Path]:
    """The charts the env's report module asks for, drawn into ``<env>_<chart>.png``."""
    return [plots.draw(chart, out / f"{env}_{chart.name}.png") for chart in module.plots(_by_model(rows))]


def _module(env: str, titles: dict[str, str], notes: list[str]) -> Any | None:
    """The report module of ``env`` (None, with a note, when its runs cannot be reported)."""
    if env not in titles:
        known = ", ".join(titles)
        notes.append(f"unknown env {env!r}: not registered here (registered: {known}); its runs are left out")
        return None
    try:
        module = report_module(env)
    except Exception as e:  # noqa: BLE001 - a plug-in's broken module must not stop the report
        why = f"{type(e).__name__}: {e}"
        notes.append(f"env {env!r}: its report module cannot be loaded ({why}); its runs are left out")
        return None
    if module is common:
        notes.append(f"env {env!r} has no report module: only the common result fields, no anchors or plots")
    return module


def build_report(
    paths: Sequence[str | Path],
    out: Path,
    anchor_cache: Path | None,
    anchors: bool = True,
    make_plots: bool = True,
    on_run: Callable[[Run], None] | None = None,
    verdicts: Path | None = None,
) -> Report:
    """Measure, aggregate and write everything into ``out`` (see the module docstring).
    ``verdicts``: the store of ``bizbench replay``'s verdicts (None: no run is verified)."""
    aside = set_aside(paths)  # matches cut short, set aside and played again: not runs of the report
    runs = [run for run in find_runs(list(paths)) if not within(run.path, aside)]
    out.mkdir(parents=True, exist_ok=True)
    report = Report(f"bizbench report: {len(runs)} run{'s' if len(runs) != 1 else ''}")
    report.notes += [
        f"{path}: set aside after an interruption (a match cut short, played again), left out" for path in aside
    ]
    cache = AnchorCache(anchor_cache) if anchors else None
    titles = env_titles()
    modules: dict[str, Any | None] = {}
    for run in runs:
        if not run.finished:
            report.unfinished.append(run)
            continue
        if run.env not in modules:
            modules[run.env] = _module(run.env, titles, report.notes)
        module = modules[run.env]
        if module is None:
            report.notes.append(f"{run.path}: env {run.env!r} cannot be reported, left out")
            continue
        try:
            if on_run is not None:
                on_run(run)
            report.measured.append(_measure(run, module, cache, verdicts))
        except (KeyError, TypeError, ValueError) as e:  # a hand-edited or damaged run: say so, go on
            report.notes.append(f"{run.path}: malformed ({type(e).__name__}: {e}), left out")
    for run in report.unfinished:
        report.notes.append(f"{run.path}: unfinished (no result.json yet), left out of every table")
    report.notes += _replay_notes(report.measured)
    if not anchors:
        report.notes.append("normalised scores off (--no-anchors)")
    for env, title in titles.items():
        rows = [m for m in report.measured if m.run.env == env]
        if not rows:
            continue
        module = modules[env]
        tables = _env_tables(env, title, module, rows)
        images = []
        try:
            images = _plots(env, module, rows, out) if make_plots else []
        except (KeyError, TypeError, ValueError) as e:
            report.notes.append(f"{env} plots left out: a run's metrics are malformed ({type(e).__name__}: {e})")
        report.sections.append((title, tables, images))
        report.files += [write_csv(t, out) for t in tables] + images
    arenas, arena_notes = arena_sections(paths, out, make_plots)
    report.notes += arena_notes
    for title, tables, images in arenas:
        report.sections.append((title, tables, images))
        report.files += [write_csv(t, out) for t in tables] + images
    (out / "report.md").write_text(report.markdown())
    (out / "report.html").write_text(html_page(report.title, report.sections, report.notes))
    report.files += [out / "report.md", out / "report.html"]
    return report
