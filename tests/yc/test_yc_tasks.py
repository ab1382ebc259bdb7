"""Tasks: throughput split, checkpoints, deadlines, success and failure (section 3; Table 2 "Deadlines";
Appendix C "Throughput split"; ref top-4 rule).

The world starts Wed 2025-01-01 09:00. Employee Emp_i is given rate i in training, so
throughputs and times can be worked out by hand (540 business minutes a day).
"""

from __future__ import annotations

import numpy as np
import pytest
from yc_helpers import honest, inject, make_env, ok, set_rates, start

from bizbench.core.rng import stream_for
from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.world.events import HORIZON, Event
from bizbench.envs.yc.world.tasks import Task, minutes_to_reach, task_number

RATES = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
ALL = [f"Emp_{i}" for i in range(1, 9)]


def _env(**updates: object) -> YcEnv:
    env = make_env(**updates)  # type: ignore[arg-type]
    set_rates(env.world, "training", RATES)
    return env


def _rate(env: YcEnv, tid: str) -> float:
    return ok(env.call("task_inspect", task_id=tid))["throughput_per_hour"]


def test_throughput_split_across_concurrent_tasks() -> None:
    env = _env()
    a = inject(env.world, work=5000)
    b = inject(env.world, work=5000)
    start(env, a, ["Emp_1", "Emp_2", "Emp_3"])
    assert _rate(env, a) == 6.0  # 1 + 2 + 3
    start(env, b, ["Emp_3", "Emp_4"])
    assert _rate(env, a) == 4.5  # 1 + 2 + 3/2
    assert _rate(env, b) == 5.5  # 3/2 + 4
    # an accepted but undispatched task does not take a share
    c = inject(env.world, work=5000)
    ok(env.call("task_accept", task_id=c))
    ok(env.call("task_assign", task_id=c, employees=["Emp_1"]))
    assert _rate(env, a) == 4.5
    # reassigning an active task re-splits at once
    ok(env.call("task_assign", task_id=b, employees=["Emp_4"]))
    assert (_rate(env, a), _rate(env, b)) == (6.0, 4.0)


def test_top4_rule_and_all_contribute_preset() -> None:
    env = _env()
    t = inject(env.world, work=5000)
    start(env, t, ALL)
    assert _rate(env, t) == 26.0  # 8 + 7 + 6 + 5: only the 4 largest contributions count
    u = inject(env.world, work=5000)
    start(env, u, ["Emp_8"])
    # Emp_8 now gives 8/2 = 4 to each; t's top 4 of (1..7, 4) = 7 + 6 + 5 + 4
    assert (_rate(env, t), _rate(env, u)) == (22.0, 4.0)
    env2 = _env(throughput__max_contributors=0)
    t2 = inject(env2.world, work=5000)
    start(env2, t2, ALL)
    assert _rate(env2, t2) == 36.0


def _resume_until(env: YcEnv, kind: str) -> list[dict]:
    seen: list[dict] = []
    while not any(e["type"] == kind for e in seen):
        seen += ok(env.call("sim_resume"))["events"]
    return seen


def test_checkpoints_and_completion_times() -> None:
    """270 units at 6/h = 45 business hours: 25 % after 11.25 h, 50 % after 22.5 h, 75 % after 33.75 h."""
    env = _env()
    w = env.world
    tid = inject(w, work=270, reward_cents=1_234_500, delta=0.2)
    start(env, tid, ["Emp_1", "Emp_2", "Emp_3"])
    events = _resume_until(env, "task_completed")
    got = [(e["time"], e["type"], e.get("progress_pct")) for e in events]
    assert got == [
        ("2025-01-02T11:15", "task_progress", 25),  # Wed 540 + Thu 135 minutes
        ("2025-01-03T13:30", "task_progress", 50),  # 1350 minutes
        ("2025-01-06T15:45", "task_progress", 75),  # 2025 minutes, over the weekend
        ("2025-01-07T18:00", "task_completed", None),  # 2700 minutes = 5 business days
    ]
    done = events[-1]
    # deadline max(7, 270/150) = 7 business days -> Thu 2025-01-09 18:00; 2 business days = 18 h left
    assert done["deadline_margin_business_hours"] == 18.0
    assert done["reward_cents"] == 1_234_500
    assert w.funds_cents == 20_000_000 + 1_234_500
    assert w.ledger.rows[-1].category == "task_reward"
    assert w.prestige["training"] == pytest.approx(1.2)
    status = ok(env.call("task_inspect", task_id=tid))
    assert status["status"] == "succeeded" and status["progress_pct"] == 100.0


