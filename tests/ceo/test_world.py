"""The NovaMind world's own bookkeeping (docs/reference-notes.md §1.1-§1.2): what a new world holds before its
first day, and the records a day leaves. Each test builds a world of the default preset and steps it
at most a few days."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.world.quality import MarketView
from bizbench.envs.ceo.world.world import World


@pytest.fixture(scope="module")
def cfg():
    return load_config("default")[0]


def test_a_new_world_is_funded_on_day_0_with_the_preset_s_start_cash(cfg):
    """docs/reference-notes.md §1.1: the ledger opens with one row, day 0, ``initial_funding``, $1,000,000
    (start_cash)."""
    w = World(cfg, seed=3)
    row = w.state.ledger.rows[0]
    assert (row.day, row.category, row.cents) == (0, "initial_funding", 100_000_000)
    assert len(w.state.ledger.rows) == 1


def test_an_injected_post_judge_is_the_one_that_judges(cfg):
    """The env injects its judge (an LLM judge in some presets); the world must use it, not the RuleJudge."""

    def judge(content, context):
        return {}

    assert World(cfg, seed=3, post_judge=judge).judge is judge


def test_each_group_known_from_the_start_has_a_day_0_insight_snapshot(cfg):
    """docs/reference-notes.md §1.1 / §4.25: day-0 snapshots of the 6 groups known at the start (S1-S3, E1-E3),
    none of a
    discoverable group; S1's are its preset means, c_max 50 and q_min 0.1 (no drift yet)."""
    w = World(cfg, seed=3)
    assert sorted(w.state.insight_snapshots) == [0, 1, 2, 3, 4, 5]
    s1 = w.state.insight_snapshots[0]
    assert (s1["day"], s1["c_max"], s1["q_min"]) == (0, 50.0, 0.1)


def test_delivered_quality_is_the_product_quality_times_each_plan_s_model_tier(cfg):
    """Eq 10: Del_{g,p} = (q0 + b_shared + b_g) m_tier(p); q0 0.20, tiers 1, 3, 5 -> m 0.60, 0.90, 1.10,
    S1 with a group bonus of 0.05."""
    w = World(cfg, seed=3)
    w.state.settings.tiers[:] = [1, 3, 5]
    w.state.bonus_group[0] = 0.05
    got = w.delivered_quality()
    assert got[0] == pytest.approx([0.25 * 0.60, 0.25 * 0.90, 0.25 * 1.10])
    assert got[1] == pytest.approx([0.20 * 0.60, 0.20 * 0.90, 0.20 * 1.10])


def test_a_turn_rolls_its_surges_from_the_surges_stream_for_the_days_after_today(cfg, monkeypatch):
    """docs/reference-notes.md §4.14: before a turn's days, one roll per coming day (days d + 1 .. d + 7) from the
    world's
    own ``surges`` stream."""
    from bizbench.envs.ceo.world import surges

    w = World(cfg, seed=3)
    calls = []
    monkeypatch.setattr(surges, "roll_surges", lambda st, rng, first, days: calls.append((rng, first, days)))
    monkeypatch.setattr(w, "step_day", lambda sample_posts=True: {})
    w.state.day = 14
    w.advance()
    assert calls == [(w.streams.get("surges"), 15, 7)]


def test_customers_post_only_on_a_turn_s_last_day(cfg, monkeypatch):
    """docs/reference-notes.md §1.3: customer posts are sampled on the last day of the turn only (a 7-day turn,
    then a 3-day one)."""
    w = World(cfg, seed=3)
    flags = []

    def step(sample_posts=True):
        flags.append(sample_posts)
        w.state.day += 1
        return {"day": w.state.day}

    monkeypatch.setattr(w, "step_day", step)
    assert [r["day"] for r in w.advance()] == [1, 2, 3, 4, 5, 6, 7]
    assert flags == [False] * 6 + [True]
    flags.clear()
    w.advance(3)
    assert flags == [False, False, True]


def test_the_last_turn_stops_at_the_horizon(cfg, monkeypatch):
    """docs/reference-notes.md §1.2: 500 days; a 7-day turn from day 497 steps days 498, 499 and 500 only."""
    w = World(cfg, seed=3)

    def step(sample_posts=True):
        w.state.day += 1
        return {"day": w.state.day, "posts": sample_posts}

    monkeypatch.setattr(w, "step_day", step)
    w.state.day = 497
    assert w.advance() == [{"day": 498, "posts": False}, {"day": 499, "posts": False}, {"day": 500, "posts": True}]


def test_a_day_s_payments_are_booked_as_one_row_per_group_with_their_count(cfg):
    """docs/reference-notes.md §4.22 / the ledger: subscription payments are summed per group into one
    ``subscription_payment`` row dated today, noted with the number of payments; no payment, no row."""
    from bizbench.envs.ceo.world.billing import Payments

    w = World(cfg, seed=3)
    w.state.day = 9
    s1 = w.state.customers.append(2, {"group": 0})
    e1 = w.state.customers.append(1, {"group": 3})
    w._book_payments(Payments(customers=np.array([s1[0], e1[0], s1[1]]), cents=np.array([1999, 750_000, 2001])))
    rows = [tuple(r) for r in w.state.ledger.rows[1:]]
    assert rows == [
        (9, "subscription_payment", 4000, "2 payments", "S1"),
        (9, "subscription_payment", 750_000, "1 payments", "E1"),
    ]
    w._book_payments(Payments(customers=np.array([s1[0]]), cents=np.array([2500])))
    assert tuple(w.state.ledger.rows[-1]) == (9, "subscription_payment", 2500, "1 payments", "S1")
    n = len(w.state.ledger.rows)
    w._book_payments(Payments(customers=np.empty(0, dtype=np.int64), cents=np.empty(0, dtype=np.int64)))
    assert len(w.state.ledger.rows) == n


def _svc(overload=0.0, outage=False):
    from bizbench.envs.ceo.world.service import ServiceDay

    return ServiceDay(
        total_usage=1.0,
        capacity_tier=1,
        capacity_units=1.0,
        overload=overload,
        outage=outage,
        downtime_minutes=0,
        p95_ms=1.0,
        error_rate=0.0,
    )


