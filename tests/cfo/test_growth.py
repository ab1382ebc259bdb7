"""User growth and the hidden surges (docs/cfo-model.md; paper Table 4, the reference's reported surges).

The surge draws come from a scripted stream, so every expected schedule is written out by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.cfo.config import Lending, Surges
from bizbench.envs.cfo.world.growth import surge_schedule, user_growth_pct
from scripted_stream import ScriptedStream


def test_a_windowed_schedule_starts_one_surge_inside_each_window() -> None:
    cfg = Surges(windows=((2, 4), (9, 10)), duration_months=(2, 3), extra_growth_pct=(1.0, 2.0))
    stream = ScriptedStream(integers=[3, 9, 2, 3], uniform=[1.5, 1.25])
    extra = surge_schedule(cfg, 14, stream)
    # starts at 3 and 9; the first lasts 2 months (3, 4) at +1.5, the second 3 months (9-11) at +1.25
    assert extra.tolist() == [0, 0, 0, 1.5, 1.5, 0, 0, 0, 0, 1.25, 1.25, 1.25, 0, 0]
    # both starts first (each window's last month included), then each surge's length and size
    assert stream.calls == [
        ("integers", 2, 5),
        ("integers", 9, 11),
        ("integers", 2, 4),
        ("uniform", 1.0, 2.0),
        ("integers", 2, 4),
        ("uniform", 1.0, 2.0),
    ]


def test_a_surge_past_the_horizon_is_cut_at_it_and_overlapping_surges_add_up() -> None:
    cfg = Surges(windows=((1, 2), (2, 3)), duration_months=(1, 9), extra_growth_pct=(0.0, 5.0))
    stream = ScriptedStream(integers=[1, 2, 4, 9], uniform=[1.0, 2.0])
    assert surge_schedule(cfg, 5, stream).tolist() == [0, 1.0, 3.0, 3.0, 3.0]


def test_a_renewal_schedule_spaces_surges_by_random_gaps_until_the_horizon() -> None:
    cfg = Surges(schedule="renewal", renewal_gap_months=(3, 5), duration_months=(1, 2), extra_growth_pct=(2.0, 3.0))
    # gaps 3 and 4 start surges at months 3 and 7; the next gap (5) reaches 12 = the horizon: no surge
    stream = ScriptedStream(integers=[3, 4, 5, 1, 2], uniform=[2.5, 3.0])
    extra = surge_schedule(cfg, 12, stream)
    assert extra.tolist() == [0, 0, 0, 2.5, 0, 0, 0, 3.0, 3.0, 0, 0, 0]
    assert stream.calls[:3] == [("integers", 3, 6)] * 3
    assert stream.calls[3:] == [("integers", 1, 3), ("uniform", 2.0, 3.0), ("integers", 1, 3), ("uniform", 2.0, 3.0)]


def test_a_renewal_gap_ending_one_month_before_the_horizon_still_starts_a_surge() -> None:
    cfg = Surges(schedule="renewal", renewal_gap_months=(11, 11), duration_months=(1, 1), extra_growth_pct=(1.0, 1.0))
    stream = ScriptedStream(integers=[11, 11, 1], uniform=[1.0])
    assert surge_schedule(cfg, 12, stream).tolist() == [0] * 11 + [1.0]


def test_the_default_windows_put_every_surge_inside_the_reported_crisis_windows() -> None:
    for seed in range(20):
        extra = surge_schedule(Surges(), 132, np.random.default_rng(seed))
        months = np.flatnonzero(extra)
        assert all(23 <= m <= 36 + 7 or 50 <= m <= 62 + 7 or 100 <= m <= 115 + 7 for m in months)
        assert all(1.5 <= x <= 3.5 for x in extra[months])


@pytest.mark.parametrize(
    ("industry", "deviation", "surge", "expected"),
    [
        (2.0, 6.0, 0.0, 0.9),  # 0.2 x 2 + 6 / 12
        (2.0, -6.0, 1.5, 1.4),  # 0.4 - 0.5 + 1.5
        (10.0, 120.0, 6.0, 15.0),  # 2 + 10 + 6 = 18, capped at 15
        (0.0, 180.0, 0.0, 15.0),  # exactly the cap
        (-10.0, -108.0, 0.0, -10.0),  # -2 - 9 = -11, floored at -10
    ],
)
def test_user_growth_weighs_the_industry_adds_a_twelfth_of_the_deviation_and_the_surge_within_its_range(
    industry: float, deviation: float, surge: float, expected: float
) -> None:
    assert user_growth_pct(industry, deviation, surge, Lending()) == pytest.approx(expected)


def test_user_growth_uses_the_presets_weight_floor_and_cap() -> None:
    cfg = Lending(industry_growth_weight=0.5, user_growth_floor_pct=-1.0, user_growth_cap_pct=2.0)
    assert user_growth_pct(2.0, 0.0, 0.0, cfg) == pytest.approx(1.0)
    assert user_growth_pct(2.0, 24.0, 0.0, cfg) == pytest.approx(2.0)
    assert user_growth_pct(-4.0, 0.0, 0.0, cfg) == pytest.approx(-1.0)
