"""Group reputation: daily update, spillover, cancellation damage (paper eq 22-25; reference-notes §4.11)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.reputation import cancellation_damage, daily_update


def delta_r_hand(sats: list[float]) -> float:
    """Ref §4.11: delta_i = 0.0005 S (S >= 0) or 0.001 S; dR = sum/N' log2 N', N' = max(N, 2)."""
    total = sum(0.0005 * s if s >= 0 else 0.001 * s for s in sats)
    n = max(len(sats), 2)
    return total / n * math.log2(n)


def _daily_update(state, params, idx: list[int]) -> np.ndarray:
    """``daily_update`` on subscribers ``idx`` with their groups and counts, as the day's step passes them."""
    active = np.array(idx, dtype=np.int64)
    groups = state.customers.group[active].astype(np.intp)
    return daily_update(state, params, active, groups, np.bincount(groups, minlength=params.n_groups))


def _group(state, add_customer, g, sats):
    return [add_customer(state, group=g, satisfaction=s) for s in sats]


def test_daily_update_mixed_group(state, params, add_customer, gidx):
    """Ref §4.11: three S1 customers with S = 0.4, -0.2, 0.1 -> dR = 5e-5/3 log2 3."""
    idx = _group(state, add_customer, gidx["S1"], [0.4, -0.2, 0.1])
    changes = _daily_update(state, params, idx)
    exp = (0.0002 - 0.0002 + 0.00005) / 3 * math.log2(3)
    assert exp == pytest.approx(delta_r_hand([0.4, -0.2, 0.1]))
    assert changes[gidx["S1"]] == pytest.approx(exp)
    assert state.reputation[gidx["S1"]] == pytest.approx(0.5 + exp)
    # tiny spillover (0.3 * W * dR < 1e-4) is not applied
    assert state.reputation[gidx["S2"]] == 0.5
    assert state.reputation[gidx["S3"]] == 0.5


def test_daily_update_threshold(state, params, add_customer, gidx):
    """Ref §4.11: the change is applied only if |dR| >= 1e-5."""
    a = _group(state, add_customer, gidx["S1"], [0.02, 0.02, 0.02])  # 1e-5 log2 3 = 1.58e-5
    b = _group(state, add_customer, gidx["S2"], [0.01, 0.01, 0.01])  # 7.9e-6 < 1e-5
    c = _group(state, add_customer, gidx["S3"], [-0.01, -0.01, -0.01])  # -1.58e-5
    _daily_update(state, params, a + b + c)
    assert state.reputation[gidx["S1"]] == pytest.approx(0.5 + delta_r_hand([0.02] * 3))
    assert state.reputation[gidx["S2"]] == 0.5
    assert state.reputation[gidx["S3"]] == pytest.approx(0.5 + delta_r_hand([-0.01] * 3))


def test_spillover_only_to_discovered_and_above_threshold(state, params, add_customer, gidx):
    """Ref §4.11 / eq 25: spillover 0.3 W_rep[g][h] dR to other discovered h, applied only if
    |0.3 W dR| > 1e-4. One S3 customer at S = 10 gives dR = 0.005 / 2 * 1 = 0.0025."""
    s3 = gidx["S3"]
    state.discovered[gidx["D_S05"]] = True  # W[S3][D_S05] = 0.36 -> 2.7e-4: applied
    state.discovered[gidx["D_E01"]] = True  # W[S3][D_E01] = 0.07 -> 5.25e-5: too small
    idx = _group(state, add_customer, s3, [10.0])
    _daily_update(state, params, idx)
    dr = 0.0025
    assert state.reputation[s3] == pytest.approx(0.5 + dr)
    expected = {"S1": 0.4, "S2": 0.24, "E1": 0.35, "E2": 0.35, "E3": 0.28, "D_S05": 0.36}
    for gid, w in expected.items():
        assert state.reputation[gidx[gid]] == pytest.approx(0.5 + 0.3 * w * dr), gid
    assert state.reputation[gidx["D_E01"]] == 0.5
    # undiscovered groups get nothing even with W[S3][D_S01] = 0.16 (1.2e-4 > 1e-4)
    assert state.reputation[gidx["D_S01"]] == 0.5


def test_negative_spillover_and_bounds(state, params, add_customer, gidx):
    """Ref §4.11: R clipped to [0, 1] and floored at 0.001; negative dR spills negatively."""
    s1, s3 = gidx["S1"], gidx["S3"]
    state.reputation[s3] = 0.0015
    idx = _group(state, add_customer, s3, [-20.0])  # dR = -0.02 / 2 = -0.01
    _daily_update(state, params, idx)
    assert state.reputation[s3] == 0.001
    assert state.reputation[s1] == pytest.approx(0.5 - 0.3 * 0.4 * 0.01)
    state.reputation[s1] = 0.9995
    idx2 = _group(state, add_customer, s1, [10.0])  # dR = +0.0025 -> capped at 1
    _daily_update(state, params, idx2)
    assert state.reputation[s1] == 1.0


