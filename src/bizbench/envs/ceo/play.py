"""The ceo env's play module (docs/play.md): cash and customers by group, as the seat shows them.

Cash and subscribers come from the week's observation, enterprise seats from ``get_status`` (a
read that spends nothing), and the customers of each group from the agent's own ``company.db``
through its SQL guard (the ``query`` tool's path, CEO-Bench §3: the database is the agent's).
The memory is MEMORY.md, a file of the run directory, as the terminal harness keeps it in the
agent's workspace (CEO-Bench §3.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizbench.core.play import PlayChart, Point, Seen
from bizbench.envs.ceo.tools import get_status

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
    PlayChart("cash", "Cash ($)", money=True),
    PlayChart("customers", "Subscribers and enterprise seats"),
    PlayChart("groups", "Subscribed accounts by group"),
)
MONEY = ("Cash", "cash", 1.0)
END_TURN = "Next week (no forecasts)"
END_TURN_TOOL = None
TURN_TOOLS = ("next_week",)
MEMORY_LABEL = "MEMORY.md"
MEMORY_HELP = "Your notes, kept as MEMORY.md in the run directory (the world never reads it)."
MEMORY_FILE = "MEMORY.md"
MEMORY_ADDS = False

#: accounts subscribed now, per group, from the agent-visible tables (docs/ceo-tools.md ``query``)
BY_GROUP = (
    "SELECT c.group_id, COUNT(*) FROM subscriptions s JOIN customers c USING (customer_id) "
    "WHERE s.status = 'subscribed' GROUP BY c.group_id ORDER BY c.group_id"
)


def memory_call(text: str) -> tuple[str, dict[str, Any]] | None:
    return None  # MEMORY.md is a file of the run directory


def points(env: Any, seen: Sequence[Seen]) -> list[Point]:
    status = get_status(env)
    values = [
        Point("cash", "cash", float(status["cash"])),
        Point("customers", "subscribers", float(status["subscribers"])),
        Point("customers", "seats", float(status["enterprise_seats"])),
    ]
    if env.store is not None:
        values += [Point("groups", str(group), float(n)) for group, n in env.store.query(BY_GROUP)["rows"]]
    return values
