"""Development spend and R&D projects (paper eq 11-12; reference-notes §4.19-4.20, Appendix A3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.development import (
    apply_daily_development,
    complete_projects,
    start_project,
    tier_in_progress,
)


def test_dev_gain_goes_to_bonus_and_bank(state, fake_rng, gidx):
    """Ref §4.19: b_shared += 0.0045 ln(1 + x/5000) + N(0, 0.001); only the deterministic part
    enters the global bank H. Targeted: b_g += 0.0225 ln(1 + x_g/5000), same amount into H_g."""
    state.settings.development = 10_000.0
    state.settings.targeted_dev[gidx["S1"]] = 5_000.0
    state.settings.targeted_dev[gidx["D_E03"]] = 15_000.0
    rng = fake_rng(normal=[1.0])  # noise = +0.001
    apply_daily_development(state, rng)
    gain = 0.0045 * math.log(1 + 10_000 / 5_000)
    assert state.bonus_shared == pytest.approx(gain + 0.001, abs=1e-15)
    assert state.bank_global == pytest.approx(gain, abs=1e-15)
    t1, t2 = 0.0225 * math.log(2.0), 0.0225 * math.log(4.0)
    assert state.bonus_group[gidx["S1"]] == pytest.approx(t1)
    assert state.bank_group[gidx["S1"]] == pytest.approx(t1)
    assert state.bonus_group[gidx["D_E03"]] == pytest.approx(t2)
    assert state.bank_group[gidx["D_E03"]] == pytest.approx(t2)
    assert np.count_nonzero(state.bonus_group) == 2
    # reference point: $5,000/day of global dev ~ +0.0031/day
    assert 0.0045 * math.log(2) == pytest.approx(0.0031, abs=5e-5)


def test_dev_noise_drawn_at_zero_spend(state, fake_rng):
    """Ref §4.19: the N(0, 0.001) noise is drawn every day, even at zero spend; the bank only
    takes deterministic gains."""
    rng = fake_rng(normal=[-2.0])
    apply_daily_development(state, rng)
    assert rng.remaining("normal") == 0
    assert state.bonus_shared == pytest.approx(-0.002)
    assert state.bank_global == 0.0
    assert not state.bonus_group.any()


def test_rnd_duration_floor_truncation_gain_floor_and_ids(state, fake_rng):
    """Ref §4.20: duration = max(30, int(N(mu_d, sd_d))), int() truncates; gain =
    max(0.001, N(mu_g, sd_g)); id t{tier}_{n} with n the invocation count of that tier."""
    state.day = 40
    # tier 1: mu_d 12, sd 12, gain 0.04 / 0.02 -> z = -2 gives -12 days -> floor 30;
    # z = -5 gives gain -0.06 -> floor 0.001
    p1 = start_project(state, fake_rng(normal=[-2.0, -5.0]), 1)
    assert p1.project_id == "t1_1"
    assert p1.completion_day == 40 + 30
    assert p1.gain == 0.001
    assert p1.cost == pytest.approx(166_667)
    # tier 10: mu_d 127 sd 185 -> z = 0.5 -> 219.5 -> int 219 (not 220); gain 0.85 + 0.425/2
    p2 = start_project(state, fake_rng(normal=[0.5, 0.5]), 10)
    assert p2.project_id == "t10_1"
    assert p2.completion_day == 40 + 219
    assert p2.gain == pytest.approx(0.85 + 0.425 * 0.5)
    # tier 1 again: n increments per tier
    p3 = start_project(state, fake_rng(normal=[2.0, 0.0]), 1)
    assert p3.project_id == "t1_2"
    assert p3.completion_day == 40 + 36
    assert p3.gain == pytest.approx(0.04)


def test_rnd_completion_adds_to_bonus_and_bank_once(state, fake_rng):
    """Ref §4.20 / eq 12: on the first day d >= start + duration the gain is added to b_shared
    and to H, once."""
    state.day = 10
    p = start_project(state, fake_rng(normal=[3.0, 1.0]), 2)  # 17 + 60 = 77 days; 0.105
    assert p.completion_day == 10 + 77
    state.day = 86
    assert complete_projects(state) == []
    assert state.bonus_shared == 0.0
    state.day = 87
    done = complete_projects(state)
    assert [d.project_id for d in done] == ["t2_1"]
    assert state.bonus_shared == pytest.approx(0.07 + 0.035)
    assert state.bank_global == pytest.approx(0.105)
    state.day = 88
    assert complete_projects(state) == []
    assert state.bonus_shared == pytest.approx(0.105)


def test_a_day_of_development_adds_to_what_the_bonuses_and_banks_already_hold(state, fake_rng, gidx):
    """Ref §4.19 (eq 11, 12, 35, 36): each day's gains are added to the running b_shared, H, b_g and
    H_g, and any spend above zero counts, even $1: 0.0045 ln(1 + 1/5000) shared, 0.0225 ln(1 + 1/5000)
    for a group with $1 of targeted spend (and 0.0225 ln(1 + 0.5/5000) for $0.50)."""
    s1, s2 = gidx["S1"], gidx["S2"]
    state.bonus_shared, state.bank_global = 0.2, 0.3
    state.bonus_group[[s1, s2]] = [0.04, 0.05]
    state.bank_group[[s1, s2]] = [0.06, 0.07]
    state.settings.development = 1.0
    state.settings.targeted_dev[s1] = 1.0
    state.settings.targeted_dev[s2] = 0.5
    apply_daily_development(state, fake_rng(normal=[0.5]))  # noise +0.0005
    gain = 0.0045 * math.log(1 + 1 / 5000)
    t1, t2 = 0.0225 * math.log(1 + 1 / 5000), 0.0225 * math.log(1 + 0.5 / 5000)
    assert state.bonus_shared == pytest.approx(0.2 + gain + 0.0005, abs=1e-15)
    assert state.bank_global == pytest.approx(0.3 + gain, abs=1e-15)
    assert state.bonus_group[[s1, s2]] == pytest.approx([0.04 + t1, 0.05 + t2], abs=1e-15)
    assert state.bank_group[[s1, s2]] == pytest.approx([0.06 + t1, 0.07 + t2], abs=1e-15)


def test_a_project_records_its_start_adds_to_the_running_bonus_and_blocks_only_its_tier(state, fake_rng):
    """Ref §4.20: a project starts today (start_day), its tier is in progress until it completes
    (another tier is not), and on completion its gain adds to b_shared and H as they stand."""
    state.day = 10
    p = start_project(state, fake_rng(normal=[3.0, 1.0]), 2)  # 17 + 60 = 77 days; gain 0.105
    assert (p.start_day, p.completion_day) == (10, 87)
    assert tier_in_progress(state, 2) and not tier_in_progress(state, 3)
    state.bonus_shared, state.bank_global = 0.5, 0.25
    state.day = 87
    assert [d.project_id for d in complete_projects(state)] == ["t2_1"]
    assert state.bonus_shared == pytest.approx(0.5 + 0.105)
    assert state.bank_global == pytest.approx(0.25 + 0.105)
    assert not tier_in_progress(state, 2)
