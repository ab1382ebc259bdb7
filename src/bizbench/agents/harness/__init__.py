"""The papers' agent harnesses, each usable on any env (docs/agents.md has the matrix).

- ``terminal`` (CEO-Bench section 3.1): a shell workspace, weekly memory wipe, MEMORY.md; it
  serves the env from another process, so it drives the envs that have a seat.
- ``cli-chat`` (YC-Bench section 3): one ``run_command`` tool, a K-turn window, the memory.
- ``react-json`` (EnterpriseArena Appendix E): JSON blocks, a per-turn tool budget, notes.

An env's paper harness (its spec's ``harness``) is the default of ``bizbench run ENV --model``.
"""

from typing import Any

HARNESSES = {
    "terminal": "bizbench.agents.harness.terminal",
    "cli-chat": "bizbench.agents.harness.cli_chat",
    "react-json": "bizbench.agents.harness.react_json",
}


def unusable(harness: str, spec: Any) -> str:
    """Why ``harness`` cannot drive the env of ``spec`` ('' when it can)."""
    if harness not in HARNESSES:
        return f"unknown harness {harness!r}; choose from {', '.join(HARNESSES)}"
    if harness == "terminal" and spec.seat is None:
        return f"the terminal harness serves its env from a seat, and {spec.id} has none"
    return ""
