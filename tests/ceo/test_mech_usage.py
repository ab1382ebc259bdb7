"""Daily usage under per-day quotas (paper eq 8; reference-notes §2.6, §4.3)."""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.ceo.world.usage import compute_usage, weekly_factor


def test_weekly_factor_by_day_mod_7(state, weekly):
    """Ref §2.6: W(d) indexed by d mod 7 = [1.0, 1.1, 1.15, 1.1, 1.0, 0.6, 0.6]."""
    for d in range(0, 21):
        assert weekly_factor(state, d) == weekly[d % 7]
    assert weekly_factor(state, 9) == 1.15
    assert weekly_factor(state, 502) == 0.6


def test_compute_usage_round_min_rate_times_w_quota(state, add_customer):
    """Ref §4.3: U_i = round(min(r_i W(d), quota_plan)); the quota is a per-day cap."""
    state.day = 9  # 9 mod 7 = 2 -> W = 1.15
    state.settings.quotas[:] = [150.0, 10_000.0, 0.0]
    rates_plans = [(100.0, 0), (200.0, 0), (33.3, 1), (77.7, 1), (500.0, 2), (0.0, 1)]
    idx = np.array([add_customer(state, group=0, plan=p, usage_rate=r) for r, p in rates_plans])
    units = compute_usage(state, idx)
    exp = [
        round(min(100.0 * 1.15, 150.0)),  # 115
        round(min(200.0 * 1.15, 150.0)),  # capped at 150
        round(min(33.3 * 1.15, 10_000.0)),  # 38.295 -> 38
        round(min(77.7 * 1.15, 10_000.0)),  # 89.355 -> 89
        0,  # quota 0
        0,
    ]
    assert list(units) == exp
    assert list(state.customers.usage_today[idx]) == exp
    # billing-period usage accumulates (hidden)
    compute_usage(state, idx)
    assert list(state.customers.period_usage[idx]) == [2 * e for e in exp]


def test_compute_usage_follows_weekly_cycle(state, add_customer, weekly):
    """Eq 8 / reference-notes §4.3: the same rate gives r W(d) on each day of the week."""
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    idx = np.array([add_customer(state, group=0, plan=0, usage_rate=1000.0)])
    got = []
    for d in range(1, 8):
        state.day = d
        got.append(float(compute_usage(state, idx)[0]))
    assert got == pytest.approx([round(1000 * weekly[d % 7]) for d in range(1, 8)])
    assert got == [1100, 1150, 1100, 1000, 600, 600, 1000]


def test_a_usage_rate_is_a_normal_draw_around_the_demand_floored_at_0_times_the_seats(fake_rng):
    """Ref §4.3: r_i = max(0, N(u_i, 0.2 u_i)) x seats. z = +1: u 10, 1 seat -> 10 x 1.2 = 12; z = -1: u 5,
    4 seats -> 5 x 0.8 x 4 = 16; z = -6: u 10 -> 10 x (1 - 1.2) < 0 -> 0 (2 seats)."""
    from bizbench.envs.ceo.world.usage import draw_usage_rate

    got = draw_usage_rate(
        fake_rng(normal=[[1.0, -1.0, -6.0]]), np.array([10.0, 5.0, 10.0]), np.array([1.0, 4.0, 2.0]), 0.2
    )
    assert got == pytest.approx([12.0, 16.0, 0.0])