def test_customer_posts_weigh_subscribers_cancellations_and_enterprise_churn(cfg, monkeypatch):
    """docs/reference-notes.md §4.12: the candidates are today's subscribers (eq 26 weights; overload counts when
    above 0),
    today's cancellations (5 (1 + 10 |min(S, 0)|)) and churned enterprises (8 x seats), the latter two
    marked churned, drawn from the ``social`` stream; each author's causes see the turn's last 7 days
    of service (an outage 6 days ago counts, an overload 8 days ago does not)."""
    from types import SimpleNamespace

    from bizbench.envs.ceo.world import social

    w = World(cfg, seed=3)
    w.state.day = 14
    cust = w.state.customers
    a = int(cust.append(1, {"group": 0, "plan": 0})[0])
    b1, b2 = (int(i) for i in cust.append(2, {"group": 1}))
    cust.satisfaction[b1], cust.satisfaction[b2] = -0.3, 0.4
    c = int(cust.append(1, {"group": 3, "seats": 40.9, "plan": -1})[0])  # drifted seats: 40 whole ones
    # 10 days of service: overload 8 days ago (index 2), outage 6 days ago (index 4), the rest quiet
    w.service_history = [_svc(overload=0.5 if k == 2 else 0.0, outage=k == 4) for k in range(10)]
    seen = {}
    monkeypatch.setattr(
        social,
        "subscriber_weights",
        lambda st, p, act, ov, out, issue: seen.setdefault("ov", []).append((ov, list(issue))) or np.array([2.0]),
    )

    def sample(st, p, rng, cands):
        seen["rng"], seen["cands"] = rng, cands
        return [{"customer": a, "churned": False}, {"customer": c, "churned": True}]

    monkeypatch.setattr(social, "sample_posts", sample)
    monkeypatch.setattr(
        social, "author_events", lambda st, p, who, churned, outage, overload: [f"{who}:{churned}:{outage}:{overload}"]
    )
    monkeypatch.setattr(
        w.feed, "customer_posts", lambda day, records: seen.setdefault("posted", []).append((day, records))
    )
    dec = SimpleNamespace(cancelled=np.array([b1, b2]))
    w._customer_posts(np.array([a]), np.array([True]), _svc(overload=0.0), dec, np.array([c]))
    w._customer_posts(np.array([a]), np.array([False]), _svc(overload=0.5), dec, np.array([c]))
    assert seen["ov"] == [(False, [True]), (True, [False])]
    cands = seen["cands"]
    assert list(cands.customers) == [a, b1, b2, c]
    assert list(cands.weights) == pytest.approx([2.0, 5 * (1 + 10 * 0.3), 5.0, 8 * 40])  # 2, 20, 5, 320
    assert [bool(x) for x in cands.churned] == [False, True, True, True]
    assert seen["rng"] is w.streams.get("social")
    day, records = seen["posted"][-1]
    assert day == 14
    assert [r["events"] for r in records] == [[f"{a}:False:True:False"], [f"{c}:True:True:False"]]
    assert [r["plan"] for r in records] == ["A", None]  # plan 0 is A; -1 has none
    w.service_history[-1] = _svc(overload=0.5)  # an overload today, half the capacity over
    w._customer_posts(np.array([a]), np.array([False]), _svc(overload=0.5), dec, np.array([c]))
    assert seen["posted"][-1][1][0]["events"] == [f"{a}:False:True:True"]


def test_enterprise_prospects_that_did_not_open_talks_are_told_by_group_and_cause(cfg):
    """docs/ceo-seat.md "Enterprise deals": one notification per enterprise group with dropped prospects,
    the count and each cause; a group with none is not named."""
    from types import SimpleNamespace

    w = World(cfg, seed=3)
    w.state.day = 30
    quota, quality = np.zeros(26, dtype=np.int64), np.zeros(26, dtype=np.int64)
    quota[3], quality[3] = 1, 1  # E1: both causes, as many of each
    quality[4] = 1  # E2: quality only
    quota[5] = 1  # E3: quota only
    w._notify_dropped_prospects(SimpleNamespace(dropped_quota=quota, dropped_quality=quality))
    need = "need a larger daily usage quota than any plan whose quality suits them grants"
    cover = "(the quota must cover usage per seat x seats)"
    assert [(n["type"], n["day"], n["message"]) for n in w.notifications] == [
        (
            "large_customer_message",
            30,
            f"2 enterprise prospect(s) from E1 did not open talks: 1 {need} {cover}; "
            "1 found no plan's quality good enough at any price.",
        ),
        (
            "large_customer_message",
            30,
            "1 enterprise prospect(s) from E2 did not open talks: 1 found no plan's quality good enough at any price.",
        ),
        ("large_customer_message", 30, f"1 enterprise prospect(s) from E3 did not open talks: 1 {need} {cover}."),
    ]
    assert [n["notification_id"] for n in w.notifications] == [1, 2, 3]


def test_each_stepped_day_reaches_on_day_and_the_first_record_holds_the_initial_funding(cfg):
    """``on_day`` sees each day's record as it is stepped (the session's store); day 1's ledger sums
    include the day-0 funding ($1,000,000), so the records reconcile cash from the start."""
    w = World(cfg, seed=3)
    seen = []
    out = w.advance(2, on_day=seen.append)
    assert seen == out and [r["day"] for r in seen] == [1, 2]
    assert out[0]["ledger"]["initial_funding"] == 1_000_000.0
    assert "initial_funding" not in out[1]["ledger"]


