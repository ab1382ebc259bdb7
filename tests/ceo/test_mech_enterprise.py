"""Enterprise negotiation (paper eq 39-42; reference-notes §4.7 negotiation/trigger variants, §4.22-4.23)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.billing import take_payments
from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.customers import CANCELLED, LEAD, LOST, SUBSCRIBED
from bizbench.envs.ceo.world.enterprise import (
    CHURN_PREVENTION,
    DECLINE_TEXT,
    NEW_LEAD,
    PLAN_CHANGE,
    RENEGOTIATION,
    EnterpriseBook,
    MessageIds,
    enterprise_rows,
    evaluate_offers,
    negotiation_quality,
    process_day,
    reject,
    send_offers,
)
from bizbench.envs.ceo.world.quality import MarketView

N = 26
E1 = 3
PREFS = dict(c_max=100.0, q_min=0.3, q_max=0.9, s_left=1.0, s_right=1.0)


def _still(delivered, q_shift, c_drift):
    """The start-of-day and the current view of a day on which nothing moved the product or the market."""
    view = MarketView(delivered, q_shift, c_drift)
    return view, view


def sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def q_req(price, c_max=100.0, q_min=0.3, q_max=0.9):
    """Ref §4.2 with s_L = s_R = 1."""
    if price > c_max:
        return q_max
    x, half = price / c_max, (q_max - q_min) / 2
    if x < 0.5:
        return q_min + half * sig(10 * (x - 0.25))
    return q_min + half + half * sig(10 * (x - 0.75))


def c_max_of_q_right(q, c_max=100.0, q_min=0.3, q_max=0.9):
    """Eq 40 inverted by hand on the right half: x = 0.75 + logit((q - mid) / half) / 10."""
    half = (q_max - q_min) / 2
    y = (q - q_min - half) / half
    return c_max * (0.75 + math.log(y / (1 - y)) / 10)


@pytest.fixture
def ent(state, add_customer):
    """One E1 prospect (lead) with f = 0.8; delivered quality A/B/C = 0.4 / 0.65 / 0.8."""
    state.day = 10
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    state.settings.prices[:] = [200.0, 200.0, 200.0]
    c = add_customer(
        state,
        group=E1,
        status=LEAD,
        offer_factor=0.8,
        max_turns=10,
        deal_noise=1.0,
        relationship=0.5,
        reply_mean=1.0,
        reply_sd=0.1,
        seats=20.0,
        usage_demand=50.0,
        billing_mod=10,
        **PREFS,
    )
    delivered = np.zeros((N, 3))
    delivered[E1] = [0.4, 0.65, 0.8]
    return state, c, delivered, np.zeros(N), np.zeros(N)


def _offer_and_reply(state, params, fake_rng, book, c, offers, delivered, q_shift, c_drift, process_rng=None):
    send_offers(state, fake_rng(normal=[0.0]), book, c, offers)  # reply delay = 1 day
    state.day += 1
    rng = process_rng if process_rng is not None else fake_rng()
    return process_day(state, params, rng, book, *_still(delivered, q_shift, c_drift))


def test_counter_offer_first_turn(ent, params, fake_rng):
    """Eq 39-41 / reference-notes §4.23: no positive surplus -> counter = C_max(Q) (1 - (1 - f) 0.7^t),
    rounded to cents, with t = 1 (the agent's first message is turn 1 of a new_lead thread).
    Q = 0.65 for plan B: C_max = 100 (0.75 + ln(0.2)/10) = 58.906."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    thread = book.open_by_customer[c]
    assert thread.next_reply_day == 11
    assert 0.65 - q_req(90) < 0
    verdict, plan, price = evaluate_offers(state, params, thread, delivered, q_shift, c_drift)
    cmax = c_max_of_q_right(0.65)
    assert cmax == pytest.approx(58.90562, abs=1e-4)
    assert verdict == "counter" and plan == 1
    assert price == round(cmax * (1 - 0.2 * 0.7), 2)
    assert price == 50.66


def test_accept_best_positive_offer(ent, params, fake_rng):
    """Eq 39 / reference-notes §4.23: the best offering by surplus is accepted if surplus > 0; a new lead
    becomes a subscriber at the agreed price, relationship +0.10, start day = deal day,
    budget snapshot = undrifted c_max, usage rate sampled x seats."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    offers = [(0, 10.0), (2, 40.0), (1, 95.0)]
    s = [0.4 - q_req(10), 0.8 - q_req(40), 0.65 - q_req(95)]
    assert s[1] > s[0] > 0 > s[2]
    out = _offer_and_reply(
        state,
        params,
        fake_rng,
        book,
        c,
        offers,
        delivered,
        q_shift,
        c_drift,
        process_rng=fake_rng(normal=[0.0], random=[[0.9]]),
    )
    cust = state.customers
    assert out.won == [c]
    assert cust.status[c] == SUBSCRIBED
    assert cust.plan[c] == 2
    assert cust.listed_price[c] == 40.0 and cust.effective_price[c] == 40.0
    assert cust.start_day[c] == 11
    assert cust.relationship[c] == pytest.approx(0.6)
    assert cust.effective_c_max[c] == 100.0
    assert cust.usage_rate[c] == pytest.approx(50.0 * 20)
    assert cust.billing_mod[c] == 10  # anchor stays at lead creation
    assert c not in book.open_by_customer


@pytest.mark.parametrize("max_turns", [2, 3])
def test_ghost_past_max_turns(ent, params, fake_rng, max_turns):
    """Ref §4.23: the customer ghosts when the agent's latest turn number >= max turns; a
    ghosted new lead is lost. The first offer on a new lead is turn 1 (countered), the second
    is turn 3, so it is ghosted with max_turns 2 and with max_turns 3."""
    state, c, delivered, q_shift, c_drift = ent
    state.customers.max_turns[c] = max_turns
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    out = _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
    assert out.countered == [c]
    out = _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
    assert out.lost_leads == [c]
    assert state.customers.status[c] == LOST
    assert book.threads[0].status == "ghosted"


def test_agent_timeout_after_7_days(ent, params, fake_rng):
    """Ref §4.23: the agent must reply within 7 days of the latest customer/system message;
    at d - that day >= 7 a new lead is lost."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, 10, "New enterprise lead.")
    state.day = 16
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    assert out.lost_leads == [] and c in book.open_by_customer
    state.day = 17
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    assert out.lost_leads == [c]
    assert state.customers.status[c] == LOST
    assert book.threads[0].status == "timeout"


def test_late_reply_relationship_penalty(ent, params, fake_rng):
    """Ref §4.10: agent replying d days after the last customer message loses 0.02 (d - 1)."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, 10, "New enterprise lead.")
    state.day = 14
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    assert state.customers.relationship[c] == pytest.approx(0.5 - 0.02 * 3)


@pytest.mark.parametrize(("reply_day", "relationship"), [(10, 0.5), (11, 0.5), (12, 0.48), (13, 0.46)])
def test_a_reply_the_day_after_the_customers_message_costs_nothing_and_each_later_day_costs_0_02(
    ent, params, fake_rng, reply_day, relationship
):
    """Ref §4.10/§4.23: -0.02 a day of late reply *beyond one*. The lead's message is on day 10;
    a reply on day 10 or 11 (delay 0 or 1) keeps r = 0.5 exactly; day 12 (delay 2, the first late
    day) costs 0.02 x 1 -> 0.48; day 13 costs 0.02 x 2 -> 0.46."""
    state, c, *_ = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, 10, "New enterprise lead.")
    state.day = reply_day
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    assert state.customers.relationship[c] == pytest.approx(relationship, abs=1e-12)


def test_the_reply_delay_counts_from_the_customers_latest_message_not_from_the_thread_opening(ent, params, fake_rng):
    """Ref §4.23: the thread opens on day 10, the agent offers on day 10, the customer counters on
    day 11 (its reply delay max(1, round(N(1, 0.1))) = 1). A reply on day 12 is one day after the
    counter: no penalty (counted from day 10 it would be 2 days, -0.02). A second reply two
    days after the next counter is the first late day: -0.02."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, 10, "New enterprise lead.")
    out = _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
    assert out.countered == [c] and state.day == 11
    state.day = 12
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    assert state.customers.relationship[c] == 0.5
    state.day = 13
    assert process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift)).countered == [c]
    state.day = 15
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    assert state.customers.relationship[c] == pytest.approx(0.48, abs=1e-12)


