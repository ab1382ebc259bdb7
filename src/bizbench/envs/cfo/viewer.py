"""The cfo env's viewer module (docs/viewer.md): a run cut into months (numbered from 0), cash
with each raise asked and settled marked on it, revenue and originations, borrowers, and the
notepad replayed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bizbench.core.reporting import Call, Panel, Periods, replay
from bizbench.core.runs import Run

__all__ = [
    "KEY_METRICS",
    "MEMORY_LABEL",
    "MONEY_KEY",
    "MONEY_METRICS",
    "MONEY_NAME",
    "PANELS",
    "RESULT_KEYS",
    "markers",
    "memory",
    "periods",
    "series",
]

MONEY_NAME = "cash"
MONEY_KEY = "cash"
MONEY_METRICS = {"cash": 1, "revenue": 1, "originations": 1, "debt": 1}
KEY_METRICS = (
    "action",
    "raise_requested",
    "raise_settled",
    "cash",
    "debt",
    "revenue",
    "originations",
    "borrowers",
    "user_growth_pct",
)
RESULT_KEYS = ("score", "final_cash", "bankrupt", "months_survived")
PANELS = (Panel("flows", "Monthly revenue and originations ($)", money=True), Panel("book", "Borrowers"))
MEMORY_LABEL = "notes"


def periods(run: Run) -> Periods:
    return Periods("month", "month", event_key="turn")  # a cfo turn is a month (format 1 events: "month")


def markers(row: dict[str, Any]) -> list[str]:
    """A month's fundraising on the cash chart: the request made and the one settled."""
    marks = []
    if row.get("raise_requested"):
        marks.append(f"asked: {row['raise_requested']}")
    if row.get("raise_settled"):
        marks.append(f"settled: {row['raise_settled']}")
    return marks


def series(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    flows = {key: row.get(key) for key in ("revenue", "originations")}
    return {"flows": flows, "book": {"borrowers": row.get("borrowers")}}


def memory(run: Run, calls: list[Call], events: list[tuple[int, dict[str, Any]]]) -> Callable[[int], str] | None:
    """The notes after each month, replayed from successful ``save_note`` calls (oldest dropped
    beyond the preset's ``max_notes``, as the notepad does); newest first."""
    agent = run.inner_config.get("agent")
    agent = agent if isinstance(agent, dict) else {}
    cap, shown = agent.get("max_notes"), int(agent.get("notes_shown") or 5)

    def save(state: tuple[int, list[str]], call: Call) -> tuple[int, list[str]]:
        saved, notes = state[0] + 1, state[1]
        tags = call.args.get("tags") if isinstance(call.args.get("tags"), list) else []
        notes.append(
            f"#{saved} (month {call.period}) [{', '.join(map(str, sorted(set(tags))))}]\n{call.text('content')}"
        )
        if cap is not None and len(notes) > int(cap):
            notes.pop(0)
        return saved, notes

    def render(state: tuple[int, list[str]]) -> str:
        notes = state[1]
        head = f"{len(notes)} note(s), newest first; the {shown} newest are shown in each month's observation.\n\n"
        return head + "\n\n".join(notes[::-1])

    saves = [c for c in calls if c.ok and c.name == "save_note" and c.text("content") is not None]
    start: tuple[int, list[str]] = (0, [])
    return replay(saves, start, save, render)
