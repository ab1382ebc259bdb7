"""A person's game (bizbench/play/game.py, docs/play.md): a normal run directory, resumable, verifiable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.envs import get_env, list_envs
from bizbench.core.jsonio import read_jsonl
from bizbench.core.runs import RunDirError, load_run
from bizbench.play.game import END_TURN, Game
from bizbench.report.build import build_report
from bizbench.runner.replay import replay_run
from bizbench.runner.resume import resume_run

ENVS = [spec.id for spec in list_envs()]
#: a few turns of each env, with a call of each kind (accepted, refused) and a memory save
SHORT = {"ceo": 21, "yc": 4, "cfo": 3}


def _game(env_id: str, path: Path, seed: int = 5, **kw: Any) -> Game:
    return Game(env_id, seed, out=path, name="tester", horizon=kw.pop("horizon", SHORT.get(env_id, 3)), **kw)


def _some_play(game: Game) -> None:
    """Every kind of thing a page sends: reads, a refused call, the memory and a turn's end."""
    tools = game.info()["tools"]
    for tool in tools:
        if not tool["mutates"] and not tool["schema"].get("required"):
            game.call(tool["name"], {})
            break
    game.call(tools[0]["name"], {"no_such_argument": 1})
    if game.info()["memory"]["editable"]:
        game.save_memory("remember: cash first")
    game.end_turn()


@pytest.mark.parametrize("env_id", ENVS)
def test_a_game_is_a_run_of_human_name_with_every_call_appended_as_it_happens(env_id: str, tmp_path: Path) -> None:
    game = _game(env_id, tmp_path / "run")
    try:
        config = json.loads((tmp_path / "run" / "config.json").read_text())
        assert (config["agent"], config["interface"], config["env"]) == ("human:tester", "play", env_id)
        game.call("no_such_tool", {})
        rows = read_jsonl(tmp_path / "run" / "actions.jsonl")
        assert rows[-1]["tool"] == "no_such_tool" and rows[-1]["ok"] is False
        assert [h["tool"] for h in game.state()["history"]] == ["no_such_tool"]
    finally:
        game.close()


@pytest.mark.parametrize("env_id", ENVS)
def test_a_refused_call_names_its_problem_and_changes_nothing(env_id: str, tmp_path: Path) -> None:
    game = _game(env_id, tmp_path / "run")
    try:
        before = game.episode.state_digest()
        tool = game.info()["tools"][0]["name"]
        answer = game.call(tool, {"no_such_argument": 1})
        assert answer["ok"] is False and "no_such_argument" in answer["error"]
        assert game.episode.state_digest() == before and game.state()["turn"] == 0
    finally:
        game.close()


@pytest.mark.parametrize("env_id", ENVS)
def test_the_score_is_shown_only_once_the_game_is_over(env_id: str, tmp_path: Path) -> None:
    """A running score would show what a seat hides (cfo: the score is cash and valuation)."""
    game = _game(env_id, tmp_path / "run", horizon=1)
    try:
        assert game.state()["score"] is None
        while not game.state()["finished"]:
            game.end_turn()
        state = game.state()
        result = json.loads((tmp_path / "run" / "result.json").read_text())
        assert state["result"]["score"] == result["score"] and state["score"] == max(result["score"], 0.0)
        assert result["ended_by"] in ("completed", "bankrupt")
    finally:
        game.close()


@pytest.mark.parametrize("env_id", ENVS)
def test_a_stopped_game_is_finished_and_replay_verifies_it(env_id: str, tmp_path: Path) -> None:
    game = _game(env_id, tmp_path / "run")
    try:
        _some_play(game)
        shown = game.stop()
        result = json.loads((tmp_path / "run" / "result.json").read_text())
        assert shown is not None and shown["ended_by"] == result["ended_by"] == "stopped"
        assert result["agent"] == "human:tester" and "seed" not in shown
        history = len(game.history)
        assert game.call(game.info()["tools"][0]["name"], {})["ok"] is False  # the game is over
        assert len(game.history) == history  # a call after the end is in no record
    finally:
        game.close()
    report = replay_run(tmp_path / "run")
    assert report.ok, report.problem()


@pytest.mark.parametrize("env_id", ENVS)
def test_a_resumed_game_is_the_game_it_was_and_plays_on(env_id: str, tmp_path: Path) -> None:
    path = tmp_path / "run"
    game = _game(env_id, path)
    _some_play(game)
    _some_play(game)
    digest, state = game.episode.state_digest(), game.state()
    game.close()  # the tab was closed: no result.json

    again = Game.resume(path)
    try:
        assert again.episode.state_digest() == digest
        resumed = again.state()
        for key in ("turn", "elapsed", "memory", "charts", "observation"):
            assert resumed[key] == state[key], key
        if get_env(env_id).play:  # its end-turn control is one row of the record, shown one way
            assert resumed["history"] == state["history"]
        row = read_jsonl(path / "resume.jsonl")[-1]
        assert row["actions_match"] and row["actions_checked"] == len(
            read_jsonl(path / "attempts" / "1" / "actions.jsonl")
        )
        again.end_turn()
        again.stop()
    finally:
        again.close()
    assert replay_run(path).ok


