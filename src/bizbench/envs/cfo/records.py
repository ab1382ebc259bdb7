"""What the CFO's staff can show: documents, statements, raw records and projections.

Paper section 3.2-3.3: internal documents are available for [0, t]; statements exist only
for book closings, so they are as fresh as the last one; months not yet closed exist only
as fragmented raw records. Ours (docs/cfo-model.md): the raw records of a month are its
bank statement (total deposits and withdrawals); the line items and the accruals (interest earned, charge-offs, unpaid
vendor invoices and debt interest) enter the visible general ledger when the books are
closed. Nothing here reads hidden state: only the ledger up to the last completed month,
the company's own contracts and requests, and the opening business plan.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizbench.envs.cfo.world.world import CfoWorld

__all__ = ["document_list", "dollars", "forecast", "retrieve", "statements"]


def dollars(cents: int | float) -> float:
    return round(cents / 100, 2)


def _dollar_tree(obj: Any) -> Any:
    """Statements and journals in dollars (ids and month fields stay integers)."""
    if isinstance(obj, dict):
        return {
            k: v if (k == "id" or k.endswith("month")) and isinstance(v, int) else _dollar_tree(v)
            for k, v in obj.items()
        }
    if isinstance(obj, list):
        return [_dollar_tree(v) for v in obj]
    if isinstance(obj, int) and not isinstance(obj, bool):
        return dollars(obj)
    return obj


def statements(world: CfoWorld, closing_month: int) -> dict[str, Any]:
    """The statement set of the book closing made at decision month ``closing_month``."""
    led, k = world.ledger, closing_month - 1
    label = "opening" if k < 0 else world.macro.label(k)
    out: dict[str, Any] = {"as_of": label, "as_of_month": k, "balance_sheet": led.balance_sheet(k)}
    if k >= 0:
        prior = [c for c in world.closings if c < closing_month]
        since = max(prior[-1], 0) if prior else 0
        out["income_statement_month"] = led.income_statement(k, k)
        out["income_statement_since_last_closing"] = led.income_statement(since, k)
        out["income_statement_ttm"] = led.income_statement(max(0, k - 11), k)
        out["cash_flow_statement_month"] = led.cash_flow_statement(k, k)
        out["cash_flow_statement_since_last_closing"] = led.cash_flow_statement(since, k)
    return _dollar_tree(out)


def business_plan(world: CfoWorld) -> dict[str, int]:
    """The opening plan's monthly cash flows (a steady month of the opening book, no growth)."""
    plan = world.plan
    f = plan.lending
    operating = f.interest_collected_cents + f.fees_cents - plan.cost_of_revenue_cents - plan.opex_cents
    # the steady month collects interest accrued a month earlier: the opening receivable
    operating += round(f.interest_accrued_cents * plan.collection_rate) - f.interest_collected_cents
    return {"operating": operating, "investing": f.principal_collected_cents - f.originations_cents}


STATIC_DOCS: dict[str, str] = {
    "business_overview.md": "Board material: the business and its opening plan",
    "cap_table.md": "Board material: shares outstanding and equity rounds",
    "vendor_contracts.md": "Vendor and debt contracts: payment terms, rates, maturities",
}
_MONTHLY = re.compile(r"(financial_statements|bank_transactions|general_ledger)_month_(\d{1,4})\.json")


def document_list(world: CfoWorld) -> list[dict[str, Any]]:
    """Everything dated up to now; the monthly families folded into one entry with their months."""
    out: list[dict[str, Any]] = [{"filename": name, "description": desc} for name, desc in STATIC_DOCS.items()]
    last, closed = world.month - 1, world.last_closed_month
    statement_months = [c - 1 for c in world.closings if c > 0]
    # section 3.1 / Table 6: the enterprise starts with its financial statements (t = 0)
    out.append({"filename": "financial_statements_opening.json", "description": "Opening balance sheet"})
    if statement_months:
        age = last - statement_months[-1]
        stale = " (stale)" if age > world.config.agent.stale_after_months else ""
        out.append(
            {
                "filename": "financial_statements_month_<k>.json",
                "description": "Income statement, balance sheet and cash-flow statement as of the end of month k",
                "months": _ranges(statement_months),
                "latest": f"month {statement_months[-1]}, {age} month(s) old{stale}",
            }
        )
    if last >= 0:
        out.append(
            {
                "filename": "bank_transactions_month_<k>.json",
                "description": "Raw bank transactions of month k (cash movements only)",
                "months": _ranges(list(range(last + 1))),
            }
        )
    if closed is not None and closed >= 0:
        out.append(
            {
                "filename": "general_ledger_month_<k>.json",
                "description": "General ledger of month k, accruals included (closed months only)",
                "months": _ranges(list(range(closed + 1))),
            }
        )
    return out


def retrieve(world: CfoWorld, filename: str) -> Any:
    """A document's content; KeyError if no such document exists yet."""
    if filename == "business_overview.md":
        return _overview(world)
    if filename == "cap_table.md":
        return _cap_table(world)
    if filename == "vendor_contracts.md":
        return _contracts(world)
    if filename == "financial_statements_opening.json":
        return statements(world, 0)
    m = _MONTHLY.fullmatch(filename)
    if m is None:
        raise KeyError(filename)
    family, k = m[1], int(m[2])
    if family == "financial_statements" and k + 1 in world.closings:
        return statements(world, k + 1)
    if family == "bank_transactions" and k < world.month:
        return _bank(world, k)
    closed = world.last_closed_month
    if family == "general_ledger" and closed is not None and k <= closed:
        return _dollar_tree(world.ledger.journal(k, k))
    raise KeyError(filename)


