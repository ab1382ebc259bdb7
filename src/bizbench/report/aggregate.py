"""Aggregating the runs of one model: mean with a 95 % Student-t confidence interval.

For n runs with values x_1..x_n (mean m, sample standard deviation s, ddof 1) the interval
is m +- t_{0.975, n-1} s / sqrt(n). The t distribution is the right small-sample choice
here: papers run 3 (CEO-Bench section 3.1, YC-Bench section 4.1) or 5 (EnterpriseArena
Table 2) seeds per model, where a bootstrap interval is far too narrow (with n = 3 it can
take only a handful of distinct values). The quantile is scipy's (``scipy.stats.t``); the
tests check it against printed tables to 1e-4. With n = 1 there is no interval (None).
Values that are missing for a run (None) are left out and n counts only the runs that have
one.

Each report column (:class:`~bizbench.core.reporting.Column`, declared by the env's report
module) says how its runs combine (``agg``): ``mean`` (mean +- half-width, the default),
``sum`` (counts such as bankruptcies), ``max``, ``min``, or ``std`` (the sample standard
deviation, for the paper's "mean +- std" columns).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import t as student_t

from bizbench.core.reporting import Agg, Column

__all__ = ["Agg", "Column", "Summary", "aggregate", "group_runs", "summarise", "t_quantile"]


@dataclass(frozen=True)
class Summary:
    """The runs of one group on one column."""

    value: float | None  # mean, sum, max, min or std as the column asks
    half_width: float | None  # the 95 % CI half-width (agg "mean", n >= 2), else None
    n: int  # runs with a value

    @property
    def low(self) -> float | None:
        return None if self.value is None or self.half_width is None else self.value - self.half_width

    @property
    def high(self) -> float | None:
        return None if self.value is None or self.half_width is None else self.value + self.half_width


def t_quantile(p: float, df: int) -> float:
    """The p-quantile (0.5 < p < 1) of Student's t with ``df`` >= 1 degrees of freedom."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df >= 1, got p={p}, df={df}")
    return float(student_t.ppf(p, df))


def summarise(values: Iterable[float | None], agg: Agg = "mean", confidence: float = 0.95) -> Summary:
    """Combine one column over runs (None values are left out)."""
    xs = np.array([float(v) for v in values if v is not None and not _isnan(v)], dtype=float)
    n = len(xs)
    if n == 0:
        return Summary(None, None, 0)
    if agg == "sum":
        return Summary(float(xs.sum()), None, n)
    if agg == "max":
        return Summary(float(xs.max()), None, n)
    if agg == "min":
        return Summary(float(xs.min()), None, n)
    if agg == "std":
        return Summary(float(xs.std(ddof=1)) if n > 1 else None, None, n)
    mean = float(xs.mean())
    if n < 2:
        return Summary(mean, None, n)
    half = t_quantile(0.5 + confidence / 2, n - 1) * float(xs.std(ddof=1)) / math.sqrt(n)
    return Summary(mean, half, n)


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def group_runs(items: Sequence[Any], key: Callable[[Any], tuple[str, ...]]) -> dict[tuple[str, ...], list[Any]]:
    """Items grouped by ``key``, groups in first-seen order (items keep their order)."""
    groups: dict[tuple[str, ...], list[Any]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def aggregate(rows: Sequence[dict[str, Any]], columns: Sequence[Column]) -> list[Summary]:
    """One group's per-run metric dicts -> a Summary per column (a key may appear in several
    columns with different ``agg``, e.g. max and mean survival days)."""
    return [summarise((r.get(c.key) for r in rows), c.agg) for c in columns]
