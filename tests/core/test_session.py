"""The Session: every call recorded, within the run's budgets (bizbench/core/session.py,
docs/security.md "Limits"). Issue 16's attacks on the record, for every registered env."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.envs import get_env, list_envs
from bizbench.core.errors import ToolResult
from bizbench.core.ledger import LedgerRow
from bizbench.core.limits import MAX_ARGS_BYTES
from bizbench.core.runlog import MAX_LOGGED_ARGS, MAX_TAMPER_VALUE, action_record, tamper_record
from bizbench.core.session import Session

ENVS = [spec.id for spec in list_envs()]


def _session(env_id: str, run: Path) -> Session:
    spec = get_env(env_id)
    return Session(spec, spec.from_preset(seed=3, horizon=2, **spec.headless()), run, agent="attacker")


def _read_tool(session: Session) -> str:
    """A read-only tool that takes no required argument."""
    return next(t.name for t in session.registry.specs() if not t.mutates and not any(p.required for p in t.params))


def _mutating_tool(session: Session) -> str:
    return next(t.name for t in session.registry.specs() if t.mutates and t.params)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


@pytest.mark.parametrize("env_id", ENVS)
def test_calls_with_huge_arguments_are_refused_recorded_small_and_logged_as_tamper(env_id: str, tmp_path: Path) -> None:
    session = _session(env_id, tmp_path / "run")
    tool = _read_tool(session)
    answers = [session.call_tool(tool, {"junk": "x" * 990_000}) for _ in range(200)]
    assert all(not a.ok and f"larger than {MAX_ARGS_BYTES:,} bytes" in (a.error or "") for a in answers)
    assert (tmp_path / "run" / "actions.jsonl").stat().st_size < 200 * 1_000
    tamper = _lines(tmp_path / "run" / "tamper.jsonl")
    assert [t["kind"] for t in tamper] == ["oversized_args"] * 200
    assert all(len(json.dumps(row)) < MAX_LOGGED_ARGS for row in session.env.actions)  # none kept in memory


@pytest.mark.parametrize("env_id", ENVS)
def test_arguments_nested_900_levels_are_refused_and_never_skip_the_record(env_id: str, tmp_path: Path) -> None:
    session = _session(env_id, tmp_path / "run")
    deep: Any = 1
    for _ in range(900):
        deep = [deep]
    tool = _mutating_tool(session)
    name = next(p.name for p in session.registry.spec(tool).params)
    answer = session.call_tool(tool, {name: deep})
    assert not answer.ok and "nest deeper" in (answer.error or "")
    result = session.finish()
    actions = _lines(tmp_path / "run" / "actions.jsonl")
    assert actions[-1]["tool"] == tool and actions[-1]["ok"] is False and actions[-1]["args"] is None
    assert [t["kind"] for t in _lines(tmp_path / "run" / "tamper.jsonl")] == ["oversized_args"]
    if "tool_calls" in result:
        assert result["tool_calls"] <= len(actions)


@pytest.mark.parametrize("env_id", ENVS)
def test_past_the_log_budget_calls_are_refused_unsent_with_one_tamper_entry(env_id: str, tmp_path: Path) -> None:
    session = _session(env_id, tmp_path / "run")
    session.budget.max_log_bytes = 5_000
    tool = _read_tool(session)
    answers = [session.call_tool(tool, {"junk": "y" * 2_000}) for _ in range(300)]
    refused = [a for a in answers if "record is full" in (a.error or "")]
    assert 0 < len(refused) < 300
    size = (tmp_path / "run" / "actions.jsonl").stat().st_size
    more = [session.call_tool(tool, {}) for _ in range(50)]
    assert all(not a.ok and "record is full" in (a.error or "") for a in more)
    assert (tmp_path / "run" / "actions.jsonl").stat().st_size == size
    kinds = [t["kind"] for t in _lines(tmp_path / "run" / "tamper.jsonl")]
    assert kinds.count("log_budget_spent") == 1
    assert session.finish()["calls_over_budget"] == len(refused) + 50


@pytest.mark.parametrize("env_id", ENVS)
def test_past_the_calls_of_a_turn_calls_are_refused_until_the_turn_ends(env_id: str, tmp_path: Path) -> None:
    session = _session(env_id, tmp_path / "run")
    session.budget.max_calls_per_turn = 5
    tool = _read_tool(session)
    answers = [session.call_tool(tool, {}) for _ in range(8)]
    assert [a.error is not None and "until it ends" in a.error for a in answers] == [False] * 5 + [True] * 3
    action = _mutating_tool(session)
    assert "until it ends" not in (session.call_tool(action, {}).error or "")  # an action (the turn's end) goes
    session.advance()
    assert "until it ends" not in (session.call_tool(tool, {}).error or "")
    kinds = [t["kind"] for t in _lines(tmp_path / "run" / "tamper.jsonl")]
    assert kinds.count("call_budget_spent") == 1
    assert session.finish()["calls_over_budget"] == 3


def test_a_call_that_crashes_the_env_is_answered_and_still_recorded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session = _session(ENVS[0], tmp_path / "run")

    def crash(name: str, args: Any) -> Any:
        raise RecursionError("deep")

    session.env.call_tool = crash  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR, logger="bizbench.core.session"):
        answer = session.call_tool("anything", {"a": 1})
    assert [r.getMessage() for r in caplog.records] == [f"internal error in {ENVS[0]}'s call_tool('anything')"]
    assert (answer.ok, answer.error) == (False, "internal_error: RecursionError")  # false, not merely falsy
    assert _lines(tmp_path / "run" / "actions.jsonl")[-1] == {
        "tool": "anything",
        "args": {"a": 1},
        "ok": False,
        "error": "internal_error: RecursionError",
    }


@pytest.mark.parametrize("env_id", ENVS)
def test_a_rule_based_run_spends_a_small_part_of_each_budget(env_id: str, tmp_path: Path) -> None:
    spec = get_env(env_id)
    session = _session(env_id, tmp_path / "run")
    policy = spec.baseline(spec.default_baseline).make(3)
    while not session.done:
        policy.act(session)
    result = session.finish()
    assert "calls_over_budget" not in result
    assert session.budget.log_bytes < session.budget.max_log_bytes / 1_000


def test_a_tamper_entry_keeps_a_bounded_preview_of_what_was_sent(tmp_path: Path) -> None:
    session = _session(ENVS[0], tmp_path / "run")
    session.call_tool("t" * 1_000_000, {})
    session.log_tamper("probe", {"sent": "z" * 100_000, "nested": {"k": ["v" * 10_000]}, "n": 3})
    lines = (tmp_path / "run" / "tamper.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(len(line) < 3_000 for line in lines)
    probe = json.loads(lines[1])
    assert probe["n"] == 3 and probe["sent"].endswith("(100,000 chars)")


def test_a_tamper_value_is_kept_whole_up_to_its_limit_and_cut_to_a_preview_past_it() -> None:
    assert MAX_TAMPER_VALUE == 1_000
    deep: Any = 1
    for _ in range(5_000):
        deep = [deep]
    row = {
        "at": "a" * 1_000,
        "past": "b" * 1_001,
        "list_at": ["x" * 996],  # prints as ["xx...x"]: 1,000 characters
        "list_past": ["x" * 997],
        "big": 10**1_000,  # a number is kept as it is, whatever its length
        "deep": deep,  # does not print as JSON at all
    }
    kept = tamper_record(row)
    assert kept["at"] == row["at"] and kept["list_at"] == row["list_at"] and kept["big"] == row["big"]
    assert kept["past"] == "b" * 1_000 + "... (1,001 chars)"
    assert kept["list_past"] == "['" + "x" * 997 + "'... (1,001 chars)"  # the repr ['xx...x'] cut before its "]"
    assert isinstance(kept["deep"], str) and len(kept["deep"]) <= 1_000 + len("... (99,999 chars)")


def test_past_the_log_budget_tamper_reports_from_outside_the_env_are_only_counted(tmp_path: Path) -> None:
    """A seat's server logs malformed requests as tamper: a flood of them must not grow the record."""
    session = _session(ENVS[0], tmp_path / "run")
    session.budget.max_log_bytes = 3_000
    for n in range(500):
        session.log_tamper("malformed_request", {"source": "server", "body": "x" * 300, "n": n})
    size = (tmp_path / "run" / "tamper.jsonl").stat().st_size
    assert size < 3_000 + 1_000
    kinds = [t["kind"] for t in _lines(tmp_path / "run" / "tamper.jsonl")]
    assert kinds[-1] == "log_budget_spent" and kinds.count("log_budget_spent") == 1
    assert session.finish()["tamper_over_budget"] == 500 - kinds.count("malformed_request")


