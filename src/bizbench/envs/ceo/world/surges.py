"""Demand surges: temporary lead multipliers (eq 30; reference-notes §4.14)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.state import Surge, WorldState


def roll_surges(state: WorldState, rng: np.random.Generator, first_day: int, days: int) -> list[Surge]:
    """Roll a surge for each coming day, before the days are simulated (reference-notes §4.14).

    Each roll consumes three draws whether or not it fires. A surge rolled for day s lasts
    U{3..10} days from s with multiplier 2 + 6U. The engine never checks the start day, so
    its surges act from the first day of the week; with ``fixes.surge_starts_on_roll_day``
    they start on the rolled day as eq 30 states (docs/calibration.md).
    """
    s = state.config.surges
    new: list[Surge] = []
    for day in range(first_day, first_day + days):
        fire, dur_u, mult_u = rng.random(3)
        if not s.enabled or fire >= s.daily_probability:
            continue
        lo, hi = s.duration_days
        duration = lo + int(dur_u * (hi - lo + 1))
        start = day if state.config.fixes.surge_starts_on_roll_day else first_day
        surge = Surge(start, day + duration, s.multiplier_base + s.multiplier_span * float(mult_u))
        new.append(surge)
    state.surges.extend(new)
    return new


def surge_multiplier(state: WorldState, day: int) -> float:
    """Z_t: product of the multipliers of surges active on ``day`` (eq 30)."""
    z = 1.0
    for s in state.surges:
        if s.start_day <= day < s.end_day:
            z *= s.multiplier
    return z
