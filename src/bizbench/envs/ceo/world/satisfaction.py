"""Daily satisfaction EMA of every active subscriber (eq 16-17; reference-notes §4.7-4.8)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.customers import Customers, for_blocks
from bizbench.envs.ceo.world.quality import perception_terms
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
    """The update of customers ``active`` (compiled: kernels.satisfaction); their S before it is
    written into ``before``."""
    cfg = state.config
    cust = state.customers
    daily_requirement(state, active, q_shift_by_group, c_drift_group)
    kernels.satisfaction(
        active,
        cust.group,
        cust.plan,
        cust.usage_rate,
        weekly_factor(state, state.day),
        state.settings.quotas,
        np.ascontiguousarray(delivered).reshape(-1),  # delivered[g, plan] at g * plans + plan
        delivered.shape[1],
        service_penalty,
        perception_terms(state, active, include_customer_ads=True),
        cfg.fixes.relationship_zero_kept,
        cust.satisfaction_q_req,
        cfg.satisfaction.new_weight,
        cust.satisfaction,
        cust.satisfaction_change,
        before,
    )


def daily_requirement(
    state: WorldState, active: np.ndarray, q_shift_by_group: np.ndarray, c_drift_group: np.ndarray
) -> None:
    """Q_req at the stored effective price of customers ``active``, with the billing snapshot budget and
    the group c-drift and quality shift (reference-notes §4.7 daily variant), in the column
    ``satisfaction_q_req``.

    Its inputs change only at a billing, a deal, a monthly drift or a market move, so the column keeps
    it: computed again only where it is NaN (``Customers.forget_requirement``).
    """
    cfg = state.config
    cust = state.customers
    positions = np.empty(len(active), dtype=np.int64)
    idx = active[positions[: kernels.nan_positions(cust.satisfaction_q_req, active, positions)]]
    if len(idx):
        price, budget, q_low, q_high, s_left, s_right = requirement_inputs(
            cust, idx, q_shift_by_group, c_drift_group, cfg.sampling.c_max_floor
        )
        cust.satisfaction_q_req[idx] = required_quality(price, budget, q_low, q_high, s_left, s_right, cfg.curve)


def requirement_inputs(
    cust: Customers, idx: np.ndarray, q_shift_by_group: np.ndarray, c_drift_group: np.ndarray, floor: float
) -> np.ndarray:
    """The daily-satisfaction read of eq 5's inputs for customers ``idx``, rows price, budget, q_min, q_max,
    s_left, s_right (kernels.requirement_inputs): the stored effective price, the billing snapshot budget
    (else c_max) plus the group c-drift, at least ``floor``, and the band plus the group quality shift
    (reference-notes §4.7)."""
    inputs = np.empty((6, len(idx)))
    kernels.requirement_inputs(
        idx,
        cust.group,
        cust.effective_price,
        cust.effective_c_max,
        cust.c_max,
        cust.q_min,
        cust.q_max,
        cust.s_left,
        cust.s_right,
        np.ascontiguousarray(q_shift_by_group, dtype=np.float64),
        np.ascontiguousarray(c_drift_group, dtype=np.float64),
        floor,
        inputs,
    )
    return inputs
