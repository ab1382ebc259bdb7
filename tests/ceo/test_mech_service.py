"""Service health: overload, outages, latency and the quality penalty (paper eq 9-10; reference-notes §4.5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.service import service_day


def p_outage_hand(ops: float, overload: float) -> float:
    """Ref §4.5: p = max(0.001, 0.03 exp(-x_ops / 500)) (1 + 4 o)."""
    return max(0.001, 0.03 * math.exp(-ops / 500.0)) * (1.0 + 4.0 * overload)


def test_overload_outage_threshold_and_metrics(state, params, fake_rng):
    """Ref §4.5: o = [U/K - 1]+, outage ~ Bernoulli(p), downtime in {10, 30, 90} with
    probs {0.5, 0.35, 0.15}, p95 = 180 + 800 o + N(0, 50), err = 0.003 + 0.01 o + N(0, 0.001)."""
    state.settings.capacity_tier = 0  # K = 50,000 units/day
    state.settings.operations = 250.0
    o = 60_000 / 50_000 - 1  # 0.2
    p = p_outage_hand(250.0, o)
    assert p == pytest.approx(0.03 * math.exp(-0.5) * 1.8)

    # draw just below p -> outage; downtime draw 0.6 falls in the 30-minute bucket
    rng = fake_rng(random=[p * 0.999, 0.6], normal=[0.0, 0.0])
    svc = service_day(state, params, rng, 60_000.0)
    assert svc.overload == pytest.approx(0.2)
    assert svc.capacity_units == 50_000
    assert svc.outage is True
    assert svc.downtime_minutes == 30
    assert svc.p95_ms == pytest.approx(180 + 800 * 0.2)
    assert svc.error_rate == pytest.approx(0.003 + 0.01 * 0.2)

    # draw just above p -> no outage, no downtime; shocks move p95 and error rate
    rng = fake_rng(random=[p * 1.001, 0.1], normal=[1.0, -2.0])
    svc = service_day(state, params, rng, 60_000.0)
    assert svc.outage is False
    assert svc.downtime_minutes == 0
    assert svc.p95_ms == pytest.approx(180 + 160 + 50)
    assert svc.error_rate == pytest.approx(0.003 + 0.002 - 0.002)


@pytest.mark.parametrize(("u", "minutes"), [(0.3, 10), (0.49, 10), (0.51, 30), (0.84, 30), (0.86, 90), (0.99, 90)])
def test_downtime_buckets(state, params, fake_rng, u, minutes):
    """Ref §4.5: downtime 10 / 30 / 90 minutes with cumulative probs 0.5 / 0.85 / 1."""
    rng = fake_rng(random=[0.0, u], normal=[0.0, 0.0])
    assert service_day(state, params, rng, 0.0).downtime_minutes == minutes


def test_outage_floor_and_no_overload(state, params, fake_rng):
    """Ref §4.5: the outage probability never drops below 0.001 (x (1 + 4 o)); no overload
    while usage <= capacity; targeted ops do not lower p (global ops only)."""
    state.settings.capacity_tier = 3  # 2.5M units
    state.settings.operations = 10_000.0  # 0.03 e^-20 << 0.001
    state.settings.ops_by_group[:] = 1e6
    p = p_outage_hand(10_000.0, 0.0)
    assert p == 0.001
    assert service_day(state, params, fake_rng(random=[0.000999, 0.5], normal=[0, 0]), 2_500_000.0).outage is True
    svc = service_day(state, params, fake_rng(random=[0.001001, 0.5], normal=[0, 0]), 2_500_000.0)
    assert svc.outage is False
    assert svc.overload == 0.0


def test_outage_frequency_statistical(state, params):
    """Ref §4.5 with real draws: ops 0 and overload 1 (2x capacity) -> p = 0.03 * 5 = 0.15;
    ops 500 and no overload -> p = 0.03 / e."""
    rng = np.random.default_rng(20240601)
    state.settings.capacity_tier = 0
    n = 8_000
    hits = sum(service_day(state, params, rng, 100_000.0).outage for _ in range(n))
    p = p_outage_hand(0.0, 1.0)
    assert p == pytest.approx(0.15)
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)

    state.settings.operations = 500.0
    hits = sum(service_day(state, params, rng, 10_000.0).outage for _ in range(n))
    p = 0.03 / math.e
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_quality_penalty_constants(cfg, state, params, fake_rng):
    """Ref §4.5: svc = 0.08 o + 0.20 1[outage] (the 0.15 / 0.25 config weights are labels only)."""
    assert cfg.quality.overload_penalty == 0.08
    assert cfg.quality.outage_penalty == 0.20
    state.settings.capacity_tier = 0
    svc = service_day(state, params, fake_rng(random=[0.0, 0.2], normal=[0, 0]), 75_000.0)
    assert svc.overload == pytest.approx(0.5)
    assert svc.quality_penalty(cfg.quality.overload_penalty, cfg.quality.outage_penalty) == pytest.approx(
        0.08 * 0.5 + 0.20
    )
    svc = service_day(state, params, fake_rng(random=[0.99, 0.2], normal=[0, 0]), 75_000.0)
    assert svc.quality_penalty(0.08, 0.20) == pytest.approx(0.04)


@pytest.mark.parametrize(("u", "minutes"), [(0.5, 30), (0.85, 90)])
def test_a_downtime_draw_on_a_bucket_edge_falls_in_the_longer_bucket(state, params, fake_rng, u, minutes):
    """Ref §4.5: the buckets are [0, 0.5) -> 10, [0.5, 0.85) -> 30 and [0.85, 1) -> 90 minutes: a draw
    exactly on an edge belongs to the bucket that starts there."""
    rng = fake_rng(random=[0.0, u], normal=[0.0, 0.0])
    assert service_day(state, params, rng, 0.0).downtime_minutes == minutes


def test_an_outage_draw_equal_to_the_probability_is_no_outage(state, params, fake_rng):
    """Ref §4.5: outage ~ Bernoulli(p): the draw must be below p. At the floor (ops $10,000, no
    overload) p = 0.001 exactly, and a draw of 0.001 brings no outage."""
    state.settings.capacity_tier = 3
    state.settings.operations = 10_000.0
    svc = service_day(state, params, fake_rng(random=[0.001, 0.5], normal=[0, 0]), 100.0)
    assert svc.outage is False and svc.downtime_minutes == 0


def test_the_error_rate_is_clipped_to_zero_and_one_and_the_day_row_keeps_its_inputs(state, params, fake_rng):
    """Ref §4.5: error rate = clip(0.003 + 0.01 o + N(0, 0.001), 0, 1). Tier 0 (K = 50,000): 25,000
    units and a shock of -5 sd give 0.003 - 0.005 < 0 -> 0; 5,050,000 units (o = 100) give
    0.003 + 1.0 > 1 -> 1. The row keeps the day's usage and capacity tier."""
    state.settings.capacity_tier = 0
    low = service_day(state, params, fake_rng(random=[0.99, 0.0], normal=[0.0, -5.0]), 25_000.0)
    assert (low.total_usage, low.capacity_tier, low.overload, low.error_rate) == (25_000.0, 0, 0.0, 0.0)
    high = service_day(state, params, fake_rng(random=[0.99, 0.0], normal=[0.0, 0.0]), 5_050_000.0)
    assert high.overload == pytest.approx(100.0)
    assert high.error_rate == 1.0
    assert high.p95_ms == pytest.approx(180 + 800 * 100.0)


@pytest.mark.parametrize(("u", "minutes"), [(0.45, 10), (0.6, 30), (0.8, 90)])
def test_downtime_probabilities_are_weights_scaled_to_their_sum(state, params, fake_rng, u, minutes):
    """Ref §4.5: the downtime bucket is drawn in proportion to ``downtime_probs``. A preset with weights 2, 1, 1
    (sum 4, not 1) gives 10 minutes for u < 0.5, 30 for u in [0.5, 0.75), 90 above: u x 4 against 2, 3, 4."""
    service = state.config.service.model_copy(update={"downtime_probs": (2.0, 1.0, 1.0)})
    state.config = state.config.model_copy(update={"service": service})
    rng = fake_rng(random=[0.0, u], normal=[0.0, 0.0])
    assert service_day(state, params, rng, 0.0).downtime_minutes == minutes