def _metrics_day(cfg):
    """A world on day 12 with five subscribers (two S1, one S2, an E1 firm of 40.7 seats, an E3 firm of 30.5
    seats won today), a cancelled S3 customer with an open issue and an E2 lead of 12.9 seats."""
    from bizbench.envs.ceo.world.customers import CANCELLED, LEAD, SUBSCRIBED

    w = World(cfg, seed=3)
    st = w.state
    st.day = 12
    cust = st.customers

    def add(group, **cols):
        return int(cust.append(1, {"group": group, "status": SUBSCRIBED, **cols})[0])

    a0 = add(0, effective_price=20.0, issue_days=0, satisfaction=0.5)
    a1 = add(0, effective_price=30.0, issue_days=1, satisfaction=-0.25)
    a2 = add(1, effective_price=50.0, issue_days=2, satisfaction=0.125)
    e1 = add(3, seats=40.7, effective_price=25.0, issue_days=0, satisfaction=0.375)
    e3 = add(5, seats=30.5, effective_price=10.0, issue_days=3, satisfaction=0.5)
    add(2, status=CANCELLED, issue_days=5, effective_price=99.0, satisfaction=-1.0)
    lead = add(4, status=LEAD, seats=12.9)
    return w, np.array([a0, a1, a2, e1, e3]), lead, e3


def test_a_day_s_record_counts_accounts_billed_seats_issues_and_mrr_of_today_s_subscribers(cfg):
    """The daily record (the store, the dashboard, the viewer): counts over today's subscribers only.
    Accounts: S1 2, S2 1 -> 3 subscribers; E1, E3 -> 2 enterprise accounts; an enterprise bills whole seats,
    floor(40.7) + floor(30.5) = 40 + 30 = 70. MRR = 20 + 30 + 50 + 25 x 40 + 10 x 30 = 1,400. Open issues:
    issue days 0, 1, 2, 0, 3 -> 3 (the cancelled customer's 5 days do not count). Mean satisfaction
    (0.5 - 0.25 + 0.125 + 0.375 + 0.5) / 5 = 0.25. Leads: 3 + 2 individual (S1, S2), the E1 and E2 leads are
    not individual; the E2 lead has floor(12.9) = 12 seats; the won E3 firm floor(30.5) = 30 new seats."""
    from types import SimpleNamespace

    w, active, lead, won = _metrics_day(cfg)
    st = w.state
    st.bonus_shared = 0.0625
    st.bonus_group[1], st.bonus_group[4] = 0.03, 0.01
    st.q_drift_global = -0.02
    st.reputation[0] = 0.123456789
    st.discovered[6] = True  # D_S01 found
    st.pmi = 51.3
    st.ledger.post(12, "subscription_payment", 1950)
    st.ledger.post(12, "subscription_payment", 2050)
    st.ledger.post(12, "ad_revenue", 50)
    st.ledger.post(12, "lead_acquisition_cost", -1525)
    n_leads = np.zeros(26, dtype=np.int64)
    n_leads[[0, 1, 3, 4]] = 3, 2, 1, 1
    leads = SimpleNamespace(
        leads=n_leads, enterprise_leads=np.array([lead]), new_subscribers=np.array([7, 8]), lost=np.array([9])
    )
    dec = SimpleNamespace(cancelled=[1, 2, 3], involuntary=[4], upgrades=[5, 6], downgrades=[7, 8, 9, 10])
    ent = SimpleNamespace(won=[won], churned=[11, 12, 13, 14, 15])
    svc = dataclasses.replace(
        _svc(overload=0.25, outage=True), total_usage=1234.5, downtime_minutes=90, p95_ms=480.0, error_rate=0.03
    )

    rec = w._daily_metrics(active, svc, dec, leads, ent, 7)
    assert rec.pop("product_quality") == pytest.approx(0.2625)  # q0 0.20 + b_shared 0.0625
    assert rec == {
        "day": 12,
        "cash": 1_000_025.25,  # 1,000,000 + 19.50 + 20.50 + 0.50 - 15.25
        "subscribers": 3,
        "enterprise_accounts": 2,
        "enterprise_seats": 70,
        "subscribers_by_group": {"S1": 2, "S2": 1, "E1": 1, "E3": 1},
        "seats_by_group": {"E1": 40, "E3": 30},
        # the first record also holds the day-0 funding; two payments add up in their category
        "ledger": {
            "initial_funding": 1_000_000.0,
            "subscription_payment": 40.0,
            "ad_revenue": 0.5,
            "lead_acquisition_cost": -15.25,
        },
        "revenue": 1_000_040.5,  # every category above 0, the $0.50 one too
        "costs": 15.25,  # the negative ones, as a positive amount
        "leads": 7,
        "individual_leads": 5,
        "enterprise_leads": 1,
        "enterprise_lead_seats": 12,
        "enterprise_new_seats": 30,
        "open_issues": 3,
        "downtime_minutes": 90,
        "p95_ms": 480.0,
        "error_rate": 0.03,
        "new_subscribers": 2,
        "lost_leads": 1,
        "cancellations": 3,
        "involuntary_churn": 1,
        "upgrades": 2,
        "downgrades": 4,
        "enterprise_won": 1,
        "enterprise_churned": 5,
        "usage": 1234.5,
        "overload": 0.25,
        "outage": True,
        "quality_bonus_by_group": {"S2": 0.03, "E2": 0.01},
        "q_drift_global": -0.02,
        # rounded to 6 places, every discovered group: the 6 known from the start and D_S01
        "reputation": {"S1": 0.123457, "S2": 0.5, "S3": 0.5, "E1": 0.5, "E2": 0.5, "E3": 0.5, "D_S01": 0.5},
        "mean_satisfaction": 0.25,
        "pmi": 51.3,
        "mrr": 1400.0,
    }


