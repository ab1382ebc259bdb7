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
def agents_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "my_agents.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_agents"


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
    assert json.loads((tmp_path / "run" / "result.json").read_text())["ended_by"] == ended_by