def test_progress_resplits_when_a_second_task_starts() -> None:
    env = _env()
    a = inject(env.world, work=270)
    start(env, a, ["Emp_1", "Emp_2", "Emp_3"])
    assert _resume_until(env, "task_progress")[-1]["time"] == "2025-01-02T11:15"  # 25 % = 67.5 units
    b = inject(env.world, work=5000)
    start(env, b, ["Emp_3", "Emp_4"])  # a drops to 4.5/h: 67.5 more units take 15 h = 900 minutes
    ev = _resume_until(env, "task_progress")
    assert [(e["time"], e["task_id"], e["progress_pct"]) for e in ev] == [("2025-01-03T17:15", a, 50)]


def test_deadline_failure_charges_35_percent_and_prestige() -> None:
    """540 units at 6/h need 90 h; the 7-day deadline (Thu 2025-01-09 18:00) allows 63 h: 70 % done."""
    env = _env()
    w = env.world
    w.prestige["training"] = 3.0
    tid = inject(w, work=540, reward_cents=1_000_000, delta=0.1)
    start(env, tid, ["Emp_1", "Emp_2", "Emp_3"])
    assert ok(env.call("task_inspect", task_id=tid))["deadline"] == "2025-01-09T18:00"
    events = _resume_until(env, "task_failed")
    failed = events[-1]
    assert failed["time"] == "2025-01-09T18:00"
    assert failed["penalty_cents"] == 350_000
    assert failed["progress_pct"] == 70.0
    assert failed["prestige_change"] == pytest.approx(-0.1)
    assert w.prestige["training"] == pytest.approx(2.9)
    assert w.funds_cents == 20_000_000 - 350_000
    assert w.ledger.rows[-1].category == "task_penalty"
    assert [e["progress_pct"] for e in events if e["type"] == "task_progress"] == [25, 50]  # 75 % needs 67.5 h
    history = {c["client_name"]: c for c in ok(env.call("client_history"))["clients"]}
    assert history[failed["client_name"]]["failed"] == 1


def test_long_task_deadline_is_qty_over_150_days() -> None:
    """1500 units: max(7, 1500/150) = 10 business days from Wed 09:00 -> Tue 2025-01-14 18:00."""
    env = _env()
    tid = inject(env.world, work=1500)
    data = ok(env.call("market_browse", limit=50))
    entry = next(t for t in data["tasks"] if t["task_id"] == tid)
    assert entry["deadline_business_days"] == 10.0
    ok(env.call("task_accept", task_id=tid))
    assert ok(env.call("task_inspect", task_id=tid))["deadline"] == "2025-01-14T18:00"


@pytest.mark.parametrize(
    ("task_id", "number"),
    [
        ("Task-42", 42),
        ("Task-007", 7),
        ("Task-123456789012", 123_456_789_012),  # twelve digits: the longest number taken
        ("Task-1234567890123", None),  # thirteen
        ("Task-", None),
        ("Task42", None),
        ("Job-42", None),
        ("task-42", None),
        ("Task-abc", None),
        ("Task-4-2", None),
        ("Task--42", None),
        ("Task-\u0664\u0662", None),  # Arabic-Indic digits: digits, but not ASCII
        ("Task-+42", None),
    ],
)
def test_a_task_number_is_read_only_from_task_dash_and_at_most_twelve_ascii_digits(
    task_id: str, number: int | None
) -> None:
    assert task_number(task_id) == number