def test_the_log_budget_spent_entry_says_why(tmp_path: Path) -> None:
    session = _session(ENVS[0], tmp_path / "run")
    session.budget.max_log_bytes = session.budget.log_bytes
    session.log_tamper("probe", {"n": 1})
    spent = [t for t in _lines(tmp_path / "run" / "tamper.jsonl") if t["kind"] == "log_budget_spent"]
    assert len(spent) == 1
    assert spent[0]["error"] == (
        f"this run's record is full ({session.budget.max_log_bytes:,} bytes of calls); no further call is accepted"
    )


def test_a_tamper_report_is_only_counted_from_exactly_the_log_budget_on(tmp_path: Path) -> None:
    below = _session(ENVS[0], tmp_path / "below")
    below.budget.max_log_bytes = below.budget.log_bytes + 1  # one byte left: still recorded
    below.log_tamper("probe", {"n": 1})
    assert [t["kind"] for t in _lines(tmp_path / "below" / "tamper.jsonl")] == ["probe"]
    assert "tamper_over_budget" not in below.finish()
    at = _session(ENVS[0], tmp_path / "at")
    at.budget.max_log_bytes = at.budget.log_bytes  # exactly at the budget: counted, not recorded
    at.log_tamper("probe", {"n": 1})
    assert [t["kind"] for t in _lines(tmp_path / "at" / "tamper.jsonl")] == ["log_budget_spent"]
    assert at.finish()["tamper_over_budget"] == 1


