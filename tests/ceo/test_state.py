"""The world state on day 0 (docs/reference-notes.md §1.1) and the agent's settings."""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.world.state import Settings, WorldState


@pytest.fixture(scope="module")
def cfg():
    return load_config("default")[0]


def test_on_day_0_the_six_named_groups_are_known_and_the_twenty_d_groups_hidden(cfg):
    """docs/reference-notes.md §1.1: S1-S3 and E1-E3 are known (info level 1, discovered on day 0), the 20
    ``D_*`` groups hidden (level 0, no discovery day: -1, NULL in the agent's table); no group has been
    researched yet (-1); reputation 0.5; every macro multiplier of eq 38 (lead, WTP, deal, seat) is 1."""
    st = WorldState(config=cfg, seed=1)
    known = [True] * 6 + [False] * 20
    assert st.discovered.tolist() == known
    assert st.info_level.tolist() == [1] * 6 + [0] * 20
    assert st.discovered_day.tolist() == [0] * 6 + [-1] * 20
    assert st.last_research_day.tolist() == [-1] * 26
    assert st.reputation.tolist() == [0.5] * 26
    assert np.array_equal(st.macro_multipliers, np.ones((26, 4)))


def test_the_targeted_operations_spend_adds_every_targeted_allocation():
    """docs/reference-notes.md §4.24: the daily cost counts targeted ops on top of global ops: by group, by plan,
    by group and plan, by customer. $100 + $20 + $5 + $3 = $128 a day."""
    s = Settings(n_groups=26)
    s.ops_by_group[2] = 100.0
    s.ops_by_plan[1] = 20.0
    s.ops_by_group_plan[3, 0] = 5.0
    s.ops_by_customer[7] = 3.0
    assert s.targeted_ops_total() == 128.0
