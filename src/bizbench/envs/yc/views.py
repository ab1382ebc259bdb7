"""What the agent sees: JSON-able views of the world (paper Table 1 "Effect" column; docs/principles.md principle 3).

Every agent-visible dict is built here, so this module is the whole surface to check for
hidden state. Never shown: whether a client is adversarial, a task's scope-creep factor,
its true work or absolute progress, a client's exact reward multiplier (only its tier),
the seed and the random streams. An accepted task keeps showing the requirement the market
advertised; its progress is the completed share of the true work, so scope creep shows up
only as progress slower than the assigned throughput predicts (reference-notes "Known defects" 1).
"""

from __future__ import annotations

from typing import Any

from bizbench.envs.yc.world.clients import tier_label
from bizbench.envs.yc.world.tasks import ACTIVE, MARKET, OPEN, Task
from bizbench.envs.yc.world.world import YcWorld

__all__ = [
    "browse",
    "client_history",
    "client_list",
    "company_status",
    "employee_list",
    "finance_ledger",
    "market_entry",
    "task_detail",
    "task_summary",
]


def _r(x: float, nd: int = 3) -> float:
    return round(float(x), nd)


def _runway(w: YcWorld) -> float | None:
    payroll = w.payroll_cents
    return _r(w.funds_cents / payroll, 2) if payroll > 0 else None


def company_status(w: YcWorld) -> dict[str, Any]:
    """Funds, prestige, payroll (Table 1 ``company status``)."""
    nxt = w.next_payroll()
    return {
        "time": w.cal.iso(w.now),
        "weekday": w.cal.weekday_name(w.now),
        "funds_cents": w.funds_cents,
        "monthly_payroll_cents": w.payroll_cents,
        "runway_months": _runway(w),
        "prestige": {d: _r(p) for d, p in w.prestige.items()},
        "active_tasks": sum(t.status == ACTIVE for t in w.open.values()),
        "accepted_not_dispatched": sum(t.status != ACTIVE for t in w.open.values()),
        "next_payroll": w.cal.iso(nxt) if nxt is not None else None,
        "horizon_end": w.cal.iso(w.horizon),
        "bankrupt": w.bankrupt,
        "done": w.done,
    }


def employee_list(w: YcWorld) -> dict[str, Any]:
    """Names, tiers, salaries and per-domain productivity (Table 1 ``employee list``)."""
    on: dict[str, list[str]] = {e.id: [] for e in w.employees}
    for t in w.open.values():
        if t.status == ACTIVE:
            for e in t.assigned:
                on[e].append(t.id)
    return {
        "employees": [
            {
                "employee_id": e.id,
                "name": e.name,
                "tier": e.tier,
                "salary_cents": e.salary_cents,
                "rates_per_hour": dict(e.rates),
                "active_tasks": on[e.id],
                "tasks_succeeded": e.tasks_succeeded,
            }
            for e in w.employees
        ]
    }


def market_entry(w: YcWorld, task: Task) -> dict[str, Any]:
    """One market listing: client, reward, per-domain requirements, gates and deadline length."""
    qty = w.advertised_work(task)
    return {
        "task_id": task.id,
        "client_name": w.clients[task.client].name,
        "domain": task.domain,
        "reward_cents": task.reward_cents,
        "requirements": {task.domain: qty},
        "required_prestige": task.required_prestige,
        "required_trust": task.required_trust,
        "prestige_delta": task.prestige_delta,
        "deadline_business_days": _r(w.deadline_days(qty), 2),
    }


def browse(w: YcWorld, domain: str | None, reward_min_cents: int | None, limit: int, offset: int) -> dict[str, Any]:
    """Market tasks the company may accept now, highest reward first (Table 1 ``market browse``)."""
    trusts = [c.trust(w.now, w.config.trust) for c in w.clients]
    picked: list[Task] = []
    total = 0
    for neg_reward, num in w.market.order:
        if reward_min_cents is not None and -neg_reward < reward_min_cents:
            break  # sorted by reward: nothing further qualifies
        task = w.market.tasks[num]
        if domain is not None and task.domain != domain:
            continue
        if not w.acceptable(task, trusts):
            continue
        if offset <= total < offset + limit:
            picked.append(task)
        total += 1
    return {
        "time": w.cal.iso(w.now),
        "total": total,
        "offset": offset,
        "limit": limit,
        "tasks": [market_entry(w, t) for t in picked],
    }


