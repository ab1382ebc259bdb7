"""The compiled kernels (world/kernels.pyx) against numpy expressions of the same formulas: identical to
the last bit on random rows with the awkward values (NaN, zeros, negative satisfaction, no demand, ads),
which is what lets them replace numpy passes without moving any figure (docs/performance.md)."""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.ceo.world import kernels

N_ROWS, N_GROUPS, N_PLANS = 400, 5, 3


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.fixture
def columns():
    rng = np.random.default_rng(7)
    rate = rng.uniform(0.0, 300.0, N_ROWS)
    rate[::17] = 0.0  # no demand: F = 1
    rate[5] = np.nan
    satisfaction = rng.normal(0.0, 0.6, N_ROWS)
    satisfaction[::23] = 0.0
    relationship = rng.uniform(0.0, 1.0, N_ROWS)
    relationship[::11] = 0.0  # read as 0.5 unless kept
    return {
        "rows": np.sort(rng.choice(N_ROWS, 250, replace=False)).astype(np.int64),
        "group": rng.integers(0, N_GROUPS, N_ROWS).astype(np.int16),
        "plan": rng.integers(0, N_PLANS, N_ROWS).astype(np.int8),
        "rate": rate,
        "quotas": np.array([40.0, 120.0, 0.0]),
        "relationship": relationship,
        "start_day": rng.integers(-3, 60, N_ROWS).astype(np.int32),
        "issue_days": rng.integers(0, 4, N_ROWS).astype(np.int32) * (rng.random(N_ROWS) < 0.3),
        "q_req": rng.uniform(-0.2, 0.9, N_ROWS),
        "satisfaction": satisfaction,
        "seats": np.floor(rng.uniform(1.0, 40.0, N_ROWS)),
        "price": rng.uniform(0.0, 90.0, N_ROWS),
        "billing_mod": rng.integers(0, 30, N_ROWS).astype(np.int8),
    }


def test_usage_is_round_min_rate_times_w_quota_as_numpy_computes_it(columns):
    c = columns
    rows, w = c["rows"], 1.15
    today, period = np.zeros(N_ROWS), np.full(N_ROWS, 3.0)
    units = np.empty(len(rows))
    kernels.usage(rows, c["rate"], c["plan"], c["quotas"], w, today, period, units)
    want = np.floor(np.minimum(c["rate"][rows] * w, c["quotas"][c["plan"][rows]]) + 0.5)
    assert _bits(units) == _bits(want) and np.isnan(units).any()
    assert _bits(today[rows]) == _bits(want) and _bits(period[rows]) == _bits(3.0 + want)
    untouched = np.setdiff1d(np.arange(N_ROWS), rows)
    assert not today[untouched].any() and (period[untouched] == 3.0).all()
    by_plan = np.zeros(N_PLANS)
    kernels.sum_by_plan(rows[want == want], c["plan"], want[want == want], by_plan)
    assert by_plan.tolist() == np.bincount(c["plan"][rows][want == want], weights=want[want == want]).tolist()