def test_resuming_refuses_a_finished_game_and_a_run_no_person_played(tmp_path: Path) -> None:
    game = _game("cfo", tmp_path / "done")
    game.stop()
    game.close()
    with pytest.raises(RunDirError, match="finished"):
        Game.resume(tmp_path / "done")
    from bizbench.runner.episode import run_baseline

    run_baseline("cfo", seed=1, horizon=2, out=tmp_path / "baseline")
    with pytest.raises(RunDirError, match="not a person's game"):
        Game.resume(tmp_path / "baseline")


def test_bizbench_resume_of_a_persons_game_says_it_is_served_again(tmp_path: Path) -> None:
    game = _game("cfo", tmp_path / "run")
    game.close()
    with pytest.raises(RunDirError, match="person's game"):
        resume_run(tmp_path / "run")


def test_one_page_plays_a_game_at_a_time(tmp_path: Path) -> None:
    game = _game("cfo", tmp_path / "run")
    try:
        with pytest.raises(RunDirError, match="resumed by another process"):
            Game.resume(tmp_path / "run")
    finally:
        game.close()


def test_a_new_game_never_writes_over_a_run(tmp_path: Path) -> None:
    game = _game("cfo", tmp_path / "run")
    game.close()
    with pytest.raises(ValueError, match="already holds a run"):
        _game("cfo", tmp_path / "run")


@pytest.mark.parametrize("name", ["", "a b", "../x", "-x", "x" * 65, "é"])
def test_a_players_name_is_checked(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="player's name"):
        Game("cfo", 1, out=tmp_path / "run", name=name)
    assert not (tmp_path / "run" / "config.json").exists()


def test_a_game_that_cannot_start_says_why_and_leaves_no_directory(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="no_such_env"):
        Game("no_such_env", 1, out=tmp_path / "runs" / "run")
    with pytest.raises(ValueError, match="horizon"):
        Game("cfo", 1, out=tmp_path / "run", horizon=0)
    assert sorted(tmp_path.iterdir()) == []


def test_the_ceo_memory_is_memory_md_in_the_run_directory(tmp_path: Path) -> None:
    game = _game("ceo", tmp_path / "run")
    try:
        assert game.save_memory("# plan\nraise prices")["ok"]
        assert (tmp_path / "run" / "MEMORY.md").read_text() == "# plan\nraise prices"
        assert game.state()["memory"] == "# plan\nraise prices"
        assert game.save_memory(7)["ok"] is False and game.save_memory("x" * 200_001)["ok"] is False
        assert not read_jsonl(tmp_path / "run" / "actions.jsonl")  # not a call of the world
    finally:
        game.close()
    from bizbench.envs.ceo.viewer import memory

    shown = memory(load_run(tmp_path / "run"), [], [])  # the viewer: a game has no harness's weekly copies
    assert shown is not None and shown(0).startswith("# plan\nraise prices") and "as the game left it" in shown(3)


@pytest.mark.parametrize(("env_id", "tool"), [("yc", "scratchpad_write"), ("cfo", "save_note")])
def test_saving_the_memory_is_the_envs_own_recorded_call(env_id: str, tool: str, tmp_path: Path) -> None:
    game = _game(env_id, tmp_path / "run")
    try:
        assert game.save_memory("watch the runway")["ok"]
        assert "watch the runway" in game.state()["memory"]
        assert read_jsonl(tmp_path / "run" / "actions.jsonl")[-1]["tool"] == tool
    finally:
        game.close()


def test_the_end_turn_control_ends_the_turn_the_envs_default_way(tmp_path: Path) -> None:
    game = _game("ceo", tmp_path / "run")
    try:
        assert game.end_turn()["ok"]
        state = game.state()
        assert (state["turn"], state["elapsed"]) == (1, 7)
        assert state["history"][-1]["tool"] == END_TURN and state["history"][-1]["turn_after"] == 1
        assert read_jsonl(tmp_path / "run" / "actions.jsonl")[-1]["tool"] == get_env("ceo").replay.advance_action
    finally:
        game.close()


def test_the_cfo_charts_hold_only_what_the_player_paid_to_see(tmp_path: Path) -> None:
    game = _game("cfo", tmp_path / "run")
    try:
        charts = {c["id"]: c for c in game.state()["charts"]}
        assert all(not c["series"] for c in charts.values())
        cash = game.call("check_cash_in_bank", {})["data"]["cash"]
        charts = {c["id"]: c for c in game.state()["charts"]}
        assert charts["cash"]["series"] == [{"name": "cash", "points": [[0, cash]]}]
        game.end_turn()
        game.call("book_closing", {})  # month 1 closes month 0's books
        game.call("access_financial_docs", {"action": "retrieve", "filename": "financial_statements_month_0.json"})
        charts = {c["id"]: {s["name"]: s["points"] for s in c["series"]} for c in game.state()["charts"]}
        assert set(charts["income"]) == {"revenue", "net income"} and set(charts["equity"]) == {"equity"}
        assert charts["income"]["revenue"][0][0] == 0  # drawn at the month the statement covers
    finally:
        game.close()


