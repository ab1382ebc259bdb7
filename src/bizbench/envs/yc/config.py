"""Typed configuration of the YC-Bench world.

Every constant lives in a preset TOML file (``presets/*.toml``) validated by these pydantic
models (docs/principles.md principle 5). Sources: the YC-Bench paper (section 3, Table 1 in
Appendix A, Table 2 in Appendix B, the prompt in Appendix C) and
docs/reference-notes.md (YC-Bench part: facts read off the public reference implementation). The
default preset is the paper's Table 2 with the reference implementation's top-4 throughput and
tier-midpoint salary bumps; ``reference.toml`` also takes its skill rates (every rate inside the
employee's tier range), ``all-contribute.toml`` and ``salary-compounding.toml`` turn those two
choices off.
Values neither source gives are marked CHOSEN in the TOML and explained there.

Money in presets is in whole dollars (``*_dollars`` or triangular distributions of
dollars); the world converts to integer cents once.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "DOMAINS",
    "TASK_STATUSES",
    "Triangular",
    "YcConfig",
    "load_config",
]

#: The four industry domains (paper section 3, "Tasks and domains").
DOMAINS: tuple[str, ...] = ("training", "inference", "research", "data_engineering")
#: Statuses of an accepted task, as ``task list --status`` accepts them.
TASK_STATUSES: tuple[str, ...] = ("accepted", "active", "succeeded", "failed", "cancelled")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Triangular(_Strict):
    """A triangular distribution Tri(low, high, mode) (Table 2 notation)."""

    low: float
    mode: float
    high: float

    @model_validator(mode="after")
    def _check(self) -> Triangular:
        if not self.low <= self.mode <= self.high or self.low == self.high:
            raise ValueError(f"need low <= mode <= high and low < high, got {self.low}, {self.mode}, {self.high}")
        return self


class Clock(_Strict):
    """Business-hours clock, horizon and payroll dates (section 3 "Simulation Clock"; Table 2)."""

    start_date: dt.date = dt.date(2025, 1, 1)
    horizon_months: int = Field(default=12, ge=1, le=120)
    day_start_hour: int = Field(default=9, ge=0, le=23)
    day_end_hour: int = Field(default=18, ge=1, le=24)
    workdays: tuple[int, ...] = (0, 1, 2, 3, 4)  # Monday = 0
    payroll_hour: int = Field(default=9, ge=0, le=23)
    payroll_in_start_month: bool = False

    @model_validator(mode="after")
    def _check(self) -> Clock:
        if self.day_end_hour <= self.day_start_hour:
            raise ValueError("day_end_hour must be after day_start_hour")
        if (
            not self.workdays
            or len(set(self.workdays)) != len(self.workdays)
            or any(not 0 <= d <= 6 for d in self.workdays)
        ):
            raise ValueError("workdays must be distinct weekday numbers 0 (Monday) .. 6 (Sunday)")
        return self


class Tier(_Strict):
    """One salary tier of Table 2 ("Salary Tiers")."""

    name: str
    share: float = Field(gt=0, le=1)
    salary_min_dollars: int = Field(ge=0)
    salary_max_dollars: int = Field(ge=0)
    rate_min: float = Field(gt=0)
    rate_max: float = Field(gt=0)

    @model_validator(mode="after")
    def _check(self) -> Tier:
        if self.salary_max_dollars < self.salary_min_dollars or self.rate_max < self.rate_min:
            raise ValueError(f"tier {self.name}: max below min")
        return self

    @property
    def salary_midpoint_dollars(self) -> float:
        return (self.salary_min_dollars + self.salary_max_dollars) / 2


class Workforce(_Strict):
    """Fixed roster, tiers, productivity boosts and salary bumps (section 3 "Employees"; Table 2)."""

    count: int = Field(default=8, ge=1, le=64)
    tiers: tuple[Tier, ...]
    off_tier_share: float = Field(default=0.25, ge=0, le=1)
    boost_mean: float = 0.12
    boost_sd: float = Field(default=0.06, ge=0)
    boost_min: float = 0.01
    boost_max: float = 0.40
    rate_cap: float = Field(default=10.0, gt=0)
    salary_bump: Literal["salary_share", "tier_midpoint_share"] = "tier_midpoint_share"
    salary_bump_share: float = Field(default=0.01, ge=0, le=1)
    first_names: tuple[str, ...]
    last_names: tuple[str, ...]

    @model_validator(mode="after")
    def _check(self) -> Workforce:
        if not self.tiers:
            raise ValueError("at least one tier")
        if abs(sum(t.share for t in self.tiers) - 1.0) > 1e-9:
            raise ValueError("tier shares must sum to 1")
        if len({t.name for t in self.tiers}) != len(self.tiers):
            raise ValueError("tier names must be unique")
        if self.boost_min > self.boost_max:
            raise ValueError("boost_min must not exceed boost_max")
        if len(self.first_names) * len(self.last_names) < self.count:
            raise ValueError("not enough name combinations for the roster")
        return self


class Market(_Strict):
    """The task marketplace (section 3 "Tasks and domains"; Table 2 "Market", "Distributions")."""

    size: int = Field(default=200, ge=1, le=10_000)
    browse_limit: int = Field(default=50, ge=1, le=1000)
    reward_dollars: Triangular
    work: Triangular
    required_prestige: Triangular
    prestige_rounding: Literal["nearest", "floor"] = "floor"
    reward_prestige_scale: float = Field(default=0.30, ge=0)
    work_prestige_scale: float = Field(default=0.30, ge=0)
    gated_share: float = Field(default=0.30, ge=0, le=1)
    gated_trust_min: int = Field(default=2, ge=0)
    gated_trust_max: int = Field(default=4, ge=0)
    gated_reward_bonus_per_trust: float = Field(default=0.10, ge=0)
    prestige_delta_scale: float = Field(default=0.35, ge=0)
    prestige_delta_beta: tuple[float, float] = (1.2, 2.8)

    @model_validator(mode="after")
    def _check(self) -> Market:
        if self.gated_trust_max < self.gated_trust_min:
            raise ValueError("gated_trust_max must be >= gated_trust_min")
        if min(self.prestige_delta_beta) <= 0:
            raise ValueError("prestige_delta_beta parameters must be > 0")
        if self.work.low <= 0 or self.reward_dollars.low < 0:
            raise ValueError("work must be positive and rewards non-negative")
        return self


class Deadlines(_Strict):
    """Deadlines and penalties (section 3; Table 2 "Deadlines")."""

    qty_per_day: float = Field(default=150.0, gt=0)
    min_days: float = Field(default=7.0, gt=0)
    fail_penalty_share: float = Field(default=0.35, ge=0, le=10)
    fail_prestige_factor: float = Field(default=1.0, ge=0)
    cancel_prestige_factor: float = Field(default=1.5, ge=0)
    cancel_fee_share: float = Field(default=0.0, ge=0, le=10)


class Prestige(_Strict):
    """Per-domain prestige (Table 2 "Prestige": range [1, 10], no passive decay)."""

    min: float = 1.0
    max: float = 10.0
    initial: float = 1.0

    @model_validator(mode="after")
    def _check(self) -> Prestige:
        if not self.min <= self.initial <= self.max:
            raise ValueError("need min <= initial <= max")
        return self


class Clients(_Strict):
    """Clients, reward multipliers and adversaries (section 3 "Clients", "Adversarial clients"; Table 2)."""

    count: int = Field(default=6, ge=1, le=100)
    multiplier: Triangular
    adversarial_share: float = Field(default=0.35, ge=0, le=1)
    adversarial_multiplier: Triangular
    scope_creep_min: float = Field(default=3.0, ge=1)
    scope_creep_max: float = Field(default=4.0, ge=1)
    tier_thresholds: tuple[float, float] = (1.2, 1.8)
    tier_names: tuple[str, str, str] = ("standard", "premium", "enterprise")
    names: tuple[str, ...]

    @model_validator(mode="after")
    def _check(self) -> Clients:
        if self.scope_creep_max < self.scope_creep_min:
            raise ValueError("scope_creep_max must be >= scope_creep_min")
        if len(set(self.names)) < self.count:
            raise ValueError("need at least `count` distinct client names")
        if self.tier_thresholds[0] > self.tier_thresholds[1]:
            raise ValueError("tier_thresholds must be increasing")
        return self

    @property
    def adversarial_count(self) -> int:
        """round(count x share), half up: 6 x 0.35 = 2.1 -> 2 (Table 2 "Adversarial Fraction")."""
        return min(self.count, int(self.count * self.adversarial_share + 0.5))


class Trust(_Strict):
    """Client trust (section 3 "Clients"; Table 2 "Trust"; reference formulas)."""

    max: float = Field(default=5.0, gt=0)
    initial: float = Field(default=0.0, ge=0)
    gain_scale: float = Field(default=1.6, ge=0)
    gain_exponent: float = Field(default=1.5, ge=0)
    decay_per_day: float = Field(default=0.009, ge=0)
    focus_pressure: float = Field(default=0.018, ge=0)
    max_work_reduction: float = Field(default=0.5, ge=0, lt=1)
    fail_loss: float = Field(default=0.0, ge=0)

    @model_validator(mode="after")
    def _check(self) -> Trust:
        if self.initial > self.max:
            raise ValueError("initial trust above max")
        return self


class Throughput(_Strict):
    """Throughput rule (prompt "Throughput split"; reference: only the top 4 count)."""

    max_contributors: int = Field(default=4, ge=0)  # 0 = every assigned employee counts


class Harness(_Strict):
    """Values the harness (not the world) uses; kept here so one preset describes a run (Table 2)."""

    auto_advance_turns: int = Field(default=5, ge=1)
    history_turns: int = Field(default=20, ge=1)


class YcConfig(_Strict):
    """The whole YC-Bench world: one preset."""

    description: str = ""
    start_funds_dollars: int = Field(default=200_000, ge=0)
    domains: tuple[str, ...] = DOMAINS
    checkpoints_pct: tuple[int, ...] = (25, 50, 75, 100)
    #: at most 200,000: a call's arguments weigh at most 256 KiB (core/limits.py, docs/security.md)
    scratchpad_max_chars: int = Field(default=20_000, ge=0, le=200_000)
    clock: Clock = Clock()
    workforce: Workforce
    market: Market
    deadlines: Deadlines = Deadlines()
    prestige: Prestige = Prestige()
    clients: Clients
    trust: Trust = Trust()
    throughput: Throughput = Throughput()
    harness: Harness = Harness()

    @model_validator(mode="after")
    def _check(self) -> YcConfig:
        if not self.domains or len(set(self.domains)) != len(self.domains) or not set(self.domains) <= set(DOMAINS):
            raise ValueError(f"domains must be distinct values among {DOMAINS}")
        cps = self.checkpoints_pct
        if not cps or cps[-1] != 100 or any(b <= a for a, b in zip(cps, cps[1:], strict=False)) or cps[0] <= 0:
            raise ValueError("checkpoints_pct must increase strictly and end at 100")
        if self.market.gated_trust_max > self.trust.max:
            raise ValueError("gated_trust_max exceeds trust.max")
        return self

    @property
    def start_funds_cents(self) -> int:
        return self.start_funds_dollars * 100


def load_config(preset: str = "default") -> tuple[YcConfig, str]:
    """Load a named preset of the yc env; returns (config, preset_hash)."""
    from bizbench.core.presets import load_preset

    config, digest = load_preset("bizbench.envs.yc", preset, YcConfig)
    assert isinstance(config, YcConfig)
    return config, digest