#: status after one turn of a 2-unit horizon: (turn, elapsed, unit, done); ceo's week-long turn
#: stops at the horizon's second day
ONE_TURN = {"ceo": (1, 2, "day", True), "cfo": (1, 1, "month", False), "yc": (1, 1, "month", False)}


@pytest.mark.parametrize("env_id", sorted(ONE_TURN))
def test_the_status_speaks_the_contracts_words(env_id: str, tmp_path: Path) -> None:
    session = _session(env_id, tmp_path / "run")
    turn, elapsed, unit, done = ONE_TURN[env_id]
    words = ("turn", "elapsed", "unit", "done", "bankrupt")
    assert {k: session.status()[k] for k in words} == {
        "turn": 0,
        "elapsed": 0,
        "unit": unit,
        "done": False,
        "bankrupt": False,
    }
    session.advance()
    assert {k: session.status()[k] for k in words} == {
        "turn": turn,
        "elapsed": elapsed,
        "unit": unit,
        "done": done,
        "bankrupt": False,
    }


def test_the_contracts_words_in_the_status_are_the_sessions_not_the_envs_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session("cfo", tmp_path / "run")
    stale = {"turn": -1, "elapsed": -1, "unit": "week", "done": None, "bankrupt": None, "cash_cents": 5}
    monkeypatch.setattr(session.env, "status", lambda: stale)
    assert session.status() == {
        "cash_cents": 5,
        "turn": 0,
        "elapsed": 0,
        "unit": "month",
        "done": False,
        "bankrupt": False,
    }


def test_an_accepted_call_that_replay_sends_again_is_recorded_whole_however_large() -> None:
    row = {"tool": "t" * 500, "args": {"note": "x" * 50_000}, "ok": True, "error": None}
    assert action_record(row) is row and action_record(row, resent=True) is row


def test_a_refused_calls_tool_name_and_error_are_cut_past_their_limits_and_kept_whole_at_them() -> None:
    at = {"tool": "t" * 200, "ok": False, "error": "e" * MAX_LOGGED_ARGS}  # no args: nothing more to bound
    assert action_record(at) == at
    past = action_record({"tool": "t" * 201, "ok": False, "error": "e" * (MAX_LOGGED_ARGS + 1)})
    assert past == {
        "tool": "t" * 200 + "... (201 chars)",
        "ok": False,
        "error": "e" * MAX_LOGGED_ARGS + f"... ({MAX_LOGGED_ARGS + 1:,} chars)",
    }


