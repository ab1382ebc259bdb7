"""The ceo env's viewer module (docs/viewer.md): a run cut into weeks of days, cash, customers
by group and the list price of each plan, and MEMORY.md as the terminal harness showed it at
the start of each week."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bizbench.core.reporting import Call, Panel, Periods, number
from bizbench.core.runs import Run
from bizbench.envs.ceo.play import MEMORY_FILE

__all__ = [
    "ENV_CALLS_WITH_TRAJECTORY",
    "KEY_METRICS",
    "MEMORY_LABEL",
    "MEMORY_WHEN",
    "MONEY_KEY",
    "MONEY_METRICS",
    "MONEY_NAME",
    "PANELS",
    "RESULT_KEYS",
    "Weeks",
    "action_series",
    "list_prices",
    "memory",
    "periods",
    "series",
]

MONEY_NAME = "cash"
MONEY_KEY = "cash"
MONEY_METRICS = {"cash": 1, "mrr": 1, "revenue": 1, "costs": 1}
KEY_METRICS = (
    "cash",
    "subscribers",
    "enterprise_seats",
    "mrr",
    "revenue",
    "costs",
    "new_subscribers",
    "cancellations",
    "open_issues",
    "product_quality",
)
RESULT_KEYS = ("final_cash", "bankrupt", "days_survived", "final_subscribers", "peak_subscribers")
PANELS = (
    Panel("customers", "Customers by group (subscribers, enterprise seats)", fill_zero=True),
    Panel("prices", "List price of each plan ($ / month)", money=True),
)
PLANS = "ABC"
MEMORY_LABEL = "MEMORY.md"
MEMORY_WHEN = "at the start of the week, as shown to the agent"
#: the terminal harness's own tools (bash, write_file ...) are in trajectory.jsonl; the simulator
#: calls the agent's SDK made (get_status, next_week ...) only in actions.jsonl
ENV_CALLS_WITH_TRAJECTORY = True
#: metrics dicts drawn as customers by group: (series prefix, metrics key)
GROUPS = (("subscribers", "subscribers_by_group"), ("seats", "seats_by_group"))
CUT_MARK = "\n\n[the harness cut MEMORY.md here when it showed it]"
LEFT_MARK = "\n\n[MEMORY.md as the game left it: a person's game keeps no copy a week]"


@dataclass
class Weeks(Periods):
    """Weeks of ``per`` days (CEO-Bench's weekly turns): week w holds days 7w to 7w+7."""

    per: int = 7
    horizon: int = 0

    def label(self, period: int) -> str:
        end = min((period + 1) * self.per, self.horizon) if self.horizon else (period + 1) * self.per
        return f"Week {period + 1} (days {period * self.per}–{end})"

    def span(self, period: int) -> list[float]:
        end = (period + 1) * self.per
        return [float(period * self.per), float(min(end, self.horizon) if self.horizon else end)]

    def of_row(self, row: dict[str, Any]) -> tuple[float, int] | None:
        """A metrics row is the end of its day: day d belongs to the week holding days d-1 to d."""
        day = number(row.get("day"))
        return None if day is None else (day, (int(day) - 1) // self.per)

    def of_actions(self, rows: list[dict[str, Any]]) -> list[int]:
        """Rows carry the day; a successful ``next_week`` is logged after the week it ends has been
        simulated, so it belongs to the day of the row before it."""
        out, day = [], 0
        for row in rows:
            logged = int(number(row.get("day")) or 0)
            advanced = row.get("tool") == "next_week" and row.get("ok")
            out.append((day if advanced else logged) // self.per)
            day = logged
        return out

    def of_event(self, event: dict[str, Any], previous: int) -> int:
        turn, day = number(event.get("turn")), number(event.get("day"))
        if turn is not None:
            return int(turn) - 1
        if day is not None:
            return int(day) // self.per
        return previous


def periods(run: Run) -> Weeks:
    per = number(run.inner_config.get("days_per_turn"))
    return Weeks("week", "day", first=1, per=int(per or 7), horizon=run.horizon or 0)


def series(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Customers of each group on the row's day (groups without any are left out)."""
    by_group = ((prefix, row.get(key)) for prefix, key in GROUPS)
    counts = {f"{p} {g}": n for p, d in by_group if isinstance(d, dict) for g, n in d.items() if number(n)}
    return {"customers": counts}


def list_prices(actions: list[dict[str, Any]]) -> list[tuple[float, dict[str, float]]]:
    """Each plan's list price from day 0 (none set: 0) and from every day whose accepted
    ``set_prices`` calls changed one, as (day, prices): a day's last call is the price its
    customers met (a call names only the plans it sets)."""
    prices = dict.fromkeys(PLANS, 0.0)
    out = [(0.0, dict(prices))]
    for a in actions:
        args = a.get("args")
        if a.get("tool") == "set_prices" and a.get("ok") and isinstance(args, dict):
            prices.update({k: float(args[k]) for k in PLANS if number(args.get(k)) is not None})
            day = float(number(a.get("day")) or 0.0)
            if out and out[-1][0] == day:  # a later call of the same day
                out.pop()
            if not out or prices != out[-1][1]:
                out.append((day, dict(prices)))
    return out


def action_series(run: Run) -> dict[str, list[tuple[float, dict[str, Any]]]]:
    """The list prices as steps: each change drawn at its day, held to the run's last day."""
    steps: list[tuple[float, dict[str, Any]]] = []
    for day, prices in list_prices(run.actions):
        if steps:
            steps.append((day, steps[-1][1]))
        steps.append((day, prices))
    last = number(run.metrics[-1].get("day")) if run.metrics else None
    if last is not None and last > steps[-1][0]:
        steps.append((float(last), steps[-1][1]))
    return {"prices": steps}


def memory(run: Run, calls: list[Call], events: list[tuple[int, dict[str, Any]]]) -> Callable[[int], str] | None:
    """MEMORY.md as the terminal harness showed it at the start of each week (its ``reset``
    events); for a person's game (no harness) the run's MEMORY.md as the game left it, every week;
    None for a run with neither (a baseline)."""
    states: dict[int, str] = {}
    for period, event in events:
        if event.get("kind") == "reset":
            text = event.get("memory")
            states[period] = (text if isinstance(text, str) else "") + (CUT_MARK if event.get("memory_cut") else "")
    if not states:
        left = run.path / MEMORY_FILE
        if run.sealed or not left.is_file():
            return None
        try:
            text = left.read_text(encoding="utf-8") + LEFT_MARK  # the viewer cuts long text
        except (OSError, UnicodeDecodeError):
            return None
        return lambda period: text
    known = sorted(states)

    def at(period: int) -> str:
        before = [p for p in known if p <= period]
        return states[before[-1]] if before else ""

    return at
