"""Arenas: several agents run rival companies in one market (docs/arena.md).

An env that offers an arena names its class in :attr:`~bizbench.core.env.EnvSpec.arena`. An
:class:`Arena` holds one :class:`~bizbench.core.env.Env` per seat, each a full single-player
env under the contract of :mod:`bizbench.core.env` (its tools, observation, score), the seats
sharing one market.

Turns are simultaneous. A seat ends its turn the env's usual way (yc ``sim resume``); the call
waits in the arena's :class:`TurnGate` until every seat still playing is waiting or has left.
The last one to arrive has the arena resolve the turn once (contests settled, the market and the
clock moved); the arena names the seats it wakes (those whose company has news: yc, an event of
its own), their calls return with their own company's outcome, and the others wait on, as a
single player's ``sim resume`` waits for its own next event. Within a turn a seat changes only
its own company; what it does reaches its rivals only through the resolution, so no seat sees
another's moves of the same turn, the outcome does not depend on the order in which the seats
acted, and a run is deterministic whatever the threads did.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from bizbench.core.env import Env

__all__ = ["Arena", "ArenaAborted", "TurnGate", "seat_count"]


def seat_count(seats: object, most: int) -> int:
    """``seats`` when it is a whole number from 1 to ``most`` (an env's arena size); ValueError
    naming ``--seats`` otherwise."""
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= most:
        raise ValueError(f"--seats must be a whole number from 1 to {most}, got {seats!r}")
    return seats


class ArenaAborted(BaseException):
    """The arena stopped: a seat's agent failed, or resolving a turn did. A BaseException, like
    KeyboardInterrupt, so that no tool layer or harness turns it into an answer and plays on."""


@runtime_checkable
class Arena(Protocol):
    """Rival companies in one market (see the module docstring)."""

    seats: list[Env]  # seat i's company, a full env
    gate: TurnGate
    max_seats: int  # the most seats the env's arena takes (a class attribute)

    def resolve(self) -> set[int]:
        """Settle the turn every seat still playing has ended, move the world on, and name the
        seats to wake (a seat whose company is done is always woken, so that it can leave)."""

    def result(self) -> dict[str, Any]:
        """arena.json's env fields: what the seats' own results cannot say (contests ...)."""


class TurnGate:
    """Where seats wait for each other at the end of a turn.

    ``resolve`` runs in the thread of the last seat to end its turn (or to leave) while every
    other playing seat waits in :meth:`end_turn`; it returns the seats to wake. It runs again at
    once when it woke no playing seat (the news was for a seat that left)."""

    def __init__(self, seats: int, resolve: Callable[[], set[int]]) -> None:
        if seats < 1:
            raise ValueError(f"an arena needs at least one seat, got {seats}")
        self._resolve = resolve
        self._playing = set(range(seats))
        self._waiting: set[int] = set()
        self._turn = 0
        self._error: BaseException | None = None
        self._cond = threading.Condition()

    @property
    def turn(self) -> int:
        """Turns resolved so far."""
        return self._turn

    def end_turn(self, seat: int) -> None:
        """Seat ``seat`` has ended its turn: wait until a resolved turn wakes it (ArenaAborted if
        the arena stopped)."""
        with self._cond:
            self._check(seat)
            if seat in self._waiting:
                raise ArenaAborted(f"seat {seat} ended the same turn twice")
            self._waiting.add(seat)
            self._resolve_while_all_wait()
            while seat in self._waiting and self._error is None:
                self._cond.wait()
            if self._error is not None:
                raise ArenaAborted(f"the arena stopped: {self._error}") from self._error

    def leave(self, seat: int) -> None:
        """Seat ``seat`` plays no more (its company is done, or its agent stopped); the others go on."""
        with self._cond:
            if seat not in self._playing:
                return
            self._playing.discard(seat)
            self._waiting.discard(seat)
            if self._error is None:
                self._resolve_while_all_wait()

    @property
    def error(self) -> BaseException | None:
        """What stopped the arena (None while it runs)."""
        return self._error

    def abort(self, error: BaseException) -> None:
        """Stop the arena: every waiting seat's :meth:`end_turn` raises ArenaAborted."""
        with self._cond:
            if self._error is None:
                self._error = error
            self._cond.notify_all()

    def _check(self, seat: int) -> None:
        if self._error is not None:
            raise ArenaAborted(f"the arena stopped: {self._error}") from self._error
        if seat not in self._playing:
            raise ArenaAborted(f"seat {seat} has left the arena")

    def _resolve_while_all_wait(self) -> None:
        while self._playing and self._waiting == self._playing:
            try:
                woken = self._resolve()
            except BaseException as error:
                self._error = error
                self._cond.notify_all()
                raise ArenaAborted(f"resolving the turn failed: {type(error).__name__}: {error}") from error
            self._turn += 1
            self._waiting -= woken
            self._cond.notify_all()
