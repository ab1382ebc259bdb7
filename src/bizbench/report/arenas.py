"""The report's arenas and tournaments (docs/arena.md, docs/reports.md "Arenas and tournaments").

An arena directory (``arena.json``, ``seat-*/``, ``standings.json``) gets a standings table
(its companies side by side: rank, seat, agent, score, final cash, bankrupt, then the env's
arena figures such as contests or the leads that went to each rival), a plot of every
company's cash over time, and the charts its env's report module draws of an arena
(``arena_plots``; ceo: each company's share of the market and its prices over time). A
tournament directory (``ratings.json``) gets its ratings table and its head-to-head table,
recomputed from its matches' standings.json with the tournament.json it was played with, never
taken from ratings.json (a note says when ratings.json differs). The seats are ordinary runs
too, measured in their env's section. A match cut short and set aside
(``matches/<name>.incomplete-<n>``) is neither an arena nor runs of the report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from bizbench.core.jsonio import read_json
from bizbench.core.runs import load_run
from bizbench.report.plots import draw, plot_runs_by_model
from bizbench.report.protocol import report_module
from bizbench.report.tables import Table
from bizbench.runner.tournament import TournamentSpec, ratings
from bizbench.runner.tournament import recorded as recorded_matches

__all__ = ["arena_sections", "set_aside", "within"]

Section = tuple[str, list[Table], list[Path]]


#: the name of a directory set aside after an interruption (runner/sweep_worker.py ``set_aside``)
SET_ASIDE = re.compile(r".+\.incomplete-\d+")


def set_aside(paths: Sequence[str | Path]) -> list[Path]:
    """The directories under ``paths`` set aside after an interruption (``<name>.incomplete-<n>``:
    a tournament's match cut short, played again under its own name): the outermost of them, in
    path order. A directory named in ``paths`` (or holding one) is not among them: named, it is reported."""
    given = {Path(p).resolve() for p in paths}
    found: set[Path] = set()
    for p in map(Path, paths):
        if p.is_dir():
            found.update(d for d in p.rglob("*.incomplete-*") if SET_ASIDE.fullmatch(d.name) and d.is_dir())
    named = [d for d in found if any(g == d.resolve() or d.resolve() in g.parents for g in given)]
    kept = sorted(found - set(named))
    return [d for d in kept if not any(o in d.parents for o in kept)]


def within(path: Path, dirs: Sequence[Path]) -> bool:
    """Whether ``path`` is one of ``dirs`` or lies inside one."""
    here = path.resolve()
    return any(d == here or d in here.parents for d in (d.resolve() for d in dirs))


def _found(paths: Sequence[str | Path], name: str) -> list[Path]:
    """The directories under ``paths`` (themselves included) that hold ``name``, in path order."""
    dirs: set[Path] = set()
    for p in map(Path, paths):
        if (p / name).is_file():
            dirs.add(p)
        if p.is_dir():
            dirs.update(f.parent for f in p.rglob(name))
    return sorted(dirs)


def _slug(text: str) -> str:
    """A name as part of a file name: letters, digits and ``-_+.`` kept (a match's ``+`` between
    its entrants included), anything else ``_``."""
    return "".join(c if c.isalnum() or c in "-_+." else "_" for c in text)


def _above(path: Path, depth: dict[Path, int]) -> tuple[str, ...]:
    """What is left of ``path`` above the parts its name in the report shows."""
    return path.parts[: -depth[path]]


def _names(paths: Sequence[Path]) -> dict[Path, tuple[str, str]]:
    """Each directory's name in the report: its label (section and table titles) and the stem of
    its files. Its own name, qualified by as many of its parents as make its stem unique among
    ``paths`` (two tournaments' matches of one name: ``cup-a/matches/r0-s1-x+y``); a stem still
    shared (a name that differs only in characters a file name does not keep) gets ``-2``, ``-3``
    ... in path order. Deterministic: the same directories get the same names."""
    depth = dict.fromkeys(paths, 1)

    def label(p: Path) -> str:
        return "/".join(p.parts[-depth[p] :])

    while True:
        stems: dict[str, list[Path]] = {}
        for p in paths:
            stems.setdefault(_slug(label(p)), []).append(p)
        # a parent qualifies a name only where the parents differ (not two names of one directory)
        grow = [p for same in stems.values() for p in same if any(_above(q, depth) != _above(p, depth) for q in same)]
        if not grow:
            break
        for p in grow:
            depth[p] += 1
    names: dict[Path, tuple[str, str]] = {}
    taken: set[str] = set()
    for p in sorted(paths):
        stem = base = _slug(label(p))
        n = 1
        while stem in taken:
            n += 1
            stem = f"{base}-{n}"
        taken.add(stem)
        names[p] = (label(p) if n == 1 else f"{label(p)} ({n})", stem)
    return names


def _standings(name: tuple[str, str], outcome: dict[str, Any]) -> Table:
    rows = sorted(outcome["standings"], key=lambda r: (r["rank"], r["seat"]))
    header = ["rank", "seat", "agent", "score", "final cash", "bankrupt"]
    extra = {k: v for k, v in outcome.items() if k not in ("env", "preset", "seed", "standings", "contest_log")}
    return Table(
        title=f"{outcome['env']} arena {name[0]} (seed {outcome['seed']}, preset {outcome['preset']})",
        name=f"arena_{name[1]}",
        header=header,
        rows=[
            [
                str(r["rank"]),
                str(r["seat"]),
                str(r["agent"]),
                f"{r['score']:,.2f}",
                f"{r['final_cash']:,.2f}",
                str(r["bankrupt"]),
            ]
            for r in rows
        ],
        csv_header=header,
        csv_rows=[[r["rank"], r["seat"], r["agent"], r["score"], r["final_cash"], r["bankrupt"]] for r in rows],
        notes=[f"{k}: {json.dumps(v)}" for k, v in extra.items()],
    )


def _cash(seat: Path) -> tuple[str, list[float], list[float]]:
    """A seat's cash from the start and after each ledger row, against the ledger's time column
    (its name, the times, the cash): the final cash less the ledger's sum is where it started
    (every env's ledger.csv has the time first and the amount third)."""
    run = load_run(seat)
    rows = run.ledger
    final = float((run.result or {})["final_cash"])
    if not rows:
        return "time", [0.0], [final]
    time_key, amount_key = list(rows[0])[0], list(rows[0])[2]
    amounts = np.array([float(r[amount_key]) for r in rows])
    start = final - float(amounts.sum())
    times = [0.0, *(float(r[time_key]) for r in rows)]
    return time_key, times, [start, *(start + np.cumsum(amounts)).tolist()]


def _cash_plot(path: Path, name: tuple[str, str], outcome: dict[str, Any], out: Path) -> Path:
    cash = {f"seat {r['seat']}: {r['agent']}": _cash(path / f"seat-{r['seat']}") for r in outcome["standings"]}
    series = {label: [(x, y)] for label, (_, x, y) in cash.items()}
    unit = next(iter(cash.values()))[0]
    title = f"{outcome['env']} arena {name[0]}: every company's cash"
    return plot_runs_by_model(series, out / f"arena_{name[1]}_cash.png", title, unit, "cash ($)")


def _env_plots(path: Path, stem: str, outcome: dict[str, Any], out: Path) -> list[Path]:
    """The charts the env's report module draws of an arena's companies (``arena_plots``), if any."""
    module = report_module(outcome["env"])
    charts = getattr(module, "arena_plots", None)
    if charts is None:
        return []
    seats = [load_run(path / f"seat-{r['seat']}") for r in sorted(outcome["standings"], key=lambda r: r["seat"])]
    return [draw(chart, out / f"arena_{stem}_{chart.name}.png") for chart in charts(seats)]


RECOMPUTED_MEANS = (
    "recomputed by the report from the matches' standings.json (runner/tournament.py ratings), never read from "
    "ratings.json; `bizbench replay MATCH_DIR` checks a match's standings"
)

#: what of ratings.json the report recomputes and compares
_RECOMPUTED = ("matches", "entrants", "head_to_head")


def _recomputed(path: Path, recorded: dict[str, Any] | None) -> tuple[dict[str, Any] | None, list[str]]:
    """The ratings of the tournament at ``path`` recomputed from its matches' standings.json
    (runner/tournament.py ``ratings``, with the tournament.json it was played with), never taken
    from its ratings.json; notes on the matches left out and on a ratings.json that says otherwise.
    None (with a note) when tournament.json cannot be read."""
    try:
        spec = TournamentSpec.model_validate(read_json(path / "tournament.json"))
    except (ValidationError, KeyError, ValueError) as e:  # a baseline gone since raises KeyError
        why = "; ".join(str(err["msg"]) for err in e.errors()) if isinstance(e, ValidationError) else str(e)
        return None, [f"{path}: no valid tournament.json ({why}), its ratings cannot be recomputed: left out"]
    matches, outcomes, left_out = recorded_matches(spec, path)
    folder = path / "matches"
    notes = [f"{folder / name}: {why}, left out of the tournament's ratings" for name, why in left_out.items()]
    scheduled = {m.name for m in matches} | set(left_out)
    for d in sorted(folder.iterdir()) if folder.is_dir() else []:
        if d.is_dir() and not SET_ASIDE.fullmatch(d.name) and d.name not in scheduled:
            notes.append(f"{d}: not a match of the tournament's schedule, left out of its ratings")
    try:  # ratings() puts the matches in its canonical order itself
        result = ratings(spec, matches, outcomes)
    except (KeyError, TypeError, ValueError) as e:  # standings ratings() cannot read
        return None, [*notes, f"{path}: its ratings cannot be recomputed ({type(e).__name__}: {e}): left out"]
    if recorded is None:
        notes.append(f"{path}: ratings.json unreadable; the ratings shown are recomputed from the matches")
    else:
        differ = [key for key in _RECOMPUTED if recorded.get(key) != result[key]]
        if differ:
            notes.append(
                f"{path}: ratings.json differs from the ratings recomputed from its matches' standings.json "
                f"(in {', '.join(differ)}); the tables show the recomputed ones"
            )
    return result, notes


def _ratings(name: tuple[str, str], result: dict[str, Any]) -> list[Table]:
    header = ["entrant", "ordinal", "mu", "sigma", "95% interval", "matches", "mean rank", "mean score"]
    rows = result["entrants"]
    count = result["matches"]
    played = f"{result['format']}, {count} match{'' if count == 1 else 'es'} ({result['rating']})"
    ratings = Table(
        title=f"{result['env']} tournament {name[0]}: {played}",
        name=f"tournament_{name[1]}",
        header=header,
        rows=[
            [
                r["name"],
                f"{r['ordinal']:.2f}",
                f"{r['mu']:.2f}",
                f"{r['sigma']:.2f}",
                f"{r['interval_95'][0]:.1f} .. {r['interval_95'][1]:.1f}",
                str(r["matches"]),
                "-" if r["mean_rank"] is None else f"{r['mean_rank']:.2f}",
                "-" if r["mean_score"] is None else f"{r['mean_score']:,.2f}",
            ]
            for r in rows
        ],
        csv_header=["entrant", "ordinal", "mu", "sigma", "low_95", "high_95", "matches", "mean_rank", "mean_score"],
        csv_rows=[
            [
                r["name"],
                r["ordinal"],
                r["mu"],
                r["sigma"],
                *r["interval_95"],
                r["matches"],
                r["mean_rank"],
                r["mean_score"],
            ]
            for r in rows
        ],
        notes=[RECOMPUTED_MEANS],
    )
    names = [r["name"] for r in rows]
    h2h = result["head_to_head"]
    head_to_head = Table(
        title=f"tournament {name[0]}: matches the row finished ahead of the column",
        name=f"tournament_{name[1]}_head_to_head",
        header=["", *names],
        rows=[[a, *("-" if a == b else str(h2h[a][b]) for b in names)] for a in names],
        csv_header=["entrant", *names],
        csv_rows=[[a, *(None if a == b else h2h[a][b] for b in names)] for a in names],
        notes=[RECOMPUTED_MEANS],
    )
    return [ratings, head_to_head]


def arena_sections(paths: Sequence[str | Path], out: Path, make_plots: bool = True) -> tuple[list[Section], list[str]]:
    """The report's sections of every arena and tournament under ``paths``, and notes on those
    it could not read. An arena set aside after an interruption (:func:`set_aside`, a match cut
    short) is left out; the report's notes name it (``build_report``)."""
    sections: list[Section] = []
    notes: list[str] = []
    aside = set_aside(paths)
    tournaments = [p for p in _found(paths, "ratings.json") if not within(p, aside)]
    names = _names(tournaments)
    for path in tournaments:
        result, why = _recomputed(path, read_json(path / "ratings.json"))
        notes += why
        if result is not None:
            sections.append((f"Tournament {names[path][0]}", _ratings(names[path], result), []))
    arenas = [p for p in _found(paths, "standings.json") if not within(p, aside)]
    names = _names(arenas)
    for path in arenas:
        outcome = read_json(path / "standings.json")
        if outcome is None or not (path / "arena.json").is_file():
            notes.append(f"{path}: not a finished arena (no readable standings.json and arena.json), left out")
            continue
        name = names[path]
        images = [_cash_plot(path, name, outcome, out), *_env_plots(path, name[1], outcome, out)] if make_plots else []
        sections.append((f"Arena {name[0]}", [_standings(name, outcome)], images))
    return sections, notes
