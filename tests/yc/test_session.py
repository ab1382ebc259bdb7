"""`bizbench yc --session DIR <command>` (the host path): persistent sessions, JSON-only output, no hidden
state in DIR, and a host-side record that replays into the same world or is refused."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.cmdsession import DIGEST_EVERY, CommandLog, CommandSession, SessionLogError
from bizbench.envs.yc.env import YcEnv

SEED = 918273


def _yc(session: Path, state: Path, *words: str) -> tuple[int, Any]:
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state))
    cmd = [sys.executable, "-m", "bizbench.cli", "yc", "--session", str(session), *words]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout + proc.stderr  # nothing but one JSON document on stdout
    return proc.returncode, json.loads(lines[0])


@contextlib.contextmanager
def _host(state: Path) -> Iterator[None]:
    os.environ["BIZBENCH_STATE_DIR"], old = str(state), os.environ.get("BIZBENCH_STATE_DIR")
    try:
        yield
    finally:
        if old is None:
            del os.environ["BIZBENCH_STATE_DIR"]
        else:
            os.environ["BIZBENCH_STATE_DIR"] = old


def _stop(d: Path, state: Path) -> None:
    with _host(state):
        CommandSession("yc", d).stop_daemon()


def _load(d: Path, state: Path) -> YcEnv:
    with _host(state):
        env: YcEnv = CommandSession("yc", d).load()
    return env


def _record(state: Path) -> Path:
    return next(state.rglob("commands.jsonl"))


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("ycsession")
    d, state = base / "agent", base / "host"
    rc, out = _yc(d, state, "sim", "init", "--seed", str(SEED))
    assert rc == 0 and out["funds_cents"] == 20_000_000
    yield d, state
    _stop(d, state)


def test_commands_persist_between_calls(session: tuple[Path, Path]) -> None:
    d, state = session
    rc, market = _yc(d, state, "market", "browse", "--limit", "3")
    assert rc == 0 and len(market["tasks"]) == 3
    tid = market["tasks"][0]["task_id"]
    assert _yc(d, state, "task", "accept", "--task-id", tid)[0] == 0
    rc, staff = _yc(d, state, "employee", "list")
    ids = ",".join(e["employee_id"] for e in staff["employees"][:2])
    assert _yc(d, state, "task", "assign", "--task-id", tid, "--employees", ids)[0] == 0
    assert _yc(d, state, "task", "dispatch", "--task-id", tid)[0] == 0
    rc, resumed = _yc(d, state, "sim", "resume")
    assert rc == 0 and resumed["time"] > resumed["previous_time"]
    rc, tasks = _yc(d, state, "task", "list")
    assert [t["task_id"] for t in tasks["tasks"]] == [tid]
    assert _yc(d, state, "scratchpad", "write", "--content", "avoid slow clients")[0] == 0
    assert _yc(d, state, "scratchpad", "read")[1]["content"] == "avoid slow clients"


@pytest.mark.parametrize(
    ("words", "needle"),
    [
        (("task", "inspect", "--task-id", "nope"), "task_id"),
        (("fly", "away"), "Unknown command"),
        (("market", "browse", "--limit", "x"), "integer"),
        (("sim", "init"), "usage"),
    ],
)
def test_errors_are_json_with_a_nonzero_status(session: tuple[Path, Path], words: tuple[str, ...], needle: str) -> None:
    d, state = session
    rc, out = _yc(d, state, *words)
    assert rc == 1 and needle in out["error"]


def test_no_hidden_state_in_the_session_directory(session: tuple[Path, Path]) -> None:
    """Everything an agent with a shell can read in DIR: no seed, no adversarial flags, no true work."""
    d, state = session
    files = [p for p in d.rglob("*") if p.is_file()]
    assert [p.name for p in files] == ["session.json"]
    text = " ".join(p.read_text() for p in files)
    assert str(SEED) not in text and "adversarial" not in text.lower()
    assert not any(str(p).startswith(str(d)) for p in state.rglob("*"))  # the state lives elsewhere


def test_the_console_script_answers_yc_commands_without_the_typer_cli(
    session: tuple[Path, Path], tmp_path: Path
) -> None:
    """`bizbench yc --session DIR ...` takes the fast path (bizbench.entry): typer and rich stay unloaded."""
    d, state = session
    code = (
        "import sys; sys.argv = ['bizbench', 'yc', '--session', sys.argv[1], 'company', 'status']\n"
        "from bizbench import entry\n"
        "try:\n    entry.main()\nexcept SystemExit as e:\n    rc = e.code\n"
        "print('LOADED', 'typer' in sys.modules or 'rich' in sys.modules, rc, file=sys.stderr)\n"
    )
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state))
    proc = subprocess.run([sys.executable, "-c", code, str(d)], capture_output=True, text=True, timeout=60, env=env)
    assert "LOADED False 0" in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["funds_cents"] > 0


def test_the_state_survives_the_daemon(tmp_path: Path) -> None:
    """Kill the session daemon: the next command restarts it from the state saved after each change;
    `sim init` replaces a running session."""
    d, state = tmp_path / "agent", tmp_path / "host"
    assert _yc(d, state, "sim", "init", "--seed", "5")[0] == 0
    assert _yc(d, state, "scratchpad", "write", "--content", "note one")[0] == 0
    rc, resumed = _yc(d, state, "sim", "resume")
    pid_file = next(state.rglob("daemon.pid"))
    os.kill(int(pid_file.read_text()), 9)
    rc, status = _yc(d, state, "company", "status")
    assert rc == 0 and status["time"] == resumed["time"]
    assert _yc(d, state, "scratchpad", "read")[1]["content"] == "note one"
    assert _yc(d, state, "sim", "init", "--seed", "5")[0] == 0
    assert _yc(d, state, "scratchpad", "read")[1]["content"] == ""
    _stop(d, state)
    assert not list(state.rglob("api.sock"))


def test_an_idle_daemon_exits(tmp_path: Path) -> None:
    d, state = tmp_path / "agent", tmp_path / "host"
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state), BIZBENCH_SESSION_IDLE_S="0.5")
    for words in (["sim", "init", "--seed", "2"], ["company", "status"]):
        cmd = [sys.executable, "-m", "bizbench.cli", "yc", "--session", str(d), *words]
        assert subprocess.run(cmd, capture_output=True, timeout=60, env=env).returncode == 0
    sock = next(state.rglob("api.sock"))
    deadline = time.monotonic() + 20
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not sock.exists()


def test_a_stale_pid_file_never_signals_another_process(tmp_path: Path) -> None:
    d, state = tmp_path / "agent", tmp_path / "host"
    assert _yc(d, state, "sim", "init", "--seed", "3")[0] == 0
    assert _yc(d, state, "company", "status")[0] == 0
    _stop(d, state)
    victim = subprocess.Popen(["sleep", "30"])
    try:
        next(state.rglob("lock")).with_name("daemon.pid").write_text(str(victim.pid))
        assert _yc(d, state, "sim", "init", "--seed", "3")[0] == 0
        assert victim.poll() is None  # still running
    finally:
        victim.kill()
        _stop(d, state)


# ---------------------------------------------------------------------------- the host-side record
def _start(d: Path, state: Path, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """A session with a task under way, a note, refused commands and a tamper attempt; the calls that ran."""
    assert _yc(d, state, "sim", "init", "--seed", str(seed))[0] == 0
    tid = _yc(d, state, "market", "browse", "--limit", "1")[1]["tasks"][0]["task_id"]
    staff = [e["employee_id"] for e in _yc(d, state, "employee", "list")[1]["employees"][:3]]
    for words in (
        ("task", "accept", "--task-id", tid),
        ("task", "assign", "--task-id", tid, "--employees", ",".join(staff)),
        ("task", "dispatch", "--task-id", tid),
        ("sim", "resume"),
        ("scratchpad", "write", "--content", "first note"),
    ):
        assert _yc(d, state, *words)[0] == 0, words
    assert _yc(d, state, "task", "inspect", "--task-id", "Task-0")[0] == 1  # refused by the tool: recorded
    assert _yc(d, state, "fly", "away")[0] == 1  # unknown command: a tamper entry
    return [
        ("market_browse", {"limit": 1}),
        ("employee_list", {}),
        ("task_accept", {"task_id": tid}),
        ("task_assign", {"task_id": tid, "employees": staff}),
        ("task_dispatch", {"task_id": tid}),
        ("sim_resume", {}),
        ("scratchpad_write", {"content": "first note"}),
        ("task_inspect", {"task_id": "Task-0"}),
    ]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[tuple[str, dict[str, Any]]]]:
    """A stopped session made by :func:`_start` with seed 12 (tests that edit it work on a copy)."""
    base = tmp_path_factory.mktemp("recorded")
    d, state = base / "agent", base / "host"
    calls = _start(d, state, 12)
    files = {p.name for p in next(state.iterdir()).iterdir()}
    assert files <= {"meta.json", "commands.jsonl", "api.sock", "daemon.pid", "daemon.log", "lock"}, files
    _stop(d, state)
    return d, state, calls


def _copy(recorded: tuple[Path, Path, Any], base: Path) -> tuple[Path, Path]:
    """A new session directory whose host state is a copy of the recorded session's."""
    d, state = base / "agent", base / "host"
    with _host(state):
        target = CommandSession("yc", d).state_dir
    target.mkdir(parents=True)
    for name in ("meta.json", "commands.jsonl"):
        (target / name).write_bytes(next(recorded[1].rglob(name)).read_bytes())
    d.mkdir()
    return d, state