def test_arguments_past_the_logged_size_keep_a_digest_their_size_and_a_preview_unless_replay_resends_them() -> None:
    # {"s": "..."} is 9 characters of JSON around the text: a text of 15,991 makes exactly 16,000
    at = {"s": "x" * (MAX_LOGGED_ARGS - 9)}
    assert len(json.dumps(at)) == MAX_LOGGED_ARGS
    assert action_record({"tool": "t", "args": at, "ok": False}) == {"tool": "t", "args": at, "ok": False}
    past = {"s": "x" * (MAX_LOGGED_ARGS - 8)}
    text = json.dumps(past).encode()
    expected = {
        "tool": "t",
        "args": None,
        "ok": True,
        "args_sha256": hashlib.sha256(text).hexdigest(),
        "args_bytes": MAX_LOGGED_ARGS + 1,
        "args_preview": repr(past)[:200] + f"... ({len(repr(past)):,} chars)",
    }
    assert action_record({"tool": "t", "args": past, "ok": True}, resent=False) == expected  # an unsent read
    # arguments that are not JSON (NaN) are digested from their printed form
    nan = {"x": float("nan")}
    assert action_record({"tool": "t", "args": nan, "ok": False}) == {
        "tool": "t",
        "args": None,
        "ok": False,
        "args_sha256": hashlib.sha256(b"{'x': nan}").hexdigest(),
        "args_bytes": 10,
        "args_preview": "{'x': nan}",
    }


def test_a_refused_call_without_a_tool_name_is_recorded_as_it_came() -> None:
    assert action_record({"tool": None, "ok": False, "error": "no tool"}) == {
        "tool": None,
        "ok": False,
        "error": "no tool",
    }


def test_long_arguments_that_are_not_json_are_digested_from_their_whole_printed_form() -> None:
    args = {
        "x": float("nan"),
        "s": "y" * 5_000,
    }  # printed: {'x': nan, 's': '...'}, 5,000 y's and 19 characters around them
    printed = repr(args)
    record = action_record({"tool": "t", "args": args, "ok": False})
    assert (record["args_sha256"], record["args_bytes"]) == (hashlib.sha256(printed.encode()).hexdigest(), 5_019)


def test_a_session_records_its_world_and_agent_and_every_call_from_the_first_with_or_without_a_run_dir(
    tmp_path: Path,
) -> None:
    spec = get_env("cfo")
    env = spec.from_preset(seed=3, horizon=2, **spec.headless())
    session = Session(spec, env, tmp_path / "run")  # no agent named
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (session.agent, config["agent"], config["preset_hash"]) == ("?", "?", env.preset_hash)
    assert (config["horizon"], config["unit"]) == (2, "month")  # the horizon asked for, in the env's unit
    assert env.preset_hash  # a real hash, so the key above could not be "" by chance
    tool = _read_tool(session)
    session.call_tool(tool, {})
    assert [row["tool"] for row in _lines(tmp_path / "run" / "actions.jsonl")] == [tool]  # the first call too
    bare = Session(spec, spec.from_preset(seed=3, horizon=2, **spec.headless()), None)  # records nothing
    assert bare.path is None and bare.call_tool(tool, {}).ok


def test_a_session_made_around_an_env_that_already_holds_calls_records_each_of_them_from_the_first(
    tmp_path: Path,
) -> None:
    # check_env's refused-calls check wraps a session around an env one baseline turn in
    spec = get_env("cfo")
    env = spec.from_preset(seed=3, horizon=2, **spec.headless())
    tool = _read_tool(env)  # type: ignore[arg-type]
    env.call_tool(tool, {})
    env.call_tool("fly", {})  # refused: no such tool
    Session(spec, env, tmp_path / "run")
    assert [(row["tool"], row["ok"]) for row in _lines(tmp_path / "run" / "actions.jsonl")] == [
        (tool, True),
        ("fly", False),
    ]


def test_a_session_made_around_an_env_that_already_holds_calls_bounds_each_of_them_in_memory() -> None:
    world = _World(elapsed=0, horizon=12, done=False)
    refused = {"tool": "t" * 300, "ok": False, "error": "Unknown tool"}
    world.actions += [dict(refused), dict(refused)]
    Session(get_env("cfo"), world, None)  # type: ignore[arg-type]
    # a refused call's tool name is cut to 200 characters (MAX_LOGGED_TOOL) and its length, in both rows
    assert [row["tool"] for row in world.actions] == ["t" * 200 + "... (300 chars)"] * 2


