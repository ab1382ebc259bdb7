"""Lead generation: saturation, calendar, expected leads (paper eq 28-29; reference-notes §2.6, §3.3)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pytest

from bizbench.envs.ceo.config import CHANNELS
from bizbench.envs.ceo.world.acquisition import (
    admit,
    channel_noise,
    expected_leads,
    generate_leads,
    lead_preferences,
    monthly_factor,
    saturation,
)
from bizbench.envs.ceo.world.customers import CANCELLED, LEAD, LOST, NONE, SOURCE_ORGANIC, SUBSCRIBED


def test_saturation():
    """Ref §3.3: D = max(0, 1 - (N / cap)^2) if N > 0, else 1."""
    got = saturation(np.array([0.0, 50.0, 100.0, 150.0, 1.0]), np.full(5, 100.0), 2.0)
    assert got == pytest.approx([1.0, 0.75, 0.0, 0.0, 1 - 1e-4])


def test_a_group_without_customers_is_unsaturated_even_where_its_cap_is_zero():
    """Eq 29's "1 when N_g = 0" holds on its own, not through 0 / cap: at a cap of 0 the ratio is 0 / 0."""
    with np.errstate(invalid="ignore"):
        got = saturation(np.array([0.0, 5.0]), np.array([0.0, 10.0]), 2.0)
    assert got.tolist() == [1.0, 0.75]


def test_market_cap_linear_growth(params, gidx):
    """Ref §2.3: cap_g(d) = base_cap (1 + growth d / 365), linear."""
    caps = params.market_cap(365)
    assert caps[gidx["S1"]] == pytest.approx(272_000 * 1.2)
    assert caps[gidx["E3"]] == pytest.approx(136 * 1.1)
    assert params.market_cap(730)[gidx["S1"]] == pytest.approx(272_000 * 1.4)


@pytest.mark.parametrize(
    ("day", "factor"),
    [
        (0, 1.15),
        (1, 1.15),
        (2, 1.15),
        (3, 1.0),
        (26, 1.0),
        (27, 1.10),
        (28, 1.10),
        (29, 1.10),
        (30, 1.15),
        (32, 1.15),
        (33, 1.0),
        (57, 1.10),
        (60, 1.15),
    ],
)
def test_monthly_factor(state, day, factor):
    """Ref §2.6: m = (d mod 30) + 1; m in {1,2,3} -> 1.15, m in {28,29,30} -> 1.10, else 1."""
    assert monthly_factor(state, day) == factor


def test_expected_leads_hand_computed(state, params, gidx):
    """Eq 28 / reference-notes §3.3 for day 29 (W = 1.1, Mo = 1.10):
    lambda_S1 = R D W Mo M_lead A Z (spend L / 1000 + sum_h N_h NET[h][S1]).
    Spend: $200 on content_marketing (L = 320.3613); referral from S1 itself (500 subs,
    NET 29/1000) and S3 (1000 subs, NET 6.24/1000); the undiscovered D_S01 (1000 subs) is no
    source and undiscovered targets get 0."""
    s1, s2, s3, ds01, ds05 = (gidx[g] for g in ("S1", "S2", "S3", "D_S01", "D_S05"))
    state.day = 29
    content = CHANNELS.index("content_marketing")
    state.settings.ad_spend[s1, content] = 200.0
    state.macro_multipliers[s1, 0] = 1.2
    counts = np.zeros(26)
    counts[s1], counts[s3], counts[ds01] = 500, 1000, 1000
    social = np.ones(26)
    social[s1] = 1.1
    lam, channel, network = expected_leads(state, params, counts, social, 2.0)

    cap = 272_000 * (1 + 0.2 * 29 / 365)
    d_sat = 1 - (500 / cap) ** 2
    base = 200 * 320.3613 / 1000 + 500 * 29 / 1000 + 1000 * 6.24 / 1000
    exp_s1 = 0.5 * d_sat * 1.1 * 1.10 * 1.2 * 1.1 * 2.0 * base
    assert channel[s1, content] == pytest.approx(64.07226)
    assert network[s1] == pytest.approx(14.5 + 6.24)
    assert lam[s1] == pytest.approx(exp_s1, rel=1e-12)
    # S2: no spend, referrals only (NET[S1][S2] = 0.87, NET[S3][S2] = 3.64 per 1000)
    exp_s2 = 0.5 * 1.0 * 1.1 * 1.10 * 1.0 * 1.0 * 2.0 * (500 * 0.87 + 1000 * 3.64) / 1000
    assert lam[s2] == pytest.approx(exp_s2, rel=1e-12)
    # undiscovered target: 0 although referral weights are positive
    assert lam[ds05] == 0.0 and lam[ds01] == 0.0
    # discovering D_S01 makes it a source for S1 (NET[D_S01][S1] = 1.733 per 1000)
    state.discovered[ds01] = True
    lam2, _, _ = expected_leads(state, params, counts, social, 2.0)
    assert lam2[s1] == pytest.approx(exp_s1 * (base + 1.733) / base, rel=1e-12)
    assert lam2[ds01] > 0


def test_expected_leads_zero_without_inputs(state, params):
    """Ref §3.3: no spend and no subscribers -> lambda = 0 for every group."""
    lam, _, _ = expected_leads(state, params, np.zeros(26), np.ones(26), 1.0)
    assert not lam.any()


def _sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def _req(price, c_max=100.0, q_min=0.2, q_max=0.8):
    """Ref §4.2 with s_L = s_R = 1."""
    if price > c_max:
        return q_max
    x, half = price / c_max, (q_max - q_min) / 2
    if x < 0.5:
        return q_min + half * _sig(10 * (x - 0.25))
    return q_min + half + half * _sig(10 * (x - 0.75))


