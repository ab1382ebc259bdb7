"""replay, resume after SIGKILL, sweep, report, view and serve on the lemonade plug-in.

Each command finds the env through the registry only (``$BIZBENCH_ENVS``, set by
tests/conftest.py), in this process and in the processes it starts. Tests of commands that are
still being made generic in issue 13 are marked xfail with the owner; they must pass, unchanged,
once the command looks envs up by their spec.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lemonade_helpers import CORE, ENV, SEED, bizbench, jsonl, outcome

from bizbench.core.unixsock import UnixHTTPConnection
from bizbench.runner.check import find_hidden
from bizbench.runner.episode import run_baseline


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished lemonade run with refused calls in its log (the common input of these tests)."""
    from bizbench.runner.episode import open_session

    out = tmp_path_factory.mktemp("lemonade") / "run"
    session = open_session(ENV, SEED, None, out, agent="learner", horizon=8)
    policy = __import__("lemonade.baselines", fromlist=["TABLE"]).TABLE["learner"].make(SEED)
    while not session.done:
        session.call("buy_lemons", units=-3)  # refused: replay must skip it
        policy.act(session)
    session.finish(agent="learner")
    return out


# ---------------------------------------------------------------------------- replay
def test_a_finished_run_replays(finished: Path) -> None:
    from bizbench.runner.replay import replay_run

    report = replay_run(finished)
    assert report.ok, report.summary()
    assert report.actions_skipped == 8 and report.actions_sent == len(jsonl(finished / "actions.jsonl")) - 8
    assert {"final_cash", "cups_sold", "bankrupt"} <= set(report.compared)
    proc = bizbench("replay", "--json", str(finished))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ok"] is True


