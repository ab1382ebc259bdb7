"""Sampling new customers from their group's distributions (eq 4; ref §2.1)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.params import MACRO_DEAL, Params
from bizbench.envs.ceo.world.state import WorldState


def sample_customers(
    rng: np.random.Generator, state: WorldState, params: Params, group: int, n: int
) -> dict[str, np.ndarray]:
    """Draw ``n`` prospects of ``group``: preference curve, usage, seats, negotiation traits.

    Draw order is fixed per call so one group's stream gives the same customers for the
    same lead counts. Stored q_min and c_max exclude market drift when
    ``fixes.drift_counted_once`` (the read adds it, eq 4); the engine bakes the creation-day
    drift in and adds it again on every read (ref §4.7).
    """
    s = state.config.sampling
    grp = state.config.groups[group]
    s_left = np.clip(rng.exponential(s.steep_left_scale, n) + s.steep_left_shift, *s.steep_left_bounds)
    s_right = np.clip(rng.exponential(s.steep_right_scale, n) + s.steep_right_shift, *s.steep_right_bounds)
    c_max = np.maximum(s.c_max_floor, rng.normal(grp.c_max_mu, s.c_max_sd_scale * grp.c_max_sd, n))
    q_min = np.maximum(s.param_floor, rng.normal(grp.q_min_mu, grp.q_min_sd, n))
    q_range = np.maximum(s.param_floor, rng.normal(grp.q_range_mu, grp.q_range_sd, n))
    usage = np.maximum(s.usage_floor, rng.normal(grp.usage_mu, grp.usage_sd, n))
    seats = rng.integers(grp.seats_min, grp.seats_max + 1, n).astype(np.float64)
    deal_mult = state.macro_multipliers[group, MACRO_DEAL]
    reply_mean = np.maximum(
        s.reply_delay_floor, rng.normal(grp.reply_delay_mu / deal_mult, 0.5 * grp.reply_delay_sd, n)
    )
    reply_sd = np.maximum(s.reply_sd_floor, rng.normal(grp.reply_delay_sd, 0.3 * grp.reply_delay_sd, n))
    negotiation = np.clip(rng.normal(grp.negotiation_rate_mu, grp.negotiation_rate_sd, n), *s.negotiation_rate_bounds)
    offer = np.clip(rng.normal(s.offer_factor_mu, s.offer_factor_sd, n), *s.offer_factor_bounds)
    max_turns = np.maximum(s.min_max_turns, np.round(rng.normal(grp.max_turns_mu, grp.max_turns_sd, n)))
    lockin = np.maximum(s.param_floor, rng.normal(grp.lockin_mu, grp.lockin_sd, n))
    eta = np.maximum(s.param_floor, rng.normal(grp.ads_q_sens_mu, grp.ads_q_sens_sd, n))
    rho = np.maximum(s.param_floor, rng.normal(grp.ads_rev_sens_mu, grp.ads_rev_sens_sd, n))
    deal_noise = rng.uniform(*state.config.quality.lead_noise, n)

    if not state.config.fixes.drift_counted_once:
        q_min = q_min + state.q_drift_global + state.q_drift_group[group]
        c_max = np.maximum(s.c_max_floor, c_max + state.c_drift_group[group])
    return {
        "group": np.full(n, group),
        "created_day": np.full(n, state.day),
        "s_left": s_left,
        "s_right": s_right,
        "c_max": c_max,
        "q_min": q_min,
        "q_max": q_min + q_range,
        "usage_demand": usage,
        "seats": seats,
        "reply_mean": reply_mean,
        "reply_sd": reply_sd,
        "negotiation_rate": negotiation,
        "offer_factor": offer,
        "max_turns": max_turns,
        "lockin": lockin,
        "eta_ads": eta,
        "rho_ads": rho,
        "deal_noise": deal_noise,
        "satisfaction": np.full(n, state.config.satisfaction.initial),
        "relationship": np.full(n, state.config.satisfaction.initial_relationship),
    }
