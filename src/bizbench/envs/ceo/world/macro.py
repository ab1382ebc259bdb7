"""Macroeconomic PMI process, group multipliers and lagged publication (eq 37-38; reference-notes §4.15)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import WorldState


def step_pmi(state: WorldState, rng: np.random.Generator) -> float:
    """PMI <- clip(PMI + eta (mu_d - PMI) + N(0, sigma), 30, 70), mu_d on a sine cycle (eq 37)."""
    m = state.config.macro
    d = state.day
    target = m.mean + m.amplitude * math.sin(2.0 * math.pi * d / m.period_days + m.phase)
    shock = float(rng.normal(0.0, m.shock_sd))
    state.pmi = float(np.clip(state.pmi + m.reversion * (target - state.pmi) + shock, *m.bounds))
    state.pmi_history.append(state.pmi)
    return state.pmi


def update_multipliers(state: WorldState, params: Params) -> None:
    """M_{g,dim} = max(0.5, 1 + beta_{g,dim} (PMI - 50) / 50), recomputed daily (eq 38)."""
    m = state.config.macro
    state.macro_multipliers = np.maximum(m.multiplier_floor, 1.0 + params.betas * (state.pmi - m.neutral) / m.neutral)


def trend_label(value: float) -> str:
    """Published trend label (reference-notes §4.15)."""
    if value >= 58:
        return "strong_expansion"
    if value >= 52:
        return "expansion"
    if value >= 48:
        return "neutral"
    if value >= 42:
        return "contraction"
    return "severe_contraction"


def cycle_phase(value: float, change: float) -> str:
    """Published cycle phase (reference-notes §4.15)."""
    if value >= 52 and change <= 0:
        return "peak"
    if change < 0:
        return "declining"
    if value < 48 and change >= 0:
        return "trough"
    return "recovering"


def close_measurement(state: WorldState) -> dict[str, Any] | None:
    """Close a 30-day PMI window on days 1, 31, 61, ... (reference-notes §4.15).

    The reading is the window mean rounded to 0.1 and becomes visible ``publication_delay``
    days later (``visible_day``); the agent never sees the daily PMI.
    """
    m = state.config.macro
    d = state.day
    if (d - 1) % m.window_days != 0:
        return None
    window = state.pmi_history[-m.window_days :]
    value = round(float(np.mean(window)), 1)
    previous = state.macro_readings[-1]["pmi_value"] if state.macro_readings else m.initial
    change = round(value - previous, 1)
    reading = {
        "day": d,
        "visible_day": d + m.publication_delay_days,
        "pmi_value": value,
        "pmi_change": change,
        "pmi_trend": trend_label(value),
        "cycle_phase": cycle_phase(value, change),
    }
    state.macro_readings.append(reading)
    return reading


def published_readings(state: WorldState) -> list[dict[str, Any]]:
    """Readings the agent may see on the current day."""
    return [r for r in state.macro_readings if r["visible_day"] <= state.day]
