"""Red-team tests of the hosted yc seat: `bizbench yc --session /workspace ...` in the sandbox against a live
``bizbench serve yc`` (modelled on tests/ceo/test_isolation.py; the seat is core.seat's, docs/seats.md).

The server runs as a subprocess (seed 918273, a tmp workspace). Every command runs inside
:func:`bizbench.core.sandbox.run_in_sandbox` as an agent's shell would, and is also applied to a
mirror env in this process: each answer must equal the mirror's, so the served world is the
mirror's world and the mirror's hidden state (adversarial clients, true work) is what must not
leak. docs/principles.md principle 3: nothing hidden (the seed above all) reaches the agent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.cmdsession import state_root
from bizbench.core.sandbox import run_in_sandbox, sandbox_unavailable_reason
from bizbench.core.seat import launch_serve, open_seat, seat_of
from bizbench.core.server import ToolServer
from bizbench.core.session import Session
from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.prompt import system_prompt
from bizbench.runner.episode import open_session
from seat_mirror import SandboxedSeat

SEED = 918273  # distinctive digits: they must never appear anywhere the agent can read
REASON = sandbox_unavailable_reason()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
SCHEMAS = YcEnv.registry.parameter_schemas()
FORBIDDEN = ("adversar", "creep", "true_work", "multiplier", "inflat")  # words of the hidden state
SEAT = seat_of("yc")
COMMAND_PREFIX = SEAT.command_prefix()


def sandbox_options() -> dict[str, Any]:
    return SEAT.sandbox_options()


class Live(SandboxedSeat):
    """The yc seat served in the sandbox, with its mirror."""

    def read_all(self) -> list[Any]:
        """Every read-only answer (the served world's whole visible state), checked against the mirror."""
        words = [
            ["company", "status"], ["employee", "list"], ["market", "browse", "--limit", "200"], ["task", "list"],
            ["client", "list"], ["client", "history"], ["finance", "ledger"], ["scratchpad", "read"],
        ]  # fmt: skip
        words += [["task", "inspect", "--task-id", f"Task-{num}"] for num in sorted(self.mirror.world.tasks)]
        return [self.command(*w)[1] for w in words]


def start_server(base: Path, *extra: str) -> tuple[Path, Path, subprocess.Popen[bytes]]:
    ws, run = base / "ws", base / "run"
    return ws, run, launch_serve("yc", SEED, ws, run, *extra, cwd=base)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    if REASON is not None:
        pytest.skip(f"no sandbox on this host: {REASON}")
    ws, run, proc = start_server(tmp_path_factory.mktemp("ycseat"))
    yield Live("yc", ws, run, proc, YcEnv.from_preset("default", SEED))
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)


def _tamper(live: Live) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (live.run / "tamper.jsonl").read_text().splitlines()]


# ---------------------------------------------------------------------------- it works
@needs_sandbox
def test_commands_work_and_persist(live: Live) -> None:
    rc, staff = live.command("employee", "list")
    assert rc == 0 and len(staff["employees"]) == 8
    direct = live.sandbox(["bin/bizbench", "yc", "--session", "/workspace", "employee", "list"])  # not via PATH
    assert direct.returncode == 0 and json.loads(direct.stdout) == staff
    rc, market = live.command("market", "browse", "--limit", "3")
    tid = market["tasks"][0]["task_id"]
    ids = ",".join(e["employee_id"] for e in staff["employees"][:4])
    assert live.command("task", "accept", "--task-id", tid)[0] == 0
    assert live.command("task", "assign", "--task-id", tid, "--employees", ids)[0] == 0
    assert live.command("task", "dispatch", "--task-id", tid)[0] == 0
    rc, resumed = live.command("sim", "resume")
    assert rc == 0 and resumed["time"] > resumed["previous_time"]
    assert live.command("scratchpad", "write", "--content", "watch client trust")[0] == 0
    # a new sandbox, another working directory, bizbench from PATH and --session=: the same session
    cmd = "cd /tmp && bizbench yc --session=/workspace scratchpad read && command -v bizbench"
    r = live.sandbox(["bash", "-c", cmd])
    note, where = r.stdout.strip().splitlines()
    assert json.loads(note)["content"] == "watch client trust" and where == "/workspace/bin/bizbench"
    assert live.command("company", "status")[1]["time"] == resumed["time"]
    assert tid in [t["task_id"] for t in live.command("task", "list")[1]["tasks"]]
    live.read_all()


