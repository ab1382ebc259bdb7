"""Delivered and perceived quality terms (paper eq 10, 13, 15; reference-notes §4.4, §4.6, §4.7, §4.18)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.quality import (
    delivered_quality,
    effective_ad_load,
    perceived_quality,
    quota_factor,
    relationship_bonus,
    tenure_bonus,
)


def test_delivered_quality(cfg):
    """Eq 10 / reference-notes §4.6: Del_{g,p} = (0.20 + b_shared + b_g) * m_tier(p); the group bonus is
    multiplied by the tier multiplier too."""
    bonus_group = np.zeros(26)
    bonus_group[2] = 0.1
    tiers = np.array([0.6, 0.9, 1.1])  # tiers 1, 3, 5 (reference-notes §4.1)
    got = delivered_quality(0.2, 0.05, bonus_group, tiers)
    assert got.shape == (26, 3)
    assert got[0] == pytest.approx([0.25 * 0.6, 0.25 * 0.9, 0.25 * 1.1])
    assert got[2] == pytest.approx([0.35 * 0.6, 0.35 * 0.9, 0.35 * 1.1])
    assert got[2, 2] == pytest.approx(0.385)


def test_quota_factor_cases():
    """Ref §4.4: F = 1 if demand <= 0, else clip(max(quota, 0) / demand, 0, 1); quota 0
    (the day-0 default) makes F = 0."""
    quota = np.array([100.0, 300.0, 0.0, -5.0, 50.0, 0.0, 10.0, 115.0])
    demand = np.array([200.0, 200.0, 200.0, 200.0, 0.0, 0.0, -3.0, 100.0 * 1.15])
    assert quota_factor(quota, demand) == pytest.approx([0.5, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0])
    assert float(quota_factor(92.0, 115.0)) == pytest.approx(0.8)


def test_relationship_and_tenure_bonus(cfg):
    """Ref §4.7: RB = 0.45 (r - 0.5) 2 = 0.9 (r - 0.5); TB = 0.05 ln(1 + t/30) for t > 0."""
    q = cfg.quality
    assert relationship_bonus(np.array([0.0, 0.5, 0.7, 1.0]), q) == pytest.approx([-0.45, 0.0, 0.18, 0.45])
    got = tenure_bonus(np.array([-5, 0, 1, 30, 60, 365]), q)
    exp = [0.0, 0.0, 0.05 * math.log(1 + 1 / 30), 0.05 * math.log(2), 0.05 * math.log(3), 0.05 * math.log(1 + 365 / 30)]
    assert got == pytest.approx(exp, abs=1e-15)


def test_tenure_bonus_of_whole_days_is_the_formula_bit_for_bit(cfg):
    """Whole-day tenures read TB from a table of each day up to the longest tenure: the same bits as the
    formula on the same days as floats, for any order and repeat of the days."""
    days = np.random.default_rng(3).integers(-3, 900, 20_000).astype(np.int32)
    table, formula = tenure_bonus(days, cfg.quality), tenure_bonus(days.astype(np.float64), cfg.quality)
    assert table.dtype == formula.dtype and table.tobytes() == formula.tobytes()


def test_effective_ad_load_reference_points():
    """Ref §4.18: a = ln(1 + 9 s) / ln 10 (0 -> 0, 0.1 -> 0.28, 0.5 -> 0.74, 1 -> 1), s in [0, 1]."""
    got = effective_ad_load(np.array([0.0, 0.1, 0.5, 1.0, 1.5, -0.2]))
    exp = [0.0, math.log(1.9) / math.log(10), math.log(5.5) / math.log(10), 1.0, 1.0, 0.0]
    assert got == pytest.approx(exp, abs=1e-15)
    assert got[1] == pytest.approx(0.28, abs=0.005)
    assert got[2] == pytest.approx(0.74, abs=0.005)


def _one_customer(cfg, **service_penalty):
    """Perceived quality of one customer: delivered 0.5, relationship 0.7, 30 days of tenure,
    2 issue days, ad penalty 0.03, quota factor 0.8."""
    return perceived_quality(
        delivered=np.array([0.5]),
        relationship=np.array([0.7]),
        tenure_days=np.array([30]),
        issue_days=np.array([2]),
        ad_penalty=np.array([0.03]),
        quota_f=np.array([0.8]),
        q=cfg.quality,
        **service_penalty,
    )


def test_perceived_quality_daily_variant(cfg):
    """Ref §4.7 daily variant: (Del - svc + RB + TB) F - 0.03 I - eta a."""
    got = _one_customer(cfg, service_penalty=0.1)
    exp = (0.5 - 0.1 + 0.18 + 0.05 * math.log(2)) * 0.8 - 0.03 * 2 - 0.03
    assert float(got[0]) == pytest.approx(exp, abs=1e-12)
    assert float(got[0]) == pytest.approx(0.4017259, abs=1e-6)


def test_a_demand_between_zero_and_one_is_still_divided(cfg):
    """Ref §4.4: F = 1 only when demand <= 0; any positive demand, even below 1, gives
    clip(quota / demand, 0, 1): quota 0.25 for demand 0.5 -> 0.5, for demand 1.0 -> 0.25."""
    got = quota_factor(np.array([0.25, 0.25, 0.25]), np.array([0.5, 1.0, 0.0]))
    assert got.tolist() == [0.5, 0.25, 1.0]


def test_perceived_quality_has_no_service_penalty_unless_given(cfg):
    """Ref §4.7: only the daily satisfaction variant subtracts the service penalty; the other
    contexts leave it out (default 0): (0.5 + 0.18 + 0.05 ln 2) x 0.8 - 0.03 x 2 - 0.03."""
    got = _one_customer(cfg)
    assert float(got[0]) == pytest.approx((0.5 + 0.18 + 0.05 * math.log(2)) * 0.8 - 0.03 * 2 - 0.03, abs=1e-12)
