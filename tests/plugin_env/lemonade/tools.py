"""The lemonade stand's tools, defined once (:class:`bizbench.core.registry.ToolRegistry`).

``set_price`` and ``buy_lemons`` prepare the day, ``end_day`` opens the stand (the turn, like
cfo's ``pass`` or yc's ``sim resume``), ``get_status`` reads the morning's facts. A bad call is an
error that names the argument and changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from bizbench.core.ledger import to_cents
from bizbench.core.registry import ToolRegistry

if TYPE_CHECKING:
    from lemonade.env import LemonadeEnv

__all__ = ["registry"]

registry = ToolRegistry()


@registry.tool(category="stand")
def set_price(env: LemonadeEnv, price: Annotated[float, Field(gt=0, le=10)]) -> dict[str, Any]:
    """Set the price of a cup of lemonade, from today on.

    Args:
        price: Dollars per cup, more than 0 and at most 10 (rounded to the cent).
    """
    cents = to_cents(price)
    if cents < 1:
        cents = 1
    env.world.price_cents = cents
    return {"price": cents / 100}


@registry.tool(category="stand")
def buy_lemons(env: LemonadeEnv, units: Annotated[int, Field(ge=1, le=1000)]) -> dict[str, Any]:
    """Buy lemons, paid now; one lemon makes one cup. Part of the lemons left at night spoil.

    Args:
        units: How many lemons, 1 to 1000.
    """
    cost = env.world.buy(units)
    return {"bought": units, "cost": cost / 100, "lemons": env.world.lemons, "cash": env.world.cash_cents / 100}


@registry.tool(category="day")
def end_day(env: LemonadeEnv) -> dict[str, Any]:
    """Open the stand for the day: customers come, the rent is paid; then the next morning."""
    day = env.world.step()
    return {
        "day_completed": day.day,
        "sold": day.sold,
        "revenue": day.revenue_cents / 100,
        "spoiled": day.spoiled,
        "next": env.observation(),
    }


@registry.tool(category="stand", mutates=False)
def get_status(env: LemonadeEnv) -> dict[str, Any]:
    """The morning's facts: day, weather and its passers-by, price, lemons, cash, yesterday's sales."""
    return env.observation()