def test_the_late_reply_penalty_stops_at_a_relationship_of_zero(ent, params, fake_rng):
    """Ref §4.10: r stays in [0, 1]: r = 0.03 and a reply 4 days late (delay 5) would lose 0.08 ->
    0, not -0.05."""
    state, c, *_ = ent
    state.customers.relationship[c] = 0.03
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, 10, "New enterprise lead.")
    state.day = 15
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    assert state.customers.relationship[c] == 0.0


def _subscribed(state, c, listed):
    cust = state.customers
    cust.status[c] = SUBSCRIBED
    cust.plan[c] = 1
    cust.listed_price[c] = listed
    cust.effective_price[c] = listed
    cust.start_day[c] = state.day
    cust.first_billing_done[c] = True


def test_churn_prevention_opens_and_suspends_payment(ent, params, fake_rng):
    """Ref §4.23 / §4.22: a churn-prevention thread opens when the trigger surplus at the
    stored price is < 0 (Q = 0.65 vs Q_req(95) = 0.864); payment is suspended while it is open
    (on day 40, the account's anchor, six days after the thread opened); an agent reject closes it
    and the customer stays subscribed and pays at its next anchor (day 70), although the trigger
    opens a new thread that day (it suspends from the next day's step on)."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 95.0)
    assert 0.65 - q_req(95) < 0
    book = EnterpriseBook()
    state.day = 34
    out = process_day(state, params, fake_rng(random=[[0.9]]), book, *_still(delivered, q_shift, c_drift))
    assert out.opened == [c] and out.suspended.tolist() == []
    thread = book.open_by_customer[c]
    assert thread.kind == CHURN_PREVENTION
    assert [t["sender"] for t in thread.turns] == ["system", "customer"]

    state.day = 40  # anchor 10
    active = np.array([c])
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    assert out.suspended.tolist() == [c] and out.churned == []
    pay = take_payments(state, params, np.random.default_rng(0), active, out.suspended, c_drift)
    assert len(pay.customers) == 0
    reject(state, book, c)
    assert state.customers.status[c] == SUBSCRIBED
    state.day = 70
    out = process_day(state, params, fake_rng(random=[[0.9]]), book, *_still(delivered, q_shift, c_drift))
    assert out.suspended.tolist() == [] and out.opened == [c]
    pay = take_payments(state, params, np.random.default_rng(0), active, out.suspended, c_drift)
    assert pay.cents.tolist() == [95 * 20 * 100]


def _views(start_delivered, now_delivered):
    zero = np.zeros(N)
    return MarketView(start_delivered, zero, zero), MarketView(now_delivered, zero, zero)


def test_a_reply_reads_the_product_as_it_is_now_and_the_deal_it_closes_opens_no_thread_that_day(ent, params, fake_rng):
    """Reference-notes §1.2, §4.23 (the engine's order): a customer's reply reads the quality as it is at step 17
    (today's development included: B delivers 1.0 now, 0.65 at the start of the day), so the lead accepts B at $90
    (surplus 1.0 - Q_req(90) > 0; at 0.65 it would counter). The new threads read the start of the day's
    caches, where the account at $90 has a negative surplus (0.65 - Q_req(90) < 0), but a customer whose thread
    was open when the step began opens none that day; the next day, at the same quality, its churn-prevention
    thread opens."""
    state, c, delivered, *_ = ent
    better = delivered.copy()
    better[E1, 1] = 1.0
    assert 1.0 - q_req(90) > 0 > 0.65 - q_req(90)
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    state.day += 1
    out = process_day(state, params, fake_rng(normal=[0.0]), book, *_views(delivered, better))
    assert out.won == [c] and out.opened == [] and c not in book.open_by_customer
    state.day += 1
    out = process_day(state, params, fake_rng(random=[[0.9]]), book, *_views(delivered, better))
    assert out.opened == [c] and book.open_by_customer[c].kind == CHURN_PREVENTION


def test_payment_is_suspended_for_the_threads_open_when_the_day_s_negotiations_began(ent, params, fake_rng):
    """Ref §4.22 with the engine's order (§1.2 step 17): whose payment is suspended today is decided before the
    day's replies and triggers. An account whose churn-prevention thread closes today with an accepted deal pays
    nothing today (it pays again from its next anchor); one whose churn-prevention thread opens today still pays
    today."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 95.0)
    book = EnterpriseBook()
    out = process_day(state, params, fake_rng(random=[[0.9]]), book, *_still(delivered, q_shift, c_drift))
    assert out.opened == [c] and out.suspended.tolist() == []
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 20.0)])
    state.day += 1
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    assert out.won == [c] and out.suspended.tolist() == [c] and c not in book.open_by_customer


def test_no_churn_thread_when_surplus_positive(ent, params, fake_rng):
    """Ref §4.23 trigger: surplus 0.65 - Q_req(50) = 0.027 > 0 on a W = 1 day -> no thread."""
    state, c, delivered, q_shift, c_drift = ent
    state.day = 7  # 7 mod 7 = 0 -> W = 1.0
    _subscribed(state, c, 50.0)
    state.customers.usage_rate[c] = 100.0
    state.settings.quotas[:] = [1e9, 100.0, 1e9]
    assert 0.65 - q_req(50) > 0
    out = process_day(state, params, fake_rng(random=[[0.9]]), EnterpriseBook(), *_still(delivered, q_shift, c_drift))
    assert out.opened == []


def test_churn_trigger_quota_factor_uses_weekly_demand(ent, params, fake_rng):
    """Ref §4.7 / §4.4: on a W = 1.15 day demand = 115 > quota 100 -> F = 0.8696, so
    Q = 0.65 F = 0.565 < Q_req(50) = 0.623 and a churn-prevention thread opens."""
    state, c, delivered, q_shift, c_drift = ent
    state.day = 9  # 9 mod 7 = 2 -> W = 1.15
    _subscribed(state, c, 50.0)
    state.customers.usage_rate[c] = 100.0
    state.settings.quotas[:] = [1e9, 100.0, 1e9]
    assert 0.65 * 100 / 115 - q_req(50) < 0
    out = process_day(state, params, fake_rng(random=[[0.9]]), EnterpriseBook(), *_still(delivered, q_shift, c_drift))
    assert out.opened == [c]


