"""Daily usage under per-day plan quotas (eq 8; reference-notes §4.3)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.customers import for_blocks
from bizbench.envs.ceo.world.state import WorldState


def weekly_factor(state: WorldState, day: int) -> float:
    """W(d) by d mod 7: leads and usage follow the same weekly cycle (reference-notes §2.6)."""
    factors = state.config.usage.weekly_factors
    return factors[day % len(factors)]


def draw_usage_rate(rng: np.random.Generator, demand: np.ndarray, seats: np.ndarray, sd_fraction: float) -> np.ndarray:
    """r_i = max(0, N(u_i, 0.2 u_i)) x seats, drawn at signup and at each billing (reference-notes §4.3)."""
    return np.maximum(0.0, rng.normal(demand, sd_fraction * demand)) * seats


def compute_usage(state: WorldState, active: np.ndarray) -> np.ndarray:
    """U_i = round(min(r_i W(d), quota_plan)) for the active subscriptions (eq 8).

    The engine's quota is a per-day cap per subscription, not a billing-period allowance
    (reference-notes §4.3); the billing-period usage is still accumulated (hidden).
    """
    cust = state.customers
    rate, plan, today, period = cust.usage_rate, cust.plan, cust.usage_today, cust.period_usage
    quotas, w = state.settings.quotas, weekly_factor(state, state.day)
    units = np.empty(len(active))
    # elementwise, in blocks of customers (``for_blocks``), compiled (kernels.usage)
    for_blocks(len(active), lambda b: kernels.usage(active[b], rate, plan, quotas, w, today, period, units[b]))
    return units