@needs_sandbox
def test_sim_init_is_refused(live: Live) -> None:
    before = live.read_all()
    rc, out = live.command("sim", "init", "--seed", "1")
    assert rc == 1 and "host created this session" in out["error"]
    code = (
        "import json, socket\n"
        "s = socket.socket(socket.AF_UNIX); s.connect('/workspace/.yc/api.sock')\n"
        "body = json.dumps({'words': ['sim', 'init', '--seed', '1']}).encode()\n"
        "s.sendall(b'POST /command HTTP/1.0\\r\\nContent-Length: %d\\r\\n\\r\\n' % len(body) + body)\n"
        "print(b''.join(iter(lambda: s.recv(65536), b'')).split(b'\\r\\n\\r\\n', 1)[1].decode())\n"
    )
    r = live.sandbox(["python3", "-c", code])
    reply = json.loads(r.stdout)
    assert reply["success"] is False and reply["error"].startswith("Unknown command: sim init")
    live.mirror.log_tamper("unknown_tool", {})
    assert live.read_all() == before
    assert any(row["kind"] == "unknown_tool" and "sim init" in row["command"] for row in _tamper(live))


@needs_sandbox
def test_a_bad_command_gives_a_json_error_and_changes_nothing(live: Live) -> None:
    before, digest = live.read_all(), live.mirror.state_digest()
    for words in (
        ("task", "accept", "--task-id", "Task-99999"),
        ("task", "assign", "--task-id", "Task-1", "--employees", "Emp_99"),
        ("task", "dispatch", "--task-id", "Task-0"),
        ("market", "browse", "--limit", "-5"),
        ("market", "browse", "--reward-min-cents", "nan"),
        ("task", "cancel", "--task-id", "Task-1", "--reason", "x" * 3000),
        ("scratchpad", "write"),
        ("sim", "resume", "--days", "3"),
        ("rm", "-rf", "/"),
        (),
    ):
        rc, out = live.command(*words)
        assert rc == 1 and set(out) == {"error"} and out["error"], (words, out)
    bad = live.sandbox(["bizbench", "yc", "--session", "/tmp", "company", "status"])
    assert bad.returncode == 1 and "No yc session in '/tmp'" in json.loads(bad.stdout)["error"]
    assert live.mirror.state_digest() == digest  # the mirror ran the same commands ...
    assert live.read_all() == before  # ... and the served world answers exactly like it
    assert live.proc.poll() is None


# ---------------------------------------------------------------------------- the engine and the host
@needs_sandbox
def test_the_engine_is_not_importable(live: Live) -> None:
    code = "import bizbench"
    for argv in (["python3", "-c", code], ["python3", "-I", "-c", code], ["python3", "-S", "-c", code]):
        r = live.sandbox(argv)
        assert r.returncode == 1 and "ModuleNotFoundError" in r.stderr, r.stderr


@needs_sandbox
def test_host_run_dir_and_state_root_are_unreachable(live: Live) -> None:
    paths = [str(live.run), str(live.run / "config.json"), str(state_root()), "/work", "/home", "/proc/1/environ"]
    code = f"""
import glob, json, os
seen = {{}}
for path in {paths!r}:
    try:
        seen[path] = sorted(os.listdir(path)) if os.path.isdir(path) else open(path).read()
    except OSError as e:
        seen[path] = "ERR " + type(e).__name__
seen["cmdlines"] = []
for f in glob.glob("/proc/[0-9]*/cmdline"):
    if f != f"/proc/{{os.getpid()}}/cmdline":
        try:
            seen["cmdlines"].append(open(f, "rb").read().replace(b"\\0", b" ").decode())
        except OSError:
            pass
print(json.dumps(seen))
"""
    seen = json.loads(live.sandbox(["python3", "-c", code]).stdout)
    cmdlines = seen.pop("cmdlines")
    assert all(str(v).startswith("ERR") for v in seen.values()), seen
    assert not any("serve" in c or "bizbench" in c or "pytest" in c for c in cmdlines), cmdlines


