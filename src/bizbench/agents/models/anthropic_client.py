"""The native Anthropic Messages API client (extra ``llm``: ``pip install 'bizbench[llm]'``).

The protocol's OpenAI-format history is converted on every call (:func:`to_anthropic`):
system messages become the ``system`` prompt; assistant ``tool_calls`` become ``tool_use``
blocks and ``tool`` messages ``tool_result`` blocks in a user turn; consecutive turns of
one role are merged (the API wants them alternating). Extended thinking is captured as
``ModelReply.reasoning``; the thinking blocks (with their signatures) are remembered by
tool-call id and sent back before the matching ``tool_use`` blocks, as the API requires
while a tool loop is under way.

Sampling: ``temperature``, ``top_p`` and ``max_tokens`` are sent (``max_tokens`` is
required by the API; default 8192). ``reasoning_effort`` turns on extended thinking with a
budget (minimal 1024, low 2048, medium 8192, high 24576 tokens, or an integer budget);
``max_tokens`` is then raised to budget + 4096 if smaller, and ``temperature``/``top_p`` are
not sent (the API rejects them with thinking). ``seed`` is not supported and not sent.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from bizbench.agents.models.base import ModelReply, ToolCall, Usage
from bizbench.agents.models.openai_client import (
    PricedClient,
    RetryPolicy,
    _get,
    _int,
    _number,
    call_with_retries,
    describe_failure,
    parse_arguments,
)

__all__ = ["AnthropicClient", "THINKING_BUDGETS", "to_anthropic"]

THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 24576, "xhigh": 32768}
DEFAULT_MAX_TOKENS = 8192
_STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


def _text(content: Any) -> str:
    """OpenAI message content (a string or a list of parts) -> plain text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, Mapping) and p.get("type") == "text":
                parts.append(str(p.get("text", "")))
            elif isinstance(p, str):
                parts.append(p)
        return "\n".join(parts)
    return str(content)


def to_anthropic(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    thinking: Mapping[str, list[dict[str, Any]]] | None = None,
) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """An OpenAI-format history -> (system prompt, Anthropic messages, Anthropic tools).

    ``thinking`` maps a tool-call id to the thinking blocks of the reply that made it."""
    thinking = thinking or {}
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in messages:
        role = m.get("role")
        if role in ("system", "developer"):
            text = _text(m.get("content"))
            if text:
                system.append(text)
        elif role == "user":
            add("user", [{"type": "text", "text": _text(m.get("content")) or "(empty)"}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            calls = m.get("tool_calls") or []
            for c in calls:  # thinking first, as the API requires
                for b in thinking.get(c.get("id", ""), []):
                    if b not in blocks:
                        blocks.append(b)
            text = _text(m.get("content"))
            if text:
                blocks.append({"type": "text", "text": text})
            for c in calls:
                fn = c.get("function") or {}
                args = parse_arguments(fn.get("arguments"))
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": c.get("id", ""),
                        "name": fn.get("name", ""),
                        "input": args if isinstance(args, dict) else {"raw_arguments": args},
                    }
                )
            add("assistant", blocks or [{"type": "text", "text": "(empty)"}])
        elif role == "tool":
            add(
                "user",
                [{"type": "tool_result", "tool_use_id": m.get("tool_call_id", ""), "content": _text(m.get("content"))}],
            )
    _pair_tool_results(out)
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(start)"}]})
    atools = [
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "input_schema": t.get("parameters") or {"type": "object"},
        }
        if "function" not in t
        else {
            "name": t["function"]["name"],
            "description": t["function"].get("description", ""),
            "input_schema": t["function"].get("parameters") or {"type": "object"},
        }
        for t in tools or []
    ]
    return "\n\n".join(system), out, atools


def _pair_tool_results(msgs: list[dict[str, Any]]) -> None:
    """The API wants every tool_use answered by a tool_result at the start of the next user
    turn: results are moved to the front of their turn, and a call the harness left
    unanswered gets a "(no result)" one."""
    for n, m in enumerate(msgs):
        if m["role"] == "user":
            m["content"].sort(key=lambda b: b.get("type") != "tool_result")  # stable
        if m["role"] != "assistant":
            continue
        ids = [b["id"] for b in m["content"] if b.get("type") == "tool_use"]
        if not ids:
            continue
        if n + 1 == len(msgs):
            continue  # the model's last turn; nothing answers it yet
        nxt = msgs[n + 1]
        answered = {b.get("tool_use_id") for b in nxt["content"] if b.get("type") == "tool_result"}
        missing = [
            {"type": "tool_result", "tool_use_id": i, "content": "(no result)"} for i in ids if i not in answered
        ]
        nxt["content"][:0] = missing


