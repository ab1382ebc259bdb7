"""YcEnv: presets, the per-turn status summary (section 3 "Observations"), result, pickling."""

from __future__ import annotations

import json
import pickle

from hypothesis import given
from hypothesis import strategies as st
from yc_helpers import greedy_year, inject, make_env, ok, set_rates, start

from bizbench.core.presets import list_presets
from bizbench.envs.yc.config import load_config
from bizbench.envs.yc.env import YcEnv, apply_ops, edit_ops


def test_presets_load_and_differ_where_documented() -> None:
    names = list_presets("bizbench.envs.yc")
    assert {"default", "reference", "all-contribute", "salary-compounding"} <= set(names)
    default, h = load_config("default")
    assert default.start_funds_dollars == 200_000 and default.workforce.count == 8
    assert default.market.size == 200 and default.clients.count == 6 and default.clients.adversarial_count == 2
    assert default.deadlines.fail_penalty_share == 0.35 and default.deadlines.cancel_prestige_factor == 1.5
    assert default.throughput.max_contributors == 4
    ref, h2 = load_config("reference")
    assert h != h2 and ref.workforce.off_tier_share == 0.0
    assert load_config("all-contribute")[0].throughput.max_contributors == 0


def test_from_preset_and_horizon_override() -> None:
    env = YcEnv.from_preset("default", seed=3, horizon_months=1)
    assert env.world.cal.iso(env.world.horizon) == "2025-02-01T00:00"
    assert env.world.payroll_schedule == []
    r = ok(env.call("sim_resume"))
    assert r["done"] and r["time"] == "2025-02-01T00:00"
    assert env.done and env.time == "2025-02-01T00:00"


def test_status_summary_reports_events_once() -> None:
    env = make_env()
    w = env.world
    set_rates(w, "training", [6.0] * 8)
    first = env.status_summary()
    assert first["time"] == "2025-01-01T09:00" and first["events_since_last_turn"] == []
    assert first["funds_cents"] == 20_000_000
    assert first["monthly_payroll_cents"] == sum(e.salary_cents for e in w.employees)
    assert first["runway_months"] == round(20_000_000 / first["monthly_payroll_cents"], 2)
    tid = inject(w, work=108)  # 6/h: 18 h, checkpoints every 4.5 h
    start(env, tid, ["Emp_1"])
    ok(env.call("sim_resume"))
    ok(env.call("sim_resume"))
    s = env.status_summary()
    assert [(e["type"], e["progress_pct"]) for e in s["events_since_last_turn"]] == [
        ("task_progress", 25),
        ("task_progress", 50),
    ]
    assert s["active_task_count"] == 1
    assert s["open_tasks"] == [
        {"task_id": tid, "status": "active", "progress_pct": 50.0, "deadline": "2025-01-09T18:00",
         "business_hours_left": 63.0 - 9.0},
    ]  # fmt: skip
    assert env.status_summary()["events_since_last_turn"] == []
    ok(env.call("sim_resume"))
    assert len(env.status_summary(consume=False)["events_since_last_turn"]) == 1
    assert len(env.status_summary()["events_since_last_turn"]) == 1
    json.dumps(s)


def test_result_and_pickle_round_trip() -> None:
    env = greedy_year(make_env(2))
    res = env.result(agent="greedy")
    assert res["env"] == "yc" and res["agent"] == "greedy" and res["seed"] == 2
    assert res["final_funds_cents"] == env.world.funds_cents
    assert res["final_funds"] == env.world.funds_cents / 100
    assert res["tasks_succeeded"] > 10 and res["done"]
    assert res["payrolls_paid"] == (11 if not res["bankrupt"] else res["payrolls_paid"])
    json.dumps(res)
    # cash always equals start funds plus the ledger
    assert env.world.funds_cents == 20_000_000 + sum(r.cents for r in env.world.ledger.rows)
    mid = make_env(4)
    for _ in range(30):
        ok(mid.call("sim_resume")) if mid.world.open else None
        t = ok(mid.call("market_browse", limit=1))["tasks"][0]["task_id"]
        if not mid.world.open:
            ok(mid.call("task_accept", task_id=t))
            ok(mid.call("task_assign", task_id=t, employees=["Emp_1", "Emp_2"]))
            ok(mid.call("task_dispatch", task_id=t))
    copy = pickle.loads(pickle.dumps(mid))
    assert copy.state_digest() == mid.state_digest()
    ok(copy.call("sim_resume"))
    ok(mid.call("sim_resume"))
    assert copy.state_digest() == mid.state_digest()


def test_tamper_is_logged_in_memory() -> None:
    env = make_env()
    env.call_tool("drop_tables", {})
    env.call("market_browse", reward_min_cents=-5)
    assert [t["kind"] for t in env.tamper] == ["unknown_tool", "negative_value"]
    assert env.result()["tamper_events"] == 2
    assert len(env.actions) == 2 and env.actions[0]["ok"] is False


_TEXT = st.text(alphabet="ab\n-x", max_size=300)


