"""Model clients: one protocol (:mod:`.base`), providers and test doubles.

:func:`make_model` turns a model string (``openai/gpt-5``, ``anthropic/claude-sonnet-4-5``,
``openai-compatible/<name>@<base_url>``, ``scripted:FILE.jsonl``, ``replay:RUN_DIR`` ...)
into a client; docs/models.md lists them all. The provider clients are imported lazily
(the Anthropic and LiteLLM ones need the ``llm`` extra).
"""

from typing import Any

from bizbench.agents.models.base import ModelClient, ModelError, ModelReply, ToolCall, Usage
from bizbench.agents.models.factory import make_model
from bizbench.agents.models.prices import PRICES_AS_OF, Price, cost_usd, load_prices, lookup_price
from bizbench.agents.models.replay import ReplayModel
from bizbench.agents.models.scripted import ScriptedModel

__all__ = [
    "AnthropicClient",
    "LiteLLMClient",
    "ModelClient",
    "ModelError",
    "ModelReply",
    "OpenAIClient",
    "PRICES_AS_OF",
    "Price",
    "ReplayModel",
    "ScriptedModel",
    "ToolCall",
    "Usage",
    "cost_usd",
    "load_prices",
    "lookup_price",
    "make_model",
]

_LAZY = {
    "OpenAIClient": "bizbench.agents.models.openai_client",
    "AnthropicClient": "bizbench.agents.models.anthropic_client",
    "LiteLLMClient": "bizbench.agents.models.litellm_client",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
