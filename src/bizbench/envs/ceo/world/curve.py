"""Participation curve: the quality a customer requires at a price (eq 5, 40).

The engine form (reference-notes §4.2) is a piecewise two-sigmoid: below half the budget the left
sigmoid (centre 0.25) spans the lower half of the quality range, above it the right
sigmoid (centre 0.75) spans the upper half; above the budget the requirement is q_max.
"""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.config import Curve
from bizbench.envs.ceo.world import kernels


def required_quality(
    price: np.ndarray,
    c_max: np.ndarray,
    q_min: np.ndarray,
    q_max: np.ndarray,
    s_left: np.ndarray,
    s_right: np.ndarray,
    curve: Curve,
) -> np.ndarray:
    """Q_req(C) of eq 5 in the engine's piecewise form (reference-notes §4.2), the arguments broadcast.

    Compiled (kernels.curve_exponent, curve_quality): each customer's half of the curve is chosen before
    the sigmoid; numpy's exp between the two kernels keeps every value what numpy's expression gave.
    """
    args = np.broadcast_arrays(
        *(np.asarray(a, dtype=np.float64) for a in (price, c_max, q_min, q_max, s_left, s_right))
    )
    shape = args[0].shape
    price, c_max, q_min, q_max, s_left, s_right = (np.ascontiguousarray(a).reshape(-1) for a in args)
    e = np.empty(len(price))
    kernels.curve_exponent(price, c_max, s_left, s_right, curve.k, curve.split, curve.theta_left, curve.theta_right, e)
    np.exp(e, out=e)
    q = np.empty(len(price))
    kernels.curve_quality(price, c_max, q_min, q_max, curve.split, e, q)
    return q.reshape(shape)


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
