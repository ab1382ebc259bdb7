"""Money is exact (docs/principles.md principle 7): integer-cent ledger, cash = sum of the ledger, and
each day's ledger rows recomputed independently from the settings and customer columns."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.env import CeoEnv
from bizbench.envs.ceo.world.customers import SOURCE_NETWORK, SUBSCRIBED

START_CENTS = 100_000_000  # $1,000,000


# ---------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("policy_seed", [0, 1, 2, 5])
def test_cash_equals_sum_of_ledger_every_turn_and_day(policy_seed: int) -> None:
    env = CeoEnv.from_preset("default", seed=42, horizon_days=150)
    ledger = env.world.state.ledger
    rows = ledger.rows
    first = rows[0]
    assert (first.day, first.category, first.cents) == (0, "initial_funding", START_CENTS)
    assert type(first.cents) is int

    policy = make_policy("random", seed=policy_seed)
    metrics_by_day: dict[int, dict[str, Any]] = {}
    while not env.done:
        policy.act(env)  # may post lump sums (research) dated today
        assert ledger.balance_cents == sum(r.cents for r in rows)
        n0 = len(rows)
        balance = ledger.balance_cents
        records = env.next_turn()
        assert records
        # Rows posted by the simulation are dated with their day, in day order.
        step_rows = rows[n0:]
        assert [r.day for r in step_rows] == sorted(r.day for r in step_rows)
        assert {r.day for r in step_rows} <= {rec["day"] for rec in records}
        by_day: dict[int, int] = defaultdict(int)
        for r in step_rows:
            assert type(r.cents) is int, r
            by_day[r.day] += r.cents
        for rec in records:
            balance += by_day[rec["day"]]
            assert rec["cash"] == balance / 100  # the metric is the balance at the end of the day
            assert env.world.metrics[rec["day"] - 1] is rec
            metrics_by_day[rec["day"]] = rec
        assert balance == ledger.balance_cents == sum(r.cents for r in rows)
        assert ledger.cash == ledger.balance_cents / 100
    assert len(metrics_by_day) == env.day == len(env.world.metrics)
    assert [m["day"] for m in env.world.metrics] == list(range(1, env.day + 1))
    assert all(r.day <= env.day for r in rows)
    if env.world.state.bankrupt:
        assert ledger.balance_cents < 0 and env.world.metrics[-1]["cash"] < 0
        assert all(m["cash"] >= 0 for m in env.world.metrics[:-1])


# ---------------------------------------------------------------------------- recomputation
def _round_cents(dollars: np.ndarray | float) -> np.ndarray:
    """Round half away from zero to integer cents (the engine's convention)."""
    d = np.asarray(dollars, dtype=np.float64) * 100.0
    return (np.sign(d) * np.floor(np.abs(d) + 0.5)).astype(np.int64)


def _assert_cents(category: str, day: int, actual: int, expected_dollars: float) -> None:
    """Exact cents; a 1-cent difference only when the true amount sits on a half cent and
    the summation order of floats decides the rounding."""
    expected = int(_round_cents(expected_dollars))
    if actual == expected:
        return
    frac = abs(expected_dollars * 100.0) % 1.0
    assert abs(actual - expected) == 1 and abs(frac - 0.5) < 1e-6, (
        f"day {day} {category}: ledger {actual} cents, recomputed {expected_dollars * 100:.4f}"
    )


class Perturbed:
    """The rule-based policy plus weekly changes to prices, promotions, ads and ops, so the
    billing rules (stored vs current price, first-bill vs ongoing promotion) all matter."""

    def __init__(self) -> None:
        self.base = make_policy("rule-based")
        self.week = 0

    def act(self, env: CeoEnv) -> None:
        self.base.act(env)
        k = self.week
        self.week += 1
        scale = (1.0, 0.9, 1.15, 0.8)[k % 4]
        assert env.call("set_prices", A=round(12 * scale, 2), B=round(25 * scale, 2), C=round(55 * scale, 2)).ok
        assert env.call(
            "set_promotion",
            global_promotion=0.35 * (k % 3),
            by_group={"S1": 0.5 * (k % 2)},
            by_group_plan={"S1": {"B": 1.25 * (k % 2)}},
        ).ok
        assert env.call(
            "set_lead_promotion", global_promotion=1.5 * ((k + 1) % 2), by_channel={"social_media": 0.75}
        ).ok
        assert env.call("set_ads_strength", global_strength=0.04 * (k % 3), by_group={"S1": 0.01}).ok
        assert env.call(
            "set_targeted_ops_spend", targeted_spend={"S1": 15.0}, by_plan={"A": 5.0}, by_group_plan={"S1": {"C": 2.5}}
        ).ok


def _expected_payments(env: CeoEnv, pre: dict[str, np.ndarray], day: int) -> dict[str, np.ndarray]:
    """Expected subscription payments per group from the rules of ``billing.take_payments``.

    Due: subscribed after the step with anchor day % 30. Individuals pay
    max(0, min(stored listed, current list) - promo); the stored listed price is the
    pre-step one for customers who kept their plan, and the current list price for today's
    signups and plan switchers. The first bill (today's signups) uses the lead promotion
    plus the ongoing promotion at signup; later bills the ongoing promotion.
    """
    cfg, st = env.config, env.world.state
    s, cust = st.settings, st.customers
    n_pre = len(pre["status"])
    idx = np.flatnonzero((cust.status == SUBSCRIBED) & (cust.billing_mod == day % 30))
    g = cust.group[idx].astype(np.int64)
    is_ent = np.array([grp.kind == "ENT" for grp in cfg.groups])
    assert not is_ent[g].any(), "the rule-based policy signs no enterprise deals"
    plan = cust.plan[idx].astype(np.int64)
    current = s.prices[plan]
    old = idx < n_pre
    kept = np.zeros(len(idx), dtype=bool)
    kept[old] = (pre["status"][idx[old]] == SUBSCRIBED) & (pre["plan"][idx[old]] == plan[old])
    stored = current.copy()
    stored[kept] = pre["listed_price"][idx[kept]]
    new = ~old
    assert (cust.start_day[idx[new]] == day).all()
    # Every individual's first bill falls on its signup day (anchor = start day % 30).
    assert pre["first_billing_done"][idx[old]].all()
    ongoing = (
        s.promo_global
        + s.promo_by_group[g]
        + s.promo_by_group_plan[g, plan]
        + np.array([s.promo_by_customer.get(int(i), 0.0) for i in idx])
    )
    src = cust.source[idx].astype(np.int64)
    channel = src < SOURCE_NETWORK
    lead = s.lead_promo_global + s.lead_promo_by_group[g]
    lead[channel] += s.lead_promo_by_channel[src[channel]] + s.lead_promo_by_channel_group[g[channel], src[channel]]
    promo = np.where(new, lead + ongoing, ongoing)
    np.testing.assert_allclose(cust.first_promotion[idx[new]], promo[new], rtol=0, atol=1e-12)
    pay = np.maximum(0.0, np.minimum(stored, current) - promo)
    return {"cents": _round_cents(pay), "group": g}


def test_daily_ledger_rows_recomputed_independently() -> None:
    env = CeoEnv.from_preset("default", seed=7, horizon_days=112)
    cfg, st = env.config, env.world.state
    ledger, cust, s = st.ledger, st.customers, st.settings
    group_ids = cfg.group_ids
    policy = Perturbed()
    checked_payments = first_bills = renewals = ad_days = 0
    while not env.done:
        policy.act(env)
        for _ in range(cfg.days_per_turn):
            if env.done:
                break
            pre = {k: cust.column(k).copy() for k in ("status", "plan", "listed_price", "first_billing_done")}
            n0 = len(ledger.rows)
            (rec,) = env.next_turn(1)
            d = rec["day"]
            rows = ledger.rows[n0:]
            assert all(r.day == d for r in rows)
            totals: dict[str, int] = defaultdict(int)
            for r in rows:  # targeted spend is a second operations/development row (reference-notes §4.24)
                totals[r.category + ("_targeted" if r.note == "targeted" else "")] += r.cents

            active = np.flatnonzero(cust.status == SUBSCRIBED)
            # Compute is billed on the usage of the subscribers active at the start of the day,
            # on the plan they had then (churn and switches happen later in the day).
            start_active = np.flatnonzero(pre["status"] == SUBSCRIBED)
            start_plan = pre["plan"][start_active].astype(np.int64)
            unit_cost = np.array([t.cost_per_unit for t in cfg.model_tiers])[s.tiers[start_plan] - 1]
            ops_targeted = (
                s.ops_by_group.sum() + s.ops_by_plan.sum() + s.ops_by_group_plan.sum() + sum(s.ops_by_customer.values())
            )
            expected = {
                "capacity": -cfg.capacity_tiers[s.capacity_tier].cost_per_day,
                "compute": -math.fsum(cust.usage_today[start_active] * unit_cost),
                "operations": -s.operations,
                "operations_targeted": -float(ops_targeted),
                "development": -s.development,
                "development_targeted": -float(s.targeted_dev.sum()),
                "advertising": -float(s.ad_spend.sum()),
                "lead_acquisition_cost": -cfg.acquisition.lead_cost * rec["leads"],
            }
            # In-app ad revenue: sum rho_i a(s_i) over active individuals, a = ln(1+9s)/ln 10.
            g_act = cust.group[active].astype(np.int64)
            strength = np.clip(
                s.ads_global + s.ads_by_group[g_act] + np.array([s.ads_by_customer.get(int(i), 0.0) for i in active]),
                0,
                1,
            )
            if s.ads_global > 0 or s.ads_by_group.any() or s.ads_by_customer:
                expected["ad_revenue"] = math.fsum(cust.rho_ads[active] * np.log1p(9 * strength) / math.log(10))
                ad_days += expected["ad_revenue"] > 0
            for category, dollars in expected.items():
                if dollars == 0:
                    assert category not in totals, (d, category)
                else:
                    _assert_cents(category, d, totals.get(category, 0), dollars)

            pay = _expected_payments(env, pre, d)
            by_group = defaultdict(int)
            for gi, c in zip(pay["group"], pay["cents"], strict=True):
                by_group[group_ids[gi]] += int(c)
            pay_rows = {r.group: r.cents for r in rows if r.category == "subscription_payment"}
            assert pay_rows == {k: v for k, v in by_group.items()}, d
            assert totals.get("subscription_payment", 0) == int(pay["cents"].sum())
            checked_payments += len(pay["cents"])
            first_bills += rec["new_subscribers"]
            renewals += len(pay["cents"]) - rec["new_subscribers"]

            assert set(totals) <= set(expected) | {"subscription_payment"}, set(totals)
            assert rec["cash"] == ledger.balance_cents / 100
    # The run exercised every billing path.
    assert env.day == 112
    assert first_bills > 500 and renewals > 500 and ad_days > 20
    assert checked_payments == first_bills + renewals
