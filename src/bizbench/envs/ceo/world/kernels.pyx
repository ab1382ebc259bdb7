# cython: language_level=3
"""The ceo world's per-subscriber passes, compiled (docs/performance.md, "Compiled kernels").

Each kernel is one mechanic's daily pass over a block of subscribers ``rows`` (customer row
numbers, ascending), reading each customer's columns once and writing its results in place,
instead of numpy's pass per operation with a gather before and a scatter after. The mechanic's
module owns the formula and calls its kernel; the kernel performs the same IEEE operations in the
same order as the numpy expressions it replaced (setup.py compiles without fused multiply-adds or
fast-math), so every result is identical to the last bit. The kernels hold no GIL, so the blocks of
a large market run on ``customers.for_blocks``' threads.
"""

from libc.math cimport floor
from libc.stdint cimport int64_t


cdef inline double np_minimum(double a, double b) noexcept nogil:
    """numpy's minimum of two floats: NaN if either is NaN."""
    return a if (a <= b or a != a) else b


cdef inline double np_maximum(double a, double b) noexcept nogil:
    """numpy's maximum of two floats: NaN if either is NaN."""
    return a if (a >= b or a != a) else b


def nan_positions(const double[::1] column, const int64_t[::1] rows, int64_t[::1] out):
    """Writes the positions i (ascending) where ``column[rows[i]]`` is NaN into ``out``; returns
    their number (the stale stored Q_req of ``satisfaction.daily_requirement``)."""
    cdef Py_ssize_t i, n = 0
    cdef double v
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
    const double[::1] relationship,
    bint relationship_zero_kept,
    double relationship_neutral,
    double relationship_weight,
    int day,
    const int[::1] start_day,
    const double[::1] tenure_bonus,
    const int[::1] issue_days,
    double issue_penalty,
    const double[::1] ad_penalty,
    const double[::1] q_req,
    double new_weight,
    double[::1] satisfaction,
    double[::1] change,
    double[::1] before,
):
    """S <- (1 - w) S + w (Q_perc - Q_req) for each row (eq 15-17, the daily variant of
    ``satisfaction.update_satisfaction``), with Q_perc = (Del[g, plan] - svc + RB + TB) F - IP - AP:
    F = clip(max(quota, 0) / (r_i W(d)), 0, 1), 1 when the demand is not positive; RB = 0.9 (r - 0.5)
    with a relationship of exactly 0 read as 0.5 unless ``relationship_zero_kept``; TB from
    ``tenure_bonus`` by whole days subscribed; ``ad_penalty`` one per row, or empty with no ads.
    Writes S before into ``before``, the new S and its change into the customer's columns.
    ``tenure_bonus`` reaches the longest tenure of the rows (``longest_tenure``)."""
    cdef Py_ssize_t i
    cdef int64_t r
    cdef int days
    cdef bint ads = ad_penalty.shape[0] > 0
    cdef double demand, quota, f, rel, q_perc, s, after, keep = 1.0 - new_weight
    with nogil:
        for i in range(rows.shape[0]):
            r = rows[i]
            demand = rate[r] * weekly
            if demand <= 0:
                f = 1.0
            else:
                quota = np_maximum(quotas[plan[r]], 0.0)
                f = quota / demand
                if f < 0.0:  # np.clip(f, 0, 1) keeps NaN
                    f = 0.0
                elif f > 1.0:
                    f = 1.0
            rel = relationship[r]
            if rel == 0.0 and not relationship_zero_kept:
                rel = 0.5
            days = day - start_day[r]
            if days < 0:
                days = 0
            q_perc = (rel - relationship_neutral) * relationship_weight
            q_perc = q_perc + (delivered[group[r] * n_plans + plan[r]] - service_penalty)
            q_perc += tenure_bonus[days]
            q_perc *= f
            q_perc -= issue_penalty * issue_days[r]
            if ads:
                q_perc -= ad_penalty[i]
            q_perc -= q_req[r]
            s = satisfaction[r]
            before[i] = s
            after = keep * s
            after += q_perc * new_weight
            satisfaction[r] = after
            change[r] = after - s