def test_the_host_state_is_a_replayable_record(recorded: tuple[Path, Path, list[Any]]) -> None:
    d, state, calls = recorded
    assert json.loads(next(state.rglob("meta.json")).read_text())["seed"] == 12
    lines = [json.loads(line) for line in _record(state).read_text().splitlines()]
    assert [e["n"] for e in lines] == list(range(len(lines)))
    assert lines[0]["kind"] == "start" and "digest" in lines[-1]  # stopping leaves a verified end
    recorded_calls = [(e["tool"], e.get("args", e.get("args_delta"))) for e in lines if e["kind"] == "call"]
    notes = {"scratchpad_write": ["first note"]}  # an accepted write keeps its edit of the (empty) pad
    assert recorded_calls == [(n, notes.get(n, a)) for n, a in calls]
    assert [e["tamper"] for e in lines if e["kind"] == "tamper"] == ["unknown_tool"]

    direct = YcEnv.from_preset("default", 12)  # the same commands in process
    for name, args in calls:
        direct.call_tool(name, args)
    env = _load(d, state)
    assert env.state_digest() == direct.state_digest() == lines[-1]["digest"]
    assert len(env.actions) == len(calls) and [t["kind"] for t in env.tamper] == ["unknown_tool"]
    code = (
        "import sys; from pathlib import Path; from bizbench.core.cmdsession import CommandSession\n"
        "print(CommandSession('yc', Path(sys.argv[1])).load().state_digest())"
    )
    penv = dict(os.environ, BIZBENCH_STATE_DIR=str(state), PYTHONHASHSEED="7")
    other = subprocess.run([sys.executable, "-c", code, str(d)], capture_output=True, text=True, env=penv, timeout=60)
    assert other.stdout.strip() == direct.state_digest(), other.stderr  # a second process replays the same world


