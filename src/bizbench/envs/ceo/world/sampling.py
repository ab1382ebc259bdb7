"""Sampling new customers from their group's distributions (eq 4; reference-notes §2.1)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.params import MACRO_DEAL, Params
from bizbench.envs.ceo.world.state import WorldState

UNIFORMS_PER_CUSTOMER = 16  # 4 direct uniforms + 12 Box-Muller normals


def draw_prospects(rng: np.random.Generator, n: int) -> np.ndarray:
    """The uniforms of ``n`` prospects of one group, shape (n, 16), from the group's own stream.

    Each customer consumes its own 16 consecutive draws, so the k-th prospect a group ever
    produces has the same preferences however its leads were batched into days, whatever
    the policy did (docs/principles.md principle 4).
    """
    return rng.random((n, UNIFORMS_PER_CUSTOMER))


def _uniforms_and_normals(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per customer (a row of ``draw_prospects``): 4 uniforms in [0, 1) and 12 standard normals by the
    Box-Muller transform."""
    uniforms = block[:, :4]
    u1 = 1.0 - block[:, 4:10]  # (0, 1]
    angle = 2 * np.pi * block[:, 10:16]
    radius = np.sqrt(-2.0 * np.log(u1))
    normals = np.empty((len(block), 12))
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
    """Draw ``n`` prospects of ``group`` from its stream ``rng`` (``prospects`` of ``draw_prospects``)."""
    return prospects(state, params, np.full(n, group), draw_prospects(rng, n), q_shift=q_shift, c_drift=c_drift)


def prospects(
    state: WorldState,
    params: Params,
    groups: np.ndarray,
    block: np.ndarray,
    *,
    q_shift: np.ndarray | float,
    c_drift: np.ndarray | float,
) -> dict[str, np.ndarray]:
    """The prospects of ``groups`` (one per row, of any groups) drawn as ``block`` (``draw_prospects``):
    preference curve, usage, seats, negotiation traits; all of a day's prospects in one pass.

    Stored q_min and c_max exclude market drift when ``fixes.drift_counted_once`` (the read
    adds it, eq 4); the engine bakes the creation-day drift in and adds it again on every
    read (reference-notes §4.7). The creation-day drift is each prospect's group's quality shift
    ``q_shift`` and budget drift ``c_drift`` of the start of the day (reference-notes §1.2
    step 3: a competitor event or a monthly drift of today reaches customers from tomorrow).
    """
    s = state.config.sampling
    g = groups
    n = len(g)
    u, z = _uniforms_and_normals(block)
    s_left = np.clip(-s.steep_left_scale * np.log1p(-u[:, 0]) + s.steep_left_shift, *s.steep_left_bounds)
    s_right = np.clip(-s.steep_right_scale * np.log1p(-u[:, 1]) + s.steep_right_shift, *s.steep_right_bounds)
    seats_min, seats_max = params.seats_min[g], params.seats_max[g]
    seats = np.minimum(seats_min + np.floor(u[:, 2] * (seats_max - seats_min + 1)), seats_max)
    lo, hi = state.config.quality.lead_noise
    deal_noise = lo + (hi - lo) * u[:, 3]
    c_max = np.maximum(s.c_max_floor, params.c_max_mu[g] + s.c_max_sd_scale * params.c_max_sd[g] * z[:, 0])
    q_min = np.maximum(s.param_floor, params.q_min_mu[g] + params.q_min_sd[g] * z[:, 1])
    q_range = np.maximum(s.param_floor, params.q_range_mu[g] + params.q_range_sd[g] * z[:, 2])
    usage = np.maximum(s.usage_floor, params.usage_mu[g] + params.usage_sd[g] * z[:, 3])
    deal_mult = state.macro_multipliers[g, MACRO_DEAL]
    delay_sd = params.reply_delay_sd[g]
    reply_mean = np.maximum(s.reply_delay_floor, params.reply_delay_mu[g] / deal_mult + 0.5 * delay_sd * z[:, 4])
    reply_sd = np.maximum(s.reply_sd_floor, delay_sd + 0.3 * delay_sd * z[:, 5])
    negotiation = np.clip(
        params.negotiation_rate_mu[g] + params.negotiation_rate_sd[g] * z[:, 6], *s.negotiation_rate_bounds
    )
    offer = np.clip(s.offer_factor_mu + s.offer_factor_sd * z[:, 7], *s.offer_factor_bounds)
    max_turns = np.maximum(s.min_max_turns, np.round(params.max_turns_mu[g] + params.max_turns_sd[g] * z[:, 8]))
    lockin = np.maximum(s.param_floor, params.lockin_mu[g] + params.lockin_sd[g] * z[:, 9])
    eta = np.maximum(s.param_floor, params.ads_q_sens_mu[g] + params.ads_q_sens_sd[g] * z[:, 10])
    rho = np.maximum(s.param_floor, params.ads_rev_sens_mu[g] + params.ads_rev_sens_sd[g] * z[:, 11])

    if not state.config.fixes.drift_counted_once:
        q_min = q_min + q_shift
        c_max = np.maximum(s.c_max_floor, c_max + c_drift)
    return {
        "group": g,
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
