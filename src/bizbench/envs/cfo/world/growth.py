"""User growth: the industry's growth, the company's noisy deviation and hidden surges.

The paper's user growth rate indicator (Table 4, sigma 0.5) moves the customer base; the
reference reports hidden surges in user growth that drain cash through new loans (first
around months 23-36, crisis points near months 32, 59 and 112). The surge schedule is drawn
once from the ``surges`` stream at t = 0 and is never shown to the agent; the agent sees
only its consequence, in originations and in cash.
"""

from __future__ import annotations

import numpy as np

from bizbench.envs.cfo.config import Lending, Surges

__all__ = ["surge_schedule", "user_growth_pct"]


def surge_schedule(cfg: Surges, months: int, rng: np.random.Generator) -> np.ndarray:
    """Extra user growth (% per month) for every month: hidden state."""
    extra = np.zeros(months)
    if cfg.schedule == "windows":
        starts = [int(rng.integers(lo, hi + 1)) for lo, hi in cfg.windows]
    else:
        starts, t = [], 0
        while True:
            t += int(rng.integers(cfg.renewal_gap_months[0], cfg.renewal_gap_months[1] + 1))
            if t >= months:
                break
            starts.append(t)
    for start in starts:
        length = int(rng.integers(cfg.duration_months[0], cfg.duration_months[1] + 1))
        extra[start : start + length] += rng.uniform(*cfg.extra_growth_pct)
    return extra


def user_growth_pct(industry_growth_pct: float, deviation_annual_pct: float, surge_pct: float, cfg: Lending) -> float:
    """The company's user growth this month (% per month), clipped to the preset's range: the
    industry's monthly growth (weighted), the company's annualised deviation / 12, and any surge."""
    g = cfg.industry_growth_weight * industry_growth_pct + deviation_annual_pct / 12 + surge_pct
    return float(min(max(g, cfg.user_growth_floor_pct), cfg.user_growth_cap_pct))