def test_a_bad_command_changes_nothing(session: tuple[Path, Path]) -> None:
    d, state = session
    before = _load(d, state).state_digest()
    for words in (
        ("task", "accept", "--task-id", "Task-99999"),
        ("task", "assign", "--task-id", "Task-1", "--employees", "Emp_99"),
        ("market", "browse", "--limit", "-5"),
        ("market", "browse", "--limit", "lots"),
        ("scratchpad", "write"),
        ("sim", "resume", "--days", "3"),
        ("drop", "tables"),
    ):
        rc, out = _yc(d, state, *words)
        assert rc == 1 and set(out) == {"error"}, (words, out)
    assert _load(d, state).state_digest() == before


def _edit(path: Path, index: int, fn: Any) -> None:
    lines = path.read_text().splitlines()
    lines[index] = fn(lines[index])
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        ("note", "does not match its recorded state digest"),
        ("seed", "line 1: the replayed world does not match"),
        ("garbage", "line 3 is malformed"),
        ("drop", "line 2 is numbered 2, expected 1"),
        ("ok", "succeeded when it ran but not on replay"),
    ],
)
def test_an_edited_record_is_refused_on_daemon_start(
    recorded: tuple[Path, Path, Any], tmp_path: Path, edit: str, needle: str
) -> None:
    d, state = _copy(recorded, tmp_path)
    record = _record(state)
    lines = record.read_text().splitlines()
    if edit == "note":  # rewrite the note (the world's digest after it changes)
        i = next(i for i, t in enumerate(lines) if "first note" in t)
        _edit(record, i, lambda t: t.replace("first note", "other note"))
    elif edit == "seed":
        meta = next(state.rglob("meta.json"))
        meta.write_text(meta.read_text().replace('"seed": 12', '"seed": 13'))
    elif edit == "garbage":
        _edit(record, 2, lambda t: t[:-5])
    elif edit == "drop":
        record.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    else:  # a refused call recorded as a success
        i = next(i for i, t in enumerate(lines) if "Task-0" in t)
        _edit(record, i, lambda t: t.replace('"ok": false', '"ok": true'))
    before = record.read_bytes()
    rc, out = _yc(d, state, "company", "status")
    # the daemon's own reason: a client that waited out its start-up deadline says "did not start"
    assert rc == 1 and "cannot be restored" in out["error"] and needle in out["error"], out
    assert not list(state.rglob("api.sock")) and record.read_bytes() == before
    with pytest.raises(SessionLogError, match="commands.jsonl line|line 1"):
        _load(d, state)


