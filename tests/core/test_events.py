"""Typed trajectory events (bizbench.core.events): every kind round-trips, the writer refuses
what is not an event, the reader counts what it skips, and every event each harness writes
today validates (run with the scripted model into a run directory, read back with read_events)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.harness.react_json import ReactJsonHarness
from bizbench.agents.models.base import ModelError, ModelReply, ToolCall
from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import AgentRun, Limits, Trajectory
from bizbench.core import events as ev
from bizbench.core.events import KINDS, events_markdown, parse_event, read_events
from bizbench.runner.agent_episode import run_agent_episode

ROOT = Path(__file__).resolve().parents[2]
TOKENS = {"input_tokens": 10, "output_tokens": 2, "cached_tokens": 0, "reasoning_tokens": 0}
CLOCKS = ({"turn": 3, "time": "2025-01-06T09:00:00"}, {"turn": 3, "time": 14}, {"turn": 4}, {"day": 7, "turn": 2})

#: Events as each of today's writers shapes them (the harness's variants of one kind side by side).
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "model_call": [
        {
            "request": {"messages": 2, "chars": 812},
            "content": "Looking.",
            "reasoning": None,
            "tool_calls": [{"id": "c1", "name": "run_command", "arguments": {"command": "company status"}}],
            "tokens": TOKENS,
            "cost_usd": 0.0012,
            "model": "gpt-x",
            "finish_reason": "tool_calls",
            "latency_s": 1.25,
            "attempts": [{"attempt": 1, "error": "500", "status": 500, "wait_s": 0.0}],
            **clock,
        }
        for clock in CLOCKS
    ]
    + [
        {
            "request": {"messages": 3, "chars": 9},
            "content": "",
            "reasoning": "thinking",
            "tool_calls": [{"id": "own", "name": "u", "arguments": "{raw"}],
            "tokens": TOKENS,
            "cost_usd": 0.0,
            "model": "",
            "finish_reason": None,
            "latency_s": 0.0,
            "attempts": [],
        }
    ],
    "model_error": [{"error": "provider down", "attempts": [{"attempt": 1, "error": "500"}], **c} for c in CLOCKS],
    "tool_call": [
        {
            "name": "task_accept",
            "arguments": {"task_id": "Task-1"},
            "ok": False,
            "result": {"error": "no"},
            "turn": 1,
            "command": "task accept --task-id Task-1",
        },
        *(
            {"name": "save_note", "arguments": {"content": "x"}, "ok": True, "result": {"id": 1}, "type": "memory", **c}
            for c in ({"turn": 0}, {"month": 0})  # react-json; before it drove every env, its clock was the month
        ),
        {
            "name": "bash",
            "arguments": {"command": "ls"},
            "ok": True,
            "result": "docs\n",
            "day": 0,
            "turn": 1,
            "seconds": 0.02,
        },
    ],
    "feedback": [
        {"message": "No command ran", "turn": 1},
        {"message": "Unknown tool 'bash'", "turn": 2, "tool": "bash", "arguments": "{'command': 'ls'}"},
        {"message": "No valid JSON block found.", "turn": 0},
        {"message": "Unknown tool: open_browser", "day": 0, "turn": 1, "tool": "open_browser"},
    ],
    "reset": [
        {"turn": 0, "elapsed": 0, "observation": {"current_month": 0, "tool_budget_left": 20}},
        {"month": 0, "observation": {"current_month": 0, "tool_budget_left": 20}},  # react-json, older runs
        {
            "day": 7,
            "turn": 2,
            "memory": "# notes",
            "memory_chars": 7,
            "memory_cut": False,
            "memory_problem": None,
            "dashboard": "Cash: $1",
            "note": None,
        },
    ],
    "turn": [
        {"turn": 1, "time": "2025-01-01T09:00:00", "observation": {"time": "2025-01-01T09:00:00"}},
        {"turn": 2, "time": 7, "observation": {"day": 7}},
    ],
    "auto_advance": [
        {"turn": 5, "idle_turns": 5, "time_before": "2025-01-01T09:00:00", "time": "2025-01-08T09:00:00", "ok": True},
        {"turn": 5, "idle_turns": 5, "time_before": 28, "time": 35, "ok": True},
        {"turn": 3, "reason": "the tool budget is spent"},
        {
            "turn": 5,
            "idle_turns": 5,
            "time_before": "2025-01-01T09:00:00",
            "time": "2025-01-08T09:00:00",
            "ok": True,
            "result": {"time": "2025-01-08T09:00:00"},
        },  # cli-chat, older runs
        {"day": 0, "turn": 1, "calls": 5, "ok": False, "error": "refused"},
    ],
    "auto_pass": [{"month": 3, "reason": "the tool budget is spent"}],  # react-json, older runs
    "end": [
        {
            "ended_by": "max_turns",
            "turns": 3,
            "model_calls": 3,
            "env_calls": 2,
            "malformed_replies": 1,
            "tokens": TOKENS,
            "cost_usd": 0.0,
            "model_reported": ["scripted"],
        },
        {
            "ended_by": "completed",
            "turns": 1,
            "model_calls": 1,
            "env_calls": 0,
            "malformed_replies": 0,
            "tokens": TOKENS,
            "cost_usd": 0.0,
            "model_reported": [],
            "price_known": False,
            "unpriced_models": ["x"],
            "sampling_dropped": {"temperature": "unsupported"},
            "replay_mismatches": [{"call": 1}],
        },
    ],
    "harness_error": [{"error": "RuntimeError: boom", "traceback": "Traceback ..."}],
    "workspace": [
        {"day": 0, "commit": "abc123", "workspace": "/tmp/ws", "run_dir": "/tmp/run"},
        {"day": 14, "commit": None, "ended_by": "max_turns"},
    ],
    "advance": [
        {
            "from_day": 0,
            "to_day": 7,
            "turn": 1,
            "calls": 4,
            "auto": False,
            "commit": "abc",
            "cash": 1.5e6,
            "done": False,
        }
    ],
    "skipped_calls": [{"day": 0, "turn": 1, "names": ["bash"], "reason": "the week changed"}],
    "commit_failed": [{"day": 0, "subject": "git init", "error": "git: not found"}],
    "server_error": [{"error": "bizbench serve ceo exited with code 1"}],
}


def _rows() -> list[dict[str, Any]]:
    return [
        {"i": n, "wall_s": 0.5, "kind": kind, **row} for n, (kind, rows) in enumerate(SAMPLES.items()) for row in rows
    ]


def test_every_kind_has_a_model_and_a_sample() -> None:
    assert set(SAMPLES) == set(KINDS) and len(KINDS) == len(ev.EVENT_MODELS) == 15


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["kind"])
def test_every_kind_round_trips(row: dict[str, Any]) -> None:
    event = parse_event(json.loads(json.dumps(row)))
    assert event.kind == row["kind"] and type(event).__name__.endswith("Event")
    assert not event.model_extra  # every field today's writers set is declared
    assert event.model_dump(mode="json", exclude_unset=True) == row
    assert parse_event(event.model_dump(mode="json")) == event


def test_every_kind_written_in_the_source_has_a_model() -> None:
    """A new ``.event("kind", ...)`` anywhere in bizbench needs its model in core/events.py."""
    written = set()
    for path in (ROOT / "src" / "bizbench").rglob("*.py"):
        written |= set(re.findall(r"\.event\(\s*\"([a-z_]+)\"", path.read_text()))
    written |= {"model_call", "model_error", "tool_call", "feedback"}  # AgentRun.ask / tool / feedback
    assert written and written <= set(KINDS), sorted(written - set(KINDS))


def test_the_writer_refuses_what_is_not_an_event(tmp_path: Path) -> None:
    trajectory = Trajectory(tmp_path / "trajectory.jsonl")
    with pytest.raises(ValueError, match="unknown trajectory event kind 'nonsense'"):
        trajectory.event("nonsense", x=1)
    with pytest.raises(ValueError, match="'auto_pass': reason: Field required"):
        trajectory.event("auto_pass", month=1)
    with pytest.raises(ValueError, match="'advance'"):
        trajectory.event("advance", **{**SAMPLES["advance"][0], "from_day": "monday"})
    assert trajectory.events == [] and (tmp_path / "trajectory.jsonl").read_text() == ""
    row = trajectory.event("auto_pass", month=1, reason="the tool budget is spent")
    trajectory.close()
    assert row["i"] == 0 and [e.kind for e in read_events(tmp_path / "trajectory.jsonl")] == ["auto_pass"]


def test_pathological_values_keep_a_bounded_preview_and_the_meters_stay_typed(tmp_path: Path) -> None:
    deep: Any = []
    for _ in range(3000):
        deep = [deep]
    reply = ModelReply(content="x", tool_calls=[ToolCall("c1", "run_command", {"command": deep})])
    run = AgentRun(ScriptedModel([reply]), Trajectory(tmp_path / "trajectory.jsonl"))
    run.ask([{"role": "user", "content": "go"}], None, turn=1)
    run.tool("run_command", {"command": deep}, False, {"value": float("nan"), "big": 10**5000}, turn=1)
    run.feedback("bad", turn=1, arguments=deep)
    run.trajectory.close()
    lines = (tmp_path / "trajectory.jsonl").read_text().splitlines()
    for line in lines:
        json.loads(line, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
        assert len(line) < 20_000
    call, tool, feedback = read_events(tmp_path / "trajectory.jsonl")
    assert isinstance(call, ev.ModelCallEvent) and isinstance(call.tool_calls, str)
    assert call.tokens.input_tokens == 0 and call.request.messages == 1 and call.turn == 1
    assert isinstance(tool, ev.ToolCallEvent) and isinstance(tool.arguments, str) and isinstance(tool.result, str)
    assert isinstance(feedback, ev.FeedbackEvent) and feedback.message == "bad"


def test_nan_alone_becomes_a_string_and_the_rest_stays_structured(tmp_path: Path) -> None:
    trajectory = Trajectory(tmp_path / "trajectory.jsonl")
    trajectory.event("tool_call", name="t", arguments={"x": float("nan")}, ok=False, result={"error": "NaN"}, month=1)
    trajectory.close()
    (event,) = read_events(tmp_path / "trajectory.jsonl")
    assert isinstance(event, ev.ToolCallEvent) and event.arguments == {"x": "nan"} and event.month == 1


def test_the_reader_skips_and_counts_what_is_not_an_event(tmp_path: Path) -> None:
    rows = _rows()
    bad = [
        "not json",
        json.dumps({"i": 99, "wall_s": 0, "kind": "telepathy"}),  # an unknown kind
        json.dumps({"i": 99, "wall_s": 0, "kind": "auto_pass", "month": 1}),  # a field missing
        json.dumps([1, 2]),  # not an object
    ]
    text = "\n".join([json.dumps(rows[0]), *bad, "", *(json.dumps(r) for r in rows[1:])])
    path = tmp_path / "trajectory.jsonl"
    path.write_text(text + "\n" + json.dumps(rows[0])[:25])  # a last line cut short by a kill
    events = read_events(path)
    assert [e.i for e in events] == [r["i"] for r in rows] and events.skipped == len(bad) + 1
    assert read_events(tmp_path / "absent.jsonl") == [] and read_events(tmp_path / "absent.jsonl").skipped == 0


def test_the_documented_kinds_are_the_models() -> None:
    """docs/run-format.md holds events_markdown() verbatim (after a change to the models, paste
    its output over the list in the section "Trajectory events")."""
    assert events_markdown() in (ROOT / "docs" / "run-format.md").read_text()


# ---------------------------------------------------------------------------- every harness's events
def _validated(run_dir: Path) -> list[ev.Event]:
    """Every line of the run's trajectory.jsonl, typed; none skipped, none with an undeclared field."""
    lines = (run_dir / "trajectory.jsonl").read_text().splitlines()
    events = read_events(run_dir / "trajectory.jsonl")
    assert events.skipped == 0 and len(events) == len(lines)
    assert [e.i for e in events] == list(range(len(events)))
    undeclared = {(e.kind, k) for e in events for k in e.model_extra or {}}
    assert not undeclared, f"declare these fields in bizbench/core/events.py: {sorted(undeclared)}"
    assert events[-1].kind == "end"
    return list(events)


