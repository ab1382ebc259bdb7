"""Macro PMI process, multipliers and lagged publication (paper eq 37-38; reference-notes §4.15)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.macro import (
    close_measurement,
    cycle_phase,
    published_readings,
    step_pmi,
    trend_label,
    update_multipliers,
)


def pmi_step_hand(pmi: float, day: int, shock: float) -> float:
    """Ref §4.15: mu_d = 49.37 + 8 sin(2 pi d / 548 + 3 pi / 2);
    PMI <- clip(PMI + 0.015 (mu_d - PMI) + shock, 30, 70)."""
    mu = 49.37 + 8.0 * math.sin(2 * math.pi * day / 548 + 1.5 * math.pi)
    return min(70.0, max(30.0, pmi + 0.015 * (mu - pmi) + shock))


def test_pmi_step_with_zero_shock_is_deterministic_formula(state, fake_rng):
    """Eq 37: with a zero shock one step equals the deterministic OU update."""
    assert state.pmi == 49.37  # reference-notes §1.1 initial PMI
    state.day = 10
    step_pmi(state, fake_rng(normal=[0.0]))
    assert state.pmi == pytest.approx(pmi_step_hand(49.37, 10, 0.0), abs=1e-12)
    # near the trough the target is ~41.4, so PMI moves down
    assert state.pmi < 49.37
    state.day = 137  # quarter period later: target = 49.37 + 8 sin(2pi) ~ 49.37
    before = state.pmi
    step_pmi(state, fake_rng(normal=[1.0]))  # shock 0.4
    assert state.pmi == pytest.approx(pmi_step_hand(before, 137, 0.4), abs=1e-12)
    assert state.pmi_history[-2:] == pytest.approx([pmi_step_hand(49.37, 10, 0.0), state.pmi])


def test_pmi_bounds(state, fake_rng):
    """Eq 37 / reference-notes §4.15: PMI is clipped to [30, 70]."""
    state.day = 274
    state.pmi = 69.9
    step_pmi(state, fake_rng(normal=[10.0]))  # +4 points
    assert state.pmi == 70.0
    state.pmi = 30.2
    step_pmi(state, fake_rng(normal=[-10.0]))
    assert state.pmi == 30.0


def test_macro_multipliers(state, params, gidx):
    """Eq 38 / reference-notes §4.15: M = max(0.5, 1 + beta (PMI - 50) / 50), neutral 50 (not 49.37)."""
    state.pmi = 55.0
    update_multipliers(state, params)
    m = state.macro_multipliers
    s1, e1, de01 = gidx["S1"], gidx["E1"], gidx["D_E01"]
    assert m[s1, 0] == pytest.approx(1 + 1.5 * 5 / 50)  # lead, beta 1.5
    assert m[s1, 1] == pytest.approx(1 + 1.8 * 5 / 50)  # WTP, beta 1.8
    assert m[s1, 2] == pytest.approx(1.0)  # deal velocity beta 0
    assert m[e1, 2] == pytest.approx(1 + 1.35 * 0.1)
    assert m[e1, 3] == pytest.approx(1 + 1.05 * 0.1)  # seat count
    assert m[de01, 0] == pytest.approx(1 - 0.45 * 0.1)  # negative beta
    state.pmi = 30.0
    update_multipliers(state, params)
    m = state.macro_multipliers
    assert m[s1, 0] == 0.5  # 1 - 1.5 * 0.4 = 0.4 -> floor
    assert m[gidx["D_E06"], 0] == 0.5  # 1 - 1.95 * 0.4 = 0.22 -> floor
    assert m[gidx["S2"], 0] == pytest.approx(1 - 0.75 * 0.4)
    assert m[de01, 0] == pytest.approx(1 + 0.45 * 0.4)
    state.pmi = 50.0
    update_multipliers(state, params)
    assert np.all(state.macro_multipliers == 1.0)


def test_publication_days_and_visibility(state):
    """Ref §4.15: measurements close on days 1, 31, 61, ... (window mean of the daily PMI,
    rounded to 0.1), change vs the previous reading (first vs 49.37), visible 30 days later
    (first reading visible from day 31)."""
    rng = np.random.default_rng(7)
    closed = {}
    visible_on = {}
    for d in range(1, 92):
        state.day = d
        step_pmi(state, rng)
        r = close_measurement(state)
        if r is not None:
            closed[d] = r
        visible_on[d] = [x["day"] for x in published_readings(state)]
    assert sorted(closed) == [1, 31, 61, 91]
    h = state.pmi_history  # index i is day i + 1
    assert closed[1]["pmi_value"] == pytest.approx(round(h[0], 1))
    assert closed[31]["pmi_value"] == pytest.approx(round(sum(h[1:31]) / 30, 1))
    assert closed[61]["pmi_value"] == pytest.approx(round(sum(h[31:61]) / 30, 1))
    assert closed[1]["pmi_change"] == pytest.approx(closed[1]["pmi_value"] - 49.37, abs=0.051)
    assert closed[31]["pmi_change"] == pytest.approx(closed[31]["pmi_value"] - closed[1]["pmi_value"], abs=1e-9)
    assert closed[31]["visible_day"] == 61
    assert visible_on[30] == []
    assert visible_on[31] == [1]
    assert visible_on[60] == [1]
    assert visible_on[61] == [1, 31]
    assert visible_on[91] == [1, 31, 61]


@pytest.mark.parametrize(
    ("value", "label"),
    [
        (58.0, "strong_expansion"),
        (57.9, "expansion"),
        (52.0, "expansion"),
        (51.9, "neutral"),
        (48.0, "neutral"),
        (47.9, "contraction"),
        (42.0, "contraction"),
        (41.9, "severe_contraction"),
    ],
)
def test_trend_labels(value, label):
    """Ref §4.15 trend thresholds 58 / 52 / 48 / 42."""
    assert trend_label(value) == label


@pytest.mark.parametrize(
    ("value", "change", "phase"),
    [
        (53.0, 0.0, "peak"),
        (53.0, -0.5, "peak"),
        (50.0, -0.1, "declining"),
        (47.0, -0.2, "declining"),
        (47.0, 0.0, "trough"),
        (47.0, 0.3, "trough"),
        (50.0, 0.2, "recovering"),
        (53.0, 0.1, "recovering"),
        (48.0, 0.0, "recovering"),
    ],
)
def test_cycle_phase(value, change, phase):
    """Ref §4.15: peak if PMI >= 52 and change <= 0; declining if change < 0; trough if
    PMI < 48 and change >= 0; else recovering."""
    assert cycle_phase(value, change) == phase


def test_a_reading_holds_its_window_mean_change_trend_and_phase(state):
    """Ref §4.15: the reading closed on day 31 is the mean of the last 30 daily PMIs (older days are
    left out) rounded to 0.1, its change from the previous reading, the trend of its value and the
    cycle phase, visible from day 61. Window: 15 days at 52.0 and 15 at 52.1, a mean of 52.04999... in
    floating point -> 52.0; previous 52.5 -> change -0.5: 'expansion', 'peak' (>= 52 and falling)."""
    state.macro_readings.append({"day": 1, "visible_day": 31, "pmi_value": 52.5})
    state.pmi_history = [30.0] * 5 + [52.0] * 15 + [52.1] * 15
    state.day = 31
    reading = close_measurement(state)
    mean = round(sum([52.0] * 15 + [52.1] * 15) / 30, 1)
    assert reading == {
        "day": 31,
        "visible_day": 61,
        "pmi_value": mean,
        "pmi_change": round(mean - 52.5, 1),
        "pmi_trend": "expansion",
        "cycle_phase": "peak",
    }
    assert state.macro_readings[-1] is reading


@pytest.mark.parametrize(("value", "change", "phase"), [(52.0, 0.0, "peak"), (51.9, 0.0, "recovering")])
def test_a_peak_starts_at_a_pmi_of_52(value, change, phase):
    """Ref §4.15: peak if PMI >= 52 and the change <= 0: 52.0 unchanged is a peak, 51.9 is not."""
    assert cycle_phase(value, change) == phase


def test_the_first_reading_s_change_is_rounded_to_a_tenth(state):
    """Ref §4.15: the first reading's change is from the initial 49.37, rounded to 0.1 like every
    reading: a window mean of 49.5 gives 49.5 - 49.37 = 0.13 -> 0.1."""
    state.pmi_history = [49.5]
    state.day = 1
    reading = close_measurement(state)
    assert (reading["pmi_value"], reading["pmi_change"]) == (49.5, 0.1)
