"""Billing decisions, payments and involuntary churn (paper eq 6, 18-19; reference-notes §4.7, §4.22)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.billing import billing_decisions, involuntary_rates, plan_values, take_payments
from bizbench.envs.ceo.world.customers import (
    CANCELLED,
    REASON_INVOLUNTARY,
    REASON_VOLUNTARY,
    SUBSCRIBED,
)

N = 26


def sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def q_req(price, c_max, q_min, q_max, s_l=1.0, s_r=1.0):
    """Ref §4.2 typed out."""
    if price > c_max:
        return q_max
    x, half = price / c_max, (q_max - q_min) / 2
    if x < 0.5:
        return q_min + half * sig(10 * s_l * (x - 0.25))
    return q_min + half + half * sig(10 * s_r * (x - 0.75))


PREFS = dict(c_max=100.0, q_min=0.2, q_max=0.8, s_left=1.0, s_right=1.0)
PREFS_CURVE = dict(c_max=100.0, q_min=0.2, q_max=0.8)


@pytest.fixture
def billing_world(state):
    state.day = 30
    state.settings.prices[:] = [20.0, 50.0, 110.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    delivered = np.zeros((N, 3))
    delivered[0] = [0.3, 0.5, 0.9]
    return state, delivered, np.zeros(N), np.zeros(N)


def _sub(state, add_customer, **kw):
    cols = dict(
        group=0,
        plan=1,
        listed_price=50.0,
        effective_price=50.0,
        start_day=0,
        billing_mod=0,
        usage_rate=0.0,
        first_billing_done=True,
        **PREFS,
    )
    cols.update(kw)
    return add_customer(state, **cols)


def test_plan_choice_max_surplus_among_acceptable(billing_world, params, add_customer, fake_rng):
    """Eq 6 / reference-notes §4.22: evaluate A, B, C with (Del + RB + TB) F - IP - AP against Q_req(price);
    pick the acceptable plan with the largest surplus; C (price 110 > c_max 100) is not
    acceptable even though Q_req = q_max is below its quality."""
    state, delivered, q_shift, c_drift = billing_world
    a = _sub(state, add_customer)
    tb = 0.05 * math.log(1 + 30 / 30)
    sur = [
        delivered[0, 0] + tb - q_req(20, **PREFS_CURVE),
        delivered[0, 1] + tb - q_req(50, **PREFS_CURVE),
        delivered[0, 2] + tb - q_req(110, **PREFS_CURVE),
    ]
    assert sur[0] > sur[1] > 0 and sur[2] > sur[0]  # C would win if budget were ignored
    dec = billing_decisions(
        state, params, fake_rng(random=[[0.9]]), np.zeros(N), np.array([a]), delivered, q_shift, c_drift
    )
    cust = state.customers
    assert cust.plan[a] == 0
    assert list(dec.downgrades) == [a] and len(dec.upgrades) == 0
    assert cust.listed_price[a] == 20.0 and cust.effective_price[a] == 20.0
    assert cust.status[a] == SUBSCRIBED


def test_promotion_and_macro_wtp_enter_the_decision(billing_world, params, add_customer, fake_rng):
    """Ref §4.7 billing variant: price = list - ongoing promotion; budget = (c_max + c-drift)
    x macro WTP multiplier. A $15 group-plan promo on C makes it 95 <= 100 and the best plan."""
    state, delivered, q_shift, c_drift = billing_world
    a = _sub(state, add_customer)
    state.settings.promo_by_group_plan[0, 2] = 15.0
    tb = 0.05 * math.log(2)
    assert 0.9 + tb - q_req(95, **PREFS_CURVE) > 0.3 + tb - q_req(20, **PREFS_CURVE)
    dec = billing_decisions(
        state, params, fake_rng(random=[[0.9]]), np.zeros(N), np.array([a]), delivered, q_shift, c_drift
    )
    assert state.customers.plan[a] == 2
    assert list(dec.upgrades) == [a]
    assert state.customers.listed_price[a] == 110.0
    assert state.customers.effective_price[a] == 95.0
    assert state.customers.promotion[a] == 15.0  # the new plan's promotion goes with it
    assert state.customers.effective_c_max[a] == 100.0  # its budget snapshot: its own c_max (drift read once)

    # WTP multiplier 2 -> budget 200, C at 110 acceptable without a promotion
    state.settings.promo_by_group_plan[0, 2] = 0.0
    b = _sub(state, add_customer)
    state.macro_multipliers[0, 1] = 2.0
    assert 0.9 + tb - q_req(110, 200.0, 0.2, 0.8) > 0
    billing_decisions(state, params, fake_rng(random=[[0.9]]), np.zeros(N), np.array([b]), delivered, q_shift, c_drift)
    assert state.customers.plan[b] == 2


def test_cancel_when_no_plan_acceptable_and_skips(billing_world, params, add_customer, fake_rng):
    """Ref §4.22: no acceptable plan -> voluntary cancel; the signup day itself and customers
    with another anchor are not reviewed."""
    state, delivered, q_shift, c_drift = billing_world
    poor = _sub(state, add_customer, c_max=15.0, q_min=0.7, q_max=0.9, satisfaction=0.37)
    new = _sub(state, add_customer, c_max=15.0, q_min=0.7, q_max=0.9, start_day=30)
    other = _sub(state, add_customer, c_max=15.0, q_min=0.7, q_max=0.9, billing_mod=7)
    active = np.array([poor, new, other])
    dec = billing_decisions(state, params, fake_rng(random=[[0.9]]), np.zeros(N), active, delivered, q_shift, c_drift)
    cust = state.customers
    assert list(dec.cancelled) == [poor]
    assert dec.cancelled_satisfaction.tolist() == [0.37]  # the canceller's satisfaction, for the post
    assert cust.status[poor] == CANCELLED
    assert cust.end_day[poor] == 30
    assert cust.churn_reason[poor] == REASON_VOLUNTARY
    assert cust.status[new] == SUBSCRIBED and cust.status[other] == SUBSCRIBED


def test_involuntary_churn_draw(billing_world, params, add_customer, fake_rng):
    """Eq 19 / reference-notes §4.22: with probability mu_{g,m} the customer is cancelled as involuntary
    before the plan review (no voluntary evaluation for them)."""
    state, delivered, q_shift, c_drift = billing_world
    a = _sub(state, add_customer)
    b = _sub(state, add_customer)
    rates = np.zeros(N)
    rates[0] = 0.3
    dec = billing_decisions(
        state, params, fake_rng(random=[[0.31, 0.29]]), rates, np.array([a, b]), delivered, q_shift, c_drift
    )
    assert list(dec.involuntary) == [b]
    assert state.customers.churn_reason[b] == REASON_INVOLUNTARY
    assert state.customers.status[b] == CANCELLED
    assert state.customers.status[a] == SUBSCRIBED
    assert len(dec.cancelled) == 0


def test_involuntary_rates_clip_normal(params, fake_rng):
    """Eq 19: mu_{g,m} = clip(N(mu_inv, sd_inv), 0, 1), one per group."""
    z = np.zeros(N)
    z[0], z[1], z[2] = -10.0, 1.0, 2.0
    got = involuntary_rates(params, fake_rng(normal=[z]))
    assert got[0] == 0.0  # 0.055 - 0.15 < 0
    assert got[1] == pytest.approx(0.035 + 0.01)
    assert got[2] == pytest.approx(0.045 + 2 * 0.012)
    assert got[3] == pytest.approx(0.015)  # E1 mean
    assert got[16] == pytest.approx(0.003)  # D_E01 mean


def test_payments(state, params, add_customer, gidx):
    """Ref §4.22 payments: IND pay [min(stored, current list) - promo]+, promo = first-period
    snapshot on the first bill, ongoing afterwards; a lower current price becomes the stored
    one, a higher one does not reach them. ENT pay the agreed effective per-seat price on the
    first bill, then [listed - ongoing]+, times floor(seats); suspended accounts pay nothing."""
    s1, e1 = gidx["S1"], gidx["E1"]
    state.day = 45  # anchor 15
    state.settings.prices[:] = [20.0, 50.0, 110.0]
    state.settings.promo_global = 3.0
    common = dict(billing_mod=15, usage_demand=10.0, start_day=15)
    i1 = add_customer(
        state, group=s1, plan=1, listed_price=50.0, first_promotion=12.0, first_billing_done=False, **common
    )
    i2 = add_customer(state, group=s1, plan=0, listed_price=15.0, first_billing_done=True, **common)
    i3 = add_customer(state, group=s1, plan=2, listed_price=120.0, first_billing_done=True, **common)
    i4 = add_customer(state, group=s1, plan=0, listed_price=2.0, first_billing_done=True, **common)
    e_first = add_customer(
        state, group=e1, plan=1, listed_price=32.0, effective_price=30.0, seats=10.7, first_billing_done=False, **common
    )
    e_next = add_customer(
        state, group=e1, plan=1, listed_price=32.0, effective_price=30.0, seats=5.2, first_billing_done=True, **common
    )
    e_susp = add_customer(state, group=e1, plan=1, listed_price=32.0, seats=8.0, first_billing_done=True, **common)
    not_due = add_customer(state, group=s1, plan=0, listed_price=20.0, billing_mod=14)
    active = np.array([i1, i2, i3, i4, e_first, e_next, e_susp, not_due])
    pay = take_payments(state, params, np.random.default_rng(0), active, np.array([e_susp]), np.zeros(26))
    got = dict(zip(pay.customers.tolist(), pay.cents.tolist(), strict=True))
    assert got == {
        i1: (50 - 12) * 100,
        i2: (15 - 3) * 100,  # stored 15 < list 20: the increase does not reach them
        i3: (110 - 3) * 100,  # list fell to 110 < stored 120
        i4: 0,  # floored at 0
        e_first: 30 * 10 * 100,  # agreed effective price x floor(10.7)
        e_next: (32 - 3) * 5 * 100,
    }
    cust = state.customers
    assert cust.listed_price[[i2, i3]] == pytest.approx([15.0, 110.0])
    assert cust.promotion[i1] == 3.0 and cust.effective_price[i1] == 47.0
    assert bool(cust.first_billing_done[i1]) and bool(cust.first_billing_done[e_first])
    assert cust.seats[e_first] == 10.7  # billed as 10, the fraction kept
    assert cust.seats[e_susp] == 8.0 and not_due not in got


def test_a_seat_count_keeps_its_fraction_so_monthly_growth_below_a_seat_adds_up(state, params, add_customer, gidx):
    """Ref §4.17, §4.22: the engine keeps the seat count as a float, drifts it monthly and floors it on each
    read. 10.7 seats bill as 10; a month of 3 % growth makes 11.021, which bills as 11 (re-stored as 10 and
    grown to 10.3 it would bill 10 again)."""
    state.day = 45  # anchor 15
    common = dict(billing_mod=15, usage_demand=10.0, start_day=15, first_billing_done=True)
    e = add_customer(state, group=gidx["E1"], plan=1, listed_price=30.0, seats=10.7, **common)
    pay = take_payments(
        state, params, np.random.default_rng(0), np.array([e]), np.array([], dtype=np.int64), np.zeros(26)
    )
    assert pay.cents.tolist() == [30 * 10 * 100]
    state.customers.set_seats(np.array([e]), state.customers.seats[[e]] * 1.03)  # as the monthly drift does
    state.day = 75
    pay = take_payments(
        state, params, np.random.default_rng(0), np.array([e]), np.array([], dtype=np.int64), np.zeros(26)
    )
    assert pay.cents.tolist() == [30 * 11 * 100] and state.customers.seats[e] == pytest.approx(11.021)


def test_a_payment_restores_prices_budget_and_usage_for_the_next_period_and_keeps_the_seat_fraction(
    state, params, add_customer, gidx, fake_rng
):
    """Ref §4.22 payments, after the charge: an enterprise keeps its stored list price although the
    current one is lower ($60 stored, B now $50: pays (60 - 3) x 4 seats), an individual moves down
    to it (pays 50 - 3); each stores the ongoing promotion ($3) and [list - promo]+ as its
    effective price ($47, $57, and [2 - 3]+ = 0), its own c_max as the budget snapshot (with
    ``fixes.drift_counted_once`` the group's c-drift, here +7, is added on read, not stored),
    a fresh usage rate max(0, N(u, 0.2 u)) x seats (z = +1: 10 x 1.2 = 12; z = -1: 5 x 0.8 x 4
    = 16; z = -6: 10 x (1 - 1.2) < 0 -> 0) and a period usage of 0."""
    s1, e1 = gidx["S1"], gidx["E1"]
    state.day = 75  # anchor 15
    state.settings.prices[:] = [20.0, 50.0, 110.0]
    state.settings.promo_global = 3.0
    common = dict(billing_mod=15, start_day=15, first_billing_done=True, period_usage=123.0)
    ind = add_customer(state, group=s1, plan=1, listed_price=60.0, c_max=80.0, usage_demand=10.0, **common)
    ent = add_customer(state, group=e1, plan=1, listed_price=60.0, c_max=500.0, usage_demand=5.0, seats=4.6, **common)
    low = add_customer(state, group=s1, plan=0, listed_price=2.0, c_max=40.0, usage_demand=10.0, **common)
    c_drift = np.zeros(26)
    c_drift[[s1, e1]] = 7.0
    rng = fake_rng(normal=[[1.0, -1.0, -6.0]])
    pay = take_payments(state, params, rng, np.array([ind, ent, low]), np.array([], dtype=np.int64), c_drift)
    assert dict(zip(pay.customers.tolist(), pay.cents.tolist(), strict=True)) == {
        ind: (50 - 3) * 100,
        ent: (60 - 3) * 4 * 100,
        low: 0,
    }
    cust = state.customers
    idx = [ind, ent, low]
    assert cust.listed_price[idx].tolist() == [50.0, 60.0, 2.0]
    assert cust.promotion[idx].tolist() == [3.0, 3.0, 3.0]
    assert cust.effective_price[idx].tolist() == [47.0, 57.0, 0.0]
    assert cust.effective_c_max[idx].tolist() == [80.0, 500.0, 40.0]
    assert cust.usage_rate[idx] == pytest.approx([12.0, 16.0, 0.0])
    assert cust.period_usage[idx].tolist() == [0.0, 0.0, 0.0]
    assert cust.seats[ent] == 4.6  # billed and drawn as 4 whole seats, the fraction kept


def test_a_suspended_account_pays_nothing_but_starts_a_new_period_with_a_new_usage_rate(
    state, params, add_customer, gidx, fake_rng
):
    """Ref §4.22: an enterprise account with an open churn-prevention thread is skipped by the charge, but its
    usage goes on: at its anchor its period usage restarts at 0 and its usage rate is redrawn, max(0, N(u, 0.2 u))
    x whole seats (z = +1: 5 x 1.2 x 4 = 24; 4.7 seats bill as 4); its price, promotion and budget snapshot
    stay as they were. The paying account draws first (z = -1: 10 x 0.8 = 8)."""
    s1, e1 = gidx["S1"], gidx["E1"]
    state.day = 75  # anchor 15
    state.settings.promo_global = 3.0
    common = dict(billing_mod=15, start_day=15, first_billing_done=True, period_usage=123.0, plan=1)
    ind = add_customer(state, group=s1, listed_price=60.0, c_max=80.0, usage_demand=10.0, **common)
    held = add_customer(
        state,
        group=e1,
        listed_price=60.0,
        effective_price=60.0,
        c_max=500.0,
        effective_c_max=450.0,
        usage_demand=5.0,
        seats=4.7,
        **common,
    )
    rng = fake_rng(normal=[[-1.0, 1.0]])
    pay = take_payments(state, params, rng, np.array([ind, held]), np.array([held]), np.zeros(26))
    assert pay.customers.tolist() == [ind]
    cust = state.customers
    assert cust.usage_rate[[ind, held]] == pytest.approx([8.0, 24.0])
    assert cust.period_usage[[ind, held]].tolist() == [0.0, 0.0]
    assert (cust.listed_price[held], cust.effective_price[held], cust.promotion[held]) == (60.0, 60.0, 0.0)
    assert cust.effective_c_max[held] == 450.0 and rng.remaining("normal") == 0


def test_an_involuntary_rate_above_one_is_clipped_to_one(params, fake_rng):
    """Eq 19: mu_{g,m} = clip(N(mu_inv, sd_inv), 0, 1): S2's 0.035 + 200 x 0.01 = 2.035 -> 1."""
    z = np.zeros(N)
    z[1] = 200.0
    assert involuntary_rates(params, fake_rng(normal=[z]))[1] == 1.0


def test_the_billing_review_reads_the_quota_against_the_days_usage_and_the_ad_penalty_of_its_group(
    billing_world, params, add_customer
):
    """Ref §4.7, billing variant: (Del + RB + TB) F - IP - AP, AP = eta a(s) with s = global + group ad
    strength (no customer term), F = clip(quota / (r W(d)), 0, 1). Day 30 (W = 1.15): a usage
    rate of 100 is a demand of 115, so B's quota of 57.5 gives F = 0.5. Customer a (S1, eta
    0.2) sees s = 0.05 + 0.05 = 0.1 (its own 0.5 is not read), customer b (S2, eta 0.4) s =
    0.05 + 0.15 = 0.2; a(s) = ln(1 + 9 s) / ln 10. RB = 0 (r = 0.5), TB = 0.05 ln 1.5 (subscribed
    on day 15: 15 days).
    Plans deliver A 0.5, B 0.5, C 0.9. A third customer (eta 0.9), not under review, is not read."""
    state, delivered, q_shift, c_drift = billing_world
    delivered[0] = delivered[1] = [0.5, 0.5, 0.9]
    state.settings.quotas[:] = [1e9, 57.5, 1e9]
    state.settings.ads_global = 0.05
    state.settings.ads_by_group[0], state.settings.ads_by_group[1] = 0.05, 0.15
    _sub(state, add_customer, eta_ads=0.9)
    a = _sub(state, add_customer, usage_rate=100.0, eta_ads=0.2, start_day=15)
    b = _sub(state, add_customer, group=1, usage_rate=100.0, eta_ads=0.4, start_day=15)
    state.settings.ads_by_customer[a] = 0.5
    surplus, price, ok = plan_values(state, params, np.array([a, b]), delivered, q_shift, c_drift, False)
    tb = 0.05 * math.log(1.5)
    ap = [0.2 * math.log(1.9) / math.log(10), 0.4 * math.log(2.8) / math.log(10)]
    for row in range(2):
        want = [
            (0.5 + tb) * 1.0 - ap[row] - q_req(20, **PREFS_CURVE),
            (0.5 + tb) * 0.5 - ap[row] - q_req(50, **PREFS_CURVE),
            (0.9 + tb) * 1.0 - ap[row] - 0.8,
        ]
        assert surplus[row] == pytest.approx(want, rel=1e-12)
    assert price.tolist() == [[20.0, 50.0, 110.0]] * 2
    # A clears its requirement (0.3132) for both; B (F = 0.5) for neither; C is above the budget
    assert q_req(20, **PREFS_CURVE) == pytest.approx(0.2 + 0.3 * sig(-0.5))
    assert ok.tolist() == [[True, False, False], [True, False, False]]


def test_a_promotion_above_the_list_price_makes_the_plan_free_in_the_review(billing_world, params, add_customer):
    """Eq 7: price = [list - ongoing promotion]+, floored at $0. A $25 group-plan promotion on A ($20)
    prices it at 0, so its requirement is Q_req(0) = 0.2 + 0.3 sig(-2.5) and its surplus
    0.3 + 0.05 ln 2 - Q_req(0) (30 days of tenure)."""
    state, delivered, q_shift, c_drift = billing_world
    a = _sub(state, add_customer)
    state.settings.promo_by_group_plan[0, 0] = 25.0
    surplus, price, ok = plan_values(state, params, np.array([a]), delivered, q_shift, c_drift, False)
    assert price[0].tolist() == [0.0, 50.0, 110.0]
    assert surplus[0, 0] == pytest.approx(0.3 + 0.05 * math.log(2) - (0.2 + 0.3 * sig(-2.5)), rel=1e-12)
    assert bool(ok[0, 0])


def test_the_engine_stores_the_drifted_budget_floored_at_a_payment(state, params, add_customer, gidx, fake_rng):
    """Ref §4.22 with ``fixes.drift_counted_once`` off (the engine): the budget snapshot stored at
    billing is c_max + the group's c-drift (+7), floored at $15: 80 -> 87, 5 -> 15."""
    s1 = gidx["S1"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"drift_counted_once": False})}
    )
    state.day = 75
    state.settings.prices[:] = [20.0, 50.0, 110.0]
    common = dict(group=s1, plan=0, listed_price=20.0, billing_mod=15, start_day=15, first_billing_done=True)
    a = add_customer(state, c_max=80.0, **common)
    b = add_customer(state, c_max=5.0, **common)
    c_drift = np.zeros(26)
    c_drift[s1] = 7.0
    take_payments(state, params, fake_rng(normal=[[0.0, 0.0]]), np.array([a, b]), np.array([], dtype=np.int64), c_drift)
    assert state.customers.effective_c_max[[a, b]].tolist() == [87.0, 15.0]