def test_simultaneous_completions_are_ordered_by_task_number() -> None:
    """Two tasks finishing at the same minute are reported in task-number order, not acceptance order."""
    env = _env()
    w = env.world
    lo = inject(w, work=60)
    hi = inject(w, work=60)
    assert int(lo.split("-")[1]) < int(hi.split("-")[1])
    start(env, hi, ["Emp_2"])  # accepted first
    start(env, lo, ["Emp_2"])  # Emp_2 splits 2/h: both at 1/h, both done after 60 h
    ev = _resume_until(env, "task_completed")
    done = [e for e in ev if e["type"] == "task_completed"]
    assert [e["task_id"] for e in done] == [lo, hi]
    assert done[0]["time"] == done[1]["time"]


# ---------------------------------------------------------------------------------------- success, by hand
def _hand_roster(env: YcEnv) -> None:
    """Emp_1 a junior at $3,000 with training rate 4, Emp_2 a senior at $12,000 with rate 6 (together 10/h);
    the six others mid-level at $5,000. Tier midpoints (Table 2): junior $3,000, mid $7,000, senior $12,500."""
    for e in env.world.employees:
        e.tier, e.salary_cents = "mid", 500_000
    emp1, emp2 = env.world.employees[:2]
    emp1.tier, emp1.salary_cents, emp1.rates["training"] = "junior", 300_000, 4.0
    emp2.tier, emp2.salary_cents, emp2.rates["training"] = "senior", 1_200_000, 6.0


def test_a_completed_task_reports_its_reward_prestige_trust_margin_and_every_raise() -> None:
    """90 units at 4 + 6 = 10/h take 9 business hours: done Wed 2025-01-01 18:00. The deadline is 7 business
    days after acceptance (Thu 2025-01-09 18:00), 6 business days = 54 h later. With boost_sd 0 every boost is
    the mean, 12 %: 4 -> 4.48 and 6 -> 6.72. Raises are 1 % of the tier midpoint: $30 (junior), $125 (senior)."""
    env = make_env(workforce__boost_sd=0.0)
    w = env.world
    _hand_roster(env)
    c = honest(w)
    tid = inject(w, work=90, client=c, reward_cents=1_234_500, delta=0.25)
    start(env, tid, ["Emp_1", "Emp_2"])
    done = _resume_until(env, "task_completed")[-1]
    assert done == {
        "time": "2025-01-01T18:00",
        "type": "task_completed",
        "task_id": tid,
        "client_name": w.clients[c].name,
        "domain": "training",
        "reward_cents": 1_234_500,
        "funds_cents": 20_000_000 + 1_234_500,
        "prestige_change": 0.25,
        "prestige": 1.25,
        "trust": 1.6,  # from 0: 1.6 x (1 - 0/5)^1.5
        "deadline_margin_business_hours": 54.0,
        "salary_bumps": [
            {"employee_id": "Emp_1", "raise_cents": 3_000, "salary_cents": 303_000, "domain": "training", "rate": 4.48},
            {
                "employee_id": "Emp_2",
                "raise_cents": 12_500,
                "salary_cents": 1_212_500,
                "domain": "training",
                "rate": 6.72,
            },
        ],
        "monthly_payroll_cents": 303_000 + 1_212_500 + 6 * 500_000,
    }
    assert (w.emp_by_id["Emp_1"].rates["training"], w.emp_by_id["Emp_2"].rates["training"]) == (4.48, 6.72)
    assert w.payroll_cents == 4_515_500
    assert w.tasks[int(tid.split("-")[1])].next_cp == 4  # all four checkpoints (25/50/75/100 %) passed


