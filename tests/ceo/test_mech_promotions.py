"""Promotions and in-app ad strength at every scope (paper eq 7, 13; reference-notes §4.18, §4.21)."""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.ceo.config import CHANNELS
from bizbench.envs.ceo.world.customers import SOURCE_NETWORK, SOURCE_ORGANIC
from bizbench.envs.ceo.world.promotions import ad_strength, lead_promotion, ongoing_promotion


def test_ongoing_promotion_is_additive_over_scopes(state):
    """Ref §4.21: ongoing promo = global + by_group[g] + by_customer[i] + by_group_plan[g][p]."""
    s = state.settings
    s.promo_global = 1.0
    s.promo_by_group[0] = 2.0
    s.promo_by_customer = {5: 4.0, 9: 32.0}
    s.promo_by_group_plan[0, 1] = 8.0
    s.promo_by_group_plan[1, 1] = 16.0
    idx = np.array([5, 6, 5, 9, 7])
    groups = np.array([0, 0, 1, 0, 2])
    plans = np.array([1, 0, 1, 2, 1])
    got = ongoing_promotion(s, idx, groups, plans)
    assert got == pytest.approx([1 + 2 + 4 + 8, 1 + 2, 1 + 4 + 16, 1 + 2 + 32, 1])


def test_lead_promotion_channel_terms_only_for_channel_sources(state):
    """Ref §4.21: lead promo = global + by_group[g] + by_channel[src] + by_channel_group[src][g];
    network and organic leads get only the global and group terms. (The ongoing promotion's
    global term is separate from the lead global term.)"""
    s = state.settings
    s.lead_promo_global = 1.0
    s.lead_promo_by_group[0] = 2.0
    content = CHANNELS.index("content_marketing")
    search = CHANNELS.index("search_ads")
    s.lead_promo_by_channel[content] = 4.0
    s.lead_promo_by_channel_group[0, content] = 8.0
    s.lead_promo_by_channel_group[0, search] = 16.0
    s.lead_promo_by_channel_group[1, content] = 64.0   # another group: must not leak
    sources = np.array([content, search, SOURCE_NETWORK, SOURCE_ORGANIC,
                        CHANNELS.index("linkedin")])
    got = lead_promotion(s, 0, sources)
    assert got == pytest.approx([1 + 2 + 4 + 8, 1 + 2 + 16, 1 + 2, 1 + 2, 1 + 2])
    assert lead_promotion(s, 1, np.array([content])) == pytest.approx([1 + 4 + 64])


def test_ad_strength_sum_and_clip(state):
    """Ref §4.18: s_i = clip(global + group[g] + customer[i], 0, 1); the customer term only
    where asked (daily satisfaction, ad revenue)."""
    s = state.settings
    s.ads_global = 0.3
    s.ads_by_group[0] = 0.4
    s.ads_by_group[1] = -0.5
    s.ads_by_customer = {2: 0.2, 3: 0.5}
    idx = np.array([1, 2, 3, 4])
    groups = np.array([0, 0, 0, 1])
    assert ad_strength(s, idx, groups, include_customer=True) == pytest.approx([0.7, 0.9, 1.0, 0.0])
    assert ad_strength(s, idx, groups, include_customer=False) == pytest.approx([0.7, 0.7, 0.7, 0.0])