def test_individual_lead_conversion(state, params, fake_rng, gidx):
    """Ref §3.4: C_p = [P_p - LP]+; skip C_p > c_max; pick the largest positive surplus
    Del F - Q_req(C_p), else plan A; subscribe iff C <= c_max and q U(0.8, 1.1) >= Q_req(C).
    On subscribing the first-period promo = LP + ongoing promo is snapshotted, the anchor is
    d mod 30 and the usage rate max(0, N(u, 0.2 u))."""
    s1 = gidx["S1"]
    state.day = 47
    state.settings.prices[:] = [20.0, 50.0, 110.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    state.settings.promo_global = 2.0
    content = CHANNELS.index("content_marketing")
    state.settings.lead_promo_by_channel[content] = 5.0
    delivered = np.zeros((26, 3))
    delivered[s1] = [0.3, 0.5, 0.9]
    n = 3
    cols = {
        "group": np.full(n, s1),
        "c_max": np.full(n, 100.0),
        "q_min": np.full(n, 0.2),
        "q_max": np.full(n, 0.8),
        "s_left": np.ones(n),
        "s_right": np.ones(n),
        "usage_demand": np.full(n, 80.0),
        "source": np.array([content, SOURCE_ORGANIC, SOURCE_ORGANIC]),
    }
    # lead 0 (LP 5): A 0.3 - Q(15) = 0.019, B 0.5 - Q(45) = 0.036, C at 105 > c_max -> B
    assert 0.5 - _req(45) > 0.3 - _req(15) > 0
    # leads 1-2 (LP 0): no positive surplus -> plan A; accepted only with noise >= 1.044
    assert max(0.3 - _req(20), 0.5 - _req(50)) < 0
    assert 0.3 * 1.1 >= _req(20) > 0.3 * 0.8
    rng = fake_rng(uniform=[[0.5, 1.0, 0.0]], normal=[[0.0, 1.0]])
    subs, lost = _convert(state, params, rng, cols, delivered)
    cust = state.customers
    assert subs.tolist() == [0, 1] and lost.tolist() == [2]
    assert cust.plan[subs].tolist() == [1, 0]
    assert cust.listed_price[subs].tolist() == [50.0, 20.0]
    assert cust.first_promotion[subs].tolist() == [5.0 + 2.0, 2.0]
    assert cust.effective_price[subs].tolist() == [43.0, 18.0]
    assert cust.billing_mod[subs].tolist() == [47 % 30] * 2
    assert cust.start_day[subs].tolist() == [47, 47]
    assert cust.usage_rate[subs] == pytest.approx([80.0, 80.0 + 16.0])
    assert cust.status[2] == LOST


def test_a_day_s_prospects_are_admitted_at_once_each_group_drawing_in_turn(state, params, fake_rng, gidx):
    """Reference-notes §3.4, one admission for the day: two S1 leads, an E1 firm and two S2 leads, in that
    group order, become rows 0-4 in that order. The conversion stream gives each individual group its
    acceptance noise U(0.8, 1.1), then its subscribers' usage rates: S1's noise, S1's rates, S2's noise,
    S2's rates; the firm draws nothing. Every plan delivers 0.9 to the individuals (plan A at $20 has
    the largest surplus); S1's second lead requires 0.75 at any price (q_min = q_max) and its noise at
    the bottom reads 0.9 x 0.8 = 0.72: lost. The firm requires Q_req(0) = 0.5 + 0.225 sig(-2.5) =
    0.517 and E1's best plan delivers 0.4: dropped for quality."""
    s1, s2, e1 = gidx["S1"], gidx["S2"], gidx["E1"]
    state.settings.prices[:] = [20.0, 50.0, 110.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    delivered = np.zeros((26, 3))
    delivered[[s1, s2]] = 0.9
    delivered[e1] = [0.3, 0.35, 0.4]
    cols = {
        "group": np.array([s1, s1, e1, s2, s2]),
        "c_max": np.full(5, 100.0),
        "q_min": np.array([0.2, 0.75, 0.5, 0.2, 0.2]),
        "q_max": np.array([0.8, 0.75, 0.95, 0.8, 0.8]),
        "s_left": np.ones(5),
        "s_right": np.ones(5),
        "usage_demand": np.array([80.0, 80.0, 50.0, 60.0, 70.0]),
        "seats": np.array([1.0, 1.0, 100.0, 1.0, 1.0]),
        "deal_noise": np.ones(5),
        "source": np.full(5, SOURCE_ORGANIC),
    }
    rng = fake_rng(uniform=[[1.0, 0.0], [1.0, 1.0]], normal=[[0.0], [0.0, 1.0]])
    admitted = admit(state, params, rng, cols, _undrifted(state, cols), delivered)
    assert rng.calls == ["uniform", "normal", "uniform", "normal"]
    assert admitted.subscribers.tolist() == [0, 3, 4] and admitted.lost.tolist() == [1]
    assert admitted.leads.tolist() == [] and admitted.dropped_quality[e1] == 1 and admitted.dropped_quality.sum() == 1
    assert not admitted.dropped_quota.any()
    cust = state.customers
    assert cust.status.tolist() == [SUBSCRIBED, LOST, NONE, SUBSCRIBED, SUBSCRIBED]
    assert cust.plan[[0, 3, 4]].tolist() == [0, 0, 0]
    assert cust.usage_rate[[0, 3, 4]] == pytest.approx([80.0, 60.0, 70.0 + 0.2 * 70.0])


def test_firms_alone_are_admitted_without_a_conversion_stream(state, params, gidx):
    """The enterprise gate draws nothing, so a day of firms only needs no conversion stream (an arena's
    tenders do not create one); individual leads without one are refused."""
    e1, s1 = gidx["E1"], gidx["S1"]
    firm = {"group": np.array([e1]), "c_max": np.array([100.0]), "q_min": np.array([0.3]), "q_max": np.array([0.9])}
    firm |= {"s_left": np.ones(1), "s_right": np.ones(1), "usage_demand": np.ones(1), "seats": np.full(1, 10.0)}
    firm |= {"deal_noise": np.ones(1), "source": np.full(1, SOURCE_ORGANIC)}
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    admitted = admit(state, params, None, firm, _undrifted(state, firm), np.ones((26, 3)))
    assert admitted.leads.tolist() == [0] and state.customers.status.tolist() == [LEAD]
    lead = {**firm, "group": np.array([s1])}
    with pytest.raises(ValueError, match="individual leads need the conversion stream"):
        admit(state, params, None, lead, _undrifted(state, lead), np.ones((26, 3)))
    assert state.customers.n == 1  # nothing appended


def test_enterprise_gate(state, params, gidx):
    """Ref §3.4: an enterprise prospect becomes a lead iff some plan's Del F(quota, u seats) >=
    Q_req(0); otherwise it is dropped (no subscription, not a lead)."""
    e1 = gidx["E1"]
    state.day = 12
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    delivered = np.zeros((26, 3))
    delivered[e1] = [0.3, 0.35, 0.4]
    n = 2
    cols = {
        "group": np.full(n, e1),
        "c_max": np.full(n, 100.0),
        "q_min": np.array([0.3, 0.5]),
        "q_max": np.array([0.9, 0.95]),
        "s_left": np.ones(n),
        "s_right": np.ones(n),
        "usage_demand": np.full(n, 50.0),
        "seats": np.full(n, 100.0),
        "deal_noise": np.ones(n),
    }
    floor0 = 0.3 + 0.3 * _sig(-2.5)  # Q_req(0) for the first: 0.3228
    assert 0.4 >= floor0 and 0.4 < 0.5
    gated = _gate(state, params, e1, cols, delivered)
    assert gated.leads.tolist() == [0]
    assert (gated.dropped_quota, gated.dropped_quality) == (0, 1)
    assert state.customers.status.tolist() == [LEAD, NONE]
    assert state.customers.billing_mod[0] == 12


def test_a_prospect_dropped_at_the_gate_is_counted_by_its_cause(state, params, gidx):
    """Ref §3.4 gate, with the cause the agent is told (docs/ceo-seat.md): prospect 0 would pass on
    plan C (0.4 >= Q_req(0) = 0.3228) but C's quota 1,000 covers only a fifth of its 50 x 100
    usage, so F = 0.2 -> dropped for quota; prospect 1 (Q_req(0) = 0.5228) passes on no plan
    even with an unlimited quota -> dropped for quality; prospect 2 needs only 1 seat x 5 = 5
    units -> a lead."""
    e1 = gidx["E1"]
    state.day = 12
    state.settings.quotas[:] = [1_000.0, 1_000.0, 1_000.0]
    delivered = np.zeros((26, 3))
    delivered[e1] = [0.3, 0.35, 0.4]
    cols = {
        "group": np.full(3, e1),
        "c_max": np.full(3, 100.0),
        "q_min": np.array([0.3, 0.5, 0.3]),
        "q_max": np.array([0.9, 0.95, 0.9]),
        "s_left": np.ones(3),
        "s_right": np.ones(3),
        "usage_demand": np.array([50.0, 50.0, 5.0]),
        "seats": np.array([100.0, 100.0, 1.0]),
        "deal_noise": np.ones(3),
    }
    assert 0.4 * 1_000 / 5_000 < 0.3 + 0.3 * _sig(-2.5) <= 0.4 < 0.5 + 0.225 * _sig(-2.5)
    gated = _gate(state, params, e1, cols, delivered)
    assert gated.leads.tolist() == [2]
    assert (gated.dropped_quota, gated.dropped_quality) == (1, 1)
    assert state.customers.status.tolist() == [NONE, NONE, LEAD]


@pytest.mark.parametrize("fixed", [True, False])
def test_the_enterprise_gate_admits_only_leads_some_price_can_win(state, params, gidx, fixed):
    """Negotiation reads a new lead's quality clipped to [-1, 1] and times its sticky impression
    noise (reference-notes §4.7). With the group's best plan at Del = 1.2: firm 0 (Q_req(0) =
    1.0 + 0.25 sig(-2.5) = 1.019, noise 1.0) negotiates at 1.0 < 1.019 (the clip); firm 1
    (Q_req(0) = 0.9 + 0.2 sig(-2.5) = 0.915, noise 0.8) at 0.8 < 0.915 (the noise); firm 2 (as
    firm 1, noise 1.0) at 1.0 >= 0.915. The engine's gate (Del F, unclipped, no noise;
    ``fixes.enterprise_gate_as_negotiation = false``) admits all three, though firms 0 and 1
    could only ghost; ours admits firm 2 and counts the others as quality drops."""
    e1 = gidx["E1"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_gate_as_negotiation": fixed})}
    )
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    delivered = np.zeros((26, 3))
    delivered[e1] = [0.3, 1.2, 0.4]
    cols = {
        "group": np.full(3, e1),
        "c_max": np.full(3, 100.0),
        "q_min": np.array([1.0, 0.9, 0.9]),
        "q_max": np.array([1.5, 1.3, 1.3]),
        "s_left": np.ones(3),
        "s_right": np.ones(3),
        "usage_demand": np.full(3, 1.0),
        "seats": np.full(3, 10.0),
        "deal_noise": np.array([1.0, 0.8, 1.0]),
    }
    floors = [1.0 + 0.25 * _sig(-2.5), 0.9 + 0.2 * _sig(-2.5)]
    assert 1.0 < floors[0] <= 1.2 and 0.8 < floors[1] <= 1.0
    gated = _gate(state, params, e1, cols, delivered)
    if fixed:
        assert gated.leads.tolist() == [2] and (gated.dropped_quota, gated.dropped_quality) == (0, 2)
    else:
        assert gated.leads.tolist() == [0, 1, 2]


def _convert(state, params, rng, cols, delivered):
    """Individual leads ``cols`` through admission on a day with no market drift: the subscribers and
    the lost."""
    admitted = admit(state, params, rng, cols, _undrifted(state, cols), delivered)
    return admitted.subscribers, admitted.lost


class _Gated(NamedTuple):
    leads: np.ndarray
    dropped_quota: int
    dropped_quality: int


def _gate(state, params, group, cols, delivered):
    """Enterprise prospects ``cols`` of ``group`` through admission on a day with no market drift:
    the leads and the drops by cause. No stream is given: the gate draws nothing."""
    admitted = admit(state, params, None, cols, _undrifted(state, cols), delivered)
    return _Gated(admitted.leads, int(admitted.dropped_quota[group]), int(admitted.dropped_quality[group]))


def _undrifted(state, cols):
    """The (c_max, q_min, q_max) a new lead evaluates with on a day with no market drift."""
    return lead_preferences(state, cols, q_shift=0.0, c_drift=0.0)


def _leads_of_a_day(state, params, delivered, leads_rng=None, q_shift=None, c_drift=None):
    """One day's leads with fixed streams; ``leads_rng`` (a scripted Poisson) replaces the leads stream;
    ``q_shift`` and ``c_drift`` are the start-of-day drift of each group (none when not given)."""
    rngs = [np.random.default_rng(100 + g) for g in range(26)]
    return generate_leads(
        state,
        params,
        np.random.default_rng(1) if leads_rng is None else leads_rng,
        np.random.default_rng(2),
        rngs,
        np.zeros(26),
        delivered,
        np.zeros(26) if q_shift is None else q_shift,
        np.zeros(26) if c_drift is None else c_drift,
        np.ones(26),
        1.0,
    )


@pytest.mark.parametrize("once", [True, False])
@pytest.mark.parametrize("moved", ["nothing", "quality", "budget"])
def test_the_prospects_of_a_day_are_drawn_and_decide_with_their_groups_drift_of_the_start_of_the_day(
    state, params, gidx, once, moved
):
    """Reference-notes §1.2 step 3 and §4.7: 20 S1 prospects, every plan at $16 delivering 0.9. With no drift at
    the start of the day some subscribe, though the state's drift has since moved far (a competitor event of
    today: +5 quality, -1000 budget; it reaches them tomorrow) and other groups' drift is extreme. A start-of-day
    quality shift of +5 for S1 puts every band above any quality: all walk away; a budget drift of -1000 floors
    every budget at $15 < $16: all walk away. The engine's columns (``drift_counted_once`` off) store the shift
    and the floored budget; with the fix the columns hold the undrifted draws."""
    s1 = gidx["S1"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"drift_counted_once": once})}
    )
    state.day = 10
    state.settings.prices[:] = [16.0, 16.0, 16.0]
    state.settings.quotas[:] = [1e12, 1e12, 1e12]
    state.q_drift_global, state.c_drift_group[s1] = 5.0, -1000.0
    q_shift, c_drift = np.full(26, 5.0), np.full(26, -1000.0)
    q_shift[s1] = 5.0 if moved == "quality" else 0.0
    c_drift[s1] = -1000.0 if moved == "budget" else 0.0
    draws = np.zeros(26, dtype=np.int64)
    draws[s1] = 20
    day = _leads_of_a_day(state, params, np.full((26, 3), 0.9), _ScriptedPoisson(draws), q_shift, c_drift)
    assert len(day.new_subscribers) + len(day.lost) == 20
    assert (len(day.new_subscribers) > 0) == (moved == "nothing")
    cust = state.customers
    stored_shift = not once and moved == "quality"
    assert ((cust.q_max[:20] - cust.q_min[:20] > 0).all()) and ((cust.q_min[:20] > 4.0).all() == stored_shift)
    assert (cust.c_max[:20] == 15.0).all() == (not once and moved == "budget")


