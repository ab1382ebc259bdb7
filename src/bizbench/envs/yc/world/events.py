"""A deterministic event queue (reference-notes "Known defects" 3: the original ordered simultaneous events
by random UUIDs).

Events are totally ordered by ``(time, priority, ref, sub, version)``: time in minutes; the
kind's priority (payroll first, then task checkpoints and completions, then deadlines, then
the horizon: a task finishing at its deadline instant succeeds, and payroll is charged before
anything else that happens at 09:00); ``ref`` the task number (0 for payroll and horizon);
``sub`` the checkpoint index. No insertion counter or hash takes part, so the order does not
depend on how or when events were pushed.

Checkpoint predictions change whenever throughput changes; instead of deleting entries the
world bumps a task's ``version`` and pushes a new one, and :meth:`EventQueue.pop_valid`
drops entries its ``valid`` predicate rejects (lazy deletion).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["CHECKPOINT", "DEADLINE", "HORIZON", "KIND_NAMES", "PAYROLL", "Event", "EventQueue"]

PAYROLL = 0
CHECKPOINT = 1
DEADLINE = 2
HORIZON = 3
KIND_NAMES = {PAYROLL: "payroll", CHECKPOINT: "checkpoint", DEADLINE: "deadline", HORIZON: "horizon"}


class Event(NamedTuple):
    time: int
    kind: int  # also the priority at equal times
    ref: int = 0  # task number
    sub: int = 0  # checkpoint index
    version: int = 0


class EventQueue:
    """A binary heap of :class:`Event` with lazy invalidation."""

    def __init__(self) -> None:
        self._heap: list[Event] = []

    def push(self, event: Event) -> None:
        heapq.heappush(self._heap, event)

    def __len__(self) -> int:
        return len(self._heap)

    def peek_valid(self, valid: Callable[[Event], bool]) -> Event | None:
        """The first valid event (stale entries before it are discarded), without removing it."""
        heap = self._heap
        while heap and not valid(heap[0]):
            heapq.heappop(heap)
        return heap[0] if heap else None

    def pop_valid(self, valid: Callable[[Event], bool]) -> Event | None:
        ev = self.peek_valid(valid)
        if ev is not None:
            heapq.heappop(self._heap)
        return ev

    def compact(self, valid: Callable[[Event], bool]) -> None:
        """Drop every stale entry (keeps the heap small on long runs)."""
        self._heap = [e for e in self._heap if valid(e)]
        heapq.heapify(self._heap)

    def snapshot(self) -> list[tuple[int, int, int, int, int]]:
        """The entries in total order (for state digests)."""
        return [tuple(e) for e in sorted(self._heap)]  # type: ignore[misc]