@needs_sandbox
def test_the_workspace_is_read_only_where_it_matters(live: Live) -> None:
    cmd = "echo x > bin/bizbench; echo $?; rm -f .yc/api.sock; echo $?; touch notes.txt; echo $?"
    r = live.sandbox(["bash", "-c", cmd])
    assert r.stdout.split() == ["1", "1", "0"], r.stdout + r.stderr
    assert live.command("company", "status")[0] == 0


# ---------------------------------------------------------------------------- hidden state
@needs_sandbox
def test_seed_and_hidden_state_appear_nowhere(live: Live) -> None:
    w = live.mirror.world
    # work for an adversarial client (scope creep), so true work differs from what was advertised
    adversaries = {i for i, c in enumerate(w.clients) if c.adversarial}
    acceptable = [t for t in w.market.ordered() if t.client in adversaries and t.required_trust == 0]
    acceptable = [t for t in acceptable if t.required_prestige <= w.prestige[t.domain]]
    assert acceptable, "no acceptable task of an adversarial client in this world"
    tid = f"Task-{acceptable[0].num}"
    staff = ",".join(e.id for e in w.employees[-3:])
    for words in (("task", "accept", "--task-id", tid), ("task", "assign", "--task-id", tid, "--employees", staff)):
        assert live.command(*words)[0] == 0
    live.command("task", "dispatch", "--task-id", tid)
    for _ in range(3):
        live.command("sim", "resume")
    live.read_all()
    cmd = (
        "ps auxww; env; id; hostname; cat /proc/self/mountinfo; "
        "for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do tr '\\0' ' ' < $f; echo; done; "
        "cat .yc/connection.json instructions.md bin/bizbench; "
        "grep -r . /workspace /etc /tmp 2>/dev/null | head -c 20000000"
    )
    r = live.sandbox(["bash", "-c", cmd])
    assert "instructions" not in r.stderr and "Maximize funds" in r.stdout
    blob = "\n".join(live.replies)
    files = {p: p.read_bytes() for p in live.ws.rglob("*") if p.is_file()}  # everything in the workspace, host side
    assert {p.relative_to(live.ws).as_posix() for p in files} >= {
        "bin/bizbench",
        "instructions.md",
        "yc_api/__init__.py",
    }
    texts = [blob, *(b.decode("utf-8", errors="replace") for b in files.values())]
    assert not [t for t in texts if str(SEED) in t]
    assert not [f for f in FORBIDDEN if any(f in t.lower() for t in texts)]
    task = w.tasks[acceptable[0].num]
    assert task.true_work != task.required  # the scope creep is real ...
    secrets = [repr(c.multiplier) for c in w.clients]
    secrets += [repr(t.creep) for t in w.tasks.values() if t.client in adversaries]
    secrets += [repr(t.true_work) for t in w.tasks.values() if t.true_work != t.required]
    secrets = [s for s in secrets if len(s) >= 5]  # distinctive values only
    assert not [s for s in secrets if any(s in t for t in texts)]  # ... and nowhere to be read


