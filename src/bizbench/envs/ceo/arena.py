"""The ceo arena: rival NovaMind-like companies selling to one market of 26 groups (docs/arena.md).

Every seat runs a full ceo company (its tools, SDK, company.db, dashboard and forecasts), all
drawn from the same seed: the same cash, product, customers-to-be and market. A turn ends when
every playing seat has ended its week (``next_week``, or ``next_turn`` for a baseline); the
arena then steps the turn's days (a week, or the fewest days any seat asked) for every company
together, day by day. Before each day it
shows each company its rivals as a lead sees them at the start of the day (``world/rivals.py``):
their public offer (prices, quotas, promotions, delivered quality), their reach and their
subscribers. During the day a company's leads may go to a rival (A3), a subscriber who
cancels may switch to one (A4), an enterprise lead also tenders at the rivals it knows (A5),
and its market saturates with every company's subscribers (A2). At the end of the day the
leads and churners that chose a rival convert there, the rivals' gates take the tenders, and a
firm that signed with one company is lost to the others. Everything else (usage, satisfaction,
support, billing, reputation, posts, negotiations, research, the macro economy and the
scripted competitor) is each company's own world, unchanged.

With one seat no rival is shown and no lead moves: the arena is the single-player world (a
test checks the state digest, actions and result are identical).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bizbench.core.arena import TurnGate, seat_count
from bizbench.envs.ceo.config import PLANS, CeoConfig
from bizbench.envs.ceo.env import CeoEnv
from bizbench.envs.ceo.tools import registry as single_player_tools
from bizbench.envs.ceo.world import rivals as market
from bizbench.envs.ceo.world.customers import LEAD, SUBSCRIBED

#: a seat's tools: the single player's and ``rivals``, the market's public offers
registry = single_player_tools.copy()

__all__ = ["MAX_SEATS", "CeoArena", "CeoSeatEnv"]

MAX_SEATS = 4  # issue 21: 2-4 companies in one market


RIVALS_NOTE = """RIVALS. You are one of {companies} companies selling the same kind of product to the same
market of customer groups, each run by its own agent and all starting exactly as you do. Every company
ends its week before the world moves on, and no one sees another's moves of the same week. A lead that
knows a rival (the more the rival's ads and word of mouth reach, the likelier) goes to whichever
company's best plan leaves it the most value; a cancelling subscriber may switch to a rival; an
enterprise prospect may negotiate with several companies and signs with one. The `rivals` tool, and
the `rivals` and `rival_posts` tables of the database, show each rival's public offer and its
customers' public posts as the week began. You are ranked against your rivals by your final cash."""


class CeoSeatEnv(CeoEnv):
    """A seat of the ceo arena: the single-player env whose week waits for its rivals' weeks,
    with one tool more and the arena's rules at the end of its instructions when it has rivals
    (``rivals``, docs/arena.md)."""

    arena: CeoArena
    seat: int

    def instructions_note(self) -> str:
        seats = len(self.arena.seats)
        return "" if seats == 1 else RIVALS_NOTE.format(companies=seats)

    def step(self, days: int | None = None) -> list[dict[str, Any]]:
        """End this seat's turn (``days``: how many it asks, a week by default); returns its days
        once every playing seat has ended theirs. The turn lasts the fewest days any seat asked."""
        self.arena.asked[self.seat] = days
        self.arena.gate.end_turn(self.seat)
        return self.last_week


class CeoArena:
    """K rival ceo companies in one market (the module docstring)."""

    max_seats = MAX_SEATS

    def __init__(
        self,
        config: CeoConfig,
        seed: int,
        seats: int,
        preset: str,
        preset_hash: str = "",
        secret: str | None = None,
        files: list[Path] | None = None,
        **world_options: Any,
    ) -> None:
        seats = seat_count(seats, MAX_SEATS)
        self.config = config
        self.seats = [
            CeoSeatEnv(
                config, seed, preset, preset_hash, secret, files=None if files is None else files[i], **world_options
            )
            for i in range(seats)
        ]
        self.gate = TurnGate(seats, self.resolve)
        for i, env in enumerate(self.seats):
            env.arena = self
            env.seat = i
            env.registry = registry if seats > 1 else single_player_tools  # alone, the single player's tools
        # leads reached by (churners leaving) the row's company that went to the column's
        self.moved = {kind: np.zeros((seats, seats), dtype=np.int64) for kind in ("lead", "churner", "tender")}
        self.firms: list[dict[int, int]] = []  # A5: each tendering firm's lead row at each company (seat -> row)
        self.asked: list[int | None] = [None] * seats  # the days each seat asked for its turn
        self.public = [public_offer(env) for env in self.seats]  # as the turn began (the ``rivals`` tool)
        self._order = {i: i for i in range(seats)}  # each company's place in the content order of the day
        self._published_day = -1  # the last day whose rival posts are in the seats' databases
        if seats > 1:
            for env in self.seats:
                if env.store is not None:
                    env.store.add_public_tables(PUBLIC_TABLES, PUBLIC_NOTES)
            self._publish()

    # ------------------------------------------------------------------ the week
    def resolve(self) -> set[int]:
        """Step every running company's week together, day by day; every seat wakes."""
        running = [env for env in self.seats if not env.done]
        asked = [days for days in (self.asked[env.seat] for env in running) if days is not None]
        days = [env.world.begin_turn(min(asked) if asked else None) for env in running]
        for env in running:
            env.last_week = []
        for k in range(max(days, default=0)):
            stepping = [env for env in running if not env.world.state.bankrupt]
            openings = [env.world.opening() for env in stepping]
            self._show_rivals(stepping, [counts for _, _, counts in openings])
            for env, opening in zip(stepping, openings, strict=True):
                record = env.world.step_day(sample_posts=k == days[0] - 1, opening=opening)
                env.last_week.append(record)
                env._on_day(record)
            for env in sorted(stepping, key=lambda e: self._order[e.seat]):  # by what they are, not their seat
                env.world.rivals = None
                for seat, group, cols, kind in env.world.to_rivals:
                    rival = self.seats[seat].world
                    if rival.state.bankrupt:  # it went bankrupt today: the lead finds no one there
                        continue
                    self.moved[kind][env.seat, seat] += len(cols["group"])
                    if kind != "tender":
                        rival.welcome_leads(group, cols)
                        continue
                    for origin, row in rival.welcome_tenders(group, cols):
                        self._tender(env.seat, origin, seat, row)
            self._settle_tenders()
        for env in running:
            env.turns += 1
            if env.store is not None:
                env.store.record_turn(env)
        self.public = [public_offer(env) for env in self.seats]
        if len(self.seats) > 1:
            self._publish()
        return set(range(len(self.seats)))

    def _publish(self) -> None:
        """Each seat's public market tables: the rivals' offers as this turn begins, and their
        customers' posts since the last turn (the ``rivals`` tool's data, in SQL)."""
        for env in self.seats:
            if env.store is None:
                continue
            day = env.world.day
            offers, posts = [], []
            for rival, offer in self.in_business(env):
                for plan in PLANS:
                    offers.append(
                        (
                            day,
                            offer["company"],
                            plan,
                            offer["prices"][plan],
                            offer["model_tiers"][plan],
                            offer["usage_quotas"][plan],
                            offer["lead_promotion"],
                        )
                    )
                posts += [
                    (p["day"], offer["company"], p["source_group_id"], p["content"])
                    for p in rival.world.social_posts
                    if p["kind"] == "customer" and p["day"] > self._published_day
                ]
            env.store.append_public("rivals", offers)
            env.store.append_public("rival_posts", posts)
        self._published_day = max(env.world.day for env in self.seats)

    def in_business(self, env: CeoSeatEnv) -> list[tuple[CeoSeatEnv, dict[str, Any]]]:
        """``env``'s rivals with their public offers as the turn began: those not bankrupt (a
        bankrupt company has left the market, and no lead goes to it)."""
        return [
            (rival, offer)
            for rival, offer in zip(self.seats, self.public, strict=True)
            if rival is not env and not rival.world.state.bankrupt
        ]

    def _tender(self, seat: int, origin: int, rival: int, row: int) -> None:
        """Link a firm's lead at ``rival`` to its lead at ``seat`` (A5)."""
        firm = next((f for f in self.firms if f.get(seat) == origin), None)
        if firm is None:
            self.firms.append({seat: origin, rival: row})
        else:
            firm[rival] = row

    def _settle_tenders(self) -> None:
        """A5: a firm that signed with a company today is lost to the others it still negotiates with."""
        open_firms = []
        for firm in self.firms:
            status = {seat: int(self.seats[seat].world.state.customers.status[row]) for seat, row in firm.items()}
            if any(s == SUBSCRIBED for s in status.values()):
                for seat, row in firm.items():
                    self.seats[seat].world.lose_to_rival(row)
            elif any(s == LEAD for s in status.values()):
                open_firms.append(firm)
        self.firms = open_firms

    def _show_rivals(self, stepping: list[CeoSeatEnv], counts_of: list[np.ndarray]) -> None:
        """Each company's rivals as a lead sees them at the start of the day (world/rivals.py), with
        each company's subscribers per group as the day opens (``counts_of``)."""
        if len(stepping) < 2:
            return
        shown = []
        for env, counts in zip(stepping, counts_of, strict=True):
            w = env.world
            reach = market.reach(w.state, w.params, counts)
            shown.append(market.Rival(env.seat, w.state.settings, w.delivered_quality(), reach, counts))
        # Rivals in the order of what they are (their offer, reach and customers), not of their
        # seats: the draws of a lead's awareness and ties, and the order in which leads arrive
        # from rivals, then follow the companies when agents swap seats (docs/arena.md).
        keys = {r.seat: _content(r) for r in shown}
        self._order = {seat: rank for rank, seat in enumerate(sorted(keys, key=keys.__getitem__))}
        for env, own in zip(stepping, shown, strict=True):
            others = sorted((r for r in shown if r is not own), key=lambda r: self._order[r.seat])
            env.world.rivals = market.Market(others, own.reach, env.world.streams.get("arena/awareness"))

    # ------------------------------------------------------------------ the record
    def result(self) -> dict[str, Any]:
        """standings.json's env fields: the leads each company reached, the churners who left it
        and the enterprise prospects it admitted, that went to (or also tendered at) each rival
        (row: from, column: to)."""
        return {
            "leads_to_rivals": self.moved["lead"].tolist(),
            "churners_to_rivals": self.moved["churner"].tolist(),
            "tenders_to_rivals": self.moved["tender"].tolist(),
        }


PUBLIC_POSTS = 20  # the newest customer posts of the last week shown of each rival

#: a seat's public market tables in its company.db (with rivals only): what the ``rivals`` tool shows, kept per turn
PUBLIC_TABLES = """
CREATE TABLE rivals (day INTEGER, company TEXT, plan TEXT, list_price REAL, model_tier INTEGER,
                     usage_quota REAL, lead_promotion REAL);
CREATE TABLE rival_posts (day INTEGER, company TEXT, group_id TEXT, content TEXT);
"""
PUBLIC_NOTES = {
    "rivals": "Each rival's public offer at the start of each of your turns: list price, model tier and "
    "usage quota of every plan, and its global lead promotion (docs/arena.md).",
    "rival_posts": "What each rival's customers posted publicly, by day (every company's customers call it NovaMind).",
}


def public_offer(env: CeoSeatEnv) -> dict[str, Any]:
    """What anyone sees of a company: each plan's list price, model tier and usage quota, its
    global lead promotion, and what its customers posted publicly in the last 7 days (newest
    first, at most PUBLIC_POSTS). Its targeted spend, costs, cash and customers stay its own."""
    s = env.world.state.settings
    day = env.world.day
    posts = [p for p in env.world.social_posts if p["kind"] == "customer" and p["day"] > day - 7]
    return {
        "company": f"company {env.seat}",
        "prices": {p: float(s.prices[i]) for i, p in enumerate(PLANS)},
        "model_tiers": {p: int(s.tiers[i]) for i, p in enumerate(PLANS)},
        "usage_quotas": {p: float(s.quotas[i]) for i, p in enumerate(PLANS)},
        "lead_promotion": float(s.lead_promo_global),
        "recent_customer_posts": [
            {"day": p["day"], "group_id": p["source_group_id"], "content": p["content"]}
            for p in posts[-PUBLIC_POSTS:][::-1]
        ],
    }


@registry.tool(category="market", mutates=False)
def rivals(env: CeoSeatEnv) -> dict[str, Any]:
    """The rival companies selling to your market, as anyone sees them when this week began: each
    one's list price, model tier and usage quota of every plan, its global lead promotion, and
    its customers' public posts of the last 7 days (every company's customers call it NovaMind).
    A company that went bankrupt has left the market and is not listed. A lead that knows a
    rival (the more its ads and word of mouth reach, the likelier) goes to whichever company's
    best plan leaves it the most (docs/arena.md)."""
    return {"you": f"company {env.seat}", "rivals": [offer for _, offer in env.arena.in_business(env)]}


def _content(rival: market.Rival) -> tuple[Any, ...]:
    """What a company is, as the market sees it on a day: its offer, reach and customers (the
    order of rivals; companies equal in all of it keep their seat order)."""
    s = rival.settings
    return (
        tuple(s.prices.tolist()),
        tuple(s.quotas.tolist()),
        tuple(s.tiers.tolist()),
        float(s.lead_promo_global),
        tuple(rival.reach.tolist()),
        tuple(rival.counts.tolist()),
        tuple(rival.delivered.ravel().tolist()),
    )