@pytest.mark.parametrize("zero_kept", [False, True])
@pytest.mark.parametrize("with_ads", [False, True])
def test_the_satisfaction_update_is_the_quality_modules_formula_bit_for_bit(columns, zero_kept, with_ads):
    """The daily update against eq 15-17 as ``quality.py`` writes it (``perceived_quality``,
    ``quota_factor``, ``relationship_as_read``, ``tenure_bonus``), which billing and the enterprise
    deals still use: the two stay one formula."""
    from bizbench.envs.ceo.config import Quality
    from bizbench.envs.ceo.world.quality import perceived_quality, quota_factor, relationship_as_read, tenure_bonus

    c = columns
    rows, day, w, svc, new_weight, q = c["rows"], 57, 0.85, 0.12, 0.1, Quality()
    quotas = np.array([40.0, -0.0, np.inf])  # a signed zero and no limit
    rng = np.random.default_rng(3)
    delivered = rng.uniform(0.2, 0.9, (N_GROUPS, N_PLANS))
    ads = rng.uniform(0.0, 0.2, len(rows)) if with_ads else np.empty(0)
    longest = kernels.longest_tenure(rows, c["start_day"], day)
    assert longest == int(np.max(day - c["start_day"][rows]))
    tenure = tenure_bonus(np.arange(longest + 1.0), q)
    satisfaction, change, before = c["satisfaction"].copy(), np.zeros(N_ROWS), np.empty(len(rows))
    columns_and_terms = (
        rows,
        c["group"],
        c["plan"],
        c["rate"],
        w,
        quotas,
        delivered.reshape(-1),
        N_PLANS,
        svc,
        (c["relationship"], q.relationship_neutral, q.relationship_weight, day, c["start_day"], tenure)
        + (c["issue_days"], q.issue_penalty, ads),  # the order of quality.perception_terms
        zero_kept,
        c["q_req"],
        new_weight,
        satisfaction,
        change,
    )
    kernels.satisfaction(*columns_and_terms, before)
    g, plan = c["group"][rows].astype(np.intp), c["plan"][rows].astype(np.intp)
    q_perc = perceived_quality(
        delivered[g, plan],
        relationship_as_read(c["relationship"][rows], zero_kept),
        day - c["start_day"][rows],
        c["issue_days"][rows],
        ads if with_ads else 0.0,
        quota_factor(quotas[plan], c["rate"][rows] * w),
        q,
        svc,
    )
    q_perc -= c["q_req"][rows]
    s0 = c["satisfaction"][rows]
    after = (1.0 - new_weight) * s0 + q_perc * new_weight
    assert _bits(before) == _bits(s0)
    assert _bits(satisfaction[rows]) == _bits(after) and np.isnan(after).any()
    assert _bits(change[rows]) == _bits(after - s0)
    untouched = np.setdiff1d(np.arange(N_ROWS), rows)
    assert _bits(satisfaction[untouched]) == _bits(c["satisfaction"][untouched])
    with pytest.raises(ValueError, match="before holds 3 values for 250 rows"):
        kernels.satisfaction(*columns_and_terms, before[:3])
    assert _bits(satisfaction[rows]) == _bits(after)  # the refused call changed nothing


def test_new_issues_are_the_rows_with_no_issue_open_whose_draw_is_below_their_clipped_chance(columns):
    """Eq 20: the k-th row with no issue open takes the k-th uniform; it opens an issue when the draw is
    below clip(P, 0, 0.4), numpy's comparison to the last bit (a -0.0 chance opens none, +inf clips to 0.4)."""
    c = columns
    rows = c["rows"]
    has_issue = (c["issue_days"][rows] > 0).view(np.uint8)
    flags = np.empty(len(rows), dtype=bool)
    kernels.positive(rows, c["issue_days"], flags.view(np.uint8))
    assert flags.tolist() == (c["issue_days"][rows] > 0).tolist()
    s_before = c["satisfaction"][rows].copy()
    s_before[:40:4], s_before[1:40:4], s_before[2:40:4] = 9.0, -np.inf, np.inf  # chances of -0.0, +inf, -inf
    seats = c["seats"].copy()
    seats[rows[:40:4]] = 0.0
    keep = ~flags
    nan_chance = 41 + int(np.flatnonzero(keep[41:])[0])  # a row with no issue open and a chance of NaN
    s_before[nan_chance] = np.nan
    chance = np.clip(((1.0 - s_before[keep]) * 0.15 + 0.01 + 0.0) * seats[rows[keep]], 0.0, 0.4)
    assert np.signbit(chance[chance == 0.0]).any()  # numpy keeps the -0.0 the bound equals
    uniforms = np.random.default_rng(3).random(int(keep.sum()))
    zero_chance = int(np.flatnonzero(chance == 0.0)[0])
    uniforms[:3] = np.nextafter(0.4, 0.0), 0.4, 0.4  # chances 0.4, -0.0, 0.4: below, not below, not below
    uniforms[zero_chance] = 0.0  # 0.0 is not below a chance of (-)0.0
    uniforms[int(keep[:nan_chance].sum())] = 0.0  # nor below a chance of NaN
    opened = np.full(len(rows), -1, dtype=np.int64)
    n = kernels.open_issues(rows, has_issue, s_before, seats, 0.15, 0.01, 0.0, 0.4, uniforms, opened)
    want = rows[keep][uniforms < chance]
    assert 0 < n < keep.sum() and opened[:n].tolist() == want.tolist()
    assert rows[keep][0] in want and rows[keep][1] not in want and rows[keep][2] not in want
    assert rows[keep][zero_chance] not in want and rows[nan_chance] not in want
    for wrong in (uniforms[:-1], np.append(uniforms, 0.5), uniforms[:0]):  # one draw too few, one too many, none
        with pytest.raises(ValueError, match=f"uniforms holds {len(wrong)} draws for {keep.sum()} rows"):
            kernels.open_issues(rows, has_issue, s_before, seats, 0.15, 0.01, 0.0, 0.4, wrong, opened)
    every_row_has_one = np.ones(len(rows), dtype=np.uint8)  # no draw to take, none opened
    assert (
        kernels.open_issues(rows, every_row_has_one, s_before, seats, 0.15, 0.01, 0.0, 0.4, uniforms[:0], opened) == 0
    )


