"""Daily satisfaction EMA (paper eq 16-17; reference-notes §4.7 daily variant, §4.8)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.satisfaction import update_satisfaction

N = 26


def sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def test_daily_satisfaction_hand_computed(state, add_customer):
    """Ref §4.7 daily variant / §4.8: S <- 0.9 S + 0.1 ((Del - svc + RB + TB) F - IP - AP -
    Q_req(effective price)); F uses demand r W(d); the ad load includes the customer term;
    budget = c_max (+ group c-drift), q band + G + q_g."""
    state.day = 9  # W = 1.15
    state.settings.quotas[:] = [1e9, 92.0, 1e9]  # F = 92 / (100 x 1.15) = 0.8
    state.settings.ads_global = 0.05
    state.settings.ads_by_customer = {0: 0.05}  # s = 0.1 -> a = ln 1.9 / ln 10
    c = add_customer(
        state,
        group=0,
        plan=1,
        effective_price=30.0,
        c_max=100.0,
        q_min=0.2,
        q_max=0.8,
        s_left=1.0,
        s_right=1.0,
        relationship=0.7,
        start_day=9 - 60,
        issue_days=1,
        eta_ads=0.1,
        usage_rate=100.0,
        satisfaction=0.5,
    )
    assert c == 0
    delivered = np.zeros((N, 3))
    delivered[0, 1] = 0.6
    q_shift = np.zeros(N)
    q_shift[0] = 0.05
    c_drift = np.zeros(N)
    c_drift[0] = 10.0
    before = update_satisfaction(state, np.array([c]), delivered, q_shift, c_drift, 0.1)
    f = 92.0 / (100.0 * 1.15)  # 0.8
    a = math.log(1.9) / math.log(10)
    q_perc = (0.6 - 0.1 + 0.9 * 0.2 + 0.05 * math.log(3)) * f - 0.03 * 1 - 0.1 * a
    # budget 100 + 10 = 110; band [0.25, 0.85]; x = 30 / 110 < 0.5
    req = 0.25 + 0.3 * sig(10 * (30 / 110 - 0.25))
    exp = 0.9 * 0.5 + 0.1 * (q_perc - req)
    assert before.tolist() == [0.5]
    assert state.customers.satisfaction[c] == pytest.approx(exp, abs=1e-12)
    assert state.customers.satisfaction_change[c] == pytest.approx(exp - 0.5, abs=1e-12)


#: a customer at the billing snapshot's budget: price $45, stored budget $90 (list budget $300), band
#: [0.2, 0.8], symmetric slopes, plan A in group 0, joined on day 7 at satisfaction 0
SNAPSHOT_CUSTOMER = dict(
    group=0,
    plan=0,
    effective_price=45.0,
    c_max=300.0,
    effective_c_max=90.0,
    q_min=0.2,
    q_max=0.8,
    s_left=1.0,
    s_right=1.0,
    start_day=7,
    satisfaction=0.0,
)
#: its requirement on day 7: budget 90 + group c-drift 10 = 100
SNAPSHOT_REQ = 0.2 + 0.3 * sig(10 * (45 / 100 - 0.25))


def _snapshot_day(state, active: list[int]) -> np.ndarray:
    """Day 7 (W = 1.0) without quotas: group 0's plan A delivers 0.5 and its c-drift is +10."""
    state.day = 7
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    delivered = np.zeros((N, 3))
    delivered[0, 0] = 0.5
    c_drift = np.zeros(N)
    c_drift[0] = 10.0
    return update_satisfaction(state, np.array(active), delivered, np.zeros(N), c_drift, 0.0)


def test_satisfaction_uses_billing_snapshot_budget(state, add_customer):
    """Ref §4.7: the daily read uses the stored effective_c_max when set (+ group c-drift)."""
    c = add_customer(state, **SNAPSHOT_CUSTOMER)
    _snapshot_day(state, [c])
    assert state.customers.satisfaction[c] == pytest.approx(0.1 * (0.5 - SNAPSHOT_REQ), abs=1e-12)


def test_the_stored_requirement_follows_a_price_change_and_a_market_move(state, add_customer):
    """Q_req is kept between days (``satisfaction_q_req``): a billing that stores a new price (marked by
    ``forget_requirement``) and a move of the group c-drift each reach the next day's requirement.
    Price $45 -> $60: budget 100, x = 0.6, the right half 0.5 + 0.3 sig(10 (0.6 - 0.75)); c-drift 10 -> 20:
    budget 110, x = 60 / 110."""
    c = add_customer(state, **SNAPSHOT_CUSTOMER)
    _snapshot_day(state, [c])
    assert state.customers.satisfaction_q_req[c] == pytest.approx(SNAPSHOT_REQ, abs=1e-12)
    state.customers.effective_price[c] = 60.0
    state.customers.forget_requirement(np.array([c]))
    _snapshot_day(state, [c])
    assert state.customers.satisfaction_q_req[c] == pytest.approx(0.5 + 0.3 * sig(10 * (0.6 - 0.75)), abs=1e-12)
    c_drift = np.zeros(N)
    c_drift[0] = 20.0
    update_satisfaction(state, np.array([c]), np.zeros((N, 3)), np.zeros(N), c_drift, 0.0)
    moved = 0.5 + 0.3 * sig(10 * (60 / 110 - 0.75))
    assert state.customers.satisfaction_q_req[c] == pytest.approx(moved, abs=1e-12)


