# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The ceo world's per-customer passes, compiled (docs/performance.md, "Compiled kernels").

Each kernel is one mechanic's daily pass over a block of customers ``rows`` (customer row
numbers, ascending) or over arrays of equal length (the curve). It reads each customer's columns
once and writes its results in place, where numpy made one pass per operation with a gather
before and a scatter after. The mechanic's module owns the formula and calls its kernel; the
kernel performs the same IEEE operations in the same order as the numpy expressions it replaced
(setup.py compiles without fused multiply-adds or fast-math), so every result is identical to the
last bit. The kernels' passes hold no GIL, so the blocks of a large market run on
``customers.for_blocks``' threads (the counting kernels take it briefly to allocate and add up their
lanes).

Indexes are not checked (``boundscheck=False``): the callers pass subscribers' rows, whose group
and plan are valid; a per-row buffer shorter than ``rows`` is refused. ``cdivision``: x / 0.0 is
inf or nan, as in numpy, not ZeroDivisionError. ``SOURCE_SHA256`` is the hash of this file the
module was compiled from (setup.py), so a test run refuses a stale build (tests/conftest.py).
"""

from libc.math cimport INFINITY, fabs, floor, isfinite
from libc.stdint cimport int64_t

import numpy as np


cdef extern from *:
    const char *KERNELS_SOURCE_SHA256  # setup.py defines it

SOURCE_SHA256 = KERNELS_SOURCE_SHA256.decode("ascii")


cdef inline double np_minimum(double a, double b) noexcept nogil:
    """numpy's minimum of two floats: NaN if either is NaN, ``b`` when they are equal (-0.0 and 0.0)."""
    if a != a:
        return a
    return a if a < b else b


cdef inline double np_maximum(double a, double b) noexcept nogil:
    """numpy's maximum of two floats: NaN if either is NaN, ``b`` when they are equal (-0.0 and 0.0)."""
    if a != a:
        return a
    return a if a > b else b


cdef inline double np_clip(double x, double low, double high) noexcept nogil:
    """numpy's clip of a float: NaN stays NaN, ``x`` is kept when it equals a bound (-0.0 and 0.0)."""
    if x < low:
        return low
    if x > high:
        return high
    return x


# Per-group counts and sums of whole numbers go into LANES interleaved copies (row i into lane i & (LANES - 1)),
# added up after the pass. Rows of one group come in long runs (a day's arrivals, group after group), so one
# counter would take every row's increment in turn, each waiting for the one before it through memory;
# LANES counters take them four at a time. The sums are whole numbers, so their order does not matter.
cdef enum:
    LANES = 4  # a power of two: row i's lane is i & (LANES - 1)


cdef object lanes_of(Py_ssize_t n, object dtype):
    """LANES zeroed rows of ``n`` counters (``dtype``): the interleaved copies a pass counts into."""
    return np.zeros((LANES, n), dtype=dtype)


cdef object add_lanes(object lanes, object out):
    """Each counter's lanes added to ``out`` (a typed memoryview of a numpy array). Every counter gets its
    total, 0 where no row counted: ``out`` holds the callers' zeros or earlier blocks' counts, never a -0.0
    that adding 0.0 would turn into +0.0."""
    totals = np.asarray(out)
    totals += lanes.sum(axis=0)


cdef inline double quota_factor(double quota, double demand) noexcept nogil:
    """F = clip(max(quota, 0) / demand, 0, 1), 1 when the demand is not positive (reference-notes §4.4;
    ``quality.quota_factor``)."""
    if demand <= 0:
        return 1.0
    return np_clip(np_maximum(quota, 0.0) / demand, 0.0, 1.0)


cdef struct Perception:
    # eq 15's terms of a customer but the delivered quality and the quota factor (``perception``)
    const double *relationship
    double relationship_neutral
    double relationship_weight
    int day
    const int *start_day
    const double *tenure_bonus  # TB by whole days subscribed, up to the longest tenure of the rows
    const int *issue_days
    double issue_penalty
    bint ads
    const double *ad_penalty  # one per row of the pass, when ``ads``


