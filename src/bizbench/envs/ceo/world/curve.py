"""Participation curve: the quality a customer requires at a price (eq 5, 40).

The engine form (reference-notes §4.2) is a piecewise two-sigmoid: below half the budget the left
sigmoid (centre 0.25) spans the lower half of the quality range, above it the right
sigmoid (centre 0.75) spans the upper half; above the budget the requirement is q_max.
"""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.config import Curve


def sigmoid(z: np.ndarray) -> np.ndarray:
    """1 / (1 + e^-z) with z clamped to [-500, 500] (reference-notes notation); one new array, the
    other steps in place."""
    e = np.asarray(np.clip(z, -500.0, 500.0))
    np.negative(e, out=e)
    np.exp(e, out=e)
    e += 1.0
    return np.divide(1.0, e, out=e)


def required_quality(
    price: np.ndarray,
    c_max: np.ndarray,
    q_min: np.ndarray,
    q_max: np.ndarray,
    s_left: np.ndarray,
    s_right: np.ndarray,
    curve: Curve,
) -> np.ndarray:
    """Q_req(C) of eq 5 in the engine's piecewise form (reference-notes §4.2).

    Each customer's half of the curve is chosen before the sigmoid, so only that half's
    k s (x - theta) is computed; the other steps work in place.
    """
    price = np.asarray(price, dtype=np.float64)
    x = price / c_max
    half = (q_max - q_min) / 2.0
    is_left = x < curve.split
    z = curve.k * np.where(is_left, s_left, s_right)
    z *= x - np.where(is_left, curve.theta_left, curve.theta_right)
    q = sigmoid(z)
    q *= half
    q += q_min + half * ~is_left  # the right half starts at the middle of the band
    return np.where(price > c_max, q_max, q)


def max_acceptable_price(
    quality: np.ndarray,
    c_max: np.ndarray,
    q_min: np.ndarray,
    q_max: np.ndarray,
    s_left: np.ndarray,
    s_right: np.ndarray,
    curve: Curve,
) -> np.ndarray:
    """C_max(Q) of eq 40: the largest price in [0, c_max] with Q_req(price) <= Q.

    Bisection with ``curve.counter_bisection_steps`` steps (reference-notes §4.23); 0 when even a
    free product does not clear the floor.
    """
    quality = np.asarray(quality, dtype=np.float64)
    args = (q_min, q_max, s_left, s_right, curve)
    lo = np.zeros_like(quality)
    hi = np.broadcast_to(np.asarray(c_max, dtype=np.float64), quality.shape).copy()
    top_ok = required_quality(hi, c_max, *args) <= quality
    for _ in range(curve.counter_bisection_steps):
        mid = (lo + hi) / 2.0
        ok = required_quality(mid, c_max, *args) <= quality
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    result = np.where(top_ok, c_max, lo)
    floor_ok = required_quality(np.zeros_like(quality), c_max, *args) <= quality
    return np.where(floor_ok, result, 0.0)