def test_existing_customer_timeout_cancels(ent, params, fake_rng):
    """Ref §4.23 / §4.10: an unanswered existing-customer thread cancels the account and
    costs 0.30 relationship."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 95.0)
    book = EnterpriseBook()
    process_day(state, params, fake_rng(random=[[0.9]]), book, *_still(delivered, q_shift, c_drift))
    state.day += 7
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    assert out.churned == [c]
    assert state.customers.status[c] == CANCELLED
    assert state.customers.relationship[c] == pytest.approx(0.2)


@pytest.mark.parametrize("case", ["new_lead_second_offer", "churn_prevention_first_offer", "renegotiation_first_offer"])
def test_counter_offer_uses_thread_turn_number(ent, params, fake_rng, case):
    """Eq 41 / reference-notes §4.23: counter = C_max (1 - (1 - f) 0.7^t), t = thread turn number of the
    agent's latest message: 3 for a new lead's second offer, 2 for the first reply on a
    churn-prevention thread (system 0, customer 1), 0 for an agent-opened renegotiation."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    cmax = c_max_of_q_right(0.65)
    if case == "new_lead_second_offer":
        book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
        _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
        t = 3
    elif case == "churn_prevention_first_offer":
        _subscribed(state, c, 95.0)
        process_day(state, params, fake_rng(random=[[0.9]]), book, *_still(delivered, q_shift, c_drift))
        assert book.open_by_customer[c].kind == CHURN_PREVENTION
        t = 2
    else:
        _subscribed(state, c, 60.0)
        t = 0
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 90.0)])
    thread = book.open_by_customer[c]
    assert thread.turns[-1]["sender"] == "agent" and thread.turns[-1]["turn"] == t
    verdict, _, price = evaluate_offers(state, params, thread, delivered, q_shift, c_drift)
    assert verdict == "counter"
    assert price == round(cmax * (1 - 0.2 * 0.7**t), 2)


def test_with_the_engines_flag_a_firm_above_its_q_max_accepts_a_price_above_its_budget(ent, params, fake_rng):
    """Ref §4.23 + §4.2 (``fixes.enterprise_offer_within_budget = false``, engine-bugs): q_max = 0.75 <
    Q = 0.8 (plan C) -> surplus at $150 (> c_max 100) is 0.8 - 0.75 = 0.05 > 0 -> accept."""
    state, c, delivered, q_shift, c_drift = ent
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_offer_within_budget": False})}
    )
    state.customers.q_max[c] = 0.75
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(2, 150.0)])
    verdict, plan, price = evaluate_offers(state, params, book.open_by_customer[c], delivered, q_shift, c_drift)
    assert (verdict, plan, price) == ("accept", 2, 150.0)


W_B = c_max_of_q_right(0.65)  # plan B's willingness C_max(Q = 0.65) of the ent fixture: $58.906


@pytest.mark.parametrize(
    ("price", "verdict"),
    [
        (1.0, "accept"),
        (0.5 * W_B, "accept"),
        (W_B - 0.01, "accept"),
        (W_B + 0.01, "counter"),
        (1.5 * W_B, "counter"),
        (99.0, "counter"),
        (500.0, "counter"),
    ],
)
def test_an_offer_below_the_customers_willingness_is_accepted_and_one_above_is_countered(
    ent, params, fake_rng, price, verdict
):
    """The acceptance curve (docs/calibration.md "Enterprise acceptance curve"; CEO-Bench eq 39-41):
    surplus 0.65 - Q_req(C) > 0 exactly when C < C_max(0.65) = $58.906, so offers below that
    willingness are accepted at the offered price, and any offer above it is countered at the same
    eq 41 price whatever its size: 58.906 (1 - 0.2 x 0.7^1) = $50.66."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, price)])
    got = evaluate_offers(state, params, book.open_by_customer[c], delivered, q_shift, c_drift)
    if verdict == "accept":
        assert got == ("accept", 1, price)
    else:
        assert got == ("counter", 1, 50.66)


@pytest.mark.parametrize(
    ("price", "verdict"),
    [
        (50.0, "accept"),
        (100.0, "accept"),
        (100.01, "counter"),
        (1_000.0, "counter"),
        (1_000_000.0, "counter"),
    ],
)
def test_a_firm_whose_quality_exceeds_its_q_max_never_accepts_a_price_above_its_budget(
    ent, params, fake_rng, price, verdict
):
    """Plan B delivers 0.95 > q_max = 0.9 (a lead's quality reaches this through its U(0.8, 1.1) noise).
    The engine's surplus above the budget is Q - q_max = +0.05, so it accepts any price, $1,000,000
    per seat too (reference-notes §4.2, §4.23). With ``fixes.enterprise_offer_within_budget`` (default)
    a price above c_max = $100 is countered at eq 41's C_max(Q) (1 - 0.2 x 0.7^1) = 100 x 0.86 = $86.00
    (eq 40 bounds C_max(Q) by the budget), and any price up to the budget is still accepted
    (Q_req(100) = 0.6 + 0.3 sig(2.5) = 0.877 < 0.95)."""
    state, c, delivered, q_shift, c_drift = ent
    delivered[E1] = [0.4, 0.95, 0.8]
    assert 0.95 - q_req(100.0) > 0 and 0.95 - q_req(100.01) > 0
    results = {}
    for fixed in (True, False):
        state.config = state.config.model_copy(
            update={"fixes": state.config.fixes.model_copy(update={"enterprise_offer_within_budget": fixed})}
        )
        book = EnterpriseBook()
        book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
        send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, price)])
        results[fixed] = evaluate_offers(state, params, book.open_by_customer[c], delivered, q_shift, c_drift)
    assert results[True] == (("accept", 1, price) if verdict == "accept" else ("counter", 1, 86.0))
    assert results[False] == ("accept", 1, price)


def test_of_several_offers_the_firm_takes_the_best_one_within_its_budget(ent, params, fake_rng):
    """Plan B at $1,000,000 has the larger surplus (0.95 - q_max 0.9 = +0.05) but is above the $100
    budget; plan C at $40 has 0.58 - Q_req(40) = +0.035. The firm takes plan C at $40, the best
    offer it can pay for (the engine would take B at $1,000,000)."""
    state, c, delivered, q_shift, c_drift = ent
    delivered[E1] = [0.4, 0.95, 0.58]
    assert 0 < 0.58 - q_req(40.0) < 0.95 - 0.9
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 1_000_000.0), (2, 40.0)])
    got = evaluate_offers(state, params, book.open_by_customer[c], delivered, q_shift, c_drift)
    assert got == ("accept", 2, 40.0)


def test_counters_rise_toward_willingness_until_the_customer_stops_replying(ent, params, fake_rng):
    """Eq 41 with gamma = 0.7 and f = 0.8 (reference-notes §4.23): an agent that keeps offering $90 on
    plan B to a lead with 6 maximum turns hears counters at turns 1, 3 and 5 of
    C_max (1 - 0.2 x 0.7^t) = $50.66, $54.86, $56.93 (each closer to the $58.906 willingness);
    its fourth offer is turn 7 >= 6, so the customer stops replying and the lead is lost
    (the paper: "if the configured maximum turn count is exceeded, the customer stops responding")."""
    state, c, delivered, q_shift, c_drift = ent
    state.customers.max_turns[c] = 6
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    counters = []
    for _ in range(3):
        out = _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
        assert out.countered == [c]
        counters.append(book.open_by_customer[c].turns[-1]["offer"]["price"])
    assert counters == pytest.approx([W_B * (1 - 0.2 * 0.7**t) for t in (1, 3, 5)], abs=0.006)
    assert counters == [50.66, 54.86, 56.93] and counters[-1] < W_B
    out = _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
    assert out.lost_leads == [c] and out.declined == []
    assert book.threads[0].status == "ghosted" and book.threads[0].turns[-1]["sender"] == "agent"


def test_accepting_the_customers_counter_closes_the_deal(ent, params, fake_rng):
    """The counter is below the willingness (f < 1), so offering it back is accepted (eq 39-41)."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift)
    counter = book.open_by_customer[c].turns[-1]["offer"]["price"]
    out = _offer_and_reply(
        state,
        params,
        fake_rng,
        book,
        c,
        [(1, counter)],
        delivered,
        q_shift,
        c_drift,
        process_rng=fake_rng(normal=[0.0], random=[[0.9]]),
    )
    assert out.won == [c] and state.customers.listed_price[c] == counter == 50.66


def test_a_lead_that_no_price_can_satisfy_says_so_and_is_lost(ent, params, fake_rng):
    """Eq 40 has no price when Q < Q_req(0) (0.30 < 0.3 + 0.3 sig(-2.5) = 0.3228): the engine's counter
    is 0 and the customer ghosts silently (reference-notes §4.23); here it replies that no price
    works at that quality, and the lead is lost with the same consequences."""
    state, c, delivered, q_shift, c_drift = ent
    delivered[E1] = [0.2, 0.25, 0.3]
    assert 0.3 < q_req(0.0)
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    out = _offer_and_reply(state, params, fake_rng, book, c, [(0, 1.0), (2, 0.01)], delivered, q_shift, c_drift)
    assert out.declined == [c] and out.lost_leads == [c] and out.countered == []
    thread = book.threads[0]
    assert thread.turns[-1]["sender"] == "customer" and thread.turns[-1]["text"] == DECLINE_TEXT
    assert thread.turns[-1]["day"] == 11  # the day of the reply
    assert state.customers.status[c] == LOST and c not in book.open_by_customer
    assert thread.status == "declined"


def test_with_the_engines_flag_a_lead_that_no_price_can_satisfy_ghosts_silently(ent, params, fake_rng):
    """``fixes.enterprise_decline_says_so = false`` (engine-bugs; reference-notes §4.23): the same lead as
    above gets no message, its thread ends ``ghosted`` and it is not counted as declined (so the
    lead_lost notification carries no reason); it is lost all the same."""
    state, c, delivered, q_shift, c_drift = ent
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_decline_says_so": False})}
    )
    delivered[E1] = [0.2, 0.25, 0.3]
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    out = _offer_and_reply(state, params, fake_rng, book, c, [(0, 1.0), (2, 0.01)], delivered, q_shift, c_drift)
    assert out.declined == [] and out.lost_leads == [c] and out.countered == []
    thread = book.threads[0]
    assert thread.status == "ghosted" and thread.turns[-1]["sender"] == "agent"
    assert all(t["text"] != DECLINE_TEXT for t in thread.turns)
    assert state.customers.status[c] == LOST and c not in book.open_by_customer


