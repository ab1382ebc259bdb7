"""Lead generation: saturation, calendar, expected leads (paper eq 28-29; reference-notes §2.6, §3.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.config import CHANNELS
from bizbench.envs.ceo.world.acquisition import (
    _convert_individuals,
    _enterprise_gate,
    expected_leads,
    monthly_factor,
    saturation,
)
from bizbench.envs.ceo.world.customers import LEAD, LOST, NONE, SOURCE_ORGANIC


def test_saturation():
    """Ref §3.3: D = max(0, 1 - (N / cap)^2) if N > 0, else 1."""
    got = saturation(np.array([0.0, 50.0, 100.0, 150.0, 1.0]), np.full(5, 100.0), 2.0)
    assert got == pytest.approx([1.0, 0.75, 0.0, 0.0, 1 - 1e-4])


def test_market_cap_linear_growth(params, gidx):
    """Ref §2.3: cap_g(d) = base_cap (1 + growth d / 365), linear."""
    caps = params.market_cap(365)
    assert caps[gidx["S1"]] == pytest.approx(272_000 * 1.2)
    assert caps[gidx["E3"]] == pytest.approx(136 * 1.1)
    assert params.market_cap(730)[gidx["S1"]] == pytest.approx(272_000 * 1.4)


@pytest.mark.parametrize(("day", "factor"), [
    (0, 1.15), (1, 1.15), (2, 1.15), (3, 1.0), (26, 1.0), (27, 1.10), (28, 1.10), (29, 1.10),
    (30, 1.15), (32, 1.15), (33, 1.0), (57, 1.10), (60, 1.15),
])
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
        "group": np.full(n, s1), "c_max": np.full(n, 100.0), "q_min": np.full(n, 0.2),
        "q_max": np.full(n, 0.8), "s_left": np.ones(n), "s_right": np.ones(n),
        "usage_demand": np.full(n, 80.0),
        "source": np.array([content, SOURCE_ORGANIC, SOURCE_ORGANIC]),
    }
    # lead 0 (LP 5): A 0.3 - Q(15) = 0.019, B 0.5 - Q(45) = 0.036, C at 105 > c_max -> B
    assert 0.5 - _req(45) > 0.3 - _req(15) > 0
    # leads 1-2 (LP 0): no positive surplus -> plan A; accepted only with noise >= 1.044
    assert max(0.3 - _req(20), 0.5 - _req(50)) < 0
    assert 0.3 * 1.1 >= _req(20) > 0.3 * 0.8
    rng = fake_rng(uniform=[[0.5, 1.0, 0.0]], normal=[[0.0, 1.0]])
    subs, lost = _convert_individuals(state, params, rng, s1, cols, delivered)
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
        "group": np.full(n, e1), "c_max": np.full(n, 100.0), "q_min": np.array([0.3, 0.5]),
        "q_max": np.array([0.9, 0.95]), "s_left": np.ones(n), "s_right": np.ones(n),
        "usage_demand": np.full(n, 50.0), "seats": np.full(n, 100.0),
    }
    floor0 = 0.3 + 0.3 * _sig(-2.5)                      # Q_req(0) for the first: 0.3228
    assert 0.4 >= floor0 and 0.4 < 0.5
    leads = _enterprise_gate(state, e1, cols, delivered)
    assert leads.tolist() == [0]
    assert state.customers.status.tolist() == [LEAD, NONE]
    assert state.customers.billing_mod[0] == 12
