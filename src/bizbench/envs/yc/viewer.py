"""The yc env's viewer module (docs/viewer.md): a run cut into turns (each ends with its
successful ``sim resume``), funds, active tasks and runway, and the scratchpad replayed."""

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
    "Turns",
    "memory",
    "periods",
    "series",
]

MONEY_NAME = "funds"
MONEY_KEY = "funds_cents"
MONEY_METRICS = {"funds_cents": 100, "monthly_payroll_cents": 100}
KEY_METRICS = ("time", "funds_cents", "monthly_payroll_cents", "runway_months", "active_task_count", "bankrupt")
RESULT_KEYS = ("final_funds", "bankrupt", "tasks_succeeded", "tasks_failed")
PANELS = (Panel("activity", "Active tasks and runway"),)
MEMORY_LABEL = "scratchpad"
WRITES = ("scratchpad_write", "scratchpad_append")


class Turns(Periods):
    """Turns numbered from 1 in metrics rows and trajectory events; actions carry a clock time
    only, so a turn's actions are those up to and including its successful ``sim_resume``."""

    def of_actions(self, rows: list[dict[str, Any]]) -> list[int]:
        out, turn = [], 0
        for row in rows:
            out.append(turn)
            if row.get("tool") == "sim_resume" and row.get("ok"):
                turn += 1
        return out


def periods(run: Run) -> Turns:
    return Turns("turn", "turn", first=1)


def series(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"activity": {"active tasks": row.get("active_task_count"), "runway (months)": row.get("runway_months")}}


def memory(run: Run, calls: list[Call], events: list[tuple[int, dict[str, Any]]]) -> Callable[[int], str] | None:
    """The scratchpad after each turn, replayed from its successful writes ("" clears it)."""

    def write(text: str, call: Call) -> str:
        content = call.text("content") or ""
        return text + content if call.name == "scratchpad_append" else content

    writes = [c for c in calls if c.ok and c.name in WRITES and c.text("content") is not None]
    return replay(writes, "", write, str)
