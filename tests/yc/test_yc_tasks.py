"""Tasks: throughput split, checkpoints, deadlines, success and failure (section 3; Table 2 "Deadlines";
Appendix C "Throughput split"; ref top-4 rule).

The world starts Wed 2025-01-01 09:00. Employee Emp_i is given rate i in training, so
throughputs and times can be worked out by hand (540 business minutes a day).
"""

from __future__ import annotations

import pytest
from yc_helpers import inject, make_env, ok, set_rates, start

from bizbench.envs.yc.env import YcEnv

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
