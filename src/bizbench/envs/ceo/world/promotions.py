"""Promotions and in-app ad strength at every scope (eq 7, 13; reference-notes §4.18, §4.21)."""

from __future__ import annotations

import numpy as np

from bizbench.envs.ceo.world.customers import SOURCE_NETWORK
from bizbench.envs.ceo.world.state import Settings


def per_customer(values: dict[int, float], idx: np.ndarray) -> np.ndarray:
    """Look up a sparse {customer_id: value} map for an index array (0 where absent)."""
    out = np.zeros(len(idx))
    if not values:
        return out
    keys = np.fromiter(values.keys(), dtype=np.int64, count=len(values))
    vals = np.fromiter(values.values(), dtype=np.float64, count=len(values))
    order = np.argsort(keys)
    keys, vals = keys[order], vals[order]
    pos = np.clip(np.searchsorted(keys, idx), 0, len(keys) - 1)
    hit = keys[pos] == idx
    out[hit] = vals[pos[hit]]
    return out


def ongoing_promotion(s: Settings, idx: np.ndarray, groups: np.ndarray, plans: np.ndarray) -> np.ndarray:
    """Dollar discount: global + group + customer + group-plan (eq 7 without the lead term)."""
    return (
        s.promo_global
        + s.promo_by_group[groups]
        + per_customer(s.promo_by_customer, idx)
        + s.promo_by_group_plan[groups, plans]
    )


def lead_promotion(s: Settings, groups: int | np.ndarray, sources: np.ndarray) -> np.ndarray:
    """First-bill lead promotion: global + group + channel + channel-group (eq 7; reference-notes §4.21),
    for leads of ``sources`` from ``groups`` (one group, or each lead's).

    Channel terms apply only to leads attributed to that channel, not to network or organic.
    """
    groups = np.broadcast_to(groups, sources.shape)
    promo = s.lead_promo_global + s.lead_promo_by_group[groups]
    is_channel = sources < SOURCE_NETWORK
    ch = sources[is_channel]
    promo[is_channel] += s.lead_promo_by_channel[ch] + s.lead_promo_by_channel_group[groups[is_channel], ch]
    return promo


def ad_strength(s: Settings, idx: np.ndarray, groups: np.ndarray, include_customer: bool) -> np.ndarray:
    """s_i = clip(global + group + customer, 0, 1) (eq 13; the customer term only in
    daily satisfaction and ad revenue, reference-notes §4.18)."""
    strength = s.ads_global + s.ads_by_group[groups]
    if include_customer:
        strength = strength + per_customer(s.ads_by_customer, idx)
    return np.clip(strength, 0.0, 1.0)


def ads_active(s: Settings) -> bool:
    return s.ads_global > 0 or bool(s.ads_by_group.any()) or bool(s.ads_by_customer)


def ad_penalty(
    s: Settings, idx: np.ndarray, groups: np.ndarray, eta_column: np.ndarray, include_customer: bool
) -> np.ndarray | float:
    """AP = eta_i a_i, the ad term subtracted from perceived quality (eq 13, 15); 0 with no ads."""
    from bizbench.envs.ceo.world.quality import effective_ad_load

    if not ads_active(s):
        return 0.0
    return eta_column[idx] * effective_ad_load(ad_strength(s, idx, groups, include_customer))
