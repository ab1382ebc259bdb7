"""Shell commands over a registry (core.cmdline) and persistent command sessions (core.cmdsession)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from bizbench.core.cmdline import command_names, parse_command
from bizbench.core.cmdsession import CommandSession
from bizbench.core.registry import ToolError, ToolRegistry, ToolResult

registry = ToolRegistry()


@registry.tool(mutates=False)
def market_browse(
    ctx: Any,
    domain: Literal["training", "research"] | None = None,
    reward_min_cents: int | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 50,
) -> dict[str, Any]:
    """Browse.

    Args:
        domain: Domain filter.
        reward_min_cents: Minimum reward.
        limit: At most this many.
    """
    return {"domain": domain, "reward_min_cents": reward_min_cents, "limit": limit}


@registry.tool()
def task_assign(ctx: Any, task_id: str, employees: list[str], urgent: bool = False) -> dict[str, Any]:
    """Assign.

    Args:
        task_id: Task.
        employees: Employee ids.
        urgent: Flag.
    """
    ctx.counter += 1
    return {"task_id": task_id, "employees": employees, "urgent": urgent, "counter": ctx.counter}


@registry.tool()
def task(ctx: Any, price: float = 1.0) -> dict[str, Any]:
    """A shorter name that shares a prefix.

    Args:
        price: A number.
    """
    return {"price": price}


class FakeEnv:
    registry = registry

    def __init__(self) -> None:
        self.counter = 0
        self.tamper: list[str] = []

    def call_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        return registry.call(self, name, args)

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        self.tamper.append(kind)


def test_words_and_flags_become_a_tool_call() -> None:
    assert parse_command(registry, ["market", "browse"]) == ("market_browse", {})
    assert parse_command(registry, ["market", "browse", "--domain", "training", "--reward-min-cents", "5000"]) == (
        "market_browse",
        {"domain": "training", "reward_min_cents": 5000},
    )
    name, args = parse_command(registry, ["task", "assign", "--task-id", "T-1", "--employees", "E1, E2", "--urgent"])
    assert (name, args) == ("task_assign", {"task_id": "T-1", "employees": ["E1", "E2"], "urgent": True})
    assert parse_command(registry, ["task", "--price=2.5"]) == ("task", {"price": 2.5})  # longest match wins
    assert "market browse" in command_names(registry)


@pytest.mark.parametrize(
    ("words", "needle"),
    [
        (["launch", "rocket"], "Unknown command"),
        ([], "Unknown command"),
        (["market", "browse", "--colour", "red"], "--colour"),
        (["market", "browse", "--limit", "many"], "integer"),
        (["market", "browse", "--limit"], "needs a value"),
        (["market", "browse", "training"], "Unexpected 'training'"),
    ],
)
def test_bad_commands_are_named(words: list[str], needle: str) -> None:
    with pytest.raises(ToolError, match=needle):
        parse_command(registry, words)


def test_session_persists_between_calls_and_keeps_state_outside_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIZBENCH_STATE_DIR", str(tmp_path / "host-state"))
    session_dir = tmp_path / "agent"
    s = CommandSession("fake", session_dir)
    s.init(FakeEnv(), {"preset": "default"})
    assert json.loads((session_dir / "session.json").read_text()) == {"env": "fake", "preset": "default"}
    assert sorted(p.name for p in session_dir.iterdir()) == ["session.json"]
    for _ in range(2):
        ok, data = CommandSession("fake", session_dir).run(["task", "assign", "--task-id", "T", "--employees", "A"])
        assert ok
    assert data["counter"] == 2  # the state survived between calls
    assert not str(s.state_dir).startswith(str(session_dir))
    ok, err = s.run(["task", "assign", "--task-id", "T"])
    assert not ok and "employees" in err
    ok, err = s.run(["self", "destruct"])
    assert not ok and "Unknown command" in err
    assert s.load().tamper == ["unknown_tool"]
    log = (s.state_dir / "commands.jsonl").read_text().splitlines()
    assert len(log) == 3


def test_a_missing_session_is_an_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIZBENCH_STATE_DIR", str(tmp_path / "host-state"))
    ok, err = CommandSession("fake", tmp_path / "nowhere").run(["market", "browse"])
    assert not ok and "sim init" in err
