"""The cfo env's play module (docs/play.md): only what the CFO has paid to see.

A month's observation shows no money (EnterpriseArena §3.2: cash and statements are read with
budgeted tools), so the charts hold what the player's own calls returned this month: the cash of
``check_cash_in_bank`` and the figures of a retrieved ``financial_statements_month_<k>.json``
(drawn at the month they cover). The memory is the notepad; saving adds a note with
``save_note`` (a recorded action of the world).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizbench.core.play import PlayChart, Point, Seen

__all__ = [
    "CHARTS",
    "END_TURN",
    "END_TURN_TOOL",
    "MEMORY_ADDS",
    "MEMORY_FILE",
    "MEMORY_HELP",
    "MEMORY_LABEL",
    "MONEY",
    "TURN_TOOLS",
    "memory_call",
    "points",
]

CHARTS = (
    PlayChart("cash", "Cash in bank, as you checked it ($)", money=True),
    PlayChart("income", "Statements you read: the month's revenue and net income ($)", money=True),
    PlayChart("equity", "Statements you read: total equity ($)", money=True),
)
MONEY = None  # a month's message shows no money (EnterpriseArena §3.2)
END_TURN = "pass (take no action this month)"
END_TURN_TOOL = "pass"
TURN_TOOLS = ("book_closing", "fund_raising_request", "pass")
MEMORY_LABEL = "notes"
MEMORY_HELP = "Saving adds the text as a new note with save_note (a recorded action); the newest notes are shown."
MEMORY_FILE = None
MEMORY_ADDS = True  # save_note adds a note


def memory_call(text: str) -> tuple[str, dict[str, Any]] | None:
    return "save_note", {"content": text}


def points(env: Any, seen: Sequence[Seen]) -> list[Point]:
    values = []
    for answer in seen:
        data = answer.data if answer.ok and isinstance(answer.data, dict) else {}
        if answer.tool == "check_cash_in_bank" and isinstance(data.get("cash"), int | float):
            values.append(Point("cash", "cash", float(data["cash"])))
        content = data.get("content")
        if answer.tool == "access_financial_docs" and isinstance(content, dict) and "balance_sheet" in content:
            values += _statement_points(content)
    return values


def _statement_points(content: dict[str, Any]) -> list[Point]:
    """A statement set's figures, drawn at the month it covers (``as_of_month``)."""
    month = content.get("as_of_month")
    if not isinstance(month, int) or month < 0:
        return []  # the opening balance sheet has no month's income
    income = content.get("income_statement_month") or {}
    figures = [
        ("income", "revenue", income.get("total_revenue")),
        ("income", "net income", income.get("net_income")),
        ("equity", "equity", content["balance_sheet"].get("total_equity")),
    ]
    return [Point(chart, name, float(v), x=month) for chart, name, v in figures if isinstance(v, int | float)]
