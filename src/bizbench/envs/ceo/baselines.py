"""Non-LLM baselines for ceo: do-nothing, seeded random, the Appendix B rule-based policy, and
its arena-aware variant that prices against its rivals (docs/arena.md).

A policy sees only what an agent could: tool results and the public day-0 channel table.
``act`` is called once per turn, before the env advances.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from bizbench.core.env import Baseline
from bizbench.envs.ceo.config import CHANNELS, PLANS
from bizbench.envs.ceo.env import CeoEnv, public_channel_table


class Policy(Protocol):
    name: str

    def act(self, env: CeoEnv) -> None: ...


def _ok(env: CeoEnv, tool: str, **args: Any) -> Any:
    result = env.call(tool, **args)
    if not result.ok:
        raise RuntimeError(f"{tool} failed: {result.error}")
    return result.data


@dataclass
class DoNothing:
    """Leaves every setting at its day-0 value (prices 0, quotas 0, no spend)."""

    name: str = "do-nothing"

    def act(self, env: CeoEnv) -> None:
        return None


# Appendix B / Table 4 search space (reference-notes §7.1).
PRICE_BOOKS: dict[str, dict[str, tuple[float, int, float]]] = {
    "cheap": {"A": (8.0, 1, 50_000), "B": (18.0, 2, 200_000), "C": (40.0, 3, 1_000_000)},
    "mid": {"A": (12.0, 1, 60_000), "B": (25.0, 2, 250_000), "C": (55.0, 4, 1_200_000)},
}
SPEND_PACKAGES: dict[str, dict[str, tuple[float, float]]] = {
    "light": {"S1": (2000.0, 250.0), "S3": (1500.0, 600.0)},
    "medium": {"S1": (4000.0, 500.0), "S3": (3000.0, 1200.0)},
    "heavy": {"S1": (6000.0, 750.0), "S3": (4500.0, 1800.0)},
}
TARGET_RULES = ("s1_only", "s1_then_s3")
CASH_FLOORS = (100_000.0, 300_000.0)


@dataclass
class RuleBased:
    """The rule-based baseline of Appendix B (reference-notes §7.1), reading the fixed day-0 channel table.

    Defaults are the paper's best configuration: mid / S1 only / heavy / $100K floor.
    """

    price_book: Literal["cheap", "mid"] = "mid"
    target_rule: Literal["s1_only", "s1_then_s3"] = "s1_only"
    spend_package: Literal["light", "medium", "heavy"] = "heavy"
    cash_floor: float = 100_000.0
    global_dev: float = 200.0
    ads_start_day: int = 20
    utilisation: float = 0.8
    development: bool = True  # False: the "ads only, no development" calibration policy
    name: str = "rule-based"

    def __post_init__(self) -> None:
        """Options from a command line or a sweep file: a wrong value is a clear error now, not
        a failure in the middle of a run."""
        for option, allowed in (
            ("price_book", PRICE_BOOKS),
            ("target_rule", TARGET_RULES),
            ("spend_package", SPEND_PACKAGES),
        ):
            if getattr(self, option) not in allowed:
                raise ValueError(
                    f"rule-based {option} must be one of {', '.join(allowed)}, got {getattr(self, option)!r}"
                )
        for option in ("cash_floor", "global_dev", "utilisation"):
            value = getattr(self, option)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"rule-based {option} must be a non-negative number, got {value!r}")

    @property
    def label(self) -> str:
        return f"{self.price_book}/{self.target_rule}/{self.spend_package}/${self.cash_floor / 1000:.0f}K"

    def targets(self, day: int) -> list[str]:
        if self.target_rule == "s1_then_s3" and day >= 30:
            return ["S1", "S3"]
        return ["S1"]

    def act(self, env: CeoEnv) -> None:
        book = PRICE_BOOKS[self.price_book]
        _ok(env, "set_prices", **{p: book[p][0] for p in PLANS})
        _ok(env, "set_model_tiers", **{p: book[p][1] for p in PLANS})
        _ok(env, "set_usage_quotas", **{p: book[p][2] for p in PLANS})
        status = _ok(env, "get_status")
        day = status["day"]
        enabled = status["cash"] > self.cash_floor
        accounts = status["subscribers"] + status["enterprise_accounts"]
        develop = enabled and self.development
        _ok(
            env,
            "set_daily_spend",
            operations=max(100.0, 0.05 * accounts),
            development=self.global_dev if develop else 0.0,
        )
        package = SPEND_PACKAGES[self.spend_package]
        groups = self.targets(day)
        _ok(env, "set_targeted_dev_spend", targeted_spend={g: package[g][0] for g in groups} if develop else {})
        ads: dict[str, dict[str, float]] = {}
        if enabled and day >= self.ads_start_day:
            table = public_channel_table(env.config)
            for g in groups:
                leads = table[g]
                best = max(CHANNELS, key=leads.__getitem__)  # first channel wins ties
                ads.setdefault(best, {})[g] = package[g][1]
        _ok(env, "set_targeted_ad_spend", targeted_spend=ads)
        history = _ok(env, "get_service_history", days=7)["days"]
        avg = float(np.mean([r["total_usage_units"] for r in history])) if history else 0.0
        caps = _ok(env, "get_cost_info")["capacity_tiers"]
        units = [caps[str(t)]["capacity_units"] for t in range(len(caps))]
        target = next((t for t, u in enumerate(units) if u >= avg / self.utilisation), len(units) - 1)
        current = status["capacity_tier"]
        _ok(env, "set_capacity_tier", tier=current + int(np.sign(target - current)))


@dataclass
class RivalAware(RuleBased):
    """The rule-based policy (Appendix B) that, in an arena (docs/arena.md), prices against its
    rivals: each week it reads their public offers (the ``rivals`` tool) and lists each plan at the
    cheapest rival's price less ``undercut``, never above its own price book nor below ``floor``
    of it. Alone, or where no tool tells it of rivals, it is the rule-based policy."""

    undercut: float = 0.05  # list this share below the cheapest rival
    floor: float = 0.6  # never below this share of the price book
    name: str = "rule-based-rival"

    def act(self, env: CeoEnv) -> None:
        super().act(env)
        if "rivals" not in env.registry:
            return
        offers = _ok(env, "rivals")["rivals"]
        book = PRICE_BOOKS[self.price_book]
        prices = {}
        for p in PLANS:
            theirs = [o["prices"][p] for o in offers if o["prices"][p] > 0]
            target = min(theirs, default=book[p][0]) * (1.0 - self.undercut)
            prices[p] = round(max(self.floor * book[p][0], min(book[p][0], target)), 2)
        _ok(env, "set_prices", **prices)


def search_space() -> list[RuleBased]:
    """The 24 configurations of Table 4."""
    return [
        RuleBased(price_book=pb, target_rule=tr, spend_package=sp, cash_floor=fl)  # type: ignore[arg-type]
        for pb, tr, sp, fl in itertools.product(PRICE_BOOKS, TARGET_RULES, SPEND_PACKAGES, CASH_FLOORS)
    ]


@dataclass
class RandomPolicy:
    """Seeded random operator: each turn it re-draws a handful of settings across every tool
    family (a fuzz baseline; its own seed is independent of the world's)."""

    seed: int = 0
    name: str = "random"
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng([self.seed, 0xB12])

    def act(self, env: CeoEnv) -> None:
        r = self.rng
        groups = env.known_group_ids()
        env.call("set_prices", **{p: float(r.uniform(5, 150)) for p in PLANS})
        env.call("set_model_tiers", **{p: int(r.integers(1, 6)) for p in PLANS})
        env.call("set_usage_quotas", **{p: float(r.choice([0, 50, 200, 1000, 100_000])) for p in PLANS})
        env.call("set_daily_spend", operations=float(r.uniform(0, 500)), development=float(r.uniform(0, 3000)))
        env.call("set_capacity_tier", tier=int(r.integers(0, 5)))
        g = str(r.choice(groups))
        env.call("set_targeted_ad_spend", targeted_spend={str(r.choice(CHANNELS)): {g: float(r.uniform(0, 800))}})
        env.call("set_targeted_dev_spend", targeted_spend={g: float(r.uniform(0, 2000))})
        env.call(
            "set_targeted_ops_spend",
            targeted_spend={g: float(r.uniform(0, 100))},
            by_plan={"A": float(r.uniform(0, 50))},
        )
        env.call("set_ads_strength", global_strength=float(r.uniform(0, 0.3)))
        env.call("set_promotion", global_promotion=float(r.uniform(0, 3)), by_group={g: float(r.uniform(0, 2))})
        env.call("set_lead_promotion", global_promotion=float(r.uniform(0, 5)))
        if r.random() < 0.15:
            env.call("research_market")
        if r.random() < 0.05:
            env.call("research_group", group_id=g, target_level=int(r.integers(2, 4)))
        if r.random() < 0.05:
            env.call("start_research_project", tier=int(r.integers(1, 3)))


def make_policy(name: str, seed: int = 0, **options: Any) -> Policy:
    """Build a baseline by name: ``do-nothing``, ``random``, ``rule-based`` (with Table 4 options)."""
    if name == "do-nothing":
        return DoNothing()
    if name == "random":
        return RandomPolicy(seed=seed)
    if name == "rule-based":
        return RuleBased(**options)
    if name == "rule-based-rival":
        return RivalAware(**options)
    raise ValueError(f"Unknown ceo agent '{name}'. Baselines: do-nothing, random, rule-based, rule-based-rival")


@dataclass
class WeekByWeek:
    """A policy as the Env contract plays it: act, then end the turn; the final partial week is
    stepped one day at a time (reference-notes §7.1 step 7)."""

    policy: Policy

    @property
    def name(self) -> str:
        return self.policy.name

    def act(self, env: CeoEnv) -> None:
        self.policy.act(env)
        remaining = env.config.horizon_days - env.day
        env.advance(days=1 if remaining < env.config.days_per_turn else None)


def _table4_options(policy: RuleBased) -> dict[str, Any]:
    """The four options Table 4 varies."""
    return {k: getattr(policy, k) for k in ("price_book", "target_rule", "spend_package", "cash_floor")}


def _options(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls) if f.init and f.name != "name"}


#: The ceo baselines of the Env contract (:class:`bizbench.core.env.Baseline`).
TABLE: dict[str, Baseline] = {
    "do-nothing": Baseline("do-nothing", lambda seed=0, **o: WeekByWeek(make_policy("do-nothing", seed, **o))),
    "random": Baseline("random", lambda seed=0, **o: WeekByWeek(make_policy("random", seed, **o))),
    "rule-based": Baseline(
        "rule-based",
        lambda seed=0, **o: WeekByWeek(make_policy("rule-based", seed, **o)),
        _options(RuleBased),
        "Appendix B; defaults: the paper's best configuration (mid / S1 only / heavy / $100K floor)",
        search_space=lambda: [_table4_options(p) for p in search_space()],
        label=lambda options: RuleBased(**options).label,
    ),
    "rule-based-rival": Baseline(
        "rule-based-rival",
        lambda seed=0, **o: WeekByWeek(make_policy("rule-based-rival", seed, **o)),
        _options(RivalAware),
        "arena-aware: rule-based, each plan priced just under the cheapest rival's public price (docs/arena.md)",
    ),
}
