"""The YC-Bench world: state plus the actions and the event loop that change it.

Paper section 3 (the POMDP: deterministic transitions, time advances only on ``sim
resume``); the mechanics live in the sibling modules, one per mechanic. The world is pure:
no I/O, no clock reads, randomness only from named streams of the seed (docs/principles.md principles
2 and 4). Hidden quantities (which clients are adversarial, scope-creep factors, true work)
live here and are never returned by the agent-facing views (``views.py``).

Invalid actions raise :class:`~bizbench.core.registry.ToolError` before changing anything.

Streams: ``employees``, ``clients``, ``market`` (the world, fixed at construction),
``market_replacement`` (the k-th replacement task is the same whenever it is drawn) and
``boost`` (productivity boosts, one draw per assigned employee per success).
"""

from __future__ import annotations

from typing import Any

from bizbench.core.ledger import Ledger
from bizbench.core.registry import ToolError
from bizbench.core.rng import RngStreams
from bizbench.envs.yc.config import YcConfig
from bizbench.envs.yc.world import clients as clients_mod
from bizbench.envs.yc.world.clock import MINUTES_PER_DAY, Calendar
from bizbench.envs.yc.world.employees import Employee, boost_rate, draw_employees, salary_bump_cents
from bizbench.envs.yc.world.events import CHECKPOINT, DEADLINE, HORIZON, PAYROLL, Event, EventQueue
from bizbench.envs.yc.world.market import Market
from bizbench.envs.yc.world.payroll import monthly_payroll_cents, payroll_times
from bizbench.envs.yc.world.prestige import adjust, initial_prestige, meets
from bizbench.envs.yc.world.tasks import (
    ACCEPTED,
    ACTIVE,
    CANCELLED,
    FAILED,
    MARKET,
    OPEN,
    SUCCEEDED,
    Task,
    checkpoint_work,
    deadline_days,
    deadline_minutes,
    minutes_to_reach,
    task_number,
    throughputs,
)

__all__ = ["YcWorld"]

_COMPACT_AT = 4096  # heap entries before stale checkpoint predictions are dropped


