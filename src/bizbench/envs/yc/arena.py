"""The yc arena: rival AI startups taking contracts from one shared market (docs/arena.md).

Every seat runs a full YC-Bench company (paper section 3) drawn from the same seed: the same
employees, the same six clients (the adversarial ones are the same for everyone), the same
market. What the companies share is the market: a task accepted by one is gone for the others,
and a replacement is listed for every task taken (Table 2 "Market", the k-th replacement the
same task whenever it is drawn). Trust, prestige, staff and funds are each company's own.

A turn ends when every playing seat has run ``sim resume`` (core/arena.py). During it each seat
sees the market as the turn began, with its own accepts taken out and their replacements in,
exactly as if it played alone. The turn is then resolved:

1. **Contests.** A task held at the end of the turn by several seats (each accepted it) goes to
   the one with the most prestige in the task's domain, then the most trust with its client;
   between equals the client awards it to none of them (a seeded draw would favour a seat
   number, and swapping two agents between seats must mirror the outcome). Every seat that does
   not get it forfeits it: the task leaves its books, its staff are freed and a ``task_lost``
   event says why. A seat keeps whatever else it did (a cancellation's fee stands).
2. **The market.** Every task accepted by any seat leaves the market, and as many replacements
   as tasks accepted are drawn from the shared sequence; replacements already accepted during
   the turn are not listed again. Each seat's view becomes the new market.
3. **Time.** The clock moves to the earliest next event of any company still running (a
   checkpoint, deadline, payroll or the horizon), every company's work is credited to that
   instant and its events due then are processed. The seats with news (an event of their own,
   a task lost in step 1) are woken: their ``sim resume`` returns it. The others sleep on to
   their own next event, as ``sim resume`` promises a single player.

With one seat every step reduces to the single-player world: no contests, the market the
seat's own, the clock its own next event (a test checks the results are identical).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from bizbench.core.arena import TurnGate, seat_count
from bizbench.core.rng import stream_for
from bizbench.envs.yc.config import YcConfig
from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.world.tasks import ACTIVE, task_number
from bizbench.envs.yc.world.world import YcWorld

__all__ = ["MAX_SEATS", "RivalCompany", "YcArena", "YcSeatEnv"]

MAX_SEATS = 8
_REPLACEMENTS = "market_replacement"  # the world's stream of replacement tasks (world.py)


class RivalCompany(YcWorld):
    """A yc company in an arena: its accepts are claims until the turn is settled, and ``sim
    resume`` waits for the rivals (the module docstring)."""

    def __init__(self, config: YcConfig, seed: int) -> None:
        super().__init__(config, seed)
        self.arena: YcArena | None = None
        self.seat = 0
        self.claims: list[int] = []  # numbers of the market tasks accepted this turn
        self.turn_records: list[dict[str, Any]] = []  # what the last resolved turn did to this company

    def accept(self, task_id: str) -> Any:
        num = task_number(task_id) if isinstance(task_id, str) else None
        if num in self.market.tasks:  # the rivals' views share it: accept a copy of this company's own
            self.market.tasks[num] = replace(self.market.tasks[num])
        task = super().accept(task_id)
        self.claims.append(task.num)
        return task

    def resume(self) -> list[dict[str, Any]]:
        """End this seat's turn; returns once every playing seat has, with this company's events."""
        self._require_running()
        assert self.arena is not None, "a rival company plays only in an arena"
        self.arena.gate.end_turn(self.seat)
        self.resumes += 1
        return self.turn_records

    def forfeit(self, num: int, reason: str) -> None:
        """Give up a task accepted this turn that went to a rival (or to none): it leaves the
        books, its staff are freed and a ``task_lost`` event says why."""
        task = self.open.pop(num)
        del self.tasks[num]
        if task.status == ACTIVE:
            self._rates_changed()
        client = self.clients[task.client]
        self._emit(
            self.turn_records, {"type": "task_lost", "task_id": task.id, "client_name": client.name, "reason": reason}
        )


RIVALS_NOTE = """RIVALS. Rival startups ({rivals} of them), each run by its own agent and starting exactly as you
do, share your contract market: the same tasks and clients. Trust, prestige, staff and funds are each
company's own. Every company ends its turn with `sim resume` before time moves on, and no one sees
another's accepts of the same turn. When several companies accept the same task in one turn, the
client awards it to the one with the most prestige in the task's domain, then the most trust;
between equals it awards it to none of them. A company that does not get a task forfeits it, and a
task_lost event says why. A task any company accepted leaves the market. You are ranked against
your rivals by your final funds."""


class YcSeatEnv(YcEnv):
    """A seat of the yc arena: the single-player env over a :class:`RivalCompany`; with rivals,
    its instructions end with the arena's rules (docs/arena.md)."""

    world_class = RivalCompany
    world: RivalCompany

    def instructions_note(self) -> str:
        arena = self.world.arena
        seats = len(arena.seats) if arena is not None else 1
        return "" if seats == 1 else RIVALS_NOTE.format(rivals=seats - 1)