def test_enterprise_leads_never_exceed_the_market_across_days(state, params, gidx, add_customer):
    """Eq 29's cap as a finite list of firms (CEO-Bench Appendix D): E3's market on day 10 is
    floor(136 (1 + 0.1 x 10 / 365)) = 136 firms. 130 of them are already engaged (leads,
    customers, lost leads, cancelled accounts); 50 gate-dropped prospects engage nothing. A
    LinkedIn budget worth ~50,000 prospects a day then brings exactly the 6 firms left, on the
    next days none, whatever the budget, until the market's linear growth adds its 137th firm
    on day 27 (136 x 0.1 x 27 / 365 = 1.006)."""
    e3 = gidx["E3"]
    state.day = 10
    state.reputation[:] = 1.0
    state.settings.quotas[:] = [1e12, 1e12, 1e12]
    state.settings.ad_spend[e3, CHANNELS.index("linkedin")] = 1e9
    delivered = np.zeros((26, 3))
    delivered[e3] = [1.5, 1.5, 1.5]  # every prospect clears the gate
    for status in [LEAD, SUBSCRIBED, LOST, CANCELLED] * 32 + [LEAD, LEAD]:
        add_customer(state, group=e3, status=status, seats=10.0)
    for _ in range(50):
        add_customer(state, group=e3, status=NONE, seats=10.0)
    assert math.floor(136 * (1 + 0.1 * 10 / 365)) == 136
    day = _leads_of_a_day(state, params, delivered)
    assert day.expected[e3] == 6.0 and day.leads[e3] == 6
    assert len(day.enterprise_leads) == 6
    for d in (11, 12, 26):
        state.day = d
        day = _leads_of_a_day(state, params, delivered)
        assert day.leads[e3] == 0 and len(day.enterprise_leads) == 0
    state.day = 27
    assert _leads_of_a_day(state, params, delivered).leads[e3] == 1
    engaged = (state.customers.group == e3) & (state.customers.status != NONE)
    assert engaged.sum() == 137


