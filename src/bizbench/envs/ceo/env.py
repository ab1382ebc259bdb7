"""The ceo environment handle: one world plus its tools and the action log.

Policies and agents act only through :meth:`CeoEnv.call` (the tool registry) and
:meth:`CeoEnv.next_turn`; they never touch the world's hidden state (DESIGN.md principle 3).
"""

from __future__ import annotations

from typing import Any

from bizbench.core.registry import ToolResult
from bizbench.envs.ceo.config import CHANNELS, CeoConfig, load_config
from bizbench.envs.ceo.tools import registry
from bizbench.envs.ceo.world.world import World


class CeoEnv:
    """A seeded NovaMind company driven through tools, one week per turn."""

    registry = registry

    def __init__(self, config: CeoConfig, seed: int, preset: str = "default") -> None:
        self.config = config
        self.seed = seed
        self.preset = preset
        self.world = World(config, seed)
        self.actions: list[dict[str, Any]] = []  # every tool call and turn, for replay
        self.overrides: list[dict[str, Any]] = []  # the agent-visible config_overrides log

    @classmethod
    def from_preset(cls, preset: str = "default", seed: int = 42, horizon_days: int | None = None) -> CeoEnv:
        config, _ = load_config(preset)
        if horizon_days is not None:
            config = config.model_copy(update={"horizon_days": horizon_days})
        return cls(config, seed, preset)

    # ------------------------------------------------------------------ agent interface
    def call(self, name: str, **args: Any) -> ToolResult:
        """Call a tool by name; failures come back as ``ToolResult(ok=False, error=...)``."""
        if self.done:
            return ToolResult(ok=False, error="The episode has ended; no further actions are accepted.")
        result = self.registry.call(self, name, args)
        self.actions.append({"day": self.world.day, "tool": name, "args": args, "ok": result.ok})
        return result

    def next_turn(self, days: int | None = None) -> list[dict[str, Any]]:
        """Advance one turn (7 days by default, fewer at the horizon); returns daily metrics."""
        if self.done:
            return []
        self.actions.append({"day": self.world.day, "tool": "next_week", "args": {"days": days}, "ok": True})
        return self.world.advance(days)

    @property
    def day(self) -> int:
        return self.world.day

    @property
    def done(self) -> bool:
        return self.world.done

    def known_group_ids(self) -> list[str]:
        return [g.id for g, known in zip(self.config.groups, self.world.state.discovered, strict=True) if known]

    def log_override(self, tool: str, settings: dict[str, Any]) -> None:
        self.overrides.append({"day": self.world.day, "tool_name": tool, "settings": settings})


def public_channel_table(config: CeoConfig) -> dict[str, dict[str, float]]:
    """The day-0 leads per $1,000/day table, published to agents as documentation (Appendix B).

    The live table drifts monthly and stays hidden (ref §3.2).
    """
    return {g.id: {c: g.channel_leads[c] for c in CHANNELS} for g in config.groups}