def test_arguments_whose_printed_form_cannot_be_encoded_are_still_digested_with_a_question_mark() -> None:
    class Odd:  # what an in-process agent may pass: its repr is a lone surrogate, not valid UTF-8
        def __repr__(self) -> str:
            return "\ud800"

    record = action_record({"tool": "t", "args": {"o": Odd(), "n": float("nan")}, "ok": False})
    printed = b"{'o': ?, 'n': nan}"  # the surrogate encoded with "replace"
    assert (record["args_sha256"], record["args_bytes"]) == (hashlib.sha256(printed).hexdigest(), 18)


def test_a_session_stands_for_its_env_except_for_dunders_and_before_it_has_one(tmp_path: Path) -> None:
    session = _session("cfo", tmp_path / "run")
    assert session.config is session.env.config and session.registry is session.env.registry
    session.env.__custom__ = 1  # a dunder is never the env's (copy and pickle probe them)
    with pytest.raises(AttributeError) as dunder:
        session.__custom__  # noqa: B018
    assert dunder.value.args == ("__custom__",)
    with pytest.raises(AttributeError):  # unpickling looks for attributes before __init__ set the env
        Session.__new__(Session).env  # noqa: B018


# ------------------------------------------------------------------ result.json's core, on a stand-in env


class _World:
    """The least an env must be for a session's result: its clock, its cash and score, its own
    fields (``fields``; ``extra`` is passed through), and no calls yet."""

    preset, preset_hash, seed, turn = "stand-in", "h", 5, 0

    def __init__(self, elapsed: int, horizon: int, done: bool, bankrupt: bool = False, **fields: Any) -> None:
        self.elapsed, self.horizon, self.done, self.bankrupt, self.fields = elapsed, horizon, done, bankrupt, fields
        self.actions: list[dict[str, Any]] = []
        self.tamper: list[dict[str, Any]] = []

    def take_rows(self) -> dict[str, list[dict[str, Any]]]:
        return {}

    def cash(self) -> float:
        return 1_234.5

    def score(self) -> float:
        return 0.75

    def result(self, **extra: Any) -> dict[str, Any]:
        return {**self.fields, **extra}


def _result_of(world: _World, **kwargs: Any) -> dict[str, Any]:
    return Session(get_env("cfo"), world, None).result(**kwargs)  # type: ignore[arg-type]


def test_a_run_stopped_before_its_horizon_is_incomplete_and_says_where_it_ended() -> None:
    result = _result_of(_World(elapsed=5, horizon=12, done=False, tool_calls=7), agent="me")
    assert result == {
        "final_cash": 1_234.5,
        "bankrupt": False,
        "completed": False,
        "incomplete_reason": "incomplete: the run ended after 5 of 12 months, before its horizon",
        "survived": 5,
        "survived_fraction": 0.416667,  # 5 / 12 = 0.4166666... to 6 places
        "score": 0.75,
        "horizon": 12,
        "unit": "month",
        "tool_calls": 7,  # the env's own count
        "tokens": None,  # no model was metered
        "cost_usd": None,
        "ended_by": "incomplete",
        "agent": "me",  # an extra field goes through the env's result
    }


def test_a_run_that_says_it_is_done_before_its_horizon_is_still_incomplete() -> None:
    result = _result_of(_World(elapsed=11, horizon=12, done=True))
    assert (result["completed"], result["ended_by"], result["survived"]) == (False, "incomplete", 11)
    assert result["incomplete_reason"] == "incomplete: the run ended after 11 of 12 months, before its horizon"
    assert result["tool_calls"] == 0  # an env that counts no calls: 0, not missing


def test_a_run_done_exactly_at_its_horizon_is_completed_with_no_reason() -> None:
    result = _result_of(_World(elapsed=12, horizon=12, done=True))
    assert (result["completed"], result["ended_by"], result["incomplete_reason"]) == (True, "completed", None)
    assert (result["survived"], result["survived_fraction"]) == (12, 1.0)


def test_a_run_not_done_at_its_horizon_is_not_completed() -> None:
    result = _result_of(_World(elapsed=12, horizon=12, done=False))
    assert (result["completed"], result["ended_by"]) == (False, "incomplete")


