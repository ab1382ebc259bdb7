"""Market and individual preference drift (paper eq 4 drift term; reference-notes §2.5, §4.17)."""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.ceo.world.drift import (
    apply_group_drift,
    apply_individual_drift,
    billing_snapshot_c_max,
    drifted_c_max,
    is_drift_day,
    quality_band,
)
from bizbench.envs.ceo.world.satisfaction import requirement_inputs


def test_drift_days(state):
    """Ref §1.2 step 8 / §4.17: every 30 days, skipped while d <= 60, so first on day 90."""
    days = [d for d in range(0, 500) if is_drift_day(d, state)]
    assert days[:3] == [90, 120, 150]
    assert days[-1] == 480
    assert len(days) == 14
    assert not is_drift_day(60, state) and not is_drift_day(100, state)


def test_group_drift_adds_rate_times_30(state, params, gidx):
    """Ref §4.17 / §2.5: q_g += rate_q 30, c_g += rate_c 30, accumulating."""
    apply_group_drift(state, params)
    apply_group_drift(state, params)
    assert state.q_drift_group[gidx["S3"]] == pytest.approx(2 * 0.000625 * 30)
    assert state.q_drift_group[gidx["D_S08"]] == pytest.approx(2 * 0.0005 * 30)
    assert state.c_drift_group[gidx["S1"]] == pytest.approx(2 * 0.001 * 30)
    assert state.c_drift_group[gidx["E1"]] == pytest.approx(2 * -0.0005 * 30)
    assert state.q_drift_group[gidx["S1"]] == 0.0
    assert state.q_drift_global == 0.0  # global rate is 0 (reference-notes §4.17)


def test_individual_drift_compounds_over_30_days(state, params, add_customer, gidx):
    """Ref §4.17: R = (1 + rate)^30 - 1; c_max <- clip(c_max (1+R), 10, 2000);
    q_min, q_max <- x (1+R) (no bounds); s_L <- clip(s_L (1+R), 0.2, 5);
    seats <- max(1, seats (1 + R M_seat))."""
    s1, s3, e1, ds09 = gidx["S1"], gidx["S3"], gidx["E1"], gidx["D_S09"]
    a = add_customer(state, group=s1, c_max=50.0, q_min=0.1, q_max=0.5, s_left=1.0)
    b = add_customer(state, group=s1, c_max=10.0, q_min=0.1, q_max=0.5, s_left=1.0)
    c = add_customer(state, group=s3, c_max=1999.0, q_min=0.2, q_max=0.7, s_left=4.9)
    d = add_customer(state, group=ds09, c_max=100.0, q_min=0.2, q_max=0.7, s_left=0.2)
    e = add_customer(state, group=e1, c_max=60.0, q_min=0.5, q_max=0.9, seats=100.0)
    f = add_customer(state, group=e1, c_max=60.0, q_min=0.5, q_max=0.9, seats=1.0)
    untouched = add_customer(state, group=s1, c_max=50.0, q_min=0.1, q_max=0.5)
    state.macro_multipliers[e1, 3] = 1.5
    apply_individual_drift(state, params, np.array([a, b, c, d, e, f]))
    cust = state.customers

    def r(rate):
        return (1 + rate) ** 30 - 1

    assert cust.c_max[a] == pytest.approx(50 * (1 + r(-0.002)))
    assert cust.q_min[a] == pytest.approx(0.1 * (1 + r(0.002)))
    assert cust.q_max[a] == pytest.approx(0.5 * (1 + r(0.002)))
    assert cust.s_left[a] == 1.0
    assert cust.c_max[b] == 10.0  # 10 x 0.9417 -> floor 10
    assert cust.c_max[c] == 2000.0  # 1999 x 1.0045 -> cap 2000
    assert cust.s_left[c] == 5.0  # 4.9 x 1.0367 -> cap 5
    assert cust.s_left[d] == 0.2  # negative rate at the floor
    assert cust.q_min[d] == pytest.approx(0.2 * (1 + r(0.0008)))
    assert cust.seats[e] == pytest.approx(100 * (1 + r(-0.0003) * 1.5))
    assert cust.c_max[e] == pytest.approx(60 * (1 + r(-0.0015)))
    assert cust.seats[f] == 1.0  # floor 1
    assert cust.c_max[untouched] == 50.0


def test_reading_drifted_preferences_adds_the_group_drift_once_and_floors_the_budget(state, add_customer, gidx):
    """Eq 4 / reference-notes §4.7, §4.22: the quality band is q_min, q_max + shift; the budget read is
    max(floor, c_max + c_g), and the daily-satisfaction read uses the billing snapshot
    effective_c_max when one is stored. The snapshot stored at billing is the customer's own c_max
    (a copy) with the drift_counted_once fix, c_max + c_g (floored) without it."""
    s1, e1 = gidx["S1"], gidx["E1"]
    a = add_customer(state, group=s1, c_max=50.0, q_min=0.1, q_max=0.5)
    b = add_customer(state, group=e1, c_max=20.0, q_min=0.3, q_max=0.9, effective_c_max=40.0)
    c = add_customer(state, group=e1, c_max=22.0, q_min=0.2, q_max=0.6)
    cust, idx = state.customers, np.array([a, b, c])
    c_drift = np.zeros(26)
    c_drift[s1], c_drift[e1] = 5.0, -6.0
    lo, hi = quality_band(cust, idx, np.array([0.01, 0.02, 0.03]))
    assert lo == pytest.approx([0.11, 0.32, 0.23]) and hi == pytest.approx([0.51, 0.92, 0.63])
    # c_max + drift: 55, 14 -> floor 15, 16
    assert drifted_c_max(cust, idx, c_drift, 15.0).tolist() == [55.0, 15.0, 16.0]
    # the daily-satisfaction read (satisfaction.requirement_inputs): the snapshot 40 replaces b's c_max, 40 - 6 = 34
    q_shift = np.zeros(26)
    q_shift[s1], q_shift[e1] = 0.01, 0.02
    inputs = requirement_inputs(cust, idx, q_shift, c_drift, 15.0)
    assert inputs[1].tolist() == [55.0, 34.0, 16.0]
    assert inputs[[0, 4, 5]].tolist() == [
        cust.effective_price[idx].tolist(),
        cust.s_left[idx].tolist(),
        cust.s_right[idx].tolist(),
    ]
    assert inputs[2] == pytest.approx([0.11, 0.32, 0.22]) and inputs[3] == pytest.approx([0.51, 0.92, 0.62])
    assert billing_snapshot_c_max(cust, idx, c_drift, 15.0, drift_once=False).tolist() == [55.0, 15.0, 16.0]
    once = billing_snapshot_c_max(cust, idx, c_drift, 15.0, drift_once=True)
    assert once.tolist() == [50.0, 20.0, 22.0]
    once[:] = 0.0
    assert cust.c_max[idx].tolist() == [50.0, 20.0, 22.0]
