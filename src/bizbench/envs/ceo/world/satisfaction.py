"""Daily satisfaction EMA of every active subscriber (eq 16-17; reference-notes §4.7-4.8)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.customers import for_blocks, gather
from bizbench.envs.ceo.world.drift import quality_band, satisfaction_c_max
from bizbench.envs.ceo.world.promotions import ad_penalty
from bizbench.envs.ceo.world.quality import perceived_quality, quota_factor, relationship_as_read
from bizbench.envs.ceo.world.state import WorldState
from bizbench.envs.ceo.world.usage import weekly_factor


def update_satisfaction(
    state: WorldState,
    active: np.ndarray,
    delivered: np.ndarray,
    q_shift_by_group: np.ndarray,
    c_drift_group: np.ndarray,
    service_penalty: float,
) -> np.ndarray:
    """S <- (1 - w) S + w (Q_perc - Q_req(C)) with w = 0.1; returns S before the update.

    Daily variant of reference-notes §4.7: the stored effective price (per seat), the billing snapshot
    of the budget plus group c-drift, the service penalty, relationship, tenure, open-issue
    days, quota factor with today's demand r_i W(d), and the ad load including the
    per-customer strength. Uses start-of-day quality and drift (reference-notes §1.2 step 3). The update
    is elementwise, so it runs in blocks of customers (``for_blocks``) with identical results.
    """
    market = q_shift_by_group.tobytes() + c_drift_group.tobytes()
    if state.customers.q_req_market != market:  # a drift or competitor event moved every Q_req
        state.customers.forget_requirement(slice(None))
        state.customers.q_req_market = market
    before = np.empty(len(active))

    def block(b: slice) -> None:
        _update_block(state, active[b], delivered, q_shift_by_group, c_drift_group, service_penalty, before[b])

    for_blocks(len(active), block)
    return before


def _update_block(
    state: WorldState,
    active: np.ndarray,
    delivered: np.ndarray,
    q_shift_by_group: np.ndarray,
    c_drift_group: np.ndarray,
    service_penalty: float,
    before: np.ndarray,
) -> None:
    """The update of customers ``active``; their S before it is written into ``before``."""
    cfg = state.config
    cust = state.customers
    g = cust.group[active].astype(np.intp)  # one conversion for the group lookups below
    plan = cust.plan[active].astype(np.intp)
    demand = cust.usage_rate[active]
    demand *= weekly_factor(state, state.day)
    f = quota_factor(state.settings.quotas.take(plan), demand)
    ads = ad_penalty(state.settings, active, g, cust.eta_ads, include_customer=True)
    q_perc = perceived_quality(
        delivered.take(g * delivered.shape[1] + plan),  # delivered[g, plan]
        relationship_as_read(cust.relationship[active], cfg.fixes.relationship_zero_kept),
        state.day - cust.start_day[active],
        cust.issue_days[active],
        ads,
        f,
        cfg.quality,
        service_penalty,
    )
    q_perc -= daily_requirement(state, active, g, q_shift_by_group, c_drift_group)
    gather(cust.satisfaction, active, before)
    w = cfg.satisfaction.new_weight
    q_perc *= w
    after = (1.0 - w) * before
    after += q_perc
    cust.satisfaction[active] = after
    after -= before
    cust.satisfaction_change[active] = after


def daily_requirement(
    state: WorldState, active: np.ndarray, g: np.ndarray, q_shift_by_group: np.ndarray, c_drift_group: np.ndarray
) -> np.ndarray:
    """Q_req at the stored effective price of customers ``active`` (groups ``g``), with the billing snapshot
    budget and the group c-drift and quality shift (reference-notes §4.7 daily variant).

    Its inputs change only at a billing, a deal, a monthly drift or a market move, so it is kept in the
    column ``satisfaction_q_req``: computed where the column is NaN (``Customers.forget_requirement``)
    and read back otherwise, the same values.
    """
    cfg = state.config
    cust = state.customers
    q_req = cust.satisfaction_q_req[active]
    stale = np.flatnonzero(np.isnan(q_req))
    if len(stale):
        idx, gs = active[stale], g[stale]
        q_lo, q_hi = quality_band(cust, idx, q_shift_by_group.take(gs))
        c_max = satisfaction_c_max(cust, idx, c_drift_group.take(gs), cfg.sampling.c_max_floor)
        price = cust.effective_price[idx]  # per seat for enterprise accounts
        fresh = required_quality(price, c_max, q_lo, q_hi, cust.s_left[idx], cust.s_right[idx], cfg.curve)
        q_req[stale] = fresh
        cust.satisfaction_q_req[idx] = fresh
    return q_req