def test_a_torn_last_line_is_dropped(recorded: tuple[Path, Path, Any], tmp_path: Path) -> None:
    """A crash while a line is written leaves it without its newline; that command's answer was never sent,
    so the restarted daemon drops the line and goes on from the last complete one."""
    d, state = _copy(recorded, tmp_path)
    record = _record(state)
    whole = record.read_text()
    n = len(whole.splitlines())
    record.write_text(whole + f'{{"n": {n}, "kind": "call", "tool": "scratchpad_write", "args": {{"content": "lo')
    assert _load(d, state).scratchpad == "first note"  # load() skips it and leaves the file alone
    rc, note = _yc(d, state, "scratchpad", "read")
    assert rc == 0 and note["content"] == "first note"
    _stop(d, state)
    lines = record.read_text().splitlines()
    assert lines[:n] == whole.splitlines() and '"lo' not in record.read_text()
    assert [json.loads(t)["n"] for t in lines] == list(range(len(lines)))
    assert "torn last line" in next(state.rglob("daemon.log")).read_text()


def test_the_record_carries_a_digest_every_n_lines(tmp_path: Path) -> None:
    """In process: digests on line 0, every DIGEST_EVERY-th line and each checkpoint; replay checks them all."""
    env = YcEnv.from_preset("default", 3)
    path = tmp_path / "commands.jsonl"
    CommandLog.create(path, env)
    log = CommandLog(path)
    log.replay(env, repair=True)
    for i in range(2 * DIGEST_EVERY + 3):
        name, args = ("sim_resume", {}) if i % 3 == 0 else ("market_browse", {"limit": 2, "offset": i})
        log.append_call(name, args, env.call_tool(name, args), env)
    log.append({"kind": "tamper", "tamper": "unknown_tool", "detail": {"command": "x"}}, env)
    log.checkpoint(env)
    log.close()
    lines = [json.loads(t) for t in path.read_text().splitlines()]
    assert [e["n"] for e in lines if "digest" in e] == [0, DIGEST_EVERY, 2 * DIGEST_EVERY, len(lines) - 1]
    again = CommandLog(path).replay(YcEnv.from_preset("default", 3))
    assert again.state_digest() == env.state_digest() and len(again.actions) == len(env.actions)
    assert len(again.tamper) == 1


def test_a_held_out_session_needs_its_secret_to_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bizbench.core.cmdsession import _replayed, new_env

    monkeypatch.setenv("BIZBENCH_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "k1")
    cs = CommandSession("yc", tmp_path / "s")
    env = new_env("yc", 5)
    cs.init(env, {"preset": "default"})
    assert json.loads((cs.state_dir / "meta.json").read_text())["seed_secret_id"] == env.secret_id
    assert _replayed(cs.state_dir, repair=False)[0].state_digest() == env.state_digest()
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "k2")
    with pytest.raises(SessionLogError, match="SEED_SECRET"):
        _replayed(cs.state_dir, repair=False)


