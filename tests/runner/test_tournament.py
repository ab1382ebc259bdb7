"""``bizbench tournament`` (runner/tournament.py): the schedule, the ratings, resuming, the file's errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bizbench.cli import app
from bizbench.core.jsonio import read_json
from bizbench.runner.sweep_spec import SweepError
from bizbench.runner.sweep_worker import InlineBackend
from bizbench.runner.tournament import Match, TournamentSpec, load_tournament, ratings, run_tournament, schedule

ENTRANTS = [{"name": n, "baseline": n} for n in ("greedy", "heuristic", "random")]


def _spec(tmp_path: Path, **over: object) -> TournamentSpec:
    data = {"env": "yc", "seeds": [1], "horizon": 1, "entrants": ENTRANTS, "out": str(tmp_path / "t"), **over}
    return TournamentSpec.model_validate(data)


def test_a_round_robin_seats_every_group_in_every_rotation_on_every_seed(tmp_path: Path) -> None:
    matches = schedule(_spec(tmp_path, seeds="1-2", seats=2))
    assert len(matches) == 2 * 3 * 2
    pairs = {(m.seed, m.entrants) for m in matches}
    assert (1, ("greedy", "heuristic")) in pairs and (1, ("heuristic", "greedy")) in pairs
    assert len({m.name for m in matches}) == len(matches)
    for name in ("greedy", "heuristic", "random"):
        seats = [m.entrants.index(name) for m in matches if name in m.entrants]
        assert seats.count(0) == seats.count(1)


def test_a_swiss_round_groups_the_entrants_by_their_rating(tmp_path: Path) -> None:
    entrants = [*ENTRANTS, {"name": "idle", "baseline": "do-nothing"}]
    spec = _spec(tmp_path, format="swiss", rounds=2, seeds="1-2", entrants=entrants)
    table = {
        "random": {"ordinal": 9.0},
        "idle": {"ordinal": 8.0},
        "greedy": {"ordinal": 1.0},
        "heuristic": {"ordinal": 0.5},
    }
    groups = {m.entrants for m in schedule(spec, table, 1) if m.name.endswith(m.entrants[0] + "+" + m.entrants[1])}
    assert {tuple(sorted(g)) for g in groups} == {("idle", "random"), ("greedy", "heuristic")}


def test_ratings_order_the_entrants_by_their_results(tmp_path: Path) -> None:
    matches = [Match(f"m{i}", 1, ("a", "b") if i % 2 else ("b", "a")) for i in range(6)]
    spec = _spec(tmp_path, entrants=[{"name": "a", "baseline": "greedy"}, {"name": "b", "baseline": "random"}])
    outcomes = {
        m.name: {"standings": [{"rank": 1 if n == "a" else 2, "score": 10.0 if n == "a" else 0.0} for n in m.entrants]}
        for m in matches
    }
    result = ratings(spec, matches, outcomes)
    first, second = result["entrants"]
    assert first["name"] == "a" and first["mu"] > second["mu"] and first["ordinal"] > second["ordinal"]
    assert first["mean_rank"] == 1.0 and second["mean_score"] == 0.0 and first["matches"] == 6
    assert result["head_to_head"] == {"a": {"a": 0, "b": 6}, "b": {"a": 0, "b": 0}}
    assert first["interval_95"][0] < first["mu"] < first["interval_95"][1]


def test_a_tournament_plays_every_match_once_and_a_second_run_plays_none(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    played: list[str] = []
    first = run_tournament(spec, InlineBackend(), log=played.append)
    assert len(played) == 6 and first["matches"] == 6
    assert read_json(Path(spec.out) / "ratings.json") is not None
    again: list[str] = []
    second = run_tournament(spec, InlineBackend(), log=again.append)
    assert again == [] and second["entrants"] == first["entrants"]


def test_a_match_cut_short_is_moved_aside_and_played_again(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    name = schedule(spec)[0].name
    broken = Path(spec.out) / "matches" / name
    (broken / "seat-0").mkdir(parents=True)
    (broken / "arena.json").write_text("{}")
    run_tournament(spec, InlineBackend(), log=lambda line: None)
    assert read_json(broken / "standings.json") is not None
    assert (broken.parent / f"{name}.incomplete-1" / "arena.json").is_file()


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"env": "cfo"}, "env 'cfo' has no arena"),
        ({"entrants": [ENTRANTS[0], ENTRANTS[0]]}, "names must differ"),
        ({"seats": 4}, "3 entrants cannot fill 4 seats"),
        ({"format": "swiss"}, "a swiss tournament needs its number of rounds"),
        ({"entrants": [{"name": "x", "baseline": "nobody"}, ENTRANTS[1]]}, "unknown yc baseline 'nobody'"),
        ({"seeds": "5-1"}, "runs backwards"),
        ({"rounds": 2}, "only a swiss tournament has rounds"),
        ({"format": "swiss", "rounds": 3}, "each swiss round plays a seed of its own"),
        ({"seeds": []}, "\n  seeds: the list is empty"),
        ({"colour": "red"}, "colour: unknown key (docs/arena.md lists the keys)"),
        ({"entrants": [{"name": "x"}, ENTRANTS[1]]}, "give a baseline or a model"),
        ({"world_options": {"database": False}}, "env 'yc' takes no option database"),
        ({"env": "nope"}, "unknown env 'nope'"),
        ({"seats": 9, "entrants": [{"name": f"e{i}", "baseline": "greedy"} for i in range(9)]}, "at most 8 seats"),
        ({"entrants": [{"name": "a+b", "baseline": "greedy"}, ENTRANTS[1]]}, "entrant name 'a+b': letters, digits"),
        (
            {"entrants": [{"name": "x", "model": "scripted:a.jsonl", "options": {"k": 1}}, ENTRANTS[1]]},
            "options are a baseline's",
        ),
    ],
)
def test_a_bad_tournament_file_names_its_problem(tmp_path: Path, over: dict[str, object], message: str) -> None:
    data = {"env": "yc", "seeds": [1], "entrants": ENTRANTS, **over}
    path = tmp_path / "t.toml"
    path.write_text(_toml(data))
    with pytest.raises(SweepError, match="invalid tournament file") as info:
        load_tournament(path)
    assert message in str(info.value)


def _toml(data: dict[str, object]) -> str:
    import json

    def value(v: object) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if k != "entrants"]
    for e in data["entrants"]:  # type: ignore[attr-defined]
        lines += ["[[entrants]]", *(f"{k} = {value(v)}" for k, v in e.items())]
    return "\n".join(lines) + "\n"


def test_the_cli_plays_a_tournament_and_prints_the_ratings(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(_toml({"env": "yc", "seeds": [2], "horizon": 1, "entrants": ENTRANTS[:2]}))
    done = CliRunner().invoke(app, ["tournament", str(path), "--backend", "inline", "--out", str(tmp_path / "o")])
    assert done.exit_code == 0, done.output
    assert "head to head" in done.output and (tmp_path / "o" / "ratings.json").is_file()


def test_a_model_entrant_plays_its_matches_through_its_harness(tmp_path: Path) -> None:
    import json

    script = tmp_path / "s.jsonl"
    script.write_text(
        json.dumps({"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "sim resume"}}]})
        + "\n"
    )
    spec = _spec(tmp_path, entrants=[ENTRANTS[0], {"name": "bot", "model": f"scripted:{script}"}])
    result = run_tournament(spec, InlineBackend(), log=lambda line: None)
    assert {row["name"] for row in result["entrants"]} == {"greedy", "bot"} and result["matches"] == 2
    seats = sorted((Path(spec.out) / "matches").glob("*/seat-*/trajectory.jsonl"))
    assert len(seats) == 2


@pytest.mark.parametrize(
    ("over", "changed"),
    [({"horizon": 2}, "horizon"), ({"seeds": "1-2"}, "seeds"), ({"format": "swiss", "rounds": 1}, "format, rounds")],
)
def test_a_tournament_whose_file_changed_refuses_to_go_on(
    tmp_path: Path, over: dict[str, object], changed: str
) -> None:
    run_tournament(_spec(tmp_path), InlineBackend(), log=lambda line: None)
    before = (Path(_spec(tmp_path).out) / "ratings.json").read_bytes()
    with pytest.raises(SweepError, match=f"played with other settings \\({changed} changed\\)"):
        run_tournament(_spec(tmp_path, **over), InlineBackend(), log=lambda line: None)
    assert (Path(_spec(tmp_path).out) / "ratings.json").read_bytes() == before


def test_a_match_played_with_other_settings_is_refused(tmp_path: Path) -> None:
    from bizbench.runner.tournament import _job, play_match

    spec = _spec(tmp_path)
    run_tournament(spec, InlineBackend(), log=lambda line: None)
    m = schedule(spec)[0]
    with pytest.raises(SweepError, match="was played with other settings"):
        play_match(_job(_spec(tmp_path, horizon=2), m, Path(spec.out)), Path(spec.out) / "matches" / m.name)


def test_the_order_entrants_are_listed_in_changes_neither_matches_nor_ratings(tmp_path: Path) -> None:
    three = [{"name": n, "baseline": n} for n in ("heuristic", "greedy", "random")]
    results = []
    for k, listed in enumerate((three, three[::-1], three[1:] + three[:1])):
        spec = _spec(tmp_path, seats=3, entrants=listed, out=str(tmp_path / f"t{k}"))
        assert sorted(m.name for m in schedule(spec)) == sorted(m.name for m in schedule(_spec(tmp_path, seats=3)))
        results.append(run_tournament(spec, InlineBackend(), log=lambda line: None))
    assert results[0]["entrants"] == results[1]["entrants"] == results[2]["entrants"]
    assert results[0]["head_to_head"] == results[1]["head_to_head"]


def test_entrant_names_with_dashes_make_distinct_matches(tmp_path: Path) -> None:
    names = ["a", "b-c", "a-b", "c"]
    spec = _spec(tmp_path, entrants=[{"name": n, "baseline": "greedy"} for n in names])
    matches = schedule(spec)
    assert len({m.name for m in matches}) == len(matches)


def test_a_swiss_entrant_who_sits_out_is_printed_without_a_rank(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    data = {"env": "yc", "seeds": [2], "horizon": 1, "format": "swiss", "rounds": 1, "entrants": ENTRANTS}
    path.write_text(_toml(data))
    done = CliRunner().invoke(app, ["tournament", str(path), "--backend", "inline", "--out", str(tmp_path / "o")])
    assert done.exit_code == 0, done.output
    assert "random" in done.output


def test_a_tournament_none_of_whose_matches_finished_may_change_its_file(tmp_path: Path) -> None:
    from bizbench.core.jsonio import write_json

    spec = _spec(tmp_path)
    Path(spec.out).mkdir(parents=True)
    write_json(Path(spec.out) / "tournament.json", _spec(tmp_path, horizon=2).model_dump(mode="json"))
    assert run_tournament(spec, InlineBackend(), log=lambda line: None)["matches"] == 6


def test_the_same_settings_listed_in_another_order_go_on(tmp_path: Path) -> None:
    run_tournament(_spec(tmp_path, seeds=[1, 2]), InlineBackend(), log=lambda line: None)
    again = _spec(tmp_path, seeds=[2, 1], entrants=ENTRANTS[::-1])
    assert run_tournament(again, InlineBackend(), log=lambda line: None)["matches"] == 12


def test_only_the_schedules_matches_played_with_its_settings_and_sound_standings_are_rated(tmp_path: Path) -> None:
    import json
    import shutil

    from bizbench.runner.tournament import recorded

    spec = _spec(tmp_path)
    run_tournament(spec, InlineBackend(), log=lambda line: None)
    out = Path(spec.out)
    matches, _, left_out = recorded(spec, out)
    assert len(matches) == 6 and left_out == {}
    first, second = sorted((out / "matches").iterdir())[:2]
    shutil.copytree(first, out / "matches" / (first.name + "-copy"))  # not a match of the schedule
    outcome = json.loads((second / "standings.json").read_text())
    outcome["standings"][0]["rank"], outcome["standings"][1]["rank"] = 2, 1  # ranks no longer follow the scores
    if outcome["standings"][0]["score"] != outcome["standings"][1]["score"]:
        (second / "standings.json").write_text(json.dumps(outcome))
    settings = json.loads((first / "match.json").read_text())
    (first / "match.json").write_text(json.dumps({**settings, "horizon": 9}))
    matches, _, left_out = recorded(spec, out)
    assert first.name + "-copy" not in {m.name for m in matches}
    assert "was played with other settings" in left_out[first.name]
    if second.name in left_out:
        assert left_out[second.name] == "standings.json's ranks do not follow its scores"
    assert len(matches) == 6 - len(left_out)
