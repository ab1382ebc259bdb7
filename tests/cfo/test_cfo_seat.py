"""The cfo seat: ``bizbench serve cfo`` + the generated ``enterprise_api`` SDK and ``bin/bizbench`` from the
sandbox, and the host-side ``bizbench cfo --session DIR`` (docs/seats.md; modelled on
tests/yc/test_shell_isolation.py and tests/ceo/test_isolation.py).

The server runs as a subprocess, as an outside agent's would. Every command runs inside
:func:`bizbench.core.sandbox.run_in_sandbox` and is also applied to a mirror env in this process: the
served world must answer exactly like the mirror, and the mirror's hidden state (the seed, the
held-out secret, the macro path's future) is what must not leak (docs/principles.md principle 3).
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

from bizbench.core.cmdline import parse_command
from bizbench.core.cmdsession import state_root
from bizbench.core.envs import get_env
from bizbench.core.sandbox import WORKSPACE_MOUNT, run_in_sandbox, sandbox_python, sandbox_unavailable_reason
from bizbench.core.seat import launch_serve, seat_of
from bizbench.envs.cfo.tools import registry
from bizbench.envs.cfo.world.macro import SERIES
from seat_mirror import SandboxedSeat

SEED = 918273  # distinctive digits: they must never appear anywhere the agent can read
EPISODE_SEED = 918274  # a world the greedy-equity CFO below survives for all 132 months (918273's fails in month 97)
SECRET = "held-out-7f3a9c51e2"  # $BIZBENCH_SEED_SECRET of the hidden-state server
REASON = sandbox_unavailable_reason()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
SEAT = seat_of("cfo")
SPEC = get_env("cfo")
SCHEMAS = registry.parameter_schemas()
PUBLIC_STATUS = {"month", "turn", "elapsed", "unit", "done", "bankrupt"}

# The agent: a greedy-equity CFO written against the SDK ($20M of equity whenever nothing is
# pending, else pass), after a look around at month 0. It prints one JSON line.
AGENT = """
import json
import enterprise_api as cfo

out = {"errors": [], "actions": 0}
obs = cfo.observation()
out["first"] = obs
out["status"] = cfo.game_status()
out["cash"] = cfo.check_cash_in_bank()["cash"]
cfo.save_note(content="Raise equity whenever nothing is pending.", tags=["plan"])
for bad in (lambda: cfo.fund_raising_request(type="stock", amount=1), lambda: cfo.call("drop_tables")):
    try:
        bad()
    except cfo.EnterpriseAPIError as e:
        out["errors"].append(str(e))
while not obs["done"]:
    if obs["pending_request"] is None:
        answer = cfo.fund_raising_request(type="equity", amount=20_000_000)
    else:
        answer = cfo.pass_()
    out["actions"] += 1
    obs = answer["next"]
