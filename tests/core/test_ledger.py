import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizbench.core.ledger import Ledger, LedgerRow, cents_to_dollars, to_cents


@pytest.mark.parametrize(
    "dollars, cents",
    [
        (0.005, 1),
        (-0.005, -1),
        (0.004, 0),
        (1.015, 102),
        (-1.015, -102),
        (2.675, 268),
        (0.1 + 0.2, 30),
        (0, 0),
        (12, 1200),
        (-3, -300),
        (1e6, 100_000_000),
        (19.99, 1999),
    ],
)
def test_to_cents_rounding(dollars, cents):
    assert to_cents(dollars) == cents
    assert isinstance(to_cents(dollars), int)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_to_cents_rejects_non_finite(bad):
    with pytest.raises(ValueError):
        to_cents(bad)


def test_cents_to_dollars():
    assert cents_to_dollars(1999) == 19.99
    assert cents_to_dollars(-5) == -0.05


def test_post_requires_int_cents():
    led = Ledger()
    with pytest.raises(TypeError):
        led.post(0, "x", 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        led.post(0, "x", True)  # type: ignore[arg-type]
    assert len(led) == 0 and led.balance_cents == 0


def test_basic_ledger():
    led = Ledger(start_cents=10_000)
    led.post(0, "revenue", 500, note="sub", group="basic")
    led.post(0, "payroll", -300)
    led.post(1, "revenue", 200)
    assert led.balance_cents == 10_400
    assert led.cash == 104.0
    assert len(led) == 3
    assert led.rows[0] == LedgerRow(0, "revenue", 500, "sub", "basic")
    assert led.totals_by_category() == {"revenue": 700, "payroll": -300}
    assert led.totals_by_category(0) == {"revenue": 500, "payroll": -300}
    assert led.totals_by_category(5) == {}
    assert [r.cents for r in led.day_rows(1)] == [200]
    assert led.day_rows(9) == []


def test_a_ledger_lists_its_days_sorted_and_iterates_its_rows_in_posting_order():
    led = Ledger()
    led.post(5, "revenue", 100)
    led.post(2, "payroll", -40)
    led.post(5, "refund", -10)
    assert led.days() == [2, 5]  # posted out of order, each day once
    assert [(r.day, r.cents) for r in led] == [(5, 100), (2, -40), (5, -10)]
    assert Ledger().days() == [] and list(Ledger()) == []


postings = st.lists(
    st.tuples(
        st.integers(0, 30),
        st.sampled_from(["revenue", "payroll", "marketing", "refund"]),
        st.integers(-(10**12), 10**12),
    ),
    max_size=60,
)


@given(start=st.integers(-(10**9), 10**12), rows=postings)
def test_balance_always_equals_start_plus_sum(start, rows):
    led = Ledger(start_cents=start)
    for day, cat, cents in rows:
        led.post(day, cat, cents)
        assert led.balance_cents == start + sum(r.cents for r in led.rows)
    assert sum(led.totals_by_category().values()) == led.balance_cents - start
    for day in {d for d, _, _ in rows}:
        assert led.day_rows(day) == [r for r in led.rows if r.day == day]
        assert sum(led.totals_by_category(day).values()) == sum(r.cents for r in led.rows if r.day == day)


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_to_cents_close_to_value(x):
    assert abs(to_cents(x) - x * 100) <= 0.5 + 1e-6 * abs(x * 100)
