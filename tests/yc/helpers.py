"""Shared helpers for the yc tests: a tiny greedy policy (the paper's baseline, section 4) and world builders."""

from __future__ import annotations

from typing import Any

from bizbench.envs.yc.env import YcEnv


def greedy_turn(env: YcEnv) -> None:
    """One greedy turn: when no task is open, accept the highest-reward acceptable task, assign everyone and
    dispatch it; then resume."""
    browse = env.call("market_browse", limit=1)
    assert browse.ok, browse.error
    if browse.data["tasks"] and not env.world.open:
        tid = browse.data["tasks"][0]["task_id"]
        for name, args in (
            ("task_accept", {"task_id": tid}),
            ("task_assign", {"task_id": tid, "employees": [e.id for e in env.world.employees]}),
            ("task_dispatch", {"task_id": tid}),
        ):
            r = env.call(name, **args)
            assert r.ok, (name, r.error)
    r = env.call("sim_resume")
    assert r.ok, r.error


def greedy_year(env: YcEnv, max_turns: int = 100_000) -> YcEnv:
    for _ in range(max_turns):
        if env.done:
            break
        greedy_turn(env)
    return env


def run_commands(env: YcEnv, commands: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    return [env.call(name, **args) for name, args in commands]