def test_a_plan_priced_at_the_budget_with_a_quality_equal_to_the_requirement_is_acceptable(
    billing_world, params, add_customer
):
    """Eq 6: a plan is acceptable iff price <= budget and quality >= Q_req(price), both boundaries
    included. With q_min = q_max the requirement is that value exactly, and on the signup day
    (tenure 0, relationship 0.5) the quality read is Del itself. B delivers 0.5 at $50: customer
    0 (budget $50, requires 0.50) accepts it; customer 1 (budget $49.99) and customer 2
    (requires 0.51) do not; A (0.3) and C ($110) suit no one."""
    state, delivered, q_shift, c_drift = billing_world
    band = dict(s_left=1.0, s_right=1.0, start_day=30)
    rows = [
        _sub(state, add_customer, **{**band, "c_max": 50.0, "q_min": 0.5, "q_max": 0.5}),
        _sub(state, add_customer, **{**band, "c_max": 49.99, "q_min": 0.5, "q_max": 0.5}),
        _sub(state, add_customer, **{**band, "c_max": 50.0, "q_min": 0.51, "q_max": 0.51}),
    ]
    _, _, ok = plan_values(state, params, np.array(rows), delivered, q_shift, c_drift, False)
    assert ok.tolist() == [[False, True, False], [False, False, False], [False, False, False]]