#: per env: a call that acts without ending the turn, and one that ends it (as in tests/agents/test_harness_matrix.py)
FLAT = {"point": 1_000_000.0, "lower": 500_000.0, "upper": 1_500_000.0}
CALLS: dict[str, tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "ceo": (
        ("set_prices", {"A": 19.0, "B": 39.0, "C": 79.0}),
        ("next_week", {"rationale": "r", "predictions": {f"cash_{h}": FLAT for h in ("1wk", "4wk", "12wk", "26wk")}}),
    ),
    "yc": (("market_browse", {}), ("sim_resume", {})),
    "cfo": (("save_note", {"content": "plan: hold", "tags": ["plan"]}), ("pass", {})),
}
HORIZON = {"ceo": 21, "yc": 1, "cfo": 4}


def _reply(harness: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    if harness == "cli-chat":
        values = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in args.items()}
        flags = " ".join(f"--{k.replace('_', '-')} '{v}'" for k, v in values.items())
        command = f"{tool.replace('_', ' ')} {flags}".strip()
        return {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}
    block = (
        {"type": "memory", "operation": tool, **args}
        if tool == "save_note"
        else {"type": "tool", "name": tool, "params": args}
    )
    return {"content": "Thinking.\n```json\n" + json.dumps(block) + "\n```"}


