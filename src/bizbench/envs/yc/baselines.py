"""Baselines for the yc env. They act only through the commands and see only what an agent sees.

- ``do-nothing``: resumes until payroll bankrupts the company.
- ``random``: seeded; accepts random tasks with random staff, sometimes cancels.
- ``greedy``: the paper's baseline (section 4): accept the highest-reward acceptable task,
  assign all employees, dispatch, resume; no client history, no notes.
- ``heuristic``: a strong rule-based operator (reference "Baseline" figures). It ranks tasks
  by reward per unit of work, runs a few tasks at once, gives each its best-suited free
  employees and takes only tasks it can finish in time. It measures each running task's
  true progress against the throughput it dispatched, so a client whose work inflates is
  caught, its task cancelled when it cannot finish, and the client avoided afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from bizbench.core.env import Baseline

if TYPE_CHECKING:
    from bizbench.envs.yc.env import YcEnv


class Policy(Protocol):
    name: str

    def act(self, env: YcEnv) -> None: ...


def _ok(env: YcEnv, name: str, **args: Any) -> Any:
    r = env.call(name, **args)
    if not r.ok:
        raise RuntimeError(f"{name}({args}) failed: {r.error}")
    return r.data


def _end_turn(env: YcEnv) -> None:
    """``sim resume``, unless the turn's own moves ended the run (a cancellation fee can bankrupt)."""
    if not env.done:
        _ok(env, "sim_resume")


@dataclass
class DoNothing:
    name: str = "do-nothing"

    def act(self, env: YcEnv) -> None:
        _end_turn(env)


@dataclass
class Greedy:
    """Paper section 4: highest reward, everyone assigned, dispatch, resume; nothing remembered.

    It takes a new task when it has none open (one task at a time, all hands on it): accepting
    one at every event would split the staff over ever more tasks until every deadline fails.
    """

    name: str = "greedy"

    def act(self, env: YcEnv) -> None:
        open_tasks = [t for t in _ok(env, "task_list")["tasks"] if t["status"] in ("accepted", "active")]
        tasks = [] if open_tasks else _ok(env, "market_browse")["tasks"]
        if tasks:
            best = max(tasks, key=lambda t: t["reward_cents"])
            staff = [e["employee_id"] for e in _ok(env, "employee_list")["employees"]]
            _ok(env, "task_accept", task_id=best["task_id"])
            _ok(env, "task_assign", task_id=best["task_id"], employees=staff)
            _ok(env, "task_dispatch", task_id=best["task_id"])
        _end_turn(env)


@dataclass
class RandomPolicy:
    """Seeded random operator (a fuzz baseline); its seed is independent of the world's."""

    seed: int = 0
    name: str = "random"
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng([self.seed, 0x7C])

    def act(self, env: YcEnv) -> None:
        r = self.rng
        tasks = _ok(env, "market_browse")["tasks"]
        staff = [e["employee_id"] for e in _ok(env, "employee_list")["employees"]]
        if tasks and r.random() < 0.6:
            t = tasks[int(r.integers(len(tasks)))]["task_id"]
            team = list(r.choice(staff, size=int(r.integers(1, len(staff) + 1)), replace=False))
            _ok(env, "task_accept", task_id=t)
            _ok(env, "task_assign", task_id=t, employees=team)
            if r.random() < 0.9:
                _ok(env, "task_dispatch", task_id=t)
        mine = [t for t in _ok(env, "task_list")["tasks"] if t["status"] in ("accepted", "active")]
        if mine and r.random() < 0.05:
            _ok(env, "task_cancel", task_id=mine[int(r.integers(len(mine)))]["task_id"], reason="random")
        _end_turn(env)


@dataclass
class _Running:
    throughput: float
    work: float  # advertised units
    hours_left_at_dispatch: float
    employees: list[str]