def test_a_run_past_its_horizon_survived_the_horizon_and_no_more() -> None:
    result = _result_of(_World(elapsed=14, horizon=12, done=True))  # a week-long turn over the last day
    assert (result["survived"], result["survived_fraction"], result["completed"]) == (12, 1.0, True)


def test_a_bankrupt_run_at_its_horizon_is_bankrupt_not_completed_and_gives_no_reason() -> None:
    result = _result_of(_World(elapsed=12, horizon=12, done=True, bankrupt=True))
    assert (result["bankrupt"], result["completed"], result["ended_by"]) == (True, False, "bankrupt")
    assert result["incomplete_reason"] is None  # bankruptcy is a natural end: docs/run-format.md


def test_what_ended_a_run_when_named_is_kept_and_its_reason_says_so() -> None:
    result = _result_of(_World(elapsed=3, horizon=12, done=False), ended_by="agent_error")
    assert result["ended_by"] == "agent_error"
    assert result["incomplete_reason"] == "agent_error: the run ended after 3 of 12 months, before its horizon"
    done = _result_of(_World(elapsed=12, horizon=12, done=True), ended_by="turn_limit")
    assert (done["ended_by"], done["completed"], done["incomplete_reason"]) == ("turn_limit", True, None)


def test_a_zero_horizon_has_survived_nothing_of_it() -> None:
    result = _result_of(_World(elapsed=0, horizon=0, done=True))
    assert (result["survived"], result["survived_fraction"]) == (0, 0.0)


def test_a_model_runs_meter_fills_tokens_and_cost_and_its_other_counts_stand_beside_them() -> None:
    meter = {"tokens": {"input": 10, "output": 4}, "cost_usd": 0.25, "turns": 3}
    result = _result_of(_World(elapsed=5, horizon=12, done=False), meter=meter)
    assert (result["tokens"], result["cost_usd"], result["turns"]) == ({"input": 10, "output": 4}, 0.25, 3)


def test_the_envs_own_fields_take_the_place_of_the_cores_but_never_of_what_ended_the_run() -> None:
    world = _World(elapsed=5, horizon=12, done=False, score=-2.5, tool_calls=9, ended_by="env says")
    result = _result_of(world)
    assert (result["score"], result["tool_calls"], result["ended_by"]) == (-2.5, 9, "incomplete")


def test_calls_and_tamper_past_the_budgets_are_counted_in_the_result_only_when_there_are_some() -> None:
    session = Session(get_env("cfo"), _World(elapsed=5, horizon=12, done=False), None)  # type: ignore[arg-type]
    assert "calls_over_budget" not in session.result() and "tamper_over_budget" not in session.result()
    session.budget.over_budget, session.budget.tamper_over_budget = 3, 2
    result = session.result()
    assert (result["calls_over_budget"], result["tamper_over_budget"]) == (3, 2)


class _Registry:
    """Two tools: ``read`` (read-only) and ``act`` (an action)."""

    def __contains__(self, tool: object) -> bool:
        return tool in ("read", "act")

    def mutates(self, tool: str) -> bool:
        return tool == "act"


class _Config:
    def model_dump(self, mode: str) -> dict[str, Any]:
        return {"months": 12}


class _LoggingWorld(_World):
    """A stand-in env that logs calls, tamper entries and metrics rows as a test tells it."""

    registry, config = _Registry(), _Config()

    def __init__(self) -> None:
        super().__init__(elapsed=0, horizon=12, done=False)
        self.rows: list[dict[str, Any]] = []

    def take_rows(self) -> dict[str, list[dict[str, Any]]]:
        rows, self.rows = self.rows, []
        return {"metrics": rows} if rows else {}

    def call_tool(self, name: str, args: Any) -> ToolResult:
        self.actions.append({"tool": name, "args": args, "ok": True})
        return ToolResult(ok=True, data={"got": args})

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        self.tamper.append({"kind": kind, **detail})

    def ledger_rows(self) -> list[LedgerRow]:
        return [LedgerRow(1, "revenue", 250, "a sale", "sales")]

    def money_points(self) -> list[tuple[Any, float]]:
        return [(0, 2.5)]

    def close(self) -> None:
        pass


BIG = {
    "s": "x" * 20_000
}  # 20,009 characters of JSON ({"s": "..."} is 9 around the text): past MAX_LOGGED_ARGS (16,000)