def test_a_day_s_ledger_sums_hold_only_the_rows_since_the_previous_record(cfg):
    """Each record's ``ledger`` holds the rows posted since the previous record, by category: a day with one
    $0.75 cost and one $0.25 refund-like credit shows revenue 0.25 and costs 0.75; a day with no subscriber has
    no mean satisfaction (None), and counts of 0; a category that nets to $0 is neither."""
    from types import SimpleNamespace

    w, active, lead, won = _metrics_day(cfg)
    leads = SimpleNamespace(
        leads=np.zeros(26, dtype=np.int64),
        enterprise_leads=np.empty(0, dtype=np.int64),
        new_subscribers=[],
        lost=[],
    )
    dec = SimpleNamespace(cancelled=[], involuntary=[], upgrades=[], downgrades=[])
    ent = SimpleNamespace(won=[], churned=[])
    w._daily_metrics(active, _svc(), dec, leads, ent, 0)
    w.state.ledger.post(12, "operations_cost", -75)
    w.state.ledger.post(12, "ad_revenue", 25)
    rec = w._daily_metrics(np.empty(0, dtype=np.int64), _svc(), dec, leads, ent, 0)
    assert rec["ledger"] == {"operations_cost": -0.75, "ad_revenue": 0.25}
    assert (rec["revenue"], rec["costs"]) == (0.25, 0.75)
    assert rec["mean_satisfaction"] is None
    assert (rec["subscribers"], rec["enterprise_seats"], rec["open_issues"], rec["mrr"]) == (0, 0, 0, 0.0)
    assert (rec["subscribers_by_group"], rec["seats_by_group"]) == ({}, {})
    # a day whose one row is a $0 payment (a 100 % promotion): neither revenue nor a cost, "0.00" both, never
    # "-0.00" on a dashboard
    w.state.ledger.post(13, "subscription_payment", 0)
    rec = w._daily_metrics(active, _svc(), dec, leads, ent, 0)
    assert rec["ledger"] == {"subscription_payment": 0.0}
    assert (f"{rec['revenue']:.2f}", f"{rec['costs']:.2f}") == ("0.00", "0.00")


def test_an_open_competitor_event_gets_two_posts_a_day_of_its_size_within_25_percent(cfg, fake_rng):
    """docs/reference-notes.md §4.12: 2 competitor posts a day while the first open event's window lasts (its
    last day included), each of the event's boost x (1 + U(-0.25, 0.25)), worded by severity (0.03 / 0.10 /
    0.20). Boost 0.12 with the draws at both ends: 0.12 x 0.75 = 0.09 (moderate), 0.12 x 1.25 = 0.15 (major)."""
    w = World(cfg, seed=3)
    w.state.day = 20
    w.state.competitor_events = [
        {"post_end_day": 19, "boost": 0.5},  # closed yesterday
        {"post_end_day": 20, "boost": 0.12},  # its last day: the one posted about
        {"post_end_day": 23, "boost": 0.3},  # open too, but later
    ]
    rng = fake_rng(uniform=[0.0, 1.0])
    w._competitor_posts(rng)
    got = [(q["day"], q["kind"], q["severity"], q["noisy_boost"]) for q in w.feed.posts]
    assert got == [
        (20, "competitor", "moderate", pytest.approx(0.09)),
        (20, "competitor", "major", pytest.approx(0.15)),
    ]
    assert rng.remaining("uniform") == 0
    w.state.day = 24  # every window closed: no post, no draw
    w._competitor_posts(fake_rng())
    assert len(w.feed.posts) == 2


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("judge", "this preset judges posts with an LLM ([social] judge = 'llm'): inject post_judge"),
        ("writer", "this preset writes posts with an LLM ([social] writer = 'llm'): inject writer"),
    ],
)
def test_a_preset_with_an_llm_judge_or_writer_needs_it_injected(cfg, field, message):
    """docs/reference-notes.md §4.12-§4.13: the RuleJudge and the templates are the defaults; a preset that
    names an LLM for either has no default, and the world says which one to inject."""
    from bizbench.envs.ceo.world import judge, posttext

    w = World(cfg, seed=3)
    assert isinstance(w.judge, judge.RuleJudge)
    assert w.feed.writer is posttext.TEMPLATE_WRITER
    llm = cfg.model_copy(update={"social": cfg.social.model_copy(update={field: "llm"})})
    with pytest.raises(ValueError) as err:
        World(llm, seed=3)
    assert str(err.value) == message
    World(llm, seed=3, post_judge=lambda content, context: {}, writer=posttext.TEMPLATE_WRITER)


# ---------------------------------------------------------------------------------------------- step_day
# ``step_day`` is the engine's order (docs/reference-notes.md §1.2): each test below replaces every mechanic
# by a recorder that returns scripted results, so what is pinned is the day's wiring: which step runs, in
# which order, on which state and stream, and what the world does with each result. Day 30 is the first day
# of month 1 (30 // 30), a drift day and a channel-noise day (30 mod 30 = 0); day 31 is none of these.

S1, S2, S3, E1, E2, E3, D_S01 = 0, 1, 2, 3, 4, 5, 6


def _eq(got, want) -> bool:
    if isinstance(want, tuple):
        return type(got) is type(want) and len(got) == len(want) and all(map(_eq, got, want))
    if isinstance(want, np.ndarray):
        return isinstance(got, np.ndarray) and got.shape == want.shape and np.allclose(got, want)
    if isinstance(want, float):
        return isinstance(got, float | int) and got == pytest.approx(want)
    return got is want or (type(got) is type(want) and got == want)


def _check(calls, name, *want, k=0):
    got = [a for n, a in calls if n == name][k]
    assert len(got) == len(want), (name, got)
    bad = [i for i, (g, x) in enumerate(zip(got, want, strict=True)) if not _eq(g, x)]
    assert not bad, (name, bad, got)


