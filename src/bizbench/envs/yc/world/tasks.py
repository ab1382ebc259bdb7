"""Tasks: acceptance, deadlines, throughput, progress and checkpoints.

Paper section 3 "Tasks and domains" and "Employees and productivity"; Table 2
"Deadlines"; Appendix C prompt ("Throughput split: employees on multiple active tasks split
their rate (rate/N)").

* On acceptance the advertised requirement is frozen at the value the market showed (the
  base work cut by the client's trust, see ``clients.work_factor``), and the deadline starts:
  max(7, qty / 150) business days after acceptance, qty = that requirement.
* The *true* work is the requirement times the scope-creep factor for an adversarial client
  (1 otherwise). It is hidden: progress is measured against it, so an inflated task's
  checkpoints come late, and its requirement keeps showing the advertised value.
* Throughput of an active task = sum over its assigned employees of rate(domain) / k, k the
  number of active tasks that employee is assigned to (optionally only the top N
  contributions count, the reference's top-4 rule).
* Checkpoints at 25/50/75/100 % of the true work; reaching 100 % by the deadline is a
  success, else the deadline is a failure (35 % of the advertised reward as a penalty).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from bizbench.envs.yc.config import Deadlines
from bizbench.envs.yc.world.clock import Calendar
from bizbench.envs.yc.world.employees import Employee

__all__ = [
    "ACCEPTED",
    "ACTIVE",
    "CANCELLED",
    "FAILED",
    "MARKET",
    "OPEN",
    "SUCCEEDED",
    "Task",
    "checkpoint_work",
    "deadline_days",
    "deadline_minutes",
    "minutes_to_reach",
    "task_number",
    "throughputs",
]

MARKET = "market"
ACCEPTED = "accepted"  # accepted, deadline running, not dispatched
ACTIVE = "active"  # dispatched, work in progress
SUCCEEDED = "succeeded"
FAILED = "failed"
CANCELLED = "cancelled"
OPEN = frozenset({ACCEPTED, ACTIVE})

_EPS = 1e-9


@dataclass(slots=True)
class Task:
    num: int
    client: int  # index into the world's clients
    domain: str
    required_prestige: int
    required_trust: int  # 0 if not trust-gated
    reward_cents: int  # advertised reward
    base_work: int  # work before the client's trust cut
    prestige_delta: float
    creep: float  # HIDDEN: scope-creep factor, applied only for adversarial clients
    status: str = MARKET
    accepted_at: int = -1
    deadline: int = -1
    required: int = 0  # advertised requirement, frozen at acceptance
    true_work: float = 0.0  # HIDDEN: work that must actually be done
    done: float = 0.0  # HIDDEN in absolute terms (shown as a share of true_work)
    assigned: list[str] = field(default_factory=list)
    next_cp: int = 0  # index of the next checkpoint to report
    version: int = 0  # bumped when the task's checkpoint must be rescheduled
    dispatched_at: int = -1
    finished_at: int = -1
    cancel_reason: str = ""

    @property
    def id(self) -> str:
        return f"Task-{self.num}"

    @property
    def fraction(self) -> float:
        """Completed share of the true work, in [0, 1]."""
        return min(1.0, self.done / self.true_work) if self.true_work > 0 else 0.0


def task_number(task_id: str) -> int | None:
    """``"Task-42"`` -> 42; None if the id is not of that form."""
    prefix, sep, num = task_id.partition("-")
    if sep != "-" or prefix != "Task" or not (num.isascii() and num.isdigit()) or len(num) > 12:
        return None
    return int(num)


def deadline_days(qty: float, cfg: Deadlines) -> float:
    """max(7, qty / 150) business days (Table 2 "Qty/day 150", "Min days 7")."""
    return max(cfg.min_days, qty / cfg.qty_per_day)


def deadline_minutes(qty: float, cal: Calendar, cfg: Deadlines) -> int:
    """The deadline span in business minutes (rounded to the minute)."""
    return int(round(deadline_days(qty, cfg) * cal.day_minutes))


def throughputs(active: list[Task], employees: dict[str, Employee], max_contributors: int = 0) -> dict[int, float]:
    """Units per business hour of each active task (prompt "Throughput split": rate / N).

    ``max_contributors`` > 0 keeps only that many largest contributions (reference: 4)."""
    load: dict[str, int] = {}
    for task in active:
        for e in task.assigned:
            load[e] = load.get(e, 0) + 1
    out: dict[int, float] = {}
    for task in active:
        parts = [employees[e].rates[task.domain] / load[e] for e in task.assigned]
        if max_contributors and len(parts) > max_contributors:
            parts = sorted(parts, reverse=True)[:max_contributors]
        out[task.num] = math.fsum(parts)
    return out


def minutes_to_reach(task: Task, target: float, rate: float) -> int:
    """Business minutes (>= 1, rounded up) until ``task.done`` reaches ``target`` at ``rate`` units/hour."""
    need = target - task.done
    if need <= _EPS * max(1.0, target):
        return 0
    return max(1, math.ceil(need / rate * 60.0 - 1e-7))


def checkpoint_work(task: Task, pct: int) -> float:
    return task.true_work * pct / 100.0
