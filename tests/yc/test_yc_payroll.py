"""Monthly payroll (section 3 "Simulation Clock"; reference-notes "Clock": first business day of each month at 09:00,
the start month excluded, processed before other events at the same instant)."""

from __future__ import annotations

import pytest
from yc_helpers import inject, make_env, ok

from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.world.events import DEADLINE, PAYROLL, Event

EXPECTED_2025 = [
    "2025-02-03T09:00",  # Feb 1 is a Saturday
    "2025-03-03T09:00",  # Mar 1 is a Saturday
    "2025-04-01T09:00",
    "2025-05-01T09:00",
    "2025-06-02T09:00",  # Jun 1 is a Sunday
    "2025-07-01T09:00",
    "2025-08-01T09:00",
    "2025-09-01T09:00",
    "2025-10-01T09:00",
    "2025-11-03T09:00",  # Nov 1 is a Saturday
    "2025-12-01T09:00",
]


def test_eleven_payroll_dates_in_2025() -> None:
    w = make_env().world
    assert [w.cal.iso(t) for t in w.payroll_schedule] == EXPECTED_2025


def test_payroll_in_start_month_knob_charges_at_the_start() -> None:
    env = make_env(clock__payroll_in_start_month=True)
    w = env.world
    assert w.cal.iso(w.payroll_schedule[0]) == "2025-01-01T09:00"
    assert len(w.payroll_schedule) == 12
    assert w.payrolls_paid == 1  # charged at the very first instant
    assert w.funds_cents == 20_000_000 - w.payroll_cents


def test_idle_year_pays_each_payroll_with_the_salary_sum() -> None:
    env = make_env(start_funds_dollars=10_000_000)
    w = env.world
    salaries = sum(e.salary_cents for e in w.employees)
    times = []
    while not w.done:
        r = env.call("sim_resume")
        assert r.ok
        times += [e["time"] for e in r.data["events"] if e["type"] == "payroll"]
        for e in r.data["events"]:
            if e["type"] == "payroll":
                assert e["amount_cents"] == salaries
    assert times == EXPECTED_2025
    assert w.funds_cents == 1_000_000_000 - 11 * salaries
    payroll_rows = [r for r in w.ledger.rows if r.category == "payroll"]
    assert [r.cents for r in payroll_rows] == [-salaries] * 11


def test_payroll_bankruptcy_ends_the_run() -> None:
    env = make_env(start_funds_dollars=50_000)
    w = env.world
    assert w.payroll_cents > 2_500_000  # two payrolls exceed $50K for any roster (>= 4 juniors at $2K ...)
    while not w.done:
        env.call("sim_resume")
    assert w.bankrupt
    assert w.funds_cents < 0
    assert w.log[-1]["type"] == "bankrupt"
    assert w.log[-2]["type"] == "payroll"
    assert env.call("sim_resume").ok is False


def test_payroll_precedes_a_deadline_at_the_same_instant() -> None:
    """A deadline queued at the payroll instant is processed after the payroll (kind priority)."""
    env = make_env()
    w = env.world
    tid = env.call("market_browse", limit=1).data["tasks"][0]["task_id"]
    assert env.call("task_accept", task_id=tid).ok
    task = w.open[int(tid.split("-")[1])]
    payday = w.payroll_schedule[0]
    task.deadline = payday  # force the clash (deadlines are otherwise never at 09:00 sharp)
    w.queue.push(Event(payday, DEADLINE, task.num))
    events = []
    while not any(e["type"] == "payroll" for e in events):
        events = env.call("sim_resume").data["events"]
    assert [e["type"] for e in events] == ["payroll", "task_failed"]
    assert PAYROLL < DEADLINE