def test_a_report_shows_a_persons_runs_marked_human(tmp_path: Path) -> None:
    game = _game("cfo", tmp_path / "runs" / "human")
    game.stop()
    game.close()
    from bizbench.runner.episode import run_baseline

    run_baseline("cfo", seed=5, horizon=3, out=tmp_path / "runs" / "baseline")
    report = build_report([tmp_path / "runs"], tmp_path / "report", None, anchors=False, make_plots=False)
    text = report.markdown()
    assert "tester (human)" in text and "(human) = a person played" in text
    assert load_run(tmp_path / "runs" / "human").human and not load_run(tmp_path / "runs" / "baseline").human


def test_the_time_played_before_a_resume_counts_in_wall_seconds(tmp_path: Path) -> None:
    """Two sittings: wall_seconds counts both (the first from its start to its last call)."""
    import os

    path = tmp_path / "run"
    game = _game("cfo", path)
    game.end_turn()
    game.close()
    start = (path / "config.json").stat().st_mtime
    os.utime(path / "actions.jsonl", (start + 600, start + 600))  # the first sitting's last call, 10 minutes in
    again = Game.resume(path)
    try:
        again.stop()
    finally:
        again.close()
    assert 600 <= json.loads((path / "result.json").read_text())["wall_seconds"] < 660


def test_the_viewer_shows_a_persons_game_as_one(tmp_path: Path) -> None:
    from bizbench.report.viewer import load_run as view_run

    game = _game("cfo", tmp_path / "run")
    game.end_turn()
    game.stop()
    game.close()
    assert view_run(tmp_path / "run")["run_kind"].startswith("a person's game")


def test_a_refused_call_named_like_the_turn_end_is_resumed_as_a_refused_call(tmp_path: Path) -> None:
    """ceo's turn end is logged as next_turn, which is no tool: the page may still send it (refused);
    a resume must neither end a turn for it nor crash on its arguments (found by an attacker)."""
    path = tmp_path / "run"
    game = _game("ceo", path)
    for args in ({}, {"days": 3}, {"bogus": 1}):
        assert game.call("next_turn", args)["ok"] is False
    game.end_turn()
    digest, turn = game.episode.state_digest(), game.state()["turn"]
    game.close()
    again = Game.resume(path)
    try:
        assert (again.episode.state_digest(), again.state()["turn"]) == (digest, turn) == (digest, 1)
        assert read_jsonl(path / "resume.jsonl")[-1]["actions_match"]
    finally:
        again.close()


@pytest.mark.parametrize(
    ("env_id", "tool", "args"),
    [
        ("ceo", "query", {"sql": "SELECT 1 -- " + "x" * 17_000}),  # a read replay skips, kept as a digest
        ("ceo", "set_prices", {"bogus": "x" * 17_000}),
        ("cfo", "save_note", {"content": 5, "pad": "x" * 17_000}),
        ("yc", "scratchpad_write", {"content": 5, "pad": "x" * 17_000}),
    ],
)
def test_a_call_recorded_as_a_digest_is_restored_by_a_resume(
    env_id: str, tool: str, args: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "run"
    game = _game(env_id, path)
    game.call(tool, args)
    game.end_turn()
    before = (game.episode.state_digest(), game.episode.env.result().get("tool_calls"), len(game.history))
    game.close()
    assert "args_sha256" in read_jsonl(path / "actions.jsonl")[0]
    again = Game.resume(path)
    try:
        after = (again.episode.state_digest(), again.episode.env.result().get("tool_calls"), len(again.history))
        assert after == before and again.history[0]["tool"] == tool
        assert read_jsonl(path / "resume.jsonl")[-1]["actions_match"]
        again.stop()
    finally:
        again.close()
    assert replay_run(path).ok


def test_a_resume_plays_the_longest_record_of_the_attempts(tmp_path: Path) -> None:
    """A resume that died early leaves a shorter attempt; the next resume still plays the whole game."""
    path = tmp_path / "run"
    game = _game("cfo", path)
    game.call("check_cash_in_bank", {})
    game.end_turn()
    game.close()
    Game.resume(path).close()
    (path / "actions.jsonl").write_text("")  # a resume killed before it re-sent anything
    again = Game.resume(path)
    try:
        assert again.state()["turn"] == 1 and len(again.history) == 2
    finally:
        again.close()


def test_a_resume_holds_the_game_from_its_archive_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second resume between the archive and the new game would archive an empty attempt (found
    by an attacker): it is refused."""
    import bizbench.play.game as game_module

    path = tmp_path / "run"
    game = _game("cfo", path)
    game.end_turn()
    game.close()
    archive = game_module.archive_attempt
    refusals: list[str] = []

    def archive_and_race(p: Path) -> list[Path]:
        with pytest.raises(RunDirError, match="being resumed") as refused:
            Game.resume(p)
        refusals.append(str(refused.value))
        return archive(p)

    monkeypatch.setattr(game_module, "archive_attempt", archive_and_race)
    again = Game.resume(path)
    try:
        assert refusals and again.state()["turn"] == 1
    finally:
        again.close()