def test_the_agent_is_told_why_enterprise_prospects_did_not_open_talks():
    """The engine drops gate-failing prospects silently (reference-notes §3.4); here one notification
    per group and day names the count and the cause (docs/ceo-seat.md "Enterprise deals"):
    with quotas at 0 and a product good enough, every E1 prospect is a quota drop; with ample
    quotas they become leads and nothing is said about drops."""
    from bizbench.envs.ceo.env import CeoEnv

    env = CeoEnv.from_preset("default", seed=5, horizon_days=30)
    st = env.world.state
    e1 = env.config.group_ids.index("E1")
    st.bonus_group[e1] = 2.0  # every plan's quality clears any E1 floor
    assert env.call("set_targeted_ad_spend", targeted_spend={"linkedin": {"E1": 200_000.0}}).ok
    assert env.call("set_usage_quotas", A=0.0, B=0.0, C=0.0).ok
    env.next_turn(1)
    notes = [n["message"] for n in env.call("get_notifications", type="large_customer_message").data["notifications"]]
    prospects = int(env.world.state.customers.n)
    assert prospects > 0 and notes == [
        f"{prospects} enterprise prospect(s) from E1 did not open talks: {prospects} need a larger daily usage "
        "quota than any plan whose quality suits them grants (the quota must cover usage per seat x seats)."
    ]
    assert env.call("set_usage_quotas", A=1e12, B=1e12, C=1e12).ok
    env.next_turn(1)
    notes = [
        n["message"]
        for n in env.call("get_notifications", type="large_customer_message", since_day=2).data["notifications"]
    ]
    assert notes and all(m.startswith("New enterprise lead: customer ") for m in notes)