@pytest.mark.parametrize("runs", [False, True])
def test_reputation_sums_are_numpy_s_bincount_of_each_term_with_the_negative_rate_below_zero(columns, runs):
    """Eq 22's delta_i, 0.001 S below zero and 0.0005 S above, summed by group in row order onto what
    ``sums`` held: numpy's bincount of the terms to the last bit (NaNs and -0.0 included), whether the
    groups change at every row or come in runs (the kernel adds a run in a register); a group with no
    row keeps its sum."""
    c = columns
    rows, s = c["rows"], c["satisfaction"].copy()
    s[rows[[3, 4]]], s[rows[7]] = (np.nan, -np.nan), -0.0
    groups = np.sort(c["group"][rows]).astype(np.intp) if runs else c["group"][rows].astype(np.intp)
    assert (s[rows] < 0).any() and (s[rows] > 0).any()
    held = np.linspace(-0.5, 0.5, N_GROUPS + 1)
    sums = held.copy()
    kernels.reputation_sums(rows, groups, s, 0.0005, 0.001, sums)
    terms = s[rows] * 0.0005
    np.multiply(s[rows], 0.001, out=terms, where=s[rows] < 0)
    want = held.copy()
    np.add.at(want, groups, terms)  # row order, onto the held sums
    assert _bits(sums) == _bits(want) and np.isnan(sums).any() and sums[N_GROUPS] == held[N_GROUPS]
    from_zero = np.zeros(N_GROUPS + 1)
    kernels.reputation_sums(rows, groups, s, 0.0005, 0.001, from_zero)
    assert _bits(from_zero) == _bits(np.bincount(groups, weights=terms, minlength=N_GROUPS + 1))
    with pytest.raises(ValueError, match="groups holds 3 values"):
        kernels.reputation_sums(rows, groups[:3], s, 0.0005, 0.001, sums)


def test_the_days_metrics_reads_count_accounts_enterprise_seats_and_open_issues(columns):
    c = columns
    rows, g = c["rows"], c["group"][c["rows"]]
    is_ent = np.array([False, True, False, True, False])
    sat, mrr = np.empty(len(rows)), np.empty(len(rows))
    accounts, seats = np.zeros(N_GROUPS, dtype=np.int64), np.zeros(N_GROUPS)
    open_issues = kernels.daily_metrics(
        rows,
        c["group"],
        is_ent.view(np.uint8),
        c["satisfaction"],
        c["price"],
        c["seats"],
        c["issue_days"],
        sat,
        mrr,
        accounts,
        seats,
    )
    assert _bits(sat) == _bits(c["satisfaction"][rows])
    assert _bits(mrr) == _bits(c["price"][rows] * c["seats"][rows])
    assert accounts.tolist() == np.bincount(g, minlength=N_GROUPS).tolist()
    ent = is_ent[g]
    assert seats.tolist() == np.bincount(g[ent], weights=c["seats"][rows][ent], minlength=N_GROUPS).tolist()
    assert open_issues == int(np.count_nonzero(c["issue_days"][rows] > 0))