cdef Perception perception(tuple terms, Py_ssize_t rows) except *:
    """Eq 15's terms from ``quality.perception_terms`` (relationship, neutral, weight, day, start day,
    tenure bonus by days, issue days, issue penalty, ad penalty one per row or empty with no ads), for a
    pass over ``rows`` rows; the arrays stay the caller's."""
    cdef Perception per
    cdef const double[::1] relationship = terms[0], tenure_bonus = terms[5], ad_penalty = terms[8]
    cdef const int[::1] start_day = terms[4], issue_days = terms[6]
    per.ads = ad_penalty.shape[0] > 0
    if per.ads:
        _check_lengths(rows, ad_penalty=ad_penalty.shape[0])
    per.relationship, per.start_day, per.issue_days = &relationship[0], &start_day[0], &issue_days[0]
    per.tenure_bonus, per.ad_penalty = &tenure_bonus[0], &ad_penalty[0] if per.ads else NULL
    per.relationship_neutral, per.relationship_weight = terms[1], terms[2]
    per.day, per.issue_penalty = terms[3], terms[7]
    return per


cdef inline double perceived(
    const Perception *per, Py_ssize_t i, int64_t r, double relationship, double delivered, double f
) noexcept nogil:
    """Q_perc = (RB + Del + TB) F - IP - AP (eq 15, reference-notes §4.7) of row ``i`` (customer ``r``) in
    the order of ``quality.perceived_quality``, with RB of ``relationship`` as the mechanic reads it."""
    cdef int days = per.day - per.start_day[r]
    if days < 0:
        days = 0
    cdef double q = (relationship - per.relationship_neutral) * per.relationship_weight
    q = q + delivered
    q += per.tenure_bonus[days]
    q *= f
    q -= per.issue_penalty * per.issue_days[r]
    if per.ads:
        q -= per.ad_penalty[i]
    return q


def _check_lengths(Py_ssize_t n, **lengths):
    """Refuse a per-row buffer shorter than the ``n`` rows a kernel writes or reads (its name: its length)."""
    for name, length in lengths.items():
        if length < n:
            raise ValueError(f"{name} holds {length} values for {n} rows")


