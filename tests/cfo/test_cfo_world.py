"""The cfo world's month (src/bizbench/envs/cfo/world/world.py; docs/cfo-model.md): the opening
balance sheet, fundraising settlement, the month's journal entry by entry, the action and the
survival rule, and the read-outs that price a raise.

The worlds here are small (24 borrowers with $1,000 loans, $10,000 of cash, 1,000 shares) on the
paper macro path, whose month 0 reads fed funds 0.11 %, 2-year Treasury 0.55 %, Baa 4.45 %,
industry user growth 2.80 % and P/S 1.80, and month 1 industry user growth 2.78 %
(src/bizbench/envs/cfo/data/macro_paper.csv). The indicators are held at chosen values (gross
margin 50 %, EBITDA margin 20 %, growth deviation 12 % a year, collection rate 0.9) so every
figure below is worked out by hand, in integer cents.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bizbench.envs.cfo.config import CfoConfig, Company, load_config
from bizbench.envs.cfo.world import fundraising as fr
from bizbench.envs.cfo.world import world as world_module
from bizbench.envs.cfo.world.indicators import IndicatorState
from bizbench.envs.cfo.world.lending import Book
from bizbench.envs.cfo.world.world import CfoWorld, MonthRecord, Tranche

STEADY = IndicatorState(gross_margin_pct=50.0, ebitda_margin_pct=20.0, user_growth_dev_pct=12.0, collection_rate=0.9)

# The opening plan's steady month (no growth, the preset's opening indicators: gross margin 60 %,
# EBITDA margin 25 %, collection 0.97) on 24 x $1,000 = 2,400,000 cents of loans: 2 borrowers
# repay and 2 replace them (200,000 of originations, fee 2 % = 4,000); the book stays 2,400,000
# and accrues 2,400,000 x (10 + 0.11) % / 12 = 20,220; revenue 24,220; cost of revenue 40 % =
# 9,688; opex 60 - 25 = 35 % = 8,477.
OPENING_INTEREST = 20_220
OPENING_OPEX = 8_477
# Book equity = assets - liabilities = 1,000,000 + 2,400,000 + 20,220 - 8,477.
OPENING_EQUITY = 3_411_743


def exactly(message: str) -> str:
    """A pattern matching the whole error message and nothing around it."""
    return f"^{re.escape(message)}$"


def small_config(months: int = 3, maturity: int = 36, **company: Any) -> CfoConfig:
    config, _ = load_config("paper")
    fundraising = config.fundraising
    debt = fundraising.debt.model_copy(update={"maturity_months": maturity})
    opening = dict(
        start_cash_dollars=10_000,
        borrowers=24,
        average_loan_dollars=1_000,
        shares_outstanding=1_000,
        share_price_dollars=10.0,
        paid_in_capital_dollars=20_000,
    )
    return config.model_copy(
        update={
            "months": months,
            "company": Company(**(opening | company)),
            "fundraising": fundraising.model_copy(update={"debt": debt}),
        }
    )


def small_world(monkeypatch: pytest.MonkeyPatch, months: int = 3, maturity: int = 36, **company: Any) -> CfoWorld:
    """A small world whose indicators stay at STEADY and whose surges are zero."""
    monkeypatch.setattr(world_module, "perturb", lambda state, cfg, rng: STEADY)
    world = CfoWorld(small_config(months, maturity, **company), 5)
    world.surges[:] = 0.0
    return world


def entries(world: CfoWorld, month: int) -> list[tuple[str, dict[str, int], str | None]]:
    """The month's journal as (memo, {account: debit-positive cents}, cash-flow category)."""
    return [
        (e["memo"], {line["account"]: line["amount"] for line in e["lines"]}, e["cash_flow"])
        for e in world.ledger.journal(month, month)
    ]


def attempt(kind: str, received: int, settle: int = 0, success: bool = True, requested: int = 9_000_000) -> fr.Attempt:
    return fr.Attempt(
        kind=kind,
        requested_cents=requested,
        month=0,
        settle_month=settle,
        success=success,
        received_cents=received,
        probability=0.5,
    )


