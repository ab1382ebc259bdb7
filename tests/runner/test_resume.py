"""bizbench resume: a run killed at any point ends with the result.json of an uninterrupted run."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.cli import app
from bizbench.core.jsonio import read_jsonl
from bizbench.runner import resume as resume_module
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.episode import run_baseline
from bizbench.runner.replay import replay_run
from bizbench.runner.resume import archive_attempt, finished, log_attempt, resume_run
from bizbench.runner.runconfig import RunDirError

VOLATILE = ("wall_seconds", "provenance")


def outcome(path: Path) -> dict[str, object]:
    data = json.loads((path / "result.json").read_text())
    return {k: v for k, v in data.items() if k not in VOLATILE}


def cfo_script(path: Path, months: int = 140) -> Path:
    """Three replies a month: a tool, a note, an action (a $20M equity request every year)."""
    lines = []
    for m in range(months):
        lines.append(
            {
                "content": '{"type": "tool", "name": "check_cash_in_bank", "params": {}}',
                "usage": {"input_tokens": 900, "output_tokens": 40},
            }
        )
        lines.append(
            {"content": f'{{"type": "memory", "operation": "save_note", "content": "note {m}", "tags": ["m"]}}'}
        )
        action = (
            '{"type": "action", "name": "fund_raising_request", "params": {"type": "equity", "amount": 20000000}}'
            if m % 12 == 0
            else '```json\n{"type": "action", "name": "book_closing", "params": {}}\n```'
        )
        lines.append({"content": action})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


KILLED_MODEL = """
import os, signal, sys
from pathlib import Path
from bizbench.agents.models.scripted import ScriptedModel
from bizbench.runner.agent_episode import run_agent_episode

class Killed(ScriptedModel):
    calls = 0
    def complete(self, messages, tools=None):
        Killed.calls += 1
        if Killed.calls > int(sys.argv[3]):  # SIGKILLed while asking for reply N + 1
            os.kill(os.getpid(), signal.SIGKILL)
        return super().complete(messages, tools)

model = Killed.from_file(sys.argv[1])
run_agent_episode("cfo", model, 1, "paper", Path(sys.argv[2]), model_spec="scripted:" + sys.argv[1])
"""


def test_model_run_killed_in_five_places_resumes_to_the_same_result(tmp_path: Path) -> None:
    """Killed after 1, 40, 95, 142 and 188 of its 189 replies (a count, not a delay: every kill
    lands inside the run on any machine), the run resumes to the uninterrupted run's result."""
    script = cfo_script(tmp_path / "replies.jsonl")
    reference = tmp_path / "reference"
    run_agent_episode("cfo", ScriptedModel.from_file(script), 1, "paper", reference, model_spec=f"scripted:{script}")
    expected = outcome(reference)
    program = tmp_path / "killed_run.py"
    program.write_text(KILLED_MODEL)
    for n in (1, 40, 95, 142, 188):
        run_dir = tmp_path / f"killed{n}"
        proc = subprocess.run([sys.executable, str(program), str(script), str(run_dir), str(n)], capture_output=True)
        assert proc.returncode == -signal.SIGKILL and not (run_dir / "result.json").exists()
        resumed = CliRunner().invoke(app, ["resume", str(run_dir)])
        assert resumed.exit_code == 0, resumed.output
        assert outcome(run_dir) == expected
        kinds = [e["kind"] for e in read_jsonl(run_dir / "trajectory.jsonl")]
        assert kinds == [e["kind"] for e in read_jsonl(reference / "trajectory.jsonl")]
        for row in read_jsonl(run_dir / "resume.jsonl"):
            assert row["actions_match"] is True