def _funds_of_30k_and_a_payroll_of(total_cents: int) -> YcEnv:
    """$30,000 of funds and salaries set by hand: every employee at $3,000 but the first, who
    takes the rest of ``total_cents``, so the first payroll (2025-02-03) charges exactly that."""
    env = make_env(start_funds_dollars=30_000)
    w = env.world
    for e in w.employees:
        e.salary_cents = 300_000
    w.employees[0].salary_cents = total_cents - 300_000 * (len(w.employees) - 1)
    assert w.funds_cents == 3_000_000 and w.payroll_cents == total_cents
    return env


def test_a_company_left_with_exactly_zero_funds_after_a_payroll_is_not_bankrupt() -> None:
    """Bankruptcy is funds *below* $0 after a payroll: $30,000 - $30,000 = $0 is not below."""
    env = _funds_of_30k_and_a_payroll_of(3_000_000)
    w = env.world
    events = ok(env.call("sim_resume"))["events"]
    assert [e["type"] for e in events] == ["payroll"]
    assert events[0]["time"] == "2025-02-03T09:00" and events[0]["funds_cents"] == 0
    assert w.funds_cents == 0 and not w.bankrupt and not w.done
    assert all(r["type"] != "bankrupt" for r in w.log)
    # the run goes on; the next payroll (2025-03-03) takes it to $0 - $30,000
    events = ok(env.call("sim_resume"))["events"]
    assert [e["type"] for e in events] == ["payroll", "bankrupt"]
    assert events[1] == {"time": "2025-03-03T09:00", "type": "bankrupt", "funds_cents": -3_000_000}


def test_a_company_one_cent_short_of_its_payroll_is_bankrupt() -> None:
    """$30,000 - $30,000.01 = -$0.01: below $0, so the payroll ends the run at once."""
    env = _funds_of_30k_and_a_payroll_of(3_000_001)
    w = env.world
    events = ok(env.call("sim_resume"))["events"]
    assert [e["type"] for e in events] == ["payroll", "bankrupt"]
    assert events[1] == {"time": "2025-02-03T09:00", "type": "bankrupt", "funds_cents": -1}
    assert w.funds_cents == -1 and w.bankrupt and w.done
    assert env.call("sim_resume").ok is False


def _undispatched_task_failing_with_a_penalty_of(env: YcEnv, penalty_cents: int) -> str:
    """A task left undispatched fails at its deadline, Thu 2025-01-09 18:00, before the first payroll; its reward
    is chosen so that 35 % of it rounds to ``penalty_cents``."""
    tid = inject(env.world, work=100, reward_cents=round(penalty_cents / 0.35))
    ok(env.call("task_accept", task_id=tid))
    return tid


def test_a_deadline_penalty_that_leaves_exactly_zero_funds_is_not_bankruptcy() -> None:
    """$3,500 of funds, a $10,000 task: 35 % = $3,500, $0 left, not below zero."""
    env = make_env(start_funds_dollars=3_500)
    tid = _undispatched_task_failing_with_a_penalty_of(env, 350_000)
    events = ok(env.call("sim_resume"))["events"]
    assert [(e["type"], e["task_id"], e["funds_cents"]) for e in events] == [("task_failed", tid, 0)]
    assert not env.world.bankrupt and not env.world.done
    assert ok(env.call("sim_resume"))["events"][0]["type"] == "payroll"


def test_a_deadline_penalty_one_cent_beyond_the_funds_is_bankruptcy() -> None:
    """$3,500 of funds, a $10,000.03 task: 35 % = 350,001.05 cents -> 350,001, one cent below zero."""
    env = make_env(start_funds_dollars=3_500)
    tid = _undispatched_task_failing_with_a_penalty_of(env, 350_001)
    assert env.world.tasks[int(tid.split("-")[1])].reward_cents == 1_000_003
    events = ok(env.call("sim_resume"))["events"]
    assert events == [
        {**events[0], "type": "task_failed", "penalty_cents": 350_001, "funds_cents": -1},
        {"time": "2025-01-09T18:00", "type": "bankrupt", "funds_cents": -1},
    ]
    assert env.world.bankrupt and env.world.done and env.world.log[-1]["type"] == "bankrupt"
    assert env.call("sim_resume").ok is False


