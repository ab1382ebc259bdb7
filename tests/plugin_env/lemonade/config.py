"""The lemonade stand's configuration: every constant of the world, loaded from ``presets/*.toml``.

Money is in integer cents (the world never rounds a float into cash; docs/envs.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["WEATHERS", "LemonadeConfig", "Weather"]

Weather = Literal["sunny", "cloudy", "rainy"]
WEATHERS: tuple[Weather, ...] = ("sunny", "cloudy", "rainy")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class WeatherConfig(_Strict):
    """How often each weather comes (public) and how many people pass the stand in it (public)."""

    chance: dict[Weather, float]
    passers_by: dict[Weather, int]

    @model_validator(mode="after")
    def _check(self) -> WeatherConfig:
        if set(self.chance) != set(WEATHERS) or set(self.passers_by) != set(WEATHERS):
            raise ValueError(f"chance and passers_by need one value for each of {', '.join(WEATHERS)}")
        if any(p < 0 for p in self.chance.values()) or abs(sum(self.chance.values()) - 1.0) > 1e-9:
            raise ValueError("the weather chances must be >= 0 and sum to 1")
        if any(n < 0 for n in self.passers_by.values()):
            raise ValueError("passers_by must be >= 0")
        return self


class TasteConfig(_Strict):
    """The hidden part of the market: drawn once per seed, never shown to the agent.

    A passer-by buys a cup with probability ``thirst * 2 ** (-price / reference_price)``, where
    ``thirst ~ Uniform(thirst_low, thirst_high)`` and ``reference_price ~ Uniform(...)`` (dollars).
    """

    thirst_low: float = Field(gt=0, le=1)
    thirst_high: float = Field(gt=0, le=1)
    reference_price_low: float = Field(gt=0)
    reference_price_high: float = Field(gt=0)

    @model_validator(mode="after")
    def _check(self) -> TasteConfig:
        if self.thirst_low > self.thirst_high or self.reference_price_low > self.reference_price_high:
            raise ValueError("each low bound must be at most its high bound")
        return self


class LemonadeConfig(_Strict):
    description: str = ""
    horizon_days: int = Field(ge=1)
    start_cash_cents: int = Field(ge=0)
    rent_cents: int = Field(ge=0)
    lemon_cost_cents: int = Field(ge=1)
    start_price_cents: int = Field(ge=1)
    spoil_fraction: float = Field(ge=0, le=1)
    weather: WeatherConfig
    taste: TasteConfig