def test_the_engine_lets_enterprise_leads_pass_the_market_over_the_days(state, params, gidx, add_customer):
    """``fixes.enterprise_market_finite = false`` (the engine, reference-notes §3.3): with all 136 E3
    firms already engaged, the day's prospects are still capped only at the day's whole market."""
    e3 = gidx["E3"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_market_finite": False})}
    )
    state.day = 10
    state.reputation[:] = 1.0
    state.settings.ad_spend[e3, CHANNELS.index("linkedin")] = 1e9
    for _ in range(136):
        add_customer(state, group=e3, status=SUBSCRIBED, seats=10.0)
    delivered = np.zeros((26, 3))
    day = _leads_of_a_day(state, params, delivered)
    assert day.expected[e3] == pytest.approx(136 * (1 + 0.1 * 10 / 365))


class _ScriptedPoisson:
    """A numpy Generator whose Poisson draw is scripted per group (the rest is the real generator's)."""

    def __init__(self, draws: np.ndarray) -> None:
        self.draws = draws
        self.rng = np.random.default_rng(1)

    def poisson(self, lam: np.ndarray) -> np.ndarray:
        return self.draws.copy()

    def __getattr__(self, name: str):
        return getattr(self.rng, name)


@pytest.mark.parametrize("finite", [True, False])
def test_a_poisson_draw_above_the_market_is_cut_only_under_the_finite_market_flag(state, params, gidx, finite):
    """E3's lambda sits at its day-10 market (136 open firms; the engine's cap 136.37) and the draw
    comes out at 150.
    With ``fixes.enterprise_market_finite`` (default) the draw is cut to the 136 firms of the open
    market; without it (engine-bugs, and every run recorded before the flag existed, whose
    config.json lacks it) the draw is used as it comes, as the code those runs were recorded with
    did."""
    e3 = gidx["E3"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_market_finite": finite})}
    )
    state.day = 10
    state.reputation[:] = 1.0
    state.settings.ad_spend[e3, CHANNELS.index("linkedin")] = 1e9
    draws = np.zeros(26, dtype=np.int64)
    draws[e3] = 150
    day = _leads_of_a_day(state, params, np.zeros((26, 3)), _ScriptedPoisson(draws))
    assert day.expected[e3] == (136.0 if finite else pytest.approx(136 * (1 + 0.1 * 10 / 365)))
    assert day.leads[e3] == (136 if finite else 150)
    assert day.dropped_quality[e3] == day.leads[e3]  # Del = 0: every prospect dropped at the gate


def _one_lead_converts(state, params, fake_rng, gidx, *, prices, c_max, lead_promo=0.0, quality=0.9):
    """One S1 lead with budget ``c_max`` (q band 0.2-0.8) facing ``prices``; every plan delivers
    ``quality`` and the acceptance noise is at its top, U(0.8, 1.1) -> 1.1; at the default 0.9 the
    impression is 0.99 and clears any requirement (Q_req <= q_max = 0.8): only the budget can
    turn the lead away.
    With ``lead_promo`` the lead came from content marketing, whose lead promotion is that much.
    Returns (subscribed, lost) customer indices."""
    s1 = gidx["S1"]
    state.day = 40
    assert state.c_drift_group[s1] == 0.0  # the budget the lead reads is its own c_max
    state.settings.prices[:] = prices
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    content = CHANNELS.index("content_marketing")
    state.settings.lead_promo_by_channel[content] = lead_promo
    delivered = np.zeros((26, 3))
    delivered[s1] = [quality, quality, quality]
    cols = {
        "group": np.full(1, s1),
        "c_max": np.full(1, c_max),
        "q_min": np.full(1, 0.2),
        "q_max": np.full(1, 0.8),
        "s_left": np.ones(1),
        "s_right": np.ones(1),
        "usage_demand": np.full(1, 80.0),
        "source": np.array([content if lead_promo else SOURCE_ORGANIC]),
    }
    rng = fake_rng(uniform=[1.0], normal=[0.0])  # a usage-rate draw z = 0 if it subscribes
    return _convert(state, params, rng, cols, delivered)


