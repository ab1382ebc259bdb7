"""The CFO's tools, memory and actions, defined once (paper section 3.2-3.3, Appendix E).

Tool names are the original's (the paper's descriptive names in brackets in each
docstring). Category ``tool`` calls count against the monthly budget and cost 5,000 each in
the score (eq 2); ``memory`` calls are free; an ``action`` ends the month. A bad call raises
a ToolError naming the argument and changes nothing (docs/principles.md principle 8); a refused action
(e.g. a second pending fundraising request) does not use up the month.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from bizbench.core.registry import ConfiguredTools, ToolError, echoed
from bizbench.envs.cfo import records
from bizbench.envs.cfo.config import CfoConfig, load_config
from bizbench.envs.cfo.world.macro import GROUPS, SERIES

if TYPE_CHECKING:
    from bizbench.envs.cfo.env import CfoEnv

__all__ = ["ACTION", "MEMORY", "TOOL", "TOOLS", "figures", "registry", "registry_for"]

TOOL, MEMORY, ACTION = "tool", "memory", "action"
Tag = Annotated[str, Field(min_length=1, max_length=64)]
MAX_NOTE = 100_000  # a note's length where the preset sets no cap


def figures(config: CfoConfig) -> dict[str, str]:
    """The config's limits the tool descriptions state: the schemas that enforce them are made from
    the same config (``_amount``), so a description and its check cannot disagree (docs/principles.md
    principles 1 and 5)."""
    f = config.fundraising
    return {"min_request": f"${f.min_request_dollars:,}", "max_request": f"${f.max_request_dollars:,}"}


def _amount(config: CfoConfig) -> Any:
    """A request's ``amount``: the preset's range, in dollars."""
    f = config.fundraising
    return Annotated[float, Field(ge=f.min_request_dollars, le=f.max_request_dollars)]


def _note(config: CfoConfig) -> Any:
    """A note's ``content``: at most the preset's ``max_note_chars`` (else :data:`MAX_NOTE`)."""
    return Annotated[str, Field(min_length=1, max_length=min(config.agent.max_note_chars or MAX_NOTE, MAX_NOTE))]


def _limit(config: CfoConfig) -> Any:
    """``recall_notes``' ``limit``: at most the preset's ``recall_limit_max``."""
    return Annotated[int, Field(ge=1, le=config.agent.recall_limit_max)]


TOOLS = ConfiguredTools(figures)  # each tool, declared once; its text and bounds from a config
registry_for = TOOLS.registry_for  # the cfo tools for one config (``CfoEnv.registry_for``)


# ---------------------------------------------------------------------------- tools (budgeted)
@TOOLS.tool(category=TOOL, mutates=False)
def check_cash_in_bank(env: CfoEnv) -> dict[str, Any]:
    """[verify_cash_position] The real-time cash balance: one number, no breakdown."""
    return {"month": env.month_label, "cash": records.dollars(env.world.cash_cents)}


@TOOLS.tool(category=TOOL, mutates=False)
def access_financial_docs(
    env: CfoEnv, action: Literal["list", "retrieve"], filename: Annotated[str, Field(max_length=200)] | None = None
) -> dict[str, Any]:
    """[review_financial_records] Internal documents and statements dated up to now.

    Statements are only as fresh as the last book closing; a month not yet closed shows only
    its bank statement (total deposits and withdrawals).

    Args:
        action: "list" the documents, or "retrieve" one by filename.
        filename: The document to retrieve (from "list").
    """
    if action == "list":
        if filename is not None:
            raise ToolError("filename is only used with action='retrieve'")
        return {"documents": records.document_list(env.world), "retrieve": "replace <k> by a month number"}
    if filename is None:
        raise ToolError("action='retrieve' needs a filename; call with action='list' to see them")
    try:
        return {"filename": filename, "content": records.retrieve(env.world, filename)}
    except KeyError:
        raise ToolError(
            f"unknown filename {echoed(filename)!r}; call with action='list' to see the documents"
        ) from None


@TOOLS.tool(category=TOOL, mutates=False)
def check_market_data(
    env: CfoEnv,
    data_type: str,
    start_month: Annotated[int, Field(ge=0)] = 0,
    end_month: Annotated[int, Field(ge=0)] | None = None,
) -> dict[str, Any]:
    """[analyze_market_conditions] History of external indicators up to the current month; no forecast.

    Args:
        data_type: A group (economic, debt_market, equity_market, industry) or one series key.
        start_month: First month (0 = the first month of the simulation).
        end_month: Last month, at most the current month (default: the current month).
    """
    now = env.world.month
    end = now if end_month is None else end_month
    if data_type in GROUPS:
        keys = list(GROUPS[data_type])
    elif data_type in SERIES:
        keys = [data_type]
    else:
        allowed = ", ".join([*GROUPS, *SERIES])
        raise ToolError(f"unknown data_type {echoed(data_type)!r}; allowed: {allowed}")
    if end > now:
        raise ToolError(f"end_month {end} is in the future; the current month is {now} (no forecasts)")
    if start_month > end:
        raise ToolError(f"start_month {start_month} is after end_month {end}")
    macro = env.world.macro
    return {
        "months": [{"month": t, "date": macro.label(t)} for t in range(start_month, end + 1)],
        "series": {
            k: {"description": SERIES[k], "values": [round(float(v), 4) for v in macro.window(k, start_month, end)]}
            for k in keys
        },
    }


@TOOLS.tool(category=TOOL, mutates=False)
def cash_flow_forecast_calculation(
    env: CfoEnv,
    months: Annotated[int, Field(ge=1, le=12)] = 3,
    growth_rate_override: Annotated[float, Field(ge=-50, le=50)] | None = None,
) -> dict[str, Any]:
    """[conduct_cashflow_projection] Project cash month by month from the last closed books.

    Assumes the operating and lending cash flows of the last closed month continue, growing at
    the revenue growth of that month (or at ``growth_rate_override`` % a month), plus the
    known debt service. The
    projection is only as good as the books it starts from.

    Args:
        months: Months to project (1-12).
        growth_rate_override: Monthly growth of the flows in percent, instead of the recent rate.
    """
    return records.forecast(env.world, months, growth_rate_override)


# ---------------------------------------------------------------------------- memory (free)
@TOOLS.tool(category=MEMORY, bounded={"content": _note})
def save_note(
    env: CfoEnv,
    content: str,
    tags: Annotated[list[Tag], Field(max_length=20)] | None = None,
) -> dict[str, Any]:
    """Save a note to your notepad (persists across months; free).

    Args:
        content: The note.
        tags: Labels to find it again, e.g. "cash", "fundraising", "macro", "strategy".
    """
    return env.notes.save(content, tags or [], env.world.month)


@TOOLS.tool(category=MEMORY, mutates=False, bounded={"limit": _limit})
def recall_notes(
    env: CfoEnv,
    query: Annotated[str, Field(max_length=1000)] | None = None,
    tags: Annotated[list[Tag], Field(max_length=20)] | None = None,
    limit: int = 10,
) -> dict[str, Any]:
    """Find notes by keyword and/or tag, newest first; without filters, the most recent notes (free).

    Args:
        query: Words that must all appear in the note (case-insensitive).
        tags: Only notes carrying one of these tags.
        limit: How many notes to return.
    """
    return env.notes.recall(query, tags, limit)


# ---------------------------------------------------------------------------- actions (end the month)
@TOOLS.tool(category=ACTION)
def book_closing(env: CfoEnv) -> dict[str, Any]:
    """Close the books: consolidate the ledger into an income statement, balance sheet and cash-flow statement.

    The statements (as of the end of the last completed month) become available through
    access_financial_docs. This is the month's one action.
    """
    return env.end_month("book_closing")


@TOOLS.tool(category=ACTION, bounded={"amount": _amount})
def fund_raising_request(
    env: CfoEnv,
    type: Literal["equity", "debt"],  # noqa: A002 - the paper's parameter name
    amount: float,
) -> dict[str, Any]:
    """Request external capital; the outcome, amount received and settlement month come later.

    On success 70-100 % of the amount arrives 1-6 months later. Equity odds follow equity-market
    sentiment and fall with every earlier successful round and with the size of the request
    relative to the company's valuation; debt odds follow credit conditions and fall with leverage
    (debt-to-equity above 0.5). A debt contract's rate is set when it settles:
    (2-year Treasury + Baa yield) + 5 points x (leverage - 0.5) when leverage exceeds 0.5.
    Only one request may be pending; this is the month's one action.

    Args:
        type: "equity" or "debt".
        amount: Dollars requested, from {min_request} to {max_request}.
    """
    return env.request_funds(type, amount)


@TOOLS.tool(name="pass", category=ACTION)
def pass_month(env: CfoEnv) -> dict[str, Any]:
    """Take no action this month; the company runs on."""
    return env.end_month("pass")


registry = registry_for(load_config("paper")[0])  # the paper preset's (`bizbench tools cfo`, docs/cfo-tools.md)