# ---------------------------------------------------------------------------- lifecycle
@needs_sandbox
def test_the_episode_end_stops_the_server_and_writes_the_run(tmp_path: Path) -> None:
    ws, run, proc = start_server(tmp_path)
    try:
        cmd = "for i in $(seq 40); do bizbench yc --session /workspace sim resume || break; done"
        r = run_in_sandbox(ws, ["bash", "-c", cmd], 120, **sandbox_options())
        *resumes, ended, refused = r.stdout.strip().splitlines()
        assert [json.loads(line)["done"] for line in resumes] == [False] * len(resumes)
        assert json.loads(ended)["done"] is True  # the answer of the ending call arrives, then the server stops
        error = json.loads(refused)["error"]  # from the stopping server, or none at all
        assert any(s in error for s in ("simulation has ended", "does not answer", "The episode has ended"))
        assert proc.wait(60) == 0
        after = run_in_sandbox(
            ws, ["bizbench", "yc", "--session", "/workspace", "company", "status"], 60, **sandbox_options()
        )
        assert after.returncode == 1 and "The episode has ended" in json.loads(after.stdout)["error"]
    finally:
        if proc.poll() is None:
            proc.kill()
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == "episode_end" and result["done"] is True and result["agent"] == "served"
    assert result["seed"] == SEED and result["resumes"] > 0 and result["completed"] == (not result["bankrupt"])
    assert {p.name for p in run.iterdir()} >= {"config.json", "actions.jsonl", "metrics.jsonl", "tamper.jsonl"}
    assert {"result.json", "ledger.csv", "cash.png"} <= {p.name for p in run.iterdir()}
    assert not (ws / ".yc" / "api.sock").exists()


def test_serve_yc_refuses_days(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", "yc", "--seed", "5", "--days", "30"]
    cmd += ["--workspace", str(tmp_path / "ws"), "--run-dir", str(tmp_path / "run")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    message = " ".join(proc.stderr.split())
    assert (
        proc.returncode == 2
        and "--days applies to envs counted in days (ceo" in message
        and "yc counts months: use --horizon" in message
    )
    assert not (tmp_path / "ws" / "bin").exists() and not (tmp_path / "run").exists()


# ---------------------------------------------------------------------------- without a sandbox
def test_write_workspace(tmp_path: Path) -> None:
    env = YcEnv.from_preset("default", SEED)
    written = SEAT.write_workspace(tmp_path, env.config)
    client, instructions = tmp_path / "bin" / "bizbench", tmp_path / "instructions.md"
    assert {client, instructions} <= set(written.files) and os.access(client, os.X_OK)
    client_source = SEAT.client_source()
    assert client.read_text() == client_source and client_source.startswith("#!/usr/bin/env -S python3 -I -S\n")
    assert instructions.read_text() == env.system_prompt(command_prefix=COMMAND_PREFIX)
    assert instructions.read_text() == system_prompt(env.config, "bizbench yc --session /workspace")
    text = " ".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert str(SEED) not in text and "adversar" not in text.lower()
    prompt = instructions.read_text()
    assert "bizbench yc --session /workspace sim resume" in prompt and "sim init" not in prompt
    assert "import bizbench" not in client_source and "from bizbench" not in client_source


@pytest.fixture
def seat(tmp_path: Path) -> Iterator[tuple[Path, Session, ToolServer]]:
    """A served session on the host (no sandbox): the client script against a live server in this process."""
    ws = tmp_path / "ws"
    session = open_session("yc", 7, out=tmp_path / "run", agent="served")
    with open_seat(session, ws) as srv:
        yield ws, session, srv


def _client(ws: Path, *argv: str) -> tuple[int, Any]:
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(ws / "bin" / "bizbench"), *argv], capture_output=True, text=True, timeout=60
    )
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and proc.stderr == "", proc.stdout + proc.stderr
    return proc.returncode, json.loads(lines[0])


def _client_module() -> Any:
    """The rendered yc client as a module of this process."""
    module = type(sys)("yc_shell_client")
    exec(compile(SEAT.client_source(), "bin/bizbench", "exec"), module.__dict__)
    return module