def _entry(state: Path, *argv: str) -> tuple[int, Any]:
    """The console script's answer (``bizbench.entry``, the fast path agents call)."""
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state))
    proc = subprocess.run(
        [sys.executable, "-m", "bizbench.entry", *argv], capture_output=True, text=True, timeout=60, env=env
    )
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout + proc.stderr  # one JSON document, never a usage screen
    return proc.returncode, json.loads(lines[0])


def test_help_lists_every_command_and_gives_one_commands_flags_as_json(session: tuple[Path, Path]) -> None:
    d, state = session
    for answer in (_yc(d, state, "help"), _entry(state, "yc", "--session", str(d), "help")):
        assert answer[0] == 0
        listed = [c["command"] for c in answer[1]["commands"]]
        assert {"task accept", "scratchpad write", "help [COMMAND]", "rules", "sim result"} <= set(listed)
    by_help = _entry(state, "yc", "--session", str(d), "help", "task", "cancel")
    by_flag = _entry(state, "yc", "--session", str(d), "task", "cancel", "--task-id", "Task-1", "--help")
    assert by_help == by_flag == _yc(d, state, "task", "cancel", "--help")  # the typer path gives JSON too
    rc, out = by_help
    assert rc == 0 and out["command"] == "task cancel" and "35 %" in out["description"]
    assert [f["flag"] for f in out["flags"]] == ["--task-id", "--reason"]
    rc, out = _entry(state, "yc", "--session", str(d), "help", "fly")
    assert rc == 1 and "Unknown command: fly" in out["error"]


def test_rules_are_the_seats_instructions_with_the_sessions_prefix(session: tuple[Path, Path]) -> None:
    d, state = session
    rc, out = _yc(d, state, "rules")
    assert rc == 0 and "You are the CEO of an AI services startup" in out["rules"]
    assert f"`bizbench yc --session {d} market browse`" in out["rules"]


def test_the_unknown_command_list_names_sim_init_and_the_session_commands(session: tuple[Path, Path]) -> None:
    d, state = session
    rc, out = _yc(d, state, "fly", "away")
    assert rc == 1
    for command in ("sim init --seed N", "sim result", "help [COMMAND]", "rules", "task accept"):
        assert command in out["error"]


def test_a_missing_session_directory_is_a_json_error(tmp_path: Path) -> None:
    for argv in (("yc", "task", "list"), ("yc", "--session"), ("yc", "--session="), ("yc",)):
        rc, out = _entry(tmp_path, *argv)
        assert rc == 1 and "--session DIR is missing" in out["error"], argv
    proc = subprocess.run([sys.executable, "-m", "bizbench.cli", "yc", "task", "list"], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, BIZBENCH_STATE_DIR=str(tmp_path)))  # fmt: skip
    assert proc.returncode == 1 and "--session DIR is missing" in json.loads(proc.stdout)["error"]


def test_a_flag_given_twice_is_refused_naming_it_and_changes_nothing(session: tuple[Path, Path]) -> None:
    d, state = session
    before = _yc(d, state, "scratchpad", "read")[1]
    rc, out = _yc(d, state, "scratchpad", "write", "--content", "a", "--content", "b")
    assert rc == 1 and "--content is given twice" in out["error"]
    assert _yc(d, state, "scratchpad", "read")[1] == before
    rc, out = _yc(d, state, "sim", "init", "--seed", "1", "--seed", "2")
    assert rc == 1 and "--seed is given twice" in out["error"]
    assert _yc(d, state, "scratchpad", "read")[1] == before  # the session was not replaced


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (("--seed", "9" * 30), "--seed must lie within +/-9223372036854775807"),
        (("--seed", "1", "--horizon", "9" * 30), "--horizon must lie within +/-9223372036854775807"),
        (("--seed", "1", "--horizon", "999999"), "--horizon must be a whole number of months from 1 to 120"),
    ],
)
def test_sim_init_names_the_flag_of_an_out_of_range_integer(
    tmp_path: Path, flags: tuple[str, ...], needle: str
) -> None:
    rc, out = _entry(tmp_path / "host", "yc", "--session", str(tmp_path / "agent"), "sim", "init", *flags)
    assert rc == 1 and needle in out["error"]
    assert not (tmp_path / "agent" / "session.json").exists()


