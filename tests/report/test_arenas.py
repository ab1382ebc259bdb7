"""The report's arenas and tournaments (report/arenas.py): standings side by side, cash over time, ratings."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bizbench.report.build import build_report
from bizbench.runner.arena import run_arena
from bizbench.runner.sweep_worker import InlineBackend
from bizbench.runner.tournament import TournamentSpec, run_tournament


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("arenas")
    run_arena("yc", ["heuristic", "random", "greedy"], seed=4, horizon=2, out=root / "three")
    spec = TournamentSpec.model_validate(
        {
            "env": "yc",
            "seeds": [1],
            "horizon": 1,
            "entrants": [{"name": "greedy", "baseline": "greedy"}, {"name": "random", "baseline": "random"}],
            "out": str(root / "cup"),
        }
    )
    run_tournament(spec, InlineBackend(), log=lambda line: None)
    return root


def test_an_arena_gets_its_companies_side_by_side_and_their_cash_over_time(played: Path, tmp_path: Path) -> None:
    report = build_report([played / "three"], tmp_path, None, anchors=False)
    ((title, (table,), (plot,)),) = [s for s in report.sections if s[0].startswith("Arena")]
    assert title == "Arena three" and plot.is_file() and plot.stat().st_size > 10_000
    assert sorted(row[2] for row in table.rows) == ["greedy", "heuristic", "random"]
    assert [int(row[0]) for row in table.rows] == sorted(int(row[0]) for row in table.rows)
    assert any(note.startswith("contests: ") for note in table.notes)
    with (tmp_path / f"{table.name}.csv").open() as f:
        assert next(csv.reader(f)) == ["rank", "seat", "agent", "score", "final cash", "bankrupt"]
    yc = [s for s in report.sections if not s[0].startswith(("Arena", "Tournament"))]
    assert yc, "the seats are measured as ordinary runs too"


def test_arena_seats_are_never_pooled_with_single_player_runs(played: Path, tmp_path: Path) -> None:
    from bizbench.report.build import _by_model, build_report
    from bizbench.runner.episode import run_baseline

    alone = tmp_path / "alone"  # the arena's seed, horizon and preset, played without rivals
    run_baseline("yc", "heuristic", 4, horizon=2, out=alone)
    report = build_report([alone, played / "three"], tmp_path / "report", None, anchors=False, make_plots=False)
    (table3,) = [t for _, tables, _ in report.sections for t in tables if t.name == "yc_table3"]
    heuristic = {row[0]: row[2] for row in table3.rows if row[1] == "heuristic"}
    assert heuristic == {"default (2 months)": "1", "default (2 months) in a 3-seat arena": "1"}
    with (tmp_path / "report" / "yc_table3.csv").open() as f:
        presets = {row["preset"] for row in csv.DictReader(f) if row["agent"] == "heuristic"}
    assert presets == set(heuristic)
    models = _by_model([m for m in report.measured if m.run.agent == "heuristic"])
    assert sorted(models) == ["heuristic [default in a 3-seat arena]", "heuristic [default]"]


def test_a_tournament_gets_its_ratings_and_head_to_head(played: Path, tmp_path: Path) -> None:
    report = build_report([played / "cup"], tmp_path, None, anchors=False, make_plots=False)
    tournaments = [s for s in report.sections if s[0] == "Tournament cup"]
    ((_, (ratings, head_to_head), _),) = tournaments
    assert {row[0] for row in ratings.rows} == {"greedy", "random"}
    assert head_to_head.header == ["", *[row[0] for row in ratings.rows]]
    assert len([s for s in report.sections if s[0].startswith("Arena")]) == 2  # its two matches
    assert not [n for n in report.notes if "ratings.json" in n]  # recomputed from the matches: the same


def test_tournament_ratings_are_recomputed_from_the_matches_never_taken_from_ratings_json(
    played: Path, tmp_path: Path
) -> None:
    import shutil

    cup = tmp_path / "cup"
    shutil.copytree(played / "cup", cup)
    true = build_report([cup], tmp_path / "true", None, anchors=False, make_plots=False)
    ((_, (ratings, head_to_head), _),) = [s for s in true.sections if s[0] == "Tournament cup"]
    recorded = json.loads((cup / "ratings.json").read_text())
    recorded["entrants"][-1]["ordinal"] = 99.0  # the last made first
    recorded["head_to_head"]["random"]["greedy"] = 7
    (cup / "ratings.json").write_text(json.dumps(recorded))
    edited = build_report([cup], tmp_path / "edited", None, anchors=False, make_plots=False)
    ((_, (shown, shown_h2h), _),) = [s for s in edited.sections if s[0] == "Tournament cup"]
    assert (shown.rows, shown_h2h.rows) == (ratings.rows, head_to_head.rows)
    assert "99.00" not in str(shown.rows) and "7" not in str(shown_h2h.rows)
    (note,) = [n for n in edited.notes if "ratings.json" in n]
    assert note == (
        f"{cup}: ratings.json differs from the ratings recomputed from its matches' standings.json "
        "(in entrants, head_to_head); the tables show the recomputed ones"
    )


def test_a_tournaments_ratings_follow_its_matches_standings(played: Path, tmp_path: Path) -> None:
    import shutil

    cup = tmp_path / "cup"
    shutil.copytree(played / "cup", cup)
    true = build_report([cup], tmp_path / "true", None, anchors=False, make_plots=False)
    ((_, (ratings, _), _),) = [s for s in true.sections if s[0] == "Tournament cup"]
    for match in (cup / "matches").iterdir():  # every match's result turned round
        outcome = json.loads((match / "standings.json").read_text())
        worst = max(row["rank"] for row in outcome["standings"])
        for row in outcome["standings"]:
            row["rank"], row["score"] = worst + 1 - row["rank"], -row["score"]
            row["headline_score"] = -row["headline_score"]  # the ranks follow it
        (match / "standings.json").write_text(json.dumps(outcome))
    turned = build_report([cup], tmp_path / "turned", None, anchors=False, make_plots=False)
    ((_, (shown, _), _),) = [s for s in turned.sections if s[0] == "Tournament cup"]
    assert [row[0] for row in shown.rows] == [row[0] for row in reversed(ratings.rows)]
    assert any("ratings.json differs" in n for n in turned.notes)
    unfinished = cup / "matches" / "r0-s1-greedy+random"
    (unfinished / "match.json").unlink()
    one = build_report([cup], tmp_path / "one", None, anchors=False, make_plots=False)
    ((_, (shown, _), _),) = [s for s in one.sections if s[0] == "Tournament cup"]
    assert shown.title.endswith("round-robin, 1 match (openskill Plackett-Luce (ordinal = mu - 3 sigma))")
    assert f"{unfinished}: not played to the end, left out of the tournament's ratings" in one.notes
    (cup / "tournament.json").write_text("{}")
    broken = build_report([cup], tmp_path / "broken", None, anchors=False, make_plots=False)
    assert not [s for s in broken.sections if s[0] == "Tournament cup"]
    assert any(n.startswith(f"{cup}: no valid tournament.json") for n in broken.notes)


def test_arenas_whose_names_differ_only_in_plus_or_underscore_get_files_of_their_own(
    played: Path, tmp_path: Path
) -> None:
    import shutil

    matches = tmp_path / "cup" / "matches"  # entrants a_b, c, a and b_c: two matches' names differ in '+' alone
    for name in ("r0-s1-a_b+c", "r0-s1-a+b_c", "r0-s1-a b"):
        shutil.copytree(played / "three", matches / name)
    shutil.copytree(played / "three", matches / "r0-s1-a_b")  # "a b" and "a_b": one name in a file's
    out = tmp_path / "report"
    report = build_report([matches], out, None, anchors=False)
    arenas = [s for s in report.sections if s[0].startswith("Arena")]
    stems = sorted(table.name for _, (table,), _ in arenas)
    assert stems == ["arena_r0-s1-a+b_c", "arena_r0-s1-a_b", "arena_r0-s1-a_b+c", "arena_r0-s1-a_b-2"]
    plots = [image.name for _, _, images in arenas for image in images]
    assert len(plots) == len(set(plots)) == 4 and all((out / name).is_file() for name in plots)
    assert all((out / f"{stem}.csv").is_file() for stem in stems)
    text = (out / "report.md").read_text()
    assert all(text.count(name) == 1 for name in plots)


def test_matches_of_one_name_in_two_tournaments_are_told_apart_by_their_tournament(
    played: Path, tmp_path: Path
) -> None:
    import shutil

    for cup in ("cup-a", "cup-b"):
        shutil.copytree(played / "cup", tmp_path / "runs" / cup)
    report = build_report([tmp_path / "runs"], tmp_path / "report", None, anchors=False, make_plots=False)
    titles = sorted(title for title, _, _ in report.sections if title.startswith(("Arena", "Tournament")))
    matches = [
        f"{cup}/matches/r0-s1-{pair}" for cup in ("cup-a", "cup-b") for pair in ("greedy+random", "random+greedy")
    ]
    assert titles == [*(f"Arena {m}" for m in matches), "Tournament cup-a", "Tournament cup-b"]
    files = {path.name for path in report.files}
    assert {f"arena_{m.replace('/', '_')}.csv" for m in matches} <= files
    assert {"tournament_cup-a.csv", "tournament_cup-b.csv"} <= files


def test_an_unfinished_arena_is_named_and_left_out(played: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "cut"
    shutil.copytree(played / "three", copy)
    (copy / "arena.json").unlink()
    report = build_report([copy], tmp_path / "out", None, anchors=False, make_plots=False)
    assert not [s for s in report.sections if s[0].startswith("Arena")]
    assert any("not a finished arena" in n for n in report.notes)


def test_matches_cut_short_and_set_aside_are_neither_runs_nor_arenas_of_the_report(
    played: Path, tmp_path: Path
) -> None:
    import shutil

    cup = tmp_path / "cup"
    shutil.copytree(played / "cup", cup)
    finished = cup / "matches" / "r0-s1-greedy+random.incomplete-1"  # cut short after its standings
    shutil.copytree(cup / "matches" / "r0-s1-greedy+random", finished)
    (finished / "match.json").unlink()
    half = cup / "matches" / "r0-s1-random+greedy.incomplete-1"  # cut short while playing
    shutil.copytree(cup / "matches" / "r0-s1-random+greedy", half)
    for name in ("standings.json", "match.json", "seat-1/result.json"):
        (half / name).unlink()
    report = build_report([cup], tmp_path / "report", None, anchors=False, make_plots=False)
    assert report.title == "bizbench report: 4 runs" and not report.unfinished  # two matches of two seats
    assert all(".incomplete-" not in str(m.run.path) for m in report.measured)
    arenas = sorted(title for title, _, _ in report.sections if title.startswith("Arena"))
    assert arenas == ["Arena r0-s1-greedy+random", "Arena r0-s1-random+greedy"]
    assert [n for n in report.notes if "set aside" in n] == [
        f"{path}: set aside after an interruption (a match cut short, played again), left out"
        for path in (finished, half)
    ]
    named = build_report([finished], tmp_path / "named", None, anchors=False, make_plots=False)
    assert named.title == "bizbench report: 2 runs"  # a directory set aside and named is reported


def viewer_runs(arena: Path, out: Path) -> list[dict[str, Any]]:
    """The runs of the viewer page written for ``arena``."""
    from bizbench.report.viewer import write_viewer

    index = write_viewer([arena], out)
    block = re.search(r'<script type="application/json" id="bizbench-data">(.*?)</script>', index.read_text(), re.S)
    assert block is not None
    runs: list[dict[str, Any]] = json.loads(block.group(1))["runs"]
    return runs


def test_the_viewer_shows_an_arenas_companies_side_by_side_by_seat_with_their_rank(
    played: Path, tmp_path: Path
) -> None:
    runs = viewer_runs(played / "three", tmp_path / "view")
    assert [r["dir"] for r in runs] == ["seat-0", "seat-1", "seat-2"]
    ranks = {
        row["seat"]: row["rank"] for row in json.loads((played / "three" / "standings.json").read_text())["standings"]
    }
    assert [r["label"].rsplit(" / ", 1)[-1] for r in runs] == [f"seat {i} of 3, rank {ranks[i]}" for i in range(3)]


def test_a_ceo_arena_also_gets_each_companys_market_share_and_prices_over_time(tmp_path: Path) -> None:
    from bizbench.core.runs import load_run
    from bizbench.envs.ceo.report import arena_plots

    out = tmp_path / "ceo"
    run_arena("ceo", ["rule-based", "rule-based-rival"], seed=3, horizon=28, out=out, world_options={"database": False})
    report = build_report([out], tmp_path / "report", None, anchors=False)
    ((_, _, images),) = [s for s in report.sections if s[0] == "Arena ceo"]
    names = ("cash", "share", "group_share", "price_A", "price_B", "price_C")
    assert [p.name for p in images] == [f"arena_ceo_{n}.png" for n in names]
    share, group_share, *prices = arena_plots([load_run(out / "seat-0"), load_run(out / "seat-1")])
    assert group_share.data["seat 0: rule-based"]
    for group in group_share.data["seat 0: rule-based"]:
        assert sum(company[group] for company in group_share.data.values()) == pytest.approx(100.0)
    per_day = [sum(series[0][1][t] for series in share.data.values()) for t in range(28)]
    assert all(total == 0 or abs(total - 100) < 1e-9 for total in per_day)
    (_, rival), (_, rule_based) = prices[1].data["seat 1: rule-based-rival"][0], prices[1].data["seat 0: rule-based"][0]
    assert rule_based[-1] == 25.0 and rival[-1] == 23.75  # plan B: the mid book's $25, and 5 % under it
    # the viewer draws the same prices, as steps held to the last day
    for run, last_b in zip(viewer_runs(out, tmp_path / "view"), (25.0, 23.75), strict=True):
        chart = next(c for c in run["charts"] if c["id"] == "prices")
        assert chart["names"] == ["A", "B", "C"]
        plan_b = chart["series"][1]
        assert plan_b[0] == [0.0, last_b] and plan_b[-1] == [28.0, last_b]  # a day's last call is its price
        assert all(x0 <= x1 for (x0, _), (x1, _) in zip(plan_b, plan_b[1:], strict=False))


def test_an_arena_seat_with_rivals_gets_no_normalised_score_and_a_lone_seat_does(played: Path, tmp_path: Path) -> None:
    from bizbench.core.runs import load_run
    from bizbench.report.protocol import AnchorCache, anchors_for

    cache = AnchorCache(tmp_path / "anchors.json")
    seat = anchors_for(load_run(played / "three" / "seat-0"), cache)
    assert seat.zero is None and seat.one is None and "an arena seat" in seat.note
    run_arena("yc", ["heuristic"], seed=4, horizon=2, out=tmp_path / "lone")
    lone = anchors_for(load_run(tmp_path / "lone" / "seat-0"), cache)
    assert lone.one is not None and lone.note == ""  # one seat is the single-player world
    report = build_report([played / "three"], tmp_path / "report", tmp_path / "anchors.json", make_plots=False)
    assert all(m.metrics["normalised"] is None for m in report.measured)
    (anchors,) = [t for _, tables, _ in report.sections for t in tables if t.name.endswith("_anchors")]
    assert anchors.rows[0][:2] == ["default (2 months) in a 3-seat arena", "4"]  # the set-up as the tables name it
    assert anchors.rows[0][-1].startswith("an arena seat")
