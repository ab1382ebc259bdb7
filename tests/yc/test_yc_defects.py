"""The reference implementation's known defects are absent (reference-notes "Known defects" 1, 2, 4; 3 is in
test_yc_determinism.py and 5 in test_yc_prompt.py).

World: Wed 2025-01-01 09:00; Emp_1..Emp_3 have training rates 1, 2, 3 (6 units/hour together).
"""

from __future__ import annotations

import pytest
from yc_helpers import adversary, honest, inject, make_env, ok, set_rates, start

from bizbench.envs.yc.env import YcEnv

TEAM = ["Emp_1", "Emp_2", "Emp_3"]


def _env() -> YcEnv:
    env = make_env()
    set_rates(env.world, "training", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    return env


def _listing(env: YcEnv, tid: str) -> dict:
    return next(t for t in ok(env.call("market_browse", limit=50))["tasks"] if t["task_id"] == tid)


# ---------------------------------------------------------------------------------------- defect 1
def test_scope_creep_is_invisible_on_accept() -> None:
    """Accepting an adversarial task shows the advertised requirement, exactly like an honest one."""
    env = _env()
    w = env.world
    adv = inject(w, work=270, client=adversary(w), creep=3.0, reward_cents=900_000)
    fair = inject(w, work=270, client=honest(w), creep=3.0, reward_cents=900_000)
    shown = {tid: _listing(env, tid) for tid in (adv, fair)}
    views = {}
    for tid in (adv, fair):
        accepted = ok(env.call("task_accept", task_id=tid))
        inspected = ok(env.call("task_inspect", task_id=tid))
        for view in (accepted, inspected):
            assert view["requirements"] == shown[tid]["requirements"] == {"training": 270}
            assert view["deadline_business_days"] == shown[tid]["deadline_business_days"]
            assert view["progress_pct"] == 0.0
        assert inspected["progress"] == {"training": {"required": 270, "completed": 0.0, "progress_pct": 0.0}}
        views[tid] = inspected
    # the two inspections differ only in id and client: nothing else tells them apart
    strip = ("task_id", "client_name")
    assert {k: v for k, v in views[adv].items() if k not in strip} == {
        k: v for k, v in views[fair].items() if k not in strip
    }


def test_scope_creep_reveals_itself_only_through_slow_progress() -> None:
    """270 advertised units, 810 real (3x): at 6/h the first checkpoint (25 % of 810 = 202.5 units) comes after
    33.75 h, Mon 2025-01-06 15:45, not after 11.25 h as 270 units would give."""
    env = _env()
    w = env.world
    tid = inject(w, work=270, client=adversary(w), creep=3.0)
    start(env, tid, TEAM)
    ev = ok(env.call("sim_resume"))["events"]
    assert [(e["time"], e["type"], e["progress_pct"]) for e in ev] == [("2025-01-06T15:45", "task_progress", 25)]
    view = ok(env.call("task_inspect", task_id=tid))
    assert view["requirements"] == {"training": 270}  # still the advertised value
    assert view["throughput_per_hour"] == 6.0
    # 33.75 business hours at 6/h "should" have done 202.5 of 270 units (75 %); the task shows 25 %
    assert view["progress"]["training"] == {"required": 270, "completed": 67.5, "progress_pct": 25.0}
    # it fails at its deadline (7 business days: Thu 2025-01-09 18:00) having done 63 h x 6 = 378 of 810 units
    events = []
    while not any(e["type"] == "task_failed" for e in events):
        events += ok(env.call("sim_resume"))["events"]
    failed = events[-1]
    assert (failed["time"], failed["progress_pct"]) == ("2025-01-09T18:00", 46.7)
    assert failed["penalty_cents"] == round(w.tasks[int(tid.split("-")[1])].reward_cents * 0.35)


@pytest.mark.parametrize("who", ["adversarial", "honest"])
def test_accepted_but_never_dispatched_fails_at_deadline_with_penalty(who: str) -> None:
    env = _env()
    w = env.world
    client = adversary(w) if who == "adversarial" else honest(w)
    tid = inject(w, work=270, client=client, reward_cents=1_000_000)
    ok(env.call("task_accept", task_id=tid))
    r = ok(env.call("sim_resume"))  # nothing is active: the next event is this task's deadline
    assert [(e["time"], e["type"], e["task_id"]) for e in r["events"]] == [("2025-01-09T18:00", "task_failed", tid)]
    assert r["events"][0]["penalty_cents"] == 350_000
    assert r["events"][0]["was_dispatched"] is False
    assert w.funds_cents == 20_000_000 - 350_000


# ---------------------------------------------------------------------------------------- defect 2
def test_resume_always_advances_even_with_nothing_active() -> None:
    env = make_env(start_funds_dollars=5_000_000)
    times = []
    while not env.done:
        r = ok(env.call("sim_resume"))
        assert r["time"] > r["previous_time"]
        times.append((r["time"], [e["type"] for e in r["events"]]))
    assert times[0] == ("2025-02-03T09:00", ["payroll"])
    assert len(times) == 12  # 11 payrolls, then the horizon
    assert times[-1] == ("2026-01-01T00:00", ["horizon_reached"])
    r = env.call("sim_resume")
    assert not r.ok and "ended" in r.error


def test_resume_after_a_completion_goes_to_the_next_payroll() -> None:
    env = _env()
    start(env, inject(env.world, work=60), TEAM)  # 10 h: done Thu 2025-01-02 10:00
    events = []
    while not any(e["type"] == "task_completed" for e in events):
        events = ok(env.call("sim_resume"))["events"]
    assert events[-1]["time"] == "2025-01-02T10:00"
    assert ok(env.call("sim_resume"))["time"] == "2025-02-03T09:00"


# ---------------------------------------------------------------------------------------- defect 4
def test_cancel_works_and_costs_prestige_and_the_fail_penalty() -> None:
    env = _env()
    w = env.world
    w.prestige["training"] = 3.0
    a = inject(w, work=5000, delta=0.2, reward_cents=2_000_000)
    b = inject(w, work=5000)
    start(env, a, TEAM)
    start(env, b, ["Emp_3"])  # Emp_3 split: a = 1 + 2 + 1.5, b = 1.5
    ok(env.call("sim_resume"))  # the first event is the Feb payroll (a's 25 % needs 278 h at 4.5/h)
    funds = w.funds_cents
    r = ok(env.call("task_cancel", task_id=a, reason="too slow"))
    assert r["prestige_change"] == pytest.approx(-0.3)  # 1.5 x delta (Table 2)
    assert w.prestige["training"] == pytest.approx(2.7)
    # and the 35 % fail penalty: a free cancel at the prestige floor would be a free re-roll (issue 4)
    assert r["fee_cents"] == 700_000 and w.funds_cents == funds - 700_000
    assert ok(env.call("task_inspect", task_id=b))["throughput_per_hour"] == 3.0  # Emp_3 is whole again
    assert ok(env.call("task_inspect", task_id=a))["status"] == "cancelled"
    assert ok(env.call("task_inspect", task_id=a))["cancel_reason"] == "too slow"
    hist = {c["client_name"]: c for c in ok(env.call("client_history"))["clients"]}
    assert hist[w.clients[honest(w)].name]["cancelled"] == 1
    # its deadline no longer fires, nothing more is charged for it
    while not env.done:
        for e in ok(env.call("sim_resume"))["events"]:
            assert e.get("task_id") != a
    # a second cancel is refused and changes nothing
    env2 = _env()
    t = inject(env2.world, work=100)
    ok(env2.call("task_accept", task_id=t))
    ok(env2.call("task_cancel", task_id=t, reason="changed my mind"))  # an undispatched task can be cancelled
    digest = env2.state_digest()
    again = env2.call("task_cancel", task_id=t, reason="again")
    assert not again.ok and "cancelled" in again.error
    assert env2.state_digest() == digest


def test_cancel_fee_knob() -> None:
    env = make_env(deadlines__cancel_fee_share=0.35)
    w = env.world
    t = inject(w, work=100, reward_cents=1_000_000)
    ok(env.call("task_accept", task_id=t))
    r = ok(env.call("task_cancel", task_id=t, reason="x"))
    assert r["fee_cents"] == 350_000 and w.funds_cents == 20_000_000 - 350_000
    assert w.ledger.rows[-1].category == "cancel_fee"


def test_accept_and_cancel_is_no_free_reroll() -> None:
    """At prestige 1 (the floor) the prestige loss is clamped to 0; the fee still makes a re-roll cost."""
    env = _env()
    w = env.world
    tid = ok(env.call("market_browse", limit=1))["tasks"][0]["task_id"]
    reward = ok(env.call("task_inspect", task_id=tid))["reward_cents"]
    funds = w.funds_cents
    ok(env.call("task_accept", task_id=tid))
    ok(env.call("task_cancel", task_id=tid, reason="re-roll"))
    assert w.funds_cents == funds - round(0.35 * reward)


def test_a_cancel_reports_and_logs_its_record_and_books_its_fee_with_a_note_by_hand() -> None:
    """Prestige 3, delta 0.123456: the loss is 1.5 x 0.123456 = 0.185184 -> -0.1852. The fee is 35 % of
    $12,345.67 = 432,098.45 cents -> 432,098. Two cancels for one client count twice."""
    env = _env()
    w = env.world
    w.prestige["training"] = 3.0
    c = honest(w)
    name = w.clients[c].name
    a = inject(w, work=5000, client=c, reward_cents=1_234_567, delta=0.123456)
    b = inject(w, work=100, client=c, reward_cents=200_000, delta=0.0)
    start(env, a, TEAM)
    ok(env.call("task_accept", task_id=b))
    r = ok(env.call("task_cancel", task_id=a, reason="too slow"))
    record = {
        "time": "2025-01-01T09:00",
        "type": "task_cancelled",
        "task_id": a,
        "client_name": name,
        "prestige_change": -0.1852,
        "fee_cents": 432_098,
        "reason": "too slow",
    }
    assert w.log[-1] == record
    assert {k: r[k] for k in record} == record
    ok(env.call("task_cancel", task_id=b, reason="no time"))
    assert w.log[-1]["fee_cents"] == 70_000 and w.log[-1]["reason"] == "no time"
    row = next(x for x in ok(env.call("client_history"))["clients"] if x["client_name"] == name)
    assert (row["succeeded"], row["failed"], row["cancelled"], row["open"]) == (0, 0, 2, 0)
    fees = [x for x in ok(env.call("finance_ledger"))["transactions"] if x["category"] == "cancel_fee"]
    assert [(x["amount_cents"], x["note"]) for x in fees] == [(-432_098, f"{a} cancelled"), (-70_000, f"{b} cancelled")]
    assert w.funds_cents == 20_000_000 - 432_098 - 70_000