def test_sim_result_prints_the_fields_result_json_would(tmp_path: Path) -> None:
    from bizbench.runner.episode import open_session

    d, state = tmp_path / "agent", tmp_path / "host"
    assert _yc(d, state, "sim", "init", "--seed", str(SEED))[0] == 0
    assert _yc(d, state, "scratchpad", "write", "--content", "note")[0] == 0
    rc, result = _yc(d, state, "sim", "result")
    _stop(d, state)
    run = open_session("yc", SEED, None, tmp_path / "run", agent="session")
    run.call("scratchpad_write", content="note")
    run.finish(agent="session")
    written = json.loads((tmp_path / "run" / "result.json").read_text())
    assert rc == 0 and set(result) == set(written)
    volatile = {"wall_seconds", "provenance"}
    assert {k: v for k, v in result.items() if k not in volatile} == {
        k: v for k, v in written.items() if k not in volatile
    }


def test_a_scratchpad_write_is_recorded_as_its_edit_and_restores_exactly(tmp_path: Path) -> None:
    """The record keeps what a write changed, not the whole pad each time; the restored pad is exact."""
    d, state = tmp_path / "agent", tmp_path / "host"
    assert _yc(d, state, "sim", "init", "--seed", str(SEED))[0] == 0
    lines = [f"turn {i}: client {i % 7} paid late; keep Emp_{i % 8} on training {i * 37}\n" for i in range(300)]
    notes = [
        "".join(lines[:150]),  # the first notes, in full
        "".join(lines[:151]),  # one line added at the end
        "".join(lines[1:152]),  # the oldest line dropped, one added
        "".join(lines[1:80]) + "RULE: never accept from client 3\n" + "".join(lines[81:152]),  # an edit inside
        "short",  # replaced by something else
    ]
    for text in notes:
        assert _yc(d, state, "scratchpad", "write", "--content", text)[0] == 0
    assert _yc(d, state, "scratchpad", "write", "--content", "x" * 20_001)[0] == 1  # refused: kept as sent
    _stop(d, state)
    writes = [json.loads(t) for t in _record(state).read_text().splitlines() if "scratchpad_write" in t]
    assert [("args_delta" in w, "args" in w) for w in writes] == [(True, False)] * 5 + [(False, True)]
    sizes = [len(json.dumps(w["args_delta"])) for w in writes[:5]]
    assert sizes[0] > len(notes[0]) and max(sizes[1:4]) < 200 < len(notes[1])  # an edit costs its own size
    env = _load(d, state)
    assert env.world.scratchpad == "short"
    direct = YcEnv.from_preset("default", SEED)
    for text in notes:
        direct.call("scratchpad_write", content=text)
    assert env.state_digest() == direct.state_digest()


def test_a_malformed_scratchpad_edit_is_refused_on_restore(recorded: tuple[Path, Path, Any], tmp_path: Path) -> None:
    d, state = _copy(recorded, tmp_path)
    record = _record(state)
    i = next(i for i, t in enumerate(record.read_text().splitlines()) if "args_delta" in t)
    _edit(record, i, lambda t: t.replace('"args_delta": ["first note"]', '"args_delta": [[0, 99]]'))
    with pytest.raises(SessionLogError, match=f"line {i + 1}: its args_delta cannot be expanded"):
        _load(d, state)


@pytest.mark.parametrize(
    "flags", [("--seed", "1", "--preset", "p" * 100_000), ("--seed", "1", "--" + "f" * 100_000, "x")]
)
def test_sim_init_quotes_an_over_long_word_bounded(tmp_path: Path, flags: tuple[str, ...]) -> None:
    rc, out = _entry(tmp_path / "host", "yc", "--session", str(tmp_path / "agent"), "sim", "init", *flags)
    assert rc == 1 and len(out["error"]) < 1_000 and "chars)" in out["error"]
    assert not (tmp_path / "agent" / "session.json").exists()