def test_each_call_tamper_entry_and_metrics_row_is_written_once_however_many_flushes(tmp_path: Path) -> None:
    world = _LoggingWorld()
    session = Session(get_env("cfo"), world, tmp_path / "run")  # type: ignore[arg-type]
    world.actions.append({"tool": "act", "args": {"n": 1}, "ok": True})
    world.tamper.append({"kind": "probe", "n": 1})
    world.rows.append({"month": 1})
    session.flush()
    session.flush()  # nothing new
    world.actions.append({"tool": "read", "args": {}, "ok": False, "error": "no"})
    world.tamper.append({"kind": "probe", "n": 2})
    world.rows.append({"month": 2})
    session.flush()
    assert _lines(tmp_path / "run" / "actions.jsonl") == [
        {"tool": "act", "args": {"n": 1}, "ok": True},
        {"tool": "read", "args": {}, "ok": False, "error": "no"},
    ]
    assert _lines(tmp_path / "run" / "tamper.jsonl") == [{"kind": "probe", "n": 1}, {"kind": "probe", "n": 2}]
    assert _lines(tmp_path / "run" / "metrics.jsonl") == [{"month": 1}, {"month": 2}]


def test_a_call_by_keywords_is_the_tool_call_of_its_name_and_arguments(tmp_path: Path) -> None:
    world = _LoggingWorld()
    session = Session(get_env("cfo"), world, tmp_path / "run")  # type: ignore[arg-type]
    answer = session.call("act", n=1, note="x")
    assert answer.ok and answer.data == {"got": {"n": 1, "note": "x"}}
    assert _lines(tmp_path / "run" / "actions.jsonl") == [{"tool": "act", "args": {"n": 1, "note": "x"}, "ok": True}]


def test_the_log_budget_counts_every_byte_of_calls_and_tamper_with_or_without_a_run_directory(tmp_path: Path) -> None:
    for run in (tmp_path / "run", None):
        world = _LoggingWorld()
        session = Session(get_env("cfo"), world, run)  # type: ignore[arg-type]
        world.actions.append({"tool": "act", "args": {}, "ok": True})  # {"tool": "act", "args": {}, "ok": true}
        session.flush()
        world.tamper.append({"kind": "p"})  # {"kind": "p"}
        world.rows.append({"month": 1})  # a metrics row: not a call, not counted
        session.flush()
        # 39 characters and a newline, then 13 and a newline
        assert session.budget.log_bytes == 40 + 14


def test_an_accepted_call_that_replay_resends_keeps_its_large_arguments_whole_in_the_record(tmp_path: Path) -> None:
    world = _LoggingWorld()
    session = Session(get_env("cfo"), world, tmp_path / "run")  # type: ignore[arg-type]  # cfo resends reads
    world.actions.append({"tool": "read", "args": BIG, "ok": True})
    session.flush()
    assert world.actions == [{"tool": "read", "args": BIG, "ok": True}]
    assert _lines(tmp_path / "run" / "actions.jsonl") == world.actions


def test_where_replay_skips_reads_only_an_accepted_reads_large_arguments_are_digested() -> None:
    world = _LoggingWorld()
    session = Session(get_env("ceo"), world, None)  # type: ignore[arg-type]  # ceo does not resend reads
    world.actions += [
        {"tool": "read", "args": BIG, "ok": True},  # not sent again: digested
        {"tool": "act", "args": BIG, "ok": True},  # an action: sent again, whole
        {"tool": "other", "args": BIG, "ok": True},  # no tool of the registry: sent again, whole
        {"tool": "act", "args": BIG, "ok": False},  # refused: never sent again, digested
    ]
    session.flush()
    kept = [row["args"] is not None for row in world.actions]
    assert kept == [False, True, True, False]
    assert [row.get("args_bytes") for row in world.actions] == [20_009, None, None, 20_009]


def test_the_status_of_an_env_without_its_own_has_only_the_contracts_words() -> None:
    session = Session(get_env("cfo"), _World(elapsed=5, horizon=12, done=False), None)  # type: ignore[arg-type]
    assert session.status() == {"turn": 0, "elapsed": 5, "unit": "month", "done": False, "bankrupt": False}


def _capture_plots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    plots: list[tuple[Any, ...]] = []
    monkeypatch.setattr("bizbench.core.plots.plot_money", lambda *args: plots.append(args))
    return plots


