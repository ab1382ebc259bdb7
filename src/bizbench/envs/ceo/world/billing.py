"""Billing: involuntary churn, plan choice / switching, and payments (eq 6, 7, 18, 19; reference-notes §4.22)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.core.ledger import to_cents_array
from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.customers import (
    CANCELLED,
    REASON_INVOLUNTARY,
    REASON_VOLUNTARY,
    for_blocks,
)
from bizbench.envs.ceo.world.drift import billing_snapshot_c_max
from bizbench.envs.ceo.world.offer import best_plan
from bizbench.envs.ceo.world.params import MACRO_WTP, Params
from bizbench.envs.ceo.world.promotions import ongoing_promotion, per_customer
from bizbench.envs.ceo.world.quality import perception_terms
from bizbench.envs.ceo.world.state import WorldState
from bizbench.envs.ceo.world.usage import draw_usage_rate, weekly_factor


@dataclass
class BillingDecisions:
    involuntary: np.ndarray
    cancelled: np.ndarray  # voluntary cancellations (reputation damage, post candidates)
    cancelled_satisfaction: np.ndarray
    upgrades: np.ndarray
    downgrades: np.ndarray


def involuntary_rates(params: Params, rng: np.random.Generator) -> np.ndarray:
    """mu_{g,m} = clip(N(mu_inv, sigma_inv), 0, 1), one per group for a month (eq 19)."""
    return np.clip(rng.normal(params.invol_mu, params.invol_sd), 0.0, 1.0)


def due_today(state: WorldState, active: np.ndarray) -> np.ndarray:
    """Active subscriptions whose billing anchor (start day mod 30) is today (reference-notes §4.22), found
    in blocks of customers (``for_blocks``), in their order."""
    anchor, today = state.customers.billing_mod, state.day % 30

    def block(b: slice) -> np.ndarray:
        out = np.empty(len(active[b]), dtype=np.int64)
        return out[: kernels.due_rows(active[b], anchor, today, out)]

    return np.concatenate(for_blocks(len(active), block) or [active[:0]])


def plan_values(
    state: WorldState,
    params: Params,
    idx: np.ndarray,
    delivered: np.ndarray,
    q_shift: np.ndarray,
    c_drift_group: np.ndarray,
    with_macro: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Surplus, effective price and acceptability of each plan, shape [n, 3].

    Billing-decision variant of reference-notes §4.7: (Del + RB + TB) F - IP - AP with the global and
    group ad strength, no service penalty; price = [list - ongoing promotion]+ (eq 7);
    budget = c_max + c-drift (floor 15), times the macro WTP multiplier when ``with_macro``; a plan is
    acceptable when its price is within the budget and its quality clears Q_req(price) (eq 5-6).
    Compiled (kernels.plan_terms, then eq 5 by ``curve.required_quality``).
    """
    cfg, cust, s = state.config, state.customers, state.settings
    n, plans = len(idx), len(s.prices)
    terms = np.empty((7, n * plans))
    quality, price, budget, q_low, q_high, s_left, s_right = terms
    kernels.plan_terms(
        idx,
        cust.group,
        cust.usage_rate,
        weekly_factor(state, state.day),
        np.ascontiguousarray(s.quotas, dtype=np.float64),
        np.ascontiguousarray(delivered, dtype=np.float64).reshape(-1),  # delivered[g, plan] at g * plans + plan
        perception_terms(state, idx, include_customer_ads=False),  # the relationship read as stored (§4.10)
        np.ascontiguousarray(s.prices, dtype=np.float64),
        (  # the ongoing promotion (eq 7)
            float(s.promo_global),
            np.ascontiguousarray(s.promo_by_group, dtype=np.float64),
            per_customer(s.promo_by_customer, idx),
            np.ascontiguousarray(s.promo_by_group_plan, dtype=np.float64).reshape(-1),
        ),
        (  # the budget
            cust.c_max,
            np.ascontiguousarray(c_drift_group, dtype=np.float64),
            cfg.sampling.c_max_floor,
            np.ascontiguousarray(state.macro_multipliers[:, MACRO_WTP]) if with_macro else np.empty(0),
        ),
        (cust.q_min, cust.q_max, np.ascontiguousarray(q_shift, dtype=np.float64), cust.s_left, cust.s_right),
        terms,
    )
    req = required_quality(price, budget, q_low, q_high, s_left, s_right, cfg.curve)
    ok = (price <= budget) & (quality >= req)
    quality -= req  # surplus
    return quality.reshape(n, plans), price.reshape(n, plans), ok.reshape(n, plans)


