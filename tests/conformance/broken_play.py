"""A play module that breaks every rule of ``check_env``'s ``play`` check (tests/conformance)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizbench.core.play import PlayChart, Point, Seen

CHARTS = (PlayChart("sales", "Cups sold"),)
MONEY = ("Cash", "till", 1.0)  # the observation has no "till"
END_TURN = "end the day"
END_TURN_TOOL = "buy_lemons"  # needs an argument
TURN_TOOLS = ("close_shop",)  # no such tool
MEMORY_LABEL = "notes"
MEMORY_HELP = ""
MEMORY_FILE = "../notes.md"  # not a plain file name
MEMORY_ADDS = False


def memory_call(text: str) -> tuple[str, dict[str, Any]] | None:
    return "write_diary", {"text": text}  # a second keeper, and no such tool


def points(env: Any, seen: Sequence[Seen]) -> list[Point]:
    env.call_tool("get_status", {})  # a call the player never made, logged as theirs
    return [Point("sales", "cups", float("nan")), Point("taste", "thirst", env.world.thirst)]
