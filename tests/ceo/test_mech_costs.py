"""Daily costs, ad revenue and the ledger (paper eq 14, 43-44; reference-notes §4.18, §4.24)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.config import CHANNELS
from bizbench.envs.ceo.world.costs import book_daily_costs, usage_by_plan


def _rows(state, day):
    out: dict[str, int] = {}
    for r in state.ledger.rows:
        if r.day == day:
            out[r.category] = out.get(r.category, 0) + r.cents
    return out


def test_each_category_equals_settings(state, params, add_customer):
    """Eq 43 / reference-notes §4.24: capacity_cost(tier) + sum_p usage_p unit_cost(tier_p) + ops + dev +
    advertising (sum over (channel, group)); each booked as its own negative ledger row."""
    state.day = 5
    s = state.settings
    s.capacity_tier = 2                                  # $530/day
    s.tiers[:] = [1, 3, 5]                               # $0.0003 / $0.006 / $0.03 per unit
    s.operations = 150.0
    s.development = 300.0
    s.ad_spend[0, CHANNELS.index("content_marketing")] = 200.0
    s.ad_spend[2, CHANNELS.index("referral_program")] = 125.5
    idx = np.array([
        add_customer(state, group=0, plan=0, usage_today=1000.0),
        add_customer(state, group=0, plan=1, usage_today=1500.0),
        add_customer(state, group=1, plan=1, usage_today=500.0),
        add_customer(state, group=2, plan=2, usage_today=500.0),
    ])
    start = state.ledger.balance_cents
    book_daily_costs(state, params, idx, usage_by_plan(state, idx))
    compute = 1000 * 0.0003 + 2000 * 0.006 + 500 * 0.03   # 27.3
    exp = {"capacity": -53_000, "compute": -round(compute * 100), "operations": -15_000,
           "development": -30_000, "advertising": -32_550}
    assert _rows(state, 5) == exp
    assert state.ledger.balance_cents - start == sum(exp.values())


@pytest.mark.parametrize(("tier", "cost"), [(0, 85), (1, 215), (3, 1330), (7, 75_000)])
def test_capacity_cost_by_tier(state, params, tier, cost):
    """Ref §4.5: capacity cost per day by tier; zero-usage compute is not negative."""
    state.day = 1
    state.settings.capacity_tier = tier
    book_daily_costs(state, params, np.array([], dtype=np.int64), usage_by_plan(state, np.array([], dtype=np.int64)))
    assert _rows(state, 1) == {"capacity": -cost * 100}


def test_ad_revenue(state, params, add_customer, gidx):
    """Eq 14 / reference-notes §4.18: daily ad revenue = sum_i rho_i a_i seats_i, a = ln(1 + 9 s)/ln 10."""
    state.day = 3
    state.settings.ads_global = 0.5
    idx = np.array([
        add_customer(state, group=gidx["S1"], plan=0, rho_ads=0.1),
        add_customer(state, group=gidx["E1"], plan=0, rho_ads=0.2, seats=10.0),
    ])
    book_daily_costs(state, params, idx, usage_by_plan(state, idx))
    a = math.log(5.5) / math.log(10)
    assert _rows(state, 3)["ad_revenue"] == round((0.1 * a + 2 * a) * 100)


def test_targeted_spend_booked_under_operations_and_development(state, params):
    """Ref §4.24: 'operations' = daily global ops plus a second row for targeted ops;
    'development' likewise for targeted dev."""
    state.day = 2
    s = state.settings
    s.operations = 100.0
    s.ops_by_group[0] = 40.0
    s.ops_by_plan[1] = 10.0
    s.ops_by_customer = {3: 5.0}
    s.development = 200.0
    s.targeted_dev[1] = 1000.0
    book_daily_costs(state, params, np.array([], dtype=np.int64), usage_by_plan(state, np.array([], dtype=np.int64)))
    assert _rows(state, 2) == {"capacity": -8_500, "operations": -15_500, "development": -120_000}
