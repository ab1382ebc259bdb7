"""Competitor events: window, firing, boosts, adaptive catch-up (paper eq 32-36; reference-notes §4.16)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.competitor import maybe_fire, severity
from bizbench.envs.ceo.world.state import WorldState

N_GROUPS = 26
LOG_MU, LOG_SIGMA = -4.5559, 1.2
B_MIN, B_MAX = 0.001974375, 0.1727578125


def ramp(d: int) -> float:
    """Ref §4.16: 1 + 3 clip((d - 1) / (470 - 1), 0, 1) for the 500-day horizon."""
    return 1 + 3 * min(1.0, max(0.0, (d - 1) / 469))


def firing_rng(fake_rng, z=0.0, u=0.5, v=None):
    v = [0.0] * N_GROUPS if v is None else v
    return fake_rng(random=[0.0], lognormal=[z], uniform=[u, v])


def test_no_events_before_day_60_or_after_day_470(state, params, fake_rng):
    """Ref §4.16: grace d < 60 and cutoff d > total - 30 = 470 have no events, even with a
    zero firing draw."""
    for d in (1, 30, 59, 471, 480, 500):
        state.day = d
        assert maybe_fire(state, params, fake_rng(random=[0.0])) is None
    assert state.competitor_events == []
    state.day = 60
    assert maybe_fire(state, params, firing_rng(fake_rng)) is not None
    state.day = 470
    assert maybe_fire(state, params, firing_rng(fake_rng)) is not None


def test_firing_probability_and_min_interval(state, params, fake_rng):
    """Ref §4.16: fire with prob 1/mean interval (10.287 before day 250, 6.858 after) if
    d - tau >= min interval (1.5 early, 1 late)."""
    early_p, late_p = 1 / (6.858 * 1.5), 1 / 6.858
    state.day = 100
    assert maybe_fire(state, params, fake_rng(random=[early_p * 1.001])) is None
    assert maybe_fire(state, params, firing_rng(fake_rng)) is not None  # fires on day 100
    state.day = 101  # 1 day later < 1.5
    assert maybe_fire(state, params, fake_rng(random=[0.0])) is None
    state.day = 102
    ev = maybe_fire(state, params, fake_rng(random=[early_p * 0.999], lognormal=[0.0], uniform=[0.5, [0.0] * N_GROUPS]))
    assert ev is not None and ev["day"] == 102
    state.day = 300
    assert maybe_fire(state, params, fake_rng(random=[late_p * 1.001])) is None
    assert maybe_fire(state, params, firing_rng(fake_rng)) is not None
    state.day = 301  # 1 day later >= 1 late
    assert (
        maybe_fire(state, params, fake_rng(random=[late_p * 0.999], lognormal=[0.0], uniform=[0.5, [0.0] * N_GROUPS]))
        is not None
    )


def test_stationary_boost_applied_with_kappa(state, params, fake_rng):
    """Eq 34 / reference-notes §4.16: B = clip(LogNormal(-4.5559, 1.2), B_min, B_max) * ramp(d);
    global q-drift += B; each group q-drift += kappa_g B. A small bank loses (u H < B)."""
    state.day = 300
    state.bank_global = 0.01  # u H = 0.35 * 0.01 = 0.0035 < B
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=0.0, u=0.5))
    b = math.exp(LOG_MU) * ramp(300)
    assert ev["winner"] == "stationary"
    assert ev["boost"] == pytest.approx(b)
    assert state.q_drift_global == pytest.approx(b)
    kappa = np.array([g.kappa for g in state.config.groups])
    assert kappa[:6] == pytest.approx([0.15, 0.06, 0.2, 0.12, 0.04, 0.02])
    assert state.q_drift_group == pytest.approx(kappa * b)
    assert state.bank_global == 0.01  # not consumed
    assert state.last_competitor_day == 300


def test_boost_clipping(state, params, fake_rng):
    """Eq 34: the log-normal draw is clipped to [0.001974375, 0.1727578125] before the ramp."""
    state.day = 470
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=10.0))
    assert ev["boost"] == pytest.approx(B_MAX * 4.0)
    st2 = WorldState(config=state.config, seed=1)
    st2.day = 60
    ev = maybe_fire(st2, params, firing_rng(fake_rng, z=-10.0))
    assert ev["boost"] == pytest.approx(B_MIN * ramp(60))


def test_adaptive_branch_consumes_u_times_bank(state, params, fake_rng):
    """Eq 35 / reference-notes §4.16: u ~ U(0.2, 0.5); F = u H; if F > B_sample then B = F and
    H <- (1 - u) H."""
    state.day = 200
    state.bank_global = 1.0
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=0.0, u=0.5))  # u = 0.35
    assert ev["winner"] == "adaptive"
    assert ev["boost"] == pytest.approx(0.35)
    assert state.bank_global == pytest.approx(0.65)
    assert state.q_drift_global == pytest.approx(0.35)
    assert state.q_drift_group[0] == pytest.approx(0.15 * 0.35)


def test_targeted_drain(state, params, fake_rng, gidx):
    """Eq 36 / reference-notes §4.16: for each group with H_g > 0, v ~ U(0, 0.1), q-drift_g += v H_g,
    H_g <- (1 - v) H_g; groups without a bank get nothing beyond kappa B."""
    state.day = 300
    s1, s3 = gidx["S1"], gidx["S3"]
    state.bank_group[s1] = 0.2
    v_units = [0.5] * N_GROUPS  # v = 0.05 for every group
    v_units[s3] = 0.9
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=0.0, v=v_units))
    b = ev["boost"]
    assert state.bank_group[s1] == pytest.approx(0.2 * 0.95)
    assert state.q_drift_group[s1] == pytest.approx(0.2 * 0.05 + 0.15 * b)
    assert state.q_drift_group[s3] == pytest.approx(0.2 * b)  # bank 0 -> no drain
    assert state.bank_group[s3] == 0.0


def test_event_days_independent_of_banks(cfg, params):
    """Ref §1.1 / §4.16 design goal: the competitor stream is exogenous, so two worlds with
    very different banks see identical event days and sampled boosts."""

    def run(bank: float, group_bank: float) -> list[tuple[int, float, float]]:
        st = WorldState(config=cfg, seed=3)
        rng = np.random.default_rng(123)
        out = []
        for d in range(1, 501):
            st.day = d
            st.bank_global = bank
            st.bank_group[:] = group_bank
            ev = maybe_fire(st, params, rng)
            if ev is not None:
                out.append((ev["day"], ev["sampled_boost"], ev["u"]))
        out.append((-1, float(rng.random()), 0.0))  # stream position after 500 days
        return out

    a = run(0.0, 0.0)
    b = run(50.0, 3.0)
    assert len(a) > 20
    assert a == b


def test_day_250_is_the_first_day_with_the_late_interval(state, params, fake_rng):
    """Ref §4.16: the interval is x1.5 before day horizon / 2 = 250 and plain from day 250 on. A
    firing draw just below 1 / 6.858 (but above 1 / 10.287) fires on day 250, not on day 249."""
    draw = 0.999 / 6.858
    assert draw > 1 / (6.858 * 1.5)
    state.day = 249
    assert maybe_fire(state, params, fake_rng(random=[draw])) is None
    state.day = 250
    ev = maybe_fire(state, params, fake_rng(random=[draw], lognormal=[0.0], uniform=[0.5, [0.0] * N_GROUPS]))
    assert ev is not None and ev["day"] == 250


def test_a_firing_draw_of_exactly_one_over_the_mean_interval_does_not_fire(state, params, fake_rng):
    """Eq 33: an event fires when the draw is below 1 / mean interval; a draw equal to it does not."""
    state.day = 100
    assert maybe_fire(state, params, fake_rng(random=[1.0 / (6.858 * 1.5)])) is None
    state.day = 300
    assert maybe_fire(state, params, fake_rng(random=[1.0 / 6.858])) is None
    assert state.competitor_events == []


def test_a_catch_up_equal_to_the_sampled_boost_does_not_win(state, params, fake_rng):
    """Eq 35: the adaptive catch-up wins only when u H is above the sampled boost. Day 470 (ramp 4)
    with the draw clipped to B_max: B = 4 B_max; u = 0.5 and H = 8 B_max give u H = 4 B_max exactly:
    the stationary boost applies and the bank is kept."""
    state.day = 470
    state.bank_global = 8 * B_MAX
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=10.0, u=1.0))
    assert ev["feedback"] == ev["sampled_boost"] == 4 * B_MAX
    assert ev["winner"] == "stationary"
    assert state.bank_global == 8 * B_MAX


def test_the_event_record_holds_every_figure_of_the_event(state, params, fake_rng, gidx):
    """The hidden event record (the competitor_events table, the posts' window and wording). Day 470:
    sampled B = 4 B_max = 0.69103125; u = 0.5 of a bank of 2.0 gives F = 1.0 > B: the adaptive boost
    1.0 wins and the bank keeps (1 - 0.5) x 2.0 = 1.0; S1's bank 0.2 drains v = 0.05 of it (0.01);
    posts run 4 days (470 to 473); a boost of 1.0 is 'transformative' (>= 0.20)."""
    state.day = 470
    state.bank_global = 2.0
    state.bank_group[gidx["S1"]] = 0.2
    state.q_drift_global = 0.25  # an earlier shift: the boost adds to it
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=10.0, u=1.0, v=[0.5] * N_GROUPS))
    assert ev == {
        "day": 470,
        "boost": 1.0,
        "sampled_boost": 0.69103125,
        "u": 0.5,
        "bank_before": 2.0,
        "feedback": 1.0,
        "winner": "adaptive",
        "targeted_drain": pytest.approx(0.01),
        "post_end_day": 473,
        "severity": "transformative",
    }
    assert state.bank_global == 1.0
    assert state.q_drift_global == 1.25
    assert state.competitor_events == [ev]


def test_each_severity_band_starts_at_its_threshold():
    """Ref §4.12 / §4.16: competitor post wording by size: below 0.03 minor, below 0.10 moderate,
    below 0.20 major, from 0.20 transformative."""
    cases = [
        (0.0299, "minor"),
        (0.03, "moderate"),
        (0.0999, "moderate"),
        (0.10, "major"),
        (0.1999, "major"),
        (0.20, "transformative"),
    ]
    assert [severity(b) for b, _ in cases] == [w for _, w in cases]


def test_the_sampled_boost_is_the_lognormal_with_the_configured_sigma(state, params, fake_rng):
    """Eq 34: B = clip(LogNormal(-4.5559, 1.2), B_min, B_max) x ramp; a z of 1 inside the bounds gives
    exp(-4.5559 + 1.2) = 0.0349 before the ramp (day 236: 1 + 3 x 235 / 469); with sigma 1 it would be
    exp(-3.5559) = 0.0286."""
    state.day = 236
    ev = maybe_fire(state, params, firing_rng(fake_rng, z=1.0))
    assert ev["sampled_boost"] == pytest.approx(math.exp(LOG_MU + LOG_SIGMA) * ramp(236))


def test_the_ramp_is_full_on_the_cutoff_day_of_a_short_world(state, params, fake_rng):
    """Eq 34: the ramp goes from 1x at day 1 to (1 + 3)x at the cutoff day, horizon - 30. In a
    32-day world without grace the cutoff is day 2: an event on day 2 has the full 4x ramp."""
    cfg = state.config.model_copy(
        update={"horizon_days": 32, "competitor": state.config.competitor.model_copy(update={"grace_days": 0})}
    )
    st = WorldState(config=cfg, seed=1)
    st.day = 2
    ev = maybe_fire(st, params, firing_rng(fake_rng, z=0.0))
    assert ev["sampled_boost"] == pytest.approx(math.exp(LOG_MU) * 4.0)


def test_with_an_odd_horizon_the_late_interval_starts_on_the_whole_half_day(state, params, fake_rng):
    """Ref §4.16: the x1.5 interval holds before day horizon // 2, a whole day: for a 501-day
    horizon that is day 250 (not 250.5), so a firing draw just below 1 / 6.858 (above 1 /
    10.287) fires on day 250 as it does for the 500-day horizon."""
    state.config = state.config.model_copy(update={"horizon_days": 501})
    draw = 0.999 / 6.858
    assert draw > 1 / (6.858 * 1.5) and 501 // 2 == 250
    state.day = 249
    assert maybe_fire(state, params, fake_rng(random=[draw])) is None
    state.day = 250
    ev = maybe_fire(state, params, fake_rng(random=[draw], lognormal=[0.0], uniform=[0.5, [0.0] * N_GROUPS]))
    assert ev is not None and ev["day"] == 250
