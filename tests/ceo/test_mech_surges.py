"""Demand surges (paper eq 30; reference-notes §4.14)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.state import Surge, WorldState
from bizbench.envs.ceo.world.surges import roll_surges, surge_multiplier


def _script(fire_day_offset: int, dur_u: float, mult_u: float, days: int = 7) -> list[float]:
    draws = []
    for k in range(days):
        draws += [0.004 if k == fire_day_offset else 0.5, dur_u, mult_u]
    return draws


def test_roll_duration_multiplier_and_end(state, fake_rng):
    """Ref §4.14: each of the 7 coming days fires with prob 0.005; duration U{3..10};
    multiplier 2 + 6U; end day = s + duration (exclusive)."""
    rng = fake_rng(random=_script(2, 0.5, 0.25))  # fires on day 8 + 2 = 10
    new = roll_surges(state, rng, first_day=8, days=7)
    assert rng.remaining("random") == 0  # three draws per day, fired or not
    assert len(new) == 1
    s = new[0]
    duration = 3 + math.floor(0.5 * 8)  # U{3..10} -> 7
    assert s.end_day == 10 + duration
    assert s.multiplier == pytest.approx(2 + 6 * 0.25)
    assert state.surges == new
    for dur_u, d in [(0.0, 3), (0.124, 3), (0.125, 4), (0.999, 10)]:
        s = roll_surges(state, fake_rng(random=_script(0, dur_u, 0.0)), 1, 7)[0]
        assert s.end_day - 1 == d
        assert s.multiplier == 2.0


def test_surge_active_from_first_day_of_week_in_engine_mode(cfg, fake_rng):
    """Ref §4.14 (engine): a surge rolled for day s in the week starting at day f is active on
    days f .. s + duration - 1, because the start is never checked."""
    fixes = cfg.fixes.model_copy(update={"surge_starts_on_roll_day": False})
    state = WorldState(config=cfg.model_copy(update={"fixes": fixes}), seed=1)
    roll_surges(state, fake_rng(random=_script(2, 0.5, 0.25)), first_day=8, days=7)
    assert surge_multiplier(state, 8) == pytest.approx(3.5)
    assert surge_multiplier(state, 16) == pytest.approx(3.5)
    assert surge_multiplier(state, 17) == 1.0


def test_product_of_concurrent_surges_and_window(state):
    """Eq 30: Z_t = product of z_s over surges with t in [start, end)."""
    state.surges = [Surge(5, 9, 2.0), Surge(7, 12, 3.0)]
    got = {d: surge_multiplier(state, d) for d in range(3, 14)}
    assert got == {3: 1.0, 4: 1.0, 5: 2.0, 6: 2.0, 7: 6.0, 8: 6.0, 9: 3.0, 10: 3.0, 11: 3.0, 12: 1.0, 13: 1.0}


def test_fire_frequency_and_ranges_statistical(state):
    """Ref §4.14 with real draws: daily fire probability 0.005; durations cover 3..10;
    multipliers in [2, 8)."""
    rng = np.random.default_rng(99)
    n = 100_000
    new = roll_surges(state, rng, first_day=1, days=n)
    p = 0.005
    assert abs(len(new) / n - p) < 4 * math.sqrt(p * (1 - p) / n)
    durations = {s.end_day - s.start_day for s in new}
    assert durations == set(range(3, 11))
    mults = np.array([s.multiplier for s in new])
    assert mults.min() >= 2.0 and mults.max() < 8.0
    assert abs(mults.mean() - 5.0) < 4 * 6 / math.sqrt(12 * len(new))


def test_a_fire_draw_equal_to_the_daily_probability_rolls_no_surge(state, fake_rng):
    """Ref §4.14: a day fires with probability 0.005, so the draw must be below it: 0.005 itself fires nothing,
    the float just below it fires."""
    assert roll_surges(state, fake_rng(random=[0.005, 0.5, 0.5]), 1, 1) == []
    below = math.nextafter(0.005, 0.0)
    assert len(roll_surges(state, fake_rng(random=[below, 0.5, 0.5]), 1, 1)) == 1