def test_finish_writes_the_ledger_in_the_envs_columns_the_cash_plot_and_result_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bizbench.core.provenance import provenance

    plots = _capture_plots(monkeypatch)
    session = _session("cfo", tmp_path / "run")  # preset paper, agent "attacker", seed 3
    session.advance()
    points, rows = session.env.money_points(), session.env.ledger_rows()
    session.started = 10.0  # the clock read when the session began, and when it ends:
    monkeypatch.setattr(time, "perf_counter", lambda: 110.123456)
    result = session.finish(ended_by="agent_error", meter={"cost_usd": 0.5, "tokens": {"input": 2}}, harness="h")
    assert plots == [(points, tmp_path / "run" / "cash.png", "month", "cfo / paper / attacker / seed 3")]
    ledger = (tmp_path / "run" / "ledger.csv").read_text().splitlines()
    assert ledger[0] == "month,account,amount_usd_debit_positive,cash_flow_category,memo"  # cfo's own columns
    assert len(ledger) == 1 + len(rows)
    assert json.loads((tmp_path / "run" / "result.json").read_text()) == result
    assert (result["ended_by"], result["cost_usd"], result["tokens"], result["harness"]) == (
        "agent_error",
        0.5,
        {"input": 2},
        "h",
    )
    assert result["provenance"] == provenance()
    assert result["wall_seconds"] == 100.123  # 110.123456 - 10.0 seconds, to the millisecond


def test_finish_takes_a_given_title_a_given_wall_time_and_no_plot_when_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plots = _capture_plots(monkeypatch)
    titled = _session("cfo", tmp_path / "titled")
    titled.finish(title="mine")
    assert [p[3] for p in plots] == ["mine"]
    unplotted = _session("cfo", tmp_path / "unplotted")
    result = unplotted.finish(plot=False, wall_seconds=7.5)  # a resumed run's wall time, all attempts
    assert len(plots) == 1 and result["wall_seconds"] == 7.5
    assert (tmp_path / "unplotted" / "result.json").is_file() and (tmp_path / "unplotted" / "ledger.csv").is_file()


def test_finish_without_a_run_directory_returns_the_result_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plots = _capture_plots(monkeypatch)
    spec = get_env("cfo")
    session = Session(spec, spec.from_preset(seed=3, horizon=2, **spec.headless()), None)
    result = session.finish()
    assert "provenance" not in result and isinstance(result["wall_seconds"], float) and plots == []


def test_finish_writes_the_common_ledger_columns_for_an_env_that_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plots = _capture_plots(monkeypatch)
    session = Session(get_env("cfo"), _LoggingWorld(), tmp_path / "run", agent="me")  # type: ignore[arg-type]
    session.finish()
    assert (tmp_path / "run" / "ledger.csv").read_text().splitlines() == [
        "day,category,amount,group,note",
        "1,revenue,2.50,sales,a sale",  # 250 cents
    ]
    assert plots == [([(0, 2.5)], tmp_path / "run" / "cash.png", "month", "cfo / stand-in / me / seed 5")]


def test_each_budget_spent_writes_its_own_tamper_entry_with_the_error_the_call_got(tmp_path: Path) -> None:
    session = Session(get_env("cfo"), _LoggingWorld(), tmp_path / "run")  # type: ignore[arg-type]
    session.budget.max_calls_per_turn, session.budget.max_log_bytes = 1, 50
    assert session.call_tool("read", {}).ok  # 41 bytes logged: {"tool": "read", "args": {}, "ok": true}
    calls = session.call_tool("read", {})  # the turn's second read: past its calls
    full = session.call_tool("act", {})  # an action goes past the turn's calls, not past the record's 50 bytes
    assert calls.error == (
        "1 calls were made this turn, the most a turn takes; only actions (ending the turn among them) "
        "are answered until it ends"
    )
    assert full.error == "this run's record is full (50 bytes of calls); no further call is accepted"
    assert (calls.ok, full.ok) == (False, False)  # false, not merely falsy: a served seat sends it as JSON
    assert _lines(tmp_path / "run" / "tamper.jsonl") == [
        {"kind": "call_budget_spent", "error": calls.error},
        {"kind": "log_budget_spent", "error": full.error},
    ]
    assert session.result()["calls_over_budget"] == 2
