"""The NovaMind world's own bookkeeping (docs/reference-notes.md §1.1-§1.2): what a new world holds before its
first day, and the records a day leaves. Each test builds a world of the default preset and steps it
at most a few days."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bizbench.envs.ceo.config import load_config
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
    c = int(cust.append(1, {"group": 3, "seats": 40.0, "plan": -1})[0])
    # 10 days of service: overload 8 days ago (index 2), outage 6 days ago (index 4), the rest quiet
    w.service_history = [_svc(overload=0.5 if k == 2 else 0.0, outage=k == 4) for k in range(10)]
    seen = {}
    monkeypatch.setattr(
        social,
        "subscriber_weights",
        lambda st, p, act, ov, out: seen.setdefault("ov", []).append(ov) or np.array([2.0]),
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
    w._customer_posts(np.array([a]), _svc(overload=0.0), dec, np.array([c]))
    w._customer_posts(np.array([a]), _svc(overload=0.5), dec, np.array([c]))
    assert seen["ov"] == [False, True]
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
    w._customer_posts(np.array([a]), _svc(overload=0.5), dec, np.array([c]))
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