out["last"] = obs
print(json.dumps(out))
"""


def start_server(
    base: Path, *extra: str, seed: int = SEED, secret: str | None = None
) -> tuple[Path, Path, subprocess.Popen[bytes]]:
    ws, run = base / "ws", base / "run"
    environ = {k: v for k, v in os.environ.items() if k != "BIZBENCH_SEED_SECRET"}
    if secret is not None:
        environ["BIZBENCH_SEED_SECRET"] = secret
    return ws, run, launch_serve("cfo", seed, ws, run, *extra, environ=environ, cwd=base)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ---------------------------------------------------------------------------- a whole episode
@needs_sandbox
def test_a_full_episode_from_the_sandbox(tmp_path: Path) -> None:
    """132 months through the seat: shell commands at month 0, then the SDK script; the run
    directory is a complete, replayable run, equal to the same calls made in process."""
    from bizbench.runner.replay import replay_run

    ws, run, proc = start_server(tmp_path, seed=EPISODE_SEED)
    try:
        shell = [
            ["observation"],
            ["status"],
            ["recall", "notes"],
            ["save_note", "--content", "month 0: look around", "--tags", "plan,cash"],
            ["check", "market", "data", "--data-type", "economic"],
            ["fund_raising_request", "--type", "equity", "--amount", "lots"],  # refused by the parser
            ["sim", "init", "--seed", "1"],  # refused by the client
        ]
        script = " ; ".join(f"bizbench cfo --session /workspace {' '.join(map(repr, w))}" for w in shell)
        r = run_in_sandbox(ws, ["bash", "-c", script], 120, **SEAT.sandbox_options())
        answers = [json.loads(line) for line in r.stdout.splitlines()]
        assert len(answers) == len(shell) and r.stderr == "", r.stdout + r.stderr
        assert answers[0]["current_month"] == 0 and answers[0]["tool_budget_left"] == 20
        assert set(answers[1]) == PUBLIC_STATUS  # no cash: it costs a check_cash_in_bank
        assert "error" not in answers[2] and "error" not in answers[3] and "series" in answers[4]
        assert "--amount expects a number" in answers[5]["error"]
        assert "host created this session" in answers[6]["error"]
        (ws / "agent.py").write_text(AGENT)
        r = run_in_sandbox(ws, [sandbox_python(), f"{WORKSPACE_MOUNT}/agent.py"], 600, **SEAT.sandbox_options())
        assert r.returncode == 0 and not r.timed_out, r.stderr
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert proc.wait(120) == 0  # the server stops by itself at the episode's end
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    assert out["last"]["done"] is True and out["last"]["bankrupt"] is False and out["actions"] == 132
    assert set(out["status"]) == PUBLIC_STATUS and out["first"]["current_month"] == 0
    assert "type" in out["errors"][0] and out["errors"][1].startswith("Unknown tool: drop_tables")

    # the same calls in process
    mirror = SPEC.from_preset("paper", EPISODE_SEED)
    for words in shell[2:5]:
        mirror.call_tool(*parse_command(SCHEMAS, words))
    mirror.call("check_cash_in_bank")
    mirror.call("save_note", content="Raise equity whenever nothing is pending.", tags=["plan"])
    mirror.call("fund_raising_request", type="stock", amount=1)
    mirror.call("drop_tables")
    while not mirror.done:
        if mirror.world.pending is None:
            mirror.call("fund_raising_request", type="equity", amount=20_000_000)
        else:
            mirror.call("pass")

    config = json.loads((run / "config.json").read_text())
    assert (config["env"], config["seed"], config["agent"], config["horizon"], config["unit"]) == (
        "cfo",
        EPISODE_SEED,
        "served",
        132,
        "month",
    )
    actions = _lines(run / "actions.jsonl")
    assert [(a["tool"], a["ok"]) for a in actions] == [(a["tool"], a["ok"]) for a in mirror.actions]
    assert len(actions) == 132 + 7 and sum(not a["ok"] for a in actions) == 2
    assert len(_lines(run / "metrics.jsonl")) == 132
    assert [t["kind"] for t in _lines(run / "tamper.jsonl")] == [t["kind"] for t in mirror.tamper]
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == "episode_end" and result["completed"] is True and result["bankrupt"] is False
    assert result["survived"] == result["horizon"] == result["months_survived"] == 132
    assert result["final_cash"] == mirror.cash() and result["score"] == mirror.score() > 0
    assert result["tool_calls"] == mirror.tool_calls == 2 and result["agent"] == "served"
    assert (run / "ledger.csv").read_text().startswith("month,account,amount_usd_debit_positive") and (
        run / "cash.png"
    ).exists()
    report = replay_run(run)
    assert report.ok, (report.divergence, report.mismatches)
    assert not SEAT.socket_path(ws).exists()
    print(
        f"cfo seat episode: final cash ${result['final_cash']:,.2f}, score ${result['score']:,.2f}, "
        f"{len(actions)} actions"
    )


# ---------------------------------------------------------------------------- hidden state
@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxedSeat]:
    if REASON is not None:
        pytest.skip(f"no sandbox on this host: {REASON}")
    ws, run, proc = start_server(tmp_path_factory.mktemp("cfoseat"), "--preset", "random-macro", secret=SECRET)
    yield SandboxedSeat("cfo", ws, run, proc, SPEC.from_preset("random-macro", SEED, secret=SECRET))
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)


@needs_sandbox
def test_commands_answer_like_the_mirror(live: SandboxedSeat) -> None:
    budget = live.command("observation")[1]["tool_budget_left"]
    rc, cash = live.command("check_cash_in_bank")
    assert rc == 0 and cash["cash"] > 0
    assert live.command("save", "note", "--content", "watch the rates", "--tags", "macro")[0] == 0
    assert live.command("recall_notes", "--query", "rates")[1]["notes"][0]["content"] == "watch the rates"
    assert live.command("access_financial_docs", "--action", "list")[0] == 0
    assert live.command("check_market_data", "--data-type", "debt_market")[0] == 0
    for words in (
        ("fund_raising_request", "--type", "stock", "--amount", "5"),
        ("fund_raising_request", "--type", "equity", "--amount", "-5"),
        ("check_market_data", "--data-type", "economic", "--end-month", "7"),  # the future is refused
        ("pass", "--now"),
        ("rm", "-rf", "/"),
        (),
    ):
        rc, out = live.command(*words)
        assert rc == 1 and set(out) == {"error"}, (words, out)
    assert live.command("observation")[1]["tool_budget_left"] == budget - 3  # the refused calls cost nothing
    rc, status = live.command("status")
    month = live.mirror.world.month
    expected = {"month": month, "turn": month, "elapsed": month, "unit": "month", "done": False, "bankrupt": False}
    assert rc == 0 and status == expected
    rc, moved = live.command("pass")
    assert rc == 0 and moved["next"]["current_month"] == month + 1
    assert "future" in live.command("check_market_data", "--data-type", "economic", "--end-month", "7")[1]["error"]
    assert any(t["kind"] == "unknown_tool" for t in _lines(live.run / "tamper.jsonl"))
    assert live.proc.poll() is None


@needs_sandbox
def test_the_engine_is_not_importable(live: SandboxedSeat) -> None:
    code = "import bizbench"
    for argv in (["python3", "-c", code], ["python3", "-I", "-c", code], ["python3", "-S", "-c", code]):
        r = live.sandbox(argv)
        assert r.returncode == 1 and "ModuleNotFoundError" in r.stderr, r.stderr
    r = live.sandbox(["python3", "-c", "import enterprise_api, json; print(json.dumps(enterprise_api.game_status()))"])
    assert r.returncode == 0 and set(json.loads(r.stdout)) == PUBLIC_STATUS
    assert any(t["kind"] == "import_engine" for t in _lines(live.run / "tamper.jsonl"))


@needs_sandbox
def test_host_run_dir_and_state_root_are_unreachable(live: SandboxedSeat) -> None:
    paths = [str(live.run), str(live.run / "config.json"), str(state_root()), "/work", "/home", "/proc/1/environ"]
    code = f"""
