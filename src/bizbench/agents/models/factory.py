"""Model strings -> model clients (``bizbench run --model ...``; docs/models.md).

==========================================  =====================================================
``openai/<model>``                          OpenAI; key ``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` if set
``anthropic/<model>``                       Anthropic Messages API; ``ANTHROPIC_API_KEY``; extra ``llm``
``litellm/<model>``                         LiteLLM (its own key variables); extra ``llm``
``openai-compatible/<name>@<base_url>``     any OpenAI-compatible server (vLLM, Ollama, SGLang ...);
                                            key ``OPENAI_COMPATIBLE_API_KEY`` if set, else none
``openrouter/<model>``                      OpenRouter; ``OPENROUTER_API_KEY``
``together/<model>``                        Together; ``TOGETHER_API_KEY``
``scripted:<FILE.jsonl>``                   one scripted reply per line (tests, demos)
``replay:<RUN_DIR>``                        the replies recorded in a run directory
==========================================  =====================================================

Mistakes (an unknown provider, a missing key or extra, a bad sampling option) raise
ValueError saying what to set or install. Keys are read here and handed to the SDK; they
never appear in a client's name, sampling, repr, errors or replies.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bizbench.agents.models.base import ModelClient, ModelError
from bizbench.agents.models.prices import load_prices

__all__ = ["FORMS", "check_sampling", "make_model"]

FORMS = (
    "openai/<model>",
    "anthropic/<model>",
    "litellm/<model>",
    "openai-compatible/<name>@<base_url>",
    "openrouter/<model>",
    "together/<model>",
    "scripted:<FILE.jsonl>",
    "replay:<RUN_DIR>",
)

#: Hosted OpenAI-compatible providers: base_url and key variable.
HOSTED = {
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
}

EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")


def check_sampling(sampling: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validated sampling options (None values dropped); ValueError names the bad one."""
    out: dict[str, Any] = {}
    for key, value in (sampling or {}).items():
        if value is None:
            continue
        if key in ("temperature", "top_p"):
            hi = 2.0 if key == "temperature" else 1.0
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= hi:
                raise ValueError(f"sampling {key}={value!r}: expected a number in [0, {hi:g}]")
            out[key] = float(value)
        elif key in ("max_tokens", "seed"):
            if isinstance(value, bool) or not isinstance(value, int) or (key == "max_tokens" and value < 1):
                raise ValueError(
                    f"sampling {key}={value!r}: expected {'a positive' if key == 'max_tokens' else 'an'} integer"
                )
            out[key] = value
        elif key == "reasoning_effort":
            if not (value in EFFORTS or (isinstance(value, int) and not isinstance(value, bool) and value > 0)):
                raise ValueError(
                    f"sampling reasoning_effort={value!r}: expected one of {', '.join(EFFORTS)} "
                    "(or a thinking budget in tokens for anthropic/)"
                )
            out[key] = value
        else:
            raise ValueError(
                f"unknown sampling option {key!r}; "
                "the options are temperature, top_p, max_tokens, reasoning_effort, seed"
            )
    return out


def _key(env: str, provider: str) -> str:
    key = os.environ.get(env, "").strip()
    if not key:
        raise ValueError(f"{provider}/ models need an API key: set {env}")
    return key


def portable_spec(spec: str) -> str:
    """The model string with a ``scripted:`` file or ``replay:`` directory made absolute, so
    that a run can be resumed from another working directory (config.json records it)."""
    spec = spec.strip()
    for prefix in ("scripted:", "replay:"):
        if spec.startswith(prefix) and spec != prefix:
            return prefix + str(Path(spec.removeprefix(prefix)).expanduser().absolute())
    return spec