def test_due_rows_groups_and_stale_positions_are_read_in_row_order(columns):
    c = columns
    rows = c["rows"]
    out = np.empty(len(rows), dtype=np.int64)
    n = kernels.due_rows(rows, c["billing_mod"], 12, out)
    assert out[:n].tolist() == rows[c["billing_mod"][rows] == 12].tolist() and n > 0
    groups, counts = np.empty(len(rows), dtype=np.intp), np.zeros(N_GROUPS, dtype=np.int64)
    kernels.groups_of(rows, c["group"], groups, counts)
    assert groups.tolist() == c["group"][rows].tolist()
    assert counts.tolist() == np.bincount(groups, minlength=N_GROUPS).tolist()
    again = np.zeros(N_GROUPS, dtype=np.int64)
    kernels.group_counts(rows, c["group"], again)
    assert again.tolist() == counts.tolist()
    q_req = c["q_req"].copy()
    q_req[rows[[0, 9, 40]]] = np.nan
    positions = np.empty(len(rows), dtype=np.int64)
    assert positions[: kernels.nan_positions(q_req, rows, positions)].tolist() == [0, 9, 40]


@pytest.mark.parametrize("n", [0, 1, 3, 5, 250])
def test_counts_and_whole_sums_by_group_add_to_what_the_arrays_held_whatever_the_rows(columns, n):
    # the kernels count into interleaved lanes (LANES in kernels.pyx) and add them up after the pass: a row count
    # that is not a multiple of the lanes, and runs of one group longer than them, count like bincount
    c = columns
    rows = c["rows"][:n]
    group = np.repeat(np.arange(N_GROUPS, dtype=np.int16), N_ROWS // N_GROUPS)  # runs of 80 rows
    g = group[rows]
    held = np.arange(N_GROUPS, dtype=np.int64) * 7
    want = (held + np.bincount(g, minlength=N_GROUPS)).tolist()
    counts, groups = held.copy(), np.empty(n, dtype=np.intp)
    kernels.group_counts(rows, group, counts)
    assert counts.tolist() == want
    counts = held.copy()
    kernels.groups_of(rows, group, groups, counts)
    assert counts.tolist() == want and groups.tolist() == g.tolist()
    is_ent = np.array([True, False, True, True, False])
    accounts, seats = held.copy(), np.full(N_GROUPS, 2.0)
    kernels.daily_metrics(
        rows,
        group,
        is_ent.view(np.uint8),
        c["satisfaction"],
        c["price"],
        c["seats"],
        c["issue_days"],
        np.empty(n),
        np.empty(n),
        accounts,
        seats,
    )
    ent = is_ent[g]
    assert accounts.tolist() == want
    assert seats.tolist() == (2.0 + np.bincount(g[ent], weights=c["seats"][rows][ent], minlength=N_GROUPS)).tolist()
    units, by_plan = np.floor(c["price"][rows]), np.full(N_PLANS, 1.0)
    kernels.sum_by_plan(rows, c["plan"], units, by_plan)
    assert by_plan.tolist() == (1.0 + np.bincount(c["plan"][rows], weights=units, minlength=N_PLANS)).tolist()


def test_the_rows_of_a_status_are_numpy_s_flatnonzero_of_it():
    """``rows_with`` writes every row and keeps a row only when its status matches: the rows are those of
    numpy's flatnonzero, at the start, in the middle and on the last row, and none when no row matches."""
    status = np.random.default_rng(3).integers(0, 5, 1_001).astype(np.int8)
    status[[0, 500, 1_000]] = 2
    out = np.empty(len(status), dtype=np.int64)
    n = kernels.rows_with(status, 2, out)
    assert out[:n].tolist() == np.flatnonzero(status == 2).tolist() and {0, 500, 1_000} <= set(out[:n].tolist())
    assert kernels.rows_with(np.full(7, 1, dtype=np.int8), 2, out) == 0
    with pytest.raises(ValueError, match="out holds 3 values for 7 rows"):
        kernels.rows_with(np.full(7, 2, dtype=np.int8), 2, out[:3])


def test_a_kernel_refuses_a_column_of_the_wrong_type(columns):
    """A column of another dtype is an error that names the mismatch, not a misread."""
    c = columns
    with pytest.raises(ValueError, match="dtype mismatch"):
        kernels.usage(
            c["rows"],
            c["rate"],
            c["plan"].astype(np.int64),
            c["quotas"],
            1.0,
            np.zeros(N_ROWS),
            np.zeros(N_ROWS),
            np.empty(len(c["rows"])),
        )


def test_the_participation_curve_is_the_numpy_two_sigmoid_bit_for_bit():
    """``curve.required_quality`` (two kernels around numpy's exp) against eq 5's numpy expression, on
    prices below, at and above the budget and steepnesses that clamp the exponent."""
    from bizbench.envs.ceo.config import Curve
    from bizbench.envs.ceo.world.curve import required_quality

    rng = np.random.default_rng(11)
    n = 2000
    c_max = rng.uniform(5.0, 80.0, n)
    price = c_max * rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, 1.3, rng.uniform()], n)
    q_min = rng.uniform(0.0, 0.5, n)
    q_max = q_min + rng.uniform(0.0, 0.6, n)
    s_left, s_right = rng.uniform(0.2, 3.0, n), rng.uniform(0.2, 3.0, n)
    s_left[::50] = 400.0
    curve = Curve()
    x = price / c_max
    left = x < curve.split
    z = curve.k * np.where(left, s_left, s_right) * (x - np.where(left, curve.theta_left, curve.theta_right))
    half = (q_max - q_min) / 2.0
    want = 1.0 / (np.exp(-np.clip(z, -500.0, 500.0)) + 1.0) * half + (q_min + half * ~left)
    want = np.where(price > c_max, q_max, want)
    got = required_quality(price, c_max, q_min, q_max, s_left, s_right, curve)
    assert _bits(got) == _bits(want)
    columns = required_quality(price[:5, None] * [0.5, 1.0, 2.0], c_max[:5, None], 0.1, 0.9, 1.0, 1.0, curve)
    assert columns.shape == (5, 3) and _bits(columns[:, 1]) == _bits(
        required_quality(price[:5], c_max[:5], np.full(5, 0.1), np.full(5, 0.9), np.ones(5), np.ones(5), curve)
    )