def _ranges(months: list[int]) -> str:
    """[0, 1, 2, 5] -> "0-2, 5"."""
    spans: list[list[int]] = []
    for k in sorted(months):
        if spans and k == spans[-1][1] + 1:
            spans[-1][1] = k
        else:
            spans.append([k, k])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)


def _bank(world: CfoWorld, month: int) -> dict[str, Any]:
    """A month's bank statement: total deposits and withdrawals, no breakdown (section 3.2:
    without a book closing the agent sees only fragmented raw records)."""
    deposits = withdrawals = count = 0
    for e in world.ledger.journal(month, month):
        cash = sum(line["amount"] for line in e["lines"] if line["account"] == "cash")
        if cash > 0:
            deposits += cash
        elif cash < 0:
            withdrawals -= cash
        count += cash != 0
    return {
        "month": month,
        "deposits": dollars(deposits),
        "withdrawals": dollars(withdrawals),
        "transactions": count,
    }


def _overview(world: CfoWorld) -> str:
    cfg = world.config
    c, lend = cfg.company, cfg.lending
    plan = business_plan(world)
    return (
        f"# {c.name}: business overview\n\n"
        f"{c.name} is a consumer-lending company. At the start it serves {c.borrowers:,} active borrowers with an "
        f"average loan of ${c.average_loan_dollars:,}, has ${c.start_cash_dollars:,} in cash and no debt, and "
        f"{c.shares_outstanding:,} shares outstanding at ${c.share_price_dollars:,.2f}.\n\n"
        f"- Loans: {lend.loan_term_months}-month instalment loans repaid in equal principal; borrowers pay "
        f"interest at the policy rate plus {lend.lending_spread_pct:g} points and a {lend.origination_fee_pct:g} % "
        "origination fee. Interest earned in a month is collected the next month.\n"
        "- Growth: every new borrower is funded from the company's cash; the customer base grows with the "
        "industry and with the company's own momentum.\n"
        "- Costs: funding and servicing costs are paid in the month; other operating costs are invoiced and "
        "paid the following month.\n"
        f"- Opening plan (no growth): operating cash flow about ${dollars(plan['operating']):,.0f} a month, "
        f"lending cash flow about ${dollars(plan['investing']):,.0f} a month.\n"
    )


def _cap_table(world: CfoWorld) -> str:
    cfg = world.config.company
    lines = [
        "# Capitalization table\n",
        f"- Founding shares: {cfg.shares_outstanding:,}",
        f"- Shares outstanding now: {world.shares:,}",
    ]
    for a in world.attempts:
        if a.kind == "equity" and a.success and a.settle_month < world.month:
            lines.append(
                f"- Equity round settled {world.macro.label(a.settle_month)}: ${dollars(a.received_cents):,.2f}"
            )
    return "\n".join(lines) + "\n"


def _contracts(world: CfoWorld) -> str:
    lines = [
        "# Contracts\n",
        "## Vendors\n",
        "Operating vendors invoice monthly on net-30 terms: a month's operating costs are paid the next month.\n",
        "## Debt\n",
    ]
    if not world.tranches:
        lines.append("No debt outstanding.")
    for t in world.tranches:
        lines.append(
            f"- ${dollars(t.principal_cents):,.2f} drawn {world.macro.label(t.start_month)} at "
            f"{t.rate * 100:.2f} % a year, interest paid monthly, principal due "
            f"{world.macro.label(t.maturity_month) if t.maturity_month < world.macro.months else 'after the horizon'}"
        )
    return "\n".join(lines) + "\n"


def forecast(world: CfoWorld, months: int, growth_override: float | None) -> dict[str, Any]:
    """Cash projection from the last closed month's flows (or the opening plan), plus debt service."""
    k = world.last_closed_month
    led = world.ledger
    if k is None or k < 0:
        base = business_plan(world)
        basis, growth = "the opening business plan (the books have never been closed on a completed month)", 0.0
    else:
        cf = led.cash_flow_statement(k, k)
        base = {
            "operating": cf["net_cash_from_operating"] - cf["operating"]["interest_paid"],
            "investing": cf["net_cash_from_investing"],
        }
        basis = f"the books closed through {world.macro.label(k)}"
        growth = 0.0
        if k >= 1:
            now, before = (led.income_statement(m, m)["total_revenue"] for m in (k, k - 1))
            growth = (now / before - 1) * 100 if before > 0 else 0.0
    g = growth if growth_override is None else growth_override
    cash = world.cash_cents
    rows = []
    for i in range(1, months + 1):
        t = world.month + i - 1
        factor = (1 + g / 100) ** i
        debt_service, repay = world.debt_service_cents(t)
        flow = round(base["operating"] * factor + base["investing"] * factor) - debt_service - repay
        cash += flow
        rows.append(
            {
                "month": t,
                "date": world.macro.label(t) if t < world.macro.months else f"month {t}",
                "operating": dollars(base["operating"] * factor),
                "lending": dollars(base["investing"] * factor),
                "debt_service": dollars(-(debt_service + repay)),
                "ending_cash": dollars(cash),
            }
        )
    return {
        "based_on": basis,
        "monthly_growth_pct": round(g, 3),
        "starting_cash": dollars(world.cash_cents),
        "projection": rows,
        "note": "Pending fundraising is not included; flows are extrapolated, not known.",
    }
