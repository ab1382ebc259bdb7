"""The lending book: one month of collections, charge-offs, originations and interest.

The paper gives the company (5,000 borrowers, $10K average loan; section 4.1) and says its
indicators control "how much revenue is generated, how much is spent" (section 3.1); the
monthly cash-flow model is ours (docs/cfo-model.md):

- loans amortise in equal principal over ``loan_term_months``; each month the scheduled
  principal and last month's accrued interest are collected at the collection rate
  (Table 4), the rest is charged off;
- borrowers who repay leave; new borrowers arrive at the repayment rate plus the user
  growth rate, each taking an average loan: originations are the cash that growth drains;
- an origination fee is collected up front; interest accrues at APR = lending spread + the
  macro fed funds rate on the book after originations and is collected next month.

All amounts are integer cents.
"""

from __future__ import annotations

from dataclasses import dataclass

from bizbench.envs.cfo.config import Lending

__all__ = ["Book", "LendingMonth", "lending_month"]


@dataclass(frozen=True)
class Book:
    principal_cents: int
    interest_receivable_cents: int
    borrowers: float


@dataclass(frozen=True)
class LendingMonth:
    interest_collected_cents: int
    interest_charged_off_cents: int
    principal_collected_cents: int
    principal_charged_off_cents: int
    originations_cents: int
    fees_cents: int
    interest_accrued_cents: int
    new_borrowers: float
    apr_pct: float

    @property
    def revenue_cents(self) -> int:
        return self.interest_accrued_cents + self.fees_cents


def lending_month(
    book: Book,
    growth_pct: float,
    collection_rate: float,
    fed_funds_pct: float,
    average_loan_cents: int,
    cfg: Lending,
) -> tuple[Book, LendingMonth]:
    """Advance the book by one month; returns the new book and the month's flows."""
    interest_collected = round(book.interest_receivable_cents * collection_rate)
    scheduled = round(book.principal_cents / cfg.loan_term_months)
    principal_collected = round(scheduled * collection_rate)
    leaving = book.borrowers / cfg.loan_term_months
    new_borrowers = max(0.0, leaving + book.borrowers * growth_pct / 100)
    originations = round(new_borrowers * average_loan_cents)
    principal = book.principal_cents - scheduled + originations
    apr_pct = cfg.lending_spread_pct + max(fed_funds_pct, 0.0)
    accrued = round(principal * apr_pct / 1200)
    flows = LendingMonth(
        interest_collected_cents=interest_collected,
        interest_charged_off_cents=book.interest_receivable_cents - interest_collected,
        principal_collected_cents=principal_collected,
        principal_charged_off_cents=scheduled - principal_collected,
        originations_cents=originations,
        fees_cents=round(originations * cfg.origination_fee_pct / 100),
        interest_accrued_cents=accrued,
        new_borrowers=new_borrowers,
        apr_pct=apr_pct,
    )
    return Book(principal, accrued, book.borrowers - leaving + new_borrowers), flows
