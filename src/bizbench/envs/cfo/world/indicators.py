"""The four noisy operational indicators (paper eq 1 and Table 4, "Enterprise Operational Dynamics").

Each month every indicator gets additive Gaussian noise: the margins and the company's user
growth deviation follow ``x' = x + e`` (a random walk), the collection rate ``x' = x0 + e``
around its fixed x0 = 0.97; all are clipped to the ranges of Table 4. One draw of four
normals per month from the ``indicators`` stream keeps the stream aligned whatever the
agent does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from bizbench.envs.cfo.config import Indicators, Noisy

__all__ = ["IndicatorState", "initial_indicators", "perturb"]


@dataclass(frozen=True)
class IndicatorState:
    gross_margin_pct: float
    ebitda_margin_pct: float
    user_growth_dev_pct: float
    collection_rate: float


def initial_indicators(cfg: Indicators) -> IndicatorState:
    return IndicatorState(
        cfg.gross_margin_pct.start, cfg.ebitda_margin_pct.start, cfg.user_growth_pct.start, cfg.collection_rate.start
    )


def _next(x: float, noise: float, spec: Noisy) -> float:
    base = spec.start if spec.process == "around_start" else x
    return float(np.clip(base + noise * spec.sigma, spec.low, spec.high))


def perturb(state: IndicatorState, cfg: Indicators, rng: np.random.Generator) -> IndicatorState:
    """One month of Table 4 noise. EBITDA margin never exceeds gross margin (operating costs >= 0)."""
    e = rng.standard_normal(4)
    gross = _next(state.gross_margin_pct, e[0], cfg.gross_margin_pct)
    ebitda = min(_next(state.ebitda_margin_pct, e[1], cfg.ebitda_margin_pct), gross)
    growth = _next(state.user_growth_dev_pct, e[2], cfg.user_growth_pct)
    collection = _next(state.collection_rate, e[3], cfg.collection_rate)
    return replace(
        state, gross_margin_pct=gross, ebitda_margin_pct=ebitda, user_growth_dev_pct=growth, collection_rate=collection
    )