def test_post_weights_are_eq_26_as_numpy_computed_them(columns):
    c = columns
    rows = c["rows"]
    rng = np.random.default_rng(5)
    change = rng.normal(0.0, 0.05, N_ROWS)
    influencer = np.array([False, True, False, False, True])
    open_issue = rng.random(len(rows)) < 0.3
    seats = c["seats"].copy()
    seats[rows[3]] = np.inf  # a weight that is not finite reads 1e6
    day, w_day, service = 40, 1.15, 1.0
    out = np.empty(len(rows))
    kernels.post_weights(
        rows,
        c["satisfaction"],
        change,
        c["group"],
        influencer.view(np.uint8),
        c["start_day"],
        day,
        c["rate"],
        w_day,
        c["plan"],
        c["quotas"],
        open_issue.view(np.uint8),
        seats,
        4.0,
        3.0,
        2.0,
        1.5,
        30,
        10.0,
        0.02,
        service,
        5.0,
        out,
    )
    s, ds = c["satisfaction"][rows], np.abs(change[rows])
    want = np.abs(s) * 4.0 + 1.0
    want = np.where(s < 0, want * (s**2 * 3.0 + 1.0), want)
    want = np.where(influencer[c["group"][rows]], want * 2.0, want)
    want = np.where(day - c["start_day"][rows] <= 30, want * 1.5, want)
    want = np.where(ds >= 0.02, want * (ds * 10.0 + 1.0), want)
    over = c["rate"][rows] * w_day > c["quotas"][c["plan"][rows]]
    want *= (over.astype(float) + open_issue + service) * 5.0 + 1.0
    want *= seats[rows]
    want[~np.isfinite(want)] = 1e6
    assert _bits(out) == _bits(want) and out[3] == 1e6


