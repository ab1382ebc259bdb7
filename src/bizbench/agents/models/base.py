"""The one small protocol every model client speaks.

Messages are in the OpenAI chat format (``{"role": "system"|"user"|"assistant"|"tool", ...}``,
assistant ``tool_calls`` and tool ``tool_call_id`` included); tools are provider-neutral
``{"name", "description", "parameters"}`` dicts (what a :class:`~bizbench.core.registry.ToolRegistry`
produces with ``json_schemas()``). Each client converts both to its provider's format and
returns a :class:`ModelReply`. A client retries transient failures itself and raises
:class:`ModelError` only when it gives up; every failed attempt is reported in
``ModelReply.attempts`` (or ``ModelError.attempts``) so the harness can record it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

__all__ = ["ModelClient", "ModelError", "ModelReply", "ResumeDivergence", "ToolCall", "Usage"]


@dataclass
class ToolCall:
    """One tool call of a reply. ``arguments`` is the parsed JSON object, or the raw text
    when the model sent something that is not a JSON object (the harness answers with feedback)."""

    id: str
    name: str
    arguments: dict[str, Any] | str


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class ModelReply:
    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    model: str = ""  # as the API reported it
    finish_reason: str | None = None
    latency_s: float = 0.0
    attempts: list[dict[str, Any]] = field(default_factory=list)  # failed attempts before this reply

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def assistant_message(self) -> dict[str, Any]:
        """The reply as an OpenAI-format assistant message for the conversation history."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": c.arguments if isinstance(c.arguments, str) else _json(c.arguments),
                    },
                }
                for c in self.tool_calls
            ]
        return msg


class ModelError(RuntimeError):
    """The provider failed for good (retries exhausted, bad key, unknown model ...)."""

    def __init__(self, message: str, attempts: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


class ModelClient(Protocol):
    """What a harness needs from a model."""

    #: The model string as requested (e.g. ``openai/gpt-5.5``), recorded in result.json.
    name: str
    #: Sampling parameters sent with every call (temperature, max_tokens, reasoning_effort ...).
    sampling: dict[str, Any]

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        """One model call; raises ModelError when the provider cannot answer."""
        ...


def _json(obj: Any) -> str:
    """Arguments as JSON text; a bounded repr when they cannot be encoded (absurdly deep nesting)."""
    import json
    import reprlib

    try:
        return json.dumps(obj, separators=(",", ":"))
    except (RecursionError, ValueError):
        return reprlib.repr(obj)


class ResumeDivergence(RuntimeError):
    """A resumed run asked the recorded model something the original run did not: re-executing
    its record no longer reproduces it (the code, the platform or the env's files changed).
    Not a :class:`ModelError`: the run must stay unfinished rather than end as a model failure."""
