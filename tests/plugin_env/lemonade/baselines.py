"""Rule-based stand keepers (:class:`bizbench.core.env.Baseline`): each plays one day and ends it.

They see only what an agent sees: the observation and the tool results.

- ``idle``: never opens with lemons; the rent alone bankrupts it before the season ends.
- ``steady``: a fixed price; buys lemons for a share of the day's passers-by.
- ``learner``: raises its price after a sold-out day, lowers it after a day with lemons left,
  and buys what it sold yesterday in the same weather, plus a margin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bizbench.core.env import Baseline

__all__ = ["TABLE"]


def _ok(env: Any, name: str, **args: Any) -> Any:
    r = env.call(name, **args)
    if not r.ok:
        raise RuntimeError(f"baseline call {name}({args}) failed: {r.error}")
    return r.data


def _buy(env: Any, obs: dict[str, Any], want: int) -> None:
    afford = int(obs["cash"] // obs["lemon_cost"])
    units = min(max(0, want - obs["lemons"]), afford, 1000)
    if units > 0:
        _ok(env, "buy_lemons", units=units)


@dataclass
class Idle:
    def act(self, env: Any) -> None:
        env.advance()


@dataclass
class Steady:
    price: float = 1.0
    share: float = 0.4  # of the passers-by

    def act(self, env: Any) -> None:
        obs = env.observation()
        if obs["price"] != self.price:
            _ok(env, "set_price", price=self.price)
        _buy(env, obs, round(obs["passers_by"] * self.share))
        env.advance()


@dataclass
class Learner:
    price: float = 1.0
    step: float = 0.1
    sold: dict[str, int] = field(default_factory=dict)

    def act(self, env: Any) -> None:
        obs = _ok(env, "get_status")
        last = obs["yesterday"]
        if last is not None:
            self.sold[last["weather"]] = last["sold"]
            sold_out = last["sold"] > 0 and last["spoiled"] == 0 and obs["lemons"] == 0
            self.price = round(max(0.1, self.price + (self.step if sold_out else -self.step / 2)), 2)
        _ok(env, "set_price", price=self.price)
        _buy(env, obs, self.sold.get(obs["weather"], obs["passers_by"] // 3) + 5)
        env.advance()


TABLE: dict[str, Baseline] = {
    "idle": Baseline("idle", lambda seed=0: Idle(), description="never buys lemons"),
    "steady": Baseline(
        "steady",
        lambda seed=0, price=1.0, share=0.4: Steady(price, share),
        {"price": 1.0, "share": 0.4},
        "a fixed price, lemons for a share of the passers-by",
    ),
    "learner": Baseline("learner", lambda seed=0: Learner(), description="adapts its price and its order"),
}