def test_the_client_script(seat: tuple[Path, Session, ToolServer], tmp_path: Path) -> None:
    ws, session, srv = seat
    rc, out = _client(ws, "yc", "--session", str(ws), "employee", "list")
    assert rc == 0 and len(out["employees"]) == 8
    assert _client(ws, "yc", f"--session={ws}", "scratchpad", "write", "--content", "a b")[0] == 0
    assert session.env.scratchpad == "a b"
    for argv, needle in (
        (("yc", "--session", str(ws), "sim", "init", "--seed", "3"), "host created this session"),
        (("yc", "--session", str(tmp_path), "company", "status"), "No yc session"),
        (("yc", "--session", "", "company", "status"), "No yc session"),
        (("yc", "company", "status"), "usage: bizbench yc --session DIR"),
        ((), "usage"),
        (("ceo", "--session", str(ws)), "usage"),
        (("yc", "--session", str(ws), "task", "accept"), "task_id"),
        (("yc", "--session", str(ws), "sim", "result"), "Unknown command: sim result"),  # hidden facts: host only
    ):
        rc, out = _client(ws, *argv)
        assert rc == 1 and needle in out["error"], (argv, out)
    rc, out = _client(ws, "yc", "--session", str(ws), "--help")
    assert rc == 0 and {"task accept", "rules", "help [COMMAND]"} <= {c["command"] for c in out["commands"]}
    assert "sim result" not in json.dumps(out) and "sim init" not in json.dumps(out)
    rc, out = _client(ws, "yc", "--session", str(ws), "task", "assign", "--help")
    assert rc == 0 and [f["flag"] for f in out["flags"]] == ["--task-id", "--employees"]
    rc, out = _client(ws, "yc", "--session", str(ws), "rules")
    assert rc == 0 and out["rules"] == (ws / "instructions.md").read_text()
    assert _client_module().main(["yc", "--session", str(ws), "company", "status"]) == 0  # in process, too
    srv.stop()
    rc, out = _client(ws, "yc", "--session", str(ws), "company", "status")
    assert rc == 1 and "The episode has ended: the run was stopped" in out["error"]


def test_the_served_session_ends_with_the_year_or_bankruptcy(tmp_path: Path) -> None:
    session = open_session("yc", 3, out=tmp_path / "run", agent="served")
    assert session.status()["done"] is False and session.registry.parameter_schemas() == SCHEMAS
    turns = 0
    while not session.status()["done"]:
        assert session.call_tool("sim_resume", {}).ok
        turns += 1
    session.log_tamper("unknown_tool", {"command": "x"})
    result = session.finish(ended_by="episode_end", agent="served")
    assert result["resumes"] == turns and (result["bankrupt"] or result["time"] == result["horizon_end"])
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["final_funds_cents"] == result["final_funds_cents"] and saved["tamper_events"] == 1
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) == turns


def test_the_seats_http_server_names_itself_bizbench(seat: tuple[Path, Session, ToolServer]) -> None:
    import socket

    ws, _, srv = seat
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(srv.socket_path))
        sock.sendall(b"GET /health HTTP/1.0\r\nHost: localhost\r\n\r\n")
        head = sock.makefile("rb").read().split(b"\r\n\r\n")[0].decode()
    server = next(line for line in head.splitlines() if line.lower().startswith("server:"))
    assert server.split(":", 1)[1].strip().startswith("bizbench/") and "novamind" not in head.lower(), head


def test_serving_a_users_folder_never_takes_over_its_bin(tmp_path: Path) -> None:
    """A workspace whose bin/ (or runtime directory) is not a seat's own is refused: nothing is chowned,
    chmodded or unlinked there, and no run starts."""
    ws = tmp_path / "home"
    (ws / "bin").mkdir(parents=True)
    (ws / "bin" / "mytool").write_text("#!/bin/sh\n")
    (ws / "bin" / "link").symlink_to("/usr/bin/env")
    os.chmod(ws / "bin", 0o775)
    owner = 4242 if os.geteuid() == 0 else os.geteuid()
    os.chown(ws / "bin", owner, owner) if os.geteuid() == 0 else None
    before = [(p.name, p.lstat().st_uid, p.lstat().st_mode) for p in [ws / "bin", *sorted((ws / "bin").iterdir())]]
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", "yc", "--seed", "5"]
    cmd += ["--workspace", str(ws), "--run-dir", str(tmp_path / "run")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "bin" in message and "serve a new or empty workspace" in message, message
    after = [(p.name, p.lstat().st_uid, p.lstat().st_mode) for p in [ws / "bin", *sorted((ws / "bin").iterdir())]]
    assert after == before and not (tmp_path / "run").exists() and not (ws / ".yc").exists()
    SEAT.write_workspace(tmp_path / "fresh")  # a new workspace, then the same one again: the seat's own
    SEAT.write_workspace(tmp_path / "fresh")
