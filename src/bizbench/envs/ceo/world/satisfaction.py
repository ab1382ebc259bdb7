"""Daily satisfaction EMA of every active subscriber (eq 16-17; reference-notes §4.7-4.8)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.drift import quality_band, satisfaction_c_max
from bizbench.envs.ceo.world.promotions import ad_penalty
from bizbench.envs.ceo.world.quality import perceived_quality, quota_factor, relationship_as_read
from bizbench.envs.ceo.world.state import WorldState
from bizbench.envs.ceo.world.usage import weekly_factor

CHUNK = 1 << 19  # customers per block: keeps temporaries small enough for the allocator to reuse


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
    is elementwise, so it runs in blocks of customers with identical results.
    """
    parts = [
        _update_block(state, active[i : i + CHUNK], delivered, q_shift_by_group, c_drift_group, service_penalty)
        for i in range(0, len(active), CHUNK)
    ]
    return np.concatenate(parts) if parts else np.empty(0)


def _update_block(
    state: WorldState,
    active: np.ndarray,
    delivered: np.ndarray,
    q_shift_by_group: np.ndarray,
    c_drift_group: np.ndarray,
    service_penalty: float,
) -> np.ndarray:
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
    q_lo, q_hi = quality_band(cust, active, q_shift_by_group.take(g))
    c_max = satisfaction_c_max(cust, active, c_drift_group.take(g), cfg.sampling.c_max_floor)
    price = cust.effective_price[active]  # per seat for enterprise accounts
    q_perc -= required_quality(
        price,
        c_max,
        q_lo,
        q_hi,
        cust.s_left[active],
        cust.s_right[active],
        cfg.curve,
    )
    before = cust.satisfaction[active]
    w = cfg.satisfaction.new_weight
    q_perc *= w
    after = (1.0 - w) * before
    after += q_perc
    cust.satisfaction[active] = after
    after -= before
    cust.satisfaction_change[active] = after
    return before