@given(old=_TEXT, head=st.integers(0, 300), tail=st.integers(0, 300), added=_TEXT, new=_TEXT)
def test_a_scratchpad_edit_rebuilds_the_new_notes_exactly(old: str, head: int, tail: int, added: str, new: str) -> None:
    """The host session's record of a write (``compact_args``) is exact for any old and new notes."""
    edited = old[head : len(old) - tail] + added
    for text in (new, edited, old + added, added + old):
        assert apply_ops(old, edit_ops(old, text)) == text


def test_the_compact_form_of_a_write_is_taken_against_the_pad_it_replaces() -> None:
    env = make_env()
    ok(env.call("scratchpad_write", content="a" * 1000 + "b"))
    delta = env.compact_args("scratchpad_write", {"content": "a" * 1000 + "bc"})
    assert delta == [[0, 1001], "c"]
    assert env.expand_args("scratchpad_write", delta) == {"content": "a" * 1000 + "bc"}
    assert env.compact_args("scratchpad_append", {"content": "c"}) is None  # already only the new text
    assert env.compact_args("scratchpad_write", {"content": 5}) is None  # refused as sent


def test_a_scratchpad_write_after_the_year_ends_is_refused_as_docs_yc_states() -> None:
    """docs/yc.md "After the year ends": every command that changes something is refused with the quoted
    error; the notes stay and `scratchpad read` still answers."""
    from pathlib import Path

    env = YcEnv.from_preset("default", seed=2, horizon_months=1)
    ok(env.call("scratchpad_write", content="kept"))
    while not env.done:
        ok(env.call("sim_resume"))
    message = "The simulation has ended; no further actions are accepted."
    assert message in (Path(__file__).parents[2] / "docs" / "yc.md").read_text()
    for name, args in (("scratchpad_write", {"content": "late"}), ("scratchpad_append", {"content": "!"})):
        refused = env.call(name, **args)
        assert not refused.ok and refused.error == message
    assert ok(env.call("scratchpad_read"))["content"] == "kept"


def test_a_new_world_starts_at_the_first_business_minute_with_nothing_done() -> None:
    """Day 1 is Wed 2025-01-01 09:00; the horizon 12 months later; the first payroll on the first business day of
    February (Mon 2025-02-03 09:00); $200,000 in the bank; every client's trust as of the start."""
    w = make_env(3).world
    cal = w.cal
    assert (cal.iso(w.start), cal.iso(w.now), cal.iso(w.settled_at)) == ("2025-01-01T09:00",) * 3
    assert cal.iso(w.horizon) == "2026-01-01T00:00"
    assert [(cal.iso(t), kind) for t, kind, *_ in w.queue.snapshot()] == [
        ("2025-02-03T09:00", 0),  # payroll
        ("2026-01-01T00:00", 3),  # horizon
    ]
    assert len(w.payroll_schedule) == 11 and cal.iso(w.payroll_schedule[-1]) == "2025-12-01T09:00"
    assert (w.funds_cents, w.min_funds_cents, w.ledger_times) == (20_000_000, 20_000_000, [])
    assert (w.resumes, w.payrolls_paid, w.scratchpad, w.log, w.rates, w.tasks, w.open) == (0, 0, "", [], {}, {}, {})
    assert w.bankrupt is False and w.done is False
    assert w.prestige == {d: 1.0 for d in ("training", "inference", "research", "data_engineering")}
    assert [c.trust_as_of for c in w.clients] == [w.start] * 6
    assert w.client_by_name == {c.name: i for i, c in enumerate(w.clients)}
    assert w.emp_by_id == {f"Emp_{i}": w.employees[i - 1] for i in range(1, 9)}
    assert (w.seed, w.streams.seed) == (3, 3)


def test_a_new_world_starts_at_its_presets_first_business_minute() -> None:
    """Workdays Thursday and Friday only: 2025-01-01 is a Wednesday, so day 1 is Thu 2025-01-02 at 09:00; a working
    day from midnight starts the world at 2025-01-01 00:00 itself."""
    thu_fri = make_env(3, clock__workdays=[3, 4]).world
    assert thu_fri.cal.iso(thu_fri.start) == "2025-01-02T09:00"
    midnight = make_env(3, clock__day_start_hour=0).world
    assert midnight.cal.iso(midnight.start) == "2025-01-01T00:00"


def test_a_worlds_roster_clients_and_market_come_from_their_named_streams() -> None:
    """docs/yc.md: every draw comes from a named stream; the module docstrings name them: ``employees`` for the
    roster, ``clients`` for the clients, ``market`` for the initial pool."""
    from bizbench.core.rng import stream_for
    from bizbench.envs.yc.world.clients import draw_clients
    from bizbench.envs.yc.world.employees import draw_employees
    from bizbench.envs.yc.world.market import draw_tasks

    w = make_env(5).world
    cfg = w.config
    assert w.employees == draw_employees(cfg.workforce, cfg.domains, stream_for(5, "employees"))
    clients = draw_clients(cfg.clients, cfg.trust, stream_for(5, "clients"))
    assert [(c.name, c.multiplier, c.adversarial) for c in w.clients] == [
        (c.name, c.multiplier, c.adversarial) for c in clients
    ]
    pool = draw_tasks(cfg, clients, stream_for(5, "market"), 200, 1)
    assert [w.market.tasks[t.num] for t in pool] == pool
