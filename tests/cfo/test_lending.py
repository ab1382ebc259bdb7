"""The lending book's month (src/bizbench/envs/cfo/world/lending.py; docs/cfo-model.md "The lending book"):
12-month loans repaid in equal principal and collected at the collection rate, borrowers who repay
leave and new ones arrive at the repayment rate plus the user growth rate (never fewer than none),
interest accrues at APR = fed funds + 10 points on the book after originations, a 2 % origination fee.

Every expected figure is worked out below from those rules, in integer cents.
"""

from __future__ import annotations

import pytest

from bizbench.envs.cfo.config import Lending
from bizbench.envs.cfo.env import CfoEnv
from bizbench.envs.cfo.world.lending import Book, LendingMonth, lending_month

LOAN = 100_000  # a $1,000 average loan, in cents


@pytest.mark.parametrize(
    ("fed_funds", "apr", "accrued"),
    [
        (0.0, 10.0, 11_000),  # 1,320,000 x 10 % / 12
        (0.25, 10.25, 11_275),  # 1,320,000 x 10.25 % / 12
        (5.33, 15.33, 16_863),  # 1,320,000 x 15.33 % / 12
    ],
)
def test_the_loan_apr_is_the_fed_funds_rate_plus_ten_points(fed_funds: float, apr: float, accrued: int) -> None:
    """A $12,000 book of 12 borrowers, $100 of interest receivable, growth 10 %, 95 % collected:
    scheduled principal 1,200,000 / 12 = 100,000, collected 95,000, charged off 5,000; interest
    collected 9,500, charged off 500; 12 / 12 = 1 borrower leaves and 1 + 12 x 10 % = 2.2 arrive
    with $1,000 loans: 220,000 (fee 2 % = 4,400); the book after originations, 1,200,000 -
    100,000 + 220,000 = 1,320,000 (not the 1,200,000 before them), accrues a month of the APR."""
    book, month = lending_month(Book(1_200_000, 10_000, 12.0), 10.0, 0.95, fed_funds, LOAN, Lending())
    assert month == LendingMonth(
        interest_collected_cents=9_500,
        interest_charged_off_cents=500,
        principal_collected_cents=95_000,
        principal_charged_off_cents=5_000,
        originations_cents=220_000,
        fees_cents=4_400,
        interest_accrued_cents=accrued,
        new_borrowers=pytest.approx(2.2, abs=1e-12),  # type: ignore[arg-type]
        apr_pct=pytest.approx(apr, abs=1e-12),  # type: ignore[arg-type]
    )
    assert month.revenue_cents == accrued + 4_400
    assert book == Book(1_320_000, accrued, pytest.approx(13.2, abs=1e-12))  # type: ignore[arg-type]


def test_a_month_whose_leavers_plus_growth_come_out_negative_brings_no_new_borrowers() -> None:
    """12 borrowers, growth -10 %: 12 / 12 = 1 leaves, 1 + 12 x -10 % = -0.2 arrive -> 0, not
    -0.2: no origination, no fee; the book runs off to 1,200,000 - 100,000 = 1,100,000 and 11
    borrowers."""
    book, month = lending_month(Book(1_200_000, 0, 12.0), -10.0, 1.0, 2.0, LOAN, Lending())
    assert month.new_borrowers == 0.0
    assert (month.originations_cents, month.fees_cents) == (0, 0)
    assert book.principal_cents == 1_100_000 and book.borrowers == pytest.approx(11.0, abs=1e-12)


def test_a_month_whose_leavers_plus_growth_come_out_exactly_zero_brings_no_new_borrowers() -> None:
    """10-month loans, 20 borrowers, growth -10 %: 20 / 10 = 2 leave, 2 + 20 x -10 % = 0 arrive."""
    book, month = lending_month(Book(1_000_000, 0, 20.0), -10.0, 1.0, 2.0, LOAN, Lending(loan_term_months=10))
    assert month.new_borrowers == 0.0 and month.originations_cents == 0
    assert book.principal_cents == 1_000_000 - 100_000 and book.borrowers == 18.0


def test_a_month_with_less_than_one_new_borrower_counts_the_fraction_not_one() -> None:
    """6 borrowers, growth -5 %: 6 / 12 = 0.5 leave, 0.5 + 6 x -5 % = 0.2 arrive (not 0, not 1): they
    borrow 0.2 x $1,000 = 20,000 cents (fee 400) and the book keeps 6 - 0.5 + 0.2 = 5.7 borrowers;
    principal 600,000 - 600,000 / 12 + 20,000 = 570,000."""
    book, month = lending_month(Book(600_000, 0, 6.0), -5.0, 1.0, 2.0, LOAN, Lending())
    assert month.new_borrowers == pytest.approx(0.2, abs=1e-12)
    assert (month.originations_cents, month.fees_cents) == (20_000, 400)
    assert book.principal_cents == 570_000 and book.borrowers == pytest.approx(5.7, abs=1e-12)


@pytest.mark.parametrize(
    ("surge", "growth", "borrowers", "originations"),
    [
        # floor -10 %: 5,000 / 12 = 416.67 leave, 416.67 - 500 < 0 -> none arrive: 5,000 x 11 / 12
        (-1_000.0, -10.0, 5_000 * 11 / 12, 0),
        # cap 15 %: 416.67 + 750 = 1,166.67 arrive with $10,000 each: 5,000 + 750 borrowers
        (1_000.0, 15.0, 5_750.0, 1_166_666_667),
    ],
)
def test_the_months_record_carries_the_borrowers_the_month_brought(
    surge: float, growth: float, borrowers: float, originations: int
) -> None:
    """The paper preset's month 0 (5,000 borrowers, $10,000 average loan) with a surge so large that
    the user growth sits at its floor (-10 %) or cap (15 %) whatever the macro says: the month's
    record carries that growth, the originations of the new borrowers and the borrowers after."""
    world = CfoEnv.from_preset("paper", 3).world
    world.surges[0] = surge
    record = world.step("pass")
    assert record.user_growth_pct == growth
    assert record.originations_cents == originations
    assert record.borrowers == pytest.approx(borrowers, rel=1e-12)
    assert world.book.borrowers == record.borrowers