import json, os
seen = {{}}
for path in {paths!r}:
    try:
        seen[path] = sorted(os.listdir(path)) if os.path.isdir(path) else open(path).read()
    except OSError as e:
        seen[path] = "ERR " + type(e).__name__
print(json.dumps(seen))
"""
    seen = json.loads(live.sandbox(["python3", "-c", code]).stdout)
    assert all(str(v).startswith("ERR") for v in seen.values()), seen
    r = live.sandbox(["bash", "-c", "echo x > bin/bizbench; echo $?; rm -f .enterprise/api.sock; echo $?"])
    assert r.stdout.split() == ["1", "1"], r.stdout + r.stderr


@needs_sandbox
def test_seed_secret_and_the_macro_future_appear_nowhere(live: SandboxedSeat) -> None:
    live.command("check_market_data", "--data-type", "economic")
    live.command("observation")
    cmd = (
        "ps auxww; env; id; hostname; cat /proc/self/mountinfo; "
        "for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do tr '\\0' ' ' < $f; echo; done; "
        "cat .enterprise/connection.json instructions.md bin/bizbench docs/README.md; "
        "grep -r . /workspace /etc /tmp 2>/dev/null | head -c 20000000; "
        "python3 -c 'import enterprise_api as api, json; print(json.dumps([api.observation(), api.game_status()]))'"
    )
    r = live.sandbox(["bash", "-c", cmd])
    assert "current_month" in r.stdout and "consumer-lending" in r.stdout
    files = {p: p.read_bytes() for p in live.ws.rglob("*") if p.is_file()}  # everything in the workspace, host side
    names = {p.relative_to(live.ws).as_posix() for p in files}
    assert names >= {"bin/bizbench", "instructions.md", "enterprise_api/__init__.py", "docs/README.md"}
    texts = ["\n".join(live.replies), *(b.decode("utf-8", errors="replace") for b in files.values())]
    assert not [t for t in texts if str(SEED) in t or SECRET in t]
    macro = live.mirror.world.macro  # the path's future as it would read in a JSON list of a series
    now = live.mirror.world.month
    runs = set()
    for key in SERIES:
        values = [str(round(float(v), 4)) for v in macro.window(key, now + 1, macro.months - 1)]
        runs |= {", ".join(values[i : i + 4]) for i in range(len(values) - 3)}
    assert len(runs) > 1000
    assert not [run for run in runs if any(run in t for t in texts)]


# ---------------------------------------------------------------------------- without a sandbox
def test_write_workspace(tmp_path: Path) -> None:
    config = SPEC.load_config("paper")[0]
    files = SEAT.write_workspace(tmp_path, config)
    client, instructions = tmp_path / "bin" / "bizbench", tmp_path / "instructions.md"
    assert {client, instructions, tmp_path / "enterprise_api" / "__init__.py"} <= set(files.files)
    assert os.access(client, os.X_OK) and client.read_text() == SEAT.client_source()
    text = instructions.read_text()
    assert "CFO of Company XYZ" in text and "## Reply format" not in text
    assert "bizbench cfo --session /workspace fund_raising_request --type equity --amount 20000000" in text
    assert "cfo.pass_()" in text
    init = (tmp_path / "enterprise_api" / "__init__.py").read_text()
    assert "def pass_() -> Any:" in init and 'return _call("pass")' in init
    assert {p.stem for p in (tmp_path / "docs" / "tools").glob("*.json")} == set(registry.names())
    every = " ".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert "import bizbench" not in every and "from bizbench" not in every


def test_serve_cfo_refuses_days(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", "cfo", "--seed", "5", "--days", "30"]
    cmd += ["--workspace", str(tmp_path / "ws"), "--run-dir", str(tmp_path / "run")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    message = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "cfo counts months: use --horizon" in message
    assert not (tmp_path / "ws").exists() and not (tmp_path / "run").exists()


def test_serve_records_beside_a_harness_run_and_refuses_a_finished_one(tmp_path: Path) -> None:
    """A harness opens the run (config.json, trajectory.jsonl, its log of serve) before serve starts:
    the session's record goes beside its files. A directory holding a session's record is refused."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "trajectory.jsonl").write_text('{"event": "start"}\n')
    ws, run, proc = start_server(tmp_path, "--horizon", "2", seed=EPISODE_SEED)
    try:
        code = "import enterprise_api as api; api.pass_(); print(api.pass_()['next']['done'])"
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ws)}
        out = subprocess.run([sys.executable, "-c", code], cwd=ws, env=env, capture_output=True, text=True, timeout=60)
        assert out.stdout.strip() == "True", out.stderr  # not sandboxed: the SDK finds the socket in its workspace
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (run / "trajectory.jsonl").read_text() == '{"event": "start"}\n'
    assert len(_lines(run / "actions.jsonl")) == 2 and json.loads((run / "result.json").read_text())["completed"]
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", "cfo", "--seed", "5", "--workspace", str(ws)]
    proc2 = subprocess.run([*cmd, "--run-dir", str(run)], capture_output=True, text=True, timeout=60)
    assert proc2.returncode == 2 and "already holds a run" in " ".join(proc2.stderr.split())


