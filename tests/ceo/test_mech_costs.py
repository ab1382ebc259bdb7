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
    s.capacity_tier = 2  # $530/day
    s.tiers[:] = [1, 3, 5]  # $0.0003 / $0.006 / $0.03 per unit
    s.operations = 150.0
    s.development = 300.0
    s.ad_spend[0, CHANNELS.index("content_marketing")] = 200.0
    s.ad_spend[2, CHANNELS.index("referral_program")] = 125.5
    idx = np.array(
        [
            add_customer(state, group=0, plan=0, usage_today=1000.0),
            add_customer(state, group=0, plan=1, usage_today=1500.0),
            add_customer(state, group=1, plan=1, usage_today=500.0),
            add_customer(state, group=2, plan=2, usage_today=500.0),
        ]
    )
    start = state.ledger.balance_cents
    book_daily_costs(state, params, idx, usage_by_plan(state, idx, state.customers.usage_today[idx]))
    compute = 1000 * 0.0003 + 2000 * 0.006 + 500 * 0.03  # 27.3
    exp = {
        "capacity": -53_000,
        "compute": -round(compute * 100),
        "operations": -15_000,
        "development": -30_000,
        "advertising": -32_550,
    }
    assert _rows(state, 5) == exp
    assert state.ledger.balance_cents - start == sum(exp.values())


@pytest.mark.parametrize(("tier", "cost"), [(0, 85), (1, 215), (3, 1330), (7, 75_000)])
def test_capacity_cost_by_tier(state, params, tier, cost):
    """Ref §4.5: capacity cost per day by tier; zero-usage compute is not negative."""
    state.day = 1
    state.settings.capacity_tier = tier
    none = np.array([], dtype=np.int64)
    book_daily_costs(state, params, none, usage_by_plan(state, none, np.empty(0)))
    assert _rows(state, 1) == {"capacity": -cost * 100}


def test_ad_revenue(state, params, add_customer, gidx):
    """Eq 14 / reference-notes §4.18: daily ad revenue = sum_i rho_i a_i seats_i, a = ln(1 + 9 s)/ln 10, with whole
    seats (10.6 drifted seats read as 10, §4.17)."""
    state.day = 3
    state.settings.ads_global = 0.5
    idx = np.array(
        [
            add_customer(state, group=gidx["S1"], plan=0, rho_ads=0.1),
            add_customer(state, group=gidx["E1"], plan=0, rho_ads=0.2, seats=10.6),
        ]
    )
    book_daily_costs(state, params, idx, usage_by_plan(state, idx, state.customers.usage_today[idx]))
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
    none = np.array([], dtype=np.int64)
    book_daily_costs(state, params, none, usage_by_plan(state, none, np.empty(0)))
    assert _rows(state, 2) == {"capacity": -8_500, "operations": -15_500, "development": -120_000}


def test_every_cost_row_carries_its_note_and_amounts_below_a_dollar_are_booked(state, params, add_customer):
    """Ref §4.24: one negative row per category, the targeted spends in a second row noted 'targeted',
    every other row without a note; any amount above zero is booked, even below $1. Capacity tier 0
    ($85); 1,000 units on plan 0 at tier 1 ($0.0003) = $0.30 of compute (usage on plan 0 only: [1000, 0, 0])."""
    state.day = 4
    s = state.settings
    s.capacity_tier = 0
    s.tiers[:] = [1, 1, 1]
    s.operations, s.development = 0.5, 0.75
    s.ops_by_group[0] = 0.25
    s.targeted_dev[1] = 1.0
    s.ad_spend[0, CHANNELS.index("content_marketing")] = 0.4
    idx = np.array([add_customer(state, group=0, plan=0, usage_today=1000.0)])
    units = usage_by_plan(state, idx, state.customers.usage_today[idx])
    assert units.tolist() == [1000.0, 0.0, 0.0]
    book_daily_costs(state, params, idx, units)
    rows = [(r.category, r.cents, r.note) for r in state.ledger.rows if r.day == 4]
    assert rows == [
        ("capacity", -8_500, ""),
        ("compute", -30, ""),
        ("operations", -50, ""),
        ("operations", -25, "targeted"),
        ("development", -75, ""),
        ("development", -100, "targeted"),
        ("advertising", -40, ""),
    ]


def test_ad_revenue_below_a_dollar_is_booked_with_the_customers_own_ad_load(state, params, add_customer, gidx):
    """Eq 14 / reference-notes §4.18: ad revenue uses the customer term of the ad load too. One S1
    customer, rho 0.1, a per-customer strength of 0.1 (no global or group ads): a = ln 1.9 / ln 10,
    revenue 0.1 a = $0.0279 -> 3 cents; the earners returned are that customer, a and 0.1 a."""
    state.day = 6
    c = add_customer(state, group=gidx["S1"], plan=0, rho_ads=0.1)
    state.settings.ads_by_customer = {c: 0.1}
    who, load, revenue = book_daily_costs(state, params, np.array([c]), np.zeros(3))
    a = math.log(1.9) / math.log(10)
    assert who.tolist() == [c]
    assert load == pytest.approx([a], abs=1e-15)
    assert revenue == pytest.approx([0.1 * a], abs=1e-15)
    assert _rows(state, 6) == {"capacity": -8_500, "ad_revenue": 3}


def test_without_any_ad_load_nobody_earns_ad_revenue(state, params, add_customer):
    """Eq 14: with no ads on (global, group or customer), today's earners are empty (no customer
    id, no load, no revenue) and no ad_revenue row is booked, whatever customers are active."""
    state.day = 7
    idx = np.array([add_customer(state, group=0, plan=0, rho_ads=0.5) for _ in range(2)])
    who, load, revenue = book_daily_costs(state, params, idx, np.zeros(3))
    assert (who.shape, load.shape, revenue.shape) == ((0,), (0,), (0,))
    assert who.dtype.kind == "i"
    assert "ad_revenue" not in _rows(state, 7)