@dataclass
class Heuristic:
    """Reward per unit of work, a few concurrent tasks, best-suited free staff, inflation detection."""

    max_concurrent: int = 3
    team_size: int = 4
    deadline_margin: float = 0.8  # plan to finish within 80 % of the deadline
    inflation_alarm: float = 0.6  # progress below 60 % of what the throughput should have done
    name: str = "heuristic"
    running: dict[str, _Running] = field(default_factory=dict)
    avoided: set[str] = field(default_factory=set)

    def act(self, env: YcEnv) -> None:
        mine = {t["task_id"]: t for t in _ok(env, "task_list")["tasks"] if t["status"] in ("accepted", "active")}
        self.running = {k: v for k, v in self.running.items() if k in mine}
        for tid, run in list(self.running.items()):
            self._check(env, mine[tid], run)
        employees = _ok(env, "employee_list")["employees"]
        busy = {e for run in self.running.values() for e in run.employees}
        free = [e for e in employees if e["employee_id"] not in busy]
        history = {c["client_name"]: c for c in _ok(env, "client_history")["clients"]}
        for c, h in history.items():
            if h["failed"] > 0:
                self.avoided.add(c)
        while len(self.running) < self.max_concurrent and len(free) >= 1:
            pick = self._choose(env, free)
            if pick is None:
                break
            task, team = pick
            tid = task["task_id"]
            _ok(env, "task_accept", task_id=tid)
            _ok(env, "task_assign", task_id=tid, employees=team)
            sent = _ok(env, "task_dispatch", task_id=tid)
            hours = _ok(env, "task_inspect", task_id=tid)["business_hours_left"]
            work = float(sum(task["requirements"].values()))
            self.running[tid] = _Running(sent["throughput_per_hour"], work, hours, team)
            free = [e for e in free if e["employee_id"] not in team]
        _end_turn(env)

    def _choose(self, env: YcEnv, free: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]] | None:
        best: tuple[float, dict[str, Any], list[str]] | None = None
        for task in _ok(env, "market_browse")["tasks"]:
            if task["client_name"] in self.avoided:
                continue
            domain = task["domain"]
            team = sorted(free, key=lambda e: -e["rates_per_hour"][domain])[: self.team_size]
            throughput = sum(e["rates_per_hour"][domain] for e in team)
            work = float(sum(task["requirements"].values()))
            hours = task["deadline_business_days"] * 9.0
            if throughput <= 0 or work / throughput > self.deadline_margin * hours:
                continue
            value = task["reward_cents"] / work
            if best is None or value > best[0]:
                best = (value, task, [e["employee_id"] for e in team])
        return None if best is None else (best[1], best[2])

    def _check(self, env: YcEnv, view: dict[str, Any], run: _Running) -> None:
        """Compare true progress with what the dispatched throughput should have done (scope creep)."""
        elapsed = run.hours_left_at_dispatch - view["business_hours_left"]
        if elapsed < 4.0:
            return
        expected = min(1.0, run.throughput * elapsed / run.work)
        done = view["progress_pct"] / 100.0
        if done >= self.inflation_alarm * expected:
            return
        self.avoided.add(view["client_name"])
        rate = done / elapsed  # fraction per hour actually achieved
        if rate <= 0 or (1.0 - done) / rate > view["business_hours_left"]:
            _ok(env, "task_cancel", task_id=view["task_id"], reason="work inflated beyond the deadline")
            self.running.pop(view["task_id"], None)


BASELINES = ("do-nothing", "random", "greedy", "heuristic")


def make_policy(name: str, seed: int = 0) -> Policy:
    """Build a yc baseline by name."""
    if name == "do-nothing":
        return DoNothing()
    if name == "random":
        return RandomPolicy(seed=seed)
    if name == "greedy":
        return Greedy()
    if name == "heuristic":
        return Heuristic()
    raise ValueError(f"Unknown yc agent '{name}'. Baselines: {', '.join(BASELINES)}")


def run_policy(env: YcEnv, policy: Policy, max_turns: int = 100_000) -> YcEnv:
    """Act until the year ends or the company goes bankrupt."""
    for _ in range(max_turns):
        if env.done:
            break
        policy.act(env)
    return env


#: The yc baselines of the Env contract (:class:`bizbench.core.env.Baseline`); each act ends with ``sim resume``.
TABLE: dict[str, Baseline] = {
    name: Baseline(name, lambda seed=0, _name=name: make_policy(_name, seed)) for name in BASELINES
}