def test_rejecting_a_new_lead_answers_declined_closes_the_thread_and_loses_the_lead(ent, params, fake_rng):
    """Ref §4.23: the agent's rejection is its last message ("Declined.", on the day it is sent);
    the thread ends ``agent_rejected`` and a new lead is lost."""
    state, c, *_ = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    state.day = 12
    thread = reject(state, book, c)
    assert thread is book.threads[0]
    assert [(t["sender"], t["day"], t["text"]) for t in thread.turns] == [
        ("system", 10, "New enterprise lead."),
        ("agent", 12, "Declined."),
    ]
    assert thread.status == "agent_rejected" and c not in book.open_by_customer
    assert state.customers.status[c] == LOST


def _plan_c_at_40_won(ent, params, fake_rng):
    """The lead of ``ent`` offered plan C at $40, which it accepts (surplus 0.8 - Q_req(40) > 0)."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    won = fake_rng(normal=[0.0], random=[[0.9]])
    return _offer_and_reply(state, params, fake_rng, book, c, [(2, 40.0)], delivered, q_shift, c_drift, won)


@pytest.mark.parametrize(("promo_global", "promotion", "effective"), [(5.0, 7.0, 33.0), (43.0, 45.0, 0.0)])
def test_a_won_deal_keeps_the_ongoing_promotion_and_charges_the_price_less_it_never_below_zero(
    ent, params, fake_rng, promo_global, promotion, effective
):
    """Eq 7 without the lead term: the deal's promotion is the ongoing one (global + the group's
    $2), stored with the customer; the effective price is max(0, $40 - promotion)."""
    state, c, *_ = ent
    state.settings.promo_global = promo_global
    state.settings.promo_by_group[E1] = 2.0
    out = _plan_c_at_40_won(ent, params, fake_rng)
    cust = state.customers
    assert out.won == [c]
    assert cust.listed_price[c] == 40.0
    assert cust.promotion[c] == promotion
    assert cust.effective_price[c] == effective


def test_a_won_deal_raises_the_relationship_by_a_tenth_but_not_past_one(ent, params, fake_rng):
    """Ref §4.10: a deal won adds 0.10 to the relationship, which stays in [0, 1]: 0.95 -> 1.0."""
    state, c, *_ = ent
    state.customers.relationship[c] = 0.95
    out = _plan_c_at_40_won(ent, params, fake_rng)
    assert out.won == [c]
    assert state.customers.relationship[c] == 1.0


def _unanswered_churn_thread(ent, params, fake_rng, relationship):
    """The account of ``ent`` at ``relationship``, its churn-prevention thread left unanswered 7 days."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 95.0)
    state.customers.relationship[c] = relationship
    book = EnterpriseBook()
    book.open_thread(c, CHURN_PREVENTION, state.day, "Churn risk.")
    state.day += 7
    return process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))


def test_a_timed_out_account_loses_relationship_down_to_zero_not_below(ent, params, fake_rng):
    """Ref §4.10: the timeout's -0.30 takes a relationship of 0.1 to 0, not -0.2."""
    state, c, *_ = ent
    out = _unanswered_churn_thread(ent, params, fake_rng, 0.1)
    assert out.churned == [c]
    assert state.customers.relationship[c] == 0.0


def test_an_ended_account_s_relationship_stays_at_most_one_whatever_the_preset_adds(ent, params, fake_rng):
    """Ref §4.10: r stays in [0, 1] for any configured change: a preset that adds +0.3 on a
    timeout takes 0.9 to 1.0, not 1.2."""
    state, c, *_ = ent
    enterprise = state.config.enterprise.model_copy(update={"relationship_timeout": 0.3})
    state.config = state.config.model_copy(update={"enterprise": enterprise})
    out = _unanswered_churn_thread(ent, params, fake_rng, 0.9)
    assert out.churned == [c] and state.customers.status[c] == CANCELLED
    assert state.customers.relationship[c] == 1.0


# ---------------------------------------------------------------------------- the agent's view of threads
def _env_with_leads(n: int):
    from bizbench.envs.ceo.env import CeoEnv

    env = CeoEnv.from_preset("default", seed=3, horizon_days=60)
    st = env.world.state
    g = env.config.group_ids.index("E1")
    ids = st.customers.append(n, {"group": np.full(n, g), "status": np.full(n, LEAD), "seats": np.full(n, 40.0)})
    for c in ids:
        env.world.book.open_thread(int(c), NEW_LEAD, st.day, "New enterprise lead.")
    return env, [int(c) for c in ids]