def test_each_success_counts_for_its_client_and_its_employees_and_books_the_reward_with_a_note() -> None:
    """Two tasks in a row for one client, each 40 units for Emp_1 alone at 4/h (10 business hours)."""
    env = make_env(workforce__boost_sd=0.0)
    w = env.world
    _hand_roster(env)
    c = honest(w)
    name = w.clients[c].name
    tids = []
    for _ in range(2):
        tid = inject(w, work=40, client=c, reward_cents=500_000)
        start(env, tid, ["Emp_1"])
        _resume_until(env, "task_completed")
        tids.append(tid)
    row = next(r for r in ok(env.call("client_history"))["clients"] if r["client_name"] == name)
    assert (row["succeeded"], row["failed"], row["cancelled"], row["success_rate"]) == (2, 0, 0, 1.0)
    staff = {e["employee_id"]: e for e in ok(env.call("employee_list"))["employees"]}
    assert staff["Emp_1"]["tasks_succeeded"] == 2 and staff["Emp_2"]["tasks_succeeded"] == 0
    rewards = [r for r in ok(env.call("finance_ledger"))["transactions"] if r["category"] == "task_reward"]
    assert [(r["amount_cents"], r["note"]) for r in rewards] == [(500_000, f"{t} completed for {name}") for t in tids]


def test_success_boosts_are_drawn_from_the_seeds_boost_stream_one_per_assigned_employee() -> None:
    """docs: stream ``boost``, one draw per assigned employee per success, b ~ N(0.12, 0.06) clipped to
    [0.01, 0.40]; the rate becomes rate x (1 + b). The draws are the seed's own generator for that name."""
    env = make_env(seed=1)
    w = env.world
    set_rates(w, "training", [5.0] * 8)
    start(env, inject(w, work=90), ["Emp_1", "Emp_2"])
    _resume_until(env, "task_completed")
    rng = stream_for(1, "boost")
    expected = [round(5.0 * (1 + float(np.clip(rng.normal(0.12, 0.06), 0.01, 0.40))), 4) for _ in range(2)]
    assert expected[0] != expected[1]
    assert [w.emp_by_id[e].rates["training"] for e in ("Emp_1", "Emp_2")] == expected


def test_the_completion_event_rounds_prestige_and_trust_to_four_decimals() -> None:
    """delta 0.123456 from prestige 1: change 0.1235, prestige 1.1235. The client starts at trust 1.0 and
    asks 100 x (1 - 0.5 x 1/5) = 90 units, 9 hours at 10/h, while trust decays 0.009/day:
    1 - 0.009 x 540/1440 = 0.996625, then gains 1.6 (1 - 0.996625/5)^1.5 = 1.146316: 2.142941 -> 2.1429."""
    env = make_env(workforce__boost_sd=0.0)
    w = env.world
    _hand_roster(env)
    c = honest(w)
    w.clients[c].set_trust(w.now, 1.0, w.config.trust)
    start(env, inject(w, work=100, client=c, delta=0.123456), ["Emp_1", "Emp_2"])
    done = _resume_until(env, "task_completed")[-1]
    assert done["time"] == "2025-01-01T18:00"
    assert (done["prestige_change"], done["prestige"], done["trust"]) == (0.1235, 1.1235, 2.1429)


