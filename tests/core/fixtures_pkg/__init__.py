"""A tiny package with presets, used by tests/core/test_presets.py."""

from pydantic import BaseModel, ConfigDict


class Pricing(BaseModel):
    model_config = ConfigDict(extra="forbid")
    basic: float = 10.0
    pro: float = 50.0


class ToyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    description: str = ""
    horizon_days: int = 100
    start_cash: float = 1000.0
    tags: list[str] = []
    pricing: Pricing = Pricing()