# ---------------------------------------------------------------------------- the opening
def test_the_opening_balance_sheet_is_one_steady_month_of_the_opening_book(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/cfo-model.md "Opening balance sheet": cash, the loans, one steady month's interest
    receivable and unpaid vendor bills; paid-in capital as configured, retained earnings close
    the equation: 1,000,000 + 2,400,000 + 20,220 - 8,477 - 2,000,000 = 1,411,743."""
    world = small_world(monkeypatch)
    plan = world.opening_plan()
    assert plan.lending.interest_accrued_cents == OPENING_INTEREST
    assert (plan.lending.originations_cents, plan.lending.fees_cents) == (200_000, 4_000)
    assert plan.lending.principal_collected_cents == 194_000  # 200,000 scheduled x 0.97
    # the plan's book starts with nothing receivable (records.business_plan adds the steady collection)
    assert (plan.lending.interest_collected_cents, plan.lending.interest_charged_off_cents) == (0, 0)
    assert plan.lending.apr_pct == pytest.approx(10.11, abs=1e-12)
    assert (plan.cost_of_revenue_cents, plan.opex_cents, plan.collection_rate) == (9_688, OPENING_OPEX, 0.97)
    assert world.plan == plan
    assert world.book == Book(2_400_000, OPENING_INTEREST, 24.0)
    assert (world.cash_cents, world.opex_payable_cents, world.interest_payable_cents) == (1_000_000, OPENING_OPEX, 0)
    bs = world.ledger.balance_sheet(-1)
    assert bs["assets"] == {"cash": 1_000_000, "loans_receivable": 2_400_000, "interest_receivable": OPENING_INTEREST}
    assert bs["liabilities"] == {"accounts_payable": OPENING_OPEX, "interest_payable": 0, "debt": 0}
    assert bs["equity"] == {"paid_in_capital": 2_000_000, "retained_earnings": 1_411_743}
    assert world.book_equity_cents() == OPENING_EQUITY
    assert (world.shares, world.equity_rounds, world.month, world.months) == (1_000, 0, 0, 3)
    assert (world.pending, world.attempts, world.tranches, world.closings, world.history) == (None, [], [], [], [])
    assert world.bankrupt is False and not world.done
    assert world.average_loan_cents == 100_000 and world.seed == 5


def test_the_opening_plan_reads_the_opening_indicators_not_the_current_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a month at STEADY (gross 50 %, EBITDA 20 %, collection 0.9) the plan is still the
    opening one: 60 % / 25 % / 0.97 on the opening book, whatever the book has become."""
    world = small_world(monkeypatch)
    world.step("pass")
    plan = world.opening_plan()
    assert (plan.cost_of_revenue_cents, plan.opex_cents, plan.collection_rate) == (9_688, OPENING_OPEX, 0.97)
    assert plan.lending.interest_accrued_cents == OPENING_INTEREST


def test_a_macro_path_shorter_than_the_preset_is_refused() -> None:
    """The paper path has exactly 132 months: a 132-month world is built, a 133-month one refused."""
    assert CfoWorld(small_config(months=132), 1).months == 132
    with pytest.raises(ValueError, match=exactly("the macro path has 132 months; the preset needs 133")):
        CfoWorld(small_config(months=133), 1)


# ---------------------------------------------------------------------------- one month, entry by entry
def test_a_debt_months_journal_entry_by_entry_and_the_bullet_repaid_at_maturity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Month 0: a debt request settles with 3,411,743 cents, exactly the book equity, so L = 1
    and the rate is (0.55 + 4.45) / 100 + 500 bps x (1 - 0.5) = 0.075 (Table 5), due after one
    month. Then the month runs (growth 0.2 x 2.80 + 12 / 12 + a 0.44 surge = 2 %):
    - the opening vendor bills 8,477 are paid; no debt interest is payable yet;
    - interest 20,220 x 0.9 = 18,198 collected, 2,022 charged off;
    - principal 2,400,000 / 12 = 200,000 scheduled, 180,000 collected, 20,000 charged off;
    - 2 borrowers leave, 2 + 24 x 2 % = 2.48 arrive: 248,000 lent, fee 4,960;
    - the book 2,400,000 - 200,000 + 248,000 = 2,448,000 accrues x 10.11 % / 12 = 20,624.4 -> 20,624;
    - revenue 20,624 + 4,960 = 25,584: cost of revenue 50 % = 12,792 paid, opex 30 % = 7,675 accrued;
    - debt interest 3,411,743 x 0.075 / 12 = 21,323.39 -> 21,323 accrued.
    Cash: 1,000,000 + 3,411,743 - 8,477 + 18,198 + 180,000 - 248,000 + 4,960 - 12,792 = 4,345,632."""
    world = small_world(monkeypatch, maturity=1)
    world.surges[0] = 0.44
    world.pending = attempt("debt", OPENING_EQUITY)
    record = world.step("pass")
    assert entries(world, 0) == [
        ("debt drawn", {"cash": OPENING_EQUITY, "debt": -OPENING_EQUITY}, "debt_borrowed"),
        ("vendor invoices paid", {"accounts_payable": 8_477, "cash": -8_477}, "operating_expenses_paid"),
        ("interest collected", {"cash": 18_198, "interest_receivable": -18_198}, "interest_collected"),
        ("interest charged off", {"credit_losses": 2_022, "interest_receivable": -2_022}, None),
        ("principal collected", {"cash": 180_000, "loans_receivable": -180_000}, "principal_collected"),
        ("principal charged off", {"credit_losses": 20_000, "loans_receivable": -20_000}, None),
        ("loans originated", {"loans_receivable": 248_000, "cash": -248_000}, "loans_originated"),
        ("origination fees", {"cash": 4_960, "fee_income": -4_960}, "fees_collected"),
        ("interest accrued", {"interest_receivable": 20_624, "interest_income": -20_624}, None),
        ("funding and servicing costs", {"cost_of_revenue": 12_792, "cash": -12_792}, "cost_of_revenue_paid"),
        ("operating costs accrued", {"operating_expenses": 7_675, "accounts_payable": -7_675}, None),
        ("debt interest accrued", {"interest_expense": 21_323, "interest_payable": -21_323}, None),
    ]
    event = {
        "kind": "fundraising_result",
        "type": "debt",
        "requested_cents": 9_000_000,
        "requested_month": 0,
        "success": True,
        "received_cents": OPENING_EQUITY,
        "rate": 0.075,
        "maturity_month": 1,
    }
    assert record == MonthRecord(
        0,
        "pass",
        4_345_632,
        25_584,
        248_000,
        pytest.approx(2.0, abs=1e-12),
        pytest.approx(24.48),
        OPENING_EQUITY,
        [event],
    )
    assert world.tranches == [Tranche(OPENING_EQUITY, pytest.approx(0.075, abs=1e-15), 0, 1)]  # type: ignore[arg-type]
    assert world.cash_cents == world.ledger.balance("cash", 0) == 4_345_632
    assert (world.opex_payable_cents, world.interest_payable_cents) == (7_675, 21_323)
    assert world.book == Book(2_448_000, 20_624, pytest.approx(24.48))  # type: ignore[arg-type]
    assert world._run_rate == 20_624
    assert (world.month, world.pending, world.history) == (1, None, [record])

    # Month 1 (growth 0.2 x 2.78 + 1 + a 0.444 surge = 2 %): last month's bills 7,675 and
    # interest 21,323 are paid and the bullet 3,411,743 repaid; interest 20,624 x 0.9 =
    # 18,561.6 -> 18,562 collected, 2,062 charged off; 2,448,000 / 12 = 204,000 scheduled,
    # 183,600 collected, 20,400 charged off; 24.48 / 12 = 2.04 leave, 2.04 + 24.48 x 2 % =
    # 2.5296 arrive: 252,960 lent, fee 5,059.2 -> 5,059; the book 2,496,960 accrues 21,036.89
    # -> 21,037; revenue 26,096: cost of revenue 13,048, opex 7,828.8 -> 7,829; no debt left,
    # so no interest accrues. Cash 4,345,632 - 7,675 - 21,323 - 3,411,743 + 18,562 + 183,600
    # - 252,960 + 5,059 - 13,048 = 846,104.
    world.surges[1] = 0.444
    record = world.step("pass")
    assert entries(world, 1) == [
        ("vendor invoices paid", {"accounts_payable": 7_675, "cash": -7_675}, "operating_expenses_paid"),
        ("debt interest paid", {"interest_payable": 21_323, "cash": -21_323}, "interest_paid"),
        ("debt principal repaid", {"debt": OPENING_EQUITY, "cash": -OPENING_EQUITY}, "debt_repaid"),
        ("interest collected", {"cash": 18_562, "interest_receivable": -18_562}, "interest_collected"),
        ("interest charged off", {"credit_losses": 2_062, "interest_receivable": -2_062}, None),
        ("principal collected", {"cash": 183_600, "loans_receivable": -183_600}, "principal_collected"),
        ("principal charged off", {"credit_losses": 20_400, "loans_receivable": -20_400}, None),
        ("loans originated", {"loans_receivable": 252_960, "cash": -252_960}, "loans_originated"),
        ("origination fees", {"cash": 5_059, "fee_income": -5_059}, "fees_collected"),
        ("interest accrued", {"interest_receivable": 21_037, "interest_income": -21_037}, None),
        ("funding and servicing costs", {"cost_of_revenue": 13_048, "cash": -13_048}, "cost_of_revenue_paid"),
        ("operating costs accrued", {"operating_expenses": 7_829, "accounts_payable": -7_829}, None),
    ]
    assert (record.cash_cents, record.revenue_cents, record.originations_cents, record.debt_cents) == (
        846_104,
        26_096,
        252_960,
        0,
    )
    assert world.tranches == [] and world.debt_cents == 0
    assert world.cash_cents == world.ledger.balance("cash", 1) == 846_104
    assert (world.opex_payable_cents, world.interest_payable_cents) == (7_829, 0)


# ---------------------------------------------------------------------------- settlement
def test_an_equity_round_issues_shares_at_the_market_price_and_counts_a_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shares at $50: the opening EV is 1,000 x 5,000 - 1,000,000 cash = 4,000,000 cents, and a
    new share costs (EV + cash - debt) / shares = 5,000,000 / 1,000 = 5,000 cents at month 0
    (docs/cfo-model.md "New shares"). 1,234,567 cents buy int(246.91) = 246 shares; two rounds
    before this one make it the third."""
    world = small_world(monkeypatch, share_price_dollars=50.0)
    world.equity_rounds = 2
    world.pending = attempt("equity", 1_234_567)
    record = world.step("pass")
    assert record.events == [
        {
            "kind": "fundraising_result",
            "type": "equity",
            "requested_cents": 9_000_000,
            "requested_month": 0,
            "success": True,
            "received_cents": 1_234_567,
            "new_shares": 246,
        }
    ]
    assert (world.shares, world.equity_rounds, world.tranches) == (1_246, 3, [])
    assert entries(world, 0)[0] == (
        "equity round settled",
        {"cash": 1_234_567, "paid_in_capital": -1_234_567},
        "equity_issued",
    )
    assert world.ledger.balance("paid_in_capital", 0) == 2_000_000 + 1_234_567
    assert world.pending is None


def test_a_failed_request_settles_as_a_result_that_moves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    world = small_world(monkeypatch)
    world.pending = attempt("equity", 0, success=False)
    record = world.step("pass")
    assert record.events == [
        {
            "kind": "fundraising_result",
            "type": "equity",
            "requested_cents": 9_000_000,
            "requested_month": 0,
            "success": False,
            "received_cents": 0,
        }
    ]
    assert entries(world, 0)[0][0] == "vendor invoices paid"  # no settlement entry
    assert (world.shares, world.equity_rounds, world.pending) == (1_000, 0, None)


def test_a_request_settles_in_its_settlement_month_not_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Table 5's delay: an attempt due at month 1 is still pending after month 0 and settles in month 1."""
    world = small_world(monkeypatch)
    pending = attempt("debt", 1_000_000, settle=1)
    world.pending = pending
    assert world.step("pass").events == []
    assert world.pending is pending and world.tranches == []
    assert [e["kind"] for e in world.step("pass").events] == ["fundraising_result"]
    assert world.pending is None and world.debt_cents == 1_000_000


def test_a_loans_rate_is_set_at_settlement_from_the_pro_forma_leverage(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000,000 cents of debt on 3,411,743 of book equity: L = 0.586211, so the rate is
    (0.55 + 4.45) / 100 + 0.05 x 0.086211 = 0.054311 (0.0543105313 to 10 digits), shown to 6
    digits; the contract runs 36 months, to month 36."""
    world = small_world(monkeypatch)
    world.pending = attempt("debt", 2_000_000)
    event = world.step("pass").events[0]
    assert event["rate"] == 0.054311
    assert event["maturity_month"] == 36
    (tranche,) = world.tranches
    assert tranche == Tranche(2_000_000, pytest.approx(0.0543105313, abs=1e-10), 0, 36)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- the action
def test_each_action_is_applied_and_anything_else_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    world = small_world(monkeypatch)
    with pytest.raises(
        ValueError, match=exactly("unknown action 'hold'; expected one of book_closing, fund_raising_request, pass")
    ):
        world.step("hold")
    assert world.month == 0 and world.history == []
    assert world.step("book_closing").action == "book_closing"
    assert world.closings == [0] and world.last_closed_month == -1
    assert world.step("pass").action == "pass"
    assert world.closings == [0] and world.month == 2


@pytest.mark.parametrize(
    ("kind", "amount"),
    [("bond", 100), ("equity", None), ("debt", 0), ("debt", -5)],
)
def test_a_request_needs_equity_or_debt_and_a_positive_amount(
    monkeypatch: pytest.MonkeyPatch, kind: str, amount: int | None
) -> None:
    world = small_world(monkeypatch)
    with pytest.raises(ValueError, match=exactly("fund_raising_request needs kind equity|debt and a positive amount")):
        world.step("fund_raising_request", kind, amount)
    assert world.pending is None and world.attempts == [] and world.month == 0


def test_a_request_of_one_cent_is_drawn_at_the_odds_it_was_asked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-cent debt request (the smallest positive amount) is accepted and drawn at today's
    odds; a second while it is pending is refused."""
    world = small_world(monkeypatch)
    odds = world.raise_probability("debt", 1)
    record = world.step("fund_raising_request", "debt", 1)
    (a,) = world.attempts
    assert (a.kind, a.requested_cents, a.month, a.probability) == ("debt", 1, 0, odds)
    assert 1 <= a.settle_month - a.month <= 6
    assert record.action == "fund_raising_request"
    assert world.pending is a  # the delay is 1-6 months: still pending
    with pytest.raises(ValueError, match=exactly("a fundraising request is already pending")):
        world.step("fund_raising_request", "equity", 100)
    assert world.attempts == [a]


def test_a_month_ending_on_zero_cash_survives_and_one_cent_below_ends_the_episode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Section 3.5: cash < 0 at a month's end ends the episode. Month 0 (2 % growth) moves cash by
    -8,477 + 18,198 + 180,000 - 248,000 + 4,960 - 12,792 = -66,111 cents."""
    world = small_world(monkeypatch)
    world.surges[0] = 0.44
    world.cash_cents = 66_111
    record = world.step("pass")
    assert record.cash_cents == 0 and record.events == []
    assert world.bankrupt is False and not world.done

    world = small_world(monkeypatch)
    world.surges[0] = 0.44
    world.cash_cents = 66_110
    record = world.step("pass")
    assert record.cash_cents == -1
    assert record.events == [{"kind": "bankrupt", "month": 0, "cash_cents": -1}]
    assert world.bankrupt and world.done
    with pytest.raises(ValueError, match=exactly("the episode has ended")):
        world.step("pass")


def test_the_last_month_ends_the_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    world = small_world(monkeypatch, months=2)
    world.step("pass")
    assert not world.done
    world.step("pass")
    assert world.done and not world.bankrupt and world.month == 2
    with pytest.raises(ValueError, match=exactly("the episode has ended")):
        world.step("pass")


# ---------------------------------------------------------------------------- read-outs
def test_the_equity_odds_read_the_vix_the_rounds_and_the_size_against_the_enterprise_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Month 0, VIX 19.2: p_macro = 1.07 - 0.019 x 19.2 = 0.7052. EV 4,000,000 (shares at $50):
    1,000,000 is 25 % of it (size factor 1), 1,700,000 is 42.5 % (half-way to 60 %: 0.5);
    one earlier round x 0.75."""
    world = small_world(monkeypatch, share_price_dollars=50.0)
    assert world.enterprise_value_cents() == 4_000_000
    assert world.raise_probability("equity", 1_000_000) == pytest.approx(0.7052, abs=1e-12)
    assert world.raise_probability("equity", 1_700_000) == pytest.approx(0.3526, abs=1e-12)
    world.equity_rounds = 1
    assert world.raise_probability("equity", 1_000_000) == pytest.approx(0.5289, abs=1e-12)


@pytest.mark.parametrize(("closed_at", "odds"), [(None, 0.5 * 0.8173), (0, 0.5 * 0.8173), (1, 0.8173)])
def test_the_equity_odds_halve_when_the_closed_books_are_older_than_the_diligence_window(
    monkeypatch: pytest.MonkeyPatch, closed_at: int | None, odds: float
) -> None:
    """Hardened's diligence (3 months): at month 4 (VIX 13.3: p_macro = 1.07 - 0.2527 = 0.8173)
    books closed at month 1 cover month 0, 4 - 1 - 0 = 3 months old: full odds; closed at month
    0 they cover nothing run (-1), 4 months old, and never closed: both halved."""
    world = small_world(monkeypatch, share_price_dollars=50.0)
    equity = world.config.fundraising.equity.model_copy(update={"diligence_months": 3})
    fundraising = world.config.fundraising.model_copy(update={"equity": equity})
    world.config = world.config.model_copy(update={"fundraising": fundraising})
    world.month = 4
    world.closings = [] if closed_at is None else [closed_at]
    # 100,000 is 2.5 % of the EV (4,000,000 x 1.79 / 1.80): size factor 1
    assert world.raise_probability("equity", 100_000) == pytest.approx(odds, abs=1e-12)


def test_the_debt_odds_and_rate_read_the_pro_forma_leverage_with_the_debt_already_owed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Month 0, SOFR 0.09: p_macro = 0.95 - 0.0045 = 0.9455. Owing 1,000,000 and asking
    2,411,743 makes L = 3,411,743 / 3,411,743 = 1: x (1 - 1.5 x 0.5) = 0.236375; the rate
    (0.55 + 4.45) / 100 + 0.05 x 0.5 = 0.075."""
    world = small_world(monkeypatch)
    world.tranches.append(Tranche(1_000_000, 0.05, 0, 36))
    assert world.raise_probability("debt", OPENING_EQUITY - 1_000_000) == pytest.approx(0.236375, abs=1e-12)
    assert world.debt_rate(OPENING_EQUITY - 1_000_000) == pytest.approx(0.075, abs=1e-12)
    assert world.debt_rate(0) == pytest.approx(0.05, abs=1e-12)  # L = 0.29: no spread


def test_after_the_last_month_the_debt_rate_reads_the_last_months_yields(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 3-month world: in month 2 and after it (month 3) the rate reads month 2's yields,
    (0.64 + 4.54) / 100 = 0.0518, not month 3's (0.54 + 4.48) / 100 = 0.0502."""
    world = small_world(monkeypatch)
    world.month = 1
    assert world.debt_rate(0) == pytest.approx(0.0513, abs=1e-12)  # (0.62 + 4.51) / 100
    for month in (2, 3):
        world.month = month
        assert world.debt_rate(0) == pytest.approx(0.0518, abs=1e-12)


def test_a_share_is_priced_at_market_value_net_of_debt_and_never_below_a_cent_of_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(EV 4,000,000 + cash 1,000,000 - debt 1,000,000) / 1,000 shares = 4,000 cents; with debt
    above EV + cash the company is worth the floor of 1 cent: 1 / 1,000."""
    world = small_world(monkeypatch, share_price_dollars=50.0)
    world.tranches.append(Tranche(1_000_000, 0.05, 0, 36))
    assert world.share_price_cents() == 4_000.0
    world.tranches.append(Tranche(9_000_000, 0.05, 0, 36))
    assert world.share_price_cents() == 0.001


def _score_priced(world: CfoWorld, annualise: bool) -> None:
    equity = world.config.fundraising.equity.model_copy(
        update={"share_pricing": "score", "annualise_year_one": annualise}
    )
    fundraising = world.config.fundraising.model_copy(update={"equity": equity})
    world.config = world.config.model_copy(update={"fundraising": fundraising})


def test_a_share_priced_at_the_scores_value_counts_five_times_revenue_plus_cash_less_debt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Eq 2 with net cash. Month 0, annualised: the plan's month 24,220 x 12 = 290,640, x 5 =
    1,453,200, + 1,000,000 cash - 200,000 debt = 2,253,200 / 1,000 = 2,253.2 cents; not
    annualised, no month has run: (0 + 800,000) / 1,000 = 800. After month 0 (revenue 25,584
    at 2 % growth; cash 933,889): trailing 25,584 x 5 = 127,920 + 933,889 - 200,000 = 861,809."""
    world = small_world(monkeypatch)
    world.tranches.append(Tranche(200_000, 0.05, 0, 36))
    _score_priced(world, annualise=True)
    assert world.revenue_annualised_cents() == 290_640
    assert world.share_price_cents() == pytest.approx(2_253.2, abs=1e-9)
    _score_priced(world, annualise=False)
    assert world.revenue_ttm_cents() == 0
    assert world.share_price_cents() == pytest.approx(800.0, abs=1e-9)
    world.surges[0] = 0.44
    world.tranches.clear()
    world.step("pass")
    world.tranches.append(Tranche(200_000, 0.05, 1, 36))
    assert world.cash_cents == 933_889 and world.revenue_ttm_cents() == 25_584
    assert world.share_price_cents() == pytest.approx(861.809, abs=1e-9)
    _score_priced(world, annualise=True)
    assert world.revenue_annualised_cents() == 25_584 * 12  # one month run: x 12 / 1
    assert world.share_price_cents() == pytest.approx((5 * 307_008 + 933_889 - 200_000) / 1_000, abs=1e-9)


def test_the_enterprise_value_moves_with_the_ps_multiple_and_the_interest_run_rate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Opening EV 4,000,000 at P/S 1.80 and run-rate 20,220. After month 0 the book accrues 20,624
    (2 % growth): at month 1 (P/S 1.80) EV = 4,000,000 x 20,624 / 20,220 = 4,079,920.87 ->
    4,079,921; at month 2 (P/S 1.79) x 1.79 / 1.80 as well: 4,057,254.64 -> 4,057,255."""
    world = small_world(monkeypatch, share_price_dollars=50.0)
    world.surges[0] = 0.44
    world.step("pass")
    assert world.enterprise_value_cents() == 4_079_921
    world.month = 2
    assert world.enterprise_value_cents() == 4_057_255


def test_book_equity_is_the_last_completed_months(monkeypatch: pytest.MonkeyPatch) -> None:
    """After month 0 (2 % growth, no debt) net income is revenue 25,584 - cost of revenue 12,792 -
    opex 7,675 - credit losses 2,022 + 20,000 = -16,905: equity 3,411,743 - 16,905 = 3,394,838."""
    world = small_world(monkeypatch)
    world.surges[0] = 0.44
    world.step("pass")
    assert world.book_equity_cents() == 3_394_838


def test_debt_service_counts_the_interest_of_live_contracts_and_the_principal_falling_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1,200,000 at 5 % (due month 2): 5,000 a month; 2,400,000 at 10 % (due month 3): 20,000."""
    world = small_world(monkeypatch)
    world.tranches += [Tranche(1_200_000, 0.05, 0, 2), Tranche(2_400_000, 0.1, 0, 3)]
    assert world.debt_service_cents(1) == (25_000, 0)
    assert world.debt_service_cents(2) == (25_000, 1_200_000)
    assert world.debt_service_cents(3) == (20_000, 2_400_000)
    assert world.debt_service_cents(4) == (0, 0)
    assert world.debt_interest_cents() == 25_000  # month 0
    assert world.debt_cents == 3_600_000


def test_an_equity_request_is_drawn_at_the_equity_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shares at $50, month 0: 1,000,000 is 25 % of the EV 4,000,000, so the odds are
    p_macro(VIX 19.2) = 0.7052 (the debt odds for the same amount would be 0.9455)."""
    world = small_world(monkeypatch, share_price_dollars=50.0)
    world.step("fund_raising_request", "equity", 1_000_000)
    (a,) = world.attempts
    assert (a.kind, a.requested_cents) == ("equity", 1_000_000)
    assert a.probability == pytest.approx(0.7052, abs=1e-12)


# ---------------------------------------------------------------------------- floors and other macro paths
def test_a_company_worth_no_more_than_its_cash_has_the_enterprise_value_floor_of_one_cent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """1,000 shares at $10 = 1,000,000 cents, all of it cash: the opening EV is 0, floored at 1 cent."""
    world = small_world(monkeypatch, share_price_dollars=10.0)
    assert world.enterprise_value_cents() == 1


def test_a_book_that_accrues_no_interest_keeps_the_opening_enterprise_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """One borrower with a $1 loan at APR 0 + 0.11 %: 100 x 0.11 % / 12 = 0.009 -> 0 cents accrue,
    at the opening and after month 0. The run-rate is floored at 1 cent on both sides of the
    ratio, so the EV stays the opening 1,000 x 5,000 - 1,000,000 = 4,000,000 at month 1 (P/S
    1.80 both months)."""
    monkeypatch.setattr(world_module, "perturb", lambda state, cfg, rng: STEADY)
    config = small_config(borrowers=1, average_loan_dollars=1, share_price_dollars=50.0)
    config = config.model_copy(update={"lending": config.lending.model_copy(update={"lending_spread_pct": 0.0})})
    world = CfoWorld(config, 5)
    world.surges[:] = 0.0
    assert world.plan.lending.interest_accrued_cents == 0
    assert world.enterprise_value_cents() == 4_000_000
    world.step("pass")
    assert world.book.interest_receivable_cents == 0
    assert world.enterprise_value_cents() == 4_000_000


def test_on_a_generated_macro_path_the_opening_reads_month_0() -> None:
    """random-macro: the opening plan's APR is 10 points + month 0's fed funds (floored at 0), and
    at month 0 the EV is the opening $105M - $15M = 9,000,000,000 cents whatever month 1's P/S."""
    from bizbench.envs.cfo.env import CfoEnv

    for seed in (1, 2):
        world = CfoEnv.from_preset("random-macro", seed).world
        m0, m1 = world.macro.at(0), world.macro.at(1)
        assert m0["ps_ratio"] != m1["ps_ratio"] and m0["fed_funds"] != m1["fed_funds"]  # the fixture can tell
        assert world.plan.lending.apr_pct == pytest.approx(10.0 + max(m0["fed_funds"], 0.0), abs=1e-12)
        assert world.enterprise_value_cents() == 9_000_000_000


def test_the_macro_path_is_generated_with_the_presets_own_generator() -> None:
    """Two random-macro worlds of one seed, one with no burn-in months: their paths differ."""
    config, _ = load_config("random-macro")
    generator = config.macro.generator.model_copy(update={"burn_in_months": 0})
    other = config.model_copy(update={"macro": config.macro.model_copy(update={"generator": generator})})
    a, b = CfoWorld(config, 3), CfoWorld(other, 3)
    assert a.macro.at(0) != b.macro.at(0)