def test_list_enterprise_threads_pages_past_500_with_an_offset():
    """1,203 open threads: pages of 500 from offset 0, 500 and 1,000 hold every thread once, newest
    first, and next_offset says where the next page starts (null on the last)."""
    env, ids = _env_with_leads(1203)
    seen, offset, pages = [], 0, []
    while offset is not None:
        r = env.call("list_enterprise_threads", limit=500, offset=offset)
        assert r.ok, r.error
        assert r.data["total"] == 1203 and r.data["offset"] == offset
        seen += [t["customer_id"] for t in r.data["threads"]]
        pages.append(len(r.data["threads"]))
        offset = r.data["next_offset"]
    assert pages == [500, 500, 203]
    assert seen == ids[::-1]
    assert env.call("list_enterprise_threads", offset=5000).data == {
        "threads": [],
        "total": 1203,
        "offset": 5000,
        "next_offset": None,
    }
    bad = env.call("list_enterprise_threads", offset=-1)
    assert not bad.ok and "offset" in bad.error


def test_an_unknown_thread_id_is_explained_when_there_are_no_threads():
    """The error names the argument and what exists, never "threads are numbered 1-0"."""
    env, _ = _env_with_leads(0)
    r = env.call("get_enterprise_thread", thread_id=1)
    assert not r.ok and r.error == "Unknown thread_id 1: there are no negotiation threads yet."
    env, _ = _env_with_leads(1)
    assert env.call("get_enterprise_thread", thread_id=2).error == "Unknown thread_id 2; the only thread id is 1."
    env, _ = _env_with_leads(3)
    assert env.call("get_enterprise_thread", thread_id=0).error == "Unknown thread_id 0; thread ids run from 1 to 3."


@pytest.mark.parametrize("fixed", [True, False])
def test_the_counter_falls_on_an_offered_plan_some_price_can_win(ent, params, fake_rng, fixed):
    """Plan A at $0.01 (Q = 0.30 < Q_req(0) = 0.3228: willingness 0) has the best surplus (-0.023)
    next to plan B at $99 (0.65 - 0.90); the engine counters on A, whose counter is 0, so the lead
    is lost (reference-notes §4.23; ``fixes.enterprise_counter_on_a_winnable_plan = false``);
    ours counters on B at eq 41's $50.66."""
    state, c, delivered, q_shift, c_drift = ent
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_counter_on_a_winnable_plan": fixed})}
    )
    delivered[E1] = [0.3, 0.65, 0.8]
    assert 0.3 - q_req(0.01) > 0.65 - q_req(99.0) and 0.3 < q_req(0.0)
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(0, 0.01), (1, 99.0)])
    got = evaluate_offers(state, params, book.open_by_customer[c], delivered, q_shift, c_drift)
    assert got == (("counter", 1, 50.66) if fixed else ("decline", 0, 0.0))


# ---------------------------------------------------------------------------- a simple seller closes deals
class _SimpleSeller:
    """The Appendix B rule-based policy plus a plain enterprise playbook, through the tools only:
    quotas that cover a firm's usage (the gate), targeted development for E1, and every thread
    awaiting a reply answered the same day: a counter is offered back as it stands, anything else
    gets plan C at $30 and plan B at $18 per seat."""

    def __init__(self):
        from bizbench.envs.ceo.baselines import make_policy

        self.core = make_policy("rule-based")

    def act(self, env):
        self.core.act(env)
        assert env.call("set_usage_quotas", A=60_000.0, B=250_000.0, C=5_000_000.0).ok
        assert env.call("set_targeted_dev_spend", targeted_spend={"S1": 6_000.0, "E1": 3_000.0}).ok
        deals, offset = [], 0
        while offset is not None:
            page = env.call("list_enterprise_threads", status="awaiting_response", limit=500, offset=offset).data
            for t in page["threads"]:
                last = t["last_message"]
                if last["sender"] == "customer" and last["offer"]:
                    offers = [{"plan": last["offer"]["plan"], "price_per_seat": last["offer"]["price"]}]
                else:
                    offers = [{"plan": "C", "price_per_seat": 30.0}, {"plan": "B", "price_per_seat": 18.0}]
                deals.append({"customer_id": t["customer_id"], "offerings": offers})
            offset = page["next_offset"]
        if deals:
            r = env.call("send_enterprise_deal", deals=deals)
            assert r.ok, r.error


def test_a_simple_policy_closes_enterprise_deals_that_pay():
    """Through the agent's tools only, on seed 1 over the first 126 days: leads open threads, counters come
    back, offering them back closes deals (a deal_won notification each, a DEAL CLOSED turn), and
    the won accounts pay per seat (subscription_payment rows of the E groups)."""
    from bizbench.envs.ceo.env import CeoEnv

    env = CeoEnv.from_preset("default", seed=1, horizon_days=500)
    seller = _SimpleSeller()
    while env.world.state.day < 120:
        seller.act(env)
        env.next_turn()
    threads = env.call("list_enterprise_threads", status="all", limit=500).data["threads"]
    accepted = [t for t in threads if t["status"] == "accepted"]
    won = env.call("get_notifications", type="deal_won", limit=1000).data["notifications"]
    assert len(accepted) == len(won) >= 10
    assert all(t["last_message"]["text"].startswith("[DEAL CLOSED]") for t in accepted)
    countered_then_won = [
        t
        for t in accepted
        if any(
            m["sender"] == "customer" and m["offer"]
            for m in env.call("get_enterprise_thread", thread_id=t["thread_id"]).data["messages"]
        )
    ]
    assert countered_then_won
    paid = sum(
        r.cents
        for r in env.world.state.ledger.rows
        if r.category == "subscription_payment" and r.group in ("E1", "E2", "E3")
    )
    assert paid > 0


def test_message_ids_count_up_from_one_across_every_thread():
    ids = MessageIds()
    assert [ids.next() for _ in range(3)] == [1, 2, 3] and ids.last == 3


PLANS = np.array([0, 1, 2])


def test_a_lead_perceives_the_delivered_quality_times_its_impression_noise_clipped_to_one(ent, params):
    """Eq 39 Q_perc for a lead (reference-notes §4.7): no usage yet (F = 1 whatever the quota), no
    tenure, relationship 0.5 (no bonus), no ads and no issues, so Q = clip(delivered, -1, 1) x noise."""
    state, c, delivered, _, _ = ent
    state.settings.quotas[:] = [10.0, 10.0, 10.0]  # would be F = 0.2 for a customer using 50
    state.customers.usage_rate[c] = 50.0
    state.customers.deal_noise[c] = 0.9
    got = negotiation_quality(state, params, c, PLANS, delivered, lead=True)
    assert got.tolist() == pytest.approx([0.36, 0.585, 0.72], abs=1e-12)
    delivered[E1] = [-3.0, 0.5, 3.0]
    state.customers.deal_noise[c] = 1.0
    assert negotiation_quality(state, params, c, PLANS, delivered, lead=True).tolist() == [-1.0, 0.5, 1.0]


