"""Failed runs in the report: a run that ended before its horizon, or went bankrupt, is worth
0 in the headline score and never ranks above another (docs/reports.md "Runs that ended early")."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bizbench.cli_report import report
from bizbench.core.runlog import ended_early, headline_score
from bizbench.core.runs import load_run
from bizbench.report import protocol, viewer
from bizbench.report.build import build_report
from bizbench.runner.agent_episode import run_user_agent

app = typer.Typer()
app.command("report")(report)


@app.command("noop")
def _unused() -> None:  # a second command keeps typer from flattening the app into one command
    pass


AGENTS = '''
class QuitCeo:
    """Plays one day and returns."""

    def run(self, env):
        env.advance()


class BurnCeo:
    """Spends far beyond its cash on day one: bankrupt."""

    def run(self, env):
        env.call("set_daily_spend", operations=50_000_000.0)
        while not env.done:
            env.advance()


class CrashCfo:
    """Raises $20M of equity, closes the books, and raises an error in month 10."""

    def run(self, env):
        env.call("fund_raising_request", type="equity", amount=20_000_000)
        while env.observation()["current_month"] < 10:
            env.call("book_closing")
        raise RuntimeError("my bug")
'''


@pytest.fixture
def agents(user_agents) -> str:
    return user_agents("failing_agents", AGENTS)


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_a_run_that_ended_early_is_counted_as_a_failed_run_never_its_cash(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    early = load_run(runs["yc-scripted-1"])  # a --max-turns 12 run: its year is not over
    assert early.get("completed") is False and early.get("final_funds") > 0
    assert early.ended_early == early.get("incomplete_reason") and early.ended_early.startswith("max_turns: ")
    assert protocol.score(early) == protocol.FAILED_SCORE == 0.0
    assert load_run(runs["yc-heuristic-1"]).ended_early is None

    out = tmp_path / "out"
    paths = [str(runs[name]) for name in ("yc-scripted-1", "yc-heuristic-1", "yc-heuristic-2")]
    res = CliRunner().invoke(app, ["report", *paths, "-o", str(out), "--no-anchors"])
    assert res.exit_code == 0, res.output
    per_run = {r["run"]: r for r in _read_csv(out / "yc_runs.csv")}
    scripted = per_run[str(runs["yc-scripted-1"])]
    assert scripted["Ended early"] == "1" and float(scripted["Final funds ($)"]) == 0.0
    assert scripted["ended by"] == "max_turns" and per_run[str(runs["yc-heuristic-1"])]["Ended early"] == "0"
    table = {r["agent"]: r for r in _read_csv(out / "yc_table3.csv")}
    assert table["heuristic"]["Ended early"] == "0"
    assert [r["Ended early"] for agent, r in table.items() if agent != "heuristic"] == ["1"]
    assert "Ended early" in res.stdout and "Ended early = runs that stopped before their horizon" in res.stdout
    notes = viewer.load_run(runs["yc-scripted-1"])["notes"]
    assert any(n.startswith("ended early (max_turns: ") and "failed run" in n for n in notes)
    assert not any("ended early" in n for n in viewer.load_run(runs["yc-heuristic-1"])["notes"])


def test_a_ceo_run_that_quit_is_measured_as_failed_and_never_ranks_above_a_bankrupt_one(
    agents: str, tmp_path: Path
) -> None:
    quit_ = run_user_agent("ceo", f"{agents}:QuitCeo", 3, None, tmp_path / "quit", world_options={"database": False})
    burn = run_user_agent("ceo", f"{agents}:BurnCeo", 3, None, tmp_path / "burn", world_options={"database": False})
    assert quit_["ended_by"] == "incomplete" and quit_["final_cash"] > 0
    assert burn["bankrupt"] and burn["final_cash"] < 0 and burn["incomplete_reason"] is None

    built = build_report([tmp_path / "quit", tmp_path / "burn"], tmp_path / "out", None, anchors=False)
    assert not [n for n in built.notes if "malformed" in n]  # a run that never bought ads is still measured
    by_agent = {m.run.agent.rsplit(":", 1)[-1]: m.metrics for m in built.measured}
    assert by_agent["QuitCeo"]["ended_early"] == 1.0 and by_agent["QuitCeo"]["final_cash"] == 0.0
    assert by_agent["BurnCeo"]["ended_early"] == 0.0 and by_agent["BurnCeo"]["bankrupt"] == 1.0
    assert by_agent["QuitCeo"]["score"] == by_agent["BurnCeo"]["score"] == protocol.FAILED_SCORE
    notes = viewer.load_run(tmp_path / "burn")["notes"]
    assert any(n.startswith("bankrupt: bizbench report counts it as a failed run") for n in notes)


def test_a_run_that_ended_early_is_never_a_models_best_run_in_the_ceo_plots(tmp_path: Path) -> None:
    from bizbench.core.runs import Run
    from bizbench.envs.ceo.report import _best_run

    crashed = Run(tmp_path / "a", {"env": "ceo"}, {"final_cash": 4.9e6, "completed": False, "ended_by": "agent_error"})
    full = Run(tmp_path / "b", {"env": "ceo"}, {"final_cash": 1.2e6, "completed": True, "ended_by": "completed"})
    assert _best_run([crashed, full]) is full


def test_the_best_run_is_the_richest_finished_one_else_the_longest_lived(tmp_path: Path) -> None:
    from bizbench.core.runs import Run
    from bizbench.envs.ceo.report import _best_run

    def run(name: str, **result: object) -> Run:
        return Run(tmp_path / name, {"env": "ceo"}, result)

    no_cash = run("a", completed=True)  # no final cash: counts as 0
    poor = run("b", completed=True, final_cash=0.5)
    rich = run("c", completed=True, final_cash=2e6)
    assert _best_run([no_cash, poor]) is poor and _best_run([poor, rich, no_cash]) is rich
    # every run failed: the longest-lived; a run without its length counts 0 days
    unknown = run("d", bankrupt=True)
    one_day = run("e", bankrupt=True, days_survived=1)
    long = run("f", bankrupt=True, days_survived=40, final_cash=0.0)
    assert _best_run([unknown, one_day]) is one_day and _best_run([one_day, long, unknown]) is long


@pytest.mark.parametrize(
    ("result", "headline"),
    [
        ({"score": -3e6, "completed": True, "bankrupt": False}, 0.0),  # a cfo eq 2 below 0: never under a failure
        ({"score": 2e6, "completed": True, "bankrupt": False}, 2e6),
        ({"score": -4e6, "completed": False, "bankrupt": True}, 0.0),
        ({"score": 5e6, "completed": False, "bankrupt": True}, 0.0),  # bankrupt is not "ended early": still 0
        ({"score": 9e6, "completed": False, "bankrupt": False, "ended_by": "max_turns"}, 0.0),
    ],
)
def test_the_headline_score_of_a_finished_run_is_never_below_a_failed_one(result: dict, headline: float) -> None:
    assert headline_score(result) == headline


def test_a_cfo_agent_that_crashed_at_month_10_exits_1_and_every_value_column_shows_the_failure(
    agents: str, tmp_path: Path
) -> None:
    from bizbench.cli import app as cli

    out = tmp_path / "crash"
    res = CliRunner().invoke(cli, ["run", "cfo", "--agent", f"{agents}:CrashCfo", "--seed", "17", "--out", str(out)])
    assert res.exit_code == 1 and "incomplete run (agent_error: the run ended after 10 of 132 months" in res.output
    result = json.loads((out / "result.json").read_text())
    assert result["completed"] is False and result["score"] > 0 and result["final_cash"] > 0  # the world's figures
    built = build_report([out], tmp_path / "report", None, anchors=False)
    metrics = built.measured[0].metrics
    assert metrics["score"] == metrics["score_net_of_debt"] == metrics["final_cash"] == 0.0
    assert metrics["survival_pct"] == 0.0 and metrics["ended_early"] == 1.0


@pytest.mark.parametrize(
    ("result", "why"),
    [
        ({"ended_by": "episode_end", "bankrupt": False}, None),  # a format-1 served seat that reached its end
        ({"ended_by": "max_turns", "bankrupt": False, "done": True}, None),  # format 1, the world was done
        ({"ended_by": "max_turns", "bankrupt": False}, "ended by max_turns"),
        ({"ended_by": "agent_error", "bankrupt": True}, None),  # bankrupt: the world's own end
        ({"ended_by": "model_error", "completed": False, "incomplete_reason": "model_error: ..."}, "model_error: ..."),
    ],
)
def test_format_1_and_format_2_results_say_whether_the_run_ended_early(result: dict, why: str | None) -> None:
    assert ended_early(result) == why


@pytest.mark.parametrize(
    ("result", "why"),
    [
        ({"bankrupt": False}, None),  # format 1 with neither done nor ended_by: it ended as "completed"
        ({"ended_by": "bankrupt"}, None),  # format 1: bankruptcy is the world's own end
        ({"ended_by": "episode_end", "done": False}, "ended by episode_end"),  # the world's done decides
        ({"ended_by": "episode_end", "done": "yes"}, None),  # a done that is not a bool is not trusted
        ({"completed": True, "ended_by": "max_turns"}, None),  # format 2: completed decides
        ({"completed": False}, "ended by unknown"),
        ({"completed": False, "ended_by": "max_turns", "incomplete_reason": ""}, "ended by max_turns"),
    ],
)
def test_a_run_ended_early_unless_its_world_reached_its_end_and_the_reason_falls_back_to_how_it_ended(
    result: dict, why: str | None
) -> None:
    assert ended_early(result) == why


def test_the_headline_score_given_replaces_the_results_and_a_missing_one_stays_missing() -> None:
    assert headline_score({"score": 1.0, "completed": True}, 5.0) == 5.0
    assert headline_score({"score": 1.0, "completed": False}, 5.0) == 0.0  # a failed run scores 0 whatever is given
    assert headline_score({"completed": True}) is None
    assert headline_score({"score": 0.5, "completed": True}) == 0.5  # above 0, kept as it is