class _Day:
    """A world on day 29 whose day-30 mechanics are recorders (see above).

    Customers: 0 S1 stays; 1 S1 cancels; 2 E1 whose card fails (an open plan-change thread); 3 E1 churns in
    its negotiation; 4 E2 stays, its payment suspended (an open churn-prevention thread); 5 an S3 lead who
    subscribes today; 6 an E3 prospect who becomes a lead; 7 S1 whose card fails (no thread)."""

    def __init__(self, cfg, monkeypatch):
        from bizbench.envs.ceo.world import (
            acquisition,
            billing,
            competitor,
            costs,
            development,
            drift,
            enterprise,
            macro,
            reputation,
            research,
            satisfaction,
            service,
            social,
            support,
            surges,
            usage,
        )
        from bizbench.envs.ceo.world.customers import CANCELLED, LEAD, SUBSCRIBED
        from bizbench.envs.ceo.world.state import AgentPost, PendingGroupResearch, RndProject

        self.w = w = World(cfg, seed=3)
        st = w.state
        st.day = 29
        cust = st.customers
        sub, lead = SUBSCRIBED, LEAD
        for group, status in [(S1, sub), (S1, sub), (E1, sub), (E1, sub), (E2, sub), (S3, lead), (E3, lead), (S1, sub)]:
            cust.append(1, {"group": group, "status": status})
        cust.issue_days[0] = 1  # an issue open since yesterday, which today's support resolves
        self.plan_thread = w.book.open_thread(2, enterprise.PLAN_CHANGE, 20, "plan change")
        self.churn_thread = w.book.open_thread(4, enterprise.CHURN_PREVENTION, 25, "churn prevention")
        st.q_drift_global, st.q_drift_group[S1], st.c_drift_group[S2] = 0.01, 0.02, 2.0
        st.bonus_shared = 0.05
        st.settings.prices[:] = [20.0, 50.0, 0.5]
        st.settings.ad_spend[S1, 1] = 100.0
        w.price_log = [(1, np.array([10.0, 40.0, 0.4]))]
        self.readings = [
            {"visible_day": 10, "pmi_value": 48.0, "pmi_trend": "contraction"},
            {"visible_day": 25, "pmi_value": 49.5, "pmi_trend": "neutral"},
            {"visible_day": 30, "pmi_value": 51.3, "pmi_trend": "expansion"},
        ]
        st.macro_readings = list(self.readings)

        self.svc = service.ServiceDay(7.5, 1, 5.0, 0.5, True, 30, 300.0, 0.02)
        self.units_by_plan = np.array([1.0, 2.0, 3.0])
        self.s_before = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
        self.sup = support.SupportDay(opened=np.array([0]), resolved=np.array([4]))
        self.rates = np.full(26, 0.01)
        self.social = np.full(26, 1.1)
        self.channel_leads = np.ones((26, 5))
        self.ad_revenue = (np.zeros(1), np.zeros(1), np.zeros(1))
        self.closed = np.array([1, 2])
        self.post = AgentPost(post_id=1, day=29, content="hello", reply_to=None)
        none = np.empty(0, dtype=np.int64)
        self.dec = billing.BillingDecisions(
            involuntary=np.array([2, 7]),
            cancelled=np.array([1]),
            cancelled_satisfaction=np.array([-0.4]),
            upgrades=np.array([0]),
            downgrades=none,
        )
        self.ent = enterprise.EnterpriseDay(
            won=[11],
            lost_leads=[8, 9],
            churned=[3],
            countered=[12],
            opened=[13],
            declined=[9],
            # not the book's open churn-prevention threads ([4]): payments must take the step's own snapshot
            suspended=np.array([0, 4]),
        )
        leads = np.zeros(26, dtype=np.int64)
        leads[[S1, S3, E3]] = 2, 1, 1  # 4 leads
        self.leads = acquisition.LeadsDay(
            leads=leads,
            channel_leads=self.channel_leads,
            new_subscribers=np.array([5]),
            lost=none,
            enterprise_leads=np.array([6]),
            expected=np.zeros(26),
            dropped_quota=np.zeros(26, dtype=np.int64),
            dropped_quality=np.zeros(26, dtype=np.int64),
        )
        quiet_leads = dataclasses.replace(
            self.leads, leads=np.zeros(26, dtype=np.int64), new_subscribers=none, enterprise_leads=none
        )
        quiet_dec = billing.BillingDecisions(none, none, np.empty(0), none, none)
        self.calls = calls = []

        def rec(name, ret=None):
            def fake(*args):
                calls.append((name, args))
                return ret(*args) if callable(ret) else ret

            return fake

        def patch(mod, name, ret=None):
            monkeypatch.setattr(mod, name, rec(name, ret))

        def decide(*args):
            if st.day != 30:
                return quiet_dec
            cust.status[[1, 2, 7]] = CANCELLED
            return self.dec

        def negotiate(*args):
            if st.day != 30:
                return enterprise.EnterpriseDay()
            cust.status[3] = CANCELLED
            return self.ent

        def generate(*args):
            if st.day != 30:
                return quiet_leads
            cust.status[5] = SUBSCRIBED
            return self.leads

        def pay(*args):
            if st.day != 30:
                return billing.Payments(none, none)
            return billing.Payments(customers=np.array([0, 5]), cents=np.array([2000, 5000]))

        def book_costs(*args):
            # day 30 leaves cash at exactly $0 (it survives); day 31 one cent below (bankrupt)
            st.ledger.post(st.day, "operations_cost", -st.ledger.balance_cents if st.day == 30 else -1)
            return self.ad_revenue

        patch(usage, "compute_usage", np.array([3.0, 4.5]))
        patch(costs, "usage_by_plan", self.units_by_plan)
        patch(service, "service_day", self.svc)
        patch(
            development,
            "complete_projects",
            lambda s: [RndProject("rnd-1", 1, 10, 30, 0.01234, 1000.0)] if s.day == 30 else [],
        )
        patch(
            research,
            "complete_group_research",
            lambda s, p: [PendingGroupResearch(D_S01, 2, 30)] if s.day == 30 else [],
        )
        patch(drift, "is_drift_day", lambda d, s: d == 30)
        patch(drift, "apply_group_drift", lambda s, p: s.c_drift_group.__setitem__(S2, 9.0))
        patch(drift, "apply_individual_drift")
        patch(acquisition, "channel_noise")
        patch(macro, "step_pmi", 51.0)
        patch(macro, "update_multipliers")
        patch(macro, "close_measurement")
        patch(macro, "published_readings", lambda s: list(self.readings))
        monkeypatch.setattr(w.feed, "macro_posts", rec("macro_posts"))
        patch(competitor, "maybe_fire", lambda s, p, r: setattr(s, "q_drift_global", s.q_drift_global + 0.5))
        monkeypatch.setattr(w, "_competitor_posts", rec("_competitor_posts"))
        patch(development, "apply_daily_development", lambda s, r: setattr(s, "bonus_shared", s.bonus_shared + 0.05))
        patch(satisfaction, "update_satisfaction", self.s_before)
        patch(support, "run_support", lambda *a: cust.issue_days.__setitem__(0, 0) or self.sup)  # 0's issue fixed
        patch(billing, "involuntary_rates", self.rates)
        patch(billing, "billing_decisions", decide)
        patch(reputation, "cancellation_damage")
        patch(enterprise, "process_day", negotiate)
        patch(reputation, "daily_update")
        monkeypatch.setattr(w, "_customer_posts", rec("_customer_posts"))
        patch(social, "social_multiplier", self.social)
        patch(surges, "surge_multiplier", 2.5)
        patch(acquisition, "generate_leads", generate)
        patch(billing, "take_payments", pay)
        patch(costs, "book_daily_costs", book_costs)
        patch(social, "judge_posts", lambda s, p, r, v: [self.post] if s.day == 30 else [])
        monkeypatch.setattr(w, "_after_judging", rec("_after_judging"))
        patch(support, "close_churned_issues", self.closed)
        monkeypatch.setattr(w, "_daily_metrics", rec("_daily_metrics", lambda *a: {"record of day": st.day}))


