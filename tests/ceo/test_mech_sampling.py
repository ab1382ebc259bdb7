"""Per-customer sampling from group distributions (paper eq 4; reference-notes §2.1), statistically."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.sampling import sample_customers
from bizbench.envs.ceo.world.state import WorldState

N = 40_000


@pytest.fixture(scope="module")
def s3_sample(cfg, params):
    st = WorldState(config=cfg, seed=1)
    return sample_customers(np.random.default_rng(2024), st, params, 2, N)  # S3


@pytest.fixture(scope="module")
def e1_sample(cfg, params):
    st = WorldState(config=cfg, seed=1)
    return sample_customers(np.random.default_rng(77), st, params, 3, N)  # E1


def test_steepness_distributions(s3_sample):
    """Ref §2.1: s_L = clip(Exp(1) + 0.2, 0.2, 6); s_R = clip(Exp(2) + 0.8, 0.5, 7).
    E[min(Exp(s), b)] = s (1 - e^{-b/s})."""
    s_l, s_r = s3_sample["s_left"], s3_sample["s_right"]
    assert s_l.min() >= 0.2 and s_l.max() <= 6.0
    assert s_r.min() >= 0.8 and s_r.max() <= 7.0
    m_l = 0.2 + 1.0 * (1 - math.exp(-5.8))
    m_r = 0.8 + 2.0 * (1 - math.exp(-6.2 / 2))
    assert abs(s_l.mean() - m_l) < 4 * 1.0 / math.sqrt(N)
    assert abs(s_r.mean() - m_r) < 4 * 2.0 / math.sqrt(N)


def test_c_max_uses_1_2_sigma_and_floor(s3_sample):
    """Ref §2.1: c_max = max(15, N(mu_c, 1.2 sigma_c)); S3 mu 180, sigma 75 -> sd 90.
    The floor leaves median and IQR untouched: median 180, IQR 1.349 x 90."""
    c = s3_sample["c_max"]
    assert c.min() == 15.0
    assert abs(np.median(c) - 180) < 3.0
    q75, q25 = np.percentile(c, [75, 25])
    assert (q75 - q25) == pytest.approx(2 * 0.6744898 * 90, rel=0.03)


def test_quality_band_and_usage(s3_sample):
    """Ref §2.1: q_min = max(1e-4, N(0.25, 0.07)); q_max = q_min + max(1e-4, N(0.55, 0.1));
    usage = max(1, N(450, 250))."""
    q_min, q_max = s3_sample["q_min"], s3_sample["q_max"]
    assert q_min.min() >= 1e-4
    assert abs(q_min.mean() - 0.25) < 4 * 0.07 / math.sqrt(N)
    rng_ = q_max - q_min
    assert rng_.min() >= 1e-4 - 1e-12
    assert abs(rng_.mean() - 0.55) < 4 * 0.1 / math.sqrt(N)
    assert s3_sample["usage_demand"].min() >= 1.0
    assert abs(np.median(s3_sample["usage_demand"]) - 450) < 10


def test_enterprise_traits(e1_sample):
    """Ref §2.1 / §2.4 for E1: seats uniform integers in [50, 500] inclusive; offer factor
    clip(N(0.75, 0.05), 0.5, 0.95); max turns max(2, round(N(6, 2))); reply-delay mean
    max(0.5, N(5 / M_deal, 0.5 x 2)) with M_deal = 1 at start."""
    seats = e1_sample["seats"]
    assert seats.min() == 50 and seats.max() == 500
    assert np.all(seats == np.round(seats))
    f = e1_sample["offer_factor"]
    assert f.min() >= 0.5 and f.max() <= 0.95
    assert abs(f.mean() - 0.75) < 0.002
    turns = e1_sample["max_turns"]
    assert turns.min() == 2
    assert abs(np.median(turns) - 6) <= 0.5
    assert abs(np.median(e1_sample["reply_mean"]) - 5.0) < 0.05
    assert e1_sample["reply_mean"].min() >= 0.5


def test_customers_do_not_depend_on_batching(cfg, params):
    """Principle 4: the k-th prospect of a group is the same whether leads arrive 5 at once or
    3 then 2 (each customer consumes its own block of draws)."""
    st = WorldState(config=cfg, seed=1)
    together = sample_customers(np.random.default_rng(5), st, params, 0, 5)
    rng = np.random.default_rng(5)
    first, second = sample_customers(rng, st, params, 0, 3), sample_customers(rng, st, params, 0, 2)
    for col in ("c_max", "q_min", "q_max", "s_left", "s_right", "usage_demand", "eta_ads", "deal_noise"):
        assert np.array_equal(together[col], np.concatenate([first[col], second[col]])), col