def test_a_lead_whose_budget_equals_the_price_exactly_subscribes(state, params, fake_rng, gidx):
    """Ref §3.4: skip C_p > c_max, subscribe iff C <= c_max. Plan B at $100.00 against a $100.00
    budget: C = c_max is within it, so B is the only plan with a surplus (A and C at $500 are
    above budget and skipped; B's is 0.9 - Q_req(100) = 0.9 - (0.2 + 0.3 + 0.3 sig(2.5)) =
    0.1228 > 0) and the lead subscribes to B. Were B skipped too, the lead would fall back to
    A at $500 and be lost."""
    assert 0.9 - _req(100.0) == pytest.approx(0.9 - (0.5 + 0.3 * _sig(2.5))) and 0.9 - _req(100.0) > 0
    subs, lost = _one_lead_converts(state, params, fake_rng, gidx, prices=[500.0, 100.0, 500.0], c_max=100.0)
    cust = state.customers
    assert subs.tolist() == [0] and lost.tolist() == []
    assert cust.status[0] == SUBSCRIBED and cust.plan[0] == 1
    assert cust.effective_price[0] == 100.0


def test_a_lead_whose_budget_is_one_cent_below_the_price_does_not_subscribe(state, params, fake_rng, gidx):
    """Ref §3.4: C = $100.00 > c_max = $99.99, so no plan is within budget; the lead falls back
    to plan A at $100.00, one cent above its budget, and is lost, although its impression of A
    (0.99) clears A's requirement above budget (q_max = 0.8)."""
    assert 0.9 * 1.1 >= _req(100.0, c_max=99.99) == 0.8
    subs, lost = _one_lead_converts(state, params, fake_rng, gidx, prices=[100.0, 500.0, 500.0], c_max=99.99)
    assert subs.tolist() == [] and lost.tolist() == [0]
    assert state.customers.status[0] == LOST


def test_a_lead_weighs_its_budget_against_the_price_after_its_lead_promotion(state, params, fake_rng, gidx):
    """Ref §3.4: C_p = [P_p - LP]+ is what must be within the budget. B listed at $105.00 with a
    $5.00 content-marketing lead promotion costs the lead C = $100.00 = c_max: it subscribes to B
    (listed price $105, first promotion $5, effective $100); a $4.99 promotion leaves C =
    $100.01, one cent above the budget: lost (A and C cost $495 or more either way)."""
    subs, _ = _one_lead_converts(
        state, params, fake_rng, gidx, prices=[500.0, 105.0, 500.0], c_max=100.0, lead_promo=5.0
    )
    cust = state.customers
    assert subs.tolist() == [0] and cust.plan[0] == 1
    assert (cust.listed_price[0], cust.first_promotion[0], cust.effective_price[0]) == (105.0, 5.0, 100.0)
    subs, lost = _one_lead_converts(
        state, params, fake_rng, gidx, prices=[500.0, 105.0, 500.0], c_max=100.0, lead_promo=4.99
    )
    assert subs.tolist() == [] and lost.tolist() == [1]


def test_a_lead_promotion_above_the_price_makes_the_plan_free(state, params, fake_rng, gidx):
    """Ref §3.4: C_p = [P_p - LP]+, floored at $0, not at any positive amount. A listed at $4.00
    with a $5.00 content-marketing lead promotion costs the lead C = $0; B and C ($495) are above
    its $15 budget (the c_max floor). Every plan delivers 0.21, below Q_req(0) = 0.2 + 0.3
    sig(-2.5) = 0.2228, so no surplus is positive and the lead weighs A; its impression 0.21 x
    1.1 = 0.231 clears Q_req(0) but would not clear Q_req($1) = 0.2 + 0.3 sig(10 (1/15 - 0.25))
    = 0.2413: it subscribes to A, pays $0 (effective price [4 - 5]+) and keeps the whole $5 as
    its first promotion."""
    floor, at_one_dollar = 0.2 + 0.3 * _sig(-2.5), 0.2 + 0.3 * _sig(10 * (1 / 15 - 0.25))
    assert 0.21 < floor <= 0.21 * 1.1 < at_one_dollar
    subs, lost = _one_lead_converts(
        state, params, fake_rng, gidx, prices=[4.0, 500.0, 500.0], c_max=15.0, lead_promo=5.0, quality=0.21
    )
    cust = state.customers
    assert subs.tolist() == [0] and lost.tolist() == []
    assert cust.plan[0] == 0
    assert (cust.listed_price[0], cust.first_promotion[0], cust.effective_price[0]) == (4.0, 5.0, 0.0)
    assert cust.promotion[0] == 5.0  # the promotion in force for the first period is the first promotion


