"""Group reputation: daily satisfaction impact, spillover and cancellation damage (eq 22-25; reference-notes §4.11)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import WorldState


def _scale(counts: np.ndarray, n_min: int) -> np.ndarray:
    """log2(N') / N' with N' = max(N, N_min) (eq 23-24)."""
    n = np.maximum(counts, n_min).astype(np.float64)
    return np.log2(n) / n


def _clip(state: WorldState, values: np.ndarray) -> np.ndarray:
    r = state.config.reputation
    return np.maximum(np.clip(values, 0.0, r.ceiling), r.floor)


def daily_update(
    state: WorldState, params: Params, active: np.ndarray, groups: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """Eq 22-23 per group, then eq 25 spillover to other discovered groups.

    ``active`` are the subscribers of the start of the day, whose satisfaction the day's step 14
    updated, those who cancelled or churned later that day included (the engine's order,
    reference-notes §1.2); ``groups`` their groups and ``counts`` their number per group, as the
    day's step gathered them. delta_i = 0.0005 S (S >= 0) or 0.001 S (S < 0); Delta R_g =
    sum(delta)/N' log2 N'. Groups are processed in order and spillovers (0.3 W_rep[g,h] Delta R_g,
    applied when above 1e-4) take effect at once, as in the engine. Returns Delta R per group.
    """
    r = state.config.reputation
    sums = np.zeros(params.n_groups)
    # compiled, one pass summing in row order (not in threaded blocks: the sums would be added up otherwise)
    kernels.reputation_sums(active, groups, state.customers.satisfaction, r.positive_rate, r.negative_rate, sums)
    changes = sums / np.maximum(counts, r.n_min) * np.log2(np.maximum(counts, r.n_min))
    changes[counts == 0] = 0.0
    for grp in np.flatnonzero(counts):
        dr = changes[grp]
        if abs(dr) < r.update_threshold:
            continue
        state.reputation[grp] = _clip(state, state.reputation[grp] + dr)
        if not state.discovered[grp]:
            continue
        spill = r.spillover * params.spillover[grp] * dr
        targets = state.discovered & (params.spillover[grp] > 0) & (np.abs(spill) > r.spillover_threshold)
        targets[grp] = False
        state.reputation[targets] = _clip(state, state.reputation[targets] + spill[targets])
    return changes


def cancellation_damage(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    groups: np.ndarray,
    satisfaction: np.ndarray | None,
    start_counts: np.ndarray,
) -> None:
    """Event damage of eq 24, no spillover (reference-notes §4.11).

    Individual cancellation: 0.000375 (0.5 + U) (1 + 20 min(S,0)^2) log2 N'/N'; enterprise
    timeout or ghost (``satisfaction`` None): the same without the satisfaction factor. N'
    comes from the start-of-day counts.
    """
    if len(groups) == 0:
        return
    r = state.config.reputation
    noise = r.cancel_noise_base + rng.random(len(groups))
    factor = 1.0 if satisfaction is None else 1.0 + r.cancel_satisfaction_weight * np.minimum(satisfaction, 0) ** 2
    damage = r.cancel_damage * noise * factor * _scale(start_counts, r.n_min)[groups]
    total = np.bincount(groups, weights=damage, minlength=params.n_groups)
    hit = total > 0
    state.reputation[hit] = _clip(state, state.reputation[hit] - total[hit])