def _host(session: Path, state: Path, *words: str) -> tuple[int, Any]:
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state))
    env.pop("BIZBENCH_SEED_SECRET", None)
    cmd = [sys.executable, "-m", "bizbench.entry", "cfo", "--session", str(session), *words]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout + proc.stderr  # nothing but one JSON document on stdout
    return proc.returncode, json.loads(lines[0])


def test_host_side_sessions_play_month_by_month(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bizbench cfo --session DIR ...`: sim init, then the registry's tools as words, one month at a time."""
    from bizbench.core.cmdsession import CommandSession

    d, state = tmp_path / "agent", tmp_path / "host"
    monkeypatch.setenv("BIZBENCH_STATE_DIR", str(state))
    rc, first = _host(d, state, "sim", "init", "--seed", str(SEED), "--horizon", "6")
    try:
        assert rc == 0 and first["current_month"] == 0 and "months_total" not in first  # Appendix E: no horizon
        assert json.loads((d / "session.json").read_text()) == {"env": "cfo", "preset": "paper", "horizon": 6}
        assert _host(d, state, "save_note", "--content", "raise early", "--tags", "plan")[0] == 0
        rc, raised = _host(d, state, "fund_raising_request", "--type", "equity", "--amount", "20000000")
        assert rc == 0 and raised["next"]["current_month"] == 1 and raised["next"]["pending_request"]
        rc, again = _host(d, state, "fund", "raising", "request", "--type", "debt", "--amount", "5000000")
        assert rc == 1 and "still pending" in again["error"]
        for month in range(2, 7):
            rc, passed = _host(d, state, "pass")
            assert rc == 0 and passed["next"]["current_month"] == month
        rc, status = _host(d, state, "status")
        assert rc == 0 and status["done"] is True and status["month"] == 6
        assert set(status) <= PUBLIC_STATUS  # as the seat's game_status(): the cash costs a check_cash_in_bank
        assert _host(d, state, "recall_notes")[1]["notes"][0]["content"] == "raise early"  # reads still answer
        assert "simulation has ended" in _host(d, state, "pass")[1]["error"]
        assert _host(d, state, "observation")[1]["done"] is True
        assert str(SEED) not in (d / "session.json").read_text()
        mirror = SPEC.from_preset("paper", SEED, horizon=6)
        mirror.call("save_note", content="raise early", tags=["plan"])
        mirror.call("fund_raising_request", type="equity", amount=20_000_000)
        mirror.call("fund_raising_request", type="debt", amount=5_000_000)
        for _ in range(5):
            mirror.call("pass")
        mirror.call("recall_notes")
        mirror.call("pass")
        assert CommandSession("cfo", d).load().state_digest() == mirror.state_digest()
    finally:
        CommandSession("cfo", d).stop_daemon()


def test_a_host_sessions_rules_teach_its_shell_commands_and_what_answers_after_the_end() -> None:
    from bizbench.core.cmdsession import host_rules

    config = SPEC.load_config()[0]
    text = host_rules("cfo", config, SPEC.env_class.registry_for(config), "/tmp/my cfo")
    assert text is not None and "import enterprise_api" not in text and "stops answering" not in text
    assert "bizbench cfo --session '/tmp/my cfo' check_cash_in_bank" in text and "still answer" in text
    from bizbench.envs.cfo.prompt import system_prompt

    assert text.startswith(system_prompt(config, reply_format=False).rstrip())  # the CFO prompt, then how to act


def test_unknown_env_and_bad_init(tmp_path: Path) -> None:
    d, state = tmp_path / "agent", tmp_path / "host"
    rc, out = _host(d, state, "sim", "init")
    assert rc == 1 and out["error"].startswith("usage: sim init --seed N")
    rc, out = _host(d, state, "sim", "init", "--seed", "1", "--preset", "nope")
    assert rc == 1 and "nope" in out["error"]
    rc, out = _host(d, state, "observation")
    assert rc == 1 and "No cfo session" in out["error"]
    env = dict(os.environ, BIZBENCH_STATE_DIR=str(state))
    cmd = [sys.executable, "-m", "bizbench.entry", "nosuchenv", "--session", str(d), "status"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and "unknown env 'nosuchenv'" in json.loads(proc.stdout)["error"]
