"""Odd model output and odd use never crash a run (issue 6; the integration review's reproducers)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.models.base import ModelReply, ToolCall
from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.runner.agent_episode import run_agent_episode


def cfo_run(tmp_path: Path, replies: list[Any], turns: int = 2, **kw: Any) -> dict[str, Any]:
    return run_agent_episode(
        "cfo", ScriptedModel(replies), 3, "paper", tmp_path / "run", limits=Limits(max_turns=turns, **kw)
    )


def events(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "run" / "trajectory.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    "content",
    [
        '{"type": "memory", "operation": "save_note", "name": "strategy", "content": "x"}',  # 'name' collides
        '{"type": "tool", "name": "check_cash_in_bank", "params": {"self": 1}}',
        '{"type": "tool", "a": ' * 5000,  # absurd nesting
        '{"type": "action", "name": "fund_raising_request", "params": {"type": "equity", "amount": '
        + "9" * 5000
        + "}}",
        '{"type": "tool", "name": "check_cash_in_bank", "params": [1, 2]}',
        '{"type": "action", "name": "fund_raising_request", "params": {"type": "debt", "amount": NaN}}',
        '{"type": "tool", "name": "no_such_tool", "params": {}}',
        "",
    ],
)
def test_react_json_survives_odd_blocks(tmp_path: Path, content: str) -> None:
    result = cfo_run(tmp_path, [{"content": content}])
    assert result["ended_by"] == "max_turns" and result["months_survived"] == 2
    assert result["malformed_replies"] >= 1 or result["memory_calls"] >= 1
    rows = events(tmp_path)
    for line in (tmp_path / "run" / "trajectory.jsonl").read_text().splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    assert rows[-1]["kind"] == "end"


def test_unknown_tools_use_the_budget(tmp_path: Path) -> None:
    result = cfo_run(tmp_path, [{"content": '{"type": "tool", "name": "set_interest_rate", "params": {}}'}], turns=1)
    assert result["malformed_replies"] == 20 and result["model_calls"] == 21  # the 21st closes the month: not 50
    feedback = [e for e in events(tmp_path) if e["kind"] == "feedback"]
    assert feedback[0]["message"].startswith("Error: Unknown tool: set_interest_rate")


def test_cfo_model_runs_write_actions_and_tamper(tmp_path: Path) -> None:
    replies = [
        {"content": '{"type": "action", "name": "fund_raising_request", "params": {"type": "equity", "amount": -5}}'}
    ]
    replies.append({"content": '{"type": "action", "name": "pass", "params": {}}'})
    cfo_run(tmp_path, replies)
    run = tmp_path / "run"
    assert (run / "actions.jsonl").read_text().count("\n") >= 2


def test_deeply_nested_tool_arguments_are_recorded_not_fatal(tmp_path: Path) -> None:
    deep: Any = []
    for _ in range(3000):
        deep = [deep]
    reply = ModelReply(content="", tool_calls=[ToolCall("c1", "run_command", {"command": deep})])
    result = run_agent_episode("yc", ScriptedModel([reply]), 2, None, tmp_path / "run", limits=Limits(max_turns=2))
    assert result["ended_by"] == "max_turns" and result["malformed_replies"] == 2


def test_a_run_directory_is_never_reused(tmp_path: Path) -> None:
    cfo_run(tmp_path, [{"content": '{"type": "action", "name": "pass", "params": {}}'}], turns=1)
    with pytest.raises(ValueError, match="already holds a run"):
        cfo_run(tmp_path, [{"content": "x"}], turns=1)


def test_an_unknown_harness_or_one_that_cannot_reach_the_env_is_refused_before_the_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown harness 'chat'"):
        run_agent_episode("yc", ScriptedModel([{"content": "x"}]), 1, None, tmp_path / "a", harness="chat")
    assert not (tmp_path / "a").exists()
    from bizbench.agents.harness import unusable
    from bizbench.core.envs import get_env

    seatless = dataclasses.replace(get_env("cfo"), seat=None)
    assert "has none" in unusable("terminal", seatless) and unusable("react-json", seatless) == ""


def test_a_dollar_budget_stops_a_model_without_a_price(tmp_path: Path) -> None:
    model = ScriptedModel([{"content": '{"type": "action", "name": "pass", "params": {}}'}])
    model.price_known = False  # type: ignore[attr-defined]
    result = (
        cfo_run(tmp_path, [], turns=5, max_dollars=1.0)
        if False
        else run_agent_episode("cfo", model, 3, "paper", tmp_path / "run", limits=Limits(max_dollars=1.0))
    )
    assert (
        result["ended_by"] == "max_dollars_unpriced" and result["model_calls"] == 1 and result["price_known"] is False
    )
