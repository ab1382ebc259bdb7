"""yc arenas that each break one rule of the arena contract (docs/arena.md): check_env's
``arena`` check must catch every one. Nothing here is registered: each test hands its spec to
check_env directly."""

from __future__ import annotations

import dataclasses

from bizbench.envs.yc.arena import YcArena
from bizbench.envs.yc.spec import SPEC


class LateArena(YcArena):
    """Moves every company one minute past the event it resolves: with one seat the world drifts
    from the single-player run."""

    def resolve(self) -> set[int]:
        woken = super().resolve()
        for w in self.worlds:
            if not w.done:
                w.run_until(w.now + 1)
        return woken


class FirstSeatArena(YcArena):
    """Awards a task every seat bid for to the lowest seat (a seat number decides)."""

    def _settle(self, num: int, holders: list[int]) -> None:
        for i in holders[1:]:
            self.worlds[i].forfeit(num, "awarded to a rival")


LATE = dataclasses.replace(SPEC, id="yc-late-arena", arena="broken_arenas:LateArena")
FIRST_SEAT = dataclasses.replace(SPEC, id="yc-first-seat-arena", arena="broken_arenas:FirstSeatArena")