def test_a_day_runs_the_engine_s_steps_in_order(cfg, monkeypatch):
    """docs/reference-notes.md §1.2: usage and service, R&D and research completions, monthly drift and channel
    noise, macro, competitor, development, satisfaction, support, billing decisions, enterprise threads,
    reputation and posts, new leads, payments, daily costs, post judging; then the day's record."""
    day = _Day(cfg, monkeypatch)
    record = day.w.step_day()
    assert record == {"record of day": 30} and day.w.metrics == [record]
    assert [n for n, _ in day.calls] == [
        "compute_usage",
        "usage_by_plan",
        "service_day",
        "complete_projects",
        "complete_group_research",
        "is_drift_day",
        "apply_group_drift",
        "apply_individual_drift",
        "channel_noise",
        "step_pmi",
        "update_multipliers",
        "close_measurement",
        "published_readings",
        "macro_posts",
        "maybe_fire",
        "_competitor_posts",
        "apply_daily_development",
        "update_satisfaction",
        "run_support",
        "involuntary_rates",
        "billing_decisions",
        "cancellation_damage",
        "process_day",
        "cancellation_damage",
        "daily_update",
        "_customer_posts",
        "social_multiplier",
        "surge_multiplier",
        "generate_leads",
        "take_payments",
        "book_daily_costs",
        "judge_posts",
        "_after_judging",
        "close_churned_issues",
        "_daily_metrics",
    ]


def test_each_step_of_a_day_works_on_the_start_of_day_caches_the_right_customers_and_its_own_stream(cfg, monkeypatch):
    """docs/reference-notes.md §1.2 and principle 4 (every stochastic step draws from its own named stream).
    The start-of-day caches: delivered quality (0.20 + 0.05) x 0.60 (tier 1) = 0.15 for every group and plan;
    the quality shift q_global + q_g = 0.01 + 0.02 for S1, 0.01 elsewhere; the WTP drift 2.0 for S2 (today's
    monthly drift to 9.0 and competitor event of +0.5 reach customers, today's prospects too, tomorrow); the service
    penalty 0.08 x overload 0.5 + 0.20 x outage = 0.24 (eq 10). Subscribers at the start of day 30: 0, 1, 2, 3, 4,
    7 (S1 3, E1 2, E2 1); after the cancellations (1), the failed cards (2, 7) and the enterprise churn (3): 0
    and 4; after today's signup (5): 0, 4 and 5. Involuntary churn rates are those of month 30 // 30 = 1."""
    day = _Day(cfg, monkeypatch)
    w, st, p, rs, c = day.w, day.w.state, day.w.params, day.w.streams, day.calls
    w.step_day()
    at_start, at_payments = np.array([0, 1, 2, 3, 4, 7]), np.array([0, 4, 5])
    delivered = np.full((26, 3), 0.15)
    q_shift = np.full(26, 0.01)
    q_shift[S1] = 0.03
    c_drift = np.zeros(26)
    c_drift[S2] = 2.0
    start_counts = np.zeros(26, dtype=np.int64)
    start_counts[[S1, E1, E2]] = 3, 2, 1
    counts = np.zeros(26, dtype=np.int64)
    counts[[S1, E2]] = 1, 1
    _check(c, "compute_usage", st, at_start)
    _check(c, "usage_by_plan", st, at_start, np.array([3.0, 4.5]))
    _check(c, "service_day", st, p, rs.get("service"), 7.5)  # 3 + 4.5 units
    _check(c, "complete_projects", st)
    _check(c, "complete_group_research", st, p)
    _check(c, "is_drift_day", 30, st)
    _check(c, "apply_group_drift", st, p)
    _check(c, "apply_individual_drift", st, p, at_start)
    _check(c, "channel_noise", st, rs.get("channel_noise"))
    _check(c, "step_pmi", st, rs.get("macro"))
    _check(c, "update_multipliers", st, p)
    _check(c, "close_measurement", st)
    _check(c, "published_readings", st)
    # the readings that become visible today, and the latest one the agent may see
    _check(c, "macro_posts", 30, [day.readings[2]], day.readings[2])
    _check(c, "maybe_fire", st, p, rs.get("competitor"))
    _check(c, "_competitor_posts", rs.get("competitor_posts"))
    _check(c, "apply_daily_development", st, rs.get("quality_noise"))
    _check(c, "update_satisfaction", st, at_start, delivered, q_shift, c_drift, 0.24)
    # support reads the open issues the world read once for the day (the first subscriber's is open)
    open_issue = np.array([True, False, False, False, False, False])
    _check(c, "run_support", st, p, rs.get("support"), at_start, day.s_before, True, open_issue)
    _check(c, "involuntary_rates", p, rs.get("involuntary/1"))
    _check(c, "billing_decisions", st, p, rs.get("billing"), day.rates, at_start, delivered, q_shift, c_drift)
    # a voluntary cancellation costs its group reputation, with its satisfaction; an enterprise churn too
    _check(c, "cancellation_damage", st, p, rs.get("reputation"), np.array([S1]), np.array([-0.4]), start_counts)
    # the customers' replies read the product and the market as they are at step 17: today's development (+0.05:
    # (0.20 + 0.10) x 0.60 = 0.18), competitor event (+0.5) and monthly drift (S2's WTP drift 9.0)
    live_c_drift = c_drift.copy()
    live_c_drift[S2] = 9.0
    start, now = (
        MarketView(delivered, q_shift, c_drift),
        MarketView(np.full((26, 3), 0.18), q_shift + 0.5, live_c_drift),
    )
    _check(c, "process_day", st, p, rs.get("enterprise"), w.book, start, now)
    _check(c, "cancellation_damage", st, p, rs.get("reputation"), np.array([E1]), None, start_counts, k=1)
    # reputation: the subscribers of the morning, whose satisfaction today's update reached, those who left today too
    _check(c, "daily_update", st, p, at_start, np.array([S1, S1, E1, E1, E2, S1]), start_counts)
    # the posts' candidates: the subscribers of step 14 (today's leavers among them), with the issues open then
    # (0's, resolved by today's support)
    _check(
        c,
        "_customer_posts",
        at_start,
        np.array([True, False, False, False, False, False]),
        day.svc,
        day.dec,
        np.array([3]),
    )
    _check(c, "social_multiplier", st, p, 30)
    _check(c, "surge_multiplier", st, 30)
    _check(
        c,
        "generate_leads",
        st,
        p,
        rs.get("leads"),
        rs.get("conversion"),
        w.group_streams,
        counts,
        delivered,
        q_shift,
        c_drift,
        day.social,
        2.5,
        None,  # no rivals: a single-player world (an arena's are docs/arena.md A2-A3)
    )
    # payments are suspended for the churn-prevention threads open when step 17 began, as it reports them
    _check(c, "take_payments", st, p, rs.get("payments"), at_payments, np.array([0, 4]), c_drift)
    _check(c, "book_daily_costs", st, p, at_payments, day.units_by_plan)
    _check(c, "judge_posts", st, p, rs.get("post_views"), w._judge_post)
    _check(c, "_after_judging", day.post, at_payments)
    _check(c, "close_churned_issues", st)
    _check(c, "_daily_metrics", at_payments, day.svc, day.dec, day.leads, day.ent, 4)


