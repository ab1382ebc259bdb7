"""What an env declares for ``bizbench play`` (a person playing it in the browser, docs/play.md).

An env's spec names its play module (:attr:`EnvSpec.play <bizbench.core.env.EnvSpec.play>`),
``envs/<id>/play.py``, the same shape for every env (:class:`PlayModule`): its charts, the
label of its end-turn control, the tools that end a turn, and how the memory file is saved.

The charts show only what an agent in the env's seat sees (docs/principles.md principle 3):
:meth:`PlayModule.points` reads the env through the seat's own public views (the observation,
an agent-visible database, a read that spends nothing) and the answers this turn already gave
the player; it never calls a tool (a call would be recorded as the player's, and cfo reads
spend a budget). Nothing here draws or serves a page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = ["PlayChart", "PlayModule", "Point", "Seen"]


@dataclass(frozen=True)
class PlayChart:
    """One chart of the play page: ``id`` (what a :class:`Point` names), its title, whether its
    values are dollars, and its x axis: the env's elapsed time in its unit, or the turns ended
    (yc: a month holds many turns)."""

    id: str
    title: str
    money: bool = False
    axis: Literal["elapsed", "turn"] = "elapsed"


@dataclass(frozen=True)
class Point:
    """One value of a chart's series; ``x`` None: now (on the chart's axis), else the time the
    value is about (cfo: the month a statement covers). A later point at the same x replaces it."""

    chart: str
    series: str
    value: float
    x: float | None = None


@dataclass(frozen=True)
class Seen:
    """One answer the player was given: the tool, its arguments, and its data (None when refused)."""

    tool: str
    args: dict[str, Any]
    ok: bool
    data: Any


class PlayModule(Protocol):
    """``envs/<id>/play.py`` (see the module docstring)."""

    #: the charts, in the order the page shows them
    CHARTS: tuple[PlayChart, ...]
    #: whether saving the memory adds to it (cfo: a note) rather than replacing it (the page then
    #: shows the memory apart from an empty box for the addition)
    MEMORY_ADDS: bool
    #: the money the observation shows, for the page's header: (label, the observation's key,
    #: the divisor that makes it dollars); None when the observation shows none (cfo)
    MONEY: tuple[str, str, float] | None
    #: the end-turn control's label (what :meth:`Env.advance` does in the env's words)
    END_TURN: str
    #: the tool that is :meth:`Env.advance` when called without arguments (cfo ``pass``, yc
    #: ``sim_resume``): the control calls it, so the page shows its answer and a resumed game's
    #: history (rebuilt from the record, where the two are one row) is the same; None: the control
    #: calls :meth:`Env.advance` (ceo: the week without forecasts is no tool's call)
    END_TURN_TOOL: str | None
    #: tools whose accepted call ends the turn, listed again beside the end-turn control
    TURN_TOOLS: tuple[str, ...]
    #: the memory's name on the page (MEMORY.md, scratchpad, notes)
    MEMORY_LABEL: str
    #: what saving the memory does, in a sentence
    MEMORY_HELP: str
    #: a file of the run directory the memory is kept in (ceo MEMORY.md: the world has no memory
    #: of its own); None: the env keeps it and :func:`memory_call` saves it
    MEMORY_FILE: str | None

    def memory_call(self, text: str) -> tuple[str, dict[str, Any]] | None:
        """The tool call that saves ``text`` as the memory (None when :attr:`MEMORY_FILE` keeps it)."""
        ...

    def points(self, env: Any, seen: Sequence[Seen]) -> list[Point]:
        """The charts' values now, from the seat's public views of ``env`` and ``seen`` (this
        turn's answers so far). A chart left out has no point now."""
        ...