def test_a_customer_perceives_its_quota_share_its_tenure_and_no_ad_of_its_own(ent, params):
    """An existing account: F = quota / usage = 10 / 50 = 0.2, TB = 0.05 ln(1 + 60 / 30) (the real
    tenure, fixes.tenure_in_negotiation), no impression noise; ads aimed at the customer alone are
    left out (only global and group ads count in a negotiation)."""
    state, c, delivered, _, _ = ent
    state.customers.status[c] = SUBSCRIBED
    state.customers.start_day[c] = state.day - 60
    state.customers.usage_rate[c] = 50.0
    state.customers.deal_noise[c] = 0.5  # a lead's only
    state.settings.quotas[:] = [10.0, 10.0, 10.0]
    state.settings.ads_by_customer = {c: 1.0}
    state.customers.eta_ads[c] = 0.5  # it would cost 0.5 x the full load of 1
    tenure = 0.05 * math.log(1 + 60 / 30)
    expected = [(d + tenure) * 0.2 for d in (0.4, 0.65, 0.8)]
    assert negotiation_quality(state, params, c, PLANS, delivered, lead=False).tolist() == pytest.approx(
        expected, abs=1e-12
    )


def _required(state, price):
    """The quality the ``ent`` firm requires at ``price`` (eq 5), exactly as the world computes it."""
    p = PREFS
    args = (p["c_max"], p["q_min"], p["q_max"], p["s_left"], p["s_right"], state.config.curve)
    return required_quality(np.array([price]), *args)[0]


def _engine_flags(state, **flags):
    state.config = state.config.model_copy(update={"fixes": state.config.fixes.model_copy(update=flags)})


def test_past_its_maximum_turns_a_customer_ghosts_with_no_plan_and_no_price(ent, params, fake_rng):
    state, c, delivered, q_shift, c_drift = ent
    state.customers.max_turns[c] = 0
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    thread = send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 10.0)])
    assert evaluate_offers(state, params, thread, delivered, q_shift, c_drift) == ("ghost", -1, 0.0)


def test_with_the_engines_flag_a_customer_no_price_can_satisfy_ghosts_on_the_best_plan(ent, params, fake_rng):
    state, c, delivered, q_shift, c_drift = ent
    _engine_flags(state, enterprise_decline_says_so=False, enterprise_counter_on_a_winnable_plan=False)
    delivered[E1] = [0.0, 0.0, 0.1]  # below Q_req(0) = 0.3 + ...: every willingness is 0
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    thread = send_offers(state, fake_rng(normal=[0.0]), book, c, [(0, 10.0), (2, 10.0)])
    assert evaluate_offers(state, params, thread, delivered, q_shift, c_drift) == ("ghost", 2, 0.0)


@pytest.mark.parametrize("within_budget", [True, False])
def test_an_offer_of_exactly_zero_surplus_is_countered_not_accepted(ent, params, fake_rng, within_budget):
    """Accepted only at a positive surplus Q - Q_req(C) (CEO-Bench eq 39): a plan whose perceived
    quality is exactly what its price requires is countered, with either flag."""
    state, c, delivered, q_shift, c_drift = ent
    _engine_flags(state, enterprise_offer_within_budget=within_budget)
    delivered[E1, 1] = _required(state, 60.0)
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    thread = send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 60.0)])
    verdict, plan, _ = evaluate_offers(state, params, thread, delivered, q_shift, c_drift)
    assert (verdict, plan) == ("counter", 1)


def test_an_offer_message_lists_each_plan_and_price_and_the_reply_waits_a_normal_delay(ent):
    """Eq 42: the customer replies after max(1, round(N(mean, sd))) days."""
    state, c, *_ = ent
    state.customers.reply_mean[c], state.customers.reply_sd[c] = 10.0, 0.001
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    rng = np.random.default_rng(3)  # its first standard normal is 2.04: a delay of 12 days at sd 1
    thread = send_offers(state, rng, book, c, [(0, 1234.5), (2, 40.0)])
    turn = thread.turns[-1]
    assert turn["text"] == "Plan A at $1,234.50/seat/month; Plan C at $40.00/seat/month"
    assert turn["offer"] == [{"plan": "A", "price_per_seat": 1234.5}, {"plan": "C", "price_per_seat": 40.0}]
    assert thread.next_reply_day == state.day + 10


def test_a_counter_stays_on_the_best_plan_while_its_willingness_is_above_zero_even_below_a_dollar(
    ent, params, fake_rng
):
    """fixes.enterprise_counter_on_a_winnable_plan moves the counter only when the best-surplus plan's
    willingness is 0: plan A worth $0.50 to the firm (offered at $0.60) keeps it, though plan C is worth more."""
    state, c, delivered, q_shift, c_drift = ent
    delivered[E1, 0] = _required(state, 0.5)
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    thread = send_offers(state, fake_rng(normal=[0.0]), book, c, [(0, 0.6), (2, 1000.0)])
    verdict, plan, price = evaluate_offers(state, params, thread, delivered, q_shift, c_drift)
    assert (verdict, plan) == ("counter", 0) and 0.0 < price <= 0.5


def test_threads_are_numbered_from_one_and_closing_one_twice_keeps_its_last_status():
    book = EnterpriseBook()
    first = book.open_thread(7, NEW_LEAD, 3, "New enterprise lead.")
    second = book.open_thread(8, NEW_LEAD, 3, None)
    assert (first.thread_id, second.thread_id) == (1, 2)
    assert [t["text"] for t in first.turns] == ["New enterprise lead."] and second.turns == []
    book.close(first, "ghosted")
    book.close(first, "declined")
    assert first.status == "declined" and list(book.open_by_customer) == [8]


def _turn(thread, k=-1):
    """A thread's turn without its message id: (sender, day, text, offer)."""
    t = thread.turns[k]
    return (t["sender"], t["day"], t["text"], t["offer"])


def test_every_open_thread_is_handled_each_day_whatever_happens_to_the_ones_before(ent, params, fake_rng, add_customer):
    """Ref §4.23, step 17 on day 10, four threads in the order opened: X's account was cancelled
    (its thread closes as customer_churned); Y's lead thread opened on day 3 waits for the agent
    7 days (10 - 3 = 7: a timeout, the lead is lost); Z's thread opened today waits for the agent
    (nothing happens); W (the ``ent`` lead) got an offer of plan B at $90 on day 9 with a 1-day
    delay: it counters today at C_max(0.65) (1 - 0.2 x 0.7^1) = 58.906 x 0.86 = $50.66
    (``test_counter_offer_first_turn``). The counter is a customer turn of day 10 carrying the
    offer, and the thread then waits for the agent from day 10."""
    state, w, delivered, q_shift, c_drift = ent
    lead = dict(group=E1, status=LEAD, seats=20.0, **PREFS)
    x = add_customer(state, **{**lead, "status": CANCELLED})
    y = add_customer(state, **lead)
    z = add_customer(state, **lead)
    book = EnterpriseBook()
    book.open_thread(x, CHURN_PREVENTION, 8, "Account flagged at risk of churn.")
    book.open_thread(y, NEW_LEAD, 3, "New enterprise lead.")
    book.open_thread(z, NEW_LEAD, 10, "New enterprise lead.")
    book.open_thread(w, NEW_LEAD, 9, "New enterprise lead.")
    state.day = 9
    send_offers(state, fake_rng(normal=[0.0]), book, w, [(1, 90.0)])
    state.day = 10
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    tx, ty, tz, tw = book.threads
    assert tx.status == "customer_churned" and x not in book.open_by_customer
    assert ty.status == "timeout" and out.lost_leads == [y] and state.customers.status[y] == LOST
    assert tz.status == "open" and len(tz.turns) == 1 and z in book.open_by_customer
    assert out.countered == [w] and tw.status == "open"
    assert _turn(tw) == (
        "customer",
        10,
        "Counter-offer: Plan B, $50.66/seat/month, 1-month contract.",
        {"plan": "B", "price": 50.66},
    )
    assert tw.awaiting_agent is True and tw.last_counterparty_day == 10 and tw.next_reply_day is None


