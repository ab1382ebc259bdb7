"""Real run directories for the report tests, built once per session (seconds, not minutes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.episode import open_session, run_baseline

CEO_SEED, CEO_DAYS = 1, 98  # first competitor event on day 62 (tests check it)
HORIZONS = ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")
AD_WEEK_0 = {"content_marketing": {"S1": 300.0}, "search_ads": {"S1": 100.0}}  # {channel: {group: $/day}}
AD_WEEK_2 = {"S1": {"content_marketing": 400.0}}  # {group: {channel: $}} is accepted too


def ceo_agent_run(out: Path) -> dict[str, Any]:
    """A ceo run driven in process the way a user's agent is: ads, targeted development and a
    rationale + forecasts every week; week 9 (day 63) is the first to mention competitors."""
    env = open_session("ceo", CEO_SEED, "default", out, "planner", CEO_DAYS, world_options={"database": False})
    week = 0
    while not env.done:
        if week == 0:
            env.call("set_targeted_ad_spend", targeted_spend=AD_WEEK_0)
            env.call("set_targeted_dev_spend", targeted_spend={"S1": 900.0})
            env.call("set_daily_spend", development=100.0)
        if week == 2:
            env.call("set_targeted_ad_spend", targeted_spend=AD_WEEK_2)
        if week == 4:
            env.call("set_targeted_ad_spend", targeted_spend={})
        cash = env.status()["cash"]
        point = cash * (1.1 if week < 4 else 1.0)
        forecast = {"point": point, "lower": point - 1.0, "upper": point + 1.0}
        text = (
            "If cash drops we cut ads. Hold prices." if week < 9 else "A Competitor launched; if churn rises, respond."
        )
        env.call("next_week", rationale=text, predictions={k: forecast for k in HORIZONS})
        week += 1
    return env.finish(title="planner", agent="planner")


def yc_script(path: Path) -> Path:
    usage = {"input_tokens": 1000, "output_tokens": 100}

    def cmd(*lines: str) -> dict[str, Any]:
        calls = [{"name": "run_command", "arguments": {"command": c}} for c in lines]
        return {"content": "", "tool_calls": calls, "usage": usage}

    replies = [
        cmd("market browse --limit 5", 'scratchpad write --content "rule: inspect before accepting"'),
        cmd("sim resume"),
        cmd('scratchpad append --content "note"', "sim resume"),
        {"content": "thinking", "usage": usage},
    ]
    path.write_text("\n".join(json.dumps(r) for r in replies) + "\n")
    return path


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    out: dict[str, Path] = {}

    def at(name: str) -> Path:
        out[name] = root / name
        return out[name]

    for seed in (1, 2):
        run_baseline("yc", "heuristic", seed, out=at(f"yc-heuristic-{seed}"))
        run_baseline("cfo", "prudent-cfo", seed, out=at(f"cfo-prudent-{seed}"))
    run_baseline("yc", "greedy", 1, out=at("yc-greedy-1"))
    run_baseline("cfo", "greedy-equity", 1, out=at("cfo-greedy-equity-1"))
    run_baseline("ceo", "rule-based", 42, horizon=21, out=at("ceo-rule-based-42"), world_options={"database": False})
    ceo_agent_run(at("ceo-planner-1"))
    model = ScriptedModel.from_file(yc_script(root / "yc-script.jsonl"))
    run_agent_episode("yc", model, 1, None, at("yc-scripted-1"), None, Limits(max_turns=12))
    return out
