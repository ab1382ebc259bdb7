"""Development spend and R&D projects (eq 11-12; reference-notes §4.19-4.20)."""

from __future__ import annotations

import math

import numpy as np

from bizbench.envs.ceo.world.state import RndProject, WorldState


def apply_daily_development(state: WorldState, rng: np.random.Generator) -> None:
    """Shared and targeted quality gains with diminishing returns (eq 11, 12).

    b_shared += 0.0045 ln(1 + x_dev/5000) + N(0, 0.001); the noise is drawn every day.
    The deterministic part also fills the global unreleased bank H (eq 35). Each group with
    targeted spend gets b_g += 0.0225 ln(1 + x_g/5000), also added to its bank H_g (eq 36).
    """
    q = state.config.quality
    s = state.settings
    noise = float(rng.normal(0.0, q.dev_noise_sd))
    gain = q.dev_beta * math.log1p(s.development / q.dev_scale) if s.development > 0 else 0.0
    state.bonus_shared += gain + noise
    state.bank_global += gain
    targeted = np.where(s.targeted_dev > 0, q.target_beta * np.log1p(s.targeted_dev / q.target_scale), 0.0)
    state.bonus_group += targeted
    state.bank_group += targeted


def start_project(state: WorldState, rng: np.random.Generator, tier: int) -> RndProject:
    """Sample an R&D project of ``tier`` (1-20): duration max(30, int(N)), gain max(0.001, N).

    Callers validate the tier, the in-progress rule and cash, and book the cost.
    """
    spec = state.config.rnd_tiers[tier - 1]
    duration = max(30, int(rng.normal(spec.duration_mu, spec.duration_sd)))
    gain = max(0.001, float(rng.normal(spec.gain_mu, spec.gain_sd)))
    count = state.rnd_counts.get(tier, 0) + 1
    state.rnd_counts[tier] = count
    project = RndProject(
        project_id=f"t{tier}_{count}",
        tier=tier,
        start_day=state.day,
        completion_day=state.day + duration,
        gain=gain,
        cost=spec.cost,
    )
    state.rnd_projects.append(project)
    return project


def complete_projects(state: WorldState) -> list[RndProject]:
    """Projects due today add their gain to b_shared and to the bank H (eq 12; reference-notes §4.20)."""
    done = []
    for p in state.rnd_projects:
        if not p.completed and state.day >= p.completion_day:
            p.completed = True
            state.bonus_shared += p.gain
            state.bank_global += p.gain
            done.append(p)
    return done


def tier_in_progress(state: WorldState, tier: int) -> bool:
    return any(p.tier == tier and not p.completed for p in state.rnd_projects)