class YcArena:
    """K rival yc companies sharing one contract market (the module docstring)."""

    max_seats = MAX_SEATS

    def __init__(
        self,
        config: YcConfig,
        seed: int,
        seats: int,
        preset: str,
        preset_hash: str = "",
        secret: str | None = None,
        files: list[Path] | None = None,  # noqa: ARG002 - the contract's; yc keeps no agent-visible files
    ) -> None:
        seats = seat_count(seats, MAX_SEATS)
        self.config = config
        self.seats = [YcSeatEnv(config, seed, preset, preset_hash, secret) for _ in range(seats)]
        self.gate = TurnGate(seats, self.resolve)
        for i, env in enumerate(self.seats):
            env.world.arena = self
            env.world.seat = i
        first = self.seats[0].world
        self.market = first.market.copy()  # the shared market as of the last settled turn
        self.replacements = stream_for(first.streams.seed, _REPLACEMENTS)
        self.contests: list[dict[str, Any]] = []

    @property
    def worlds(self) -> list[RivalCompany]:
        return [env.world for env in self.seats]

    # ------------------------------------------------------------------ the turn
    def resolve(self) -> set[int]:
        """Contests, then the market, then the clock (the module docstring, steps 1-3); returns
        the seats woken: those with news (an event of their own, a task lost) and those done."""
        worlds = self.worlds
        claims: dict[int, list[int]] = {}
        for i, w in enumerate(worlds):
            w.turn_records = []
            if w.done:  # a company that ended itself this turn (cancellation fees) contests nothing
                w.claims.clear()
            for num in w.claims:
                claims.setdefault(num, []).append(i)
        for num in sorted(claims):
            self._settle(num, [i for i in claims[num] if num in worlds[i].open])
        if claims:
            self._relist(sorted(claims))
        running = [w for w in worlds if not w.done]
        if running:
            t = min(w.next_event_time() for w in running)
            for w in running:
                w.turn_records += w.run_until(t)
        return {i for i, w in enumerate(worlds) if w.turn_records or w.done}

    def _settle(self, num: int, holders: list[int]) -> None:
        """Award a task several seats hold: most prestige in its domain, then most trust; equals get none."""
        if len(holders) < 2:
            return
        worlds = self.worlds
        task = worlds[holders[0]].open[num]

        def standing(i: int) -> tuple[float, float]:
            return (worlds[i].prestige[task.domain], worlds[i].trust(task.client))

        best = max(standing(i) for i in holders)
        top = [i for i in holders if standing(i) == best]
        winner = top[0] if len(top) == 1 else None
        client = worlds[holders[0]].clients[task.client].name
        for i in holders:
            if i == winner:
                continue
            if winner is None:
                reason = "rivals bid for it with the same prestige and trust; the client awarded it to none of you"
            elif standing(winner)[0] > standing(i)[0]:
                reason = f"awarded to a rival with more prestige in {task.domain}"
            else:
                reason = f"awarded to a rival with more trust with {client}"
            worlds[i].forfeit(num, reason)
        self.contests.append({"turn": self.gate.turn + 1, "task_id": task.id, "seats": holders, "winner": winner})

    def _relist(self, taken: list[int]) -> None:
        """The market after the turn: taken tasks out, one replacement per task taken, and every
        seat's view and replacement stream set to it."""
        market = self.market
        for num in taken:
            if num in market.tasks:
                market.remove(num)
        clients = self.worlds[0].clients  # the multipliers are the same in every company
        for _ in taken:
            market.replace(self.config, clients, self.replacements)
        for num in taken:
            if num in market.tasks:  # a replacement accepted within the turn
                market.remove(num)
        state = self.replacements.bit_generator.state
        for w in self.worlds:
            w.market = market.copy()
            w.streams[_REPLACEMENTS].bit_generator.state = state
            w.claims.clear()

    # ------------------------------------------------------------------ the record
    def result(self) -> dict[str, Any]:
        """arena.json's env fields: the contests, and each seat's record of them."""
        per_seat = []
        for i in range(len(self.seats)):
            mine = [c for c in self.contests if i in c["seats"]]
            per_seat.append(
                {
                    "contests": len(mine),
                    "won": sum(c["winner"] == i for c in mine),
                    "awarded_to_none": sum(c["winner"] is None for c in mine),
                }
            )
        return {"contests": len(self.contests), "contest_log": self.contests, "seat_contests": per_seat}
