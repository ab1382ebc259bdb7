"""Capacity, overload, outages and service health (eq 9; reference-notes §4.5)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import WorldState


@dataclass(frozen=True)
class ServiceDay:
    """One day of service metrics (the agent-visible ``service_day`` row)."""

    total_usage: float
    capacity_tier: int
    capacity_units: float
    overload: float
    outage: bool
    downtime_minutes: int
    p95_ms: float
    error_rate: float

    def quality_penalty(self, overload_penalty: float, outage_penalty: float) -> float:
        """svc = 0.08 o + 0.20 1[outage], the delivered-quality loss of eq 10 (reference-notes §4.5)."""
        return overload_penalty * self.overload + outage_penalty * float(self.outage)


def service_day(state: WorldState, params: Params, rng: np.random.Generator, total_usage: float) -> ServiceDay:
    """Overload o = [U/K - 1]+, outage ~ Bernoulli(max(0.001, 0.03 e^{-ops/500}) (1 + 4 o)).

    Draws come in the engine's order: outage, downtime, p95, error rate.
    """
    sv = state.config.service
    tier = state.settings.capacity_tier
    capacity = float(params.capacity_units[tier])
    overload = max(0.0, total_usage / capacity - 1.0)
    p_outage = max(sv.outage_floor, sv.outage_base * math.exp(-state.settings.operations / sv.outage_ops_scale))
    p_outage *= 1.0 + sv.outage_overload_factor * overload
    outage = bool(rng.random() < p_outage)
    downtime_draw = rng.random()
    downtime = 0
    if outage:
        cum = np.cumsum(sv.downtime_probs)
        downtime = int(sv.downtime_minutes[int(np.searchsorted(cum, downtime_draw * cum[-1], side="right"))])
    p95 = sv.p95_base + sv.p95_overload * overload + float(rng.normal(0.0, sv.p95_sd))
    err = float(np.clip(sv.error_base + sv.error_overload * overload + rng.normal(0.0, sv.error_sd), 0, 1))
    return ServiceDay(total_usage, tier, capacity, overload, outage, downtime, p95, err)
