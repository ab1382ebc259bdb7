"""Market discovery and group research with delays and noise (eq 31; reference-notes §4.25).

Market-research outcomes come from their own stream with a fixed number of draws per
attempt, so the sequence of discovered groups is the same whenever the agent calls it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import PendingGroupResearch, WorldState


def attempt_market_research(state: WorldState, rng: np.random.Generator) -> int | None:
    """One attempt: with prob 0.30 a uniformly chosen undiscovered group is discovered.

    Returns the discovered group index or None. The caller charges the cost.
    """
    success_draw, pick_draw = rng.random(2)
    state.market_research_attempts += 1
    undiscovered = np.flatnonzero(~state.discovered)
    if success_draw >= state.config.research.market_success_prob or len(undiscovered) == 0:
        return None
    g = int(undiscovered[int(pick_draw * len(undiscovered))])
    state.discovered[g] = True
    state.discovered_day[g] = state.day
    state.info_level[g] = max(int(state.info_level[g]), 1)
    return g


def level_spec(state: WorldState, level: int) -> Any:
    for spec in state.config.research.levels:
        if spec.level == level:
            return spec
    raise KeyError(level)


def queue_group_research(state: WorldState, group: int, level: int) -> PendingGroupResearch:
    """Queue research that raises ``group`` to ``level`` after the level's delay (eq 31)."""
    job = PendingGroupResearch(group, level, state.day + level_spec(state, level).delay_days)
    state.pending_research.append(job)
    return job


def take_snapshot(state: WorldState, params: Params, group: int) -> None:
    """Store what group insights reveal: the group's drifted means at this day (reference-notes §4.25)."""
    grp = state.config.groups[group]
    state.insight_snapshots[group] = {
        "day": state.day,
        "c_max": grp.c_max_mu + state.c_drift_group[group],
        "q_min": grp.q_min_mu + state.q_drift_global + state.q_drift_group[group],
        "market_cap": float(params.market_cap(state.day)[group]),
    }


def complete_group_research(state: WorldState, params: Params) -> list[PendingGroupResearch]:
    """Finish jobs due today: set the level, date it, snapshot (eq 31 max rule)."""
    done = [j for j in state.pending_research if j.completion_day <= state.day]
    for job in done:
        state.pending_research.remove(job)
        state.info_level[job.group] = max(int(state.info_level[job.group]), job.level)
        state.last_research_day[job.group] = state.day
        take_snapshot(state, params, job.group)
    return done


def insight_noise(state: WorldState, group: int) -> float:
    """Multiplicative noise half-width of the group's current info level (reference-notes §4.25)."""
    level = int(state.info_level[group])
    if level <= 1:
        return state.config.research.level1_noise
    return float(level_spec(state, level).noise)


def group_insights(state: WorldState, params: Params, group: int) -> dict[str, Any]:
    """Noisy estimates of a discovered group's parameters (reference-notes §4.25 get_group_insights).

    Noise is U(-p, p) multiplicative, seeded by (seed, group, level, snapshot day) so repeated
    calls agree; the hidden seed never leaves the world.
    """
    grp = state.config.groups[group]
    snap = state.insight_snapshots[group]  # taken at day 0, discovery or research completion
    p = insight_noise(state, group)
    level = int(state.info_level[group])
    rng = np.random.default_rng([state.seed, 7919, group, level, int(snap["day"])])

    def noisy(x: float) -> float:
        return float(x * (1.0 + rng.uniform(-p, p)))

    est: dict[str, Any] = {
        "willingness_to_pay": round(noisy(snap["c_max"]), 2),
        "usage_volume": round(noisy(grp.usage_mu), 1),
        "quality_floor_q_min": round(noisy(snap["q_min"]), 4),
        "contract_lockin_aversion": round(noisy(grp.lockin_mu), 4),
        "market_cap": int(noisy(snap["market_cap"])),
        "annual_market_cap_growth_rate": round(noisy(grp.cap_growth), 4),
    }
    if grp.kind == "ENT":
        est["seat_range"] = [int(noisy(grp.seats_min)), int(noisy(grp.seats_max))]
        est["decision_rounds"] = round(noisy(grp.max_turns_mu), 1)
        est["avg_response_days"] = round(noisy(grp.reply_delay_mu), 1)
    known = np.flatnonzero(state.discovered)
    others = known[known != group]

    def influence(row: np.ndarray, cols: np.ndarray, threshold: float, scale: float) -> dict[str, float]:
        vals = [(int(h), float(row[h])) for h in cols if row[h] > threshold]
        vals.sort(key=lambda kv: -kv[1])
        return {state.config.groups[h].id: round(noisy(v * scale), 4) for h, v in vals[:8]}

    return {
        "group_id": grp.id,
        "info_level": level,
        "noise": p,
        "estimates": est,
        "network_influence": {
            "self_referral_per_1000": round(noisy(params.referral[group, group] * 1000), 4),
            "outgoing": influence(params.referral[group], others, 0.0003, 1000),
            "incoming": influence(params.referral[:, group], others, 0.0003, 1000),
        },
        "reputation_influence": {
            "outgoing": influence(params.spillover[group], others, 0.005, 1),
            "incoming": influence(params.spillover[:, group], others, 0.005, 1),
        },
    }