def test_a_doctored_result_does_not_replay(finished: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    result = json.loads((copy / "result.json").read_text())
    (copy / "result.json").write_text(json.dumps({**result, "final_cash": result["final_cash"] + 100}))
    proc = bizbench("replay", "--json", str(copy))
    assert proc.returncode == 1
    assert "final_cash" in json.loads(proc.stdout)["mismatches"]


# ---------------------------------------------------------------------------- resume
def _killed_run(out: Path, calls: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``bizbench run lemonade ARGS`` SIGKILLed once ``calls`` actions are on disk."""
    argv = [sys.executable, "-m", "bizbench.runner.check", "kill-after", str(calls), "--"]
    argv += ["run", ENV, *args, "--out", str(out)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("when", ["first", "half", "last"])
def test_a_killed_run_resumes_to_the_uninterrupted_result(tmp_path: Path, when: str) -> None:
    args = ("--agent", "learner", "--seed", str(SEED), "--horizon", "9")
    whole = bizbench("run", ENV, *args, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    total = len(jsonl(tmp_path / "whole" / "actions.jsonl"))
    calls = {"first": 1, "half": total // 2, "last": total}[when]
    killed = _killed_run(tmp_path / "killed", calls, *args)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not (tmp_path / "killed" / "result.json").exists()
    assert len(jsonl(tmp_path / "killed" / "actions.jsonl")) == calls  # flushed up to the kill
    resumed = bizbench("resume", str(tmp_path / "killed"))
    assert resumed.returncode == 0, resumed.stderr
    assert outcome(tmp_path / "killed") == outcome(tmp_path / "whole")

    for log in ("actions.jsonl", "metrics.jsonl"):
        assert jsonl(tmp_path / "killed" / log) == jsonl(tmp_path / "whole" / log)
    assert (tmp_path / "killed" / "ledger.csv").read_text() == (tmp_path / "whole" / "ledger.csv").read_text()
    assert jsonl(tmp_path / "killed" / "resume.jsonl")[-1]["actions_match"] is True
    again = bizbench("resume", str(tmp_path / "killed"))
    assert again.returncode == 0 and "already finished" in again.stdout


# ---------------------------------------------------------------------------- sweep and report
SWEEP_FILE = """
out = "{out}"

[[runs]]
env = "lemonade"
presets = ["default", "short"]
agents = ["steady", "learner"]
seeds = "1-2"
"""


def test_a_sweep_runs_every_combination_in_worker_processes(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    (tmp_path / "sweep.toml").write_text(SWEEP_FILE.format(out=out))
    proc = bizbench("sweep", str(tmp_path / "sweep.toml"), "--workers", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    with (out / "summary.csv").open() as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    assert len(rows) == 8 and {r["status"] for r in rows.values()} == {"done"}
    run = out / "lemonade-short-learner-seed2"
    assert outcome(run)["horizon"] == 7
    alone = run_baseline(ENV, "learner", seed=2, preset="short", out=tmp_path / "alone")
    assert outcome(run)["final_cash"] == alone["final_cash"]
    again = bizbench("sweep", str(tmp_path / "sweep.toml"), cwd=tmp_path)
    assert again.returncode == 0 and "8 skipped" in again.stdout


def test_a_sweep_grid_of_baseline_options_and_a_horizon(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    text = f'out = "{out}"\n[[runs]]\nenv = "lemonade"\nagents = ["steady"]\nseeds = 1\nhorizon = 5\n'
    text += "[runs.grid]\nprice = [0.8, 1.6]\n"
    (tmp_path / "sweep.toml").write_text(text)
    proc = bizbench("sweep", str(tmp_path / "sweep.toml"), "--backend", "inline", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    results = [outcome(p) for p in sorted(out.iterdir()) if (p / "result.json").exists()]
    assert len(results) == 2 and {r["horizon"] for r in results} == {5}
    assert {r["agent_options"]["price"] for r in results} == {0.8, 1.6}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for agent in ("idle", "steady", "learner"):
        for seed in (1, 2):
            run_baseline(ENV, agent, seed=seed, horizon=10, out=root / f"{agent}-{seed}")
    return root


def test_the_report_has_the_common_core_for_an_env_without_report_measures(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    proc = bizbench("report", str(runs), "--out", str(out), "--no-anchors", "--no-plots")
    assert proc.returncode == 0, proc.stderr
    text = (out / "report.md").read_text()
    assert "lemonade" in text and "unknown env" not in text + proc.stderr
    for agent in ("idle", "steady", "learner"):
        assert agent in text
    assert (out / "report.html").is_file()


def test_the_viewer_shows_a_lemonade_run(runs: Path, finished: Path, tmp_path: Path) -> None:
    proc = bizbench("view", str(finished), str(runs / "steady-1"), "-o", str(tmp_path / "view"))
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "view" / "index.html").read_text()
    assert "lemonade" in page and "learner" in page and "steady" in page


# ---------------------------------------------------------------------------- serve
def _post(sock: Path, tool: str, **args: object) -> dict:
    conn = UnixHTTPConnection(sock, timeout=30)
    try:
        conn.request("POST", "/call", json.dumps({"tool": tool, "args": args}), {"Content-Type": "application/json"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def test_serve_plays_a_lemonade_season_from_the_workspace(tmp_path: Path) -> None:
    ws, run = tmp_path / "ws", tmp_path / "run"
    argv = [sys.executable, "-c", "from bizbench.entry import main; main()", "serve", ENV, "--seed", str(SEED)]
    argv += ["--workspace", str(ws), "--run-dir", str(run), "--horizon", "4"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not list(ws.rglob("connection.json")):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "serve did not start within 60 s"
            time.sleep(0.1)
        time.sleep(0.2)
        info_file = next(ws.rglob("connection.json"))
        info = json.loads(info_file.read_text())
        sock = ws / info["socket"] if info.get("socket_relative_to") else Path(info["socket"])
        answers = [_post(sock, "get_status")]
        answers.append(_post(sock, "buy_lemons", units="many"))
        assert answers[-1]["success"] is False and "units" in answers[-1]["error"]
        for _ in range(4):
            answers.append(_post(sock, "set_price", price=1.2))
            answers.append(_post(sock, "buy_lemons", units=25))
            answers.append(_post(sock, "end_day"))
        assert answers[-1]["success"] is True and answers[-1]["data"]["next"]["done"] is True
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    result = outcome(run)
    assert set(CORE) <= set(result) and result["agent"] == "served" and result["completed"]
    assert result["horizon"] == 4 and result["tool_calls"] == 10  # every call but end_day, the refused one too
    assert len(jsonl(run / "actions.jsonl")) == 14
    texts = [(f"workspace {p}", p.read_bytes().decode("latin-1")) for p in ws.rglob("*") if p.is_file()]
    texts += [("an answer", json.dumps(a)) for a in answers]
    from bizbench.core.envs import get_env

    env = get_env(ENV).from_preset(None, seed=SEED)
    assert find_hidden(env.hidden_values(), texts) == []
    assert str(SEED) not in str(ws)
