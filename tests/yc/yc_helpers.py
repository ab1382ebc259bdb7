"""Helpers for the yc tests.

Mechanic tests build small, hand-made situations on a real world: employees' rates are set
by hand and tasks with known work, reward and client are injected into the market, so the
expected numbers can be computed on paper (business-hours arithmetic, throughput split,
trust formulas) rather than with the module's own helpers. ``greedy_year`` is the paper's
greedy baseline (section 4), one task at a time, used for timing and determinism runs.
"""

from __future__ import annotations

from typing import Any

from bizbench.envs.yc.config import YcConfig, load_config
from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.world.tasks import Task
from bizbench.envs.yc.world.world import YcWorld


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


def make_env(seed: int = 1, preset: str = "default", **updates: Any) -> YcEnv:
    """An env whose config has ``section__field=value`` updates applied."""
    config, _ = load_config(preset)
    data = config.model_dump()
    for key, value in updates.items():
        section, _, name = key.partition("__")
        if name:
            data[section][name] = value
        else:
            data[section] = value
    return YcEnv(YcConfig.model_validate(data), seed, preset)


def set_rates(world: YcWorld, domain: str, rates: list[float]) -> None:
    """Employee i (Emp_{i+1}) gets rates[i] in ``domain``."""
    for emp, r in zip(world.employees, rates, strict=True):
        emp.rates[domain] = r


def honest(world: YcWorld) -> int:
    return next(i for i, c in enumerate(world.clients) if not c.adversarial)


def adversary(world: YcWorld) -> int:
    return next(i for i, c in enumerate(world.clients) if c.adversarial)


def inject(
    world: YcWorld,
    *,
    work: int = 270,
    client: int | None = None,
    domain: str = "training",
    reward_cents: int = 1_000_000,
    required_prestige: int = 1,
    required_trust: int = 0,
    delta: float = 0.1,
    creep: float = 3.0,
) -> str:
    """Put a task with these exact values into the market; returns its id."""
    num = 10_000 + len(world.market.tasks) + len(world.tasks)
    while num in world.market.tasks or num in world.tasks:
        num += 1
    task = Task(
        num=num,
        client=honest(world) if client is None else client,
        domain=domain,
        required_prestige=required_prestige,
        required_trust=required_trust,
        reward_cents=reward_cents,
        base_work=work,
        prestige_delta=delta,
        creep=creep,
    )
    world.market.add(task)
    return task.id


def start(env: YcEnv, task_id: str, employees: list[str]) -> None:
    """accept + assign + dispatch, asserting each succeeds."""
    for name, args in (
        ("task_accept", {"task_id": task_id}),
        ("task_assign", {"task_id": task_id, "employees": employees}),
        ("task_dispatch", {"task_id": task_id}),
    ):
        r = env.call(name, **args)
        assert r.ok, (name, r.error)


def ok(result: Any) -> Any:
    assert result.ok, result.error
    return result.data


def scripted_year(env: YcEnv) -> YcEnv:
    """A deterministic mixed script: two tasks at a time, split staff, an occasional cancel and notes."""
    staff = [e.id for e in env.world.employees]
    turn = 0
    while not env.done:
        turn += 1
        open_ids = [t["task_id"] for t in env.call("task_list").data["tasks"] if t["status"] in ("accepted", "active")]
        if len(open_ids) < 2:
            offers = env.call("market_browse", limit=3).data["tasks"]
            if offers:
                tid = offers[turn % len(offers)]["task_id"]
                env.call("task_accept", task_id=tid)
                env.call("task_assign", task_id=tid, employees=staff[turn % 3 :: 2])
                env.call("task_dispatch", task_id=tid)
        if turn % 37 == 0 and open_ids:
            env.call("task_cancel", task_id=open_ids[0], reason=f"turn {turn}")
        if turn % 50 == 0:
            env.call("scratchpad_append", content=f"turn {turn}: funds {env.world.funds_cents}\n")
        env.call("sim_resume")
    return env