def test_a_counter_the_agent_leaves_unanswered_for_7_days_loses_the_lead(ent, params, fake_rng):
    """Ref §4.23: after the customer's counter (day 11) the thread waits for the agent, who has 7
    days: still open on day 17 (6 days), a timeout on day 18 (7 days)."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    assert _offer_and_reply(state, params, fake_rng, book, c, [(1, 90.0)], delivered, q_shift, c_drift).countered == [c]
    state.day = 17
    assert process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift)).lost_leads == []
    assert book.threads[0].status == "open"
    state.day = 18
    assert process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift)).lost_leads == [c]
    assert book.threads[0].status == "timeout" and state.customers.status[c] == LOST


def test_the_customer_replies_on_its_reply_day_not_before(ent, params, fake_rng):
    """Eq 42: delay = max(1, round(N(1, 0.1))); z = 10 gives round(1 + 0.1 x 10) = 2 days. An offer
    sent on day 10 gets no reply on day 11 and the counter on day 12."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    thread = send_offers(state, fake_rng(normal=[10.0]), book, c, [(1, 90.0)])
    assert thread.next_reply_day == 12
    state.day = 11
    assert process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift)).countered == []
    assert thread.turns[-1]["sender"] == "agent"
    state.day = 12
    assert process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift)).countered == [c]


def test_a_closed_deal_is_a_system_turn_of_the_deal_day_naming_plan_and_price(ent, params, fake_rng):
    """Ref §4.23: plan C accepted at $40 on day 11 ends the thread ``accepted`` with the system's
    "[DEAL CLOSED] Plan C at $40.00/seat/month, 1-month contract." of day 11."""
    state, c, delivered, q_shift, c_drift = ent
    book = EnterpriseBook()
    book.open_thread(c, NEW_LEAD, state.day, "New enterprise lead.")
    won = fake_rng(normal=[0.0], random=[[0.9]])
    out = _offer_and_reply(state, params, fake_rng, book, c, [(2, 40.0)], delivered, q_shift, c_drift, won)
    assert out.won == [c] and book.threads[0].status == "accepted"
    assert _turn(book.threads[0]) == (
        "system",
        11,
        "[DEAL CLOSED] Plan C at $40.00/seat/month, 1-month contract.",
        None,
    )


@pytest.mark.parametrize(("kind", "relationship"), [(CHURN_PREVENTION, 0.3), (RENEGOTIATION, 0.2)])
def test_an_account_whose_customer_ghosts_is_cancelled_and_loses_relationship_by_thread_kind(
    ent, params, fake_rng, kind, relationship
):
    """Ref §4.10 / §4.23: a customer ghosts once the agent's turn reaches its max turns; an existing
    account then ends (cancelled on the day, reason enterprise) and its relationship drops 0.20,
    or 0.30 on an agent-opened renegotiation: 0.5 -> 0.3 / 0.2. The churn-prevention thread's
    offer is turn 2 (system 0, customer 1) >= max turns 2; the renegotiation's is turn 0 >= 0."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 50.0)
    book = EnterpriseBook()
    if kind == CHURN_PREVENTION:
        state.customers.max_turns[c] = 2
        t = book.open_thread(c, CHURN_PREVENTION, 10, "Account flagged at risk of churn.")
        t.add_turn("customer", 10, "Please propose better terms.")
    else:
        state.customers.max_turns[c] = 0
    send_offers(state, fake_rng(normal=[0.0]), book, c, [(1, 45.0)])
    state.day = 11
    out = process_day(state, params, fake_rng(), book, *_still(delivered, q_shift, c_drift))
    assert book.threads[0].kind == kind and book.threads[0].status == "ghosted"
    assert out.churned == [c] and out.lost_leads == []
    assert state.customers.status[c] == CANCELLED and state.customers.end_day[c] == 11
    assert state.customers.relationship[c] == pytest.approx(relationship, abs=1e-12)


def _account(state, add_customer, q, listed, *, c_max=60.0, start_day=10):
    """An E1 account on plan B at ``listed`` whose requirement is ``q`` at every price (q_min = q_max)."""
    c = add_customer(
        state,
        group=E1,
        status=SUBSCRIBED,
        plan=1,
        listed_price=listed,
        effective_price=listed,
        start_day=start_day,
        relationship=0.5,
        c_max=c_max,
        q_min=q,
        q_max=q,
        s_left=1.0,
        s_right=1.0,
        seats=20.0,
        max_turns=10,
    )
    return c


@pytest.mark.parametrize(("draw", "opens"), [(0.29, True), (0.3, False)])
def test_an_account_asks_to_move_to_a_plan_much_better_for_it_when_its_draw_is_below_0_3(
    ent, params, fake_rng, draw, opens
):
    """Ref §4.23 plan_change: the ``ent`` firm on plan B at $50 sees Q_B = 0.65 - Q_req(50) =
    0.65 - (0.6 + 0.3 sig(-2.5)) = +0.027 (not at risk); C listed at $40 gives 0.8 - Q_req(40) =
    0.8 - (0.3 + 0.3 sig(1.5)) = +0.255, (0.255 - 0.027) / 0.027 = 8.4 > 10 % better; A at $200 is
    above its $100 budget. A thread opens when U < 0.3: at 0.29, not at 0.3. Its turns: the
    system's "Customer requested a plan change." and the customer's "We would like to move to
    Plan C.", both of day 10."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 50.0)
    state.settings.prices[:] = [200.0, 200.0, 40.0]
    cur, best = 0.65 - q_req(50), 0.8 - q_req(40)
    assert 0 < cur < best and (best - cur) / cur > 0.1
    book = EnterpriseBook()
    out = process_day(state, params, fake_rng(random=[[draw]]), book, *_still(delivered, q_shift, c_drift))
    if not opens:
        assert out.opened == [] and book.threads == []
        return
    assert out.opened == [c]
    thread = book.open_by_customer[c]
    assert thread.kind == PLAN_CHANGE
    assert [_turn(thread, k) for k in (0, 1)] == [
        ("system", 10, "Customer requested a plan change.", None),
        ("customer", 10, "We would like to move to Plan C.", None),
    ]