def billing_decisions(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    rates: np.ndarray,
    active: np.ndarray,
    delivered: np.ndarray,
    q_shift: np.ndarray,
    c_drift_group: np.ndarray,
) -> BillingDecisions:
    """Anchor-day review of individual subscribers (reference-notes §4.22, step 16).

    1. Involuntary churn with the month's group rate (eq 19); no reputation damage. With
       ``fixes.enterprise_involuntary_churn`` enterprise accounts face it too at their
       anchor (the engine checks it only at multi-month renewals, which never occur).
    2. Otherwise the acceptable plan with the largest surplus (eq 6): none -> cancel; a
       different plan -> switch at that plan's current price and promotion.
    """
    cfg = state.config
    cust = state.customers
    due = due_today(state, active)
    due = due[cust.start_day[due] != state.day]
    ent = params.is_ent[cust.group[due]]
    invol_pool = due if cfg.fixes.enterprise_involuntary_churn else due[~ent]
    hit = rng.random(len(invol_pool)) < rates[cust.group[invol_pool]]
    involuntary = invol_pool[hit]
    _cancel(state, involuntary, REASON_INVOLUNTARY)

    review = due[~ent]
    review = review[cust.status[review] != CANCELLED]
    surplus, _, ok = plan_values(state, params, review, delivered, q_shift, c_drift_group, True)
    best, _ = best_plan(surplus, ok)
    any_ok = best >= 0
    cancelled = review[~any_ok]
    cancelled_s = cust.satisfaction[cancelled].copy()
    _cancel(state, cancelled, REASON_VOLUNTARY)

    keep = review[any_ok]
    best = best[any_ok]
    switch = best != cust.plan[keep]
    movers = keep[switch]
    new_plan = best[switch]
    new_listed = state.settings.prices[new_plan]
    up = new_listed > cust.listed_price[movers]
    g = cust.group[movers]
    promo = ongoing_promotion(state.settings, movers, g, new_plan)
    cust.plan[movers] = new_plan
    cust.listed_price[movers] = new_listed
    cust.promotion[movers] = promo
    cust.effective_price[movers] = np.maximum(0.0, new_listed - promo)
    cust.effective_c_max[movers] = billing_snapshot_c_max(
        cust, movers, c_drift_group, cfg.sampling.c_max_floor, cfg.fixes.drift_counted_once
    )
    cust.forget_requirement(movers)
    return BillingDecisions(involuntary, cancelled, cancelled_s, movers[up], movers[~up])


def _cancel(state: WorldState, idx: np.ndarray, reason: int) -> None:
    cust = state.customers
    cust.status[idx] = CANCELLED
    cust.end_day[idx] = state.day
    cust.churn_reason[idx] = reason


@dataclass
class Payments:
    customers: np.ndarray
    cents: np.ndarray


def take_payments(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    active: np.ndarray,
    suspended: np.ndarray,
    c_drift_group: np.ndarray,
) -> Payments:
    """Collect payments of subscriptions whose anchor is today, incl. today's signups (eq 18).

    Individuals pay [min(stored, current list) - promo]+ (the first bill uses the signup
    snapshot; a lower list price becomes the stored one, a higher one does not reach them).
    Enterprises pay the agreed per-seat price (first bill) or [listed - promo]+, times
    whole seats, and nothing while their payment is ``suspended`` (``EnterpriseDay.suspended``:
    a churn-prevention thread open when the day's step 17 began). Afterwards prices, promotion
    and budget snapshot are re-stored for those who paid (the seat count keeps its fraction:
    ``Customers.whole_seats``); every account due today, a suspended one too (its usage goes
    on), starts a new period with a new usage rate (reference-notes §4.22).
    """
    cfg = state.config
    cust = state.customers
    s = state.settings
    due = due_today(state, active)
    paying = due[~np.isin(due, suspended)]
    g = cust.group[paying]
    ent = params.is_ent[g]
    plan = cust.plan[paying]
    first = ~cust.first_billing_done[paying]
    ongoing = ongoing_promotion(s, paying, g, plan)

    current = s.prices[plan]
    listed = np.where(ent, cust.listed_price[paying], np.minimum(cust.listed_price[paying], current))
    promo = np.where(first & ~ent, cust.first_promotion[paying], ongoing)
    per_seat = np.where(ent & first, cust.effective_price[paying], np.maximum(0.0, listed - promo))
    seats = cust.whole_seats(paying)
    cents = to_cents_array(per_seat * seats)

    cust.listed_price[paying] = listed
    cust.promotion[paying] = ongoing
    cust.effective_price[paying] = np.maximum(0.0, listed - ongoing)
    cust.effective_c_max[paying] = billing_snapshot_c_max(
        cust, paying, c_drift_group, cfg.sampling.c_max_floor, cfg.fixes.drift_counted_once
    )
    cust.forget_requirement(paying)
    cust.first_billing_done[paying] = True
    cust.usage_rate[due] = draw_usage_rate(
        rng, cust.usage_demand[due], cust.whole_seats(due), cfg.usage.rate_sd_fraction
    )
    cust.period_usage[due] = 0.0
    return Payments(paying, cents)