def make_model(
    spec: str,
    sampling: Mapping[str, Any] | None = None,
    prices: Mapping[str, Any] | str | Path | None = None,
    timeout_s: float = 120,
    max_retries: int = 5,
    *,
    sleep: Callable[[float], None] | None = None,
    rng: random.Random | None = None,
) -> ModelClient:
    """The client for a model string (see the module docstring). ``prices`` overrides the
    built-in price table (a dict, or a TOML/JSON file); ``sleep`` and ``rng`` replace the
    backoff's sleep and jitter (tests)."""
    spec = spec.strip()
    checked = check_sampling(sampling)  # a mistake fails here whatever the model, scripted ones too
    table = load_prices(prices)
    if spec.startswith("scripted:"):
        from bizbench.agents.models.scripted import ScriptedModel

        path = spec.removeprefix("scripted:")
        if not path:
            raise ValueError("scripted: needs a file, e.g. scripted:replies.jsonl")
        try:
            scripted = ScriptedModel.from_file(path)
        except ModelError as e:
            raise ValueError(str(e)) from None
        scripted.sampling = checked  # recorded as a live model's would be (a sweep compares it)
        return scripted
    if spec.startswith("replay:"):
        from bizbench.agents.models.replay import ReplayModel

        path = spec.removeprefix("replay:")
        if not path:
            raise ValueError("replay: needs a run directory, e.g. replay:runs/cfo-openai_gpt-5-paper-1")
        return ReplayModel(path)

    provider, sep, model = spec.partition("/")
    if not sep or not provider:
        raise ValueError(f"model {spec!r}: expected one of {', '.join(FORMS)}")
    if provider not in ("openai", "anthropic", "litellm", "openai-compatible", *HOSTED):
        raise ValueError(f"unknown model provider {provider!r} in {spec!r}; expected one of {', '.join(FORMS)}")
    if not model.strip():
        raise ValueError(f"model {spec!r}: the model name after {provider}/ is missing")
    options: dict[str, Any] = {
        "sampling": checked,
        "prices": table,
        "timeout_s": float(timeout_s),
        "max_retries": int(max_retries),
        "sleep": sleep if sleep is not None else time.sleep,
        "rng": rng,
    }
    if timeout_s <= 0 or max_retries < 0:
        raise ValueError("timeout_s must be > 0 and max_retries >= 0")

    if provider == "openai":
        from bizbench.agents.models.openai_client import OpenAIClient

        base_url = os.environ.get("OPENAI_BASE_URL", "").strip() or None
        key = os.environ.get("OPENAI_API_KEY", "").strip() if base_url else _key("OPENAI_API_KEY", "openai")
        return OpenAIClient(model, name=spec, api_key=key or None, base_url=base_url, official=True, **options)
    if provider == "anthropic":
        try:
            import anthropic  # noqa: F401
        except ImportError:
            raise ValueError("anthropic/ models need the 'llm' extra: pip install 'bizbench[llm]'") from None
        from bizbench.agents.models.anthropic_client import AnthropicClient

        base_url = os.environ.get("ANTHROPIC_BASE_URL", "").strip() or None
        return AnthropicClient(
            model, name=spec, api_key=_key("ANTHROPIC_API_KEY", "anthropic"), base_url=base_url, **options
        )
    if provider == "litellm":
        from bizbench.agents.models.litellm_client import LiteLLMClient

        return LiteLLMClient(model, name=spec, **options)
    if provider in HOSTED:
        from bizbench.agents.models.openai_client import OpenAIClient

        base_url, env = HOSTED[provider]
        extra = {"usage": {"include": True}} if provider == "openrouter" else None
        return OpenAIClient(
            model,
            name=spec,
            api_key=_key(env, provider),
            base_url=base_url,
            key_env=env,
            official=False,
            provider=provider,
            extra_body=extra,
            **options,
        )
    # openai-compatible/<name>@<base_url>
    from bizbench.agents.models.openai_client import OpenAIClient

    match = re.fullmatch(r"(.+?)@(https?://\S+)", model.strip())
    if match is None:
        raise ValueError(
            f"model {spec!r}: expected openai-compatible/<name>@<base_url>, "
            "e.g. openai-compatible/qwen3-8b@http://localhost:8000/v1"
        )
    served, url = match.groups()
    compat_key = os.environ.get("OPENAI_COMPATIBLE_API_KEY", "").strip() or None
    return OpenAIClient(
        served.strip(),
        name=spec,
        api_key=compat_key,
        base_url=url.rstrip("/"),
        key_env="OPENAI_COMPATIBLE_API_KEY" if compat_key else None,
        official=False,
        provider="openai-compatible",
        **options,
    )
