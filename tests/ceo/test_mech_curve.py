"""Participation curve Q_req(C) and its inverse C_max(Q) (paper eq 5, 40; reference-notes §4.2, §4.23)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.config import Curve
from bizbench.envs.ceo.world.curve import max_acceptable_price, required_quality

C_MAX, Q_MIN, Q_MAX, S_L, S_R = 100.0, 0.2, 0.8, 1.5, 2.5
HALF = (Q_MAX - Q_MIN) / 2


def sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def q_req_hand(price: float, c_max: float = C_MAX, s_l: float = S_L, s_r: float = S_R) -> float:
    """reference-notes §4.2 typed out: piecewise two-sigmoid, centres 0.25/0.75, k = 10, cap at c_max."""
    if price > c_max:
        return Q_MAX
    x = price / c_max
    if x < 0.5:
        return Q_MIN + HALF * sig(10 * s_l * (x - 0.25))
    return Q_MIN + HALF + HALF * sig(10 * s_r * (x - 0.75))


def _req(cfg, prices):
    p = np.asarray(prices, dtype=float)
    n = len(p)
    return required_quality(
        p, np.full(n, C_MAX), np.full(n, Q_MIN), np.full(n, Q_MAX), np.full(n, S_L), np.full(n, S_R), cfg.curve
    )


def _cmax(cfg, qualities):
    q = np.asarray(qualities, dtype=float)
    n = len(q)
    return max_acceptable_price(
        q, np.full(n, C_MAX), np.full(n, Q_MIN), np.full(n, Q_MAX), np.full(n, S_L), np.full(n, S_R), cfg.curve
    )


def test_required_quality_piecewise_branches(cfg):
    """Eq 5 in the engine form (reference-notes §4.2): left sigmoid for x < 0.5, right for x >= 0.5,
    q_max above the budget."""
    got = _req(cfg, [0.0, 10.0, 25.0, 49.99, 50.0, 80.0, 100.0, 100.01, 500.0])
    # hand values
    exp = [
        0.2 + 0.3 * sig(10 * 1.5 * (0.0 - 0.25)),  # 0.2 + 0.3 sig(-3.75)
        0.2 + 0.3 * sig(10 * 1.5 * (0.1 - 0.25)),  # 0.2 + 0.3 sig(-2.25)
        0.2 + 0.3 * 0.5,  # centre of the left sigmoid
        0.2 + 0.3 * sig(10 * 1.5 * (0.4999 - 0.25)),
        0.5 + 0.3 * sig(10 * 2.5 * (0.5 - 0.75)),  # x = 0.5 is on the right branch
        0.5 + 0.3 * sig(10 * 2.5 * (0.8 - 0.75)),  # 0.5 + 0.3 sig(1.25)
        0.5 + 0.3 * sig(10 * 2.5 * 0.25),  # at c_max: not yet q_max
        0.8,  # C > c_max -> q_max
        0.8,
    ]
    assert got == pytest.approx(exp, abs=1e-12)
    assert got[1] == pytest.approx(0.2286048, abs=1e-6)
    assert got[5] == pytest.approx(0.7331900, abs=1e-6)
    # the jump at x = 0.5 between the two halves
    assert got[4] - got[3] == pytest.approx(0.5 + 0.3 * sig(-6.25) - 0.2 - 0.3 * sig(3.7485), abs=1e-9)


def test_required_quality_is_monotone_in_price(cfg):
    """Eq 5: higher prices never require less quality."""
    prices = np.linspace(0.0, 120.0, 1201)
    got = _req(cfg, prices)
    assert np.all(np.diff(got) >= -1e-15)
    assert got == pytest.approx([q_req_hand(float(p)) for p in prices], abs=1e-12)


def test_max_acceptable_price_hand_inverse(cfg):
    """Eq 40 / reference-notes §4.23: C_max(Q) = largest C in [0, c_max] with Q_req(C) <= Q.

    Inverting the sigmoid by hand: Q at the centre of either half gives x = 0.25 / 0.75.
    Q below Q_req(0) gives 0; Q at or above Q_req(c_max) gives c_max; a Q inside the jump
    at x = 0.5 gives (just below) c_max / 2.
    """
    q_left = 0.2 + 0.3 * 0.5  # -> x = 0.25
    q_right = 0.5 + 0.3 * 0.5  # -> x = 0.75
    q_any_left = 0.3  # (0.3 - 0.2) / 0.3 = 1/3 -> logit = ln(0.5)
    x_any_left = 0.25 + math.log((1 / 3) / (2 / 3)) / (10 * S_L)
    q_floor = q_req_hand(0.0)  # ~0.20689
    q_top = q_req_hand(C_MAX)  # ~0.79942
    got = _cmax(cfg, [q_left, q_right, q_any_left, q_floor - 1e-4, q_top + 1e-4, 0.497])
    assert got[0] == pytest.approx(25.0, abs=1e-6)
    assert got[1] == pytest.approx(75.0, abs=1e-6)
    assert got[2] == pytest.approx(100 * x_any_left, abs=1e-6)
    assert got[3] == 0.0
    assert got[4] == pytest.approx(C_MAX)
    assert got[5] == pytest.approx(50.0, abs=1e-6)
    assert got[5] < 50.0


@pytest.mark.parametrize("q", [0.21, 0.3, 0.45, 0.51, 0.6, 0.7, 0.79])
def test_max_acceptable_price_inverse_property(cfg, q):
    """Eq 40: Q_req(C_max(Q)) <= Q and any price a cent higher needs more than Q."""
    c = float(_cmax(cfg, [q])[0])
    assert 0.0 < c <= C_MAX
    assert q_req_hand(c) <= q + 1e-12
    assert q_req_hand(c + 0.01) > q


def test_max_acceptable_price_at_exactly_the_quality_a_price_needs_is_that_price(cfg):
    """Eq 40: C_max(Q) is the largest price with Q_req(C) <= Q, so a quality equal to what a price
    requires buys that very price: c_max itself at Q_req(c_max), c_max / 2 at Q_req(c_max / 2)
    (the first bisection point, where the right sigmoid starts), and 0 at Q_req(0) (any price above
    it needs more)."""
    n = 3
    args = (np.full(n, C_MAX), np.full(n, Q_MIN), np.full(n, Q_MAX), np.full(n, S_L), np.full(n, S_R), cfg.curve)
    needed = required_quality(np.array([C_MAX, C_MAX / 2, 0.0]), *args)
    assert needed[1] > required_quality(np.array([C_MAX / 2 - 1e-9] * n), *args)[1]  # the jump at x = 0.5
    top, half, floor = max_acceptable_price(needed, *args).tolist()
    assert top == C_MAX and floor == 0.0
    assert C_MAX / 2 <= half < C_MAX / 2 + 1e-9  # prices a few ulps above need the same rounded quality


def test_the_logistic_clamps_its_argument_to_plus_or_minus_500():
    """The sigmoid of eq 5 is 1 / (1 + e^-z) with z = k s (x - theta) clamped to [-500, 500]
    (reference-notes notation): with a steepness that puts z at -500 and below (-600, -inf) the
    requirement is q_min + half / (1 + e^500), 7.1e-218 above q_min in exact arithmetic (so q_min
    itself in doubles), never the unclamped e^600's overflow; at +500 and above it is the middle
    of the band."""
    curve = Curve()  # the default k = 10, centres 0.25 and 0.75, split 0.5
    floor = 1.0 / (1.0 + math.exp(500.0))
    assert 0.0 < floor < 1e-217
    # x = 0 on the left half: z = k s (0 - 0.25) = -2.5 s
    s_left = np.array([200.0, 240.0, np.inf])
    with np.errstate(over="raise"):
        got = required_quality(np.zeros(3), np.full(3, 10.0), 0.0, 1.0, s_left, 1.0, curve)
    assert got.tolist() == [0.5 * floor] * 3
    # x = 0.49: z = k s (0.24) > 500 for s above 208.4
    top = required_quality(np.full(2, 4.9), np.full(2, 10.0), 0.0, 1.0, np.array([300.0, np.inf]), 1.0, curve)
    assert top.tolist() == [0.5 / (1.0 + math.exp(-500.0))] * 2
