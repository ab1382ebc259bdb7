"""`bizbench yc --session DIR <command>`: persistent sessions, JSON-only output, and no hidden state in DIR."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.cmdsession import CommandSession

SEED = 918273


def _yc(session: Path, state: Path, *words: str) -> tuple[int, Any]:
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state))
    cmd = [sys.executable, "-m", "bizbench.cli", "yc", "--session", str(session), *words]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout + proc.stderr  # nothing but one JSON document on stdout
    return proc.returncode, json.loads(lines[0])


def _stop(d: Path, state: Path) -> None:
    os.environ["BIZBENCH_STATE_DIR"], old = str(state), os.environ.get("BIZBENCH_STATE_DIR")
    try:
        CommandSession("yc", d).stop_daemon()
    finally:
        if old is None:
            del os.environ["BIZBENCH_STATE_DIR"]
        else:
            os.environ["BIZBENCH_STATE_DIR"] = old


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