class AnthropicClient(PricedClient):
    """Claude through the native Messages API."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        key_env: str | None = "ANTHROPIC_API_KEY",
        sampling: Mapping[str, Any] | None = None,
        prices: Mapping[str, Any] | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        try:
            import anthropic
        except ImportError:
            raise ValueError("anthropic/ models need the 'llm' extra: pip install 'bizbench[llm]'") from None
        self._init_common(name or f"anthropic/{model}", model, sampling, prices)
        self.base_url = base_url
        self.key_env = key_env
        self.timeout_s = timeout_s
        self.policy = RetryPolicy(max_retries=max_retries)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._secrets = (api_key,) if api_key else ()
        self._errors: tuple[type[BaseException], ...] = (anthropic.AnthropicError,)
        self._sdk = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)
        self._thinking: dict[str, list[dict[str, Any]]] = {}
        if self.sampling.get("seed") is not None:
            self.dropped["seed"] = "the Anthropic API has no seed"

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        system, msgs, atools = to_anthropic(messages, tools, self._thinking)
        s = self.sampling
        kwargs: dict[str, Any] = {"model": self.model, "messages": msgs}
        kwargs["max_tokens"] = int(s.get("max_tokens") or DEFAULT_MAX_TOKENS)
        if system:
            kwargs["system"] = system
        if atools:
            kwargs["tools"] = atools
        effort = s.get("reasoning_effort")
        if effort not in (None, "none"):
            budget = int(effort) if str(effort).isdigit() else THINKING_BUDGETS.get(str(effort))
            if budget is None:
                self.dropped["reasoning_effort"] = f"unknown effort {effort!r}; use {', '.join(THINKING_BUDGETS)}"
            else:
                budget = max(1024, budget)
                kwargs["thinking"] = {"type": "enabled", "budget_tokens": budget}
                kwargs["max_tokens"] = max(kwargs["max_tokens"], budget + 4096)
                for key in ("temperature", "top_p"):
                    if s.get(key) is not None:
                        self.dropped[key] = "not allowed with extended thinking"
        for key in ("temperature", "top_p"):
            if s.get(key) is not None and key not in self.dropped:
                kwargs[key] = s[key]
        return kwargs

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        started = 0.0
        kwargs = self._request(messages, tools)

        def call() -> Any:
            nonlocal started
            started = time.perf_counter()
            return self._sdk.messages.create(**kwargs)

        resp, attempts = call_with_retries(
            call,
            provider="anthropic",
            policy=self.policy,
            sleep=self._sleep,
            rng=self._rng,
            describe=describe_failure("anthropic", self.model, self.key_env, self.base_url),
            errors=self._errors,
            secrets=self._secrets,
        )
        latency = time.perf_counter() - started
        reply = self.parse(resp)
        reply.latency_s = latency
        reply.attempts = _number(attempts)
        self._price(reply)
        return reply

    def parse(self, resp: Any) -> ModelReply:
        """A Messages API response -> ModelReply; remembers thinking blocks for the next call."""
        texts: list[str] = []
        thoughts: list[str] = []
        thinking_blocks: list[dict[str, Any]] = []
        calls: list[ToolCall] = []
        for block in _get(resp, "content") or []:
            kind = _get(block, "type")
            if kind == "text":
                texts.append(str(_get(block, "text", "")))
            elif kind == "thinking":
                thoughts.append(str(_get(block, "thinking", "")))
                thinking_blocks.append(
                    {
                        "type": "thinking",
                        "thinking": _get(block, "thinking", ""),
                        "signature": _get(block, "signature", ""),
                    }
                )
            elif kind == "redacted_thinking":
                thoughts.append("[redacted thinking]")
                thinking_blocks.append({"type": "redacted_thinking", "data": _get(block, "data", "")})
            elif kind == "tool_use":
                raw = _get(block, "input", {})
                args = (
                    raw if isinstance(raw, dict) else parse_arguments(raw if isinstance(raw, str) else json.dumps(raw))
                )
                calls.append(ToolCall(str(_get(block, "id", "")), str(_get(block, "name", "")), args))
        for c in calls:
            if thinking_blocks:
                self._thinking[c.id] = thinking_blocks
        usage = _get(resp, "usage")
        cache_read = _int(_get(usage, "cache_read_input_tokens"))
        cache_write = _int(_get(usage, "cache_creation_input_tokens"))
        stop = _get(resp, "stop_reason")
        return ModelReply(
            content="\n".join(t for t in texts if t),
            tool_calls=calls,
            reasoning="\n".join(thoughts) if thoughts else None,
            usage=Usage(
                input_tokens=_int(_get(usage, "input_tokens")) + cache_read + cache_write,
                output_tokens=_int(_get(usage, "output_tokens")),
                cached_tokens=cache_read,
                reasoning_tokens=0,
            ),
            model=str(_get(resp, "model") or ""),
            finish_reason=_STOP.get(str(stop), stop),
        )
