"""Sampling new customers from their group's distributions (eq 4; reference-notes §2.1)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.params import MACRO_DEAL, Params
from bizbench.envs.ceo.world.state import WorldState

UNIFORMS_PER_CUSTOMER = 16  # 4 direct uniforms + 12 Box-Muller normals


def _customer_major_draws(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per customer: 4 uniforms in [0, 1) and 12 standard normals, from one (n, 16) block.

    Each customer consumes its own 16 consecutive draws, so the k-th prospect a group ever
    produces has the same preferences however its leads were batched into days, whatever
    the policy did (docs/principles.md principle 4). Normals come from the Box-Muller transform.
    """
    block = rng.random((n, UNIFORMS_PER_CUSTOMER))
    uniforms = block[:, :4]
    u1 = 1.0 - block[:, 4:10]  # (0, 1]
    angle = 2 * np.pi * block[:, 10:16]
    radius = np.sqrt(-2.0 * np.log(u1))
    normals = np.empty((n, 12))
    np.multiply(radius, np.cos(angle), out=normals[:, :6])
    np.multiply(radius, np.sin(angle), out=normals[:, 6:])
    return uniforms, normals


def sample_customers(
    rng: np.random.Generator,
    state: WorldState,
    params: Params,
    group: int,
    n: int,
    *,
    q_shift: float,
    c_drift: float,
) -> dict[str, np.ndarray]:
    """Draw ``n`` prospects of ``group``: preference curve, usage, seats, negotiation traits.

    Stored q_min and c_max exclude market drift when ``fixes.drift_counted_once`` (the read
    adds it, eq 4); the engine bakes the creation-day drift in and adds it again on every
    read (reference-notes §4.7). The creation-day drift is the group's quality shift
    ``q_shift`` and budget drift ``c_drift`` of the start of the day (reference-notes §1.2
    step 3: a competitor event or a monthly drift of today reaches customers from tomorrow).
    """
    s = state.config.sampling
    grp = state.config.groups[group]
    u, z = _customer_major_draws(rng, n)
    s_left = np.clip(-s.steep_left_scale * np.log1p(-u[:, 0]) + s.steep_left_shift, *s.steep_left_bounds)
    s_right = np.clip(-s.steep_right_scale * np.log1p(-u[:, 1]) + s.steep_right_shift, *s.steep_right_bounds)
    seats = np.minimum(grp.seats_min + np.floor(u[:, 2] * (grp.seats_max - grp.seats_min + 1)), grp.seats_max)
    lo, hi = state.config.quality.lead_noise
    deal_noise = lo + (hi - lo) * u[:, 3]
    c_max = np.maximum(s.c_max_floor, grp.c_max_mu + s.c_max_sd_scale * grp.c_max_sd * z[:, 0])
    q_min = np.maximum(s.param_floor, grp.q_min_mu + grp.q_min_sd * z[:, 1])
    q_range = np.maximum(s.param_floor, grp.q_range_mu + grp.q_range_sd * z[:, 2])
    usage = np.maximum(s.usage_floor, grp.usage_mu + grp.usage_sd * z[:, 3])
    deal_mult = state.macro_multipliers[group, MACRO_DEAL]
    reply_mean = np.maximum(s.reply_delay_floor, grp.reply_delay_mu / deal_mult + 0.5 * grp.reply_delay_sd * z[:, 4])
    reply_sd = np.maximum(s.reply_sd_floor, grp.reply_delay_sd + 0.3 * grp.reply_delay_sd * z[:, 5])
    negotiation = np.clip(grp.negotiation_rate_mu + grp.negotiation_rate_sd * z[:, 6], *s.negotiation_rate_bounds)
    offer = np.clip(s.offer_factor_mu + s.offer_factor_sd * z[:, 7], *s.offer_factor_bounds)
    max_turns = np.maximum(s.min_max_turns, np.round(grp.max_turns_mu + grp.max_turns_sd * z[:, 8]))
    lockin = np.maximum(s.param_floor, grp.lockin_mu + grp.lockin_sd * z[:, 9])
    eta = np.maximum(s.param_floor, grp.ads_q_sens_mu + grp.ads_q_sens_sd * z[:, 10])
    rho = np.maximum(s.param_floor, grp.ads_rev_sens_mu + grp.ads_rev_sens_sd * z[:, 11])

    if not state.config.fixes.drift_counted_once:
        q_min = q_min + q_shift
        c_max = np.maximum(s.c_max_floor, c_max + c_drift)
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
