"""How the golden runs are started: the one place to change when the runner's API changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: The options of `bizbench run ceo --agent rule-based` (the paper's best configuration).
RULE_BASED = {"price_book": "mid", "target_rule": "s1_only", "spend_package": "heavy", "cash_floor": 100_000.0}


def run_baseline(env: str, agent: str, seed: int, horizon: int | None, out: Path) -> dict[str, Any]:
    from bizbench.runner.episode import run_baseline as run

    options = RULE_BASED if agent == "rule-based" else None
    world = {"database": False} if env == "ceo" else None
    return run(env, agent, seed, None, horizon, out, options, world_options=world)
