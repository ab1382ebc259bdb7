"""The EnterpriseArena harness with a scripted model: JSON blocks, budget, memory, monthly reset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.harness.react_json import ReactJsonHarness, extract_block
from bizbench.agents.models.base import ModelError, ModelReply
from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import AgentRun, Limits, Trajectory
from bizbench.envs.cfo.env import CfoEnv
from bizbench.runner.agent_episode import run_agent_episode


def block(kind: str, name: str, **params: Any) -> dict[str, Any]:
    return {
        "content": "Reasoning first.\n```json\n" + json.dumps({"type": kind, "name": name, "params": params}) + "\n```"
    }


def memory(operation: str, **fields: Any) -> dict[str, Any]:
    return {"content": "Noting. " + json.dumps({"type": "memory", "operation": operation, **fields})}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('x ```json\n{"type": "tool", "name": "a", "params": {}}\n``` y', {"type": "tool", "name": "a", "params": {}}),
        ('bare {"type": "action", "name": "pass", "params": {"type": "inner"}} end', "pass"),
        ('two {"type": "tool", "name": "a"} then {"type": "action", "name": "b"}', None),
        ('```json\n{"type": "tool", "name": "a"}\n``` and {"type": "action", "name": "b"}', None),
        ("no block here", None),
        ('{"type": broken', None),
        ('{"name": "no type"}', None),
    ],
)
def test_extract_block(text: str, expected: Any) -> None:
    got = extract_block(text)
    if isinstance(expected, str):
        assert got is not None and got["name"] == expected
    else:
        assert got == expected


def run_months(
    script: Any, months: int = 3, seed: int = 4, max_replies: int = 50, preset: str = "paper"
) -> tuple[CfoEnv, AgentRun]:
    env = CfoEnv.from_preset(preset, seed, months=months)
    run = AgentRun(ScriptedModel(script), Trajectory(None))
    ReactJsonHarness(max_replies_per_turn=max_replies).run(env, run)
    return env, run


def test_every_month_starts_afresh_with_the_latest_notes() -> None:
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
        seen.append(list(messages))
        month = json.loads(messages[1]["content"].split("\n", 1)[1])["current_month"]
        if len(messages) == 2:
            return memory("save_note", content=f"month {month} plan", tags=["plan"])
        return block("action", "book_closing")

    env, run = run_months(model, months=3)
    assert env.done and env.result()["book_closings"] == 3
    firsts = [m for m in seen if len(m) == 2]
    assert len(firsts) == 3  # history reset: each month begins with system + observation only
    assert "Current month: 2" in firsts[2][0]["content"]
    notes = json.loads(firsts[2][1]["content"].split("\n", 1)[1])["recent_notes"]
    assert [n["content"] for n in notes] == ["month 1 plan", "month 0 plan"]
    assert [e["kind"] for e in run.trajectory.events].count("reset") == 3


def test_the_months_action_still_runs_after_its_twenty_tool_calls() -> None:
    """Appendix E: 0 to 20 tool calls a month, then exactly one action; the budget spent does not
    take the action away (a reply that would use the budget closes the month with pass)."""
    cash = block("tool", "check_cash_in_bank")
    env, run = run_months([cash] * 20 + [memory("recall_notes"), block("action", "book_closing")], months=1)
    assert env.tool_calls == 20 and [r.action for r in env.world.history] == ["book_closing"]
    assert not [e for e in run.trajectory.events if e["kind"] == "auto_advance"]
    env, run = run_months([cash] * 21, months=1)  # a 21st tool call: the month closes with pass
    assert env.tool_calls == 20 and [r.action for r in env.world.history] == ["pass"]


def test_a_reply_without_a_block_counts_toward_the_budget_and_the_month_closes_with_pass() -> None:
    env, run = run_months([{"content": "I am thinking..."}], months=2)
    assert env.done
    assert [r.action for r in env.world.history] == ["pass", "pass"]
    assert run.meter.malformed == 2 * 20  # one line of feedback each, until the 20-call budget is spent
    auto = [e for e in run.trajectory.events if e["kind"] == "auto_advance"]
    assert len(auto) == 2 and "budget" in auto[0]["reason"]


def test_tools_use_the_budget_and_errors_go_back_to_the_model() -> None:
    replies = [
        block("tool", "check_cash_in_bank"),
        block("tool", "check_market_data", data_type="nonsense"),
        block("action", "fund_raising_request", type="equity", amount=20_000_000),
        block("action", "fund_raising_request", type="debt", amount=5_000_000),  # refused: one pending
        block("action", "pass"),
    ]
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: Any) -> Any:
        seen.append(list(messages))
        return replies[min(len(seen) - 1, len(replies) - 1)]

    env, run = run_months(model, months=2)
    assert env.tool_calls == 1  # only the successful budgeted tool counts in eq 2
    assert "unknown data_type" in seen[2][-1]["content"]
    assert "still pending" in seen[4][-1]["content"] and env.world.history[0].action == "fund_raising_request"
    assert env.world.history[1].action == "pass"


def test_a_reply_with_two_json_blocks_gets_feedback_and_runs_neither() -> None:
    two = {
        "content": "First I check the cash.\n"
        + json.dumps({"type": "tool", "name": "check_cash_in_bank", "params": {}})
        + "\nThen I close the books.\n```json\n"
        + json.dumps({"type": "action", "name": "book_closing", "params": {}})
        + "\n```"
    }
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: Any) -> Any:
        seen.append(list(messages))
        return two if len(seen) == 1 else block("action", "pass")

    env, run = run_months(model, months=1)
    assert "2 JSON blocks" in seen[1][-1]["content"] and "nothing was run" in seen[1][-1]["content"]
    assert env.tool_calls == 0 and [r.action for r in env.world.history] == ["pass"]
    assert run.meter.malformed == 1 and not env.actions[:-1]  # the one call made is the pass


def test_calls_refused_at_run_time_use_the_turns_budget() -> None:
    """25 retrievals of an unknown file in one month: each is refused by the env and uses one
    call of the month's 20, so the 21st closes the month with pass, not the reply cap."""
    bad = block("tool", "access_financial_docs", action="retrieve", filename="no_such_file.json")
    env, run = run_months([bad], months=1)
    assert env.done and [r.action for r in env.world.history] == ["pass"]
    assert run.meter.model_calls == 21
    assert sum(1 for a in env.actions if a["tool"] == "access_financial_docs" and not a["ok"]) == 20
    auto = [e for e in run.trajectory.events if e["kind"] == "auto_advance"]
    assert len(auto) == 1 and "budget" in auto[0]["reason"]