@pytest.mark.parametrize(("reward_cents", "bankrupt"), [(1_000_000, False), (1_000_003, True)])
def test_a_cancel_fee_beyond_the_funds_is_bankruptcy_and_exactly_zero_is_not(reward_cents: int, bankrupt: bool) -> None:
    """$3,500 of funds; cancelling costs 35 % of the reward: $3,500 leaves $0, $3,500.01 leaves -$0.01."""
    env = make_env(start_funds_dollars=3_500)
    w = env.world
    tid = inject(w, work=100, reward_cents=reward_cents)
    ok(env.call("task_accept", task_id=tid))
    r = ok(env.call("task_cancel", task_id=tid, reason="x"))
    assert w.funds_cents == -r["fee_cents"] + 350_000 == (-1 if bankrupt else 0)
    assert (w.bankrupt, w.done) == (bankrupt, bankrupt)
    if bankrupt:
        assert [e["type"] for e in w.log[-2:]] == ["task_cancelled", "bankrupt"]
        assert w.log[-1] == {"time": "2025-01-01T09:00", "type": "bankrupt", "funds_cents": -1}
        assert not env.call("sim_resume").ok
    else:
        assert w.log[-1]["type"] == "task_cancelled"
        assert ok(env.call("sim_resume"))["events"][0]["type"] == "payroll"


def test_a_payroll_is_booked_with_a_note_naming_the_headcount() -> None:
    env = _funds_of_30k_and_a_payroll_of(2_500_000)
    ok(env.call("sim_resume"))
    rows = ok(env.call("finance_ledger"))["transactions"]
    assert [(r["time"], r["category"], r["amount_cents"], r["balance_cents"], r["note"]) for r in rows] == [
        ("2025-02-03T09:00", "payroll", -2_500_000, 500_000, "payroll for 8 employees")
    ]


def test_status_names_each_next_payroll_and_the_result_counts_every_resume_and_the_lowest_funds() -> None:
    env = make_env(start_funds_dollars=10_000_000)
    salaries = sum(e.salary_cents for e in env.world.employees)
    seen = []
    while not env.world.done:
        seen.append(ok(env.call("company_status"))["next_payroll"])
        last = ok(env.call("sim_resume"))["events"]
    # one resume per payroll (nothing else is queued), then the horizon with no payroll left
    assert seen == [*EXPECTED_2025, None]
    final = 1_000_000_000 - 11 * salaries
    assert last == [{"time": "2026-01-01T00:00", "type": "horizon_reached", "funds_cents": final}]
    result = env.result()
    assert (result["resumes"], result["payrolls_paid"], result["min_funds_cents"]) == (12, 11, final)


def test_an_eighteen_month_run_pays_on_into_the_next_year_and_stops_before_its_horizon() -> None:
    w = make_env(clock__horizon_months=18).world
    assert w.cal.iso(w.horizon) == "2026-07-01T00:00"
    assert [w.cal.iso(t) for t in w.payroll_schedule] == [
        *EXPECTED_2025,
        "2026-01-01T09:00",  # 2026-01-01 is a Thursday
        "2026-02-02T09:00",  # Feb 1 is a Sunday
        "2026-03-02T09:00",  # Mar 1 is a Sunday
        "2026-04-01T09:00",
        "2026-05-01T09:00",
        "2026-06-01T09:00",
    ]  # 2026-07-01T09:00 is past the horizon


def test_a_payroll_due_exactly_at_the_horizon_is_not_paid() -> None:
    w = make_env(clock__payroll_hour=0).world  # the 2026-01-01 (a Thursday) payroll falls at the horizon itself
    assert w.cal.iso(w.horizon) == "2026-01-01T00:00"
    assert [w.cal.iso(t) for t in w.payroll_schedule] == [t.replace("T09:00", "T00:00") for t in EXPECTED_2025]