@pytest.mark.parametrize(("del_c", "opens"), [(0.556, True), (0.555, False)])
def test_a_plan_change_needs_more_than_ten_percent_more_surplus_and_may_cost_the_whole_budget(
    state, params, fake_rng, add_customer, del_c, opens
):
    """Ref §4.23: another plan must be more than 10 % better than the current one, relative to
    max(0.01, |current|). An E1 account requiring 0.5 at every price (q_min = q_max) on B at $50,
    B delivering 0.55: current surplus 0.05. C costs $60, exactly its $60 budget (within it).
    C delivering 0.556: (0.056 - 0.05) / 0.05 = 12 % -> a thread (draw 0.0); 0.555: exactly 10 %
    -> none. No ads, tenure 0, r = 0.5: Q = Del."""
    state.day = 10
    state.settings.prices[:] = [200.0, 200.0, 60.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    c = _account(state, add_customer, 0.5, 50.0)
    delivered = np.zeros((N, 3))
    delivered[E1] = [0.0, 0.55, del_c]
    out = process_day(
        state, params, fake_rng(random=[[0.0]]), EnterpriseBook(), *_still(delivered, np.zeros(N), np.zeros(N))
    )
    assert out.opened == ([c] if opens else [])


def test_each_account_weighs_its_own_tenure_budget_and_band(state, params, fake_rng, add_customer):
    """Ref §4.7 trigger: Q = Del + TB, TB = 0.05 ln(1 + t / 30). Day 70; a lead (not an account)
    first, then three E1 accounts on B ($50) delivering 0.6, each requiring q at every price:
    X (q = 0.65, since day 10: TB = 0.05 ln 3 = 0.0549 -> +0.0049, safe), Y (q = 0.66, since
    day 10: -0.0051, at risk), Z (q = 0.6, since today: exactly 0, not at risk, as "< 0").
    C at $55 (delivering 0.3) is within Y's $80 budget only: X's and Z's budgets are $50."""
    state.day = 70
    state.settings.prices[:] = [200.0, 200.0, 55.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    add_customer(state, group=E1, status=LEAD, c_max=300.0, q_min=0.1, q_max=0.2)
    x = _account(state, add_customer, 0.65, 50.0, c_max=50.0)
    y = _account(state, add_customer, 0.66, 50.0, c_max=80.0)
    z = _account(state, add_customer, 0.6, 50.0, c_max=50.0, start_day=70)
    tb = 0.05 * math.log(1 + 60 / 30)
    assert 0.6 + tb - 0.65 > 0 > 0.6 + tb - 0.66
    delivered = np.zeros((N, 3))
    delivered[E1] = [0.0, 0.6, 0.3]
    book = EnterpriseBook()
    out = process_day(
        state, params, fake_rng(random=[[0.9, 0.9, 0.9]]), book, *_still(delivered, np.zeros(N), np.zeros(N))
    )
    assert out.opened == [y] and x not in book.open_by_customer and z not in book.open_by_customer
    thread = book.open_by_customer[y]
    assert thread.kind == CHURN_PREVENTION
    assert [_turn(thread, k) for k in (0, 1)] == [
        ("system", 70, "Account flagged at risk of churn.", None),
        (
            "customer",
            70,
            "We are not getting enough value for what we pay. Please propose better terms or we will cancel.",
            None,
        ),
    ]
    # the next day the open thread is not opened again
    state.day = 71
    out = process_day(state, params, fake_rng(random=[[0.9, 0.9]]), book, *_still(delivered, np.zeros(N), np.zeros(N)))
    assert out.opened == [] and len(book.threads) == 1


def test_an_accounts_own_in_product_ads_do_not_enter_its_churn_trigger(ent, params, fake_rng):
    """Reference-notes §4.18: the customer's own ad term enters only daily satisfaction and ad
    revenue. The ``ent`` firm on B at $50 (surplus +0.027) with eta 0.5 and its own ads at 1.0
    (a penalty of 0.5 if it counted) opens no thread."""
    state, c, delivered, q_shift, c_drift = ent
    _subscribed(state, c, 50.0)
    state.customers.eta_ads[c] = 0.5
    state.settings.ads_by_customer = {c: 1.0}
    out = process_day(state, params, fake_rng(random=[[0.9]]), EnterpriseBook(), *_still(delivered, q_shift, c_drift))
    assert out.opened == []


@pytest.mark.parametrize("zero_kept", [True, False])
def test_an_account_at_relationship_zero_negotiates_as_neutral_in_the_engine(ent, params, zero_kept):
    """Ref §4.10: the engine reads a relationship of 0 as 0.5 in negotiation (``r or 0.5``), so
    the account perceives what a neutral one does; with ``fixes.relationship_zero_kept`` it
    perceives RB = 0.9 (0 - 0.5) = -0.45 less on every plan."""
    state, c, delivered, _, _ = ent
    _engine_flags(state, relationship_zero_kept=zero_kept)
    state.customers.status[c] = SUBSCRIBED
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    state.customers.relationship[c] = 0.5
    neutral = negotiation_quality(state, params, c, PLANS, delivered, lead=False)
    state.customers.relationship[c] = 0.0
    zero = negotiation_quality(state, params, c, PLANS, delivered, lead=False)
    assert (neutral - zero).tolist() == pytest.approx([0.45 if zero_kept else 0.0] * 3, abs=1e-12)


@pytest.mark.parametrize(("zero_kept", "opened"), [(True, True), (False, False)])
def test_an_account_at_relationship_zero_opens_a_churn_thread_only_where_zero_stays_zero(
    ent, params, fake_rng, zero_kept, opened
):
    """Ref §4.23 trigger, §4.10: the surplus 0.65 - Q_req(50) = 0.027 of a neutral account opens no
    thread; at relationship 0 it is 0.027 - 0.45 < 0 and a thread opens, unless the engine's read
    takes the 0 for 0.5 (``fixes.relationship_zero_kept`` off)."""
    state, c, delivered, q_shift, c_drift = ent
    _engine_flags(state, relationship_zero_kept=zero_kept)
    state.day = 7  # W = 1.0
    _subscribed(state, c, 50.0)
    state.customers.usage_rate[c] = 100.0
    state.settings.quotas[:] = [1e9, 100.0, 1e9]
    state.customers.relationship[c] = 0.0
    out = process_day(state, params, fake_rng(random=[[0.9]]), EnterpriseBook(), *_still(delivered, q_shift, c_drift))
    assert out.opened == ([c] if opened else [])


def test_the_enterprise_rows_are_each_found_once_and_in_row_order(state, params, add_customer, gidx):
    """``enterprise_rows`` lists the rows of enterprise groups, whatever their status; rows added after a
    first look are found on the next one."""
    e1, s1, e3 = gidx["E1"], gidx["S1"], gidx["E3"]
    a, _, b = (add_customer(state, group=g) for g in (e1, s1, e3))
    assert enterprise_rows(state, params).tolist() == [a, b]
    _, c = add_customer(state, group=s1), add_customer(state, group=e1, status=LOST)
    assert enterprise_rows(state, params).tolist() == [a, b, c]


def test_closing_the_threads_of_churned_customers_closes_only_those_that_have_one():
    """``EnterpriseBook.close_customers``: each customer of the list with an open thread has it closed with
    the status; threads of other customers stay open, and a customer with none (or an empty book, or named
    twice) is passed over."""
    book = EnterpriseBook()
    threads = {c: book.open_thread(c, NEW_LEAD, 3, "New enterprise lead.") for c in (5, 9, 12)}
    book.close_customers(np.array([1, 12, 3, 5, 12], dtype=np.int64), "customer_churned")
    assert threads[12].status == threads[5].status == "customer_churned"
    assert list(book.open_by_customer) == [9] and threads[9].status == "open"
    book.close_customers(np.array([], dtype=np.int64), "customer_churned")
    EnterpriseBook().close_customers(np.array([9], dtype=np.int64), "customer_churned")
    assert list(book.open_by_customer) == [9]