def _script(harness: str, env_id: str) -> list[dict[str, Any]]:
    """A reply without a call, one naming another tool, then acting without ending the turn (so the
    harness ends it: cli-chat after idle turns, react-json at its reply cap), then ending turns."""
    act, end = CALLS[env_id]
    wrong: dict[str, Any] = (
        {"content": "", "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}
        if harness == "cli-chat"
        else {"content": json.dumps({"type": "tool", "name": "open_browser", "params": {}})}
    )
    return [{"content": "Let me think."}, wrong] + [_reply(harness, *act)] * 6 + [_reply(harness, *end)] * 50


def _failing(replies: list[dict[str, Any]], after: int) -> Any:
    """The replies in order; the provider fails from reply ``after + 1`` on."""
    calls: list[int] = []

    def model(messages: Any, tools: Any) -> dict[str, Any]:
        calls.append(1)
        if len(calls) > after:
            raise ModelError("provider down", attempts=[{"attempt": 1, "error": "500"}])
        return replies[min(len(calls), len(replies)) - 1]

    return model


@pytest.mark.parametrize("harness", ["cli-chat", "react-json"])
@pytest.mark.parametrize("env_id", ["ceo", "yc", "cfo"])
def test_in_process_harness_events_validate(env_id: str, harness: str, tmp_path: Path) -> None:
    options = {"max_replies_per_turn": 4} if harness == "react-json" else {"auto_advance_after": 3}
    model = ScriptedModel(_failing(_script(harness, env_id), after=12))
    out = tmp_path / "run"
    run_agent_episode(env_id, model, 3, None, out, harness, Limits(max_turns=8), options, horizon=HORIZON[env_id])
    events = _validated(out)
    kinds = {e.kind for e in events}
    first = {"cli-chat": "turn", "react-json": "reset"}[harness]
    assert {first, "model_call", "tool_call", "feedback", "auto_advance", "end"} <= kinds, kinds
    assert all(e.turn is not None for e in events if isinstance(e, ev.ModelCallEvent | ev.ToolCallEvent))
    end = events[-1]
    assert isinstance(end, ev.EndEvent) and end.model_calls <= 12
    if end.ended_by == "model_error":
        assert events[-2].kind == "model_error"


def test_a_model_error_is_a_valid_event(tmp_path: Path) -> None:
    model = ScriptedModel(_failing(_script("cli-chat", "yc"), after=2))
    result = run_agent_episode("yc", model, 3, None, tmp_path / "run", horizon=1)
    events = _validated(tmp_path / "run")
    assert result["ended_by"] == "model_error"
    error = events[-2]
    assert isinstance(error, ev.ModelErrorEvent) and error.turn == 3 and error.attempts[0]["error"] == "500"


def test_a_harness_error_is_a_valid_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(ReactJsonHarness, "_apply", boom)
    model = ScriptedModel([_reply("react-json", *CALLS["cfo"][1])])
    result = run_agent_episode("cfo", model, 3, "paper", tmp_path / "run", horizon=4)
    events = _validated(tmp_path / "run")
    assert result["ended_by"] == "harness_error"
    assert [e.kind for e in events][-2:] == ["harness_error", "end"]


def test_terminal_events_validate(tmp_path: Path) -> None:
    """The ceo terminal harness on a served seat (file tools only: no sandbox needed)."""

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        return {"name": name, "arguments": arguments}

    replies = [
        {"content": "thinking"},  # no tool call: feedback
        {"content": "", "tool_calls": [call("open_browser", url="x")]},  # unknown tool: feedback
        {"content": "", "tool_calls": [call("write_file", path="MEMORY.md", content="notes\n")] * 3},  # cap: skip
    ]
    out = tmp_path / "run"
    options = {"days": 14, "max_calls_per_week": 4}
    result = run_agent_episode("ceo", ScriptedModel(replies), 918273, "horizon-50", out, "terminal", None, options)
    events = _validated(out)
    kinds = [e.kind for e in events]
    if result["ended_by"] == "server_error" and "workspace" not in kinds:
        error = next(e for e in events if isinstance(e, ev.ServerErrorEvent)).error
        pytest.skip(f"`bizbench serve ceo` does not start in this checkout: {error.strip().splitlines()[-1]}")
    assert result["ended_by"] == "completed", kinds
    expected = {"workspace", "reset", "model_call", "feedback", "tool_call", "skipped_calls", "auto_advance", "advance"}
    assert expected <= set(kinds)
    assert all(e.elapsed is not None and e.turn for e in events if isinstance(e, ev.ModelCallEvent))
