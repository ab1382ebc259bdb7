"""Fundraising feedback (paper section 3.3, Appendix A.1.3, Table 5, eq 3).

An attempt succeeds with probability p = p_macro x m_company:

- equity: p_macro from the VIX, m_company = 0.75^n (n = prior successful equity rounds),
  times a size factor (ours): the paper says approval, amount and cost depend on
  "firm-specific characteristics", so asking for more than a quarter of the enterprise
  value (the operations, cash excluded, so raised cash cannot lift the next ceiling) lowers
  the odds linearly to zero at 60 % of it (the preset's ``size_zero``);
- debt: p_macro from SOFR, m_company = max(0, 1 - 1.5 max(0, L - 0.5)) (eq 3) with L the
  pro-forma debt-to-equity ratio (the request included), so leverage bounds the amount.

On success a fill f ~ U(0.7, 1.0) of the amount arrives after d ~ U{1..6} months; a debt
contract's rate is set at settlement: r = (Tsy2Y + Baa)/100 + 500 bps x (L - 0.5)+ (Table 5).
The outcome, fill and delay are drawn for every attempt, so the ``fundraising`` stream
stays aligned whatever was asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.envs.cfo.config import Debt, Equity, Fundraising

__all__ = [
    "Attempt",
    "contract_rate",
    "debt_probability",
    "draw_attempt",
    "equity_probability",
    "leverage",
    "LEVERAGE_CAP",
]


@dataclass(frozen=True)
class Attempt:
    """One fundraising request and its (hidden until settlement) outcome."""

    kind: str  # "equity" | "debt"
    requested_cents: int
    month: int
    settle_month: int
    success: bool
    received_cents: int
    probability: float


LEVERAGE_CAP = 10.0  # L is capped so a rate stays finite when book equity is gone


def leverage(debt_cents: int, equity_cents: int) -> float:
    """Debt-to-equity ratio L, capped at LEVERAGE_CAP (also when book equity is not positive)."""
    if debt_cents <= 0:
        return 0.0
    if equity_cents <= 0:
        return LEVERAGE_CAP
    return min(debt_cents / equity_cents, LEVERAGE_CAP)


def equity_probability(
    vix: float, prior_rounds: int, requested_cents: int, enterprise_value_cents: int, cfg: Equity, books_age: int | None
) -> float:
    """p_equity(t) x 0.75^n x size factor (x the hardened preset's diligence penalty)."""
    p_macro = float(np.clip(cfg.vix_intercept - cfg.vix_slope * vix, cfg.p_min, cfg.p_max))
    ratio = requested_cents / enterprise_value_cents if enterprise_value_cents > 0 else float("inf")
    size = float(np.clip(1 - (ratio - cfg.size_free) / (cfg.size_zero - cfg.size_free), 0.0, 1.0))
    p = p_macro * cfg.round_decay**prior_rounds * size
    if cfg.diligence_months and (books_age is None or books_age > cfg.diligence_months):
        p *= cfg.diligence_penalty
    return p


def debt_probability(sofr_pct: float, pro_forma_leverage: float, cfg: Debt) -> float:
    """p_debt(t) x m_company(L) (eq 3)."""
    p_macro = float(np.clip(cfg.sofr_intercept - cfg.sofr_slope * sofr_pct, cfg.p_min, cfg.p_max))
    m = max(0.0, 1 - cfg.leverage_slope * max(0.0, pro_forma_leverage - cfg.leverage_free))
    return p_macro * m


def contract_rate(treasury_2y_pct: float, baa_pct: float, lev: float, cfg: Debt) -> float:
    """Annual contract rate as a fraction: (Tsy2Y + Baa)/100 + 500 bps x (L - 0.5)+ (Table 5)."""
    return (treasury_2y_pct + baa_pct) / 100 + cfg.spread_bps_per_leverage / 10_000 * max(0.0, lev - cfg.leverage_free)


def draw_attempt(
    kind: str, requested_cents: int, month: int, probability: float, cfg: Fundraising, rng: np.random.Generator
) -> Attempt:
    """Sample outcome, fill and settlement delay (Table 5); all three drawn every time."""
    u, fill = rng.random(), rng.uniform(cfg.fill_low, cfg.fill_high)
    delay = int(rng.integers(cfg.delay_min_months, cfg.delay_max_months + 1))
    success = bool(u < probability)
    return Attempt(
        kind=kind,
        requested_cents=requested_cents,
        month=month,
        settle_month=month + delay,
        success=success,
        received_cents=round(requested_cents * fill) if success else 0,
        probability=probability,
    )