@pytest.mark.parametrize("outage", [False, True])
@pytest.mark.parametrize("zero_kept", [False, True])
def test_settling_the_days_issues_is_the_numpy_update_of_the_pool(columns, outage, zero_kept):
    """Resolved issues close (a fix within 1 or 2 days lifts the relationship when there is no outage),
    unresolved ones count a day and cost relationship, as ``run_support``'s numpy updates did."""
    c = columns
    pool = c["rows"][c["issue_days"][c["rows"]] > 0]
    resolved = np.random.default_rng(9).random(len(pool)) < 0.5
    rel = c["relationship"].copy()
    rel[pool[:6]] = [0.0, 0.0, 0.95, 0.0, 1.0, 0.005]
    days, open_day = c["issue_days"].copy(), np.full(N_ROWS, 7, dtype=np.int32)
    kernels.settle_issues(pool, resolved.view(np.uint8), days, open_day, rel, not outage, 0.4, 0.3, zero_kept, 0.01)

    def read(r: np.ndarray) -> np.ndarray:
        return r if zero_kept else np.where(r == 0.0, 0.5, r)

    want_rel, want_days = c["relationship"].copy(), c["issue_days"].copy()
    want_rel[pool[:6]] = [0.0, 0.0, 0.95, 0.0, 1.0, 0.005]
    done, left = pool[resolved], pool[~resolved]
    if not outage:
        fast = (want_days[done] == 1) | (want_days[done] == 2)
        boost = np.where(want_days[done][fast] == 1, 0.4, 0.3)
        want_rel[done[fast]] = np.minimum(1.0, read(want_rel[done[fast]]) + boost)
    want_days[done] = 0
    want_days[left] += 1
    want_rel[left] = np.maximum(0.0, read(want_rel[left]) - 0.01)
    assert _bits(rel) == _bits(want_rel) and _bits(days) == _bits(want_days)
    assert (open_day[done] == -1).all() and (open_day[left] == 7).all() and len(done) and len(left)


