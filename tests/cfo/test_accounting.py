"""Double-entry ledger and statements of the cfo env (paper section 3.3 ``book_closing``; 3.4
"accrual-based and cash-based ledgers ... GAAP/ASC"; docs/principles.md principle 7: exact integer cents).

A random-but-valid lending month (accruals, next-month collections with charge-offs, net-30
payables, originations and fees, random financing, and a few unusual but valid entries) is
posted for 20 seeds x 132 months; after every month the statements must tie out exactly and
agree with brute-force sums over the raw journal.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizbench.envs.cfo.world.accounting import (
    ACCOUNTS,
    CASH_FLOW_CATEGORIES,
    MAX_LINE_CENTS,
    GeneralLedger,
)

MONTHS = 132
SEEDS = range(20)
NAMES = [a.name for a in ACCOUNTS]
SIGN = {a.name: 1 if a.kind in ("asset", "expense") else -1 for a in ACCOUNTS}
REVENUE = [a.name for a in ACCOUNTS if a.kind == "revenue"]


# ---------------------------------------------------------------------------- generator


def _frac(rng: np.random.Generator, amount: int, lo: float, hi: float) -> int:
    return int(amount * rng.uniform(lo, hi))


def opening_balances(rng: np.random.Generator) -> dict[str, int]:
    b = {
        "cash": int(rng.integers(1_000_000, 2_000_000_000)),
        "loans_receivable": int(rng.integers(0, 5_000_000_000)),
        "interest_receivable": int(rng.integers(0, 50_000_000)),
        "accounts_payable": int(rng.integers(0, 30_000_000)),
        "interest_payable": int(rng.integers(0, 5_000_000)),
        "debt": int(rng.integers(0, 1_000_000_000)),
        "paid_in_capital": int(rng.integers(0, 8_000_000_000)),
    }
    # Retained earnings balances the sheet; often negative (an accumulated deficit).
    b["retained_earnings"] = (
        b["cash"]
        + b["loans_receivable"]
        + b["interest_receivable"]
        - b["accounts_payable"]
        - b["interest_payable"]
        - b["debt"]
        - b["paid_in_capital"]
    )
    return b


def lending_month(led: GeneralLedger, t: int, rng: np.random.Generator) -> None:
    """Post one month of a small consumer-lending company (amounts drawn from ``rng``)."""
    prev = t - 1

    def post(memo: str, lines: list[tuple[str, int]], cash_flow: str | None = None) -> None:
        led.post(t, memo, lines, cash_flow)

    # last month's accrued interest: a collection-rate share collected, the rest charged off
    ir = led.balance("interest_receivable", prev)
    collected = int(ir * rng.uniform(0.85, 1.0))
    post("interest collected", [("cash", collected), ("interest_receivable", -collected)], "interest_collected")
    post("interest charged off", [("credit_losses", ir - collected), ("interest_receivable", collected - ir)])
    # net-30 payables from last month
    ap = led.balance("accounts_payable", prev)
    post("vendor invoices paid", [("accounts_payable", ap), ("cash", -ap)], "operating_expenses_paid")
    ip = led.balance("interest_payable", prev)
    if rng.random() < 0.1 and ip > 0 and led.balance("debt", prev) > 0:
        # debt repayment that also settles the accrued interest, all under debt_repaid
        principal = _frac(rng, led.balance("debt", prev), 0.0, 0.5)
        post(
            "debt repaid with interest",
            [("debt", principal), ("interest_payable", ip), ("cash", -principal - ip)],
            "debt_repaid",
        )
    elif rng.random() < 0.05 and ip > 0:
        post("interest paid in kind", [("interest_payable", ip), ("debt", -ip)])  # non-cash, financing leg
    else:
        post("debt interest paid", [("interest_payable", ip), ("cash", -ip)], "interest_paid")
    # the loan book: repayments, defaults, new loans with fees
    book = led.balance("loans_receivable", prev)
    repaid = _frac(rng, book, 0.01, 0.05)
    post("principal collected", [("cash", repaid), ("loans_receivable", -repaid)], "principal_collected")
    defaulted = _frac(rng, book - repaid, 0.0, 0.01)
    post("principal charged off", [("credit_losses", defaulted), ("loans_receivable", -defaulted)])
    new = int(rng.integers(0, 300_000_000))
    fee = new // 50
    if rng.random() < 0.1:
        # fee netted from the disbursement, posted as one investing entry
        post(
            "loans originated net of fees",
            [("loans_receivable", new), ("cash", fee - new), ("fee_income", -fee)],
            "loans_originated",
        )
    else:
        post("loans originated", [("loans_receivable", new), ("cash", -new)], "loans_originated")
        post("origination fees", [("cash", fee), ("fee_income", -fee)], "fees_collected")
    if rng.random() < 0.03:
        recovered = int(rng.integers(0, 1_000_000))
        post("charged-off principal reinstated", [("loans_receivable", recovered), ("credit_losses", -recovered)])
    # accruals for this month
    book = led.balance("loans_receivable", t)
    interest = book * int(rng.integers(80, 250)) // 10_000
    post("interest accrued", [("interest_receivable", interest), ("interest_income", -interest)])
    cost = _frac(rng, interest + fee, 0.2, 0.6)
    if rng.random() < 0.5:
        post("funding and servicing costs", [("cost_of_revenue", cost), ("cash", -cost)], "cost_of_revenue_paid")
    else:  # split payment: two cash lines in one entry
        half = cost // 2
        post(
            "funding and servicing costs",
            [("cost_of_revenue", cost), ("cash", -half), ("cash", half - cost)],
            "cost_of_revenue_paid",
        )
    opex = _frac(rng, interest + fee, 0.1, 0.5)
    post("operating costs accrued", [("operating_expenses", opex), ("accounts_payable", -opex)])
    debt = led.balance("debt", prev)
    post("debt interest accrued", [("interest_expense", debt // 100), ("interest_payable", -(debt // 100))])
    # random financing events
    if rng.random() < 0.08:
        amount = int(rng.integers(1, 2_000_000_000))
        post("equity round settled", [("cash", amount), ("paid_in_capital", -amount)], "equity_issued")
    if rng.random() < 0.08:
        amount = int(rng.integers(1, 1_000_000_000))
        post("debt drawn", [("cash", amount), ("debt", -amount)], "debt_borrowed")
    if rng.random() < 0.05 and led.balance("debt", t) > 0:
        amount = _frac(rng, led.balance("debt", t), 0.0, 1.0)
        post("debt repaid", [("debt", amount), ("cash", -amount)], "debt_repaid")
    if rng.random() < 0.03:
        # prepaid interest refunded by the lender: an operating cash entry with a financing leg
        refund = int(rng.integers(0, 100_000))
        post("debt fee capitalised and refunded", [("cash", refund), ("debt", -refund)], "interest_paid")


def _brute(entries: list[dict[str, Any]], opening: dict[str, int], month: int) -> dict[str, Any]:
    """Debit-positive balances at the end of ``month`` recomputed from the raw journal."""
    bal = {n: SIGN[n] * opening.get(n, 0) for n in NAMES}
    for e in entries:
        if e["month"] <= month:
            for line in e["lines"]:
                bal[line["account"]] += line["amount"]
    return bal


# ---------------------------------------------------------------------------- the 20-seed run


def check_month(led: GeneralLedger, t: int, prev_bs: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    inc = led.income_statement(t, t)
    bs = led.balance_sheet(t)
    cf = led.cash_flow_statement(t, t)
    # A = L + E exactly; equity = paid-in capital + retained earnings
    assert bs["total_assets"] == bs["total_liabilities"] + bs["total_equity"] == bs["total_liabilities_and_equity"]
    assert bs["total_assets"] == sum(bs["assets"].values())
    assert bs["total_liabilities"] == sum(bs["liabilities"].values())
    assert bs["total_equity"] == bs["equity"]["paid_in_capital"] + bs["equity"]["retained_earnings"]
    # RE_t = RE_{t-1} + NI_t
    assert bs["equity"]["retained_earnings"] == prev_bs["equity"]["retained_earnings"] + inc["net_income"]
    # income statement arithmetic
    assert inc["total_revenue"] == sum(inc["revenue"].values())
    assert inc["net_income"] == (
        inc["total_revenue"]
        - inc["cost_of_revenue"]
        - inc["operating_expenses"]
        - inc["credit_losses"]
        - inc["interest_expense"]
    )
    assert inc["ebitda"] == inc["gross_profit"] - inc["operating_expenses"]
    check_cash_flow(cf, prev_bs["assets"]["cash"], bs["assets"]["cash"])
    assert cf["operating_reconciliation"]["net_income"] == inc["net_income"]
    # a random multi-month window ending now ties out against the balance sheets too
    s = int(rng.integers(0, t + 1))
    cf_w = led.cash_flow_statement(s, t)
    check_cash_flow(cf_w, led.balance("cash", s - 1), bs["assets"]["cash"])
    inc_w = led.income_statement(s, t)
    assert cf_w["operating_reconciliation"]["net_income"] == inc_w["net_income"]
    assert led.balance("retained_earnings", s - 1) + inc_w["net_income"] == bs["equity"]["retained_earnings"]
    return bs


def check_cash_flow(cf: dict[str, Any], opening_cash: int, closing_cash: int) -> None:
    assert cf["opening_cash"] == opening_cash
    assert cf["closing_cash"] == closing_cash
    sections = ("operating", "investing", "financing")
    for section in sections:
        assert set(cf[section]) == {c for c, s in CASH_FLOW_CATEGORIES.items() if s == section}
        assert cf[f"net_cash_from_{section}"] == sum(cf[section].values())
    assert cf["net_change_in_cash"] == sum(cf[f"net_cash_from_{s}"] for s in sections)
    assert cf["net_change_in_cash"] == closing_cash - opening_cash  # no balancing line
    rec = cf["operating_reconciliation"]
    assert rec["net_cash_from_operating"] == (
        rec["net_income"]
        + rec["non_cash_charges"]
        + rec["other_reclassifications"]
        + sum(rec["working_capital_changes"].values())
    )
    assert rec["net_cash_from_operating"] == cf["net_cash_from_operating"]  # indirect = direct


@pytest.mark.parametrize("seed", SEEDS)
def test_statements_tie_out_every_month(seed: int) -> None:
    rng = np.random.default_rng(seed)
    led = GeneralLedger(MONTHS)
    opening = opening_balances(rng)
    led.open(opening)
    prev_bs = led.balance_sheet(-1)
    assert prev_bs["assets"]["cash"] == opening["cash"]
    assert prev_bs["equity"]["retained_earnings"] == opening["retained_earnings"]
    for t in range(MONTHS):
        lending_month(led, t, rng)
        prev_bs = check_month(led, t, prev_bs, rng)

    entries = led.journal(0, MONTHS - 1)
    assert [e["id"] for e in entries] == list(range(len(led)))
    # revenue_ttm against a brute-force sum over the raw journal
    revenue_by_month = [0] * MONTHS
    for e in entries:
        for line in e["lines"]:
            if line["account"] in REVENUE:
                revenue_by_month[e["month"]] -= line["amount"]
    for t in range(MONTHS):
        assert led.revenue_ttm(t) == sum(revenue_by_month[max(0, t - 11) : t + 1])
    # balances and cash-flow categories against the raw journal
    for t in (0, 1, 11, 12, 67, MONTHS - 1):
        bal = _brute(entries, opening, t)
        for n in NAMES:
            if n != "retained_earnings":
                assert led.balance(n, t) == SIGN[n] * bal[n], n
        assert sum(bal.values()) == 0
        cats = dict.fromkeys(CASH_FLOW_CATEGORIES, 0)
        for e in entries:
            if e["month"] == t and e["cash_flow"] is not None:
                cats[e["cash_flow"]] += sum(x["amount"] for x in e["lines"] if x["account"] == "cash")
            assert (e["cash_flow"] is None) == all(x["account"] != "cash" for x in e["lines"])
        cf = led.cash_flow_statement(t, t)
        assert {**cf["operating"], **cf["investing"], **cf["financing"]} == cats
    # whole-horizon statements are consistent and JSON-serialisable with plain ints
    full = led.cash_flow_statement(0, MONTHS - 1)
    check_cash_flow(full, opening["cash"], led.balance("cash", MONTHS - 1))
    assert full["operating_reconciliation"]["non_cash_charges"] > 0  # principal charge-offs were added back
    for doc in (full, led.income_statement(0, MONTHS - 1), led.balance_sheet(MONTHS - 1), entries[:50]):
        assert json.loads(json.dumps(doc)) == doc


def test_principal_charge_off_is_added_back_not_working_capital() -> None:
    led = GeneralLedger(3)
    led.open({"cash": 1_000, "loans_receivable": 10_000, "paid_in_capital": 11_000})
    led.post(0, "interest accrued", [("interest_receivable", 100), ("interest_income", -100)])
    led.post(0, "opex accrued", [("operating_expenses", 30), ("accounts_payable", -30)])
    led.post(0, "principal charged off", [("credit_losses", 500), ("loans_receivable", -500)])
    led.post(1, "interest collected", [("cash", 90), ("interest_receivable", -90)], "interest_collected")
    led.post(1, "interest charged off", [("credit_losses", 10), ("interest_receivable", -10)])
    led.post(1, "vendors paid", [("accounts_payable", 30), ("cash", -30)], "operating_expenses_paid")
    cf0 = led.cash_flow_statement(0, 0)
    assert cf0["net_cash_from_operating"] == 0
    rec0 = cf0["operating_reconciliation"]
    assert rec0["net_income"] == 100 - 30 - 500
    assert rec0["non_cash_charges"] == 500
    assert rec0["working_capital_changes"] == {
        "interest_receivable": -100,
        "accounts_payable": 30,
        "interest_payable": 0,
    }
    cf1 = led.cash_flow_statement(1, 1)
    assert cf1["operating"]["interest_collected"] == 90
    assert cf1["net_cash_from_operating"] == 60
    rec1 = cf1["operating_reconciliation"]
    assert (rec1["net_income"], rec1["non_cash_charges"]) == (-10, 0)
    assert rec1["working_capital_changes"] == {
        "interest_receivable": 100,
        "accounts_payable": -30,
        "interest_payable": 0,
    }
    inc = led.income_statement(0, 1)
    assert (inc["credit_losses"], inc["ebitda"], inc["operating_income"]) == (510, 70, -440)
    assert led.balance_sheet(1)["equity"]["retained_earnings"] == -440
    assert led.balance("cash", -1) == 1_000 and led.balance("cash", 2) == 1_060


def test_revenue_ttm_window() -> None:
    led = GeneralLedger(30)
    for t in range(30):
        led.post(t, "fee", [("cash", t + 1), ("fee_income", -(t + 1))], "fees_collected")
    assert led.revenue_ttm(0) == 1
    assert led.revenue_ttm(5) == sum(range(1, 7))
    assert led.revenue_ttm(11) == sum(range(1, 13))
    assert led.revenue_ttm(29) == sum(range(19, 31))


def test_numpy_integers_accepted_and_stored_as_int() -> None:
    led = GeneralLedger(2)
    led.post(0, "fee", [("cash", np.int64(7)), ("fee_income", np.int32(-7))], "fees_collected")
    (entry,) = led.journal(0, 1)
    assert entry["lines"] == [{"account": "cash", "amount": 7}, {"account": "fee_income", "amount": -7}]
    assert all(type(x["amount"]) is int for x in entry["lines"])
    assert type(led.balance("cash", 0)) is int


# ---------------------------------------------------------------------------- validation


def snapshot(led: GeneralLedger) -> str:
    last = led.months - 1
    return json.dumps(
        {
            "journal": led.journal(0, last),
            "len": len(led),
            "bs": [led.balance_sheet(m) for m in range(-1, led.months)],
            "is": [led.income_statement(0, m) for m in range(led.months)],
            "cf": [led.cash_flow_statement(0, m) for m in range(led.months)],
            "ttm": [led.revenue_ttm(m) for m in range(led.months)],
        },
        sort_keys=True,
    )


def seeded_ledger() -> GeneralLedger:
    led = GeneralLedger(6)
    led.open(
        {
            "cash": 5_000,
            "loans_receivable": 20_000,
            "debt": 3_000,
            "paid_in_capital": 30_000,
            "retained_earnings": -8_000,
        }
    )
    led.post(2, "originate", [("loans_receivable", 1_000), ("cash", -1_000)], "loans_originated")
    led.post(2, "accrue", [("interest_receivable", 40), ("interest_income", -40)])
    return led


GOOD = [("cash", 100), ("fee_income", -100)]
BAD_POSTS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("unbalanced", (3, "x", [("cash", 100), ("fee_income", -99)], "fees_collected"), {}),
    ("float amount", (3, "x", [("cash", 100.0), ("fee_income", -100.0)], "fees_collected"), {}),
    ("float amount that sums to zero", (3, "x", [("interest_receivable", 0.5), ("interest_income", -0.5)]), {}),
    ("bool amount", (3, "x", [("interest_receivable", True), ("interest_income", -1)]), {}),
    ("numpy float", (3, "x", [("interest_receivable", np.float64(1)), ("interest_income", -1)]), {}),
    ("string amount", (3, "x", [("interest_receivable", "1"), ("interest_income", -1)]), {}),
    (
        "amount too large",
        (3, "x", [("interest_receivable", MAX_LINE_CENTS + 1), ("interest_income", -MAX_LINE_CENTS - 1)]),
        {},
    ),
    ("unknown account", (3, "x", [("cash", 100), ("revenue", -100)], "fees_collected"), {}),
    ("non-str account", (3, "x", [(0, 100), ("fee_income", -100)]), {}),
    ("retained earnings posting", (3, "x", [("interest_receivable", 5), ("retained_earnings", -5)]), {}),
    ("unknown category", (3, "x", GOOD, "fees"), {}),
    ("category of wrong type", (3, "x", GOOD, 1), {}),
    ("cash line without category", (3, "x", GOOD), {}),
    ("cash line with None category", (3, "x", GOOD, None), {}),
    (
        "non-cash entry with category",
        (3, "x", [("interest_receivable", 5), ("interest_income", -5)], "interest_collected"),
        {},
    ),
    ("month past the horizon", (6, "x", GOOD, "fees_collected"), {}),
    ("negative month", (-1, "x", GOOD, "fees_collected"), {}),
    ("month goes back", (1, "x", GOOD, "fees_collected"), {}),
    ("float month", (3.0, "x", GOOD, "fees_collected"), {}),
    ("empty entry", (3, "x", []), {}),
    ("lines as a string", (3, "x", "cash"), {}),
    ("malformed line", (3, "x", [("cash", 100, "extra"), ("fee_income", -100)], "fees_collected"), {}),
    ("non-str memo", (3, None, GOOD, "fees_collected"), {}),
]


@pytest.mark.parametrize("args,kwargs", [(a, k) for _, a, k in BAD_POSTS], ids=[n for n, _, _ in BAD_POSTS])
def test_bad_post_raises_and_changes_nothing(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    led = seeded_ledger()
    before = snapshot(led)
    with pytest.raises(ValueError):
        led.post(*args, **kwargs)
    assert snapshot(led) == before
    led.post(3, "still usable", GOOD, "fees_collected")  # the ledger keeps working


def test_error_messages_name_the_problem() -> None:
    led = seeded_ledger()
    cases = {
        "does not balance": (3, "x", [("cash", 100), ("fee_income", -99)], "fees_collected"),
        "integer number of cents": (3, "x", [("cash", 1.5), ("fee_income", -1.5)], "fees_collected"),
        "unknown account 'revenue'": (3, "x", [("cash", 1), ("revenue", -1)], "fees_collected"),
        "unknown cash_flow category 'fees'": (3, "x", GOOD, "fees"),
        "needs a cash_flow category": (3, "x", GOOD),
        "no cash line": (3, "x", [("interest_receivable", 1), ("interest_income", -1)], "interest_collected"),
        "outside [0, 5]": (6, "x", GOOD, "fees_collected"),
        "goes back": (1, "x", GOOD, "fees_collected"),
    }
    for fragment, args in cases.items():
        with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
            led.post(*args)


def test_a_bad_line_is_named_by_its_number_and_its_problem() -> None:
    led = seeded_ledger()
    known = (
        "cash, loans_receivable, interest_receivable, accounts_payable, interest_payable, debt, paid_in_capital, "
        "retained_earnings, interest_income, fee_income, cost_of_revenue, operating_expenses, credit_losses, "
        "interest_expense"
    )
    cases = [
        (
            [("cash", 100, "extra"), ("fee_income", -100)],
            "line 0 must be an (account, cents) pair, got ('cash', 100, 'extra')",
        ),
        ([("cash", 1), ("revenue", -1)], f"line 1: unknown account 'revenue'; known: {known}"),
        (
            [("interest_receivable", 5), ("retained_earnings", -5)],
            "line 1: retained_earnings takes no postings (it is opening RE + net income)",
        ),
        (
            [("cash", 1), ("fee_income", -1.5)],
            "line 1 (fee_income) amount must be an integer number of cents, got float -1.5",
        ),
    ]
    for lines, message in cases:
        with pytest.raises(ValueError) as refused:
            led.post(3, "x", lines, "fees_collected")
        assert str(refused.value) == message


def test_open_rules() -> None:
    led = seeded_ledger()
    before = snapshot(led)
    with pytest.raises(ValueError, match="already open"):
        led.open({"cash": 1, "paid_in_capital": 1})
    assert snapshot(led) == before

    led = GeneralLedger(4)
    led.post(0, "fee", GOOD, "fees_collected")
    before = snapshot(led)
    with pytest.raises(ValueError, match="before any post"):
        led.open({"cash": 1, "paid_in_capital": 1})
    assert snapshot(led) == before

    for bad in (
        {"cash": 100, "paid_in_capital": 99},  # does not balance
        {"cash": 100.0, "paid_in_capital": 100.0},  # floats
        {"cash": 100, "capital": 100},  # unknown account
        {"cash": 100, "fee_income": 100},  # not a balance-sheet account
    ):
        led = GeneralLedger(4)
        before = snapshot(led)
        with pytest.raises(ValueError):
            led.open(bad)  # type: ignore[arg-type]
        assert snapshot(led) == before
        led.open({"cash": 100, "retained_earnings": 100})  # still openable after a refused open


class _NamedLikeCash:
    """Not a string, but hashed and compared like the account name "cash"."""

    def __hash__(self) -> int:
        return hash("cash")

    def __eq__(self, other: object) -> bool:
        return other == "cash"


def test_an_opening_balance_named_by_a_non_string_that_equals_an_account_name_is_refused() -> None:
    """Account names are strings: a key that only compares equal to "cash" is an unknown account,
    even though a dict lookup would find "cash" with it."""
    led = GeneralLedger(2)
    with pytest.raises(ValueError, match="unknown account"):
        led.open({_NamedLikeCash(): 100, "paid_in_capital": 100})  # type: ignore[dict-item]
    assert led.balance("cash", -1) == 0


def test_a_balance_asked_by_a_non_string_that_equals_an_account_name_is_refused() -> None:
    led = GeneralLedger(2)
    led.post(0, "fee", [("cash", 5), ("fee_income", -5)], "fees_collected")
    with pytest.raises(ValueError, match="unknown account"):
        led.balance(_NamedLikeCash(), 0)  # type: ignore[arg-type]


def test_two_entries_of_one_category_in_one_month_add_up_in_the_cash_flow_statement() -> None:
    """Both entries sit in the month's buffer until the statement flushes it: 3 + 5 = 8 cents of
    fees collected, opening cash 0, closing cash 8."""
    led = GeneralLedger(2)
    led.post(0, "fee a", [("cash", 3), ("fee_income", -3)], "fees_collected")
    led.post(0, "fee b", [("cash", 5), ("fee_income", -5)], "fees_collected")
    cf = led.cash_flow_statement(0, 0)
    assert cf["operating"]["fees_collected"] == 8
    assert (cf["opening_cash"], cf["closing_cash"]) == (0, 8)


def test_query_ranges_are_checked() -> None:
    led = seeded_ledger()
    with pytest.raises(ValueError):
        led.income_statement(3, 2)
    with pytest.raises(ValueError):
        led.cash_flow_statement(0, 6)
    with pytest.raises(ValueError):
        led.balance_sheet(-2)
    with pytest.raises(ValueError):
        led.balance("nope", 0)
    with pytest.raises(ValueError):
        led.revenue_ttm(-1)
    with pytest.raises(ValueError):
        GeneralLedger(0)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.integers(-(10**9), 10**9)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([None, *CASH_FLOW_CATEGORIES]),
    st.integers(0, 5),
)
def test_any_entry_is_either_rejected_cleanly_or_ties_out(
    lines: list[tuple[str, int]], cash_flow: str | None, month: int
) -> None:
    """Arbitrary entries (balanced by a final line when possible): a valid one keeps every
    statement identity, an invalid one raises ValueError and changes nothing."""
    led = seeded_ledger()
    balancing = [a for a in NAMES if a != "retained_earnings" and a != "cash"]
    lines = [*lines, (balancing[month % len(balancing)], -sum(c for _, c in lines))] if month % 2 else lines
    before = snapshot(led)
    try:
        led.post(month, "random", lines, cash_flow)
    except ValueError:
        assert snapshot(led) == before
        return
    prev = led.balance_sheet(-1)
    for t in range(led.months):
        prev = check_month(led, t, prev, np.random.default_rng(t))


# ---------------------------------------------------------------------------- exact messages and boundaries

KNOWN_ACCOUNTS = ", ".join(NAMES)
KNOWN_CATEGORIES = (
    "interest_collected, fees_collected, cost_of_revenue_paid, operating_expenses_paid, interest_paid, "
    "loans_originated, principal_collected, equity_issued, debt_borrowed, debt_repaid"
)
REFUSED_POSTS: list[tuple[tuple[Any, ...], str]] = [
    ((6, "x", GOOD, "fees_collected"), "month 6 is outside [0, 5]"),
    ((-1, "x", GOOD, "fees_collected"), "month -1 is outside [0, 5]"),
    ((np.int64(6), "x", GOOD, "fees_collected"), "month 6 is outside [0, 5]"),
    ((3.0, "x", GOOD, "fees_collected"), "month must be an int, got float 3.0"),
    ((True, "x", GOOD, "fees_collected"), "month must be an int, got bool True"),
    ((1, "x", GOOD, "fees_collected"), "month 1 goes back: entries are already posted for month 2"),
    ((3, None, GOOD, "fees_collected"), "memo must be a str, got NoneType"),
    ((3, "x", []), "lines must be a non-empty sequence of (account, cents) pairs"),
    ((3, "x", "cash"), "lines must be a non-empty sequence of (account, cents) pairs"),
    ((3, "x", {"cash": 1}), "lines must be a non-empty sequence of (account, cents) pairs"),
    (
        (3, "x", [("cash", 100), ("fee_income", -99)], "fees_collected"),
        "entry does not balance: debits - credits = 1 cents (must be 0)",
    ),
    (
        (3, "x", [("interest_receivable", True), ("interest_income", -1)]),
        "line 0 (interest_receivable) amount must be an integer number of cents, got bool True",
    ),
    (
        (3, "x", [("interest_receivable", MAX_LINE_CENTS + 1), ("interest_income", -MAX_LINE_CENTS - 1)]),
        "line 0 (interest_receivable) amount = 1000000000000001 is outside [-1000000000000000, 1000000000000000] cents",
    ),
    (
        (3, "x", [("interest_receivable", MAX_LINE_CENTS), ("interest_income", -MAX_LINE_CENTS - 1)]),
        "line 1 (interest_income) amount = -1000000000000001 is outside [-1000000000000000, 1000000000000000] cents",
    ),
    (
        (3, "x", [("interest_receivable", np.int64(MAX_LINE_CENTS + 1)), ("interest_income", -1)]),
        "line 0 (interest_receivable) amount = 1000000000000001 is outside [-1000000000000000, 1000000000000000] cents",
    ),
    ((3, "x", GOOD), f"an entry with a cash line needs a cash_flow category; known: {KNOWN_CATEGORIES}"),
    ((3, "x", GOOD, "fees"), f"unknown cash_flow category 'fees'; known: {KNOWN_CATEGORIES}"),
    ((3, "x", GOOD, 1), f"unknown cash_flow category 1; known: {KNOWN_CATEGORIES}"),
    (
        (3, "x", [("interest_receivable", 5), ("interest_income", -5)], "interest_collected"),
        "cash_flow 'interest_collected' given for an entry with no cash line (must be None)",
    ),
    ((3, "x", [("cash", 1), (0, -1)], "fees_collected"), f"line 1: unknown account 0; known: {KNOWN_ACCOUNTS}"),
    (
        (3, "x", [("cash", 1), "fee_income"], "fees_collected"),
        "line 1 must be an (account, cents) pair, got 'fee_income'",
    ),
]


@pytest.mark.parametrize("args,message", REFUSED_POSTS, ids=[m for _, m in REFUSED_POSTS])
def test_a_refused_post_tells_the_agent_exactly_why(args: tuple[Any, ...], message: str) -> None:
    led = seeded_ledger()
    with pytest.raises(ValueError) as refused:
        led.post(*args)
    assert str(refused.value) == message


REFUSED_OPENS: list[tuple[Any, str]] = [
    (
        {"cash": 100, "paid_in_capital": 99},
        "opening balance sheet does not balance: assets 100 != liabilities + equity 99 (cents)",
    ),
    (
        {"cash": 100, "debt": 30, "paid_in_capital": 50, "retained_earnings": 21},
        "opening balance sheet does not balance: assets 100 != liabilities + equity 101 (cents)",
    ),
    ({"cash": 100.0}, "opening balance of cash must be an integer number of cents, got float 100.0"),
    (
        {"cash": MAX_LINE_CENTS + 1, "debt": MAX_LINE_CENTS + 1},
        "opening balance of cash = 1000000000000001 is outside [-1000000000000000, 1000000000000000] cents",
    ),
    ({"cash": 100, "capital": 100}, f"unknown account 'capital' in opening balances; known: {KNOWN_ACCOUNTS}"),
    ({5: 100}, f"unknown account 5 in opening balances; known: {KNOWN_ACCOUNTS}"),
    (
        {"cash": 100, "fee_income": 100},
        "opening balance for 'fee_income': only balance-sheet accounts have opening balances",
    ),
    ([("cash", 100)], "balances must be a mapping of account -> cents, got list"),
]


@pytest.mark.parametrize("balances,message", REFUSED_OPENS, ids=[m[:60] for _, m in REFUSED_OPENS])
def test_a_refused_open_tells_the_agent_exactly_why(balances: Any, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        GeneralLedger(4).open(balances)
    assert str(refused.value) == message


def test_open_twice_or_after_a_post_is_refused_with_its_reason() -> None:
    with pytest.raises(ValueError) as refused:
        seeded_ledger().open({"cash": 1, "paid_in_capital": 1})
    assert str(refused.value) == "the ledger is already open: open() may be called only once"
    led = GeneralLedger(4)
    led.post(0, "fee", GOOD, "fees_collected")
    with pytest.raises(ValueError) as refused:
        led.open({"cash": 1, "paid_in_capital": 1})
    assert str(refused.value) == "open() must come before any post()"


def test_a_refused_query_tells_the_agent_exactly_why() -> None:
    led = seeded_ledger()  # 6 months
    cases = [
        (lambda: led.balance("nope", 0), f"unknown account 'nope'; known: {KNOWN_ACCOUNTS}"),
        (lambda: led.balance(7, 0), f"unknown account 7; known: {KNOWN_ACCOUNTS}"),
        (lambda: led.balance("cash", -2), "month -2 is outside [-1, 5]"),
        (lambda: led.balance("cash", 6), "month 6 is outside [-1, 5]"),
        (lambda: led.balance("cash", 2.0), "month must be an int, got float 2.0"),
        (lambda: led.balance_sheet(-2), "month -2 is outside [-1, 5]"),
        (lambda: led.balance_sheet(6), "month 6 is outside [-1, 5]"),
        (lambda: led.revenue_ttm(-1), "month -1 is outside [0, 5]"),
        (lambda: led.revenue_ttm(6), "month 6 is outside [0, 5]"),
        (lambda: led.income_statement(3, 2), "start month 3 is after end month 2"),
        (lambda: led.income_statement(np.int64(3), 2), "start month 3 is after end month 2"),
        (lambda: led.income_statement(-1, 2), "start month -1 is outside [0, 5]"),
        (lambda: led.cash_flow_statement(0, 6), "end month 6 is outside [0, 5]"),
        (lambda: led.cash_flow_statement(0, -1), "end month -1 is outside [0, 5]"),
        (lambda: led.journal(1.0, 2), "start month must be an int, got float 1.0"),
        (lambda: led.journal(1, "2"), "end month must be an int, got str '2'"),
        (lambda: GeneralLedger(0), "months must be >= 1, got 0"),
        (lambda: GeneralLedger(1.0), "months must be an int, got float 1.0"),
        (lambda: GeneralLedger(True), "months must be an int, got bool True"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as refused:
            call()
        assert str(refused.value) == message


def test_the_line_limit_is_inclusive_and_a_single_month_ledger_works() -> None:
    led = GeneralLedger(np.int64(1))
    assert led.months == 1 and type(led.months) is int
    led.open({"cash": MAX_LINE_CENTS, "paid_in_capital": MAX_LINE_CENTS})
    led.post(0, "big", [("interest_receivable", MAX_LINE_CENTS), ("interest_income", -MAX_LINE_CENTS)])
    led.post(0, "big back", [("credit_losses", MAX_LINE_CENTS), ("interest_receivable", -MAX_LINE_CENTS)])
    led.post(0, "negative", [("cash", -MAX_LINE_CENTS), ("loans_receivable", MAX_LINE_CENTS)], "loans_originated")
    assert led.balance("cash", -1) == MAX_LINE_CENTS
    assert led.balance("cash", 0) == 0
    assert led.balance("loans_receivable", 0) == MAX_LINE_CENTS
    assert led.income_statement(0, 0)["net_income"] == 0
    assert led.revenue_ttm(0) == MAX_LINE_CENTS
    assert led.cash_flow_statement(0, 0)["investing"]["loans_originated"] == -MAX_LINE_CENTS


def test_sums_above_two_to_the_53_stay_exact() -> None:
    led = GeneralLedger(3)
    for t in range(3):
        for _ in range(4):
            led.post(t, "fee", [("cash", MAX_LINE_CENTS), ("fee_income", -MAX_LINE_CENTS)], "fees_collected")
        led.post(t, "odd", [("cash", 1), ("fee_income", -1)], "fees_collected")
    total = 12 * 10**15 + 3  # above 2**53 and odd: a float64 sum would round it
    assert led.balance("cash", 2) == total
    assert led.revenue_ttm(2) == total
    assert led.income_statement(0, 2)["total_revenue"] == total
    assert led.balance_sheet(2)["equity"]["retained_earnings"] == total
    assert led.cash_flow_statement(0, 2)["closing_cash"] == total


def test_a_one_month_range_reads_only_that_month_and_a_statement_between_posts_sees_both() -> None:
    led = GeneralLedger(5)
    led.post(1, "fee a", [("cash", 3), ("fee_income", -3)], "fees_collected")
    led.post(2, "fee b", [("cash", 5), ("fee_income", -5)], "fees_collected")
    assert led.income_statement(2, 2)["total_revenue"] == 5  # flushed mid-month
    led.post(2, "fee c", [("cash", 7), ("fee_income", -7)], "fees_collected")
    led.post(4, "fee d", [("cash", 11), ("fee_income", -11)], "fees_collected")  # month 3 skipped
    inc = led.income_statement(2, 2)
    assert (inc["start_month"], inc["end_month"], inc["total_revenue"]) == (2, 2, 12)
    cf = led.cash_flow_statement(2, 2)
    assert (cf["start_month"], cf["end_month"], cf["opening_cash"], cf["closing_cash"]) == (2, 2, 3, 15)
    assert cf["operating"]["fees_collected"] == 12
    assert [e["memo"] for e in led.journal(2, 2)] == ["fee b", "fee c"]
    assert [e["id"] for e in led.journal(2, 3)] == [1, 2]
    assert led.balance("cash", 3) == 15 and led.balance("cash", 4) == 26
    assert led.revenue_ttm(4) == 26


def test_numpy_bounds_and_one_month_numpy_ranges_are_accepted_and_the_refusals_name_the_last_month() -> None:
    led = GeneralLedger(4)
    led.open({"cash": -MAX_LINE_CENTS, "debt": -MAX_LINE_CENTS})  # the lower limit itself is allowed
    assert led.balance_sheet(-1)["month"] == -1
    led.post(0, "a", [("interest_receivable", np.int64(-MAX_LINE_CENTS)), ("interest_income", MAX_LINE_CENTS)])
    led.post(1, "b", [("interest_receivable", 1), ("interest_income", -1)])
    led.post(2, "c", [("interest_receivable", 1), ("interest_income", -1)])
    assert led.income_statement(np.int64(2), np.int64(2))["total_revenue"] == 1
    with pytest.raises(ValueError) as refused:
        led.post(1, "late", [("interest_receivable", 1), ("interest_income", -1)])
    assert str(refused.value) == "month 1 goes back: entries are already posted for month 2"
    with pytest.raises(ValueError) as refused:
        led.post(2, 5, [("interest_receivable", 1), ("interest_income", -1)])
    assert str(refused.value) == "memo must be a str, got int"
