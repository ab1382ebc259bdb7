"""The NovaMind world's own bookkeeping (reference-notes §1.1-§1.2): what a new world holds before its
first day, and the records a day leaves. Each test builds a world of the default preset and steps it
at most a few days."""

from __future__ import annotations

import pytest

from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.world.world import World


@pytest.fixture(scope="module")
def cfg():
    return load_config("default")[0]


def test_a_new_world_is_funded_on_day_0_with_the_preset_s_start_cash(cfg):
    """Ref §1.1: the ledger opens with one row, day 0, ``initial_funding``, $1,000,000 (start_cash)."""
    w = World(cfg, seed=3)
    row = w.state.ledger.rows[0]
    assert (row.day, row.category, row.cents) == (0, "initial_funding", 100_000_000)
    assert len(w.state.ledger.rows) == 1


def test_an_injected_post_judge_is_the_one_that_judges(cfg):
    """The env injects its judge (an LLM judge in some presets); the world must use it, not the RuleJudge."""

    def judge(content, context):
        return {}

    assert World(cfg, seed=3, post_judge=judge).judge is judge


def test_each_group_known_from_the_start_has_a_day_0_insight_snapshot(cfg):
    """Ref §1.1 / §4.25: day-0 snapshots of the 6 groups known at the start (S1-S3, E1-E3), none of a
    discoverable group; S1's are its preset means, c_max 50 and q_min 0.1 (no drift yet)."""
    w = World(cfg, seed=3)
    assert sorted(w.state.insight_snapshots) == [0, 1, 2, 3, 4, 5]
    s1 = w.state.insight_snapshots[0]
    assert (s1["day"], s1["c_max"], s1["q_min"]) == (0, 50.0, 0.1)