@pytest.mark.parametrize("with_macro", [False, True])
@pytest.mark.parametrize("with_ads", [False, True])
def test_the_billing_review_s_plan_terms_are_the_numpy_formula_bit_for_bit(state, params, with_macro, with_ads):
    """``billing.plan_values`` (kernels.plan_terms, then eq 5) against the numpy expression it replaced, built
    from the mechanics' own functions (reference-notes §4.7 billing variant, §4.22; eq 5-7): surplus,
    price and acceptability identical to the last bit, with no demand (F = 1), a relationship of 0 (read
    as stored), a start after today, open issues, zero quotas, every promotion scope, a promotion above
    the price, budgets at the floor and the macro WTP multiplier."""
    from bizbench.envs.ceo.world.billing import plan_values
    from bizbench.envs.ceo.world.curve import required_quality
    from bizbench.envs.ceo.world.drift import drifted_c_max, quality_band
    from bizbench.envs.ceo.world.params import MACRO_WTP
    from bizbench.envs.ceo.world.promotions import ad_penalty, ongoing_promotion
    from bizbench.envs.ceo.world.quality import perceived_quality, quota_factor

    rng = np.random.default_rng(11)
    n, groups = 300, params.n_groups
    state.day = 90
    rate = rng.uniform(0.0, 300.0, n)
    rate[::13] = 0.0
    relationship = rng.uniform(0.0, 1.0, n)
    relationship[::7] = 0.0
    cols = {
        "group": rng.integers(0, groups, n).astype(np.int16),
        "usage_rate": rate,
        "relationship": relationship,
        "start_day": rng.integers(0, 120, n).astype(np.int32),  # some after today: tenure read as 0
        "issue_days": (rng.integers(0, 5, n) * (rng.random(n) < 0.3)).astype(np.int32),
        "c_max": rng.uniform(0.0, 200.0, n),
        "q_min": rng.uniform(-0.1, 0.5, n),
        "q_max": rng.uniform(0.5, 1.2, n),
        "s_left": rng.uniform(0.2, 6.0, n),
        "s_right": rng.uniform(0.5, 7.0, n),
        "eta_ads": rng.uniform(0.0, 0.3, n),
    }
    idx = np.sort(state.customers.append(n, cols)[rng.random(n) < 0.8])
    s = state.settings
    s.prices[:] = [19.0, 49.5, 120.0]
    s.quotas[:] = [60.0, 0.0, 900.0]
    s.promo_global = 1.5
    s.promo_by_group[:] = rng.uniform(0.0, 3.0, groups)
    s.promo_by_group_plan[:] = rng.uniform(0.0, 2.0, (groups, 3))
    s.promo_by_group_plan[0, 0] = 40.0  # above plan A's price: free
    s.promo_by_customer = {int(idx[3]): 2.25, int(idx[10]): 0.5}
    if with_ads:
        s.ads_global = 0.3
        s.ads_by_group[:] = rng.uniform(0.0, 0.5, groups)
    state.macro_multipliers[:, MACRO_WTP] = rng.uniform(0.5, 1.5, groups)
    delivered = rng.uniform(0.0, 1.3, (groups, 3))
    q_shift, c_drift = rng.uniform(-0.1, 0.1, groups), rng.uniform(-30.0, 10.0, groups)

    cust, q = state.customers, state.config.quality
    g = cust.group[idx]
    c_max = drifted_c_max(cust, idx, c_drift, state.config.sampling.c_max_floor)
    if with_macro:
        c_max = c_max * state.macro_multipliers[g, MACRO_WTP]
    q_lo, q_hi = quality_band(cust, idx, q_shift[g])
    ads = ad_penalty(s, idx, g, cust.eta_ads, include_customer=False)
    demand = cust.usage_rate[idx] * (state.config.usage.weekly_factors[state.day % 7])
    want_q = perceived_quality(
        delivered[g],
        cust.relationship[idx][:, None],
        (state.day - cust.start_day[idx])[:, None],
        cust.issue_days[idx][:, None],
        ads[:, None] if isinstance(ads, np.ndarray) else ads,
        quota_factor(s.quotas, demand[:, None]),
        q,
    )
    want_price = np.stack(
        [np.maximum(0.0, s.prices[p] - ongoing_promotion(s, idx, g, np.full(len(idx), p))) for p in range(3)], 1
    )
    columns = (c_max[:, None], q_lo[:, None], q_hi[:, None], cust.s_left[idx][:, None], cust.s_right[idx][:, None])
    req = required_quality(want_price, *columns, state.config.curve)
    want_ok = (want_price <= c_max[:, None]) & (want_q >= req)
    assert want_ok.any() and not want_ok.all() and (want_price == 0.0).any()

    surplus, price, ok = plan_values(state, params, idx, delivered, q_shift, c_drift, with_macro)
    assert _bits(price) == _bits(want_price)
    assert _bits(surplus) == _bits(want_q - req)
    assert ok.tolist() == want_ok.tolist()


