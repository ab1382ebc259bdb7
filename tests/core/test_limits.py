"""The limits of a call's arguments and of a run's budget (bizbench/core/limits.py, docs/security.md)."""

from __future__ import annotations

from bizbench.core.limits import MAX_ARGS_BYTES, MAX_ARGS_DEPTH, RunBudget, args_problem


def _nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_arguments_within_the_limits_pass() -> None:
    assert args_problem({"sql": "x" * (MAX_ARGS_BYTES - 100), "n": 3}) is None
    assert args_problem({"a": _nested(MAX_ARGS_DEPTH - 1)}) is None


def test_arguments_nested_too_deep_are_named_without_recursing() -> None:
    assert args_problem({"a": _nested(MAX_ARGS_DEPTH)}) == f"the arguments nest deeper than {MAX_ARGS_DEPTH} levels"
    assert "nest deeper" in (args_problem({"a": _nested(200_000)}) or "")  # far past Python's recursion limit


def test_arguments_that_contain_themselves_end_the_walk() -> None:
    loop: dict = {}
    loop["self"] = loop
    assert "nest deeper" in (args_problem(loop) or "")


def test_large_arguments_are_refused_whatever_their_shape() -> None:
    assert "larger than" in (args_problem({"junk": "x" * 990_000}) or "")
    assert "larger than" in (args_problem({"k" * MAX_ARGS_BYTES: 1}) or "")
    assert "larger than" in (args_problem({"many": [0] * 10_000_000}) or "")
    assert "larger than" in (args_problem({"many": [{"a": "b"}] * 100_000}) or "")


def test_a_budget_refuses_past_its_bytes_and_past_the_calls_of_a_turn() -> None:
    budget = RunBudget(max_log_bytes=100, max_calls_per_turn=2)
    assert budget.refusal(turn=0) is None and budget.refusal(turn=0) is None
    kind, error = budget.refusal(turn=0) or ("", "")
    assert kind == "call_budget_spent" and "2 calls" in error
    assert budget.refusal(turn=1) is None  # a new turn, a new count
    budget.log_bytes = 100
    assert (budget.refusal(turn=2) or ("",))[0] == "log_budget_spent"


def test_each_budget_is_reported_once() -> None:
    budget = RunBudget()
    assert budget.first_report("log_budget_spent")
    assert not budget.first_report("log_budget_spent")
    assert budget.first_report("call_budget_spent")


def test_characters_the_record_escapes_count_as_the_bytes_it_writes() -> None:
    """Issue 16 review: 100,000 emoji passed as 100,000 'bytes' and wrote a 1.2 MB line."""
    assert "larger than" in (args_problem({"content": "\U0001f600" * 100_000}) or "")
    assert "larger than" in (args_problem({"content": "\x01" * 50_000}) or "")
    assert args_problem({"content": "é" * 30_000}) is None
