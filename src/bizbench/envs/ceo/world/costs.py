"""Daily costs, ad revenue and the cash ledger (eq 14, 43-44; reference-notes §4.24)."""

from __future__ import annotations

import numpy as np

from bizbench.core.ledger import to_cents
from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.customers import for_blocks
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.promotions import ad_strength, ads_active
from bizbench.envs.ceo.world.quality import effective_ad_load
from bizbench.envs.ceo.world.state import N_PLANS, WorldState


def ad_revenue_by_customer(state: WorldState, active: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(customers, effective ad load a_i, revenue rho_i a_i seats_i) of today's earners (eq 14;
    reference-notes §4.18)."""
    empty = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
    if not ads_active(state.settings) or len(active) == 0:
        return empty
    cust = state.customers
    a = effective_ad_load(ad_strength(state.settings, active, cust.group[active], include_customer=True))
    seats = cust.whole_seats(active)
    return active, a, cust.rho_ads[active] * a * seats


def usage_by_plan(state: WorldState, active: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Today's usage units on each plan, taken right after the usage step (eq 43 U_p): ``units`` are the
    usage step's units of the ``active`` subscribers. Summed in blocks of customers (``for_blocks``): the
    units are whole numbers (eq 8 rounds them), so the blocks' sums add up exactly, as one sum would."""
    plan = state.customers.plan

    def block(b: slice) -> np.ndarray:
        sums = np.zeros(N_PLANS)
        kernels.sum_by_plan(active[b], plan, units[b], sums)
        return sums

    return sum(for_blocks(len(active), block), np.zeros(N_PLANS))


def book_daily_costs(
    state: WorldState, params: Params, active: np.ndarray, units_by_plan: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Book eq 43's recurring terms as ledger rows, one per category (reference-notes §4.24 table).

    Lead costs and lump-sum research are booked where they happen; ad revenue here.
    Returns today's per-customer ad revenue (for the agent-visible ``ads_revenue`` table).
    """
    s = state.settings
    d = state.day
    rows = [
        ("capacity", float(params.capacity_cost[s.capacity_tier]), ""),
        ("compute", float(np.sum(units_by_plan * params.tier_cost[s.tiers - 1])), ""),
        ("operations", s.operations, ""),
        ("operations", s.targeted_ops_total(), "targeted"),
        ("development", s.development, ""),
        ("development", float(s.targeted_dev.sum()), "targeted"),
        ("advertising", float(s.ad_spend.sum()), ""),
    ]
    for category, amount, note in rows:
        if amount > 0:
            state.ledger.post(d, category, -to_cents(amount), note)
    earners = ad_revenue_by_customer(state, active)
    revenue = float(earners[2].sum())
    if revenue > 0:
        state.ledger.post(d, "ad_revenue", to_cents(revenue))
    return earners