def test_cancellation_damage(state, params, fake_rng, gidx):
    """Ref §4.11 / eq 24: R -= 0.000375 (0.5 + U) (1 + 20 min(S, 0)^2) log2 N' / N' with N'
    from the start-of-day counts; enterprise churn (satisfaction None) drops the S factor."""
    s1, e1 = gidx["S1"], gidx["E1"]
    counts = np.zeros(26, dtype=np.int64)
    counts[s1] = 4
    counts[e1] = 1  # N' = 2
    rng = fake_rng(random=[[0.25, 0.75]])
    cancellation_damage(state, params, rng, np.array([s1, s1]), np.array([-0.3, 0.4]), counts)
    d1 = 0.000375 * 0.75 * (1 + 20 * 0.09) * math.log2(4) / 4
    d2 = 0.000375 * 1.25 * 1.0 * math.log2(4) / 4
    assert state.reputation[s1] == pytest.approx(0.5 - d1 - d2, abs=1e-15)
    rng = fake_rng(random=[[0.5]])
    cancellation_damage(state, params, rng, np.array([e1]), None, counts)
    assert state.reputation[e1] == pytest.approx(0.5 - 0.000375 * 1.0 * math.log2(2) / 2)
    # no spillover from event damage
    assert state.reputation[gidx["S2"]] == 0.5


def test_a_change_of_exactly_the_threshold_is_applied(state, params, add_customer, gidx):
    """Ref §4.11: the change is applied when |dR| >= 1e-5, so exactly 1e-5 counts. One S1 customer at
    S = 0.04: dR = 0.0005 x 0.04 / 2 x log2 2 = 1e-5; one S2 customer at S = -0.02: dR = 0.001 x -0.02 / 2
    = -1e-5. Neither spills (0.3 x W x 1e-5 < 1e-4)."""
    s1, s2 = gidx["S1"], gidx["S2"]
    idx = _group(state, add_customer, s1, [0.04]) + _group(state, add_customer, s2, [-0.02])
    _daily_update(state, params, idx)
    assert state.reputation[s1] == 0.5 + 1e-5
    assert state.reputation[s2] == 0.5 - 1e-5
    assert state.reputation[gidx["S3"]] == 0.5


def test_an_undiscovered_group_moves_its_own_reputation_and_later_groups_still_update(
    state, params, add_customer, gidx
):
    """Ref §4.11: an undiscovered group's own reputation changes but spills nowhere, and the groups
    after it are still updated. D_S01 (undiscovered) and D_S05 (discovered), one customer each at
    S = 10: dR = 0.0005 x 10 / 2 = 0.0025 for both; nothing spills into either (D_S01 is not
    discovered, and no discovered group before D_S05 has customers)."""
    d1, d5 = gidx["D_S01"], gidx["D_S05"]
    state.discovered[d5] = True
    idx = _group(state, add_customer, d1, [10.0]) + _group(state, add_customer, d5, [10.0])
    _daily_update(state, params, idx)
    assert state.reputation[d1] == pytest.approx(0.5 + 0.0025)
    assert state.reputation[d5] == pytest.approx(0.5 + 0.0025)


def test_the_change_returned_is_zero_for_a_group_without_customers(state, params, add_customer, gidx):
    """daily_update returns Delta R per group (eq 23): the hand value for a group with customers, even
    one below the 1e-5 threshold (S2: 0.0005 x 0.01 / 2 = 2.5e-6, not applied), and exactly 0 for
    every group without any."""
    s1, s2 = gidx["S1"], gidx["S2"]
    idx = _group(state, add_customer, s1, [0.4, -0.2, 0.1]) + _group(state, add_customer, s2, [0.01])
    changes = _daily_update(state, params, idx)
    assert changes[s1] == pytest.approx(delta_r_hand([0.4, -0.2, 0.1]))
    assert changes[s2] == pytest.approx(2.5e-6)
    others = [g for g in range(26) if g not in (s1, s2)]
    assert changes[others].tolist() == [0.0] * 24
    assert state.reputation[s2] == 0.5


def test_a_spillover_of_exactly_the_threshold_is_not_applied(state, params, add_customer, gidx):
    """Ref §4.11 / eq 25: a spillover is applied only when |0.3 W dR| is above 1e-4. One S1 customer at
    S = 80/3: dR = 0.0005 x 80/3 / 2 = 1/150, and W[S1][S2] = 0.05 gives 0.3 x 0.05 / 150 = 1e-4 exactly:
    S2 (discovered) keeps 0.5."""
    s1, s2 = gidx["S1"], gidx["S2"]
    assert params.spillover[s1, s2] == 0.05
    idx = _group(state, add_customer, s1, [26.666666666666668])
    _daily_update(state, params, idx)
    assert state.reputation[s1] == pytest.approx(0.5 + 1 / 150)
    assert state.discovered[s2] and state.reputation[s2] == 0.5