class YcWorld:
    """One seeded company: employees, clients, market, accepted tasks, ledger, clock."""

    def __init__(self, config: YcConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.streams = RngStreams(seed)
        ck = config.clock
        self.cal = Calendar(ck.start_date, ck.day_start_hour * 60, ck.day_end_hour * 60, tuple(ck.workdays))
        self.start = self.cal.first_business_instant(0)
        self.horizon = self.cal.add_months(ck.horizon_months)
        self.now = self.start
        self.employees: list[Employee] = draw_employees(config.workforce, config.domains, self.streams["employees"])
        self.emp_by_id = {e.id: e for e in self.employees}
        self.clients = clients_mod.draw_clients(config.clients, config.trust, self.streams["clients"])
        for c in self.clients:
            c.trust_as_of = self.start
        self.client_by_name = {c.name: i for i, c in enumerate(self.clients)}
        self.market = Market.initial(config, self.clients, self.streams["market"])
        self.tasks: dict[int, Task] = {}  # every accepted task, by number
        self.open: dict[int, Task] = {}  # accepted or active
        self.prestige = initial_prestige(config.domains, config.prestige)
        self.ledger = Ledger(config.start_funds_cents)
        self.ledger_times: list[int] = []  # minute of each ledger row
        self.scratchpad = ""
        self.log: list[dict[str, Any]] = []  # agent-visible events, in order
        self.rates: dict[int, float] = {}  # units/hour of each active task
        self.settled_at = self.now
        self.bankrupt = False
        self.done = False
        self.resumes = 0
        self.payrolls_paid = 0
        self.min_funds_cents = self.ledger.balance_cents
        self.payroll_schedule = payroll_times(self.cal, ck, self.start, self.horizon)
        self.queue = EventQueue()
        if self.payroll_schedule:
            self.queue.push(Event(self.payroll_schedule[0], PAYROLL))
        self.queue.push(Event(self.horizon, HORIZON))
        # A payroll due at the very first instant (payroll_in_start_month) is charged at once.
        self._process_due(self.now, [])

    # ================================================================== queries
    @property
    def funds_cents(self) -> int:
        return self.ledger.balance_cents

    @property
    def payroll_cents(self) -> int:
        return monthly_payroll_cents(self.employees)

    def trust(self, client: int) -> float:
        return self.clients[client].trust(self.now, self.config.trust)

    def advertised_work(self, task: Task) -> int:
        """The requirement a task shows: base work cut by the client's current trust (frozen on accept)."""
        if task.status != MARKET:
            return task.required
        factor = clients_mod.work_factor(self.trust(task.client), self.config.trust)
        return max(1, int(round(task.base_work * factor)))

    def deadline_days(self, qty: float) -> float:
        """max(7, qty / 150) business days (Table 2)."""
        return deadline_days(qty, self.config.deadlines)

    def acceptable(self, task: Task, trusts: list[float] | None = None) -> bool:
        """Whether the company may accept a market task now (prestige and trust gates)."""
        if not meets(self.prestige, task.domain, task.required_prestige):
            return False
        if task.required_trust:
            t = trusts[task.client] if trusts is not None else self.trust(task.client)
            return t + 1e-9 >= task.required_trust
        return True

    def next_payroll(self) -> int | None:
        """Instant of the next payroll, None if none is left before the horizon."""
        i = self.payrolls_paid
        return self.payroll_schedule[i] if i < len(self.payroll_schedule) else None

    def lookup(self, task_id: str, arg: str = "task_id") -> Task:
        """An accepted task or a market task by id; ToolError naming the argument otherwise."""
        num = task_number(task_id) if isinstance(task_id, str) else None
        if num is None:
            raise ToolError(f"argument '{arg}': expected a task id of the form 'Task-<number>', got {task_id!r}")
        task = self.tasks.get(num) or self.market.tasks.get(num)
        if task is None:
            raise ToolError(
                f"argument '{arg}': no task {task_id!r} in the market or among your tasks "
                "(see 'market browse' and 'task list')"
            )
        return task

    # ================================================================== actions
    def _require_running(self) -> None:
        if self.done:
            raise ToolError("The simulation has ended; no further actions are accepted.")

    def accept(self, task_id: str) -> Task:
        """Accept a market task: freeze its requirement, start its deadline, list a replacement."""
        self._require_running()
        task = self.lookup(task_id)
        if task.status != MARKET:
            raise ToolError(f"argument 'task_id': {task.id} is already accepted (status {task.status})")
        if not meets(self.prestige, task.domain, task.required_prestige):
            have = self.prestige[task.domain]
            raise ToolError(
                f"argument 'task_id': {task.id} requires prestige {task.required_prestige} in {task.domain}; "
                f"yours is {have:.3f}"
            )
        client = self.clients[task.client]
        trust = client.trust(self.now, self.config.trust)
        if task.required_trust and trust + 1e-9 < task.required_trust:
            raise ToolError(
                f"argument 'task_id': {task.id} requires trust {task.required_trust} with {client.name}; "
                f"yours is {trust:.3f}"
            )
        task.required = self.advertised_work(task)
        task.true_work = float(task.required) * (task.creep if client.adversarial else 1.0)
        task.accepted_at = self.now
        task.deadline = self.cal.add_business_minutes(
            self.now, deadline_minutes(task.required, self.cal, self.config.deadlines)
        )
        self.market.remove(task.num)
        task.status = ACCEPTED
        self.tasks[task.num] = task
        self.open[task.num] = task
        self.market.replace(self.config, self.clients, self.streams["market_replacement"])
        self.queue.push(Event(task.deadline, DEADLINE, task.num))
        return task

    def _open_task(self, task_id: str) -> Task:
        task = self.lookup(task_id)
        if task.status == MARKET:
            raise ToolError(f"argument 'task_id': {task.id} is not accepted yet; run 'task accept' first")
        if task.status not in OPEN:
            raise ToolError(f"argument 'task_id': {task.id} is {task.status}; only accepted or active tasks qualify")
        return task

    def assign(self, task_id: str, employee_ids: list[str]) -> Task:
        """Set the employees working on an accepted or active task (replaces the previous set)."""
        self._require_running()
        task = self._open_task(task_id)
        if not employee_ids:
            raise ToolError("argument 'employees': give at least one employee id (e.g. ['Emp_1', 'Emp_4'])")
        seen: set[str] = set()
        for e in employee_ids:
            if e not in self.emp_by_id:
                allowed = ", ".join(emp.id for emp in self.employees)
                raise ToolError(f"argument 'employees': unknown employee {e!r} (allowed: {allowed})")
            if e in seen:
                raise ToolError(f"argument 'employees': {e!r} is listed twice")
            seen.add(e)
        task.assigned = sorted(employee_ids, key=lambda e: self.emp_by_id[e].number)
        if task.status == ACTIVE:
            self._rates_changed()
        return task

    def dispatch(self, task_id: str) -> Task:
        """Start work on an accepted task that has employees assigned."""
        self._require_running()
        task = self._open_task(task_id)
        if task.status == ACTIVE:
            raise ToolError(f"argument 'task_id': {task.id} is already active")
        if not task.assigned:
            raise ToolError(f"argument 'task_id': {task.id} has no employees; run 'task assign' first")
        task.status = ACTIVE
        task.dispatched_at = self.now
        self._rates_changed()
        return task

    def cancel(self, task_id: str, reason: str) -> dict[str, Any]:
        """Abandon an accepted or active task: prestige loss 1.5 x delta (Table 2), no reward, and the
        preset's cancel fee (a share of the advertised reward; 35 % in the default)."""
        self._require_running()
        task = self._open_task(task_id)
        was_active = task.status == ACTIVE
        d = self.config.deadlines
        task.status = CANCELLED
        task.finished_at = self.now
        task.cancel_reason = reason
        del self.open[task.num]
        change = adjust(
            self.prestige, task.domain, -d.cancel_prestige_factor * task.prestige_delta, self.config.prestige
        )
        fee = int(round(task.reward_cents * d.cancel_fee_share))
        if fee:
            self._post("cancel_fee", -fee, f"{task.id} cancelled")
        client = self.clients[task.client]
        client.cancelled += 1
        record = {
            "time": self.cal.iso(self.now),
            "type": "task_cancelled",
            "task_id": task.id,
            "client_name": client.name,
            "prestige_change": round(change, 4),
            "fee_cents": fee,
            "reason": reason,
        }
        self.log.append(record)
        if was_active:
            self._rates_changed()
        self._check_bankrupt([])
        return record

    def write_scratchpad(self, content: str, append: bool = False) -> str:
        text = self.scratchpad + content if append else content
        limit = self.config.scratchpad_max_chars
        if len(text) > limit:
            raise ToolError(
                f"argument 'content': the scratchpad would hold {len(text):,} characters; the limit is {limit:,}"
                + (" (write a shorter version instead of appending)" if append else "")
            )
        self.scratchpad = text
        return text

    # ================================================================== time
    def resume(self) -> list[dict[str, Any]]:
        """Advance to the next event and process every event at that instant; returns their records.

        Always moves the clock forward (reference-notes "Known defects" 2): the horizon event is queued
        until the end, so with nothing active the clock jumps to the next payroll, deadline
        or the horizon."""
        self._require_running()
        records = self.run_until(self.next_event_time())
        self.resumes += 1
        return records

    def next_event_time(self) -> int:
        """The instant of the next valid event (the horizon is always queued until the end)."""
        ev = self.queue.peek_valid(self._valid)
        assert ev is not None and ev.time > self.now, "events due now are processed before control returns"
        return ev.time

    def run_until(self, t: int) -> list[dict[str, Any]]:
        """Move the clock to ``t`` (no later than :meth:`next_event_time`) and process every event
        due then; returns their records. An arena (docs/arena.md) moves rival companies to the
        earliest of their next events this way."""
        records: list[dict[str, Any]] = []
        self._advance_to(t)
        self._process_due(t, records)
        if len(self.queue) > _COMPACT_AT:
            self.queue.compact(self._valid)
        return records

    def _process_due(self, t: int, records: list[dict[str, Any]]) -> None:
        while not self.done:
            ev = self.queue.peek_valid(self._valid)
            if ev is None or ev.time > t:
                break
            self.queue.pop_valid(self._valid)
            self._process(ev, records)

    def _advance_to(self, t: int) -> None:
        """Move the clock to ``t``, crediting work done by active tasks in the business minutes between."""
        bm = self.cal.business_minutes_between(self.settled_at, t)
        if bm > 0:
            for num, rate in self.rates.items():
                task = self.open[num]
                task.done = min(task.true_work, task.done + rate * bm / 60.0)
        self.settled_at = t
        self.now = t

    def _valid(self, ev: Event) -> bool:
        if ev.kind == CHECKPOINT:
            task = self.open.get(ev.ref)
            return task is not None and task.status == ACTIVE and task.version == ev.version and task.next_cp == ev.sub
        if ev.kind == DEADLINE:
            task = self.open.get(ev.ref)
            return task is not None and task.deadline == ev.time
        return True

    def _process(self, ev: Event, records: list[dict[str, Any]]) -> None:
        if ev.kind == PAYROLL:
            self._payroll(records)
        elif ev.kind == CHECKPOINT:
            self._checkpoint(self.open[ev.ref], records)
        elif ev.kind == DEADLINE:
            self._fail(self.open[ev.ref], records)
        else:
            self.done = True
            self._emit(records, {"type": "horizon_reached", "funds_cents": self.funds_cents})

    def _emit(self, records: list[dict[str, Any]], record: dict[str, Any]) -> None:
        record = {"time": self.cal.iso(self.now), **record}
        records.append(record)
        self.log.append(record)

    def _post(self, category: str, cents: int, note: str) -> None:
        self.ledger.post(self.now // MINUTES_PER_DAY, category, cents, note)
        self.ledger_times.append(self.now)
        self.min_funds_cents = min(self.min_funds_cents, self.ledger.balance_cents)

    def _check_bankrupt(self, records: list[dict[str, Any]]) -> None:
        if self.funds_cents < 0 and not self.bankrupt:
            self.bankrupt = True
            self.done = True
            record = {"time": self.cal.iso(self.now), "type": "bankrupt", "funds_cents": self.funds_cents}
            records.append(record)
            self.log.append(record)

    # ------------------------------------------------------------------ event handlers
    def _payroll(self, records: list[dict[str, Any]]) -> None:
        amount = self.payroll_cents
        self._post("payroll", -amount, f"payroll for {len(self.employees)} employees")
        self.payrolls_paid += 1
        if self.payrolls_paid < len(self.payroll_schedule):
            self.queue.push(Event(self.payroll_schedule[self.payrolls_paid], PAYROLL))
        self._emit(records, {"type": "payroll", "amount_cents": amount, "funds_cents": self.funds_cents})
        self._check_bankrupt(records)

    def _checkpoint(self, task: Task, records: list[dict[str, Any]]) -> None:
        pct = self.config.checkpoints_pct[task.next_cp]
        task.done = max(task.done, checkpoint_work(task, pct))
        if pct >= 100:
            self._succeed(task, records)
            return
        task.next_cp += 1
        self._emit(records, {"type": "task_progress", "task_id": task.id, "progress_pct": pct})
        self._schedule(task)

    def _succeed(self, task: Task, records: list[dict[str, Any]]) -> None:
        cfg = self.config
        task.done = task.true_work
        task.status = SUCCEEDED
        task.finished_at = self.now
        task.next_cp = len(cfg.checkpoints_pct)
        del self.open[task.num]
        client = self.clients[task.client]
        client.succeeded += 1
        self._post("task_reward", task.reward_cents, f"{task.id} completed for {client.name}")
        change = adjust(self.prestige, task.domain, task.prestige_delta, cfg.prestige)
        _, trust_after = clients_mod.on_success(self.clients, task.client, self.now, cfg.trust)
        bumps = []
        rng = self.streams["boost"]
        for eid in task.assigned:
            emp = self.emp_by_id[eid]
            new_rate, _ = boost_rate(emp.rates[task.domain], cfg.workforce, rng)
            emp.rates[task.domain] = new_rate
            raise_cents = salary_bump_cents(emp, cfg.workforce.tiers, cfg.workforce)
            emp.salary_cents += raise_cents
            emp.tasks_succeeded += 1
            bumps.append(
                {
                    "employee_id": eid,
                    "raise_cents": raise_cents,
                    "salary_cents": emp.salary_cents,
                    "domain": task.domain,
                    "rate": new_rate,
                }
            )
        margin = self.cal.business_minutes_between(self.now, task.deadline)
        self._emit(
            records,
            {
                "type": "task_completed",
                "task_id": task.id,
                "client_name": client.name,
                "domain": task.domain,
                "reward_cents": task.reward_cents,
                "funds_cents": self.funds_cents,
                "prestige_change": round(change, 4),
                "prestige": round(self.prestige[task.domain], 4),
                "trust": round(trust_after, 4),
                "deadline_margin_business_hours": round(margin / 60, 2),
                "salary_bumps": bumps,
                "monthly_payroll_cents": self.payroll_cents,
            },
        )
        self._rates_changed()

    def _fail(self, task: Task, records: list[dict[str, Any]]) -> None:
        cfg = self.config
        was_active = task.status == ACTIVE
        task.status = FAILED
        task.finished_at = self.now
        del self.open[task.num]
        client = self.clients[task.client]
        client.failed += 1
        penalty = int(round(task.reward_cents * cfg.deadlines.fail_penalty_share))
        if penalty:
            self._post("task_penalty", -penalty, f"{task.id} missed its deadline")
        change = adjust(
            self.prestige, task.domain, -cfg.deadlines.fail_prestige_factor * task.prestige_delta, cfg.prestige
        )
        clients_mod.on_failure(client, self.now, cfg.trust)
        self._emit(
            records,
            {
                "type": "task_failed",
                "task_id": task.id,
                "client_name": client.name,
                "domain": task.domain,
                "was_dispatched": was_active or task.dispatched_at >= 0,
                "progress_pct": round(100 * task.fraction, 1),
                "penalty_cents": penalty,
                "funds_cents": self.funds_cents,
                "prestige_change": round(change, 4),
            },
        )
        if was_active:
            self._rates_changed()
        self._check_bankrupt(records)

    # ------------------------------------------------------------------ throughput
    def _rates_changed(self) -> None:
        """Recompute every active task's throughput and reschedule its next checkpoint."""
        assert self.settled_at == self.now
        active = [t for t in self.open.values() if t.status == ACTIVE]
        self.rates = throughputs(active, self.emp_by_id, self.config.throughput.max_contributors)
        for task in active:
            task.version += 1
            self._schedule(task)

    def _schedule(self, task: Task) -> None:
        rate = self.rates.get(task.num, 0.0)
        cps = self.config.checkpoints_pct
        if rate <= 0 or task.next_cp >= len(cps):
            return
        minutes = minutes_to_reach(task, checkpoint_work(task, cps[task.next_cp]), rate)
        t = self.cal.add_business_minutes(self.now, minutes)
        self.queue.push(Event(t, CHECKPOINT, task.num, task.next_cp, task.version))

    # ================================================================== digest
    def snapshot(self) -> dict[str, Any]:
        """Everything that defines the state (hidden parts included), JSON-able, in a stable order."""

        def task_state(t: Task) -> list[Any]:
            return [
                t.num, t.client, t.domain, t.required_prestige, t.required_trust, t.reward_cents, t.base_work,
                t.prestige_delta, t.creep, t.status, t.accepted_at, t.deadline, t.required, t.true_work, t.done,
                list(t.assigned), t.next_cp, t.version, t.dispatched_at, t.finished_at, t.cancel_reason,
            ]  # fmt: skip

        return {
            "seed": self.seed,
            "now": self.now,
            "settled_at": self.settled_at,
            "funds_cents": self.funds_cents,
            "ledger": [list(r) for r in self.ledger.rows],
            "ledger_times": list(self.ledger_times),
            "prestige": dict(self.prestige),
            "employees": [
                [e.id, e.name, e.tier, e.salary_cents, dict(e.rates), e.tasks_succeeded] for e in self.employees
            ],
            "clients": [
                [c.name, c.multiplier, c.adversarial, c.trust_value, c.trust_as_of, c.succeeded, c.failed, c.cancelled]
                for c in self.clients
            ],
            "market": [task_state(t) for t in self.market.ordered()],
            "market_next": self.market.next_num,
            "pending": [task_state(t) for t in self.market.pending],
            "tasks": [task_state(t) for _, t in sorted(self.tasks.items())],
            "rates": sorted(self.rates.items()),
            "queue": self.queue.snapshot(),
            "scratchpad": self.scratchpad,
            "log": self.log,
            "bankrupt": self.bankrupt,
            "done": self.done,
            "resumes": self.resumes,
            "payrolls_paid": self.payrolls_paid,
            "streams": self.streams.get_state(),
        }

    def business_hours_left(self, task: Task) -> float:
        """Business hours from now to the task's deadline (0 once passed)."""
        return self.cal.business_minutes_between(self.now, task.deadline) / 60.0