@pytest.mark.parametrize(
    ("preset", "size"),
    [("paper", 100_001), ("hardened", 2_001)],  # one past each preset's note size (the tool's schema)
    ids=["paper", "hardened"],
)
def test_a_refused_memory_call_uses_none_of_the_tool_budget(preset: str, size: int) -> None:
    """Memory is free (Appendix E), refused or not: 25 over-long notes in a month leave the
    whole budget, so 20 cash checks are still answered before the budget closes the month."""
    note = memory("save_note", content="x" * size)
    cash = block("tool", "check_cash_in_bank")
    env, run = run_months([note] * 25 + [cash] * 21, months=1, preset=preset)
    assert not any(a["tool"] == "save_note" for a in env.actions)  # refused for their arguments
    assert env.tool_calls == 20 and [r.action for r in env.world.history] == ["pass"]
    auto = [e for e in run.trajectory.events if e["kind"] == "auto_advance"]
    assert len(auto) == 1 and "budget" in auto[0]["reason"]


def test_every_answer_states_the_budget_the_harness_enforces() -> None:
    """The env counts accepted tool calls only (a refused call changes nothing), the harness also
    counts refused tool calls: each answer ends with the harness's figure, so the model is never
    told the env's larger one."""
    replies = [
        block("tool", "access_financial_docs", action="retrieve", filename="nope.json"),  # refused: counts
        block("tool", "check_cash_in_bank"),  # accepted: counts
        memory("save_note", content="x" * 100_001),  # refused memory: free
        {"content": "no block"},  # names no tool: counts
        memory("recall_notes"),  # accepted memory: free
        block("action", "fund_raising_request", type="equity", amount=-1),  # refused action: free
        block("action", "pass"),
    ]
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: Any) -> Any:
        seen.append(list(messages))
        return replies[len(seen) - 1]

    env, _ = run_months(model, months=1)
    lefts = [int(m[-1]["content"].rsplit("Tool budget left this month: ", 1)[1]) for m in seen[1:]]
    assert lefts == [19, 18, 18, 17, 17, 17]
    assert "budgeted tool call that is refused" in seen[0][0]["content"]  # the rule is in the prompt
    assert env.tool_calls == 1 and [r.action for r in env.world.history] == ["pass"]


def test_memory_only_months_are_closed_after_the_reply_cap() -> None:
    env, run = run_months([memory("recall_notes", query="x")], months=1, max_replies=7)
    assert env.done and run.meter.model_calls == 7 and env.tool_calls == 0
    assert any(e["kind"] == "auto_advance" and "7 replies" in e["reason"] for e in run.trajectory.events)


def test_limits_and_model_errors_end_the_run_cleanly() -> None:
    env = CfoEnv.from_preset("paper", 4)
    run = AgentRun(ScriptedModel([block("action", "pass")]), Trajectory(None), Limits(max_turns=5))
    assert ReactJsonHarness().run(env, run) == "max_turns" and env.world.month == 5

    def broken(messages: Any, tools: Any) -> ModelReply:
        raise ModelError("provider down", attempts=[{"attempt": 1, "error": "500"}])

    env = CfoEnv.from_preset("paper", 4)
    run = AgentRun(ScriptedModel(broken), Trajectory(None))
    assert ReactJsonHarness().run(env, run) == "model_error"
    assert run.trajectory.events[-1]["kind"] == "model_error" and run.trajectory.events[-1]["attempts"]


def test_run_directory_and_replay_of_a_scripted_run(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    lines = [block("tool", "check_cash_in_bank"), block("action", "book_closing")]
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    results = []
    for name in ("a", "b"):
        results.append(
            run_agent_episode(
                "cfo", ScriptedModel.from_file(script), 5, "paper", tmp_path / name, limits=Limits(max_turns=6)
            )
        )
    a, b = (dict(r) for r in results)
    for r in (a, b):
        r.pop("wall_seconds")
        r.pop("provenance")
    assert a == b
    assert a["harness"] == "react-json" and a["ended_by"] == "max_turns" and a["model"] == "scripted:script.jsonl"
    run = tmp_path / "a"
    for f in ("trajectory.jsonl", "system_prompt.txt", "tools.json", "result.json", "config.json", "metrics.jsonl"):
        assert (run / f).exists(), f
    kinds = [json.loads(line)["kind"] for line in (run / "trajectory.jsonl").read_text().splitlines()]
    assert kinds[0] == "reset" and kinds[-1] == "end" and "model_call" in kinds and "tool_call" in kinds
    assert "fund_raising_request" in (run / "system_prompt.txt").read_text()