def test_a_rows_argmax_is_numpy_s_argmax_of_the_allowed_entries_with_the_entry_there():
    """``row_argmax`` against ``np.where(allowed, values, -inf).argmax(axis=1)`` on rows with ties, NaNs,
    infinities and signed zeros, and -1 / -inf where no entry is allowed; with no mask, every entry."""
    rng = np.random.default_rng(3)
    n = 4_000
    values = rng.choice([-np.inf, -1.0, -0.0, 0.0, 0.5, 0.5, 2.0, np.inf, np.nan], size=(n, 3))
    allowed = rng.random((n, 3)) < 0.6
    for mask in (allowed, None):
        masked = values if mask is None else np.where(mask, values, -np.inf)
        best, top = np.empty(n, dtype=np.int64), np.empty(n)
        kernels.row_argmax(values, None if mask is None else mask.view(np.uint8), best, top)
        some = np.ones(n, dtype=bool) if mask is None else mask.any(axis=1)
        want = masked.argmax(axis=1)
        assert best[some].tolist() == want[some].tolist() and (best[~some] == -1).all()
        assert _bits(top[some]) == _bits(masked[some, want[some]]) and (top[~some] == -np.inf).all()
        assert (~some).sum() > 100 or mask is None
    with pytest.raises(ValueError, match="allowed has shape"):
        kernels.row_argmax(values, allowed[:10].view(np.uint8), np.empty(n, dtype=np.int64), np.empty(n))


@pytest.mark.parametrize("shared", [True, False])
def test_a_lead_offer_is_the_numpy_formula_bit_for_bit(state, shared):
    """``offer.lead_offer`` (kernels.lead_terms, then eq 5) against the numpy expression it replaced
    (reference-notes §3.4; eq 5-7): price, quality, Q_req and surplus identical to the last bit, for one
    group's row of delivered quality or each lead's, with no demand (F = 1), a NaN demand, zero and
    negative quotas, promotions above the price and budgets below it."""
    from bizbench.envs.ceo.world.curve import required_quality
    from bizbench.envs.ceo.world.offer import lead_offer
    from bizbench.envs.ceo.world.quality import quota_factor

    rng = np.random.default_rng(5)
    n = 500
    demand = rng.uniform(0.0, 300.0, n)
    demand[::11] = 0.0
    demand[7] = np.nan
    cols = {"usage_demand": demand, "s_left": rng.uniform(0.2, 6.0, n), "s_right": rng.uniform(0.2, 6.0, n)}
    prefs = (rng.uniform(0.0, 120.0, n), rng.uniform(-0.1, 0.5, n), rng.uniform(0.5, 1.2, n))
    promotion = rng.choice([0.0, 5.0, 20.0, 500.0], n)
    state.settings.prices = np.array([-0.0, 60.0, 150.0])  # -0.0 - 0.0 is -0.0, which numpy's maximum keeps
    state.settings.quotas = np.array([40.0, 0.0, -3.0])
    delivered = rng.uniform(-0.2, 1.0, 3) if shared else rng.uniform(-0.2, 1.0, (n, 3))
    got = lead_offer(state.settings, delivered, promotion, cols, prefs, state.config.curve)

    c_max, q_min, q_max = prefs
    price = np.maximum(0.0, state.settings.prices[None, :] - promotion[:, None])
    with np.errstate(invalid="ignore"):
        quality = delivered * quota_factor(state.settings.quotas, demand[:, None])
    columns = (c_max[:, None], q_min[:, None], q_max[:, None], cols["s_left"][:, None], cols["s_right"][:, None])
    required = required_quality(price, *columns, state.config.curve)
    surplus = np.where(price <= c_max[:, None], quality - required, -np.inf)
    for mine, want in zip(got, (price, quality, required, surplus), strict=True):
        assert mine.shape == (n, 3) and _bits(mine) == _bits(want)
    assert np.isnan(got.quality).any() and (got.surplus == -np.inf).any() and (got.price == 0.0).any()
