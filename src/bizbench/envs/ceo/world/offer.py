"""A company's plans as a new lead reads them (reference-notes §3.4; eq 5-7).

For each lead and plan p: the price ``C_p = [P_p - LP]+`` after the lead promotion LP for the
lead's source (eq 7), the delivered quality ``Del_gp F(quota_p, u)`` at the lead's usage, the
quality it requires at that price ``Q_req(C_p)`` (eq 5), and the surplus of the two where
``C_p <= c_max`` (else ``-inf``, eq 6). Conversion (``acquisition.convert_individuals``) and a
lead weighing rival companies (``rivals.best_surplus``) read the same terms.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bizbench.envs.ceo.config import Curve
from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.state import Settings

__all__ = ["LeadOffer", "best_plan", "lead_offer"]


class LeadOffer(NamedTuple):
    """Each lead's terms of each plan, shape [n, 3] (the plans broadcast as columns)."""

    price: np.ndarray
    quality: np.ndarray
    required: np.ndarray
    surplus: np.ndarray


def lead_offer(
    settings: Settings,
    delivered: np.ndarray,
    promotion: np.ndarray,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    curve: Curve,
) -> LeadOffer:
    """The terms of ``settings``'s plans for leads ``cols`` with preferences ``prefs`` (c_max,
    q_min, q_max), each lead's lead promotion ``promotion`` and ``delivered``, the delivered quality of
    each plan: one row [3] for leads of one group, or each lead's group's row [n, 3]. Compiled
    (kernels.lead_terms, then eq 5 by ``curve.required_quality``)."""
    n, plans = len(promotion), len(settings.prices)
    terms = np.empty((7, n * plans))
    kernels.lead_terms(
        _floats(settings.prices),
        _floats(promotion),
        _floats(delivered).reshape(-1),
        _floats(settings.quotas),
        _floats(cols["usage_demand"]),
        tuple(_floats(a) for a in (*prefs, cols["s_left"], cols["s_right"])),
        terms,
    )
    quality, price, c_max, q_min, q_max, s_left, s_right = terms
    required = required_quality(price, c_max, q_min, q_max, s_left, s_right, curve)
    surplus = np.where(price <= c_max, quality - required, -np.inf)
    return LeadOffer(*(a.reshape(n, plans) for a in (price, quality, required, surplus)))


def _floats(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def best_plan(surplus: np.ndarray, acceptable: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The plan with the largest surplus of each row of ``surplus`` [n, plans] among its ``acceptable``
    ones (all when None), and that surplus (eq 6): numpy's ``argmax`` of the acceptable surpluses (the
    first largest; a NaN before any number); -1 and -inf for a row with no acceptable plan. Compiled
    (kernels.row_argmax): numpy's reductions along a row of three take 20-50 ns a row."""
    n = len(surplus)
    plan, top = np.empty(n, dtype=np.int64), np.empty(n)
    allowed = None if acceptable is None else np.ascontiguousarray(acceptable, dtype=bool).view(np.uint8)
    kernels.row_argmax(_floats(surplus), allowed, plan, top)
    return plan, top
