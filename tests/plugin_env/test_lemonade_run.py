"""``run``: the lemonade stand through the runner and the Session, as every env (docs/run-format.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from lemonade_helpers import CORE, ENV, SEED, VOLATILE, bizbench, jsonl, outcome

from bizbench.core.env import EnvSpec
from bizbench.core.runlog import ResultCore, RunConfig
from bizbench.core.session import Session
from bizbench.runner.episode import open_session, run_baseline

FILES = {"config.json", "actions.jsonl", "metrics.jsonl", "tamper.jsonl", "ledger.csv", "cash.png", "result.json"}


def test_a_baseline_run_writes_the_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_baseline(ENV, "learner", seed=SEED, horizon=10, out=out)
    assert FILES <= {p.name for p in out.iterdir()}
    ResultCore.model_validate(result)
    assert {k: result[k] for k in ("env", "preset", "seed", "agent", "unit", "horizon")} == {
        "env": ENV, "preset": "default", "seed": SEED, "agent": "learner", "unit": "day", "horizon": 10,
    }  # fmt: skip
    assert set(CORE) <= set(result) and result["completed"] and result["survived"] == 10
    assert result["survived_fraction"] == 1.0 and result["score"] == result["final_cash"]
    assert result["ended_by"] == "completed" and result["cost_usd"] is None and result["tokens"] is None
    assert outcome(out) == {k: v for k, v in json.loads(json.dumps(result)).items() if k not in VOLATILE}
    config = RunConfig.model_validate_json((out / "config.json").read_text())
    assert (config.env, config.horizon, config.unit, config.run_format) == (ENV, 10, "day", 2)
    assert config.config["horizon_days"] == 10 and config.seed_secret_id is None
    actions = jsonl(out / "actions.jsonl")
    assert [a["tool"] for a in actions].count("end_day") == 10 and all(a["ok"] for a in actions)
    assert result["tool_calls"] == len(actions) - 10
    assert [m["day"] for m in jsonl(out / "metrics.jsonl")] == list(range(10))
    with (out / "ledger.csv").open() as f:
        rows = list(csv.DictReader(f))
    cents = sum(round(float(r["amount"]) * 100) for r in rows)
    assert 2000 + cents == round(result["final_cash"] * 100)  # cash = start + the ledger, to the cent
    assert {r["category"] for r in rows} <= {"lemons", "sales", "rent"}
    assert (out / "tamper.jsonl").read_text() == ""


def test_the_record_is_written_as_the_run_goes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    seen: list[tuple[int, int, int]] = []

    def on_turn(elapsed: int, horizon: int) -> None:
        seen.append((elapsed, len(jsonl(out / "actions.jsonl")), len(jsonl(out / "metrics.jsonl"))))
        assert not (out / "result.json").exists()

    run_baseline(ENV, "steady", seed=SEED, horizon=5, out=out, on_turn=on_turn)
    assert [s[0] for s in seen] == [1, 2, 3, 4, 5]
    assert [s[2] for s in seen] == [1, 2, 3, 4, 5]  # a metrics row per day, flushed at once
    assert all(a < b for a, b in zip([s[1] for s in seen], [s[1] for s in seen][1:], strict=False))


def test_a_bankrupt_run_and_a_preset(tmp_path: Path) -> None:
    idle = run_baseline(ENV, "idle", seed=1, out=tmp_path / "idle")
    assert idle["bankrupt"] and not idle["completed"] and idle["ended_by"] == "bankrupt"
    assert idle["survived"] == 20 and idle["survived_fraction"] == round(20 / 30, 6) and idle["final_cash"] < 0
    short = run_baseline(ENV, None, seed=1, preset="short", out=tmp_path / "short")
    assert short["agent"] == "steady" and short["horizon"] == 7 and short["preset"] == "short"


def test_any_driver_records_through_a_session(tmp_path: Path, spec: EnvSpec) -> None:
    """A hand-driven session: refused calls are recorded with their parsed arguments, as they happen."""
    session = open_session(ENV, SEED, None, tmp_path / "run", agent="by-hand", horizon=2)
    assert isinstance(session, Session)
    bad = session.call("set_price", price=float("nan"))
    assert not bad.ok and "price" in (bad.error or "")
    logged = jsonl(tmp_path / "run" / "actions.jsonl")[-1]
    assert logged["tool"] == "set_price" and logged["ok"] is False
    assert logged["args"] is None and "nan" in logged["args_preview"]  # not JSON: a preview and a digest
    assert jsonl(tmp_path / "run" / "tamper.jsonl")[-1]["kind"] == "non_finite"
    assert session.call_tool("sell_stand", {"to": "me"}).ok is False
    assert jsonl(tmp_path / "run" / "actions.jsonl")[-1]["args"] == {"to": "me"}  # the parsed object
    assert session.call("set_price", price=0.9).ok and session.call("buy_lemons", units=20).ok
    while not session.done:
        session.advance()
    result = session.finish(agent="by-hand")
    assert result["tool_calls"] == 4 and result["tamper_events"] == 2 and result["completed"]
    assert [a["tool"] for a in jsonl(tmp_path / "run" / "actions.jsonl")] == [
        "set_price", "sell_stand", "set_price", "buy_lemons", "end_day", "end_day",
    ]  # fmt: skip


def test_a_run_directory_is_never_reused(tmp_path: Path) -> None:
    run_baseline(ENV, "idle", seed=1, horizon=2, out=tmp_path / "run")
    with pytest.raises(ValueError, match="already holds a run"):
        run_baseline(ENV, "idle", seed=1, horizon=2, out=tmp_path / "run")


def test_bizbench_run_defaults_to_the_env_baseline(tmp_path: Path) -> None:
    proc = bizbench("run", ENV, "--seed", "3", "--horizon", "6", "--out", str(tmp_path / "run"))
    assert proc.returncode == 0, proc.stderr
    result = outcome(tmp_path / "run")
    assert result["agent"] == "steady" and result["horizon"] == 6 and result["env"] == ENV
    assert result == outcome_of_api(tmp_path, "steady", 3, 6)


def outcome_of_api(tmp_path: Path, agent: str, seed: int, horizon: int) -> dict:
    run_baseline(ENV, agent, seed=seed, horizon=horizon, out=tmp_path / "api")
    return outcome(tmp_path / "api")


def test_bizbench_run_takes_a_baseline_and_a_preset(tmp_path: Path) -> None:
    args = ["--agent", "learner", "--seed", "3", "--preset", "short"]
    proc = bizbench("run", ENV, *args, "--out", str(tmp_path / "run"))
    assert proc.returncode == 0, proc.stderr
    assert outcome(tmp_path / "run")["agent"] == "learner" and outcome(tmp_path / "run")["horizon"] == 7


@pytest.mark.parametrize("option", [["--price-book", "cheap"], ["--no-db"]])
def test_an_option_of_another_env_is_an_error_that_names_it(tmp_path: Path, option: list[str]) -> None:
    proc = bizbench("run", ENV, "--seed", "3", *option, "--out", str(tmp_path / "run"))
    assert proc.returncode == 2 and "ceo" in proc.stderr, proc.stderr
    assert not (tmp_path / "run" / "result.json").exists()


def test_info_commands_list_the_plugin() -> None:
    envs = bizbench("envs")
    assert envs.returncode == 0 and "lemonade" in envs.stdout
    presets = bizbench("presets", ENV)
    assert presets.returncode == 0 and "default" in presets.stdout and "short" in presets.stdout
    tools = bizbench("tools", ENV, "--format", "json")
    assert tools.returncode == 0, tools.stderr
    names = [t["name"] for t in json.loads(tools.stdout)]
    assert names == ["set_price", "buy_lemons", "end_day", "get_status"]
