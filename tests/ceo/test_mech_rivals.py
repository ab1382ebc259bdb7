"""Rival companies in one market (world/rivals.py; docs/arena.md A1-A3)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from bizbench.envs.ceo.world.acquisition import expected_leads
from bizbench.envs.ceo.world.customers import SOURCE_ORGANIC
from bizbench.envs.ceo.world.rivals import PERSONA, Market, Rival, best_surplus, reach, shop, switchers, tenders


def _leads(group: int, n: int) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    cols = {
        "group": np.full(n, group),
        "c_max": np.full(n, 100.0),
        "q_min": np.full(n, 0.2),
        "q_max": np.full(n, 0.8),
        "s_left": np.ones(n),
        "s_right": np.ones(n),
        "usage_demand": np.full(n, 80.0),
        "source": np.full(n, SOURCE_ORGANIC),
    }
    return cols, (cols["c_max"], cols["q_min"], cols["q_max"])


def _priced(state, prices):
    settings = copy.deepcopy(state.settings)
    settings.prices[:] = prices
    settings.quotas[:] = [1e9, 1e9, 1e9]
    return settings


def _delivered(group, quality=0.5):
    """Delivered quality ``quality`` on every plan for ``group``, 0 elsewhere."""
    delivered = np.zeros((26, 3))
    delivered[group] = quality
    return delivered


def _market(rivals, own_reach, seed=0):
    return Market(rivals, own_reach, np.random.default_rng(seed))


def test_reach_is_eq_28s_bracket_times_reputation_and_zero_where_undiscovered(state, params, gidx):
    s1, e3 = gidx["S1"], gidx["E3"]
    state.discovered[:] = False
    state.discovered[s1] = True
    state.settings.ad_spend[:] = 0.0
    state.settings.ad_spend[s1, 0] = 1000.0
    state.reputation[:] = 0.5
    counts = np.zeros(26)
    counts[s1] = 400
    got = reach(state, params, counts)
    a = state.config.acquisition
    channel = 1000.0 * state.channel_leads[s1, 0] / a.ad_reference_spend
    network = counts[s1] * params.referral[s1, s1]
    assert got[s1] == pytest.approx(0.5 * (channel + network))
    assert got[e3] == 0.0


def test_saturation_counts_every_companys_subscribers_when_given(state, params, gidx):
    s1 = gidx["S1"]
    state.discovered[s1] = True
    own = np.zeros(26)
    own[s1] = 10.0
    market = own.copy()
    market[s1] = 0.9 * params.market_cap(state.day)[s1]
    alone, _, _ = expected_leads(state, params, own, np.ones(26), 1.0)
    crowded, _, _ = expected_leads(state, params, own, np.ones(26), 1.0, market_counts=market)
    assert 0 < crowded[s1] < alone[s1]
    assert crowded[s1] == pytest.approx(alone[s1] * (1 - 0.9**2) / (1 - (10.0 / params.market_cap(state.day)[s1]) ** 2))


def test_a_lead_goes_to_the_rival_it_knows_whose_best_plan_leaves_it_more(state, params, gidx):
    s1 = gidx["S1"]
    delivered = _delivered(s1)
    state.settings = _priced(state, [60.0, 60.0, 60.0])
    cols, prefs = _leads(s1, 400)
    cheap = Rival(1, _priced(state, [20.0, 20.0, 20.0]), delivered, np.full(26, 3.0), np.zeros(26))
    choice = shop(state, _market([cheap], np.full(26, 1.0)), s1, delivered, cols, prefs)
    assert set(choice.tolist()) == {-1, 0}
    assert (choice == 0).mean() == pytest.approx(
        3.0 / (3.0 + 1.0), abs=0.06
    )  # aware with reach_j / (reach_j + reach_k)


def test_a_lead_stays_on_a_tie_with_its_company_and_never_knows_a_rival_without_reach(state, gidx):
    s1 = gidx["S1"]
    delivered = _delivered(s1)
    state.settings = _priced(state, [20.0, 20.0, 20.0])
    cols, prefs = _leads(s1, 200)
    twin = Rival(1, _priced(state, [20.0, 20.0, 20.0]), delivered, np.full(26, 5.0), np.zeros(26))
    unseen = Rival(2, _priced(state, [1.0, 1.0, 1.0]), delivered, np.zeros(26), np.zeros(26))
    choice = shop(state, _market([twin, unseen], np.full(26, 1.0)), s1, delivered, cols, prefs)
    assert (choice == -1).all()


def test_a_rival_must_leave_a_positive_surplus(state, gidx):
    s1 = gidx["S1"]
    delivered = np.zeros((26, 3))
    state.settings = _priced(state, [500.0, 500.0, 500.0])  # no lead affords this company
    cols, prefs = _leads(s1, 50)
    useless = Rival(1, _priced(state, [20.0, 20.0, 20.0]), delivered, np.full(26, 1e6), np.zeros(26))  # quality 0
    assert (shop(state, _market([useless], np.ones(26)), s1, delivered, cols, prefs) == -1).all()


def test_equal_rivals_share_the_leads_that_prefer_them(state, gidx):
    s1 = gidx["S1"]
    delivered = _delivered(s1)
    state.settings = _priced(state, [90.0, 90.0, 90.0])
    cols, prefs = _leads(s1, 2000)
    a = Rival(1, _priced(state, [20.0, 20.0, 20.0]), delivered, np.full(26, 1e9), np.zeros(26))
    b = Rival(2, _priced(state, [20.0, 20.0, 20.0]), delivered, np.full(26, 1e9), np.zeros(26))
    choice = shop(state, _market([a, b], np.ones(26)), s1, delivered, cols, prefs)
    assert (choice >= 0).all()
    assert (choice == 0).mean() == pytest.approx(0.5, abs=0.05)


def test_a_rivals_channel_promotion_does_not_reach_a_lead_its_ads_did_not_bring(state, gidx):
    s1 = gidx["S1"]
    delivered = _delivered(s1)
    cols, prefs = _leads(s1, 1)
    rival = _priced(state, [50.0, 50.0, 50.0])
    rival.lead_promo_by_channel[0] = 40.0
    organic = best_surplus(state, rival, delivered[s1], s1, cols, prefs, np.array([SOURCE_ORGANIC]))
    via_channel = best_surplus(state, rival, delivered[s1], s1, cols, prefs, np.array([0]))
    assert via_channel[0] > organic[0]


def test_a_cancelling_subscriber_who_knows_a_better_rival_switches_with_its_persona(state, gidx, add_customer):
    s1 = gidx["S1"]
    delivered = _delivered(s1)
    persona = {"group": s1, "c_max": 100.0, "q_min": 0.2, "q_max": 0.8, "usage_demand": 80.0, "seats": 1.0}
    leaving = np.array([add_customer(state, **persona, reply_mean=float(i)) for i in range(5)])
    state.settings = _priced(state, [20.0, 20.0, 20.0])  # its own offer does not count: it is leaving
    known = Rival(1, _priced(state, [30.0, 30.0, 30.0]), delivered, np.full(26, 1e12), np.zeros(26))
    unknown = Rival(2, _priced(state, [1.0, 1.0, 1.0]), delivered, np.zeros(26), np.zeros(26))
    moved = switchers(state, _market([known, unknown], np.ones(26)), delivered, np.zeros(26), np.zeros(26), leaving)
    ((seat, group, cols, kind),) = moved
    assert (seat, group, kind) == (1, s1, "churner")
    assert cols["reply_mean"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and set(cols) >= set(PERSONA)
    assert (cols["source"] == SOURCE_ORGANIC).all()


def test_a_cancelling_subscriber_no_rival_satisfies_goes_nowhere(state, gidx, add_customer):
    s1 = gidx["S1"]
    delivered = np.zeros((26, 3))
    leaving = np.array([add_customer(state, group=s1, c_max=100.0, q_min=0.2, q_max=0.8, usage_demand=80.0)])
    worse = Rival(1, _priced(state, [30.0, 30.0, 30.0]), delivered, np.full(26, 1e12), np.zeros(26))  # quality 0
    assert switchers(state, _market([worse], np.ones(26)), delivered, np.zeros(26), np.zeros(26), leaving) == []


def test_an_admitted_enterprise_lead_tenders_at_the_rivals_it_knows(state, gidx, add_customer):
    e1 = gidx["E1"]
    leads = np.array([add_customer(state, group=e1, seats=40.0, reply_mean=float(i)) for i in range(300)])
    known = Rival(1, state.settings, np.zeros((26, 3)), np.full(26, 1.0), np.zeros(26))
    unknown = Rival(2, state.settings, np.zeros((26, 3)), np.zeros(26), np.zeros(26))
    moved = tenders(state, _market([known, unknown], np.full(26, 3.0)), e1, leads)
    ((seat, group, cols, kind),) = moved
    assert (seat, group, kind) == (1, e1, "tender")
    assert len(cols["origin"]) == pytest.approx(
        300 * 1.0 / (1.0 + 3.0), abs=25
    )  # aware with reach_j / (reach_j + reach_k)
    assert (cols["reply_mean"] == cols["origin"].astype(float)).all() and (cols["seats"] == 40.0).all()
