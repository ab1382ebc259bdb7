"""Lemonade stands that each break one rule of the Env contract: check_env must catch every one.

(They subclass the plug-in env of ``tests/plugin_env``; nothing here is registered for the
suite: each test hands its spec to check_env directly, or lists it in ``$BIZBENCH_ENVS`` for
the processes it starts.)
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lemonade.env import LemonadeEnv
from lemonade.spec import SPEC
from lemonade.tools import registry as lemonade_tools

from bizbench.core.registry import ToolRegistry, ToolResult


class LeakyEnv(LemonadeEnv):
    """Shows the town's hidden thirst in the observation."""

    def observation(self) -> dict[str, Any]:
        return {**super().observation(), "mood": round(self.world.thirst, 9)}


class CarelessEnv(LemonadeEnv):
    """A refused call still moves the price, and an unknown tool raises."""

    def call_tool(self, name: str, args: Any) -> ToolResult:
        if name not in self.registry:
            raise KeyError(name)
        answer = super().call_tool(name, args)
        if not answer.ok:
            self.world.price_cents += 1
        return answer


class SaltedEnv(LemonadeEnv):
    """Draws its thirst with Python's per-process string hash: another process, another world."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # twelve digits of the hash, not three: two processes collide once in 10**12, not once in 1,000
        self.world.thirst = 0.5 + (hash("lemonade") % 10**12) / 10**13


class NosyEnv(LemonadeEnv):
    """Its read-only get_status counts the reads in the world, though replay skips reads."""

    def call_tool(self, name: str, args: Any) -> ToolResult:
        if name == "get_status":
            self.world.bought_today += 1
        return super().call_tool(name, args)


undocumented = ToolRegistry()
for tool in lemonade_tools.specs():
    undocumented._tools[tool.name] = tool  # the same tools ...


@undocumented.tool(category="stand")
def paint_sign(env: Any, colour: str) -> dict[str, Any]:  # ... and one without a description
    return {"colour": colour}


class UndocumentedEnv(LemonadeEnv):
    registry = undocumented


def spec_of(cls: type, env_id: str, **changes: Any) -> Any:
    return dataclasses.replace(SPEC, id=env_id, env=f"broken_envs:{cls.__name__}", **changes)


LEAKY = spec_of(LeakyEnv, "lemonade-leaky")
CARELESS = spec_of(CarelessEnv, "lemonade-careless")
SALTED = spec_of(SaltedEnv, "lemonade-salted")
UNDOCUMENTED = spec_of(UndocumentedEnv, "lemonade-undocumented")
PEEKING = dataclasses.replace(SPEC, id="lemonade-peeking", play="broken_play")
NOSY = spec_of(NosyEnv, "lemonade-nosy", replay=dataclasses.replace(SPEC.replay, resend_reads=False))
