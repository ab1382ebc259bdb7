"""The yc env's play module (docs/play.md): funds, client trust and prestige, as the seat shows them.

Funds come from the turn's observation (``company status``), trust from ``client list`` and
prestige from ``company status`` (YC-Bench Table 1; reads that spend nothing). The memory is the
scratchpad, saved with ``scratchpad write`` (a recorded action of the world).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizbench.core.play import PlayChart, Point, Seen
from bizbench.envs.yc.views import client_list, company_status

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

CHARTS = (  # by turn: a month holds many (each ``sim resume`` runs to the next event)
    PlayChart("funds", "Funds ($)", money=True, axis="turn"),
    PlayChart("trust", "Client trust", axis="turn"),
    PlayChart("prestige", "Prestige by domain", axis="turn"),
)
MONEY = ("Funds", "funds_cents", 100.0)
END_TURN = "sim resume"
END_TURN_TOOL = "sim_resume"
TURN_TOOLS = ("sim_resume",)
MEMORY_LABEL = "scratchpad"
MEMORY_HELP = "Saving replaces the scratchpad with scratchpad write (a recorded action)."
MEMORY_FILE = None
MEMORY_ADDS = False


def memory_call(text: str) -> tuple[str, dict[str, Any]] | None:
    return "scratchpad_write", {"content": text}


def points(env: Any, seen: Sequence[Seen]) -> list[Point]:
    status = company_status(env.world)
    clients = client_list(env.world)["clients"]
    return [
        Point("funds", "funds", status["funds_cents"] / 100),
        *(Point("trust", c["client_name"], float(c["trust"])) for c in clients),
        *(Point("prestige", domain, float(value)) for domain, value in status["prestige"].items()),
    ]
