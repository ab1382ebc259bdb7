"""The yc seat: ``bizbench yc --session /workspace <command>`` and the ``yc_api`` SDK (docs/yc.md).

A declaration for :mod:`bizbench.core.seat`, which generates the workspace from the tool
registry: ``bin/bizbench`` (the JSON shell client, the paper's way of acting), ``yc_api/``
(one function per command), ``docs/`` and ``instructions.md``: the system prompt with the
prefix ``bizbench yc --session /workspace``. ``bizbench serve yc`` serves a session there;
the seed, the world and the run directory stay on the host, and ``sim init`` does not exist
in the sandbox.
"""

from __future__ import annotations

from typing import Any

from bizbench.core.seat import Seat

__all__ = ["SEAT"]


def _instructions(config: Any, prefix: str) -> str:
    from bizbench.envs.yc.prompt import system_prompt

    return system_prompt(config, prefix)


SEAT = Seat(
    env="yc",
    package="yc_api",
    title="YC-Bench API",
    runtime_dir=".yc",
    error="YcAPIError",
    instructions=_instructions,
    example="company status",
)