def _exact_requirement_leads(
    state, group: int, q: np.ndarray, delivered: list[float]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Organic individual leads of one group on day 40 whose requirement is q at every price
    within their $100 budget (q_min = q_max: the curve's half-range is 0), each using 80 units,
    with plans A, B, C at $10, $20, $30, no quota, and the group's delivered quality per plan."""
    state.day = 40
    state.settings.prices[:] = [10.0, 20.0, 30.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    by_group = np.zeros((26, 3))
    by_group[group] = delivered
    n = len(q)
    cols = {
        "group": np.full(n, group),
        "c_max": np.full(n, 100.0),
        "q_min": q,
        "q_max": q.copy(),
        "s_left": np.ones(n),
        "s_right": np.ones(n),
        "usage_demand": np.full(n, 80.0),
        "source": np.full(n, SOURCE_ORGANIC),
    }
    return cols, by_group


def test_a_lead_whose_best_surplus_is_exactly_zero_falls_back_to_plan_a(state, params, fake_rng, gidx):
    """Ref §3.4: the lead picks the plan with the largest *positive* surplus, else plan A; each lead
    on its own surplus. With q_min = q_max the requirement is that value at every price within
    budget (the curve's half-range is 0), so the surpluses are exact. Plans deliver A 0.4, B 0.5,
    C 0.3, all prices within the $100 budget, acceptance noise at its top (1.1):
    lead 0 (requires 0.50): B's surplus is exactly 0, not positive -> plan A, 0.44 < 0.50: lost;
    lead 1 (requires 0.49): B's surplus 0.01 > 0 -> B, 0.55 >= 0.49: subscribes to B;
    lead 2 (requires 0.52): every surplus negative (B's -0.02 the largest) -> plan A, lost,
    although B (0.55 >= 0.52) would have won it: another lead's positive surplus is not its own."""
    s1 = gidx["S1"]
    cols, delivered = _exact_requirement_leads(state, s1, np.array([0.5, 0.49, 0.52]), delivered=[0.4, 0.5, 0.3])
    rng = fake_rng(uniform=[1.0, 1.0, 1.0], normal=[0.0, 0.0, 0.0])
    subs, lost = _convert(state, params, rng, cols, delivered)
    assert subs.tolist() == [1] and lost.tolist() == [0, 2]
    assert state.customers.plan[1] == 1 and state.customers.listed_price[1] == 20.0


def test_a_lead_whose_impression_equals_the_requirement_exactly_subscribes(state, params, fake_rng, gidx):
    """Ref §3.4: subscribe iff q U(0.8, 1.1) >= Q_req(C), the requirement included. With q_min =
    q_max the requirement is that value exactly. Every plan delivers 0.5 and the noise is at its
    bottom (0.8), so the impression is 0.5 x 0.8 = 0.4 exactly: lead 0 (requires 0.40) subscribes
    to A (equal surpluses 0.1: the first plan), lead 1 (requires 0.41) is lost."""
    s1 = gidx["S1"]
    cols, delivered = _exact_requirement_leads(state, s1, np.array([0.4, 0.41]), delivered=[0.5, 0.5, 0.5])
    assert 0.5 * 0.8 == 0.4
    rng = fake_rng(uniform=[0.0, 0.0], normal=[0.0, 0.0])
    subs, lost = _convert(state, params, rng, cols, delivered)
    assert subs.tolist() == [0] and lost.tolist() == [1]
    assert state.customers.plan[0] == 0


def test_the_enterprise_gate_clips_a_quality_below_minus_one_to_minus_one(state, params, gidx):
    """Reference-notes §4.7: the negotiation reads the quality clipped to [-1, 1], the bottom as well
    as the top. Every E1 plan delivers -1.5, read as -1.0 (noise 1.0). Firm 0 (band -1.3 to
    -1.1: Q_req(0) = -1.3 + 0.1 sig(-2.5) = -1.2924) clears it at -1.0 (unclipped, -1.5 would
    not); firm 1 (band -0.9 to -0.7: Q_req(0) = -0.8924) does not, a quality drop."""
    e1 = gidx["E1"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_gate_as_negotiation": True})}
    )
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    delivered = np.zeros((26, 3))
    delivered[e1] = [-1.5, -1.5, -1.5]
    cols = {
        "group": np.full(2, e1),
        "c_max": np.full(2, 100.0),
        "q_min": np.array([-1.3, -0.9]),
        "q_max": np.array([-1.1, -0.7]),
        "s_left": np.ones(2),
        "s_right": np.ones(2),
        "usage_demand": np.full(2, 1.0),
        "seats": np.full(2, 10.0),
        "deal_noise": np.ones(2),
    }
    floors = [-1.3 + 0.1 * _sig(-2.5), -0.9 + 0.1 * _sig(-2.5)]
    assert -1.5 < floors[0] <= -1.0 < floors[1]
    gated = _gate(state, params, e1, cols, delivered)
    assert gated.leads.tolist() == [0]
    assert (gated.dropped_quota, gated.dropped_quality) == (0, 1)


def test_an_enterprise_prospect_whose_quality_equals_the_requirement_exactly_passes_the_gate(state, params, gidx):
    """Ref §3.4: a lead iff some plan's quality >= Q_req(0), the requirement included; the cause of
    a drop reads the same >= with an unlimited quota. With q_min = q_max the requirement is that
    value exactly. E1's plans deliver 0.3, 0.35, 0.4 (noise 1.0), quotas 1,000 a day:
    firm 0 (requires 0.40, usage 5 x 1 seat, F = 1) reads 0.4 on C: a lead;
    firm 1 (requires 0.40, usage 50 x 100 seats, F = 0.2) reads 0.08 but would read 0.4 with an
    unlimited quota: a quota drop; firm 2 (requires 0.41) clears it on no plan: a quality drop.
    On day 47 the lead's billing anchor is 47 mod 30 = 17."""
    e1 = gidx["E1"]
    state.day = 47
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"enterprise_gate_as_negotiation": True})}
    )
    state.settings.quotas[:] = [1_000.0, 1_000.0, 1_000.0]
    delivered = np.zeros((26, 3))
    delivered[e1] = [0.3, 0.35, 0.4]
    q = np.array([0.4, 0.4, 0.41])
    cols = {
        "group": np.full(3, e1),
        "c_max": np.full(3, 100.0),
        "q_min": q,
        "q_max": q.copy(),
        "s_left": np.ones(3),
        "s_right": np.ones(3),
        "usage_demand": np.array([5.0, 50.0, 5.0]),
        "seats": np.array([1.0, 100.0, 1.0]),
        "deal_noise": np.ones(3),
    }
    gated = _gate(state, params, e1, cols, delivered)
    assert gated.leads.tolist() == [0]
    assert (gated.dropped_quota, gated.dropped_quality) == (1, 1)
    assert state.customers.status.tolist() == [LEAD, NONE, NONE]
    assert state.customers.billing_mod[0] == 17