def test_a_day_s_events_reach_the_notifications_the_threads_the_ledger_and_the_logs(cfg, monkeypatch):
    """What the world does with each step's result on day 30 (docs/ceo-seat.md, reference-notes §1.2): one
    notification per event, in the day's order; a failed card closes its customer's open thread
    (``customer_churned``), a churn-prevention thread stays; each enterprise lead opens a ``new_lead`` thread;
    4 leads cost 4 x $0.50 = $2.00 (reference-notes §3.3); the payments are booked by group; cash of exactly $0
    survives (§1.4); the logs get the day's list prices (they changed), service, ad spend and channel leads,
    churn by group (S1 1 cancellation, E1 1 enterprise churn) and issues."""
    from bizbench.envs.ceo.world import enterprise

    day = _Day(cfg, monkeypatch)
    w = day.w
    w.step_day()
    declined = " (declined: no price works for them at the quality they see)"
    assert [(n["day"], n["type"], n["message"]) for n in w.notifications] == [
        (30, "research_complete", "R&D rnd-1 complete: quality +0.0123"),
        (30, "group_research_complete", "Research on D_S01 reached level 2"),
        (30, "macro_economic_update", "PMI 51.3 (expansion)"),
        (30, "deal_won", "Deal closed with customer 11"),
        (30, "lead_lost", "Lead lost: customer 8"),
        (30, "lead_lost", f"Lead lost: customer 9{declined}"),
        (30, "large_customer_message", "Enterprise customer 13 opened a thread"),
        (30, "large_customer_message", "Enterprise customer 12 sent a counter-offer"),
        (30, "large_customer_message", "New enterprise lead: customer 6"),
    ]
    assert day.plan_thread.status == "customer_churned" and 2 not in w.book.open_by_customer
    assert day.churn_thread.status == "open" and w.book.open_by_customer[4] is day.churn_thread
    lead = w.book.open_by_customer[6]
    assert (lead.kind, lead.opened_day, [t["text"] for t in lead.turns]) == (
        enterprise.NEW_LEAD,
        30,
        ["New enterprise lead."],
    )
    assert [tuple(r) for r in w.state.ledger.rows[1:]] == [
        (30, "lead_acquisition_cost", -200, "4 leads", ""),
        (30, "subscription_payment", 2000, "1 payments", "S1"),
        (30, "subscription_payment", 5000, "1 payments", "S3"),
        (30, "operations_cost", -100_006_800, "", ""),  # $1,000,000 - $2 + $20 + $50: cash to $0
    ]
    assert w.state.bankrupt is False
    assert len(w.price_log) == 2 and w.price_log[1][0] == 30
    assert list(w.price_log[1][1]) == [20.0, 50.0, 0.5]
    assert w.service_history == [day.svc]
    [(d, spend, channel)] = w.channel_log
    assert d == 30 and spend[S1, 1] == 100.0 and spend.sum() == 100.0 and channel is day.channel_leads
    churn = np.zeros(26, dtype=np.int64)
    churn[[S1, E1]] = 1
    [(d, by_group)] = w.churn_log
    assert d == 30 and list(by_group) == list(churn)
    assert w.issue_log == [(30, day.sup.opened, day.sup.resolved, day.closed)]
    assert w.ad_revenue_today is day.ad_revenue


