"""The four noisy indicators (docs/cfo-model.md; paper eq 1 and Table 4).

The normals come from a scripted stream, so each next value is worked out by hand.
"""

from __future__ import annotations

import pytest

from bizbench.envs.cfo.config import Indicators, Noisy
from bizbench.envs.cfo.world.indicators import IndicatorState, initial_indicators, perturb
from scripted_stream import ScriptedStream

CFG = Indicators(
    gross_margin_pct=Noisy(start=40.0, sigma=2.0, low=10.0, high=80.0),
    ebitda_margin_pct=Noisy(start=20.0, sigma=1.5, low=0.0, high=60.0),
    user_growth_pct=Noisy(start=5.0, sigma=0.5, low=-30.0, high=30.0),
    collection_rate=Noisy(start=0.97, sigma=0.04, low=0.85, high=1.0, process="around_start"),
)


def _values(state: IndicatorState) -> tuple[float, float, float, float]:
    return (state.gross_margin_pct, state.ebitda_margin_pct, state.user_growth_dev_pct, state.collection_rate)


def test_the_indicators_start_at_their_presets_starting_values() -> None:
    assert initial_indicators(CFG) == IndicatorState(40.0, 20.0, 5.0, 0.97)


def test_the_margins_and_growth_walk_and_the_collection_rate_stays_around_its_start() -> None:
    state = IndicatorState(30.0, 10.0, 1.0, 0.9)
    stream = ScriptedStream(standard_normal=[[1.0, -2.0, 0.5, 0.5]])
    after = perturb(state, CFG, stream)
    # 30 + 2.0 x 1; 10 - 1.5 x 2; 1 + 0.5 x 0.5; 0.97 + 0.04 x 0.5 (from its start, not from 0.9)
    assert _values(after) == pytest.approx((32.0, 7.0, 1.25, 0.99))
    assert stream.calls == [("standard_normal", 4)]


def test_each_indicator_is_clipped_to_its_range_on_both_sides() -> None:
    low = perturb(IndicatorState(11.0, 1.0, -29.0, 0.9), CFG, ScriptedStream(standard_normal=[[-1.0] * 3 + [-4.0]]))
    # 11 - 2 = 9 floored at 10; 1 - 1.5 floored at 0; -29 - 0.5 within; 0.97 - 0.16 = 0.81 floored at 0.85
    assert _values(low) == pytest.approx((10.0, 0.0, -29.5, 0.85))
    high = perturb(IndicatorState(79.0, 59.0, 29.8, 0.9), CFG, ScriptedStream(standard_normal=[[1.0, 1.0, 1.0, 1.0]]))
    assert _values(high) == pytest.approx((80.0, 60.0, 30.0, 1.0))  # 81, 60.5, 30.3 and 1.01, capped


def test_the_ebitda_margin_never_exceeds_the_gross_margin() -> None:
    after = perturb(IndicatorState(20.0, 19.0, 0.0, 0.97), CFG, ScriptedStream(standard_normal=[[-1.0, 2.0, 0, 0]]))
    assert after.gross_margin_pct == pytest.approx(18.0)
    assert after.ebitda_margin_pct == pytest.approx(18.0)  # 22 would exceed 18: held at the gross margin


def test_each_indicator_follows_the_process_its_preset_names() -> None:
    """A preset may make the collection rate walk and a margin revert to its start."""
    swapped = Indicators(
        gross_margin_pct=Noisy(start=40.0, sigma=2.0, low=10.0, high=80.0, process="around_start"),
        ebitda_margin_pct=CFG.ebitda_margin_pct,
        user_growth_pct=CFG.user_growth_pct,
        collection_rate=Noisy(start=0.97, sigma=0.04, low=0.85, high=1.0, process="random_walk"),
    )
    after = perturb(IndicatorState(30.0, 10.0, 1.0, 0.9), swapped, ScriptedStream(standard_normal=[[1.0, 0, 0, 0.5]]))
    assert _values(after) == pytest.approx((42.0, 10.0, 1.0, 0.92))  # 40 + 2; 0.9 + 0.04 x 0.5
