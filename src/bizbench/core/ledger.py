"""Exact money: integer cents and an append-only ledger (docs/principles.md principle 7).

Amounts are signed: income is positive, costs are negative. ``balance_cents`` always equals
``start_cents + sum(row.cents for row in rows)``; it is maintained incrementally.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

import numpy as np

__all__ = ["Ledger", "LedgerRow", "cents_to_dollars", "to_cents"]


def to_cents(dollars: float) -> int:
    """Dollars -> integer cents, rounding half away from zero (0.005 -> 1, -0.005 -> -1).

    Uses ``Decimal(str(x))`` so the shortest repr of the float is rounded, not its binary
    expansion. NaN and infinities raise ``ValueError``.
    """
    if isinstance(dollars, bool):
        raise ValueError("amount must be a number, got bool")
    if isinstance(dollars, int):
        return dollars * 100
    x = float(dollars)
    if not math.isfinite(x):
        raise ValueError(f"amount must be finite, got {x!r}")
    d = Decimal(str(x)) * 100
    return int(d.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def to_cents_array(dollars: np.ndarray) -> np.ndarray:
    """Vectorised :func:`to_cents` for finite float arrays: round half away from zero."""
    scaled = np.asarray(dollars, dtype=np.float64) * 100.0
    return (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype(np.int64)


def cents_to_dollars(c: int) -> float:
    """Integer cents -> dollars as a float (for display and metrics only)."""
    return c / 100


class LedgerRow(NamedTuple):
    day: int
    category: str
    cents: int
    note: str
    group: str


class Ledger:
    """Append-only list of signed integer-cent postings with a running balance."""

    def __init__(self, start_cents: int | None = None) -> None:
        if start_cents is None:
            start_cents = 0
        if not isinstance(start_cents, int) or isinstance(start_cents, bool):
            raise TypeError(f"start_cents must be int, got {type(start_cents).__name__}")
        self.start_cents = start_cents
        self._balance = start_cents
        self.rows: list[LedgerRow] = []
        # day -> indices of that day's rows, so day_rows() is O(rows that day) whatever
        # order days are posted in.
        self._day_index: dict[int, list[int]] = {}

    def post(self, day: int, category: str, cents: int, note: str = "", group: str = "") -> None:
        """Append a row. ``cents`` must be an ``int`` (positive income, negative cost)."""
        if not isinstance(cents, int) or isinstance(cents, bool):
            raise TypeError(f"cents must be int, got {type(cents).__name__}: {cents!r}")
        if not isinstance(day, int) or isinstance(day, bool):
            raise TypeError(f"day must be int, got {type(day).__name__}")
        self._day_index.setdefault(day, []).append(len(self.rows))
        self.rows.append(LedgerRow(day, category, cents, note, group))
        self._balance += cents

    @property
    def balance_cents(self) -> int:
        return self._balance

    @property
    def cash(self) -> float:
        """Balance in dollars (float; for display and metrics)."""
        return cents_to_dollars(self._balance)

    def day_rows(self, day: int) -> list[LedgerRow]:
        """Rows posted for ``day``, in posting order (O(rows that day))."""
        return [self.rows[i] for i in self._day_index.get(day, ())]

    def days(self) -> list[int]:
        return sorted(self._day_index)

    def totals_by_category(self, day: int | None = None) -> dict[str, int]:
        """Sum of cents per category, over all rows or over one ``day``."""
        rows = self.rows if day is None else self.day_rows(day)
        out: dict[str, int] = {}
        for r in rows:
            out[r.category] = out.get(r.category, 0) + r.cents
        return out

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[LedgerRow]:
        return iter(self.rows)

    def __repr__(self) -> str:
        return f"Ledger(balance_cents={self._balance}, rows={len(self.rows)})"
