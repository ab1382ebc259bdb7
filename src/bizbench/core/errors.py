"""Tool-call outcomes shared by every layer, free of heavy imports (the yc shell client uses them).

:mod:`bizbench.core.registry` re-exports both names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ToolError", "ToolResult"]


class ToolError(Exception):
    """A domain error (bad id, over budget, ...) whose message is returned to the agent.

    ``tamper`` names the kind of a suspicious attempt (``"hidden_table"``, ``"write_sql"``,
    ``"unknown_tool"`` ...) so the session can write it to the run's tamper log; honest
    mistakes leave it ``None``.
    """

    def __init__(self, message: str, tamper: str | None = None) -> None:
        super().__init__(message)
        self.tamper = tamper


@dataclass
class ToolResult:
    ok: bool
    data: Any = None
    error: str | None = None
    tamper: str | None = None  # set when the failure was a suspicious attempt (see ToolError)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "data": self.data, "error": self.error}
