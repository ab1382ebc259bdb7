"""Double-entry general ledger and the three financial statements of the ``cfo`` env.

EnterpriseArena (paper section 3.3, ``book_closing``) consolidates "all accumulated
operational records" into an income statement, a balance sheet and a cash-flow statement
"computed from the internal ledger up to timestep t"; section 3.4 says the backend keeps
"accrual-based and cash-based ledgers" guided by GAAP/ASC. The paper gives no chart of
accounts or statement layout, so both are ours (reference-notes "Ours to design"); this module fixes
them. Money is exact (docs/principles.md principle 7): every amount is a Python ``int`` of cents.

Double entry
    An entry is a list of ``(account, cents)`` lines, debit positive and credit negative,
    that sums to zero. Every entry that touches ``cash`` carries one cash-flow category
    (:data:`CASH_FLOW_CATEGORIES`), which places its cash in the operating, investing or
    financing section of the direct-method cash-flow statement; an entry that does not
    touch cash must not carry one. ``retained_earnings`` takes no postings: it is the
    opening balance plus cumulative net income (the books are closed into it implicitly).
    A rejected entry raises ``ValueError`` naming the problem and records nothing.

Accrual timing (how the world is expected to post; nothing here enforces the pattern)
    interest accrued this month (Dr interest_receivable / Cr interest_income) is collected
    next month (Dr cash / Cr interest_receivable, ``interest_collected``) at the collection
    rate, the rest charged off (Dr credit_losses / Cr interest_receivable); defaulted
    principal is charged off (Dr credit_losses / Cr loans_receivable); operating costs are
    accrued to accounts_payable and paid next month (net-30 vendor contracts); debt interest
    is accrued to interest_payable and paid next month; originations are Dr loans_receivable
    / Cr cash (``loans_originated``); equity and debt proceeds are financing inflows.

Indirect reconciliation
    Operating cash flow is also derived from net income: net income, plus non-cash
    charges (the movement of investing and financing accounts in entries without cash,
    e.g. principal charge-offs: an expense whose balance-sheet leg is the loan book, not
    working capital), plus the other reclassifications (the part of a cash entry that
    belongs to a different section than its category, e.g. interest paid inside a
    ``debt_repaid`` entry; zero when the world posts one kind of flow per entry), plus the
    change in each operating working-capital account (interest_receivable, accounts_payable,
    interest_payable). The identity holds for *every* valid posting pattern, not only the
    expected one: with c, w, p, x the debit-positive cash, working-capital, profit-and-loss
    and investing/financing legs of an entry (c + w + p + x = 0), the direct operating
    total is the sum of c over operating entries, and the adjustments are defined so that
    net income - sum(w) + adjustments equals it exactly.

Storage
    One int64 array holds the cumulative activity ((months + 1) x rows; rows: accounts, then
    cash-flow categories, then the two adjustment rows; natural sign; row k = opening balance
    + activity of months < k; retained earnings accumulates net income), so a statement reads
    two rows of it and costs O(accounts) whatever the number of entries. The current month's
    postings are buffered in Python ints and flushed on a month change or a statement
    request: one vector add to the cumulative rows from that month on (postings never go
    back, so nothing earlier changes). Month-major order keeps the add on contiguous memory.
    Cumulative rows read by statements are cached as Python lists until the next flush.
    Amounts are limited to ``MAX_LINE_CENTS`` per line so the int64 sums cannot overflow.

Months
    ``0 .. months-1``; postings must come in non-decreasing month order. ``month = -1``
    in :meth:`GeneralLedger.balance` / :meth:`GeneralLedger.balance_sheet` means the
    opening balance sheet (before any month-0 activity).

Statement dicts (JSON-serialisable; all amounts are int cents, natural sign: assets,
expenses, liabilities, equity and revenue positive in their normal state; cash flows
positive for inflows)

``income_statement(start, end)`` (inclusive months)::

    start_month, end_month,
    revenue: {interest_income, fee_income}, total_revenue,
    cost_of_revenue, gross_profit,                      # gross = revenue - cost of revenue
    operating_expenses, ebitda,                         # EBITDA = gross - opex (no D&A in this chart)
    credit_losses, operating_income,                    # operating income = EBITDA - credit losses
    interest_expense, net_income                        # net income = operating income - interest (no tax)

``balance_sheet(month)``::

    month,
    assets: {cash, loans_receivable, interest_receivable}, total_assets,
    liabilities: {accounts_payable, interest_payable, debt}, total_liabilities,
    equity: {paid_in_capital, retained_earnings}, total_equity,
    total_liabilities_and_equity

``cash_flow_statement(start, end)`` (direct method, inclusive months)::

    start_month, end_month,
    operating: {interest_collected, fees_collected, cost_of_revenue_paid,
                operating_expenses_paid, interest_paid}, net_cash_from_operating,
    investing: {loans_originated, principal_collected}, net_cash_from_investing,
    financing: {equity_issued, debt_borrowed, debt_repaid}, net_cash_from_financing,
    net_change_in_cash,                                 # the sum of the three sections
    opening_cash, closing_cash,                         # closing = opening + net change, exactly
    operating_reconciliation: {
        net_income, non_cash_charges, other_reclassifications,
        working_capital_changes: {interest_receivable, accounts_payable, interest_payable},
        net_cash_from_operating                         # equals the direct figure above
    }

``journal(start, end)``: a list of ``{id, month, memo, lines: [{account, amount}], cash_flow}``
(``amount`` signed as posted, debit positive; ``cash_flow`` ``None`` for non-cash entries).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple

import numpy as np

__all__ = [
    "ACCOUNTS",
    "CASH_FLOW_CATEGORIES",
    "MAX_LINE_CENTS",
    "Account",
    "GeneralLedger",
]

Kind = Literal["asset", "liability", "equity", "revenue", "expense"]
Role = Literal["cash", "working_capital", "investing", "financing", "closing", "income"]
Section = Literal["operating", "investing", "financing"]


class Account(NamedTuple):
    name: str
    kind: Kind
    # How the account enters the indirect cash-flow reconciliation: ``working_capital``
    # accounts are operating assets/liabilities whose change is an operating adjustment;
    # ``investing`` / ``financing`` balance-sheet accounts move with cash in those sections
    # (their non-cash movements are add-backs); ``income`` accounts make up net income;
    # ``closing`` is retained earnings (no postings).
    role: Role


#: The fixed chart of accounts, in statement order.
ACCOUNTS: Final[tuple[Account, ...]] = (
    Account("cash", "asset", "cash"),
    Account("loans_receivable", "asset", "investing"),  # principal outstanding
    Account("interest_receivable", "asset", "working_capital"),  # accrued this month, collected next
    Account("accounts_payable", "liability", "working_capital"),  # opex accrued, paid next month (net 30)
    Account("interest_payable", "liability", "working_capital"),  # debt interest accrued, paid next month
    Account("debt", "liability", "financing"),  # principal borrowed
    Account("paid_in_capital", "equity", "financing"),
    Account("retained_earnings", "equity", "closing"),  # opening RE + cumulative net income
    Account("interest_income", "revenue", "income"),
    Account("fee_income", "revenue", "income"),
    Account("cost_of_revenue", "expense", "income"),  # funding and servicing costs
    Account("operating_expenses", "expense", "income"),
    Account("credit_losses", "expense", "income"),  # charge-offs of defaulted principal and interest
    Account("interest_expense", "expense", "income"),
)

#: Cash-flow category -> section of the direct-method cash-flow statement, in statement order.
CASH_FLOW_CATEGORIES: Final[dict[str, Section]] = {
    "interest_collected": "operating",
    "fees_collected": "operating",
    "cost_of_revenue_paid": "operating",
    "operating_expenses_paid": "operating",
    "interest_paid": "operating",
    "loans_originated": "investing",
    "principal_collected": "investing",
    "equity_issued": "financing",
    "debt_borrowed": "financing",
    "debt_repaid": "financing",
}

#: Largest absolute amount of one journal line, in cents ($10 trillion): keeps every int64 sum exact.
MAX_LINE_CENTS: Final[int] = 10**15

_SECTIONS: Final[tuple[Section, ...]] = ("operating", "investing", "financing")
_N_ACC: Final[int] = len(ACCOUNTS)
_N_CAT: Final[int] = len(CASH_FLOW_CATEGORIES)
_ACC_INDEX: Final[dict[str, int]] = {a.name: i for i, a in enumerate(ACCOUNTS)}
_ACC_NAMES: Final[tuple[str, ...]] = tuple(a.name for a in ACCOUNTS)
_CAT_INDEX: Final[dict[str, int]] = {c: _N_ACC + i for i, c in enumerate(CASH_FLOW_CATEGORIES)}
_ADJ_NON_CASH: Final[int] = _N_ACC + _N_CAT  # investing/financing legs of entries without cash
_ADJ_RECLASS: Final[int] = _ADJ_NON_CASH + 1  # section mismatches inside cash entries
_N_ROWS: Final[int] = _ADJ_RECLASS + 1

_CASH: Final[int] = _ACC_INDEX["cash"]
_RE: Final[int] = _ACC_INDEX["retained_earnings"]
# Natural sign: +1 for debit-normal accounts (assets, expenses), -1 for credit-normal ones.
_SIGN: Final[tuple[int, ...]] = tuple(1 if a.kind in ("asset", "expense") else -1 for a in ACCOUNTS)
# Stored sign of every row: accounts in natural sign; cash-flow categories (inflow positive)
# and the adjustment rows as they are.
_ROW_SIGN: Final[np.ndarray] = np.array([*_SIGN, *([1] * (_N_ROWS - _N_ACC))], dtype=np.int64)
# Per-account role code for posting: 0 cash, 1 working capital, 2 investing/financing, 3 income, 4 closing.
_ROLE_CODE: Final[tuple[int, ...]] = tuple(
    {"cash": 0, "working_capital": 1, "investing": 2, "financing": 2, "income": 3, "closing": 4}[a.role]
    for a in ACCOUNTS
)
# postable account name -> (row, role code), the one lookup a journal line needs
_POSTABLE: Final[dict[str, tuple[int, int]]] = {
    a.name: (i, _ROLE_CODE[i]) for i, a in enumerate(ACCOUNTS) if _ROLE_CODE[i] != 4
}
_WC_ROWS: Final[tuple[tuple[str, int, int], ...]] = tuple(
    (a.name, i, -_SIGN[i]) for i, a in enumerate(ACCOUNTS) if a.role == "working_capital"
)  # (name, row, cash effect per natural-sign cent of increase)
_BALANCE_SHEET_KINDS: Final[tuple[Kind, ...]] = ("asset", "liability", "equity")


def _names(kind: Kind) -> tuple[str, ...]:
    return tuple(a.name for a in ACCOUNTS if a.kind == kind)


def _cats(section: Section) -> tuple[str, ...]:
    return tuple(c for c, s in CASH_FLOW_CATEGORIES.items() if s == section)


_KIND_NAMES: Final[dict[Kind, tuple[str, ...]]] = {
    k: _names(k) for k in ("asset", "liability", "equity", "revenue", "expense")
}
_KIND_ROWS: Final[dict[Kind, tuple[tuple[str, int], ...]]] = {
    k: tuple((n, _ACC_INDEX[n]) for n in names) for k, names in _KIND_NAMES.items()
}
_REVENUE_ROWS: Final[tuple[int, ...]] = tuple(i for _, i in _KIND_ROWS["revenue"])
_SECTION_ROWS: Final[dict[Section, tuple[tuple[str, int], ...]]] = {
    s: tuple((c, _CAT_INDEX[c]) for c in _cats(s)) for s in _SECTIONS
}
_KNOWN_ACCOUNTS: Final[str] = ", ".join(_ACC_NAMES)
_KNOWN_CATEGORIES: Final[str] = ", ".join(CASH_FLOW_CATEGORIES)


def _line_no(lines: Sequence[object], line: object) -> int:
    return next((k for k, x in enumerate(lines) if x is line), -1)


def _bad_line(lines: Sequence[object], line: object) -> str:
    """Why ``line`` is not a postable ``(account, cents)`` pair."""
    k = _line_no(lines, line)
    if not isinstance(line, (tuple, list)) or len(line) != 2:
        return f"line {k} must be an (account, cents) pair, got {line!r}"
    name = line[0]
    if name == "retained_earnings":
        return f"line {k}: retained_earnings takes no postings (it is opening RE + net income)"
    return f"line {k}: unknown account {name!r}; known: {_KNOWN_ACCOUNTS}"


def _as_cents(value: object, what: str) -> int:
    """An exact integer amount (Python or numpy int; never bool or float) within the line limit."""
    if type(value) is int:
        cents = value
    elif isinstance(value, np.integer):
        cents = int(value)
    else:
        raise ValueError(f"{what} must be an integer number of cents, got {type(value).__name__} {value!r}")
    if not -MAX_LINE_CENTS <= cents <= MAX_LINE_CENTS:
        raise ValueError(f"{what} = {cents} is outside [-{MAX_LINE_CENTS}, {MAX_LINE_CENTS}] cents")
    return cents


def _as_int(value: object, what: str) -> int:
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    raise ValueError(f"{what} must be an int, got {type(value).__name__} {value!r}")


class GeneralLedger:
    """Double-entry ledger over ``months`` monthly periods with statements in O(accounts).

    See the module docstring for the posting rules and the statement keys.
    """

    def __init__(self, months: int) -> None:
        months = _as_int(months, "months")
        if months < 1:
            raise ValueError(f"months must be >= 1, got {months}")
        self.months = months
        self._opened = False
        # Month-major ((months + 1) x rows) so that the tail a flush adds to is one contiguous block.
        self._cum = np.zeros((months + 1, _N_ROWS), dtype=np.int64)  # [k] = opening + activity of months < k
        self._cols: dict[int, list[int]] = {}  # cached rows of _cum as Python ints, cleared on flush
        self._buf_month = -1  # month of the buffered (not yet flushed) postings
        self._buf = [0] * _N_ROWS  # debit-positive
        self._buf_used = False
        # (month, memo, ((account row, cents), ...), cash_flow) in posting order
        self._entries: list[tuple[int, str, tuple[tuple[int, int], ...], str | None]] = []
        self._entry_months: list[int] = []

    # ------------------------------------------------------------------ posting

    def open(self, balances: Mapping[str, int]) -> None:
        """Set the opening balance sheet (natural-sign cents; missing accounts are zero).

        Only balance-sheet accounts; assets must equal liabilities plus equity exactly.
        ``retained_earnings`` may be negative (an accumulated deficit). Allowed once, before
        any posting.
        """
        if self._opened:
            raise ValueError("the ledger is already open: open() may be called only once")
        if self._entries:
            raise ValueError("open() must come before any post()")
        if not isinstance(balances, Mapping):
            raise ValueError(f"balances must be a mapping of account -> cents, got {type(balances).__name__}")
        opening = [0] * _N_ACC  # natural sign
        for name, value in balances.items():
            idx = _ACC_INDEX.get(name) if isinstance(name, str) else None
            if idx is None:
                raise ValueError(f"unknown account {name!r} in opening balances; known: {_KNOWN_ACCOUNTS}")
            if ACCOUNTS[idx].kind not in _BALANCE_SHEET_KINDS:
                raise ValueError(f"opening balance for {name!r}: only balance-sheet accounts have opening balances")
            opening[idx] = _as_cents(value, f"opening balance of {name}")
        assets = sum(opening[i] for _, i in _KIND_ROWS["asset"])
        claims = sum(opening[i] for k in ("liability", "equity") for _, i in _KIND_ROWS[k])
        if assets != claims:
            raise ValueError(
                f"opening balance sheet does not balance: assets {assets} != liabilities + equity {claims} (cents)"
            )
        self._cum[:, :_N_ACC] = np.array(opening, dtype=np.int64)
        self._cols.clear()
        self._opened = True

    def post(
        self,
        month: int,
        memo: str,
        lines: Sequence[tuple[str, int]],
        cash_flow: str | None = None,
    ) -> None:
        """Record one balanced journal entry in ``month``.

        ``lines`` are ``(account, cents)`` pairs, debit positive / credit negative, summing to
        zero (an account may appear more than once; amounts are Python or numpy ints). An
        entry with a ``cash`` line needs a ``cash_flow`` category; an entry without one must
        not have it. Months must not go back. On any error: ``ValueError`` naming the
        problem, nothing recorded.
        """
        m = month if type(month) is int else _as_int(month, "month")
        if not 0 <= m < self.months:
            raise ValueError(f"month {m} is outside [0, {self.months - 1}]")
        if self._entry_months and m < self._entry_months[-1]:
            raise ValueError(f"month {m} goes back: entries are already posted for month {self._entry_months[-1]}")
        if not isinstance(memo, str):
            raise ValueError(f"memo must be a str, got {type(memo).__name__}")
        if type(lines) is not list and type(lines) is not tuple:
            if isinstance(lines, (str, bytes)) or not isinstance(lines, Sequence):
                raise ValueError("lines must be a non-empty sequence of (account, cents) pairs")
        if not lines:
            raise ValueError("lines must be a non-empty sequence of (account, cents) pairs")
        parsed: list[tuple[int, int]] = []
        sums = [0, 0, 0, 0]  # debit-positive sums by role: cash, working capital, investing/financing, income
        has_cash = False
        for line in lines:
            try:
                name, value = line
                idx, role = _POSTABLE[name]
            except (TypeError, ValueError, KeyError):
                raise ValueError(_bad_line(lines, line)) from None
            if type(value) is int and -MAX_LINE_CENTS <= value <= MAX_LINE_CENTS:
                cents = value
            else:
                cents = _as_cents(value, f"line {_line_no(lines, line)} ({name}) amount")
            if role == 0:
                has_cash = True
            sums[role] += cents
            parsed.append((idx, cents))
        cash, _, inv_fin, income = sums
        total = sum(sums)
        if total != 0:
            raise ValueError(f"entry does not balance: debits - credits = {total} cents (must be 0)")
        cat_row = -1
        operating = False
        if has_cash:
            if cash_flow is None:
                raise ValueError(f"an entry with a cash line needs a cash_flow category; known: {_KNOWN_CATEGORIES}")
            if not isinstance(cash_flow, str) or cash_flow not in _CAT_INDEX:
                raise ValueError(f"unknown cash_flow category {cash_flow!r}; known: {_KNOWN_CATEGORIES}")
            cat_row = _CAT_INDEX[cash_flow]
            operating = CASH_FLOW_CATEGORIES[cash_flow] == "operating"
        elif cash_flow is not None:
            raise ValueError(f"cash_flow {cash_flow!r} given for an entry with no cash line (must be None)")

        # ---- valid: record (nothing below can fail)
        if m != self._buf_month:
            self._flush()
            self._buf_month = m
        buf = self._buf
        for idx, cents in parsed:
            buf[idx] += cents
        buf[_RE] += income  # close net income into retained earnings (debit-positive)
        if cat_row >= 0:
            buf[cat_row] += cash
            # In an operating entry the investing/financing legs are reclassified; in an
            # investing/financing entry, whatever of the cash those legs do not explain.
            buf[_ADJ_RECLASS] -= inv_fin if operating else inv_fin + cash
        else:
            buf[_ADJ_NON_CASH] -= inv_fin
        self._buf_used = True
        self._entries.append((m, memo, tuple(parsed), cash_flow))
        self._entry_months.append(m)

    def __len__(self) -> int:
        """Number of journal entries posted."""
        return len(self._entries)

    # ------------------------------------------------------------------ internals

    def _flush(self) -> None:
        if self._buf_used:
            m = self._buf_month
            delta = np.array(self._buf, dtype=np.int64) * _ROW_SIGN
            self._cum[m + 1 :] += delta
            self._buf = [0] * _N_ROWS
            self._buf_used = False
            self._cols.clear()

    def _col(self, k: int) -> list[int]:
        """Opening + natural-sign activity of months < ``k``, for every row, as ints."""
        if self._buf_used:
            self._flush()
        col = self._cols.get(k)
        if col is None:
            col = self._cols[k] = self._cum[k].tolist()
        return col

    def _period(self, start: int, end: int) -> list[int]:
        """Natural-sign activity of every row over months ``start..end`` (inclusive)."""
        if self._buf_used:
            self._flush()
        out: list[int] = (self._cum[end + 1] - self._cum[start]).tolist()
        return out

    def _check_month(self, month: int, what: str, lowest: int = 0) -> int:
        m = month if type(month) is int else _as_int(month, what)
        if not lowest <= m < self.months:
            raise ValueError(f"{what} {m} is outside [{lowest}, {self.months - 1}]")
        return m

    def _check_range(self, start: int, end: int) -> tuple[int, int]:
        if type(start) is int and type(end) is int and 0 <= start <= end < self.months:
            return start, end
        s = self._check_month(start, "start month")
        e = self._check_month(end, "end month")
        if s > e:
            raise ValueError(f"start month {s} is after end month {e}")
        return s, e

    # ------------------------------------------------------------------ queries

    def balance(self, account: str, month: int) -> int:
        """Natural-sign balance of ``account`` at the end of ``month`` (-1: opening balance).

        Balance-sheet accounts: the balance-sheet figure (``retained_earnings`` includes net
        income through ``month``). Revenue and expense accounts: the total since month 0.
        """
        idx = _ACC_INDEX.get(account) if isinstance(account, str) else None
        if idx is None:
            raise ValueError(f"unknown account {account!r}; known: {_KNOWN_ACCOUNTS}")
        m = self._check_month(month, "month", lowest=-1)
        return self._col(m + 1)[idx]

    def income_statement(self, start: int, end: int) -> dict[str, Any]:
        """Income statement over months ``start..end`` inclusive (keys in the module docstring)."""
        s, e = self._check_range(start, end)
        p = self._period(s, e)
        revenue = {n: p[i] for n, i in _KIND_ROWS["revenue"]}
        x = {n: p[i] for n, i in _KIND_ROWS["expense"]}
        total_revenue = sum(revenue.values())
        gross_profit = total_revenue - x["cost_of_revenue"]
        ebitda = gross_profit - x["operating_expenses"]
        operating_income = ebitda - x["credit_losses"]
        return {
            "start_month": s,
            "end_month": e,
            "revenue": revenue,
            "total_revenue": total_revenue,
            "cost_of_revenue": x["cost_of_revenue"],
            "gross_profit": gross_profit,
            "operating_expenses": x["operating_expenses"],
            "ebitda": ebitda,
            "credit_losses": x["credit_losses"],
            "operating_income": operating_income,
            "interest_expense": x["interest_expense"],
            "net_income": operating_income - x["interest_expense"],
        }

    def balance_sheet(self, month: int) -> dict[str, Any]:
        """Balance sheet at the end of ``month`` (-1: the opening balance sheet)."""
        m = self._check_month(month, "month", lowest=-1)
        col = self._col(m + 1)
        assets = {n: col[i] for n, i in _KIND_ROWS["asset"]}
        liabilities = {n: col[i] for n, i in _KIND_ROWS["liability"]}
        equity = {n: col[i] for n, i in _KIND_ROWS["equity"]}
        total_liabilities = sum(liabilities.values())
        total_equity = sum(equity.values())
        return {
            "month": m,
            "assets": assets,
            "total_assets": sum(assets.values()),
            "liabilities": liabilities,
            "total_liabilities": total_liabilities,
            "equity": equity,
            "total_equity": total_equity,
            "total_liabilities_and_equity": total_liabilities + total_equity,
        }

    def cash_flow_statement(self, start: int, end: int) -> dict[str, Any]:
        """Direct-method cash-flow statement over months ``start..end`` inclusive, with the
        indirect reconciliation of operating cash flow (keys in the module docstring)."""
        s, e = self._check_range(start, end)
        p = self._period(s, e)
        out: dict[str, Any] = {"start_month": s, "end_month": e}
        net_change = 0
        for section in _SECTIONS:
            lines = {c: p[i] for c, i in _SECTION_ROWS[section]}
            subtotal = sum(lines.values())
            out[section] = lines
            out[f"net_cash_from_{section}"] = subtotal
            net_change += subtotal
        out["net_change_in_cash"] = net_change
        out["opening_cash"] = self._col(s)[_CASH]
        out["closing_cash"] = self._col(e + 1)[_CASH]
        net_income = p[_RE]  # retained earnings move only by net income
        # An operating asset that grows absorbs cash; an operating liability that grows provides it.
        wc = {n: sign * p[i] for n, i, sign in _WC_ROWS}
        out["operating_reconciliation"] = {
            "net_income": net_income,
            "non_cash_charges": p[_ADJ_NON_CASH],
            "other_reclassifications": p[_ADJ_RECLASS],
            "working_capital_changes": wc,
            "net_cash_from_operating": net_income + p[_ADJ_NON_CASH] + p[_ADJ_RECLASS] + sum(wc.values()),
        }
        return out

    def journal(self, start: int, end: int) -> list[dict[str, Any]]:
        """The raw entries posted in months ``start..end`` inclusive, in posting order."""
        s, e = self._check_range(start, end)
        lo = bisect.bisect_left(self._entry_months, s)
        hi = bisect.bisect_right(self._entry_months, e)
        names = _ACC_NAMES
        return [
            {
                "id": i,
                "month": m,
                "memo": memo,
                "lines": [{"account": names[a], "amount": c} for a, c in lines],
                "cash_flow": cf,
            }
            for i, (m, memo, lines, cf) in enumerate(self._entries[lo:hi], start=lo)
        ]

    def revenue_ttm(self, month: int) -> int:
        """Trailing-twelve-month revenue through ``month`` (months ``max(0, month-11)..month``)."""
        m = self._check_month(month, "month")
        first, last = self._col(max(0, m - 11)), self._col(m + 1)
        return sum(last[i] - first[i] for i in _REVENUE_ROWS)
