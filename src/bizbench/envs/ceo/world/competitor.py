"""Competitor events: stationary shocks plus adaptive catch-up (eq 32-36; reference-notes §4.16).

Random draws are consumed in a fixed pattern (one firing draw per day, and the same draws
for every event whatever the banks hold), so the event schedule and sampled sizes are
exogenous: they do not depend on the agent's policy (docs/principles.md principle 4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import WorldState


def maybe_fire(state: WorldState, params: Params, rng: np.random.Generator) -> dict[str, Any] | None:
    """Check for and apply today's competitor event; returns the hidden event record."""
    c = state.config.competitor
    total = state.config.horizon_days
    d = state.day
    fire_draw = rng.random()
    if not c.enabled:
        return None
    end = total - c.cutoff_days
    if d < c.grace_days or d > end:
        return None
    early = d < total // 2
    mean_interval = c.mean_interval * (c.early_multiplier if early else 1.0)
    min_interval = c.min_interval * (c.early_multiplier if early else 1.0)
    if d - state.last_competitor_day < min_interval or fire_draw >= 1.0 / mean_interval:
        return None

    # Eq 34: clipped log-normal shock, ramped from 1x at day 1 to (1 + ramp)x at the cutoff.
    sample = float(np.clip(rng.lognormal(c.boost_log_mu, c.boost_log_sigma), *c.boost_bounds))
    ramp = 1.0 + c.ramp * float(np.clip((d - 1) / max(end - 1, 1), 0.0, 1.0))
    sample *= ramp
    u = float(rng.uniform(*c.global_catchup))
    v = rng.uniform(*c.targeted_catchup, params.n_groups)

    # Eq 35: adaptive global catch-up consumes part of the unreleased bank when it wins.
    bank_before = state.bank_global
    feedback = u * bank_before
    if feedback > sample:
        boost, winner = feedback, "adaptive"
        state.bank_global = (1.0 - u) * bank_before
    else:
        boost, winner = sample, "stationary"
    # Eq 36: targeted banks drain into their group's expectations.
    has_bank = state.bank_group > 0
    drained = np.where(has_bank, v * state.bank_group, 0.0)
    state.q_drift_group += drained
    state.bank_group -= drained
    # Application: shift every customer's curve up (eq 35-36 text; reference-notes §4.16).
    state.q_drift_global += boost
    state.q_drift_group += params.kappa * boost
    state.last_competitor_day = d
    event = {
        "day": d,
        "boost": boost,
        "sampled_boost": sample,
        "u": u,
        "bank_before": bank_before,
        "feedback": feedback,
        "winner": winner,
        "targeted_drain": float(drained.sum()),
        "post_end_day": d + c.post_window_days - 1,
        "severity": severity(boost),
    }
    state.competitor_events.append(event)
    return event


def severity(boost: float) -> str:
    """Severity wording used by competitor posts (reference-notes §4.12, §4.16)."""
    if boost < 0.03:
        return "minor"
    if boost < 0.10:
        return "moderate"
    if boost < 0.20:
        return "major"
    return "transformative"
