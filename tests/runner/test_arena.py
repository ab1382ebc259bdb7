"""``bizbench arena`` and the arena directory (runner/arena.py): the record, its replay, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bizbench.agents.recording import Limits
from bizbench.cli import app
from bizbench.core.jsonio import read_json
from bizbench.runner.arena import run_arena, standings
from bizbench.runner.replay import replay_arena


@pytest.fixture(scope="module")
def arena_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("arena") / "a"
    run_arena("yc", ["heuristic", "random", "greedy"], seed=8, horizon=3, out=out)
    return out


def test_an_arena_directory_holds_its_setup_every_seat_and_the_standings(arena_dir: Path) -> None:
    setup, outcome = read_json(arena_dir / "arena.json"), read_json(arena_dir / "standings.json")
    assert setup is not None and outcome is not None
    assert setup["agents"] == ["heuristic", "random", "greedy"] and setup["seats"] == 3 and setup["seed"] == 8
    for i in range(3):
        seat = arena_dir / f"seat-{i}"
        config, result = read_json(seat / "config.json"), read_json(seat / "result.json")
        assert config is not None and result is not None
        assert config["arena"] == {"seat": i, "seats": 3}
        assert outcome["standings"][i]["score"] == result["score"]
        assert (seat / "actions.jsonl").stat().st_size > 0


def test_replay_verifies_every_seat_of_an_arena(arena_dir: Path) -> None:
    *seats, standings_report = replay_arena(arena_dir)
    assert [r.ok for r in seats] == [True, True, True]
    assert all(r.actions_sent > 0 and "final_funds_cents" in r.compared for r in seats)
    assert standings_report.ok and standings_report.compared == [
        "standings",
        "contests",
        "contest_log",
        "seat_contests",
        "agents",
    ]


def test_replay_finds_an_edited_seat_and_leaves_the_others_verified(arena_dir: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "edited"
    shutil.copytree(arena_dir, copy)
    result_path = copy / "seat-1" / "result.json"
    result = json.loads(result_path.read_text())
    result["final_funds_cents"] += 100
    result_path.write_text(json.dumps(result))
    reports = replay_arena(copy)
    assert [r.ok for r in reports] == [True, False, True, True]
    assert "final_funds_cents" in reports[1].mismatches


def test_replay_of_a_killed_arena_says_the_arena_is_unfinished(arena_dir: Path, tmp_path: Path) -> None:
    import shutil

    from bizbench.core.runs import RunDirError

    copy = tmp_path / "killed"
    shutil.copytree(arena_dir, copy)
    (copy / "standings.json").unlink()
    (copy / "seat-0" / "result.json").unlink()
    with pytest.raises(RunDirError, match=r"killed is an unfinished arena \(no standings.json\): bizbench resume"):
        replay_arena(copy)


def test_replay_finds_edited_standings(arena_dir: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "edited"
    shutil.copytree(arena_dir, copy)
    outcome = json.loads((copy / "standings.json").read_text())
    outcome["standings"][0]["rank"] += 1
    (copy / "standings.json").write_text(json.dumps(outcome))
    *seats, standings_report = replay_arena(copy)
    assert all(r.ok for r in seats) and not standings_report.ok
    assert list(standings_report.mismatches) == ["standings"]


def test_replay_finds_standings_that_credit_another_agent(arena_dir: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "swapped"
    shutil.copytree(arena_dir, copy)
    outcome = json.loads((copy / "standings.json").read_text())
    rows = outcome["standings"]
    rows[0]["agent"], rows[1]["agent"] = rows[1]["agent"], rows[0]["agent"]
    (copy / "standings.json").write_text(json.dumps(outcome))
    *seats, standings_report = replay_arena(copy)
    assert all(r.ok for r in seats) and not standings_report.ok
    assert list(standings_report.mismatches) == ["agents"]
    assert standings_report.mismatches["agents"]["recorded"][:2] == ["random", "heuristic"]


def test_equal_scores_share_a_rank_and_the_next_rank_skips() -> None:
    rows = standings(
        [
            {"agent": "a", "score": 5.0, "final_cash": 5.0, "bankrupt": False},
            {"agent": "b", "score": 9.0, "final_cash": 9.0, "bankrupt": False},
            {"agent": "c", "score": 5.0, "final_cash": 5.0, "bankrupt": False},
            {"agent": "d", "score": -1.0, "final_cash": -1.0, "bankrupt": True},
        ]
    )
    assert [r["rank"] for r in rows] == [2, 1, 2, 4]


def test_the_cli_runs_an_arena_prints_its_standings_and_replays_it(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cli"
    done = runner.invoke(app, ["arena", "yc", "--seats", "2", "-a", "heuristic", "--horizon", "1", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "heuristic" in done.output and (out / "standings.json").is_file()
    replayed = runner.invoke(app, ["replay", str(out), "--verdicts", str(tmp_path / "verdicts")])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.count("verified") >= 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "yc", "--seats", "3", "-a", "greedy", "-a", "random"], "--seats 3 but 2 --agent options"),
        (["arena", "yc", "-a", "nobody"], "seat 'nobody' is neither a yc baseline"),
        (["arena", "cfo"], "env 'cfo' has no arena"),
        (["arena", "yc", "--seats", "9"], "--seats must be a whole number from 1 to 8"),
        (["arena", "yc", "--no-db"], "--db/--no-db is a world option of an env with a database; yc has none"),
        (["arena", "yc", "--seats", "0"], "--seats must be a whole number from 1 to 8, got 0"),  # as --seats 9
        (["arena", "yc", "-a", "greedy", "--max-turns", "3"], "--max-turns: for model seats, and no seat is a model"),
    ],
)
def test_the_cli_refuses_a_bad_arena_with_a_clear_error(args: list[str], message: str, tmp_path: Path) -> None:
    done = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "x")])
    assert done.exit_code == 2
    assert message in " ".join(done.output.split())
    assert not (tmp_path / "x" / "standings.json").exists()


def _script(path: Path, *commands: str) -> Path:
    replies = [{"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": c}}]} for c in commands]
    path.write_text("\n".join(json.dumps(r) for r in replies) + "\n")
    return path


def test_a_model_seat_plays_through_its_harness_records_its_trajectory_and_replays(tmp_path: Path) -> None:
    script = _script(tmp_path / "s.jsonl", "company status", "market browse --limit 3", "sim resume")
    out = tmp_path / "m"
    outcome = run_arena(
        "yc", ["heuristic", f"scripted:{script}"], seed=3, horizon=3, out=out, limits=Limits(max_turns=4)
    )
    seat = out / "seat-1"
    for name in ("trajectory.jsonl", "system_prompt.txt", "tools.json", "actions.jsonl"):
        assert (seat / name).is_file(), name
    result = read_json(seat / "result.json")
    assert result is not None
    assert result["harness"] == "cli-chat" and result["ended_by"] == "max_turns" and result["turns"] == 4
    assert outcome["standings"][1]["agent"] == result["agent"]
    assert [r.ok for r in replay_arena(out)] == [True, True, True]


def test_a_seat_is_a_baseline_or_a_model_in_an_in_process_harness(tmp_path: Path) -> None:
    script = _script(tmp_path / "s.jsonl", "sim resume")
    with pytest.raises(ValueError, match="the terminal harness serves its own env"):
        run_arena("yc", [f"scripted:{script}"], horizon=1, harness="terminal")
    with pytest.raises(ValueError, match="options are a baseline's"):
        run_arena("yc", [f"scripted:{script}"], horizon=1, options=[{"x": 1}])
    with pytest.raises(ValueError, match="neither a yc baseline"):
        run_arena("yc", ["gpt-nobody"], horizon=1)


def test_a_ceo_arena_without_databases_writes_none_and_records_the_choice(tmp_path: Path) -> None:
    out = tmp_path / "c"
    args = ["arena", "ceo", "-a", "rule-based", "-a", "do-nothing", "--horizon", "7", "--no-db", "--out", str(out)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    assert not list(out.rglob("company.db"))
    setup = read_json(out / "arena.json")
    assert setup is not None and setup["world_options"] == {"database": False}


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"env": "nope", "seats": 1}, "unknown env 'nope'"),
        ({"env": "yc", "seats": 0}, "'seats' must be a whole number of at least 1, got 0"),
        ({"env": "yc"}, "'seats' must be a whole number of at least 1, got None"),
    ],
)
def test_replay_names_what_is_wrong_with_an_arena_json(tmp_path: Path, setup: dict[str, object], message: str) -> None:
    from bizbench.core.runs import RunDirError

    (tmp_path / "arena.json").write_text(json.dumps(setup))
    with pytest.raises(RunDirError, match=message):
        replay_arena(tmp_path)


def test_a_served_seat_plays_an_agent_outside_through_its_workspace_and_replays(tmp_path: Path) -> None:
    import threading

    from bizbench.core._shell_client import post
    from bizbench.core.envs import get_env
    from bizbench.core.seat import seat_of

    seat = seat_of(get_env("yc"))
    agents: list[threading.Thread] = []

    def agent(socket: Path) -> None:  # an outside agent: resumes through the socket until the year ends
        while True:
            answer = json.loads(post(str(socket), "/call", {"tool": "sim_resume", "args": {}}))
            if not answer["success"] or answer["data"]["done"]:
                return

    def start(i: int, server: object, workspace: Path) -> None:
        assert (workspace / "bin" / "bizbench").is_file()
        assert "RIVALS. Rival startups (1 of them)" in (workspace / "instructions.md").read_text()
        agents.append(threading.Thread(target=agent, args=(seat.socket_path(workspace),), daemon=True))
        agents[-1].start()

    out = tmp_path / "served"
    outcome = run_arena("yc", ["heuristic", f"serve:{tmp_path / 'ws'}"], seed=3, horizon=2, out=out, on_served=start)
    assert [row["agent"] for row in outcome["standings"]] == ["heuristic", "served"]
    result = read_json(out / "seat-1" / "result.json")
    assert result is not None and result["ended_by"] == "episode_end" and result["done"]
    assert all(report.ok for report in replay_arena(out))


def test_bizbench_arena_runs_a_served_seats_agent_in_its_sandbox(tmp_path: Path) -> None:
    from bizbench.cli_sandbox import sandbox_refusal

    if sandbox_refusal("--exec"):
        pytest.skip(str(sandbox_refusal("--exec")))
    agent = (
        "for i in $(seq 1 50); do out=$(bin/bizbench yc --session /workspace sim resume); "
        'case "$out" in *\'"done": true\'*) exit 0;; esac; done; exit 1'
    )
    out = tmp_path / "out"
    args = ["arena", "yc", "-a", "heuristic", "-a", f"serve:{tmp_path / 'ws'}", "--horizon", "2", "--seed", "3"]
    done = CliRunner().invoke(app, [*args, "--out", str(out), "--exec", agent])
    assert done.exit_code == 0, done.output
    result = read_json(out / "seat-1" / "result.json")
    assert result is not None and result["ended_by"] == "episode_end" and result["resumes"] == 2


def test_exec_options_must_match_the_served_seats(tmp_path: Path) -> None:
    args = ["arena", "yc", "-a", f"serve:{tmp_path / 'a'}", "-a", f"serve:{tmp_path / 'b'}", "-a", "greedy"]
    done = CliRunner().invoke(app, [*args, "--exec", "true", "--exec", "true", "--exec", "true"])
    assert done.exit_code == 2
    assert "2 served seats but 3 --exec options" in " ".join(done.output.split())


def _kill(arena: Path) -> None:
    """Leave ``arena`` as a kill in the middle would: no standings, no seat results, half of each log."""
    (arena / "standings.json").unlink()
    for seat in sorted(arena.glob("seat-*")):
        (seat / "result.json").unlink()
        for log in ("actions.jsonl", "metrics.jsonl", "trajectory.jsonl"):
            if (seat / log).is_file():
                lines = (seat / log).read_text().splitlines(keepends=True)
                (seat / log).write_text("".join(lines[: len(lines) // 2]))


def test_a_killed_arena_resumes_to_what_an_uninterrupted_one_gives(tmp_path: Path) -> None:
    from bizbench.runner.resume import resume_arena

    script = _script(tmp_path / "s.jsonl", "company status", "market browse --limit 3", "sim resume", "sim resume")
    agents, limits = ["heuristic", "greedy", f"scripted:{script}"], Limits(max_turns=4)
    whole = run_arena("yc", agents, seed=5, horizon=3, out=tmp_path / "whole", limits=limits)
    run_arena("yc", agents, seed=5, horizon=3, out=tmp_path / "killed", limits=limits)
    _kill(tmp_path / "killed")
    assert resume_arena(tmp_path / "killed") == whole
    for i in range(3):
        seat = tmp_path / "killed" / f"seat-{i}"
        (row,) = [json.loads(line) for line in (seat / "resume.jsonl").read_text().splitlines()]
        assert row["actions_match"] and row["actions_checked"] > 0
        assert (seat / "actions.jsonl").read_bytes() == (
            tmp_path / "whole" / f"seat-{i}" / "actions.jsonl"
        ).read_bytes()
    assert row["replies_reused"] > 0  # the model seat replayed its record instead of asking again
    assert (tmp_path / "killed" / "attempts" / "1" / "arena.json").is_file()
    assert all(report.ok for report in replay_arena(tmp_path / "killed"))
    assert resume_arena(tmp_path / "killed") == whole  # a finished arena is left as it is


def test_a_seat_of_an_arena_is_resumed_only_with_its_arena(tmp_path: Path) -> None:
    from bizbench.runner.resume import resume_run
    from bizbench.runner.runconfig import RunDirError

    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "a")
    _kill(tmp_path / "a")
    before = sorted(p.name for p in (tmp_path / "a" / "seat-0").iterdir())
    with pytest.raises(RunDirError, match=r"is seat 0 of the arena in .*: .*bizbench resume"):
        resume_run(tmp_path / "a" / "seat-0")
    assert sorted(p.name for p in (tmp_path / "a" / "seat-0").iterdir()) == before


def test_the_cli_resumes_a_killed_arena_and_the_arena_command_says_how(tmp_path: Path) -> None:
    out = tmp_path / "a"
    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=out)
    whole = read_json(out / "standings.json")
    _kill(out)
    again = CliRunner().invoke(
        app, ["arena", "yc", "-a", "heuristic", "-a", "greedy", "--seed", "5", "--out", str(out)]
    )
    assert again.exit_code == 2 and "bizbench resume" in again.output
    done = CliRunner().invoke(app, ["resume", str(out)])
    assert done.exit_code == 0, done.output
    assert "resumed" in done.output and read_json(out / "standings.json") == whole


def test_two_served_seats_cannot_share_a_workspace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="two served seats share the workspace"):
        run_arena("yc", [f"serve:{tmp_path / 'ws'}", f"serve:{tmp_path / 'ws'}"], horizon=1, out=tmp_path / "a")
    assert not (tmp_path / "a").exists()


def test_a_resumed_arenas_killed_attempt_is_not_counted_as_runs(tmp_path: Path) -> None:
    from bizbench.core.runs import find_runs
    from bizbench.runner.resume import resume_arena

    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "a")
    _kill(tmp_path / "a")
    resume_arena(tmp_path / "a")
    assert (tmp_path / "a" / "attempts" / "1" / "seat-0" / "config.json").is_file()
    assert [r.path.name for r in find_runs([tmp_path])] == ["seat-0", "seat-1"]


def test_a_resume_killed_after_moving_the_attempt_aside_can_be_resumed_again(tmp_path: Path) -> None:
    from bizbench.runner.resume import archive_attempt

    whole = run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "whole")
    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "a")
    _kill(tmp_path / "a")
    archive_attempt(tmp_path / "a")  # where a killed resume stops first
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["arena.json", "attempts"]
    assert CliRunner().invoke(app, ["resume", str(tmp_path / "a")]).exit_code == 0
    assert read_json(tmp_path / "a" / "standings.json") == whole


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda setup: setup.update(agents=["heuristic"]), "'agents' must list one agent a seat"),
        (lambda setup: setup.update(preset="nowhere"), "no longer builds the recorded world"),
        (lambda setup: setup.update(env="cfo"), "env 'cfo' has no arena"),
    ],
)
def test_a_bad_arena_json_is_refused_before_anything_moves(tmp_path: Path, edit: Any, message: str) -> None:
    from bizbench.runner.resume import resume_arena
    from bizbench.runner.runconfig import RunDirError

    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "a")
    _kill(tmp_path / "a")
    setup = json.loads((tmp_path / "a" / "arena.json").read_text())
    edit(setup)
    (tmp_path / "a" / "arena.json").write_text(json.dumps(setup))
    with pytest.raises(RunDirError, match=message):
        resume_arena(tmp_path / "a")
    assert not (tmp_path / "a" / "attempts").exists()


def test_a_model_seat_without_its_record_is_never_started_from_arena_json(tmp_path: Path) -> None:
    """A seat killed before its config.json was written leaves only arena.json's word: a model named
    there (possibly on a server of anyone's choosing) is not started with the user's key."""
    import shutil

    from bizbench.runner.resume import resume_arena
    from bizbench.runner.runconfig import RunDirError

    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "a")
    _kill(tmp_path / "a")
    setup = json.loads((tmp_path / "a" / "arena.json").read_text())
    setup["agents"][1] = "openai-compatible/fake@http://127.0.0.1:9/v1"
    (tmp_path / "a" / "arena.json").write_text(json.dumps(setup))
    shutil.rmtree(tmp_path / "a" / "seat-1")
    with pytest.raises(RunDirError, match="seat 1 .* has no config.json in the arena or its attempts"):
        resume_arena(tmp_path / "a")


def test_a_model_seat_recorded_without_its_limits_is_not_resumed_without_them(tmp_path: Path) -> None:
    from bizbench.runner.resume import resume_arena
    from bizbench.runner.runconfig import RunDirError

    script = _script(tmp_path / "s.jsonl", "company status", "sim resume")
    run_arena(
        "yc", ["heuristic", f"scripted:{script}"], seed=5, horizon=2, out=tmp_path / "a", limits=Limits(max_turns=3)
    )
    _kill(tmp_path / "a")
    config = json.loads((tmp_path / "a" / "seat-1" / "config.json").read_text())
    del config["limits"]  # as an arena recorded before limits were kept
    (tmp_path / "a" / "seat-1" / "config.json").write_text(json.dumps(config))
    with pytest.raises(RunDirError, match="would play without its --max-turns/--max-dollars"):
        resume_arena(tmp_path / "a")


def test_a_seat_that_finished_is_still_resumed_only_with_its_arena(tmp_path: Path) -> None:
    run_arena("yc", ["heuristic", "greedy"], seed=5, horizon=2, out=tmp_path / "a")
    (tmp_path / "a" / "standings.json").unlink()  # killed while writing the standings
    done = CliRunner().invoke(app, ["resume", str(tmp_path / "a" / "seat-0")])
    assert done.exit_code == 2 and "resume the arena" in done.output


def test_one_workspace_named_two_ways_is_still_one_workspace(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    twice = [f"serve:{tmp_path / 'ws'}", f"serve:{tmp_path / 'sub' / '..' / 'ws'}"]
    with pytest.raises(ValueError, match="two served seats share the workspace"):
        run_arena("yc", twice, horizon=1, out=tmp_path / "a")
    assert not (tmp_path / "a").exists()


def test_a_bankrupt_company_ranks_by_its_headline_score_not_by_how_deep_its_overdraft_went(tmp_path: Path) -> None:
    """docs/reports.md: a failed company's headline score is 0, through every door; two that failed tie."""
    from bizbench.runner.arena import standings

    failed = [
        {"agent": "a", "score": -2_158.5, "final_cash": -2_158.5, "bankrupt": True},
        {"agent": "b", "score": -7_235.0, "final_cash": -7_235.0, "bankrupt": True},
        {"agent": "c", "score": 10.0, "final_cash": 10.0, "bankrupt": False},
    ]
    rows = standings(failed)
    assert [(r["headline_score"], r["rank"]) for r in rows] == [(0.0, 2), (0.0, 2), (10.0, 1)]
    assert [r["rank"] for r in standings(failed, by_headline=False)] == [2, 3, 1]  # an older standings.json
