import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bizbench.core.ledger import Ledger, LedgerRow, cents_to_dollars, to_cents, to_cents_array


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


def test_to_cents_refuses_a_bool_and_a_non_finite_amount_with_the_reason():
    with pytest.raises(ValueError) as flag:
        to_cents(True)
    assert str(flag.value) == "amount must be a number, got bool"
    with pytest.raises(ValueError) as nan:
        to_cents(math.nan)
    assert str(nan.value) == "amount must be finite, got nan"


def test_to_cents_array_rounds_each_amount_half_away_from_zero_to_integer_cents():
    # binary-exact amounts, so the half cents are exact: 0.125 $ = 12.5 c -> 13, 0.0625 $ = 6.25 c -> 6
    cents = to_cents_array(np.array([0.125, -0.125, 0.375, 0.0625, -0.0625, 3.0, 0.0]))
    assert cents.dtype == np.int64
    assert cents.tolist() == [13, -13, 38, 6, -6, 300, 0]
    # float32 amounts are scaled as float64: 1,234,567.125 $ = 123,456,712.5 c -> 123,456,713
    # (in float32 the product would not even hold the half cent)
    assert to_cents_array(np.array([1234567.125], dtype=np.float32)).tolist() == [123_456_713]


def test_a_ledger_keeps_its_opening_balance_and_refuses_one_that_is_not_whole_cents():
    assert Ledger(start_cents=10_000).start_cents == 10_000
    for bad, kind in ((1.5, "float"), (True, "bool")):
        with pytest.raises(TypeError) as e:
            Ledger(start_cents=bad)  # type: ignore[arg-type]
        assert str(e.value) == f"start_cents must be int, got {kind}"


def test_a_posting_that_is_not_whole_cents_or_not_on_a_whole_day_is_refused_with_the_reason():
    led = Ledger()
    with pytest.raises(TypeError) as cents:
        led.post(0, "x", 1.5)  # type: ignore[arg-type]
    assert str(cents.value) == "cents must be int, got float: 1.5"
    with pytest.raises(TypeError) as day:
        led.post("0", "x", 1)  # type: ignore[arg-type]
    assert str(day.value) == "day must be int, got str"
    with pytest.raises(TypeError) as flag_day:
        led.post(True, "x", 1)  # type: ignore[arg-type]
    assert str(flag_day.value) == "day must be int, got bool"
    assert len(led) == 0 and led.balance_cents == 0


def test_a_posting_without_a_note_or_a_group_has_empty_ones():
    led = Ledger()
    led.post(3, "fees", -250)
    assert led.rows == [LedgerRow(3, "fees", -250, "", "")]
