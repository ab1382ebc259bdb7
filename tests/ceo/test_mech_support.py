"""Support issues: resolution pools, relationship, generation (paper eq 20-21; reference-notes §4.9-4.10)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world import customers
from bizbench.envs.ceo.world.customers import CANCELLED, LOST, SUBSCRIBED
from bizbench.envs.ceo.world.state import WorldState
from bizbench.envs.ceo.world.support import close_churned_issues, run_support


def _issue_customer(state, add_customer, group, days, rel=0.5, **kw):
    return add_customer(state, group=group, issue_days=days, relationship=rel, **kw)


def test_resolution_pool_means_and_relationship(state, params, add_customer, fake_rng, gidx):
    """Ref §4.9: global pool mean_g = (2 + s_g x_ops) n_g / P with s_g = 0.6 (IND) / 0.1 (ENT).
    Resolved after 1 day open: relationship +0.40 (cap 1); after 2 days: +0.30; later: 0.
    Unresolved: open days + 1, relationship - 0.01 (floor 0)."""
    s1, e1 = gidx["S1"], gidx["E1"]
    state.settings.operations = 10.0
    c = [
        _issue_customer(state, add_customer, s1, 1, rel=0.5),
        _issue_customer(state, add_customer, s1, 2, rel=0.5),
        _issue_customer(state, add_customer, s1, 3, rel=0.5),
        _issue_customer(state, add_customer, e1, 1, rel=0.8),
        _issue_customer(state, add_customer, e1, 4, rel=0.005),
    ]
    active = np.array(c)
    resolved_counts = np.zeros(26)
    resolved_counts[s1] = 3
    resolved_counts[e1] = 1
    rng = fake_rng(poisson=[resolved_counts], random=[[]])
    out = run_support(state, params, rng, active, np.full(5, 0.5), outage=False)
    lam = rng.poisson_lams[0]
    assert lam[s1] == pytest.approx((2 + 0.6 * 10) * 3 / 5)
    assert lam[e1] == pytest.approx((2 + 0.1 * 10) * 2 / 5)
    cust = state.customers
    assert sorted(out.resolved.tolist()) == [c[0], c[1], c[2], c[3]]
    assert cust.relationship[c] == pytest.approx([0.9, 0.8, 0.5, 1.0, 0.0])
    assert list(cust.issue_days[c]) == [0, 0, 0, 0, 5]
    assert len(out.opened) == 0  # only customers without an open issue at day start


def test_no_relationship_boost_on_outage_day(state, params, add_customer, fake_rng, gidx):
    """Ref §4.9: the +0.40 / +0.30 boosts need no outage that day."""
    s1 = gidx["S1"]
    c = [_issue_customer(state, add_customer, s1, 1), _issue_customer(state, add_customer, s1, 2)]
    counts = np.zeros(26)
    counts[s1] = 2
    rng = fake_rng(poisson=[counts], random=[[]])
    run_support(state, params, rng, np.array(c), np.full(2, 0.5), outage=True)
    assert state.customers.relationship[c] == pytest.approx([0.5, 0.5])
    assert list(state.customers.issue_days[c]) == [0, 0]


def test_targeted_pool_mean_has_no_base(state, params, add_customer, fake_rng, gidx):
    """Ref §4.9: targeted pools take the still-unresolved in scope, mean = s_g spend n_g / P."""
    s1, s2 = gidx["S1"], gidx["S2"]
    state.settings.ops_by_group[s1] = 20.0
    c = [_issue_customer(state, add_customer, g, 1) for g in (s1, s1, s1, s2)]
    first = np.zeros(26)
    first[s1] = 1  # global pool resolves one S1 customer
    second = np.zeros(26)
    second[s1] = 2
    rng = fake_rng(poisson=[first, second], random=[[]])
    out = run_support(state, params, rng, np.array(c), np.full(4, 0.5), outage=False)
    assert rng.poisson_lams[0][s1] == pytest.approx(2.0 * 3 / 4)
    assert rng.poisson_lams[1][s1] == pytest.approx(0.6 * 20.0 * 2 / 2)
    assert rng.poisson_lams[1][s2] == 0.0
    assert sorted(out.resolved.tolist()) == c[:3]


def test_issue_probability_cases(state, params, add_customer, fake_rng, gidx):
    """Eq 20 / reference-notes §4.9: P = clip((0.01 + 0.15 (1 - S_prev) + 0.25 1[outage]) seats, 0, 0.4), with whole
    seats (3.9 drifted seats read as 3, §4.17)."""
    s1, e1 = gidx["S1"], gidx["E1"]
    cases = [  # (group, seats, S_prev)
        (s1, 1, 0.5),
        (s1, 1, -1.0),
        (s1, 1, -3.0),
        (e1, 3.9, 0.9),
        (e1, 100, 0.9),
        (s1, 1, 2.0),
    ]
    for outage in (False, True):
        st = type(state)(config=state.config, seed=1)
        idx = np.array([add_customer(st, group=g, seats=n) for g, n, _ in cases])
        sprev = np.array([s for *_, s in cases])
        probs = [min(0.4, max(0.0, (0.01 + 0.15 * (1 - s) + 0.25 * outage) * math.floor(n))) for _, n, s in cases]
        if not outage:
            assert probs == pytest.approx([0.085, 0.31, 0.4, 0.075, 0.4, 0.0])
        # a draw just below p opens an issue; just above does not
        for below in (True, False):
            st.customers.issue_days[idx] = 0
            draws = [max(0.0, p - 1e-9) if below else p + 1e-9 for p in probs]
            out = run_support(st, params, fake_rng(poisson=[], random=[draws]), idx, sprev, outage)
            exp = [i for i, p in zip(idx, probs, strict=True) if below and p > 0]
            assert sorted(out.opened.tolist()) == exp
            assert all(st.customers.issue_days[exp] == 1)


def test_issue_rate_statistical(state, params, add_customer):
    """Eq 20 with real draws: 20,000 individual subscribers at S = 0.5, no outage -> 0.085."""
    n = 20_000
    idx = state.customers.append(n, {"group": np.zeros(n), "status": np.full(n, SUBSCRIBED)})
    out = run_support(state, params, np.random.default_rng(5), idx, np.full(n, 0.5), False)
    p = 0.085
    assert abs(len(out.opened) / n - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("threaded", [False, True])
def test_new_issues_in_many_blocks_take_the_same_draws_as_in_one(state, params, monkeypatch, threaded):
    """A day's new issues in blocks of 1,000 customers (some with an issue open, so each block's first draw
    depends on the blocks before it), one after the other or on the block threads, are those of one block:
    each subscriber with no issue open takes the next uniform in row order."""
    n = 5_500
    idx = state.customers.append(n, {"group": np.zeros(n), "status": np.full(n, SUBSCRIBED)})
    open_before = np.random.default_rng(4).random(n) < 0.3
    s_before = np.random.default_rng(6).random(n)
    opened = {}
    for block in (1 << 19, 1_000):
        monkeypatch.setattr(customers, "BLOCK", block)
        if threaded and block == 1_000:
            monkeypatch.setattr(customers, "THREADED_ROWS", 2_000)
            monkeypatch.setenv(customers.THREADS_VAR, "2")
        state.customers.issue_days[idx] = np.where(open_before, 2, 0)
        opened[block] = run_support(state, params, np.random.default_rng(9), idx, s_before, True).opened
    assert len(opened[1_000]) > 100 and opened[1_000].tolist() == opened[1 << 19].tolist()


def test_resolution_count_statistical(state, params):
    """Eq 21 with real draws: 100 open S1 issues, ops $5 -> Poisson mean (2 + 3) = 5."""
    n = 100
    idx = state.customers.append(n, {"group": np.zeros(n), "status": np.full(n, SUBSCRIBED)})
    rng = np.random.default_rng(11)
    state.settings.operations = 5.0
    trials = 2_000
    total = 0
    for _ in range(trials):
        state.customers.issue_days[idx] = 3
        out = run_support(state, params, rng, idx, np.full(n, 0.5), False)
        total += len(out.resolved)
    assert abs(total / trials - 5.0) < 4 * math.sqrt(5.0 / trials)


def test_a_customer_who_leaves_has_its_open_issue_closed(state, params, add_customer, fake_rng, gidx):
    """Resolution draws only from subscribers (eq 21), so an issue left open at churn would never close:
    close_churned_issues closes the issues of every customer no longer subscribed, and only theirs."""
    s1 = gidx["S1"]
    staying = _issue_customer(state, add_customer, s1, 3)
    cancelled = _issue_customer(state, add_customer, s1, 5, status=CANCELLED, issue_open_day=2)
    lost = _issue_customer(state, add_customer, s1, 1, status=LOST, issue_open_day=6)
    quiet = add_customer(state, group=s1, status=CANCELLED)
    cust = state.customers
    cust.issue_open_day[staying] = 4
    rel = cust.relationship.copy()

    closed = close_churned_issues(state)

    assert sorted(closed.tolist()) == [cancelled, lost]
    assert list(cust.issue_days[[staying, cancelled, lost, quiet]]) == [3, 0, 0, 0]
    assert list(cust.issue_open_day[[staying, cancelled, lost, quiet]]) == [4, -1, -1, -1]
    assert np.array_equal(cust.relationship, rel)  # a closure is not a fix: no relationship change
    assert len(close_churned_issues(state)) == 0  # closing twice closes nothing more
    # the staying subscriber is still in the next day's resolution pool, alone
    counts = np.zeros(26)
    rng = fake_rng(poisson=[counts], random=[[]])
    run_support(state, params, rng, np.array([staying]), np.full(1, 0.5), outage=False)
    assert rng.poisson_lams[0][s1] == pytest.approx(2.0)


def test_an_issue_fixed_on_its_second_open_day_is_the_last_to_lift_the_relationship(
    state, params, add_customer, fake_rng, gidx
):
    """Ref §4.9-4.10: a fix within 1 or 2 days adds 0.40 / 0.30, later fixes add nothing, and
    each unresolved day costs 0.01. Two issues opened the same day (open 1 day, r = 0.5):
    day 1 neither is fixed (both open 2 days, r = 0.49); day 2 the S1 one is fixed on its second
    open day, the last with a lift: 0.49 + 0.30 = 0.79, the S2 one stays open (3 days, 0.48);
    day 3 the S2 one is fixed on its third open day, the first late one: no lift, 0.48."""
    s1, s2 = gidx["S1"], gidx["S2"]
    a = _issue_customer(state, add_customer, s1, 1, rel=0.5)
    b = _issue_customer(state, add_customer, s2, 1, rel=0.5)
    active, cust = np.array([a, b]), state.customers

    def day(fixed_in: list[int], random: list[float]) -> None:
        counts = np.zeros(26)
        counts[fixed_in] = 1
        run_support(state, params, fake_rng(poisson=[counts], random=[random]), active, np.full(2, 0.5), False)

    day([], [])
    assert list(cust.issue_days[[a, b]]) == [2, 2]
    assert cust.relationship[[a, b]] == pytest.approx([0.49, 0.49], abs=1e-12)
    day([s1], [])
    assert list(cust.issue_days[[a, b]]) == [0, 3]
    assert cust.relationship[[a, b]] == pytest.approx([0.79, 0.48], abs=1e-12)
    day([s2], [0.99])  # a has no issue now: its draw 0.99 is above P = 0.01 + 0.15 x 0.5 = 0.085
    assert list(cust.issue_days[[a, b]]) == [0, 0]
    assert cust.relationship[[a, b]] == pytest.approx([0.79, 0.48], abs=1e-12)


def test_plan_group_plan_and_customer_pools_draw_only_from_their_still_open_issues(
    state, params, add_customer, fake_rng, gidx
):
    """Ref §4.9: after the global pool come the targeted pools, each with no base and only the
    still-unresolved issues in its scope: by plan, by group-plan, by customer; mean = s_g x n_g / |P|.
    Pool (open 3 days): a S1/plan 0, b S1/plan 1, c S2/plan 1, d E1/plan 1, e S2/plan 0; no
    operations spend, so the global mean is 2 n_g / 5 and it resolves nobody. Spends of $1 or less
    are still spends (a $1 plan pool, a $0.50 group-plan pool, $1 and $0.25 customer pools)."""
    s1, s2, e1 = gidx["S1"], gidx["S2"], gidx["E1"]
    plans = [(s1, 0), (s1, 1), (s2, 1), (e1, 1), (s2, 0)]
    a, b, c, d, e = (_issue_customer(state, add_customer, g, 3, plan=p) for g, p in plans)
    st = state.settings
    st.ops_by_plan[1] = 1.0
    st.ops_by_group_plan[s1, 0] = 0.5
    st.ops_by_customer = {int(d): 1.0, int(c): 0.25}
    by_plan = np.zeros(26)
    by_plan[s2] = 1  # the plan-1 pool (b, c, d) resolves c
    group_plan = np.zeros(26)
    group_plan[s1] = 1  # the S1 / plan 0 pool (a alone) resolves a
    customer_d = np.zeros(26)
    customer_d[e1] = 1  # d's own pool resolves d; c's pool is skipped, c is already resolved
    rng = fake_rng(poisson=[np.zeros(26), by_plan, group_plan, customer_d], random=[[]])
    out = run_support(state, params, rng, np.array([a, b, c, d, e]), np.full(5, 0.5), outage=False)

    assert len(rng.poisson_lams) == 4
    glob, plan1, gp, cust_d = rng.poisson_lams
    assert (glob[s1], glob[s2], glob[e1]) == pytest.approx((2 * 2 / 5, 2 * 2 / 5, 2 * 1 / 5))
    assert (plan1[s1], plan1[s2], plan1[e1]) == pytest.approx((0.6 * 1 / 3, 0.6 * 1 / 3, 0.1 * 1 / 3))
    assert np.count_nonzero(plan1) == 3
    assert gp[s1] == pytest.approx(0.6 * 0.5) and np.count_nonzero(gp) == 1
    assert cust_d[e1] == pytest.approx(0.1 * 1.0) and np.count_nonzero(cust_d) == 1
    assert sorted(out.resolved.tolist()) == [a, c, d]
    assert list(state.customers.issue_days[[a, b, c, d, e]]) == [0, 4, 0, 0, 4]


def test_a_group_resolves_only_its_own_members_in_pool_order(state, params, add_customer, fake_rng, gidx):
    """Eq 21: a group's resolved issues are drawn from that group's open issues. The members are
    handed to the draw in pool order whatever the machine (a stable sort), so a seed replays the
    same. Here the draw takes the LAST k members it is given: 40 open issues alternating S1 / S2,
    the global pool resolves 3 of S1 and none of S2: the last three S1 customers."""

    class LastChoice(fake_rng):
        def choice(self, a, size=None, replace=True):
            return np.asarray(a)[-int(size) :]

    s1, s2 = gidx["S1"], gidx["S2"]
    idx = [_issue_customer(state, add_customer, (s1, s2)[i % 2], 3) for i in range(40)]
    counts = np.zeros(26)
    counts[s1] = 3
    rng = LastChoice(poisson=[counts], random=[[]])
    out = run_support(state, params, rng, np.array(idx), np.full(40, 0.5), outage=False)
    assert sorted(out.resolved.tolist()) == [idx[34], idx[36], idx[38]]


def test_a_pool_drawn_to_its_cap_resolves_every_issue_in_it(state, params, add_customer, gidx):
    """Eq 21: N_resolved is capped at n_g and the resolved customers are distinct (drawn without
    replacement). Two open S1 issues and $10,000 of operations: the Poisson mean is about 3,000,
    so every day both are resolved, on 30 days with real draws."""
    s1 = gidx["S1"]
    c = [_issue_customer(state, add_customer, s1, 3) for _ in range(2)]
    state.settings.operations = 10_000.0
    rng = np.random.default_rng(3)
    for _ in range(30):
        state.customers.issue_days[c] = 3
        out = run_support(state, params, rng, np.array(c), np.full(2, 1.0), outage=False)
        assert sorted(out.resolved.tolist()) == c


def test_a_resolved_issue_forgets_its_open_day_and_a_new_one_records_today(state, params, add_customer, fake_rng, gidx):
    """The issues table's open day: -1 once resolved (no open issue), the day of the draw for a new
    one; an unresolved issue keeps its open day."""
    s1 = gidx["S1"]
    state.day = 12
    fixed = _issue_customer(state, add_customer, s1, 2, issue_open_day=10)
    waiting = _issue_customer(state, add_customer, s1, 2, issue_open_day=10)
    fresh = add_customer(state, group=s1)
    counts = np.zeros(26)
    counts[s1] = 1
    rng = fake_rng(poisson=[counts], random=[[0.0]])
    out = run_support(state, params, rng, np.array([fixed, waiting, fresh]), np.full(3, 0.5), outage=False)
    assert out.resolved.tolist() == [fixed] and out.opened.tolist() == [fresh]
    assert list(state.customers.issue_open_day[[fixed, waiting, fresh]]) == [-1, 10, 12]
    assert list(state.customers.issue_days[[fixed, waiting, fresh]]) == [0, 3, 1]


def test_a_group_pool_of_one_dollar_still_draws(state, params, add_customer, fake_rng, gidx):
    """Ref §4.9: any targeted spend above zero opens its pool: $1 on S1 for one open S1 issue gives
    mean 0.6 x 1 x 1 / 1 = 0.6 after a global pool (mean 2) that resolved nobody."""
    s1 = gidx["S1"]
    state.settings.ops_by_group[s1] = 1.0
    c = _issue_customer(state, add_customer, s1, 3)
    group = np.zeros(26)
    group[s1] = 1
    rng = fake_rng(poisson=[np.zeros(26), group], random=[[]])
    out = run_support(state, params, rng, np.array([c]), np.full(1, 0.5), outage=False)
    assert [lam[s1] for lam in rng.poisson_lams] == pytest.approx([2.0, 0.6])
    assert out.resolved.tolist() == [c]


@pytest.mark.parametrize(("zero_kept", "expected"), [(True, [0.4, 0.0, 0.0, 0.29]), (False, [0.9, 0.0, 0.49, 0.29])])
def test_a_relationship_decayed_to_zero_restarts_from_half_in_the_engine(
    cfg, params, add_customer, fake_rng, gidx, zero_kept, expected
):
    """Ref §4.10: the engine reads a relationship of exactly 0 as 0.5 (``r or 0.5``) before the
    day's fast-fix boost or decay, so a neglected customer jumps back to 0.49; with
    ``fixes.relationship_zero_kept`` 0 stays 0. A slow fix (3 days open) leaves it as stored,
    and a relationship above 0 decays the same either way."""
    fixes = cfg.fixes.model_copy(update={"relationship_zero_kept": zero_kept})
    state = WorldState(config=cfg.model_copy(update={"fixes": fixes}), seed=1)
    s1 = gidx["S1"]
    c = [
        _issue_customer(state, add_customer, s1, 1, rel=0.0),  # fixed after a day: +0.40
        _issue_customer(state, add_customer, s1, 3, rel=0.0),  # fixed after 3 days: no boost
        _issue_customer(state, add_customer, s1, 9, rel=0.0),  # stays open
        _issue_customer(state, add_customer, s1, 9, rel=0.3),  # stays open
    ]
    counts = np.zeros(26)
    counts[s1] = 2  # the fake draw resolves the first two of the pool
    rng = fake_rng(poisson=[counts], random=[[]])
    out = run_support(state, params, rng, np.array(c), np.full(4, 0.5), outage=False)
    assert sorted(out.resolved.tolist()) == c[:2]
    assert state.customers.relationship[c] == pytest.approx(expected)


def test_the_callers_open_issue_flags_give_the_day_support_would_read_itself(state, params):
    """``run_support`` given the open-issue flags the world read for the posts resolves and opens exactly
    what it does when it reads them itself (the flags are read once a day, ``World.step_day``)."""
    n = 3_000
    idx = state.customers.append(n, {"group": np.arange(n) % 3, "status": np.full(n, SUBSCRIBED)})
    issue_days = np.where(np.random.default_rng(2).random(n) < 0.3, 2, 0)
    s_before = np.random.default_rng(3).random(n)
    state.settings.operations = 20.0
    days = []
    for flags in (None, "given"):
        state.customers.issue_days[idx] = issue_days
        state.customers.relationship[idx] = 0.5
        has_issue = None if flags is None else state.customers.open_issue(idx)
        out = run_support(state, params, np.random.default_rng(8), idx, s_before, False, has_issue)
        days.append((out.opened.tolist(), out.resolved.tolist(), state.customers.issue_days[idx].tolist()))
    assert len(days[0][0]) > 50 and len(days[0][1]) > 5
    assert days[0] == days[1]
    state.customers.issue_days[idx] = issue_days  # flags that say no issue is open: nothing to resolve
    nobody = np.zeros(n, dtype=bool)
    assert len(run_support(state, params, np.random.default_rng(8), idx, s_before, False, nobody).resolved) == 0