def nan_positions(const double[::1] column, const int64_t[::1] rows, int64_t[::1] out):
    """Writes the positions i (ascending) where ``column[rows[i]]`` is NaN into ``out``; returns
    their number (the stale stored Q_req of ``satisfaction.daily_requirement``)."""
    cdef Py_ssize_t i, n = 0
    cdef double v
    _check_lengths(rows.shape[0], out=out.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            v = column[rows[i]]
            if v != v:
                out[n] = i
                n += 1
    return n


def longest_tenure(const int64_t[::1] rows, const int[::1] start_day, int day):
    """The most whole days any of ``rows`` has been subscribed on ``day`` (0 if none)."""
    cdef Py_ssize_t i
    cdef int longest = 0
    with nogil:
        for i in range(rows.shape[0]):
            if day - start_day[rows[i]] > longest:
                longest = day - start_day[rows[i]]
    return longest


def usage(
    const int64_t[::1] rows,
    const double[::1] rate,
    const signed char[::1] plan,
    const double[::1] quotas,
    double weekly,
    double[::1] today,
    double[::1] period,
    double[::1] units,
):
    """U_i = round(min(r_i W(d), quota_plan)), half away from 0 (eq 8): written to ``units`` (one per
    row), the customer's ``today`` and added to its ``period`` usage."""
    cdef Py_ssize_t i
    cdef int64_t r
    cdef double u
    _check_lengths(rows.shape[0], units=units.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            u = rate[r] * weekly
            u = np_minimum(u, quotas[plan[r]])
            u = floor(u + 0.5)
            units[i] = u
            today[r] = u
            period[r] += u


def satisfaction(
    const int64_t[::1] rows,
    const short[::1] group,
    const signed char[::1] plan,
    const double[::1] rate,
    double weekly,
    const double[::1] quotas,
    const double[::1] delivered,
    Py_ssize_t n_plans,
    double service_penalty,
    tuple perception_terms,
    bint relationship_zero_kept,
    const double[::1] q_req,
    double new_weight,
    double[::1] satisfaction,
    double[::1] change,
    double[::1] before,
):
    """S <- (1 - w) S + w (Q_perc - Q_req) for each row (eq 15-17, the daily variant of
    ``satisfaction.update_satisfaction``), with Q_perc = (Del[g, plan] - svc + RB + TB) F - IP - AP:
    F = clip(max(quota, 0) / (r_i W(d)), 0, 1), 1 when the demand is not positive; RB = 0.9 (r - 0.5)
    with a relationship of exactly 0 read as 0.5 unless ``relationship_zero_kept``; the other terms
    from ``perception_terms`` (``quality.perception_terms``). Writes S before into ``before``, the new
    S and its change into the customer's columns."""
    cdef Py_ssize_t i
    cdef int64_t r
    cdef double rel, q_perc, s, after, keep = 1.0 - new_weight
    _check_lengths(rows.shape[0], before=before.shape[0])
    cdef Perception per = perception(perception_terms, rows.shape[0])
    cdef const double[::1] relationship = perception_terms[0]
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            rel = relationship[r]
            if rel == 0.0 and not relationship_zero_kept:
                rel = 0.5
            q_perc = perceived(
                &per,
                i,
                r,
                rel,
                delivered[group[r] * n_plans + plan[r]] - service_penalty,
                quota_factor(quotas[plan[r]], rate[r] * weekly),
            )
            q_perc -= q_req[r]
            s = satisfaction[r]
            before[i] = s
            after = keep * s
            after += q_perc * new_weight
            satisfaction[r] = after
            change[r] = after - s


def sum_by_plan(const int64_t[::1] rows, const signed char[::1] plan, const double[::1] units, double[::1] out):
    """Adds ``units`` (one per row, whole numbers, so the order of the sum does not matter) to ``out`` by
    the rows' plans (eq 43's U_p)."""
    cdef Py_ssize_t i
    _check_lengths(rows.shape[0], units=units.shape[0])
    lanes = lanes_of(out.shape[0], np.float64)
    cdef double[:, ::1] lane = lanes
    with nogil:
        for i in range(rows.shape[0]):
            lane[i & (LANES - 1), plan[rows[i]]] += units[i]
    add_lanes(lanes, out)


def positive(const int64_t[::1] rows, const int[::1] column, unsigned char[::1] out):
    """``out[i] = column[rows[i]] > 0``: who has an issue open (``Customers.open_issue``)."""
    cdef Py_ssize_t i
    _check_lengths(rows.shape[0], out=out.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            out[i] = column[rows[i]] > 0


def reputation_sums(
    const int64_t[::1] rows,
    const Py_ssize_t[::1] groups,
    const double[::1] satisfaction,
    double positive_rate,
    double negative_rate,
    double[::1] sums,
):
    """sum_i delta_i of each group, delta_i = 0.0005 S (S >= 0) or 0.001 S (S < 0) (eq 22), added to
    ``sums`` in row order (numpy's bincount with weights adds in that order). A run of rows of one group
    (a day's arrivals come group after group) adds into a register, stored when the group changes: the
    same additions in the same order, without a store and a load between each two. Where two NaNs meet,
    the NaN kept is the one numpy's bincount keeps (the operands' order of the addition)."""
    cdef Py_ssize_t i, g, current = -1
    cdef double s, total = 0.0
    cdef double rates[2]  # picked by S < 0 without a branch: the sign is as hard to predict as a coin
    rates[0], rates[1] = positive_rate, negative_rate
    _check_lengths(rows.shape[0], groups=groups.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            g = groups[i]
            if g != current:
                if current >= 0:
                    sums[current] = total
                current, total = g, sums[g]
            s = satisfaction[rows[i]]
            total += s * rates[s < 0]
        if current >= 0:
            sums[current] = total


def open_issues(
    const int64_t[::1] rows,
    const unsigned char[::1] has_issue,
    const double[::1] satisfaction_before,
    const double[::1] billed_seats,
    double satisfaction_rate,
    double base_rate,
    double outage_term,
    double max_prob,
    const double[::1] uniforms,
    int64_t[::1] opened,
):
    """The new issues of eq 20: each row with no issue open draws one with
    P = clip((0.01 + 0.15 (1 - S_prev) + 0.25 1[outage]) seats, 0, 0.4), computed as
    ``support.run_support`` orders it; the k-th such row opens an issue when the k-th of ``uniforms``
    (one per such row, in [0, 1)) is below its P. Writes those rows into ``opened``; returns their number.

    Branch-free, since who has an issue open is as hard to predict as a coin: every row computes P and
    reads a draw (a row with an issue open reads the draw of the next row with none, or the last draw,
    and keeps nothing), and u < clip(P, 0, max) is written as u < P and u < max, the same for a u in
    [0, 1) and a max that is not NaN (the config refuses NaN; a P below 0, -0.0 or NaN opens none)."""
    cdef Py_ssize_t i, k = 0, n = 0, draws = uniforms.shape[0], last = draws - 1
    cdef bint free
    cdef double p, u
    _check_lengths(
        rows.shape[0],
        has_issue=has_issue.shape[0],
        satisfaction_before=satisfaction_before.shape[0],
        opened=opened.shape[0],
    )
    with nogil:
        for i in range(rows.shape[0]):
            free = not has_issue[i]
            if draws:  # else only counted: an error unless every row has an issue open
                p = (1.0 - satisfaction_before[i]) * satisfaction_rate
                p += base_rate
                p += outage_term
                p *= billed_seats[rows[i]]
                u = uniforms[k if k < last else last]
                opened[n] = rows[i]  # kept when the row draws and its draw is below the chance
                n += free & (u < p) & (u < max_prob)
            k += free
    if k != draws:
        raise ValueError(f"uniforms holds {draws} draws for {k} rows with no issue open")
    return n


def daily_metrics(
    const int64_t[::1] rows,
    const short[::1] group,
    const unsigned char[::1] is_enterprise,
    const double[::1] satisfaction,
    const double[::1] effective_price,
    const double[::1] billed_seats,
    const int[::1] issue_days,
    double[::1] satisfaction_out,
    double[::1] mrr_terms,
    int64_t[::1] accounts,
    double[::1] enterprise_seats,
):
    """A day's per-subscriber reads (``World._daily_metrics``): each row's satisfaction and MRR term
    (price x whole seats) into the two buffers, its account and (enterprise groups) whole seats added to
    its group's counts; returns how many rows have an issue open. The counts and seats are whole
    numbers, so their sums do not depend on the order."""
    cdef Py_ssize_t i
    cdef int64_t r, with_issue = 0
    cdef short g
    _check_lengths(
        rows.shape[0],
        satisfaction_out=satisfaction_out.shape[0],
        mrr_terms=mrr_terms.shape[0],
    )
    account_lanes = lanes_of(accounts.shape[0], np.int64)
    seat_lanes = lanes_of(enterprise_seats.shape[0], np.float64)
    cdef int64_t[:, ::1] account_lane = account_lanes
    cdef double[:, ::1] seat_lane = seat_lanes
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            g = group[r]
            satisfaction_out[i] = satisfaction[r]
            mrr_terms[i] = effective_price[r] * billed_seats[r]
            account_lane[i & (LANES - 1), g] += 1
            if is_enterprise[g]:
                seat_lane[i & (LANES - 1), g] += billed_seats[r]
            with_issue += issue_days[r] > 0
    add_lanes(account_lanes, accounts)
    add_lanes(seat_lanes, enterprise_seats)
    return with_issue


def rows_with(const signed char[::1] status, signed char code, int64_t[::1] out):
    """The rows whose status is ``code`` into ``out`` (as long as ``status``), ascending; returns their
    number (``Customers.active``)."""
    cdef Py_ssize_t i, n = 0
    _check_lengths(status.shape[0], out=out.shape[0])
    with nogil:
        for i in range(status.shape[0]):  # branch-free: every row is written, the next overwrites a miss
            out[n] = i
            n += status[i] == code
    return n


def due_rows(const int64_t[::1] rows, const signed char[::1] billing_mod, int today, int64_t[::1] out):
    """The rows whose billing anchor (start day mod 30) is ``today`` into ``out``, in their order;
    returns their number (``billing.due_today``)."""
    cdef Py_ssize_t i, n = 0
    _check_lengths(rows.shape[0], out=out.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            if billing_mod[rows[i]] == today:
                out[n] = rows[i]
                n += 1
    return n


def row_argmax(
    const double[:, ::1] values, const unsigned char[:, ::1] allowed, int64_t[::1] best, double[::1] top
):
    """Each row's argmax as numpy's ``argmax(axis=1)`` of ``np.where(allowed, values, -inf)`` gives it (the
    first largest entry, or the first NaN) into ``best`` and the entry there into ``top``; a row with no
    allowed entry gets -1 and -inf. ``allowed`` None allows every entry (``offer.best_plan``)."""
    cdef Py_ssize_t i, j, n = values.shape[0], k = values.shape[1]
    cdef bint every = allowed is None, ok, seen
    cdef double v, m
    cdef int64_t at
    if k == 0:
        raise ValueError("a row needs at least one entry")
    if not every and (allowed.shape[0] != n or allowed.shape[1] != k):
        raise ValueError(f"allowed has shape ({allowed.shape[0]}, {allowed.shape[1]}) for values of ({n}, {k})")
    _check_lengths(n, best=best.shape[0], top=top.shape[0])
    with nogil:
        for i in range(n):
            seen = False
            at = 0
            m = INFINITY  # set by the first entry
            for j in range(k):
                ok = every or allowed[i, j]
                seen = seen or ok
                v = values[i, j] if ok else -INFINITY
                if j == 0 or (m == m and not v <= m):  # numpy: a larger entry or a NaN takes it, then a NaN stays
                    m = v
                    at = j
            best[i] = at if seen else -1
            top[i] = m  # -inf when nothing is allowed


def group_counts(const int64_t[::1] rows, const short[::1] group, int64_t[::1] counts):
    """The rows of each group added to ``counts`` (``World.step_day``'s subscribers after the day's churn)."""
    cdef Py_ssize_t i
    lanes = lanes_of(counts.shape[0], np.int64)
    cdef int64_t[:, ::1] lane = lanes
    with nogil:
        for i in range(rows.shape[0]):
            lane[i & (LANES - 1), group[rows[i]]] += 1
    add_lanes(lanes, counts)


def groups_of(const int64_t[::1] rows, const short[::1] group, Py_ssize_t[::1] out, int64_t[::1] counts):
    """Each row's group into ``out`` and the rows of each group added to ``counts`` (``World.opening``)."""
    cdef Py_ssize_t i
    cdef short g
    _check_lengths(rows.shape[0], out=out.shape[0])
    lanes = lanes_of(counts.shape[0], np.int64)
    cdef int64_t[:, ::1] lane = lanes
    with nogil:
        for i in range(rows.shape[0]):
            g = group[rows[i]]
            out[i] = g
            lane[i & (LANES - 1), g] += 1
    add_lanes(lanes, counts)


def curve_exponent(
    const double[::1] price,
    const double[::1] c_max,
    const double[::1] s_left,
    const double[::1] s_right,
    double k,
    double split,
    double theta_left,
    double theta_right,
    double[::1] out,
):
    """-clip(k s (x - theta), -500, 500) at x = price / c_max, with the half of the participation curve
    x falls on (eq 5, ``curve.required_quality``); numpy's exp of it follows, then ``curve_quality``."""
    cdef Py_ssize_t i
    cdef double x, z
    cdef bint left
    _check_lengths(
        price.shape[0],
        c_max=c_max.shape[0],
        s_left=s_left.shape[0],
        s_right=s_right.shape[0],
        out=out.shape[0],
    )
    with nogil:
        for i in range(price.shape[0]):
            x = price[i] / c_max[i]
            left = x < split
            z = k * (s_left[i] if left else s_right[i])
            z *= x - (theta_left if left else theta_right)
            out[i] = -np_clip(z, -500.0, 500.0)


def curve_quality(
    const double[::1] price,
    const double[::1] c_max,
    const double[::1] q_min,
    const double[::1] q_max,
    double split,
    const double[::1] exp_term,
    double[::1] out,
):
    """Q_req = q_min + (half on the right) + half / (1 + e^-z), or q_max above the budget (eq 5), from
    ``exp_term`` = e^-z of ``curve_exponent``."""
    cdef Py_ssize_t i
    cdef double x, half, q
    _check_lengths(
        price.shape[0],
        c_max=c_max.shape[0],
        q_min=q_min.shape[0],
        q_max=q_max.shape[0],
        exp_term=exp_term.shape[0],
        out=out.shape[0],
    )
    with nogil:
        for i in range(price.shape[0]):
            if price[i] > c_max[i]:
                out[i] = q_max[i]
                continue
            x = price[i] / c_max[i]
            half = (q_max[i] - q_min[i]) / 2.0
            q = 1.0 / (exp_term[i] + 1.0)
            q *= half
            q += q_min[i] + half * (0.0 if x < split else 1.0)
            out[i] = q


def post_weights(
    const int64_t[::1] rows,
    const double[::1] satisfaction,
    const double[::1] satisfaction_change,
    const short[::1] group,
    const unsigned char[::1] influencer,
    const int[::1] start_day,
    int day,
    const double[::1] rate,
    double weekly,
    const signed char[::1] plan,
    const double[::1] quotas,
    const unsigned char[::1] open_issue,
    const double[::1] billed_seats,
    double extremity_weight,
    double negative_weight,
    double influencer_weight,
    double new_customer_weight,
    int new_customer_days,
    double change_weight,
    double change_threshold,
    double service_events,
    double event_weight,
    double[::1] out,
):
    """w_i of eq 26 in the engine form (``social.subscriber_weights``): (1 + ext |S|), times (1 + neg S^2)
    when S < 0, the influencer and new-customer factors where they apply, (1 + cw |dS|) when |dS| reaches
    the threshold, (1 + ev events) with events = over quota (``social.over_quota``) + open issue +
    ``service_events`` (overload + outage), times whole seats; 1e6 where not finite."""
    cdef Py_ssize_t i
    cdef int64_t r
    cdef double s, w, ds, events
    _check_lengths(rows.shape[0], open_issue=open_issue.shape[0], out=out.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            s = satisfaction[r]
            w = fabs(s) * extremity_weight + 1.0
            if s < 0:
                w *= s * s * negative_weight + 1.0
            if influencer[group[r]]:
                w *= influencer_weight
            if day - start_day[r] <= new_customer_days:
                w *= new_customer_weight
            ds = fabs(satisfaction_change[r])
            if ds >= change_threshold:
                w *= ds * change_weight + 1.0
            events = <double>(rate[r] * weekly > quotas[plan[r]])
            events += open_issue[i]
            events += service_events
            w *= events * event_weight + 1.0
            w *= billed_seats[r]
            out[i] = w if isfinite(w) else 1e6


def settle_issues(
    const int64_t[::1] pool,
    const unsigned char[::1] resolved,
    int[::1] issue_days,
    int[::1] issue_open_day,
    double[::1] relationship,
    bint fast_fix,
    double fast_fix_1,
    double fast_fix_2,
    bint relationship_zero_kept,
    double daily_decay,
):
    """The day's end of each open issue of ``pool`` (``support.run_support``, reference-notes §4.10): a
    resolved one closes, and when ``fast_fix`` (no outage) a fix within 1 or 2 days lifts the
    relationship to min(1, r + 0.40 / 0.30); an unresolved one counts another day and costs the
    relationship max(0, r - 0.01). A relationship of exactly 0 reads as 0.5 unless kept."""
    cdef Py_ssize_t i
    cdef int64_t r
    cdef int days
    cdef double rel
    _check_lengths(pool.shape[0], resolved=resolved.shape[0])
    with nogil:
        for i in range(pool.shape[0]):
            r = pool[i]
            rel = relationship[r]
            if rel == 0.0 and not relationship_zero_kept:
                rel = 0.5
            if resolved[i]:
                days = issue_days[r]
                if fast_fix and (days == 1 or days == 2):
                    relationship[r] = np_minimum(1.0, rel + (fast_fix_1 if days == 1 else fast_fix_2))
                issue_days[r] = 0
                issue_open_day[r] = -1
            else:
                issue_days[r] += 1
                relationship[r] = np_maximum(0.0, rel - daily_decay)


def requirement_inputs(
    const int64_t[::1] rows,
    const short[::1] group,
    const double[::1] effective_price,
    const double[::1] effective_c_max,
    const double[::1] c_max,
    const double[::1] q_min,
    const double[::1] q_max,
    const double[::1] s_left,
    const double[::1] s_right,
    const double[::1] q_shift,
    const double[::1] c_drift,
    double c_max_floor,
    double[:, ::1] inputs,
):
    """The inputs of the daily-satisfaction Q_req (eq 5, reference-notes §4.7 daily variant) of each
    row, at its column of ``inputs``' six rows: the stored effective price (per seat); the budget,
    the billing snapshot ``effective_c_max`` when set (else c_max) plus the group's c-drift, at least
    ``c_max_floor``; the quality band q_min, q_max plus the group's quality shift (as
    ``drift.quality_band``); the steepnesses."""
    cdef Py_ssize_t i
    cdef int64_t r
    cdef short g
    cdef double budget
    _check_lengths(rows.shape[0], inputs=inputs.shape[1])
    _check_lengths(6, inputs_rows=inputs.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            g = group[r]
            inputs[0, i] = effective_price[r]
            budget = effective_c_max[r]
            if budget != budget:
                budget = c_max[r]
            inputs[1, i] = np_maximum(c_max_floor, budget + c_drift[g])
            inputs[2, i] = q_min[r] + q_shift[g]
            inputs[3, i] = q_max[r] + q_shift[g]
            inputs[4, i] = s_left[r]
            inputs[5, i] = s_right[r]


def lead_terms(
    const double[::1] prices,
    const double[::1] promotion,
    const double[::1] delivered,
    const double[::1] quotas,
    const double[::1] demand,
    tuple preferences,
    double[:, ::1] terms,
):
    """Each new lead's terms of each plan p (reference-notes §3.4), at column i * plans + p of ``terms``'
    seven rows: the quality Del_p F(quota_p, u_i) (``delivered``: one row of the plans shared by every
    lead, or each lead's row), the price [P_p - LP_i]+ after the lead's promotion (eq 7), and eq 5's
    inputs repeated for each plan: the lead's ``preferences`` c_max, q_min, q_max, s_left, s_right
    (``offer.lead_offer`` evaluates eq 5 and the surplus on them)."""
    cdef const double[::1] c_max = preferences[0], q_min = preferences[1], q_max = preferences[2]
    cdef const double[::1] s_left = preferences[3], s_right = preferences[4]
    cdef Py_ssize_t i, p, k, n = promotion.shape[0], plans = prices.shape[0]
    cdef bint shared = delivered.shape[0] == plans
    if not shared and delivered.shape[0] != n * plans:
        raise ValueError(f"delivered holds {delivered.shape[0]} values for {n} leads of {plans} plans")
    _check_lengths(plans, quotas=quotas.shape[0])
    _check_lengths(n * plans, terms=terms.shape[1])
    _check_lengths(7, terms_rows=terms.shape[0])
    _check_lengths(
        n,
        demand=demand.shape[0],
        c_max=c_max.shape[0],
        q_min=q_min.shape[0],
        q_max=q_max.shape[0],
        s_left=s_left.shape[0],
        s_right=s_right.shape[0],
    )
    with nogil:
        for i in range(n):
            for p in range(plans):
                k = i * plans + p
                terms[0, k] = (delivered[p] if shared else delivered[k]) * quota_factor(quotas[p], demand[i])
                terms[1, k] = np_maximum(0.0, prices[p] - promotion[i])
                terms[2, k] = c_max[i]
                terms[3, k] = q_min[i]
                terms[4, k] = q_max[i]
                terms[5, k] = s_left[i]
                terms[6, k] = s_right[i]


def plan_terms(
    const int64_t[::1] rows,
    const short[::1] group,
    const double[::1] rate,
    double weekly,
    const double[::1] quotas,
    const double[::1] delivered,
    tuple perception_terms,
    const double[::1] prices,
    tuple promotion,
    tuple budget_terms,
    tuple band,
    double[:, ::1] terms,
):
    """Each row's terms of each plan p at its billing review (reference-notes §4.22; the billing variant
    of §4.7), at column i * plans + p of ``terms``' seven rows: the perceived quality (RB + Del[g, p] +
    TB) F(quota_p, r_i W(d)) - IP - AP (the relationship as stored; the other terms from
    ``perception_terms``, ``quality.perception_terms``); the price [P_p - promotion]+ with the
    ongoing ``promotion`` (global, by group, by customer one per row, by group and plan) added in that
    order (eq 7); and eq 5's inputs: the budget (``budget_terms``: c_max, the groups' c-drift, the
    floor, the groups' WTP multiplier or none) c_max + c-drift, at least the floor, times the
    multiplier; the quality ``band`` (q_min, q_max, the groups' quality shift) shifted; the
    steepnesses (s_left, s_right, in ``band`` too). ``billing.plan_values`` evaluates eq 5 on them."""
    cdef double promo_global = promotion[0]
    cdef const double[::1] promo_by_group = promotion[1], promo_by_customer = promotion[2]
    cdef const double[::1] promo_by_group_plan = promotion[3]
    cdef const double[::1] c_max = budget_terms[0], c_drift = budget_terms[1]
    cdef double c_max_floor = budget_terms[2]
    cdef const double[::1] wtp = budget_terms[3]
    cdef const double[::1] q_min = band[0], q_max = band[1], q_shift = band[2], s_left = band[3], s_right = band[4]
    cdef const double[::1] relationship = perception_terms[0]
    cdef Py_ssize_t i, p, k, plans = prices.shape[0]
    cdef int64_t r
    cdef short g
    cdef bint macro = wtp.shape[0] > 0
    cdef double demand, promo, budget, low, high
    _check_lengths(rows.shape[0] * plans, terms=terms.shape[1])
    _check_lengths(7, terms_rows=terms.shape[0])
    _check_lengths(rows.shape[0], promo_by_customer=promo_by_customer.shape[0])
    cdef Perception per = perception(perception_terms, rows.shape[0])
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            g = group[r]
            demand = rate[r] * weekly
            budget = np_maximum(c_max_floor, c_max[r] + c_drift[g])
            if macro:
                budget = budget * wtp[g]
            low = q_min[r] + q_shift[g]
            high = q_max[r] + q_shift[g]
            for p in range(plans):
                k = i * plans + p
                terms[0, k] = perceived(
                    &per, i, r, relationship[r], delivered[g * plans + p], quota_factor(quotas[p], demand)
                )
                promo = promo_global + promo_by_group[g]
                promo = promo + promo_by_customer[i]
                promo = promo + promo_by_group_plan[g * plans + p]
                terms[1, k] = np_maximum(0.0, prices[p] - promo)
                terms[2, k] = budget
                terms[3, k] = low
                terms[4, k] = high
                terms[5, k] = s_left[r]
                terms[6, k] = s_right[r]
