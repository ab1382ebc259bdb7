"""The limits of one call and of one run's record: what an agent sends can neither exhaust the
host nor hide in the record (docs/security.md "Limits").

- :func:`args_problem`: a call's arguments nested deeper than :data:`MAX_ARGS_DEPTH` or larger
  than :data:`MAX_ARGS_BYTES` are refused before any validation (the registry's first check), by
  a walk that never recurses and stops as soon as a limit is passed;
- :class:`RunBudget`: a run logs at most :data:`MAX_LOG_BYTES` of action and tamper records and
  answers at most :data:`MAX_CALLS_PER_TURN` calls in one turn. Past either, the
  :class:`~bizbench.core.session.Session` refuses calls without sending them to the env, writes
  one tamper entry saying why, and counts them (result.json ``calls_over_budget``; tamper
  entries from outside the env past the log budget: ``tamper_over_budget``).

Every limit is far above what an honest agent needs (docs/security.md gives the measures).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bizbench.core.jsonio import json_text_bytes

__all__ = [
    "MAX_ARGS_BYTES",
    "MAX_ARGS_DEPTH",
    "MAX_CALLS_PER_TURN",
    "MAX_LOG_BYTES",
    "RunBudget",
    "args_problem",
]

#: The most a call's arguments may weigh, as the record writes them in JSON (non-ASCII characters
#: escaped, up to 12 bytes each); every tool's own text limits are below it in ASCII: the longest,
#: a ceo ``query`` or a cfo note, takes 100,000 characters.
MAX_ARGS_BYTES = 256 * 1024
#: The deepest a call's arguments may nest (no tool takes more than three levels).
MAX_ARGS_DEPTH = 32
#: The most a run's actions.jsonl and tamper.jsonl may hold together.
MAX_LOG_BYTES = 64 * 1024 * 1024
#: The most calls answered in one turn (a turn ends with the env's turn-ending tool or advance).
MAX_CALLS_PER_TURN = 10_000

#: JSON bytes counted for a number, a boolean or null, and for a container's brackets and commas
_SCALAR_BYTES = 8


def args_problem(args: Any) -> str | None:
    """Why ``args`` are too deep or too large to be taken, or None. Walks the value with a stack
    (never recursing, so a value nested thousands of levels, or one that contains itself, cannot
    crash it) and stops at the first limit passed: its cost is bounded by the limits, not by
    what was sent."""
    size = 0
    stack: list[tuple[Any, int]] = [(args, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):  # as the record writes it (a string past the limit is not escaped first)
            size += len(value) + 2 if len(value) > MAX_ARGS_BYTES else json_text_bytes(value)
        elif isinstance(value, dict | list | tuple):
            if depth > MAX_ARGS_DEPTH:
                return f"the arguments nest deeper than {MAX_ARGS_DEPTH} levels"
            size += _SCALAR_BYTES
            items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
            for key, item in items:
                size += len(key) + 3 if isinstance(key, str) else 1  # a key and its quotes, or a comma
                stack.append((item, depth + 1))
                if size > MAX_ARGS_BYTES:
                    break
        else:
            size += _SCALAR_BYTES
        if size > MAX_ARGS_BYTES:
            return f"the arguments are larger than {MAX_ARGS_BYTES:,} bytes"
    return None


@dataclass
class RunBudget:
    """What a run has logged and answered so far, against :data:`MAX_LOG_BYTES` and
    :data:`MAX_CALLS_PER_TURN`. It counts the record's bytes and the calls, never time, so the
    same calls meet the same refusals."""

    max_log_bytes: int = MAX_LOG_BYTES
    max_calls_per_turn: int = MAX_CALLS_PER_TURN
    log_bytes: int = 0
    turn: int = 0
    calls_this_turn: int = 0
    over_budget: int = 0  # calls refused past a budget (not sent to the env, not logged one by one)
    tamper_over_budget: int = 0  # tamper entries past the log budget (only counted)
    reported: frozenset[str] = frozenset()  # the budgets whose tamper entry is written

    def refusal(self, turn: int, read_only: Callable[[], bool] = lambda: True) -> tuple[str, str] | None:
        """(tamper kind, error) when a call at ``turn`` must be refused, else None (the call counts).
        Past a turn's calls only reads are refused: an action, the turn's end among them, still
        goes (its record is bounded by the log budget)."""
        if turn != self.turn:
            self.turn, self.calls_this_turn = turn, 0
        if self.log_bytes >= self.max_log_bytes:
            return "log_budget_spent", self.full_error()
        if self.calls_this_turn >= self.max_calls_per_turn and read_only():
            return "call_budget_spent", (
                f"{self.max_calls_per_turn:,} calls were made this turn, the most a turn takes; only actions "
                "(ending the turn among them) are answered until it ends"
            )
        self.calls_this_turn += 1
        return None

    def full_error(self) -> str:
        """The error of a call past the log budget."""
        return f"this run's record is full ({self.max_log_bytes:,} bytes of calls); no further call is accepted"

    def first_report(self, kind: str) -> bool:
        """Whether the tamper entry of ``kind`` is still to be written (once per run and kind)."""
        if kind in self.reported:
            return False
        self.reported = self.reported | {kind}
        return True
