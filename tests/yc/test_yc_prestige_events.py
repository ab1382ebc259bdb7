"""Prestige (Table 2 "Prestige [1, 10], decay 0"; "Cancel penalty 1.5 x delta") and the event order
(reference-notes "Known defects" 3: a total order by (time, kind priority, task number))."""

from __future__ import annotations

import heapq

import pytest
from yc_helpers import make_env

from bizbench.envs.yc.config import load_config
from bizbench.envs.yc.world.events import CHECKPOINT, DEADLINE, HORIZON, PAYROLL, Event, EventQueue
from bizbench.envs.yc.world.prestige import adjust, initial_prestige, meets

P = load_config("default")[0].prestige


def test_prestige_gain_loss_and_clipping() -> None:
    p = initial_prestige(("training", "research"), P)
    assert p == {"training": 1.0, "research": 1.0}
    assert adjust(p, "training", 0.25, P) == pytest.approx(0.25)
    assert adjust(p, "training", -1.5 * 0.1, P) == pytest.approx(-0.15)
    assert p["training"] == pytest.approx(1.1)
    assert adjust(p, "research", -0.3, P) == 0.0  # floor 1
    p["research"] = 9.9
    assert adjust(p, "research", 0.3, P) == pytest.approx(0.1)  # ceiling 10
    assert meets(p, "training", 1) and not meets(p, "training", 2)
    p["training"] = 2.0 - 1e-12  # float noise never blocks an earned level
    assert meets(p, "training", 2)


def test_event_total_order() -> None:
    t = 1000
    events = [
        Event(t, HORIZON),
        Event(t, DEADLINE, 3),
        Event(t, CHECKPOINT, 7, 1, 2),
        Event(t, CHECKPOINT, 3, 3, 5),
        Event(t, PAYROLL),
        Event(t - 1, DEADLINE, 9),
    ]
    ordered = sorted(events)
    assert ordered == [
        Event(t - 1, DEADLINE, 9),
        Event(t, PAYROLL),  # payroll first at an instant
        Event(t, CHECKPOINT, 3, 3, 5),  # then checkpoints and completions, by task number
        Event(t, CHECKPOINT, 7, 1, 2),
        Event(t, DEADLINE, 3),  # a task finishing at its deadline succeeds
        Event(t, HORIZON),
    ]
    for perm_seed in range(5):
        q = EventQueue()
        order = list(events)
        order = order[perm_seed:] + order[:perm_seed]
        for e in order:
            q.push(e)
        out = []
        while (e := q.pop_valid(lambda _e: True)) is not None:
            out.append(e)
        assert out == ordered


def test_lazy_invalidation_and_compaction() -> None:
    q = EventQueue()
    for v in range(5):
        q.push(Event(100 + v, CHECKPOINT, 1, 0, v))
    live = {4}
    assert q.peek_valid(lambda e: e.version in live) == Event(104, CHECKPOINT, 1, 0, 4)
    q.push(Event(50, CHECKPOINT, 1, 0, 0))
    q.compact(lambda e: e.version in live)
    assert len(q) == 1
    assert heapq.nsmallest(1, q.snapshot()) == [(104, CHECKPOINT, 1, 0, 4)]


@pytest.mark.parametrize(("stale", "left"), [(4094, 4096), (4095, 2)])
def test_stale_events_are_dropped_once_the_queue_holds_more_than_4096_after_a_resume(stale: int, left: int) -> None:
    w = make_env().world  # queued: the first payroll and the horizon
    for _ in range(stale):
        w.queue.push(Event(w.horizon - 1, DEADLINE, 999_999))  # no such open task: stale
    w.resume()  # pays the first payroll and queues the next: stale + 2 entries
    assert w.cal.iso(w.now) == "2025-02-03T09:00"
    assert len(w.queue) == left  # 4096 is kept; 4097 is compacted to the next payroll and the horizon


def test_prestige_meets_a_level_from_1e_9_below_it_and_not_from_2e_9_below() -> None:
    """meets() allows 1e-9 of float noise: 2 - 1e-9 reaches level 2 (the sum is exactly 2.0), 2 - 2e-9 does not."""
    assert meets({"training": 2 - 1e-9}, "training", 2)
    assert not meets({"training": 2 - 2e-9}, "training", 2)
