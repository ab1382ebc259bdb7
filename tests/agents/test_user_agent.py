"""`bizbench run ENV --agent module:Class`: a user's agent class through the same tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bizbench.cli import app
from bizbench.runner.agent_episode import load_agent_class, run_user_agent

AGENT = '''
class ClosingCfo:
    """Closes the books every month, raises $20M equity in month 0."""

    def run(self, env):
        while not env.done:
            if env.observation()["current_month"] == 0:
                env.call("fund_raising_request", type="equity", amount=20_000_000)
            else:
                env.call("book_closing")


class NotAnAgent:
    pass


class Quitter:
    def run(self, env):
        env.call("pass")


class Crasher:
    def run(self, env):
        env.call("pass")
        raise RuntimeError("my bug")
'''


@pytest.fixture
def agents_module(user_agents) -> str:
    return user_agents("my_agents", AGENT)


def test_a_user_agent_runs_through_the_tools(agents_module: str, tmp_path: Path) -> None:
    result = run_user_agent("cfo", f"{agents_module}:ClosingCfo", 3, None, tmp_path / "run")
    assert result["agent"] == "my_agents:ClosingCfo" and result["months_survived"] > 0
    months = result["months_survived"] + result["bankrupt"]  # the month it failed in was played too
    assert result["fundraising_requests"] == 1 and result["book_closings"] == months - 1
    for f in ("result.json", "actions.jsonl", "metrics.jsonl", "statements.jsonl", "ledger.csv", "cash.png"):
        assert (tmp_path / "run" / f).exists(), f


@pytest.mark.parametrize(
    ("path", "message"),
    [("nocolon", "expected module:Class"), ("no_such_mod:X", "cannot import"), ("my_agents:NotAnAgent", "run(env)")],
)
def test_bad_agent_paths_are_clear_errors(agents_module: str, path: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_agent_class(path)


def test_the_cli_runs_a_user_agent(agents_module: str, tmp_path: Path) -> None:
    out = tmp_path / "cli-run"
    r = CliRunner().invoke(app, ["run", "cfo", "--agent", "my_agents:ClosingCfo", "--seed", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "result.json").read_text())["agent"] == "my_agents:ClosingCfo"
    bad = CliRunner().invoke(app, ["run", "cfo", "--agent", "my_agents:NotAnAgent", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2


@pytest.mark.parametrize(("cls", "ended_by"), [("Quitter", "incomplete"), ("Crasher", "agent_error")])
def test_early_returns_and_crashes_are_named(agents_module: str, tmp_path: Path, cls: str, ended_by: str) -> None:
    result = run_user_agent("cfo", f"{agents_module}:{cls}", 3, None, tmp_path / "run")
    assert result["ended_by"] == ended_by and result["months_survived"] == 1
    written = json.loads((tmp_path / "run" / "result.json").read_text())
    assert written["ended_by"] == ended_by and written["completed"] is False
    why = f"{ended_by}: the run ended after 1 of {written['horizon']} months, before its horizon"
    assert written["incomplete_reason"] == why


def test_a_finished_run_has_no_incomplete_reason(agents_module: str, tmp_path: Path) -> None:
    result = run_user_agent("cfo", f"{agents_module}:ClosingCfo", 3, None, tmp_path / "run", horizon=6)
    assert result["completed"] is True and result["incomplete_reason"] is None


@pytest.mark.parametrize(("cls", "exit_code"), [("Crasher", 1), ("Quitter", 0)])
def test_the_cli_exits_non_zero_when_the_agent_crashed_and_says_the_run_is_incomplete(
    agents_module: str, tmp_path: Path, cls: str, exit_code: int
) -> None:
    out = tmp_path / "cli-run"
    r = CliRunner().invoke(app, ["run", "cfo", "--agent", f"my_agents:{cls}", "--seed", "2", "--out", str(out)])
    assert r.exit_code == exit_code, r.output
    assert "incomplete run" in r.output and "counts it as a failed run" in r.output
    assert json.loads((out / "result.json").read_text())["completed"] is False  # the run is still written


def test_resuming_a_run_of_an_agent_class_imports_its_code_only_when_trusted(
    agents_module: str, user_agents, tmp_path: Path
) -> None:
    """Issue 16: a run directory from anyone names the module resume imports; it runs only with
    --trust-agent-code, and a refusal moves no file."""
    marker = tmp_path / "imported"
    user_agents("planted", f"open({str(marker)!r}, 'w').close()\nfrom my_agents import ClosingCfo\n")
    run = tmp_path / "killed"
    run_user_agent("cfo", "my_agents:ClosingCfo", 4, None, run, 3)
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "agent": "planted:ClosingCfo"}))
    (run / "result.json").unlink()
    refused = CliRunner().invoke(app, ["resume", str(run)])
    assert refused.exit_code == 2
    assert "planted:ClosingCfo" in refused.output and "--trust-agent-code" in refused.output
    assert not marker.exists() and not (run / "attempts").exists()
    trusted = CliRunner().invoke(app, ["resume", str(run), "--trust-agent-code"])
    assert trusted.exit_code == 0, trusted.output
    assert marker.exists() and json.loads((run / "result.json").read_text())["completed"]
