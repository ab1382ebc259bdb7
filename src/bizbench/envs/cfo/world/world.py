"""The EnterpriseArena world: one lending company, month by month (paper section 3).

At month ``t`` the agent acts on what it knows at the end of month ``t - 1``; its one action
(section 3.3) is applied, then the world runs month ``t``: fundraising settles, bills are
paid, the book collects and lends (``lending``), revenue and costs accrue, and every flow is
posted to the double-entry ledger (``accounting``). Cash below zero at a month's end ends
the episode (section 3.5 "Survival"). Everything here is hidden truth; the env decides what
the agent may see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bizbench.core.ledger import to_cents
from bizbench.core.rng import RngStreams
from bizbench.envs.cfo.config import CfoConfig
from bizbench.envs.cfo.world import fundraising as fr
from bizbench.envs.cfo.world.accounting import GeneralLedger
from bizbench.envs.cfo.world.costs import operating_costs
from bizbench.envs.cfo.world.growth import surge_schedule, user_growth_pct
from bizbench.envs.cfo.world.indicators import IndicatorState, initial_indicators, perturb
from bizbench.envs.cfo.world.lending import Book, LendingMonth, lending_month
from bizbench.envs.cfo.world.macro import MacroPath, generate_path, paper_path

__all__ = ["ACTIONS", "CfoWorld", "Tranche"]

ACTIONS = ("book_closing", "fund_raising_request", "pass")


@dataclass
class Tranche:
    """One debt contract: bullet principal, fixed annual rate set at settlement (Table 5)."""

    principal_cents: int
    rate: float
    start_month: int
    maturity_month: int


@dataclass(frozen=True)
class OpeningPlan:
    """One steady month of the opening book (see :meth:`CfoWorld.opening_plan`)."""

    lending: LendingMonth
    cost_of_revenue_cents: int
    opex_cents: int
    collection_rate: float


@dataclass
class MonthRecord:
    """What happened in one simulated month (hidden truth; the env's metrics read it)."""

    month: int
    action: str
    cash_cents: int
    revenue_cents: int
    originations_cents: int
    user_growth_pct: float
    borrowers: float
    debt_cents: int
    events: list[dict[str, Any]] = field(default_factory=list)


class CfoWorld:
    """State and monthly step of the cfo env."""

    def __init__(self, config: CfoConfig, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.rng = RngStreams(seed)
        self.months = config.months
        cfg = config
        self.macro: MacroPath = (
            paper_path() if cfg.macro.source == "paper" else generate_path(self.rng["macro"], cfg.macro.generator)
        )
        if self.macro.months < self.months:
            raise ValueError(f"the macro path has {self.macro.months} months; the preset needs {self.months}")
        self.surges = surge_schedule(cfg.surges, self.months, self.rng["surges"])
        self.indicators: IndicatorState = initial_indicators(cfg.indicators)
        self.average_loan_cents = to_cents(cfg.company.average_loan_dollars)
        self.cash_cents = to_cents(cfg.company.start_cash_dollars)
        # A going concern: last month's interest is still to collect and its vendor bills to pay.
        principal = cfg.company.borrowers * self.average_loan_cents
        self.plan = self.opening_plan()
        self.book = Book(principal, self.plan.lending.interest_accrued_cents, float(cfg.company.borrowers))
        self.opex_payable_cents = self.plan.opex_cents
        self.interest_payable_cents = 0
        paid_in = to_cents(cfg.company.paid_in_capital_dollars)
        assets = self.cash_cents + principal + self.book.interest_receivable_cents
        self.ledger = GeneralLedger(self.months)
        self.ledger.open(
            {
                "cash": self.cash_cents,
                "loans_receivable": principal,
                "interest_receivable": self.book.interest_receivable_cents,
                "accounts_payable": self.opex_payable_cents,
                "paid_in_capital": paid_in,
                "retained_earnings": assets - self.opex_payable_cents - paid_in,
            }
        )
        self.shares = cfg.company.shares_outstanding
        self.equity_rounds = 0
        self.pending: fr.Attempt | None = None
        self.attempts: list[fr.Attempt] = []
        self.tranches: list[Tranche] = []
        self.closings: list[int] = []  # decision months at which the books were closed
        self.history: list[MonthRecord] = []
        self.month = 0
        self.bankrupt = False
        # Valuation anchor (ours, docs/cfo-model.md): enterprise value moves with the P/S
        # multiple and the interest run-rate from the opening $10/share.
        self._ev0_cents = cfg.company.shares_outstanding * to_cents(cfg.company.share_price_dollars) - self.cash_cents
        self._ps0 = self.macro.at(0)["ps_ratio"]
        self._run_rate0 = max(self.plan.lending.interest_accrued_cents, 1)
        self._run_rate = self._run_rate0

    def opening_plan(self) -> OpeningPlan:
        """A steady month of the opening book (no growth, the indicators' opening values): the
        opening balances and the business plan the board documents quote."""
        cfg = self.config
        ind = cfg.indicators
        book = Book(cfg.company.borrowers * self.average_loan_cents, 0, float(cfg.company.borrowers))
        fed_funds = self.macro.at(0)["fed_funds"]
        _, flows = lending_month(book, 0.0, ind.collection_rate.start, fed_funds, self.average_loan_cents, cfg.lending)
        cost_of_revenue, opex = operating_costs(
            flows.revenue_cents, ind.gross_margin_pct.start, ind.ebitda_margin_pct.start
        )
        return OpeningPlan(flows, cost_of_revenue, opex, ind.collection_rate.start)

    # ------------------------------------------------------------------ read-outs
    @property
    def done(self) -> bool:
        return self.bankrupt or self.month >= self.months

    @property
    def debt_cents(self) -> int:
        return sum(t.principal_cents for t in self.tranches)

    @property
    def last_closed_month(self) -> int | None:
        """The last month covered by closed books (closing at t covers months < t); None if never
        closed, -1 if closed before any month ran (the opening balance sheet)."""
        return self.closings[-1] - 1 if self.closings else None

    def book_equity_cents(self) -> int:
        """Paid-in capital + retained earnings at the end of the last completed month."""
        m = self.month - 1
        return self.ledger.balance("paid_in_capital", m) + self.ledger.balance("retained_earnings", m)

    def enterprise_value_cents(self) -> int:
        """The operations' value: opening EV x P/S change x interest run-rate change (ours)."""
        ps = self.macro.at(self.month)["ps_ratio"]
        return max(round(self._ev0_cents * (ps / self._ps0) * (self._run_rate / self._run_rate0)), 1)

    def share_price_cents(self) -> float:
        """Price of a new share: market (EV + cash - debt) or, in presets that score per share,
        the score's own value (eq 2 with net cash; with ``annualise_year_one`` the revenue is
        annualised in year 1), so that a raise at that price is neutral."""
        equity = self.config.fundraising.equity
        if equity.share_pricing == "market":
            value = self.enterprise_value_cents() + self.cash_cents - self.debt_cents
        else:
            revenue = self.revenue_annualised_cents() if equity.annualise_year_one else self.revenue_ttm_cents()
            value = round(self.config.score.revenue_multiple * revenue) + self.cash_cents
            value -= self.debt_cents
        return max(value, 1) / self.shares

    def debt_rate(self, extra_debt_cents: int) -> float:
        """Table 5's contract rate at this month's yields with ``extra_debt_cents`` more debt."""
        m = self.macro.at(min(self.month, self.months - 1))
        lev = fr.leverage(self.debt_cents + extra_debt_cents, self.book_equity_cents())
        return fr.contract_rate(m["treasury_2y"], m["baa_yield"], lev, self.config.fundraising.debt)

    def debt_interest_cents(self) -> int:
        """This month's interest on the outstanding contracts."""
        return self.debt_service_cents(self.month)[0]

    def debt_service_cents(self, month: int) -> tuple[int, int]:
        """(interest, principal due) in ``month`` on the contracts signed so far."""
        live = [tr for tr in self.tranches if tr.maturity_month >= month]
        interest = sum(round(tr.principal_cents * tr.rate / 12) for tr in live)
        return interest, sum(tr.principal_cents for tr in live if tr.maturity_month == month)

    def raise_probability(self, kind: str, amount_cents: int) -> float:
        """p_adj of Table 5 for a request made now (hidden from the agent)."""
        m = self.macro.at(self.month)
        cfg = self.config.fundraising
        if kind == "equity":
            age = None if self.last_closed_month is None else self.month - 1 - self.last_closed_month
            return fr.equity_probability(
                m["vix"], self.equity_rounds, amount_cents, self.enterprise_value_cents(), cfg.equity, age
            )
        lev = fr.leverage(self.debt_cents + amount_cents, self.book_equity_cents())
        return fr.debt_probability(m["sofr"], lev, cfg.debt)

    # ------------------------------------------------------------------ the month
    def step(self, action: str, kind: str | None = None, amount_cents: int | None = None) -> MonthRecord:
        """Apply the month's action and run the month. Validation is the env's job; this
        raises ValueError on anything it cannot apply."""
        if self.done:
            raise ValueError("the episode has ended")
        t = self.month
        events: list[dict[str, Any]] = []
        if action == "book_closing":
            self.closings.append(t)
        elif action == "fund_raising_request":
            if self.pending is not None:
                raise ValueError("a fundraising request is already pending")
            if kind not in ("equity", "debt") or amount_cents is None or amount_cents <= 0:
                raise ValueError("fund_raising_request needs kind equity|debt and a positive amount")
            p = self.raise_probability(kind, amount_cents)
            self.pending = fr.draw_attempt(kind, amount_cents, t, p, self.config.fundraising, self.rng["fundraising"])
            self.attempts.append(self.pending)
        elif action != "pass":
            raise ValueError(f"unknown action {action!r}; expected one of {', '.join(ACTIONS)}")
        events += self._settle(t)
        revenue, originations, growth = self._operate(t)
        self.month = t + 1
        if self.cash_cents < 0:
            self.bankrupt = True
            events.append({"kind": "bankrupt", "month": t, "cash_cents": self.cash_cents})
        record = MonthRecord(
            t, action, self.cash_cents, revenue, originations, growth, self.book.borrowers, self.debt_cents, events
        )
        self.history.append(record)
        return record

    def _settle(self, t: int) -> list[dict[str, Any]]:
        """Pending fundraising whose delay ends this month (Table 5)."""
        a = self.pending
        if a is None or a.settle_month != t:
            return []
        self.pending = None
        event: dict[str, Any] = {
            "kind": "fundraising_result",
            "type": a.kind,
            "requested_cents": a.requested_cents,
            "requested_month": a.month,
            "success": a.success,
            "received_cents": a.received_cents,
        }
        if not a.success:
            return [event]
        if a.kind == "equity":
            new_shares = int(a.received_cents / self.share_price_cents())
            self.shares += new_shares
            self.equity_rounds += 1
            self._move(t, "equity round settled", "cash", "paid_in_capital", a.received_cents, "equity_issued")
            event["new_shares"] = new_shares
        else:
            rate = self.debt_rate(a.received_cents)  # set at settlement (section 3.3)
            maturity = t + self.config.fundraising.debt.maturity_months
            self.tranches.append(Tranche(a.received_cents, rate, t, maturity))
            self._move(t, "debt drawn", "cash", "debt", a.received_cents, "debt_borrowed")
            event.update(rate=round(rate, 6), maturity_month=maturity)
        return [event]

    def _operate(self, t: int) -> tuple[int, int, float]:
        """One month of operations, posted to the ledger; returns (revenue, originations, growth)."""
        cfg = self.config
        m = self.macro.at(t)
        self.indicators = perturb(self.indicators, cfg.indicators, self.rng["indicators"])
        ind = self.indicators
        move = self._move
        move(t, "vendor invoices paid", "accounts_payable", "cash", self.opex_payable_cents, "operating_expenses_paid")
        move(t, "debt interest paid", "interest_payable", "cash", self.interest_payable_cents, "interest_paid")
        for tr in [tr for tr in self.tranches if tr.maturity_month == t]:
            move(t, "debt principal repaid", "debt", "cash", tr.principal_cents, "debt_repaid")
            self.tranches.remove(tr)
        growth = user_growth_pct(m["industry_user_growth"], ind.user_growth_dev_pct, float(self.surges[t]), cfg.lending)
        self.book, f = lending_month(
            self.book, growth, ind.collection_rate, m["fed_funds"], self.average_loan_cents, cfg.lending
        )
        move(t, "interest collected", "cash", "interest_receivable", f.interest_collected_cents, "interest_collected")
        move(t, "interest charged off", "credit_losses", "interest_receivable", f.interest_charged_off_cents)
        move(t, "principal collected", "cash", "loans_receivable", f.principal_collected_cents, "principal_collected")
        move(t, "principal charged off", "credit_losses", "loans_receivable", f.principal_charged_off_cents)
        move(t, "loans originated", "loans_receivable", "cash", f.originations_cents, "loans_originated")
        move(t, "origination fees", "cash", "fee_income", f.fees_cents, "fees_collected")
        move(t, "interest accrued", "interest_receivable", "interest_income", f.interest_accrued_cents)
        revenue = f.revenue_cents
        cost_of_revenue, opex = operating_costs(revenue, ind.gross_margin_pct, ind.ebitda_margin_pct)
        move(t, "funding and servicing costs", "cost_of_revenue", "cash", cost_of_revenue, "cost_of_revenue_paid")
        move(t, "operating costs accrued", "operating_expenses", "accounts_payable", opex)
        self.opex_payable_cents = opex
        interest = self.debt_interest_cents()
        move(t, "debt interest accrued", "interest_expense", "interest_payable", interest)
        self.interest_payable_cents = interest
        self._run_rate = max(f.interest_accrued_cents, 1)
        return revenue, f.originations_cents, growth

    def _move(self, month: int, memo: str, debit: str, credit: str, cents: int, cash_flow: str | None = None) -> None:
        """Post a two-line entry (debit ``debit``, credit ``credit``); nothing for a zero amount."""
        if not cents:
            return
        self.ledger.post(month, memo, [(debit, cents), (credit, -cents)], cash_flow)
        self.cash_cents += cents if debit == "cash" else -cents if credit == "cash" else 0

    # ------------------------------------------------------------------ score (eq 2)
    def revenue_ttm_cents(self) -> int:
        return self.ledger.revenue_ttm(self.month - 1) if self.month else 0

    def revenue_annualised_cents(self) -> int:
        """Eq 2's Rev_TTM on a full year: the trailing revenue of the ``n < 12`` months run so far
        x 12 / n, and before any month the opening plan's month x 12. In year 1 the trailing
        twelve months are partly empty, so a share priced on them would be priced on a fraction
        of the revenue the horizon's score counts (a year-1 raise would dilute at about half the
        value of a year-2 one); annualised, a raise is priced as the score values the company."""
        months = min(self.month, 12)
        if months == 0:
            return 12 * self.plan.lending.revenue_cents
        return (self.revenue_ttm_cents() * 12 + months // 2) // months

    def snapshot(self) -> dict[str, Any]:
        """Everything (hidden state included) for digests and determinism tests."""
        return {
            "month": self.month,
            "cash": self.cash_cents,
            "book": [self.book.principal_cents, self.book.interest_receivable_cents, self.book.borrowers],
            "indicators": [
                self.indicators.gross_margin_pct,
                self.indicators.ebitda_margin_pct,
                self.indicators.user_growth_dev_pct,
                self.indicators.collection_rate,
            ],
            "shares": self.shares,
            "rounds": self.equity_rounds,
            "pending": None if self.pending is None else vars(self.pending),
            "attempts": [vars(a) for a in self.attempts],
            "tranches": [vars(t) for t in self.tranches],
            "closings": self.closings,
            "payables": [self.opex_payable_cents, self.interest_payable_cents],
            "bankrupt": self.bankrupt,
            "rng": self.rng.get_state(),
            "surges": np.round(self.surges, 9).tolist(),
        }
