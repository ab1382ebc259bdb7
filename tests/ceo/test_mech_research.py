"""Market research's group insights: the noisy estimates get_group_insights gives the agent
(reference-notes §4.25; docs/ceo-tools.md ``get_group_insights``).

The insights of a group are its snapshot (drifted budget and quality floor, market size at the
snapshot day) and its preset means, each times (1 + U(-p, p)) with p the noise of its info level
(level 1: the preset's ``level1_noise``, ±65 %; level 3: ±25 %). The draws come from
``default_rng([seed, 7919, group, level, snapshot day])`` in the order of the fields, so repeated
calls agree. Its network influence lists the discovered other groups whose referral weight (per
1000 subscribers) is above 0.0003 per subscriber, and whose reputation spillover is above 0.005,
the eight strongest, strongest first.

The referral and spillover matrices here are built by hand (``dataclasses.replace`` on the
preset's Params), so every weight, threshold and cut is visible in the test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from bizbench.envs.ceo.world.research import (
    attempt_market_research,
    complete_group_research,
    group_insights,
    insight_noise,
    level_spec,
    queue_group_research,
    take_snapshot,
)
from scripted_stream import ScriptedStream

S1, S2, S3, E1, E2, E3 = range(6)  # the preset's first six groups, known from day 0
D_S01, D_S02, D_S03, D_S04, D_S05, D_S06, D_S07 = range(6, 13)


def _networks(params, referral: dict[tuple[int, int], float], spillover: dict[tuple[int, int], float]):
    """The preset's Params with referral (leads per source subscriber per day) and spillover
    matrices that are zero except for the given [source, target] weights."""
    ref, spill = np.zeros((26, 26)), np.zeros((26, 26))
    for (src, dst), w in referral.items():
        ref[src, dst] = w
    for (src, dst), w in spillover.items():
        spill[src, dst] = w
    return dataclasses.replace(params, referral=ref, spillover=spill)


def _without_noise(state) -> None:
    research = state.config.research.model_copy(update={"level1_noise": 0.0})
    state.config = state.config.model_copy(update={"research": research})


def _s2_world(state, params):
    """S2 at level 1 without noise, D_S01..D_S05 discovered (D_S06 and D_S07 are not), S2's
    budget drifted by +3.5 and its quality floor by +0.02 (global) + 0.01 (group)."""
    _without_noise(state)
    state.discovered[[D_S01, D_S02, D_S03, D_S04, D_S05]] = True
    state.c_drift_group[S2] = 3.5
    state.q_drift_global = 0.02
    state.q_drift_group[S2] = 0.01
    take_snapshot(state, params, S2)  # day 0
    referral = {
        (S2, S2): 0.019,  # the group's own referral: reported alone, never among its influences
        # outgoing: nine discovered targets above 0.0003, in no particular group order
        (S2, S1): 0.0005,
        (S2, S3): 0.004,
        (S2, E2): 0.0025,
        (S2, E3): 0.0012,
        (S2, D_S01): 0.0031,
        (S2, D_S02): 0.0008,
        (S2, D_S03): 0.0062,
        (S2, D_S04): 0.00035,  # the ninth strongest: cut
        (S2, E1): 0.00036,
        (S2, D_S05): 0.0003,  # exactly at the threshold: left out
        (S2, D_S06): 0.009,  # strongest of all, but D_S06 is undiscovered
        # incoming
        (S1, S2): 0.00087,
        (S3, S2): 0.00364,
        (E2, S2): 0.0003,  # at the threshold: left out
        (E3, S2): 0.00031,  # just above it: kept
        (D_S07, S2): 0.005,  # undiscovered
    }
    spillover = {
        (S2, S2): 1.0,
        (S2, S1): 0.05,
        (S2, S3): 0.08,
        (S2, E1): 0.005,  # at the threshold: left out
        (S2, E2): 0.0051,  # just above it: kept
        (S2, D_S06): 0.3,  # undiscovered
        (S1, S2): 0.05,
        (S3, S2): 0.24,
        (E3, S2): 0.1,
        (E1, S2): 0.005,  # at the threshold
        (D_S02, S2): 0.0051,  # just above it
        (D_S07, S2): 0.4,  # undiscovered
    }
    return _networks(params, referral, spillover)


def test_without_noise_an_individual_group_s_insights_are_its_true_values(state, params):
    """Noise 0: every estimate is the truth, rounded as documented (budget to cents, usage to
    one decimal, quality floor, lock-in aversion and growth to four, the market size to a whole
    number); an individual group has no seat range, decision rounds or response days; referral
    weights are per 1000 subscribers, spillover weights as they are."""
    p = _s2_world(state, params)
    got = group_insights(state, p, S2)
    assert got == {
        "group_id": "S2",
        "info_level": 1,
        "noise": 0.0,
        "estimates": {
            "willingness_to_pay": 143.5,  # c_max_mu 140 + drift 3.5
            "usage_volume": 180.0,
            "quality_floor_q_min": 0.33,  # 0.3 + 0.02 + 0.01
            "contract_lockin_aversion": 0.1,
            "market_cap": 136_000,  # base cap at day 0
            "annual_market_cap_growth_rate": 0.16,
        },
        "network_influence": {
            "self_referral_per_1000": 19.0,
            "outgoing": {
                "D_S03": 6.2,
                "S3": 4.0,
                "D_S01": 3.1,
                "E2": 2.5,
                "E3": 1.2,
                "D_S02": 0.8,
                "S1": 0.5,
                "E1": 0.36,
            },
            "incoming": {"S3": 3.64, "S1": 0.87, "E3": 0.31},
        },
        "reputation_influence": {
            "outgoing": {"S3": 0.08, "S1": 0.05, "E2": 0.0051},
            "incoming": {"S3": 0.24, "E3": 0.1, "S1": 0.05, "D_S02": 0.0051},
        },
    }
    assert list(got["estimates"]) == [
        "willingness_to_pay",
        "usage_volume",
        "quality_floor_q_min",
        "contract_lockin_aversion",
        "market_cap",
        "annual_market_cap_growth_rate",
    ]
    assert isinstance(got["estimates"]["market_cap"], int)
    assert isinstance(got["estimates"]["usage_volume"], float)
    assert isinstance(got["network_influence"]["self_referral_per_1000"], float)


def test_only_the_eight_strongest_influences_are_listed_strongest_first(state, params):
    """Nine discovered targets pass the referral threshold; the ninth (D_S04, 0.35 per 1000)
    is cut, and the rest are listed by weight, not by group order."""
    got = group_insights(state, _s2_world(state, params), S2)["network_influence"]["outgoing"]
    assert list(got.items()) == [
        ("D_S03", 6.2),
        ("S3", 4.0),
        ("D_S01", 3.1),
        ("E2", 2.5),
        ("E3", 1.2),
        ("D_S02", 0.8),
        ("S1", 0.5),
        ("E1", 0.36),
    ]
    rep = group_insights(state, _s2_world(state, params), S2)["reputation_influence"]
    assert list(rep["incoming"]) == ["S3", "E3", "S1", "D_S02"]


def test_an_influence_weight_at_its_threshold_is_left_out_and_one_just_above_is_kept(state, params):
    """Referral 0.0003 per subscriber (0.3 per 1000) and spillover 0.005 are not influences;
    0.00031 and 0.0051 are, in both directions."""
    got = group_insights(state, _s2_world(state, params), S2)
    net, rep = got["network_influence"], got["reputation_influence"]
    assert "D_S05" not in net["outgoing"]  # S2 -> D_S05 at 0.0003
    assert "E2" not in net["incoming"] and net["incoming"]["E3"] == 0.31
    assert "E1" not in rep["outgoing"] and rep["outgoing"]["E2"] == 0.0051
    assert "E1" not in rep["incoming"] and rep["incoming"]["D_S02"] == 0.0051


def test_the_group_itself_and_undiscovered_groups_are_not_among_its_influences(state, params):
    """S2's own referral (19 per 1000) and spillover (1.0) are its largest weights, and the
    undiscovered D_S06 and D_S07 have the next largest: none is listed."""
    got = group_insights(state, _s2_world(state, params), S2)
    lists = [*got["network_influence"].values()][1:] + [*got["reputation_influence"].values()]
    for influence in lists:
        assert not {"S2", "D_S06", "D_S07"} & set(influence)
    # once D_S06 is discovered it leads S2's outgoing referral list (9 per 1000)
    state.discovered[D_S06] = True
    got = group_insights(state, _s2_world(state, params), S2)
    assert next(iter(got["network_influence"]["outgoing"].items())) == ("D_S06", 9.0)
    assert next(iter(got["reputation_influence"]["outgoing"].items())) == ("D_S06", 0.3)


def test_noisy_insights_of_an_enterprise_group_follow_their_seeded_uniform_draws(state, params):
    """E2 at level 3 (±25 %), snapshot on day 24, world seed 1: each value is its truth times
    (1 + U(-0.25, 0.25)), drawn from default_rng([1, 7919, 4, 3, 24]) in the order of the
    fields: the six estimates, the enterprise seat range (min, max), decision rounds and
    response days, the own referral, then each influence list strongest first."""
    state.day = 24
    state.info_level[E2] = 3
    state.c_drift_group[E2] = -2.0
    take_snapshot(state, params, E2)
    state.day = 30  # the insights read the snapshot, whatever the day
    p = _networks(
        params,
        referral={
            (E2, E2): 0.0021,
            (E2, E3): 0.00098,
            (E2, S3): 0.00218,
            (S3, E2): 0.006552,
            (S2, E2): 0.001064,
        },
        spillover={(E2, S2): 0.18, (E2, E3): 0.154, (E2, S1): 0.02, (S3, E2): 0.35, (E3, E2): 0.105},
    )

    rng = np.random.default_rng([1, 7919, E2, 3, 24])
    draws = iter([1.0 + rng.uniform(-0.25, 0.25) for _ in range(20)])

    def noisy(x: float) -> float:
        return x * next(draws)

    cap = 510.0 * (1.0 + 0.16 * 24 / 365)  # base cap 510, growth 16 %/year, on day 24
    expected = {
        "group_id": "E2",
        "info_level": 3,
        "noise": 0.25,
        "estimates": {
            "willingness_to_pay": round(noisy(120.0 - 2.0), 2),
            "usage_volume": round(noisy(150.0), 1),
            "quality_floor_q_min": round(noisy(0.7), 4),
            "contract_lockin_aversion": round(noisy(0.06), 4),
            "market_cap": int(noisy(cap)),
            "annual_market_cap_growth_rate": round(noisy(0.16), 4),
            "seat_range": [int(noisy(100)), int(noisy(1000))],
            "decision_rounds": round(noisy(10.0), 1),
            "avg_response_days": round(noisy(10.0), 1),
        },
        "network_influence": {
            "self_referral_per_1000": round(noisy(2.1), 4),
            "outgoing": {"S3": round(noisy(2.18), 4), "E3": round(noisy(0.98), 4)},
            "incoming": {"S3": round(noisy(6.552), 4), "S2": round(noisy(1.064), 4)},
        },
        "reputation_influence": {
            "outgoing": {"S2": round(noisy(0.18), 4), "E3": round(noisy(0.154), 4), "S1": round(noisy(0.02), 4)},
            "incoming": {"S3": round(noisy(0.35), 4), "E3": round(noisy(0.105), 4)},
        },
    }
    assert next(draws, None) is None  # 10 estimates + 1 own referral + 4 + 5 influences

    got = group_insights(state, p, E2)
    assert got == expected
    assert list(got["network_influence"]["outgoing"]) == ["S3", "E3"]
    assert list(got["reputation_influence"]["outgoing"]) == ["S2", "E3", "S1"]
    # the values, worked once: each lies within 25 % of its truth
    est = got["estimates"]
    assert 0.75 * 118.0 <= est["willingness_to_pay"] <= 1.25 * 118.0
    assert 75 <= est["seat_range"][0] <= 125 and 750 <= est["seat_range"][1] <= 1250
    assert group_insights(state, p, E2) == got  # repeated calls agree


def test_each_market_research_attempt_is_counted_whatever_its_outcome(state):
    for expected, draws in ((1, [0.99, 0.5]), (2, [0.0, 0.0])):  # a failure (0.99 >= 0.30), then a success
        attempt_market_research(state, ScriptedStream(random=[draws]))
        assert state.market_research_attempts == expected


def test_group_research_is_due_after_its_levels_delay_and_an_unknown_level_is_named(state):
    state.day = 10
    assert queue_group_research(state, 2, 3).completion_day == 15  # level 3: 5 days (preset)
    assert queue_group_research(state, 1, 5).completion_day == 20  # level 5: 10 days
    with pytest.raises(KeyError) as unknown:
        level_spec(state, 9)
    assert unknown.value.args == (9,)


def test_the_insight_noise_is_level_ones_own_then_each_research_levels(state):
    for level, noise in ((0, 0.65), (1, 0.65), (2, 0.40), (3, 0.25), (5, 0.05)):
        state.info_level[0] = level
        assert insight_noise(state, 0) == pytest.approx(noise), level


def test_a_successful_attempt_discovers_the_undiscovered_group_its_draw_picks(state):
    """Groups 2 and 5 undiscovered; a success draw 0.1 < 0.30 and a pick draw 0.6 choose the second
    of them (int(0.6 x 2) = 1): group 5, discovered today at info level 1, the others untouched."""
    state.day = 12
    state.discovered[:] = True
    state.discovered[[2, 5]] = False
    state.info_level[:] = 0
    assert attempt_market_research(state, ScriptedStream(random=[[0.1, 0.6]])) == 5
    assert np.flatnonzero(~state.discovered).tolist() == [2]
    assert state.discovered_day[5] == 12 and state.info_level[5] == 1
    assert state.info_level[2] == 0
    # a pick draw just under 1 takes the last one left; a group already researched keeps its level
    state.info_level[2] = 3
    assert attempt_market_research(state, ScriptedStream(random=[[0.0, 0.999]])) == 2
    assert state.info_level[2] == 3


def test_market_research_fails_at_its_probability_and_when_every_group_is_known(state):
    state.discovered[:] = False
    assert attempt_market_research(state, ScriptedStream(random=[[0.30, 0.0]])) is None  # 0.30 is not < 0.30
    assert not state.discovered.any()
    assert attempt_market_research(state, ScriptedStream(random=[[0.2999, 0.0]])) == 0
    state.discovered[:] = True
    assert attempt_market_research(state, ScriptedStream(random=[[0.0, 0.5]])) is None


def test_group_research_completes_on_its_due_day_raises_the_level_only_upward_and_snapshots_that_day(state, params):
    """Eq 31 / reference-notes §4.25: a job finishes on its completion day (not the day before); the
    group's level becomes the larger of its level and the job's, the day is its last research
    day, and its insights snapshot is taken that day. Day 10: S2 (already at level 4) researched
    to level 2 is due day 13, S3 (level 1) to level 3 day 15, S1 to level 5 day 20. S2's snapshot
    on day 13 (preset: c_max_mu $140, q_min_mu 0.3, base cap 136,000 growing 16 % a year; budget
    drift +$5, quality drift 0.02 + 0.01): c_max 145, q_min 0.33, market 136,000 (1 + 0.16 x 13 /
    365) = 136,775.01."""
    state.day = 10
    state.info_level[S2], state.info_level[S3] = 4, 1
    jobs = [queue_group_research(state, g, lv) for g, lv in ((S2, 2), (S3, 3), (S1, 5))]
    assert [j.completion_day for j in jobs] == [13, 15, 20]
    state.c_drift_group[S2] = 5.0
    state.q_drift_global, state.q_drift_group[S2] = 0.02, 0.01
    state.day = 12
    assert complete_group_research(state, params) == [] and len(state.pending_research) == 3
    state.day = 13
    assert complete_group_research(state, params) == [jobs[0]]
    assert state.pending_research == jobs[1:]
    assert state.info_level[S2] == 4 and state.last_research_day[S2] == 13
    snap = state.insight_snapshots[S2]
    assert snap["day"] == 13 and snap["c_max"] == 145.0
    assert snap["q_min"] == pytest.approx(0.33, abs=1e-12)
    assert snap["market_cap"] == pytest.approx(136_000 * (1 + 0.16 * 13 / 365), rel=1e-12)
    state.day = 16
    assert complete_group_research(state, params) == [jobs[1]]
    assert state.info_level[S3] == 3 and state.last_research_day[S3] == 16
    assert state.insight_snapshots[S3]["day"] == 16
    assert state.pending_research == [jobs[2]] and state.last_research_day[S1] == -1