def test_help_and_rules_answer_before_sim_init_from_the_public_tool_list(tmp_path: Path) -> None:
    d, state = tmp_path / "my notes", tmp_path / "host"
    rc, out = _entry(state, "yc", "--session", str(d), "help")
    assert rc == 0 and {"task cancel", "sim init --seed N [--preset P] [--horizon H]"} <= {
        c["command"] for c in out["commands"]
    }
    rc, out = _entry(state, "yc", "--session", str(d), "help", "task")
    assert rc == 0 and [c["command"] for c in out["commands"]] == [
        "task list", "task inspect", "task accept", "task assign", "task dispatch", "task cancel",
    ]  # fmt: skip
    rc, out = _entry(state, "yc", "--session", str(d), "help", "sim")
    assert rc == 0 and [c["command"] for c in out["commands"]] == [
        "sim resume", "sim result", "sim init --seed N [--preset P] [--horizon H]",
    ]  # fmt: skip
    rc, out = _entry(state, "yc", "--session", str(d), "task", "cancel", "--help")
    assert rc == 0 and "35 %" in out["description"] and "details" not in out  # the description once
    rc, out = _entry(state, "yc", "--session", str(d), "sim", "resume", "--help")
    assert rc == 0 and "details" not in out
    rc, out = _entry(state, "yc", "--session", str(d), "rules")
    assert rc == 0 and f"`bizbench yc --session '{d}' market browse`" in out["rules"]  # shell-quoted
    rc, out = _entry(state, "yc", "--session", str(d), "task", "list")
    assert rc == 1 and "No yc session" in out["error"]
    assert not d.exists() or not (d / "session.json").exists()


def test_sim_result_with_a_flag_is_named_not_an_unknown_command(session: tuple[Path, Path]) -> None:
    d, state = session
    rc, out = _yc(d, state, "sim", "result", "--foo")
    assert rc == 1 and "'sim result' takes no flags" in out["error"] and "Unknown command" not in out["error"]
    rc, out = _yc(d, state, "rules", "--x")
    assert rc == 1 and "'rules' takes no flags" in out["error"]


def test_host_rules_of_an_env_whose_instructions_teach_the_sdk_are_a_host_session_text() -> None:
    from bizbench.core.cmdsession import host_rules
    from bizbench.core.envs import get_env

    spec = get_env("ceo")
    config = spec.load_config()[0]
    text = host_rules("ceo", config, spec.env_class.registry_for(config), "/tmp/my notes")
    assert text is not None and "only through its Python SDK" not in text
    assert "bizbench ceo --session '/tmp/my notes' help" in text


def test_a_bug_inside_expand_args_surfaces_instead_of_reading_as_a_bad_record(monkeypatch: pytest.MonkeyPatch) -> None:
    from bizbench.core.cmdsession import _apply, new_env
    from bizbench.core.env import EnvBase

    env = new_env("yc", 1)
    assert EnvBase.compact_args(env, "company_status", {}) is None  # the hooks are declared with defaults

    def broken(tool: str, delta: Any) -> dict[str, Any]:
        return {"content": delta.no_such_attribute}  # a bug, not a malformed record

    monkeypatch.setattr(env, "expand_args", broken)
    entry = {"kind": "call", "tool": "scratchpad_write", "args_delta": {"keep": 0}, "ok": True}
    with pytest.raises(AttributeError):
        _apply(env, entry, "line 2")


@pytest.mark.parametrize("seed", ["1_0", " 7", "7 ", "\u0667", "+7", "0x7", "", "1" * 5000])  # past int()'s limit
def test_sim_init_takes_only_ascii_digits_for_an_integer(tmp_path: Path, seed: str) -> None:
    rc, out = _entry(tmp_path / "host", "yc", "--session", str(tmp_path / "agent"), "sim", "init", "--seed", seed)
    assert rc == 1 and "--seed expects an integer" in out["error"]
    assert not (tmp_path / "agent" / "session.json").exists()


def test_sim_init_takes_flag_equals_value_like_the_tool_commands(tmp_path: Path) -> None:
    d, state = tmp_path / "agent", tmp_path / "host"
    rc, out = _entry(state, "yc", "--session", str(d), "sim", "init", "--seed=5", "--horizon=2")
    try:
        assert rc == 0 and "funds_cents" in out, out
        assert json.loads((d / "session.json").read_text())["horizon"] == 2
        rc, out = _entry(state, "yc", "--session", str(d), "sim", "init", "--seed=5", "--seed=6")
        assert rc == 1 and "--seed is given twice" in out["error"]
    finally:
        _stop(d, state)