@pytest.mark.parametrize("ent_churn", [True, False])
def test_enterprise_accounts_face_involuntary_churn_only_under_the_flag(
    billing_world, params, add_customer, fake_rng, gidx, ent_churn
):
    """Eq 19 / reference-notes §4.22: the month's rate mu (0.5 for S1 and E1 here) cancels a due
    account whose draw is below it (< mu: a draw of exactly 0.5 stays). With
    ``fixes.enterprise_involuntary_churn`` (default) enterprise accounts face it at their
    anchor too; without it (the engine) only individuals do."""
    state, delivered, q_shift, c_drift = billing_world
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_involuntary_churn": ent_churn})}
    )
    a = _sub(state, add_customer)
    e = _sub(state, add_customer, group=gidx["E1"], seats=10.0)
    c = _sub(state, add_customer)
    rates = np.zeros(N)
    rates[gidx["S1"]] = rates[gidx["E1"]] = 0.5
    draws = [[0.4, 0.4, 0.5]] if ent_churn else [[0.4, 0.5]]
    dec = billing_decisions(
        state, params, fake_rng(random=draws), rates, np.array([a, e, c]), delivered, q_shift, c_drift
    )
    assert dec.involuntary.tolist() == ([a, e] if ent_churn else [a])
    assert (state.customers.status[e] == CANCELLED) == ent_churn