def test_monthly_steps_run_on_day_30_only_posts_only_when_sampled_and_a_cent_below_zero_is_bankruptcy(cfg, monkeypatch):
    """docs/reference-notes.md §1.2-§1.4: drift and channel noise on d mod 30 = 0 (day 30, not day 31); the
    month's involuntary rates are drawn once (day 31 is month 1 too); list prices unchanged add no price-log
    entry; no lead, no lead-cost row; customer posts only on a sampled day (``step_day()`` samples by default);
    cash one cent below $0 ends the run."""
    day = _Day(cfg, monkeypatch)
    w = day.w
    w.step_day()
    day.calls.clear()
    rows = len(w.state.ledger.rows)
    w.step_day(sample_posts=False)
    names = [n for n, _ in day.calls]
    for absent in ("apply_group_drift", "apply_individual_drift", "channel_noise", "involuntary_rates"):
        assert absent not in names
    assert "_customer_posts" not in names
    _check(day.calls, "is_drift_day", 31, w.state)
    assert len(w.price_log) == 2
    assert [tuple(r) for r in w.state.ledger.rows[rows:]] == [(31, "operations_cost", -1, "", "")]
    assert w.state.bankrupt is True
    assert [r for r in w.metrics] == [{"record of day": 30}, {"record of day": 31}]
    assert len(w.service_history) == 2 and len(w.churn_log) == 2 and len(w.issue_log) == 2


def test_a_world_keeps_its_seed_and_draws_each_group_s_customers_from_the_group_s_own_stream(cfg):
    """Principle 4: every stochastic component draws from its own named stream; a group's prospects from
    ``customers/<group id>``, in the preset's group order. The state keeps the seed (research insight noise is
    seeded by it, docs/reference-notes.md §4.25)."""
    w = World(cfg, seed=3)
    assert w.state.seed == 3
    assert len(w.group_streams) == 26
    assert all(s is w.streams.get(f"customers/{g}") for s, g in zip(w.group_streams, cfg.group_ids, strict=True))


def test_a_turn_stops_on_the_day_of_bankruptcy_and_returns_the_days_it_stepped(cfg, monkeypatch):
    """docs/reference-notes.md §1.3-§1.4: the days of a turn run until bankruptcy, which ends it at once; the turn
    still returns the records of the days stepped (days 1 and 2 of 7)."""
    w = World(cfg, seed=3)

    def step(sample_posts=True):
        w.state.day += 1
        w.state.bankrupt = w.state.day == 2
        return {"day": w.state.day}

    monkeypatch.setattr(w, "step_day", step)
    assert w.advance() == [{"day": 1}, {"day": 2}]
    assert w.state.day == 2


def test_an_agent_post_is_judged_on_its_text_and_what_the_groups_lived_through(cfg):
    """docs/reference-notes.md §4.13: the judge reads the post's content and the world's context for that post
    (``judge_context``); its verdicts are the world's."""
    from bizbench.envs.ceo.world.state import AgentPost

    seen = []
    w = World(cfg, seed=3, post_judge=lambda content, context: seen.append((content, context)) or {"S1": (0.5, "ok")})
    w.state.day = 8
    post = AgentPost(post_id=1, day=7, content="We cut prices for everyone.", reply_to=None)
    assert w._judge_post(post) == {"S1": (0.5, "ok")}
    [(content, context)] = seen
    assert content == "We cut prices for everyone."
    assert context == w.judge_context(post)
    assert sorted(context.groups) == ["E1", "E2", "E3", "S1", "S2", "S3"]


def test_customer_posts_carry_each_author_s_true_causes_plan_and_churn(cfg):
    """docs/reference-notes.md §4.12: with 3 candidates and up to 5 posts every candidate posts. The subscriber
    on A (stored $20, A now $25) tells of a price increase; the cancelled individual of churning; the churned
    enterprise of an enterprise churn; no outage or overload in the turn, no new customer (no start day)."""
    from types import SimpleNamespace

    from bizbench.envs.ceo.world.customers import CANCELLED, SUBSCRIBED

    w = World(cfg, seed=3)
    st = w.state
    st.day = 14
    st.settings.prices[:] = [25.0, 50.0, 0.5]
    cust = st.customers
    a = int(cust.append(1, {"group": 0, "status": SUBSCRIBED, "plan": 0, "listed_price": 20.0})[0])
    b = int(cust.append(1, {"group": 1, "status": CANCELLED})[0])
    c = int(cust.append(1, {"group": 3, "status": CANCELLED, "seats": 40.0})[0])
    w._customer_posts(np.array([a]), np.array([False]), _svc(), SimpleNamespace(cancelled=np.array([b])), np.array([c]))
    got = {q["customer"]: (q["kind"], q["day"], q["events"], q["plan"], q["churned"]) for q in w.feed.posts}
    assert got == {
        a: ("customer", 14, ["price_increase"], "A", False),
        b: ("customer", 14, ["churned"], None, True),
        c: ("customer", 14, ["enterprise_churn"], None, True),
    }


def test_the_subscribers_billed_at_step_20_are_the_table_s_active_rows(monkeypatch):
    """Step 20 takes step 18's subscribers and the rows step 19 appended rather than a third pass over
    the table (``World.step_day``): on every day of ten weeks of the rule-based baseline, with its
    new subscribers, cancellations and involuntary churn, they are exactly ``Customers.active()``."""
    from bizbench.envs.ceo.baselines import make_policy
    from bizbench.envs.ceo.env import CeoEnv
    from bizbench.envs.ceo.world import billing

    env = CeoEnv.from_preset("default", seed=3)
    take_payments, days = billing.take_payments, []

    def checked(state, params, rng, active, *rest):
        assert active.tolist() == state.customers.active().tolist()
        days.append(len(active))
        return take_payments(state, params, rng, active, *rest)

    monkeypatch.setattr(billing, "take_payments", checked)
    policy = make_policy("rule-based")
    band = {"point": 1e6, "lower": 0.0, "upper": 2e6}
    for _ in range(10):
        policy.act(env)
        if not env.done:  # the random policy may have ended the turn itself
            env.call(
                "next_week",
                rationale="t",
                predictions={k: band for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")},
            )
    metrics = env.world.metrics
    assert len(days) >= 70 and max(days) > 0
    for figure in ("new_subscribers", "cancellations", "involuntary_churn"):
        assert sum(m[figure] for m in metrics) > 0, figure