def test_the_deadline_margin_is_in_business_hours_to_two_decimals() -> None:
    """20 units at 5 + 7 = 12/h take 100 minutes: done Wed 2025-01-01 10:40. The deadline (7 business days) is
    Thu 2025-01-09 18:00: 440 minutes left that Wednesday + 6 x 540 = 3,680 minutes = 61.333 h -> 61.33."""
    env = _env()
    set_rates(env.world, "training", [5.0, 7.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    start(env, inject(env.world, work=20), ["Emp_1", "Emp_2"])
    done = _resume_until(env, "task_completed")[-1]
    assert (done["time"], done["deadline_margin_business_hours"]) == ("2025-01-01T10:40", 61.33)


# ---------------------------------------------------------------------------------------- failure, by hand
def test_a_failed_task_reports_its_penalty_progress_and_prestige_loss_by_hand() -> None:
    """541 units at 1 + 2 + 3 = 6/h; the deadline is max(7, 541/150) = 7 business days: Thu 2025-01-09 18:00,
    63 business hours, 378 units done: 378/541 = 69.87 % -> 69.9. Penalty 35 % of $12,345.67 = 432,098.45 cents
    -> 432,098. Prestige 3 loses delta 0.123456 -> -0.1235."""
    env = _env()
    w = env.world
    w.prestige["training"] = 3.0
    c = honest(w)
    tid = inject(w, work=541, client=c, reward_cents=1_234_567, delta=0.123456)
    start(env, tid, ["Emp_1", "Emp_2", "Emp_3"])
    events = _resume_until(env, "task_failed")
    assert [e["progress_pct"] for e in events if e["type"] == "task_progress"] == [25, 50]  # 75 % needs 67.6 h
    assert events[-1] == {
        "time": "2025-01-09T18:00",
        "type": "task_failed",
        "task_id": tid,
        "client_name": w.clients[c].name,
        "domain": "training",
        "was_dispatched": True,
        "progress_pct": 69.9,
        "penalty_cents": 432_098,
        "funds_cents": 20_000_000 - 432_098,
        "prestige_change": -0.1235,
    }
    assert w.prestige["training"] == pytest.approx(3.0 - 0.123456)
    assert ok(env.call("task_inspect", task_id=tid))["status"] == "failed"


def test_each_failure_counts_for_its_client_and_books_its_penalty_with_a_note() -> None:
    """Two tasks of one client accepted and never dispatched both fail at the same deadline."""
    env = _env()
    w = env.world
    c = honest(w)
    name = w.clients[c].name
    tids = [inject(w, work=100, client=c, reward_cents=200_000) for _ in range(2)]
    for tid in tids:
        ok(env.call("task_accept", task_id=tid))
    events = ok(env.call("sim_resume"))["events"]
    assert [(e["type"], e["task_id"], e["penalty_cents"]) for e in events] == [
        ("task_failed", tids[0], 70_000),
        ("task_failed", tids[1], 70_000),
    ]
    row = next(r for r in ok(env.call("client_history"))["clients"] if r["client_name"] == name)
    assert (row["succeeded"], row["failed"], row["cancelled"], row["open"], row["success_rate"]) == (0, 2, 0, 0, 0.0)
    penalties = [r for r in ok(env.call("finance_ledger"))["transactions"] if r["category"] == "task_penalty"]
    assert [(r["amount_cents"], r["note"]) for r in penalties] == [(-70_000, f"{t} missed its deadline") for t in tids]


def test_when_an_active_task_fails_the_employee_it_shared_works_whole_for_the_other_task() -> None:
    """a = Emp_1 + Emp_2 + Emp_3/2 = 4.5/h, b = Emp_3/2 + Emp_4 = 5.5/h. a (541 units) fails at its deadline,
    Thu 2025-01-09 18:00; from then on Emp_3 gives b all of his 3/h: 3 + 4 = 7/h."""
    env = _env()
    a = inject(env.world, work=541)
    b = inject(env.world, work=5000)
    start(env, a, ["Emp_1", "Emp_2", "Emp_3"])
    start(env, b, ["Emp_3", "Emp_4"])
    assert (_rate(env, a), _rate(env, b)) == (4.5, 5.5)
    failed = _resume_until(env, "task_failed")[-1]
    assert (failed["time"], failed["task_id"], failed["was_dispatched"]) == ("2025-01-09T18:00", a, True)
    assert _rate(env, b) == 7.0
    assert env.world.rates == {int(b.split("-")[1]): 7.0}
    # b's 25 % (1,250 units) had 63 h x 5.5 = 346.5 done: 903.5 more at 7/h = 129.07 h -> 7,745 minutes, 14 days
    # 185 minutes after Thu 18:00: Thu 2025-01-30 12:05
    nxt = ok(env.call("sim_resume"))["events"]
    assert [(e["time"], e["type"], e["task_id"]) for e in nxt] == [("2025-01-30T12:05", "task_progress", b)]


def test_a_task_whose_team_has_no_skill_in_its_domain_makes_no_progress_and_fails_at_its_deadline() -> None:
    """A zero rate schedules no checkpoint (it would never come): the next event is the deadline."""
    env = _env()
    set_rates(env.world, "training", [0.0] * 8)
    tid = inject(env.world, work=100, reward_cents=1_000_000)
    start(env, tid, ["Emp_1", "Emp_2"])
    assert _rate(env, tid) == 0.0
    events = ok(env.call("sim_resume"))["events"]
    assert [(e["time"], e["type"], e["progress_pct"], e["was_dispatched"]) for e in events] == [
        ("2025-01-09T18:00", "task_failed", 0.0, True)
    ]


def _at(done: float) -> Task:
    return Task(num=1, client=0, domain="training", required_prestige=1, required_trust=0, reward_cents=0,
                base_work=1000, prestige_delta=0.0, creep=1.0, true_work=1000.0, done=done)  # fmt: skip


def test_a_target_within_a_billionth_of_its_size_counts_as_reached() -> None:
    """minutes_to_reach treats a shortfall of at most 1e-9 x max(1, target) units as float noise (0 minutes);
    anything more takes at least one minute."""
    assert minutes_to_reach(_at(0.0), 1e-9, 6.0) == 0  # exactly 1e-9 short of a target below 1: reached
    assert minutes_to_reach(_at(0.0), 1.5e-9, 6.0) == 1  # 1.5e-9 short: not reached, the scale is 1, not 2
    assert minutes_to_reach(_at(1000.0 - 1e-7), 1000.0, 6.0) == 0  # 1e-7 short of 1,000: within 1e-6
    assert minutes_to_reach(_at(1000.0 - 1e-5), 1000.0, 6.0) == 1  # 1e-5 short: beyond it
    assert minutes_to_reach(_at(0.0), 6.0, 6.0) == 60  # an exact hour is not rounded up to 61
    assert minutes_to_reach(_at(0.0), 6.01, 6.0) == 61  # a hair more is


def test_throughputs_without_a_cap_counts_every_contribution() -> None:
    """The default (max_contributors 0) is no top-N rule: 1 + 2 + 3 + 4 + 5 = 15 units/hour for five employees."""
    from bizbench.envs.yc.world.tasks import throughputs

    w = _env().world
    task = _at(0.0)
    task.assigned = ["Emp_1", "Emp_2", "Emp_3", "Emp_4", "Emp_5"]
    assert throughputs([task], w.emp_by_id) == {1: 15.0}
    assert throughputs([task], w.emp_by_id, 4) == {1: 14.0}  # 5 + 4 + 3 + 2


def test_a_single_business_minute_of_work_is_credited_when_the_clock_moves_one_minute() -> None:
    env = _env()
    w = env.world
    tid = inject(w, work=5000)
    start(env, tid, ["Emp_6"])  # 6 units an hour, dispatched at 09:00
    w.queue.push(Event(w.now + 1, HORIZON))  # the next event one business minute later
    ok(env.call("sim_resume"))
    assert w.tasks[int(tid.split("-")[1])].done == 0.1  # 6 units/hour x 1/60 hour


def test_a_team_is_kept_in_employee_number_order_even_past_emp_9() -> None:
    env = make_env(workforce__count=12)
    tid = inject(env.world, work=5000)
    ok(env.call("task_accept", task_id=tid))
    ok(env.call("task_assign", task_id=tid, employees=["Emp_10", "Emp_2", "Emp_12", "Emp_1"]))
    assert env.world.tasks[int(tid.split("-")[1])].assigned == ["Emp_1", "Emp_2", "Emp_10", "Emp_12"]
