"""LiteLLM as a model client (extra ``llm``): ``litellm/<litellm model string>``.

LiteLLM reaches providers this package does not wrap itself (Bedrock, Vertex, Gemini,
Mistral ...) and reads their keys from its own environment variables. Replies come back
in the OpenAI format and are parsed like the OpenAI client's; retries are ours
(:func:`~bizbench.agents.models.openai_client.call_with_retries`; LiteLLM's are off) and
LiteLLM drops the sampling options a provider does not take (``drop_params``). The cost
comes from our price table, or from LiteLLM's own when the model is not in ours.

Importing litellm would fetch its model-price map from the network; the client sets
``LITELLM_LOCAL_MODEL_COST_MAP=True`` (unless already set) so it uses the copy it ships.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from bizbench.agents.models.base import ModelReply
from bizbench.agents.models.openai_client import (
    PricedClient,
    RetryPolicy,
    _get,
    _number,
    call_with_retries,
    describe_failure,
    openai_tools,
    parse_chat_completion,
)
from bizbench.agents.models.prices import lookup_price

__all__ = ["LiteLLMClient", "import_litellm"]


def import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise ValueError("litellm/ models need the 'llm' extra: pip install 'bizbench[llm]'") from None
    return litellm


def _needs_mcp_skip(litellm: Any) -> bool:
    """Some LiteLLM releases import the optional ``mcp`` package whenever tools are passed
    (and fail without it); they also take ``_skip_mcp_handler=True`` to leave it out. Send
    that flag only when ``mcp`` is missing and this release knows the flag."""
    if importlib.util.find_spec("mcp") is not None:
        return False
    fn = getattr(getattr(litellm, "main", None), "completion", None)
    try:
        code = inspect.unwrap(fn).__code__ if fn is not None else None
    except (AttributeError, ValueError):
        return False
    return code is not None and "_skip_mcp_handler" in code.co_consts


class LiteLLMClient(PricedClient):
    provider = "litellm"

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        sampling: Mapping[str, Any] | None = None,
        prices: Mapping[str, Any] | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self._litellm = import_litellm()
        self._init_common(name or f"litellm/{model}", model, sampling, prices)
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.policy = RetryPolicy(max_retries=max_retries)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._api_key = api_key
        self._secrets = (api_key,) if api_key else ()
        self._errors: tuple[type[BaseException], ...] = (Exception,)
        self._skip_mcp = _needs_mcp_skip(self._litellm)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout_s,
            "num_retries": 0,
            "max_retries": 0,
            "drop_params": True,
        }
        converted = openai_tools(tools)
        if converted:
            kwargs["tools"] = converted
        if self.base_url:
            kwargs["api_base"] = self.base_url
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if converted and self._skip_mcp:
            kwargs["_skip_mcp_handler"] = True
        kwargs.update({k: v for k, v in self.sampling.items() if v is not None})
        started = 0.0

        def call() -> Any:
            nonlocal started
            started = time.perf_counter()
            return self._litellm.completion(**kwargs)

        resp, attempts = call_with_retries(
            call,
            provider="litellm",
            policy=self.policy,
            sleep=self._sleep,
            rng=self._rng,
            describe=describe_failure(
                "litellm", self.model, "the provider's key variable (see LiteLLM's docs)", self.base_url
            ),
            errors=self._errors,
            secrets=self._secrets,
        )
        latency = time.perf_counter() - started
        reply, reported = parse_chat_completion(resp)
        reply.latency_s = latency
        reply.attempts = _number(attempts)
        if reported is None and not any(lookup_price(n, self.prices) for n in (reply.model, self.model) if n):
            cost = _get(getattr(resp, "_hidden_params", None) or {}, "response_cost")
            if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost > 0:
                reported = float(cost)  # LiteLLM's own price map
        self._price(reply, reported)
        return reply