def test_a_day_without_active_customers_returns_no_satisfaction_and_changes_none(state, add_customer):
    """update_satisfaction returns S before the update of each active customer: none when no customer
    is active, and a customer outside the active set keeps its satisfaction."""
    c = add_customer(state, group=0, plan=0, satisfaction=0.3)
    before = update_satisfaction(state, np.array([], dtype=np.int64), np.zeros((N, 3)), np.zeros(N), np.zeros(N), 0.0)
    assert before.shape == (0,)
    assert state.customers.satisfaction[c] == 0.3


def test_every_active_customer_is_updated_once(state, add_customer):
    """Ref §4.8: one EMA step a day per customer: two customers as in the snapshot test above each move
    once to 0.1 (0.5 - Q_req) from 0, and S before the update comes back once per customer."""
    idx = [add_customer(state, **SNAPSHOT_CUSTOMER) for _ in range(2)]
    before = _snapshot_day(state, idx)
    assert before.tolist() == [0.0, 0.0]
    assert state.customers.satisfaction[idx] == pytest.approx([0.1 * (0.5 - SNAPSHOT_REQ)] * 2, abs=1e-12)


def test_an_active_customer_is_judged_by_its_own_band_and_budget_not_another_customers(state, add_customer):
    """Ref §4.8: Q_req uses the active customer's own quality band and budget. A customer who is
    not active today comes first, with another band and budget; the active one moves as in the
    test above, to 0.1 (0.5 - Q_req) with Q_req = 0.2 + 0.3 sig(10 (45 / 100 - 0.25)), and the
    other keeps its satisfaction."""
    other_band = dict(c_max=30.0, effective_c_max=30.0, q_min=0.6, q_max=0.9, satisfaction=0.3)
    other = add_customer(state, **{**SNAPSHOT_CUSTOMER, **other_band})
    active = add_customer(state, **SNAPSHOT_CUSTOMER)
    _snapshot_day(state, [active])
    assert state.customers.satisfaction[active] == pytest.approx(0.1 * (0.5 - SNAPSHOT_REQ), abs=1e-12)
    assert state.customers.satisfaction[other] == 0.3


@pytest.mark.parametrize("zero_kept", [True, False])
def test_the_engine_reads_a_relationship_of_zero_as_half_in_daily_satisfaction(cfg, add_customer, zero_kept):
    """Ref §4.10: with ``fixes.relationship_zero_kept`` off, a customer at relationship 0 is as
    satisfied as one at 0.5 (the engine's ``r or 0.5``); with it on, 0.9 x 0.5 less perceived quality."""
    from bizbench.envs.ceo.world.state import WorldState

    fixes = cfg.fixes.model_copy(update={"relationship_zero_kept": zero_kept})
    state = WorldState(config=cfg.model_copy(update={"fixes": fixes}), seed=1)
    state.day = 9
    common = {"group": 0, "plan": 0, "effective_price": 10.0, "c_max": 100.0, "q_min": 0.2, "q_max": 0.8}
    zero = add_customer(state, relationship=0.0, start_day=9, satisfaction=0.0, **common)
    half = add_customer(state, relationship=0.5, start_day=9, satisfaction=0.0, **common)
    delivered = np.full((N, 3), 0.6)
    update_satisfaction(state, np.array([zero, half]), delivered, np.zeros(N), np.zeros(N), 0.0)
    gap = state.customers.satisfaction[half] - state.customers.satisfaction[zero]
    assert gap == pytest.approx(0.1 * 0.9 * 0.5 if zero_kept else 0.0, abs=1e-12)


@pytest.mark.parametrize("agent", ["random", "rule-based"])
def test_the_stored_requirement_equals_a_fresh_one_every_day_of_a_run(agent, monkeypatch):
    """The kept Q_req (``daily_requirement``) is forgotten wherever its inputs change: on every day of ten
    weeks of a baseline that changes prices, promotions, quotas and spend, it equals one computed anew."""
    from bizbench.envs.ceo.baselines import make_policy
    from bizbench.envs.ceo.env import CeoEnv
    from bizbench.envs.ceo.world import satisfaction

    kept = satisfaction.daily_requirement
    days = []

    def checked(state, active, q_shift_by_group, c_drift_group):
        kept(state, active, q_shift_by_group, c_drift_group)
        stored = state.customers.satisfaction_q_req[active]
        state.customers.forget_requirement(active)
        kept(state, active, q_shift_by_group, c_drift_group)
        assert np.array_equal(stored, state.customers.satisfaction_q_req[active]), state.day
        days.append(len(active))

    monkeypatch.setattr(satisfaction, "daily_requirement", checked)
    env = CeoEnv.from_preset("default", seed=3, horizon_days=70)
    policy = make_policy(agent, seed=3) if agent == "random" else make_policy(agent)
    while not env.done:
        policy.act(env)
        band = {"point": 1e6, "lower": 0.0, "upper": 2e6}
        forecast = {k: band for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")}
        assert env.call("next_week", rationale="test", predictions=forecast).ok
    assert len(days) >= 30 and max(days) > (100 if agent == "rule-based" else 0)
