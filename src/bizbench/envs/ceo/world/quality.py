"""Delivered and perceived quality (eq 10, 15; reference-notes §4.4, §4.6, §4.7).

The perceived-quality formula has one variant per context (daily satisfaction, billing
decision, enterprise trigger, negotiation, new lead); each caller passes the terms that
apply, as listed in reference-notes §4.7.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from bizbench.envs.ceo.config import Quality
from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.promotions import ad_penalty, ads_active

if TYPE_CHECKING:
    from bizbench.envs.ceo.world.state import WorldState


class MarketView(NamedTuple):
    """What customers read of the product and the market at one moment of a day: the delivered
    quality [group, plan] (eq 10 before the service penalty), each group's quality shift (global +
    group drift) and budget drift (reference-notes §4.7). Most steps read the start of the day's
    (reference-notes §1.2 step 3); the enterprise replies read the state as it is then."""

    delivered: np.ndarray
    q_shift: np.ndarray
    c_drift: np.ndarray


def delivered_quality(
    base: float, bonus_shared: float, bonus_group: np.ndarray, tier_multipliers: np.ndarray
) -> np.ndarray:
    """Del_{g,p} = (q0 + b_shared + b_g) * m_tier(p), shape [group, plan] (eq 10, reference-notes §4.6).

    The service penalty of eq 10 is applied per context (daily satisfaction only).
    """
    product = base + bonus_shared + bonus_group
    return product[:, None] * tier_multipliers[None, :]


def quota_factor(quota: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """F(quota, demand) = clip(quota / demand, 0, 1), 1 when demand <= 0 (reference-notes §4.4)."""
    quota = np.maximum(np.asarray(quota, dtype=np.float64), 0.0)
    demand = np.asarray(demand, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.asarray(quota / demand)
    np.clip(ratio, 0.0, 1.0, out=ratio)
    np.copyto(ratio, 1.0, where=demand <= 0)
    return ratio


def relationship_bonus(relationship: np.ndarray, q: Quality) -> np.ndarray:
    """RB = 0.9 (r - 0.5) (eq 15 beta_r term; reference-notes §4.7)."""
    bonus = np.asarray(relationship - q.relationship_neutral)
    bonus *= q.relationship_weight
    return bonus


def relationship_as_read(relationship: np.ndarray, zero_kept: bool) -> np.ndarray:
    """The relationship a mechanic reads (reference-notes §4.10). With ``zero_kept`` off (the
    engine: ``fixes.relationship_zero_kept``), a relationship of exactly 0 reads as 0.5, the
    engine's default for a missing value (``r or 0.5``), which also catches a customer whose
    relationship has decayed to 0; the billing decision reads it as stored."""
    if zero_kept:
        return relationship
    return np.where(relationship == 0.0, 0.5, relationship)


def tenure_bonus(days_subscribed: np.ndarray, q: Quality) -> np.ndarray:
    """TB = 0.05 ln(1 + t/30) for t > 0, else 0 (eq 15 beta_d term; reference-notes §4.7).

    Tenures in whole days read the bonus from a table of each day up to the longest tenure, so
    the logarithm is taken once per distinct day (the same values).
    """
    days = np.asarray(days_subscribed)
    if days.dtype.kind in "iu" and days.size:
        table = tenure_bonus(np.arange(max(int(days.max()), 0) + 1, dtype=np.float64), q)
        return table.take(np.maximum(days, 0))
    t = np.maximum(np.asarray(days, dtype=np.float64), 0.0)
    return np.where(t > 0, q.tenure_weight * np.log1p(t / q.tenure_scale), 0.0)


def effective_ad_load(strength: np.ndarray) -> np.ndarray:
    """a = ln(1 + 9 s) / ln 10 with s clipped to [0, 1] (eq 13; reference-notes §4.18)."""
    s = np.clip(strength, 0.0, 1.0)
    return np.log1p(9.0 * s) / np.log(10.0)


def perceived_quality(
    delivered: np.ndarray,
    relationship: np.ndarray,
    tenure_days: np.ndarray,
    issue_days: np.ndarray,
    ad_penalty: np.ndarray | float,
    quota_f: np.ndarray,
    q: Quality,
    service_penalty: float = 0.0,
) -> np.ndarray:
    """Q_perc = (Del - svc + RB + TB) * F - IP - AP (eq 15 in the engine form, reference-notes §4.7).

    A penalty that is the scalar +0.0 (no service trouble, no ads) is not subtracted: x - 0.0 is x.
    Arguments broadcast (a customer's terms as a column against one column per plan).
    """
    delivered = delivered if _is_plus_zero(service_penalty) else delivered - service_penalty
    positive = np.add(relationship_bonus(relationship, q), delivered)
    positive += tenure_bonus(tenure_days, q)
    positive *= quota_f
    positive -= q.issue_penalty * issue_days
    if not _is_plus_zero(ad_penalty):
        positive -= ad_penalty
    return positive


def _is_plus_zero(x: np.ndarray | float) -> bool:
    return np.ndim(x) == 0 and x == 0.0 and not np.signbit(x)


def perception_terms(state: WorldState, rows: np.ndarray, include_customer_ads: bool) -> tuple[Any, ...]:
    """Eq 15's terms of customers ``rows`` but the delivered quality and the quota factor, as a compiled
    pass reads them (kernels.satisfaction, kernels.plan_terms): the relationship column, RB's neutral
    point and weight, the day, the start days, TB by whole days up to the longest tenure of ``rows``
    (``tenure_bonus``), the issue days and penalty, and the ad penalty one per row (``ad_penalty``,
    with the customer term when ``include_customer_ads``), empty with no ads."""
    cust, q, s = state.customers, state.config.quality, state.settings
    ads = (
        np.asarray(ad_penalty(s, rows, cust.group[rows], cust.eta_ads, include_customer=include_customer_ads))
        if ads_active(s)
        else np.empty(0)
    )
    longest = kernels.longest_tenure(rows, cust.start_day, state.day)
    return (
        cust.relationship,
        q.relationship_neutral,
        q.relationship_weight,
        state.day,
        cust.start_day,
        tenure_bonus(np.arange(longest + 1.0), q),
        cust.issue_days,
        q.issue_penalty,
        ads,
    )