@pytest.mark.parametrize("cut", [0, 17, 120, 300, 441])
def test_a_cut_short_record_resumes_through_the_cli(tmp_path: Path, cut: int) -> None:
    """The state a SIGKILL leaves at event ``cut``: logs cut mid-line, no result.json."""
    script = cfo_script(tmp_path / "replies.jsonl")
    done = tmp_path / "done"
    first = CliRunner().invoke(app, ["run", "cfo", "--model", f"scripted:{script}", "--seed", "1", "--out", str(done)])
    assert first.exit_code == 0, first.output
    expected = outcome(done)
    killed = tmp_path / "killed"
    shutil.copytree(done, killed)
    for name in ("result.json", "ledger.csv", "cash.png", "statements.jsonl"):
        (killed / name).unlink()
    lines = (killed / "trajectory.jsonl").read_text().splitlines(keepends=True)
    (killed / "trajectory.jsonl").write_text("".join(lines[:cut]) + lines[cut][: len(lines[cut]) // 2])
    model_calls = sum(json.loads(line)["kind"] == "model_call" for line in lines[:cut])
    actions = (killed / "actions.jsonl").read_text().splitlines(keepends=True)
    (killed / "actions.jsonl").write_text("".join(actions[: cut // 3]))
    r = CliRunner().invoke(app, ["resume", str(killed)])
    assert r.exit_code == 0, r.output
    assert outcome(killed) == expected
    log = read_jsonl(killed / "resume.jsonl")
    assert log == [{"attempt": "1", "replies_reused": model_calls, "actions_checked": cut // 3, "actions_match": True}]
    assert (killed / "attempts" / "1" / "trajectory.jsonl").exists()  # the killed attempt is kept


def test_the_live_model_answers_after_the_record(tmp_path: Path) -> None:
    """Replies past the record come from the live model: a scripted one continues where it stopped."""
    script = cfo_script(tmp_path / "replies.jsonl")
    done = tmp_path / "done"
    run_agent_episode("cfo", ScriptedModel.from_file(script), 2, "paper", done, model_spec=f"scripted:{script}")
    killed = tmp_path / "killed"
    shutil.copytree(done, killed)
    (killed / "result.json").unlink()
    lines = (killed / "trajectory.jsonl").read_text().splitlines(keepends=True)
    (killed / "trajectory.jsonl").write_text("".join(lines[:40]))
    (killed / "actions.jsonl").write_text("")
    calls = []

    class Counting(ScriptedModel):
        def complete(self, messages, tools=None):  # type: ignore[no-untyped-def]
            calls.append(self.calls)
            return super().complete(messages, tools)

    resume_run(killed, model=Counting.from_file(script))
    reused = sum(json.loads(line)["kind"] == "model_call" for line in lines[:40])
    assert calls and calls[0] == reused  # the live model's first answer is reply number `reused`
    assert outcome(killed) == outcome(done)


@pytest.mark.parametrize(
    ("env", "args"),
    [("yc", ["--agent", "heuristic", "--seed", "3"]), ("ceo", ["--agent", "rule-based", "--days", "70", "--no-db"])],
)
def test_baseline_killed_with_sigkill_resumes(tmp_path: Path, env: str, args: list[str]) -> None:
    reference = tmp_path / "reference"
    assert CliRunner().invoke(app, ["run", env, *args, "--out", str(reference)]).exit_code == 0
    run_dir = tmp_path / "killed"
    # killed once half the actions are on disk (check_env's kill-after: the same point on any
    # machine; issue 18: a timed kill let a fast run finish first and the test pass untested)
    half = len(read_jsonl(reference / "actions.jsonl")) // 2
    cmd = [sys.executable, "-m", "bizbench.runner.check", "kill-after", str(half), "--", "run", env, *args]
    killed = subprocess.run([*cmd, "--out", str(run_dir)], capture_output=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL and not (run_dir / "result.json").exists()
    assert 0 < len(read_jsonl(run_dir / "actions.jsonl")) < 2 * half
    r = CliRunner().invoke(app, ["resume", str(run_dir)])
    assert r.exit_code == 0, r.output
    assert outcome(run_dir) == outcome(reference)
    assert all(row["actions_match"] for row in read_jsonl(run_dir / "resume.jsonl"))


def test_resuming_a_finished_run_changes_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert CliRunner().invoke(app, ["run", "cfo", "--agent", "prudent-cfo", "--out", str(run_dir)]).exit_code == 0
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in run_dir.iterdir()}
    r = CliRunner().invoke(app, ["resume", str(run_dir)])
    assert r.exit_code == 0 and "already finished" in r.output
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in run_dir.iterdir()} == before


def test_resume_errors_are_clear(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["resume", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "nothing does not exist" in r.output
    (tmp_path / "afile").write_text("x")
    r = CliRunner().invoke(app, ["resume", str(tmp_path / "afile")])
    assert r.exit_code == 2 and "afile is a file, not a run directory" in " ".join(r.output.split())
    (tmp_path / "empty").mkdir()
    r = CliRunner().invoke(app, ["resume", str(tmp_path / "empty")])
    assert r.exit_code == 2 and "empty is not a run directory (no config.json)" in r.output
    served = tmp_path / "served"
    served.mkdir()
    (served / "config.json").write_text(
        json.dumps({"env": "ceo", "seed": 1, "agent": "served", "preset": "default", "config": {}})
    )
    with pytest.raises(RunDirError, match="outside agent"):
        resume_run(served)
    from_python = tmp_path / "py"
    run_agent_episode("cfo", ScriptedModel([{"content": "no block"}]), 1, "paper", from_python, limits=None)
    (from_python / "result.json").unlink()
    with pytest.raises(RunDirError) as err:
        resume_run(from_python)
    assert (
        str(err.value) == f"{from_python} was started from Python with a model object; call resume_run(path, model=...)"
    )
    assert not (from_python / "attempts").exists()  # a refused resume moves nothing


def test_a_run_directory_with_a_run_is_still_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert CliRunner().invoke(app, ["run", "yc", "--agent", "greedy", "--out", str(run_dir)]).exit_code == 0
    r = CliRunner().invoke(app, ["run", "yc", "--agent", "greedy", "--out", str(run_dir)])
    assert r.exit_code == 2 and "already holds a run" in " ".join(r.output.split())


def cut_short(done: Path, target: Path, trajectory_lines: int, action_lines: int) -> Path:
    """A copy of a finished run as a kill would leave it."""
    shutil.copytree(done, target)
    for name in ("result.json", "ledger.csv", "cash.png", "statements.jsonl"):
        (target / name).unlink(missing_ok=True)
    for name, keep in (("trajectory.jsonl", trajectory_lines), ("actions.jsonl", action_lines)):
        if (target / name).exists():
            lines = (target / name).read_text().splitlines(keepends=True)
            (target / name).write_text("".join(lines[:keep]))
    return target


def entries(path: Path) -> set[str]:
    return {p.name for p in path.iterdir()}


def test_a_held_out_run_resumes_only_with_its_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "s3cret")
    done = tmp_path / "done"
    assert (
        CliRunner().invoke(app, ["run", "cfo", "--agent", "prudent-cfo", "--seed", "3", "--out", str(done)]).exit_code
        == 0
    )
    killed = cut_short(done, tmp_path / "killed", 0, 100)
    monkeypatch.delenv("BIZBENCH_SEED_SECRET")
    before = entries(killed)
    r = CliRunner().invoke(app, ["resume", str(killed)])
    assert r.exit_code == 2 and "held-out seeds" in r.output and entries(killed) == before
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "s3cret")
    assert CliRunner().invoke(app, ["resume", str(killed)]).exit_code == 0
    assert outcome(killed) == outcome(done)


def test_a_run_whose_preset_changed_is_not_resumed_in_another_world(tmp_path: Path) -> None:
    done = tmp_path / "done"
    assert CliRunner().invoke(app, ["run", "cfo", "--agent", "prudent-cfo", "--out", str(done)]).exit_code == 0
    killed = cut_short(done, tmp_path / "killed", 0, 50)
    config = json.loads((killed / "config.json").read_text())
    config["config"]["start_cash"] = 1.0  # as if the preset had changed since the run started
    (killed / "config.json").write_text(json.dumps(config))
    before = entries(killed)
    r = CliRunner().invoke(app, ["resume", str(killed)])
    assert r.exit_code == 2 and "no longer builds the recorded world" in r.output and entries(killed) == before


def test_a_replay_model_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    script = cfo_script(tmp_path / "replies.jsonl")
    source = tmp_path / "source"
    assert CliRunner().invoke(app, ["run", "cfo", "--model", f"scripted:{script}", "--out", str(source)]).exit_code == 0
    done = tmp_path / "done"
    assert CliRunner().invoke(app, ["run", "cfo", "--model", f"replay:{source}", "--out", str(done)]).exit_code == 0
    killed = cut_short(done, tmp_path / "killed", 200, 30)
    assert CliRunner().invoke(app, ["resume", str(killed)]).exit_code == 0
    assert outcome(killed) == outcome(done)


def test_a_record_that_no_longer_fits_is_a_clear_error(tmp_path: Path) -> None:
    script = cfo_script(tmp_path / "replies.jsonl")
    done = tmp_path / "done"
    assert CliRunner().invoke(app, ["run", "cfo", "--model", f"scripted:{script}", "--out", str(done)]).exit_code == 0
    killed = cut_short(done, tmp_path / "killed", 100, 0)
    rows = read_jsonl(killed / "trajectory.jsonl")
    fifth = [i for i, r in enumerate(rows) if r["kind"] == "model_call"][4]
    rows[fifth]["request"]["messages"] += 3
    (killed / "trajectory.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = CliRunner().invoke(app, ["resume", str(killed)])
    assert r.exit_code == 2 and "no longer matches" in r.output and "Traceback" not in r.output
    assert not (killed / "result.json").exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": "abc"}, "'seed' must be an int"),
        ({"agent": None}, "'agent' must be a str"),
        ({"limits": {"bogus": 1}}, "unknown limits bogus"),
        ({"harness_options": [1]}, "'harness_options' must be a dict"),
    ],
)
def test_a_malformed_config_moves_nothing(tmp_path: Path, change: dict, message: str) -> None:
    script = cfo_script(tmp_path / "replies.jsonl")
    done = tmp_path / "done"
    assert CliRunner().invoke(app, ["run", "cfo", "--model", f"scripted:{script}", "--out", str(done)]).exit_code == 0
    killed = cut_short(done, tmp_path / "killed", 10, 0)
    config = json.loads((killed / "config.json").read_text())
    (killed / "config.json").write_text(json.dumps({**config, **change}))
    before = entries(killed)
    for _ in range(2):
        r = CliRunner().invoke(app, ["resume", str(killed)])
        assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output
    assert entries(killed) == before


def test_one_resume_at_a_time(tmp_path: Path) -> None:
    import fcntl

    done = tmp_path / "done"
    assert CliRunner().invoke(app, ["run", "yc", "--agent", "greedy", "--out", str(done)]).exit_code == 0
    killed = cut_short(done, tmp_path / "killed", 0, 10)
    fd = os.open(killed, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another resume holds the directory
        with pytest.raises(RunDirError, match="being resumed by another process"):
            resume_run(killed)
    finally:
        os.close(fd)
    resume_run(killed)
    assert outcome(killed) == outcome(done)


def test_a_model_run_naming_its_own_server_is_resumed_only_when_trusted(tmp_path: Path) -> None:
    """Issue 16 review: a planted config.json sent the user's OPENAI_COMPATIBLE_API_KEY to its URL."""
    run = tmp_path / "planted"
    run_agent_episode("cfo", ScriptedModel([{"content": "no block"}]), 1, "paper", run, limits=None)
    config = json.loads((run / "config.json").read_text())
    config["model_spec"] = "openai-compatible/m@http://127.0.0.1:9/v1"
    (run / "config.json").write_text(json.dumps(config))
    (run / "result.json").unlink()
    with pytest.raises(RunDirError, match="names its own server.*--trust-agent-code"):
        resume_run(run)
    assert not (run / "attempts").exists()


def _record_reruns(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Replace the two runners a baseline or a user's agent class restarts with; record their calls."""
    from bizbench.runner import agent_episode, episode

    calls: list[tuple] = []
    monkeypatch.setattr(episode, "run_baseline", lambda *a, **k: calls.append(("baseline", a, k)) or {"ok": 1})
    monkeypatch.setattr(agent_episode, "run_user_agent", lambda *a, **k: calls.append(("user", a, k)) or {"ok": 2})
    return calls


def test_a_baseline_or_an_agent_class_restarts_with_its_recorded_seed_preset_horizon_and_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bizbench.runner.resume import _rerun_agent

    calls = _record_reruns(monkeypatch)
    base = {"env": "cfo", "seed": 3, "preset": "hardened", "horizon": 24}
    config = {**base, "agent": "prudent-cfo", "world_options": {"w": 1}, "agent_options": {"a": 2}}
    assert _rerun_agent(tmp_path, config) == {"ok": 1}
    assert _rerun_agent(tmp_path, {**base, "agent": "mod:Agent", "world_options": {"w": 1}}) == {"ok": 2}
    assert calls == [
        ("baseline", ("cfo", "prudent-cfo", 3, "hardened", 24, tmp_path, {"a": 2}), {"world_options": {"w": 1}}),
        ("user", ("cfo", "mod:Agent", 3, "hardened", tmp_path, 24, {"w": 1}), {}),
    ]


def test_a_format_one_ceo_run_restarts_with_its_database_flag_and_no_empty_agent_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Format 1 kept ``database`` at the top and the horizon only in the world config."""
    from bizbench.runner.resume import _rerun_agent

    calls = _record_reruns(monkeypatch)
    old = {"env": "ceo", "agent": "rule-based", "seed": 5, "preset": "default", "config": {"horizon_days": 21}}
    _rerun_agent(tmp_path, {**old, "database": 0, "agent_options": {}})
    _rerun_agent(tmp_path, {**old, "database": 1, "world_options": None})
    _rerun_agent(tmp_path, {**old, "world_options": {"database": True}, "database": 0})
    assert [(c[1][4], c[1][6], c[2]) for c in calls] == [
        (21, None, {"world_options": {"database": False}}),
        (21, None, {"world_options": {"database": True}}),
        (21, None, {"world_options": {"database": True}}),  # world options win over the old flag
    ]


def a_run_without_result(path: Path, **fields: object) -> Path:
    """A run directory holding only a config.json (its recorded world left empty)."""
    path.mkdir()
    config = {"env": "yc", "seed": 1, "agent": "rule-based", "preset": "default", "config": {}}
    (path / "config.json").write_text(json.dumps(config | fields))
    return path


@pytest.mark.parametrize(
    ("harness", "agent", "is_finished"),
    [
        ("claude-code", "served", False),  # the served seat's own result.json: the runner's is still to come
        ("claude-code", "claude-code", True),  # the runner's result.json
        (None, "served", True),  # no harness: a result.json is the run's
    ],
)
def test_a_terminal_run_is_finished_only_once_the_runner_wrote_its_result(
    tmp_path: Path, harness: str | None, agent: str, is_finished: bool
) -> None:
    run = a_run_without_result(tmp_path / "run", agent=agent, **({"harness": harness} if harness else {}))
    (run / "result.json").write_text(json.dumps({"agent": agent, "score": 1.0}))
    assert finished(run) == ({"agent": agent, "score": 1.0} if is_finished else None)
    (run / "result.json").unlink()  # no result.json at all: unfinished
    assert finished(run) is None


def test_resume_returns_a_finished_runs_result_as_it_is_and_refuses_a_persons_game(tmp_path: Path) -> None:
    done = a_run_without_result(tmp_path / "done")
    (done / "result.json").write_text(json.dumps({"agent": "rule-based", "score": 2.5}))
    assert resume_run(done) == {"agent": "rule-based", "score": 2.5}
    played = a_run_without_result(tmp_path / "played", agent="human:ana")
    with pytest.raises(RunDirError) as err:
        resume_run(played)
    assert str(err.value) == f"{played} is a person's game (bizbench play): bizbench resume serves it again to play on"


def stopped_with(path: Path, **options: object) -> str:
    with pytest.raises(RunDirError) as err:
        resume_run(path, **options)  # type: ignore[arg-type]
    return str(err.value)


def test_resume_refuses_a_served_run_without_a_harness_and_an_untrusted_agent_class_in_words(tmp_path: Path) -> None:
    """Each refusal names the run and why; a run that passes them is stopped later, at its world
    config (empty here), which shows which checks it passed."""
    later = "no longer builds the recorded world"
    served = a_run_without_result(tmp_path / "served", agent="served")
    assert stopped_with(served) == (
        f"{served} was served to an outside agent (bizbench serve), which bizbench cannot restart: it cannot be "
        "resumed, and an unfinished one cannot be replayed; its record up to its last call is kept"
    )
    with pytest.raises(RunDirError, match="its outside agent is not bizbench's to restart, so it stays unfinished"):
        replay_run(served)
    harness = a_run_without_result(tmp_path / "harness", agent="served", harness="claude-code")
    refusal = stopped_with(harness)
    assert refusal.startswith(f"{harness}: preset 'default' {later} (changed: checkpoints_pct, clients, clock, ")
    assert refusal.endswith("); resume it with the bizbench version that started it")
    agent_class = a_run_without_result(tmp_path / "class", agent="my_agents:Careful")
    assert stopped_with(agent_class) == (
        f"{agent_class} is a run of the agent class 'my_agents:Careful': resuming it imports and runs that code. "
        "If you trust this run directory's config.json, resume it with --trust-agent-code"
    )
    assert later in stopped_with(agent_class, trust_agent_code=True)
    # a model run's agent is its model string, colon and all: no agent class
    model_run = a_run_without_result(tmp_path / "model", agent="openai:gpt-4o", harness="bizbench")
    assert later in stopped_with(model_run)


def test_resume_of_a_public_run_under_a_secret_names_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    public = a_run_without_result(tmp_path / "public")
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "a secret")
    assert stopped_with(public).startswith(f"{public} was run on public seeds")


def test_a_run_another_resume_finished_while_this_one_waited_is_returned_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """resume_run checks for a result again once it holds the directory."""
    done = tmp_path / "done"
    run_baseline("yc", "heuristic", 2, "default", 3, done)  # three months
    killed = cut_short(done, tmp_path / "killed", 0, 10)
    other = {"agent": "heuristic", "score": 1.5}
    real_exclusive = resume_module.exclusive

    @contextlib.contextmanager
    def finished_by_another(path: Path) -> Iterator[None]:
        with real_exclusive(path):
            (path / "result.json").write_text(json.dumps(other))  # the other resume, done first
            yield

    monkeypatch.setattr(resume_module, "exclusive", finished_by_another)
    before = entries(killed)
    assert resume_run(killed) == other
    assert entries(killed) == before | {"result.json"}  # the other's result only: no attempt archived


def test_each_attempt_is_archived_under_the_next_number_with_a_copy_of_the_config(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{}")
    for n in range(1, 10):  # nine earlier attempts, and a record that is no attempt
        (run / "attempts" / str(n)).mkdir(parents=True)
    (run / "attempts" / "record").mkdir()
    (run / "actions.jsonl").write_text('{"day": 1}\n')
    attempts = archive_attempt(run)
    # numbered by value (10 after 9), oldest first
    assert [p.name for p in attempts] == [str(n) for n in range(1, 11)]
    assert entries(run) == {"config.json", "attempts"}
    assert entries(run / "attempts" / "10") == {"actions.jsonl", "config.json"}
    assert (run / "attempts" / "10" / "actions.jsonl").read_text() == '{"day": 1}\n'
    (run / "actions.jsonl").write_text('{"day": 2}\n')
    assert [p.name for p in archive_attempt(run)][-2:] == ["10", "11"]


def test_a_baseline_killed_again_while_resuming_checks_its_longest_earlier_actions(tmp_path: Path) -> None:
    """The second kill left 4 action lines, the first 10: the resume checks the new run against
    the 10 (the longest, whatever the lines hold), and reuses no model reply (a baseline has none)."""
    done = tmp_path / "done"
    run_baseline("yc", "heuristic", 2, "default", 3, done)  # three months
    killed = cut_short(done, tmp_path / "killed", 0, 10)
    archive_attempt(killed)  # the first resume, killed after these 4 lines (the first of them unlike the run's)
    first_lines = [json.loads(line) for line in (done / "actions.jsonl").read_text().splitlines()[:4]]
    first_lines[0]["time_s"] = -1.0
    (killed / "actions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in first_lines))
    result = resume_run(killed)
    assert read_jsonl(killed / "resume.jsonl") == [
        {"attempt": "2", "replies_reused": 0, "actions_checked": 10, "actions_match": True}
    ]
    assert result["score"] == json.loads((done / "result.json").read_text())["score"]


def test_the_live_model_is_rebuilt_from_the_recorded_spec_and_sampling_and_a_server_in_the_spec_needs_trust(
    tmp_path: Path,
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"input": 1.0, "cached_input": 0.5, "output": 2.0}}))
    config = {
        "model_spec": "openai-compatible/m@http://127.0.0.1:9",
        "sampling": {"temperature": 0.2},
        "prices": str(prices),
    }
    with pytest.raises(RunDirError) as err:
        resume_module._live_model(tmp_path, config, None, False)
    assert str(err.value) == (
        f"{tmp_path} is a run of the model 'openai-compatible/m@http://127.0.0.1:9', which names its own server: "
        "resuming it sends your prompts and that provider's API key there. If you trust this run directory's "
        "config.json, resume it with --trust-agent-code"
    )
    rebuilt = resume_module._live_model(tmp_path, config, None, True)
    assert rebuilt.sampling == {"temperature": 0.2} and set(rebuilt.prices) == {"m"}
    given = ScriptedModel([])
    assert resume_module._live_model(tmp_path, config, given, False) is given  # a client given is used as it is


def test_the_record_is_the_attempts_trajectory_with_the_most_model_replies_errors_included(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text('{"env": "yc"}')
    trajectories = {
        "1": [{"kind": "model_call"}, {"kind": "tool_result"}, {"kind": "tool_result"}, {"kind": "tool_result"}],
        "2": [{"kind": "model_error"}, {"kind": "model_call"}],  # two replies, one of them an error
        "3": [],
    }
    attempts = []
    for name, rows in trajectories.items():
        attempt = run / "attempts" / name
        attempt.mkdir(parents=True)
        (attempt / "trajectory.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        attempts.append(attempt)
    for _ in range(2):  # made again by the next resume
        record = resume_module._record(run, attempts)
        assert record == run / "attempts" / "record"
        assert read_jsonl(record / "trajectory.jsonl") == trajectories["2"]
        assert (record / "config.json").read_text() == '{"env": "yc"}'
    assert resume_module._record(run, attempts[2:]) is None  # no reply to reuse: no record


def test_a_run_of_a_model_that_names_its_own_server_resumes_only_when_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    run_agent_episode("cfo", ScriptedModel([{"content": "no block"}]), 1, "paper", run, limits=None)
    (run / "result.json").unlink()
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "model_spec": "openai-compatible/m@http://127.0.0.1:9"}))
    with pytest.raises(RunDirError, match="which names its own server"):
        resume_run(run)
    built: list[str] = []

    def make_model(spec: str, sampling: object, prices: object = None) -> ScriptedModel:
        built.append(spec)  # in place of a client of that server
        return ScriptedModel([{"content": "no block"}])

    monkeypatch.setattr("bizbench.agents.models.factory.make_model", make_model)
    assert resume_run(run, trust_agent_code=True)["env"] == "cfo"
    assert built == ["openai-compatible/m@http://127.0.0.1:9"]


def test_a_model_run_resumes_with_every_option_it_was_started_with(tmp_path: Path) -> None:
    """A preset, a horizon, a turn limit, a model string and a price file that are none of the
    defaults: the resumed run ends as the uninterrupted one (its second turn, by the limit)."""
    reply = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "sim resume"}}]}
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(reply) + "\n" for _ in range(10)))
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"replies.jsonl": {"input": 1.0, "cached_input": 0.5, "output": 2.0}}))
    done = tmp_path / "done"
    options = {"model_spec": f"scripted:{script}", "prices": str(prices), "horizon": 3}
    run_agent_episode(
        "yc", ScriptedModel.from_file(script), 4, "salary-compounding", done, None, Limits(max_turns=2), {}, **options
    )
    expected = outcome(done)
    assert (expected["preset"], expected["horizon"], expected["ended_by"]) == ("salary-compounding", 3, "max_turns")
    killed = cut_short(done, tmp_path / "killed", 0, 0)
    resume_run(killed)
    assert outcome(killed) == expected
    assert json.loads((killed / "config.json").read_text()) == json.loads((done / "config.json").read_text())


def test_a_model_run_resumes_with_the_harness_and_harness_options_it_was_started_with(tmp_path: Path) -> None:
    """A cfo run driven by cli-chat (not cfo's react-json) that auto-advances after every turn (not
    the preset's count): the resumed run ends as the uninterrupted one, three months on."""
    reply = {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": "help"}}]}
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(reply) + "\n" for _ in range(10)))
    options = {"auto_advance_after": 1, "context_turns": 1}
    done = tmp_path / "done"
    model, spec = ScriptedModel.from_file(script), f"scripted:{script}"
    run_agent_episode("cfo", model, 4, None, done, "cli-chat", Limits(max_turns=3), options, model_spec=spec, horizon=6)
    expected = outcome(done)
    assert (expected["harness"], expected["ended_by"], expected["months_survived"]) == ("cli-chat", "max_turns", 3)
    killed = cut_short(done, tmp_path / "killed", 0, 0)
    resume_run(killed)
    assert outcome(killed) == expected
    assert json.loads((killed / "config.json").read_text()) == json.loads((done / "config.json").read_text())


def test_the_resume_log_says_whether_the_new_actions_begin_with_the_killed_attempts(tmp_path: Path) -> None:
    """Any field that differs in any of the old actions is a divergence; actions after them are new."""
    old = [{"day": 1, "tool": "hire", "ok": True}, {"day": 2, "tool": "price", "ok": True}]
    (tmp_path / "actions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in [*old, {"day": 3}]))
    assert log_attempt(tmp_path, "1", old, replies_reused=4)["actions_match"] is True
    assert log_attempt(tmp_path, "2", [*old[:1], {**old[1], "ok": False}])["actions_match"] is False
    assert log_attempt(tmp_path, "3", [*old, {"day": 3}, {"day": 4}])["actions_match"] is False
    assert read_jsonl(tmp_path / "resume.jsonl") == [
        {"attempt": "1", "replies_reused": 4, "actions_checked": 2, "actions_match": True},
        {"attempt": "2", "actions_checked": 2, "actions_match": False},
        {"attempt": "3", "actions_checked": 4, "actions_match": False},
    ]