def test_a_customer_whose_best_plan_is_its_own_stays_on_its_stored_price(billing_world, params, add_customer, fake_rng):
    """Ref §4.22: only a different best plan is a switch. A customer on A with a stored list price of
    $15 (A now $20) finds A still the best acceptable plan (as in
    ``test_plan_choice_max_surplus_among_acceptable``): no upgrade, no downgrade, and the stored
    price and promotion stay as they are."""
    state, delivered, q_shift, c_drift = billing_world
    a = _sub(state, add_customer, plan=0, listed_price=15.0, effective_price=15.0, promotion=0.0)
    dec = billing_decisions(
        state, params, fake_rng(random=[[0.9]]), np.zeros(N), np.array([a]), delivered, q_shift, c_drift
    )
    cust = state.customers
    assert len(dec.upgrades) == 0 and len(dec.downgrades) == 0 and len(dec.cancelled) == 0
    assert (cust.plan[a], cust.listed_price[a], cust.promotion[a], cust.effective_price[a]) == (0, 15.0, 0.0, 15.0)


def test_a_switch_to_a_plan_whose_promotion_exceeds_its_price_costs_nothing_and_stores_the_own_budget(
    billing_world, params, add_customer, fake_rng
):
    """Eq 7 / reference-notes §4.22: the switcher stores the new plan's list price, its ongoing promotion and
    [list - promo]+ as its effective price: A at $20 with a $25 group-plan promotion -> $0, not below and not
    above. With ``fixes.drift_counted_once`` (default) the budget snapshot is the customer's own c_max ($100),
    the group's c-drift (+7) being added on read."""
    state, delivered, q_shift, c_drift = billing_world
    c_drift[0] = 7.0
    state.settings.promo_by_group_plan[0, 0] = 25.0
    a = _sub(state, add_customer)  # on B at $50; A (free) has the largest surplus
    dec = billing_decisions(
        state, params, fake_rng(random=[[0.9]]), np.zeros(N), np.array([a]), delivered, q_shift, c_drift
    )
    cust = state.customers
    assert list(dec.downgrades) == [a] and len(dec.upgrades) == 0
    assert (cust.plan[a], cust.listed_price[a], cust.promotion[a], cust.effective_price[a]) == (0, 20.0, 25.0, 0.0)
    assert cust.effective_c_max[a] == 100.0


def test_the_engine_stores_a_switcher_s_drifted_budget_floored_at_15(billing_world, params, add_customer, fake_rng):
    """Ref §4.22 with ``fixes.drift_counted_once`` off (the engine): a switcher's budget snapshot is c_max + its
    group's c-drift, floored at $15 (reference-notes §2.1): S1 100 + 7 = 107; S2 100 - 90 = 10 -> 15. Both move
    from B to A, free under a $25 promotion (S2's budget of $15 affords only that)."""
    state, delivered, q_shift, c_drift = billing_world
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"drift_counted_once": False})}
    )
    delivered[1] = delivered[0]
    c_drift[0], c_drift[1] = 7.0, -90.0
    state.settings.promo_by_group_plan[[0, 1], 0] = 25.0
    a = _sub(state, add_customer)
    b = _sub(state, add_customer, group=1)
    dec = billing_decisions(
        state, params, fake_rng(random=[[0.9, 0.9]]), np.zeros(N), np.array([a, b]), delivered, q_shift, c_drift
    )
    assert list(dec.downgrades) == [a, b]
    assert state.customers.effective_c_max[[a, b]].tolist() == [107.0, 15.0]