def task_summary(w: YcWorld, task: Task) -> dict[str, Any]:
    """An accepted task as ``task list`` shows it (Table 1: status and progress)."""
    out = market_entry(w, task)
    out["status"] = task.status
    out["progress_pct"] = _r(100.0 * task.fraction, 1)
    out["accepted_at"] = w.cal.iso(task.accepted_at)
    out["deadline"] = w.cal.iso(task.deadline)
    out["assigned"] = list(task.assigned)
    if task.status in OPEN:
        out["business_hours_left"] = _r(w.business_hours_left(task), 2)
    else:
        out["finished_at"] = w.cal.iso(task.finished_at)
    return out


def task_detail(w: YcWorld, task: Task) -> dict[str, Any]:
    """``task inspect``: per-domain progress, deadline, assignments (Table 1)."""
    if task.status == MARKET:
        out = market_entry(w, task)
        out["status"] = MARKET
        out["acceptable_now"] = w.acceptable(task)
        return out
    out = task_summary(w, task)
    frac = task.fraction
    out["progress"] = {
        task.domain: {
            "required": task.required,
            "completed": _r(frac * task.required, 1),
            "progress_pct": _r(100.0 * frac, 1),
        }
    }
    load: dict[str, int] = {}
    for t in w.open.values():
        if t.status == ACTIVE:
            for e in t.assigned:
                load[e] = load.get(e, 0) + 1
    out["assignments"] = [
        {
            "employee_id": e,
            "name": w.emp_by_id[e].name,
            "rate_per_hour": w.emp_by_id[e].rates[task.domain],
            "active_tasks": load.get(e, 0),
        }
        for e in task.assigned
    ]
    if task.status == ACTIVE:
        out["throughput_per_hour"] = _r(w.rates.get(task.num, 0.0), 4)
    out["dispatched_at"] = w.cal.iso(task.dispatched_at) if task.dispatched_at >= 0 else None
    if task.cancel_reason:
        out["cancel_reason"] = task.cancel_reason
    return out


def client_list(w: YcWorld) -> dict[str, Any]:
    """Client trust levels and tiers (Table 1 ``client list``)."""
    cfg = w.config
    return {
        "max_trust": cfg.trust.max,
        "clients": [
            {
                "client_name": c.name,
                "trust": _r(c.trust(w.now, cfg.trust)),
                "tier": tier_label(c.multiplier, cfg.clients),
            }
            for c in w.clients
        ],
    }


def client_history(w: YcWorld) -> dict[str, Any]:
    """Per-client success/failure counts (Table 1 ``client history``)."""
    open_by: dict[int, int] = {}
    for t in w.open.values():
        open_by[t.client] = open_by.get(t.client, 0) + 1
    rows = []
    for i, c in enumerate(w.clients):
        finished = c.succeeded + c.failed
        rows.append(
            {
                "client_name": c.name,
                "succeeded": c.succeeded,
                "failed": c.failed,
                "cancelled": c.cancelled,
                "open": open_by.get(i, 0),
                "success_rate": _r(c.succeeded / finished) if finished else None,
            }
        )
    return {"clients": rows}


def finance_ledger(w: YcWorld) -> dict[str, Any]:
    """Full transaction history (Table 1 ``finance ledger``)."""
    balance = w.ledger.start_cents
    rows = []
    for row, t in zip(w.ledger.rows, w.ledger_times, strict=True):
        balance += row.cents
        rows.append(
            {
                "time": w.cal.iso(t),
                "category": row.category,
                "amount_cents": row.cents,
                "balance_cents": balance,
                "note": row.note,
            }
        )
    return {"start_funds_cents": w.ledger.start_cents, "funds_cents": w.funds_cents, "transactions": rows}


def active_summary(w: YcWorld) -> list[dict[str, Any]]:
    """Open tasks in brief, for the per-turn status summary."""
    return [
        {
            "task_id": t.id,
            "status": t.status,
            "progress_pct": _r(100.0 * t.fraction, 1),
            "deadline": w.cal.iso(t.deadline),
            "business_hours_left": _r(w.business_hours_left(t), 2),
        }
        for _, t in sorted(w.open.items())
    ]
