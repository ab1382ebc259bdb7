"""The lemonade world and its Env (the contract of :mod:`bizbench.core.env`; docs/envs.md).

One turn is one day. Before opening, the agent may set the price of a cup and buy lemons (one
lemon makes one cup, paid at once); ``end_day`` opens the stand: of the day's passers-by (public,
by weather) each buys a cup with a probability that only the hidden taste of the town decides
(:class:`~lemonade.config.TasteConfig`), sales are capped by the lemons in stock, the rent is paid
and part of the lemons left spoil overnight. Cash below zero is bankruptcy; the score is the cash
at the end.

Every draw comes from a named stream (``weather``, ``customers``, ``taste``;
:class:`bizbench.core.rng.RngStreams`) and money is integer cents in a
:class:`bizbench.core.ledger.Ledger`, so one seed and one list of calls give one world.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.env import EnvBase
from bizbench.core.ledger import Ledger, LedgerRow
from bizbench.core.registry import ToolError, ToolResult
from bizbench.core.rng import RngStreams
from lemonade.config import WEATHERS, LemonadeConfig, Weather
from lemonade.tools import registry

__all__ = ["LemonadeEnv", "LemonadeWorld"]

#: words of the hidden state: none may appear in anything the agent reads
HIDDEN_WORDS = ("thirst", "reference_price", "buyers_wanted")


@dataclass
class Day:
    """What happened on one day (the world's event; the session turns it into a metrics row)."""

    day: int
    weather: Weather
    price_cents: int
    lemons_bought: int
    passers_by: int
    buyers_wanted: int  # hidden: how many would have bought with unlimited lemons
    sold: int
    revenue_cents: int
    rent_cents: int
    spoiled: int
    cash_cents: int


@dataclass
class LemonadeWorld:
    """The pure world: state and the day's step, no I/O."""

    config: LemonadeConfig
    entropy: int
    streams: RngStreams = field(init=False)
    ledger: Ledger = field(init=False)
    day: int = 0
    price_cents: int = 0
    lemons: int = 0
    bought_today: int = 0
    weather: Weather = "sunny"
    bankrupt: bool = False
    history: list[Day] = field(default_factory=list)
    thirst: float = 0.0
    reference_price: float = 0.0

    def __post_init__(self) -> None:
        cfg = self.config
        self.streams = RngStreams(self.entropy)
        self.ledger = Ledger(cfg.start_cash_cents)
        self.price_cents = cfg.start_price_cents
        taste = self.streams.get("taste")
        self.thirst = float(taste.uniform(cfg.taste.thirst_low, cfg.taste.thirst_high))
        self.reference_price = float(taste.uniform(cfg.taste.reference_price_low, cfg.taste.reference_price_high))
        self.weather = self._draw_weather()

    def _draw_weather(self) -> Weather:
        chance = self.config.weather.chance
        index = self.streams.get("weather").choice(len(WEATHERS), p=[chance[w] for w in WEATHERS])
        return WEATHERS[int(index)]

    @property
    def done(self) -> bool:
        return self.bankrupt or self.day >= self.config.horizon_days

    @property
    def cash_cents(self) -> int:
        return self.ledger.balance_cents

    def buy(self, units: int) -> int:
        cost = units * self.config.lemon_cost_cents
        if cost > self.cash_cents:
            raise ToolError(
                f"units: {units} lemons cost ${cost / 100:,.2f} but the cash is ${self.cash_cents / 100:,.2f}; "
                f"buy at most {self.cash_cents // self.config.lemon_cost_cents}"
            )
        self.ledger.post(self.day, "lemons", -cost, f"{units} lemons")
        self.lemons += units
        self.bought_today += units
        return cost

    def step(self) -> Day:
        """Open the stand for a day: sell, pay the rent, spoil, and draw tomorrow's weather."""
        cfg = self.config
        passers_by = cfg.weather.passers_by[self.weather]
        p = self.thirst * 2.0 ** (-(self.price_cents / 100) / self.reference_price)
        wanted = int(self.streams.get("customers").binomial(passers_by, p))
        sold = min(wanted, self.lemons)
        revenue = sold * self.price_cents
        if revenue:
            self.ledger.post(self.day, "sales", revenue, f"{sold} cups")
        self.lemons -= sold
        self.ledger.post(self.day, "rent", -cfg.rent_cents, "rent")
        spoiled = math.floor(self.lemons * cfg.spoil_fraction)
        self.lemons -= spoiled
        record = Day(
            day=self.day,
            weather=self.weather,
            price_cents=self.price_cents,
            lemons_bought=self.bought_today,
            passers_by=passers_by,
            buyers_wanted=wanted,
            sold=sold,
            revenue_cents=revenue,
            rent_cents=cfg.rent_cents,
            spoiled=spoiled,
            cash_cents=self.cash_cents,
        )
        self.history.append(record)
        self.day += 1
        self.bought_today = 0
        self.bankrupt = self.cash_cents < 0
        if not self.done:
            self.weather = self._draw_weather()
        return record

    def snapshot(self) -> dict[str, Any]:
        """Everything that makes the world what it is (hidden parts and random streams included)."""
        return {
            "day": self.day,
            "price_cents": self.price_cents,
            "lemons": self.lemons,
            "bought_today": self.bought_today,
            "weather": self.weather,
            "bankrupt": self.bankrupt,
            "ledger": [list(r) for r in self.ledger.rows],
            "history": [vars(d) for d in self.history],
            "taste": [self.thirst, self.reference_price],
            "streams": self.streams.get_state(),
        }


class LemonadeEnv(EnvBase):
    """A lemonade stand for one seed, behind its tools."""

    registry = registry
    env_id = "lemonade"

    def __init__(
        self,
        config: LemonadeConfig,
        seed: int = 42,
        preset: str = "default",
        preset_hash: str = "",
        secret: str | None = None,
        files: Path | None = None,  # noqa: ARG002 - the contract's; the stand keeps no agent-visible files
    ) -> None:
        self.world = LemonadeWorld(config, self._begin(config, seed, preset, preset_hash, secret))
        self._days_taken = 0  # days whose metrics row was handed to the session

    # ------------------------------------------------------------------ acting
    def call_tool(self, name: str, args: Any) -> ToolResult:
        """One call (never raises): a refused call changes nothing; every call is logged."""
        day = self.world.day
        if self.done and name in self.registry and self.registry.spec(name).mutates:
            result = ToolResult(ok=False, error="The season has ended: the stand is closed.")
        else:
            result = self.registry.call(self, name, args)
        self.actions.append({"day": day, "tool": name, "args": args, "ok": result.ok, "error": result.error})
        if result.tamper:
            self.log_tamper(result.tamper, {"tool": name, "error": result.error})
        return result

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        self.tamper.append({"day": self.world.day, "kind": kind, **detail})

    def advance(self) -> None:
        """End the day the default way: ``end_day``."""
        self.call_tool("end_day", {})

    # ------------------------------------------------------------------ what the agent sees
    def observation(self) -> dict[str, Any]:
        """The morning's facts: the day, the weather and its passers-by, the stand, yesterday's sales."""
        w = self.world
        last = w.history[-1] if w.history else None
        return {
            "day": w.day,
            "days_total": self.config.horizon_days,
            "weather": w.weather,
            "passers_by": self.config.weather.passers_by[w.weather],
            "price": w.price_cents / 100,
            "lemons": w.lemons,
            "lemon_cost": self.config.lemon_cost_cents / 100,
            "rent": self.config.rent_cents / 100,
            "cash": w.cash_cents / 100,
            "yesterday": None
            if last is None
            else {
                "weather": last.weather,
                "price": last.price_cents / 100,
                "sold": last.sold,
                "revenue": last.revenue_cents / 100,
                "spoiled": last.spoiled,
            },
            "done": self.done,
            "bankrupt": self.bankrupt,
        }

    def hidden_values(self) -> list[str | int | float]:
        """What must never reach the agent (check_env's hidden check; docs/envs.md): the seed,
        the drawn taste of the town and the words that name it."""
        w = self.world
        values: list[str | int | float] = [self.seed, w.thirst, w.reference_price, *HIDDEN_WORDS]
        if w.entropy != self.seed:
            values.append(w.entropy)  # a held-out world's entropy
        return values

    # ------------------------------------------------------------------ the contract's words
    @property
    def done(self) -> bool:
        return self.world.done

    @property
    def turn(self) -> int:
        """Days ended (a turn is a day)."""
        return len(self.world.history)

    def system_prompt(self, harness: str) -> str:  # noqa: ARG002 - the same words in every harness
        """The stand keeper's instructions (every harness says how to call a tool itself)."""
        c = self.config
        return (
            f"You run a lemonade stand for {c.horizon_days} days. Each day, set the price of a cup (set_price) and buy "
            "lemons (buy_lemons); end_day ends the day. Unsold lemons partly spoil overnight. Your score is "
            "the cash you hold at the end; below zero you are bankrupt and the season is over."
        )

    def memory(self) -> str:
        return ""

    @property
    def bankrupt(self) -> bool:
        return self.world.bankrupt

    @property
    def elapsed(self) -> int:
        """Days completed (the day of bankruptcy does not count as survived)."""
        return self.world.day - (1 if self.world.bankrupt else 0)

    @property
    def horizon(self) -> int:
        return self.config.horizon_days

    def cash(self) -> float:
        return self.world.cash_cents / 100

    def score(self) -> float:
        """The cash at the end (a bankrupt stand keeps its negative cash)."""
        return self.cash()

    def result(self, **extra: Any) -> dict[str, Any]:
        w = self.world
        return {
            "env": "lemonade",
            "preset": self.preset,
            "preset_hash": self.preset_hash,
            "seed": self.seed,
            "seed_secret_id": self.secret_id,
            **extra,
            "final_cash": self.cash(),
            "bankrupt": w.bankrupt,
            "days_survived": self.elapsed,
            "horizon_days": self.config.horizon_days,
            "cups_sold": sum(d.sold for d in w.history),
            "revenue": sum(d.revenue_cents for d in w.history) / 100,
            "lemons_bought": sum(d.lemons_bought for d in w.history) + w.bought_today,
            "lemons_spoiled": sum(d.spoiled for d in w.history),
            "tool_calls": sum(a["tool"] != "end_day" for a in self.actions),
            "tamper_events": len(self.tamper),
        }

    def state_digest(self) -> str:
        """SHA-256 of the whole world: same seed + same calls => same digest, in any process."""
        blob = json.dumps(self.world.snapshot(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def take_rows(self) -> dict[str, list[dict[str, Any]]]:
        """The metrics rows (one per day, hidden truth included: for the run directory only)."""
        days = self.world.history[self._days_taken :]
        self._days_taken = len(self.world.history)
        rows = [{**vars(d), "cash": d.cash_cents / 100} for d in days]
        for row in rows:
            del row["cash_cents"]
        return {"metrics": rows}

    def ledger_rows(self) -> list[LedgerRow]:
        return list(self.world.ledger.rows)

    def money_points(self) -> list[tuple[Any, float]]:
        start = self.config.start_cash_cents / 100
        return [(0, start)] + [(d.day + 1, d.cash_cents / 100) for d in self.world.history]

    def status(self) -> dict[str, Any]:
        w = self.world
        return {"day": w.day, "cash_cents": w.cash_cents, "done": w.done, "bankrupt": w.bankrupt}

    def close(self) -> None:
        return None
