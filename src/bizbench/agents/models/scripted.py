"""The scripted model: replies from a list, a callable or a JSONL file (offline tests, demos).

``--model scripted:FILE.jsonl`` reads one reply per line, ``{"content": "...", "tool_calls":
[{"name": "...", "arguments": {...}}]}``; when the script runs out, the last reply repeats.
A callable gets the messages and tools and returns such a dict (or a ModelReply), so a test
can answer from what the harness showed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bizbench.agents.models.base import ModelError, ModelReply, ToolCall, Usage

__all__ = ["ScriptedModel", "reply_from_dict"]

Script = Sequence[dict[str, Any] | ModelReply] | Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], Any]


def reply_from_dict(d: dict[str, Any], index: int) -> ModelReply:
    """A scripted line -> ModelReply (tool-call ids are ``call_<reply>_<n>``)."""
    if not isinstance(d, dict):
        raise ModelError(f"scripted reply {index} must be an object, got {type(d).__name__}")
    calls = []
    for n, c in enumerate(d.get("tool_calls") or []):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise ModelError(f"scripted reply {index}: each tool call needs a string 'name'")
        calls.append(ToolCall(c.get("id") or f"call_{index}_{n}", c["name"], c.get("arguments", {})))
    usage = d.get("usage") or {}
    return ModelReply(
        content=str(d.get("content") or ""),
        tool_calls=calls,
        reasoning=d.get("reasoning"),
        usage=_usage(usage, index),
        model="scripted",
        finish_reason="tool_calls" if calls else "stop",
    )


def _usage(usage: Any, index: int) -> Usage:
    known = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")
    if not isinstance(usage, dict) or set(usage) - set(known):
        raise ModelError(f"scripted reply {index}: usage must be an object with keys among {', '.join(known)}")
    try:
        return Usage(**{k: int(v) for k, v in usage.items()})
    except (TypeError, ValueError):
        raise ModelError(f"scripted reply {index}: usage values must be integers") from None


class ScriptedModel:
    """Replies in order; the last one repeats when the script runs out."""

    def __init__(self, script: Script, name: str = "scripted") -> None:
        self.name = name
        self.sampling: dict[str, Any] = {}
        self._script = script
        self.calls = 0

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedModel:
        p = Path(path)
        try:
            lines = [line for line in p.read_text().splitlines() if line.strip()]
            replies = [json.loads(line) for line in lines]
        except (OSError, json.JSONDecodeError) as e:
            raise ModelError(f"cannot read the script {p}: {e}") from None
        if not replies:
            raise ModelError(f"the script {p} has no replies")
        return cls(replies, name=f"scripted:{p.name}")

    def skip(self, n: int) -> None:
        """Pass over ``n`` replies already given (a resumed run replays them from its record)."""
        self.calls += n

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        index = self.calls
        self.calls += 1
        if callable(self._script):
            out = self._script(messages, tools)
        else:
            if not self._script:
                raise ModelError("the script is empty")
            out = self._script[min(index, len(self._script) - 1)]
        return out if isinstance(out, ModelReply) else reply_from_dict(out, index)
