"""Market drift: group accumulators, individual drift, and reading drifted preferences.

Eq 4 adds accumulated market drift to each customer's sampled parameters; reference-notes §4.17 gives
the engine's schedule (every 30 days from day 90) and rates. The engine adds drift that
predates a customer's creation twice (reference-notes §4.7); with ``fixes.drift_counted_once`` the
stored values exclude drift and every read adds the current accumulator once, as eq 4
intends (docs/calibration.md).
"""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.customers import Customers
from bizbench.envs.ceo.world.params import MACRO_SEAT, Params
from bizbench.envs.ceo.world.state import WorldState


def is_drift_day(day: int, state: WorldState) -> bool:
    d = state.config.drift
    return day % d.period_days == 0 and day >= d.first_day


def apply_group_drift(state: WorldState, params: Params) -> None:
    """q_g += rate_q * 30 and c_g += rate_c * 30 (reference-notes §4.17 group drift)."""
    period = state.config.drift.period_days
    state.q_drift_group += params.drift_q * period
    state.c_drift_group += params.drift_c * period


def apply_individual_drift(state: WorldState, params: Params, idx: np.ndarray) -> None:
    """Compound per-day rates over 30 days on subscribed customers ``idx`` (reference-notes §4.17).

    The rates are a group's, so each group's factors are computed once and read by its customers."""
    cfg = state.config.drift
    cust = state.customers
    growth = (1.0 + params.indiv_drift) ** cfg.period_days - 1.0  # by group: c_max, q_bias, steepness_left, seats
    factors = 1.0 + growth
    factors[:, 3] = 1.0 + growth[:, 3] * state.macro_multipliers[:, MACRO_SEAT]
    f = factors[cust.group[idx]]
    cust.c_max[idx] = np.clip(cust.c_max[idx] * f[:, 0], *cfg.c_max_bounds)
    cust.q_min[idx] *= f[:, 1]
    cust.q_max[idx] *= f[:, 1]
    cust.s_left[idx] = np.clip(cust.s_left[idx] * f[:, 2], *cfg.steep_left_bounds)
    cust.set_seats(idx, np.maximum(1.0, cust.seats[idx] * f[:, 3]))
    cust.forget_requirement(idx)


def quality_band(cust: Customers, idx: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q_min and q_max of customers ``idx`` with the market's quality shift G + q_g added (eq 4)."""
    lo, hi = cust.q_min[idx], cust.q_max[idx]
    lo += shift
    hi += shift
    return lo, hi


def drifted_c_max(cust: Customers, idx: np.ndarray, c_drift_group: np.ndarray, floor: float) -> np.ndarray:
    """Current c_max + group c-drift, floored (reference-notes §4.7 billing and trigger variants)."""
    return np.maximum(floor, cust.c_max[idx] + c_drift_group[cust.group[idx]])


def billing_snapshot_c_max(
    cust: Customers, idx: np.ndarray, c_drift_group: np.ndarray, floor: float, drift_once: bool
) -> np.ndarray:
    """The ``effective_c_max`` stored at billing (reference-notes §4.22).

    The engine stores c_max + c-drift and adds c-drift again on read; the fix stores the
    customer's own c_max so the read adds the group drift once.
    """
    if drift_once:
        return cust.c_max[idx].copy()
    return drifted_c_max(cust, idx, c_drift_group, floor)