@pytest.mark.parametrize("once", [True, False])
def test_a_new_lead_evaluates_with_its_band_and_budget_drifted_once(state, gidx, once):
    """Reference-notes §4.7: a new lead reads its quality band shifted by its group's drift of the start of
    the day (global + its group's: 0.05 + 0.02 = 0.07) and its budget moved by its group's budget drift
    (-20), floored at $15 ([sampling] c_max_floor): 100 -> 80, 30 -> 15. The state's drift, which a
    competitor event may have moved since the morning, is not read (reference-notes §1.2). With
    ``fixes.drift_counted_once`` off (the engine) the lead reads the columns as they are."""
    s1 = gidx["S1"]
    state.config = state.config.model_copy(
        update={"fixes": state.config.fixes.model_copy(update={"drift_counted_once": once})}
    )
    state.q_drift_global = 0.5
    state.q_drift_group[s1] = 0.2
    state.c_drift_group[s1] = -60.0
    cols = {"c_max": np.array([100.0, 30.0]), "q_min": np.array([0.2, 0.3]), "q_max": np.array([0.8, 0.9])}
    c_max, q_min, q_max = lead_preferences(state, cols, q_shift=0.07, c_drift=-20.0)
    if once:
        assert c_max.tolist() == [80.0, 15.0]
        assert q_min == pytest.approx([0.27, 0.37]) and q_max == pytest.approx([0.87, 0.97])
    else:
        assert c_max.tolist() == [100.0, 30.0]
        assert q_min.tolist() == [0.2, 0.3] and q_max.tolist() == [0.8, 0.9]


def test_a_poisson_draw_above_an_individual_groups_cap_is_cut_to_a_whole_count(state, params, gidx):
    """Under ``fixes.enterprise_market_finite`` the draw of an individual group is cut to the day's
    cap (``generate_leads``), and a count of prospects is whole: D_S10's cap on day 10 is
    34,000 (1 + 0.14 x 10 / 365) = 34,130.41 prospects, so a draw of 40,000 gives 34,130
    prospects, not 34,130.41."""
    ds10 = gidx["D_S10"]
    state.day = 10
    cap = 34_000 * (1 + 0.14 * 10 / 365)
    assert params.market_cap(10)[ds10] == pytest.approx(cap) and math.floor(cap) == 34_130 < cap
    draws = np.zeros(26, dtype=np.int64)
    draws[ds10] = 40_000
    day = _leads_of_a_day(state, params, np.zeros((26, 3)), _ScriptedPoisson(draws))
    assert day.leads[ds10] == 34_130 and day.leads.sum() == 34_130
    assert len(day.new_subscribers) + len(day.lost) == 34_130


def test_each_prospect_is_attributed_to_the_channels_that_sent_it_or_else_is_organic(state, params, gidx):
    """Reference-notes §3.3: a group's prospects are split over its channel weights x_cg L_cg / 1000 and
    its network weight; a group with no weight at all gets organic prospects. No subscribers (no
    network weight): S1 spends $200 on content marketing (weight 64.07), S2 $1 (weight
    0.32, below 1 but still a weight), S3 nothing. The draws are 3, 2 and 2 prospects: S1's and
    S2's are all content-marketing leads, S3's are organic. Every plan is free and S1's deliver
    5.0 (an impression of at least 4, above any S1 band) while S2's and S3's deliver 0 (below
    any q_min >= 1e-4): S1's prospects (customers 0-2) subscribe, the others (3-6) are lost."""
    s1, s2, s3 = gidx["S1"], gidx["S2"], gidx["S3"]
    content = CHANNELS.index("content_marketing")
    state.day = 10
    state.settings.prices[:] = [0.0, 0.0, 0.0]
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    state.settings.ad_spend[s1, content] = 200.0
    state.settings.ad_spend[s2, content] = 1.0
    delivered = np.zeros((26, 3))
    delivered[s1] = [5.0, 5.0, 5.0]
    draws = np.zeros(26, dtype=np.int64)
    draws[[s1, s2, s3]] = [3, 2, 2]
    day = _leads_of_a_day(state, params, delivered, _ScriptedPoisson(draws))
    assert 1.0 * 320.3613 / 1000 < 1
    assert day.channel_leads[s1, content] == 3 and day.channel_leads[s2, content] == 2
    assert day.channel_leads.sum() == 5
    cust = state.customers
    assert cust.n == 7 and cust.group[:7].tolist() == [s1] * 3 + [s2] * 2 + [s3] * 2
    assert cust.source[:7].tolist() == [content] * 5 + [SOURCE_ORGANIC] * 2
    assert day.new_subscribers.tolist() == [0, 1, 2] and day.lost.tolist() == [3, 4, 5, 6]
    # no enterprise lead: still an index array, as World reads the day's seats through it
    assert len(day.enterprise_leads) == 0 and cust.seats[day.enterprise_leads].sum() == 0.0


def test_the_live_channel_table_walks_by_five_percent_of_each_value_and_stops_at_zero(state, fake_rng, gidx):
    """Reference-notes §3.2: each month v <- max(0, v + N(0, 0.05 v)), cell by cell. S1's content
    marketing (320.3613 leads per $1,000) draws z = +2: 320.3613 x 1.1 = 352.39743; S1's search
    ads draws z = -30: v (1 - 1.5) < 0 -> 0; S2's content marketing z = -1: its value x 0.95;
    every other cell draws z = 0 and keeps its value."""
    s1, s2 = gidx["S1"], gidx["S2"]
    content, search = CHANNELS.index("content_marketing"), CHANNELS.index("search_ads")
    before = state.channel_leads.copy()
    assert before[s1, content] == 320.3613 and before[s1, search] > 0
    z = np.zeros(before.shape)
    z[s1, content], z[s1, search], z[s2, content] = 2.0, -30.0, -1.0
    channel_noise(state, fake_rng(normal=[z]))
    after = state.channel_leads
    assert after[s1, content] == pytest.approx(352.39743, rel=1e-12)
    assert after[s1, search] == 0.0
    assert after[s2, content] == pytest.approx(before[s2, content] * 0.95, rel=1e-12)
    others = np.ones(before.shape, dtype=bool)
    others[s1, content] = others[s1, search] = others[s2, content] = False
    assert (after[others] == before[others]).all()
