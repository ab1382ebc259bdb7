"""Promotions and in-app ad strength at every scope (paper eq 7, 13; reference-notes §4.18, §4.21)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.config import CHANNELS
from bizbench.envs.ceo.world.customers import SOURCE_NETWORK, SOURCE_ORGANIC
from bizbench.envs.ceo.world.promotions import ad_penalty, ad_strength, ads_active, lead_promotion, ongoing_promotion


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
    s.lead_promo_by_channel_group[1, content] = 64.0  # another group: must not leak
    sources = np.array([content, search, SOURCE_NETWORK, SOURCE_ORGANIC, CHANNELS.index("linkedin")])
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


def test_a_customer_map_is_looked_up_whatever_its_order_and_beyond_its_largest_id(state):
    """Ref §4.21: the per-customer term is the map's value for that customer id and 0 for any other,
    whatever order the agent gave the map in, for ids below, between and above its keys."""
    s = state.settings
    s.promo_by_customer = {9: 32.0, 5: 4.0}
    idx = np.array([12, 9, 7, 5, 0])
    got = ongoing_promotion(s, idx, np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64))
    assert got.tolist() == [0.0, 32.0, 0.0, 4.0, 0.0]
    s.promo_by_customer = {}
    assert ongoing_promotion(s, idx[:2], np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)).tolist() == [0, 0]


def test_ads_are_on_when_any_scope_has_a_strength_and_the_penalty_is_eta_times_the_load(state):
    """Ref §4.18 (eq 13, 15): AP_i = eta_i a_i with a = ln(1 + 9 s) / ln 10, and 0 when no scope (global,
    group, customer) has ads on. A global strength of 0.5 alone turns ads on; so does one group or one
    customer; the customer term enters only where asked."""
    s = state.settings
    eta = np.array([0.1, 0.2, 0.3])
    idx, groups = np.array([0, 2]), np.array([0, 1])
    assert not ads_active(s)
    assert ad_penalty(s, idx, groups, eta, include_customer=True) == 0.0
    s.ads_global = 0.5
    assert ads_active(s)
    a = math.log(5.5) / math.log(10)
    assert ad_penalty(s, idx, groups, eta, include_customer=False) == pytest.approx([0.1 * a, 0.3 * a])
    s.ads_global = 0.0
    s.ads_by_group[1] = 0.1
    assert ads_active(s)
    s.ads_by_group[1] = 0.0
    s.ads_by_customer = {2: 0.1}
    assert ads_active(s)
    b = math.log(1.9) / math.log(10)
    assert ad_penalty(s, idx, groups, eta, include_customer=True) == pytest.approx([0.0, 0.3 * b])
    assert ad_penalty(s, idx, groups, eta, include_customer=False) == pytest.approx([0.0, 0.0])
