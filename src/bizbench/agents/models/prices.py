"""Dollar prices per million tokens and the cost of one model call.

A :class:`Price` is (input, cached input, output) in US dollars per million tokens. Usage
follows the OpenAI convention (:class:`~bizbench.agents.models.base.Usage`):
``input_tokens`` counts every prompt token, of which ``cached_tokens`` were cache reads, and
``output_tokens`` counts every generated token, reasoning included. So::

    cost = (input - cached) * price.input + cached * price.cached_input + output * price.output

all over 10**6. Reasoning tokens are billed as output; they are already inside
``output_tokens`` and are not charged twice.

The built-in table is a snapshot (see :data:`PRICES_AS_OF`); providers change prices and
add models faster than any table. A model that is not in it costs 0 and is reported as
unpriced (``price_known`` is False) so the runner can say so; override or extend the table
with a dict or a TOML/JSON file (``--prices FILE``)::

    ["gpt-5.5"]
    input = 5.0
    cached_input = 0.5
    output = 30.0

Model names are matched after lower-casing and dropping a provider prefix
(``openai/``, ``anthropic/``, ...); a dated or versioned variant such as
``gpt-4o-2024-08-06`` or ``claude-sonnet-4-5-20250929`` takes the price of its base name.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bizbench.agents.models.base import Usage

__all__ = ["PRICES", "PRICES_AS_OF", "Price", "cost_usd", "load_prices", "lookup_price", "price_known"]

#: When the built-in table was compiled (providers' public price lists as quoted then).
PRICES_AS_OF = "2026-06"


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float

    @classmethod
    def of(cls, value: Any, model: str = "?") -> Price:
        """A Price from a Price, ``[input, cached_input, output]``, ``[input, output]`` or a
        mapping with ``input``, ``output`` and optionally ``cached_input`` (default: input)."""
        if isinstance(value, Price):
            return value
        try:
            if isinstance(value, Mapping):
                unknown = set(value) - {"input", "cached_input", "output"}
                if unknown:
                    raise ValueError(f"unknown keys {sorted(unknown)}")
                inp = float(value["input"])
                return cls(inp, float(value.get("cached_input", inp)), float(value["output"]))
            if isinstance(value, (list, tuple)) and len(value) in (2, 3):
                nums = [float(v) for v in value]
                return cls(nums[0], nums[1], nums[2]) if len(nums) == 3 else cls(nums[0], nums[0], nums[1])
            raise ValueError("expected {input, cached_input, output} or a list [input, cached_input, output]")
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"price of {model!r}: {e} (dollars per million tokens)") from None


def _p(inp: float, cached: float, out: float) -> Price:
    return Price(inp, cached, out)


#: Built-in prices, dollars per million tokens (input, cached input, output), as of PRICES_AS_OF.
#: Open-weight models differ between hosts; the figures are one host's list price (noted).
PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-5.5": _p(5.00, 0.50, 30.00),
    "gpt-5.5-pro": _p(30.00, 30.00, 180.00),
    "gpt-5.4": _p(2.50, 0.25, 15.00),
    "gpt-5.4-mini": _p(0.75, 0.075, 4.50),
    "gpt-5.4-nano": _p(0.20, 0.02, 1.25),
    "gpt-5.4-pro": _p(30.00, 30.00, 180.00),
    "gpt-5.2": _p(1.75, 0.175, 14.00),
    "gpt-5.1": _p(1.25, 0.125, 10.00),
    "gpt-5": _p(1.25, 0.125, 10.00),
    "gpt-5-mini": _p(0.25, 0.025, 2.00),
    "gpt-5-nano": _p(0.05, 0.005, 0.40),
    "gpt-4.1": _p(2.00, 0.50, 8.00),
    "gpt-4.1-mini": _p(0.40, 0.10, 1.60),
    "gpt-4.1-nano": _p(0.10, 0.025, 0.40),
    "gpt-4o": _p(2.50, 1.25, 10.00),
    "gpt-4o-mini": _p(0.15, 0.075, 0.60),
    "o3": _p(2.00, 0.50, 8.00),
    "o3-mini": _p(1.10, 0.55, 4.40),
    "o4-mini": _p(1.10, 0.275, 4.40),
    # Anthropic (cached input = cache reads; cache writes are billed here as plain input)
    "claude-opus-4-6": _p(5.00, 0.50, 25.00),
    "claude-opus-4-5": _p(5.00, 0.50, 25.00),
    "claude-opus-4-1": _p(15.00, 1.50, 75.00),
    "claude-opus-4": _p(15.00, 1.50, 75.00),
    "claude-sonnet-4-6": _p(3.00, 0.30, 15.00),
    "claude-sonnet-4-5": _p(3.00, 0.30, 15.00),
    "claude-sonnet-4": _p(3.00, 0.30, 15.00),
    "claude-3-7-sonnet": _p(3.00, 0.30, 15.00),
    "claude-haiku-4-5": _p(1.00, 0.10, 5.00),
    "claude-3-5-haiku": _p(0.80, 0.08, 4.00),
    # Open-weight models (one host's list price; OpenRouter reports its own billed cost, which wins)
    "deepseek-chat": _p(0.28, 0.028, 0.42),  # DeepSeek API (V3.2)
    "deepseek-reasoner": _p(0.28, 0.028, 0.42),  # DeepSeek API (V3.2, thinking mode)
    "meta-llama/llama-3.3-70b-instruct-turbo": _p(0.88, 0.88, 0.88),  # Together
    "openai/gpt-oss-120b": _p(0.15, 0.15, 0.60),  # Together
    "openai/gpt-oss-20b": _p(0.05, 0.05, 0.20),  # Together
}

_PROVIDERS = ("openai", "anthropic", "litellm", "openrouter", "together", "openai-compatible", "azure", "bedrock")
# What may follow a base name in a dated or versioned model id (gpt-4o-2024-08-06, claude-x-20250929, ...@20250805).
_SUFFIX = re.compile(r"^[-@:](\d{4}-?\d{2}-?\d{2}|\d{4}|latest|v\d[\w.:-]*)$")


def _candidates(model: str) -> list[str]:
    """The names to look a model up by, most specific first."""
    name = model.strip().lower()
    out = [name]
    head, sep, rest = name.partition("/")
    while sep and head in _PROVIDERS:  # litellm/openrouter/anthropic/... prefixes
        out.append(rest)
        head, sep, rest = rest.partition("/")
    if "/" in out[-1]:  # an organisation prefix (meta-llama/..., deepseek/...)
        out.append(out[-1].split("/", 1)[1])
    return list(dict.fromkeys(out))


def lookup_price(model: str, overrides: Mapping[str, Any] | None = None) -> Price | None:
    """The price of ``model`` (overrides first, then the built-in table), or None when unknown."""
    table: dict[str, Price] = {k.lower(): v for k, v in PRICES.items()}
    if overrides:
        table.update({k.lower(): Price.of(v, k) for k, v in overrides.items()})
    names = _candidates(model)
    for name in names:
        if name in table:
            return table[name]
    for name in names:  # a dated or versioned variant of a known model: the longest base wins
        bases = [k for k in table if name.startswith(k) and _SUFFIX.match(name[len(k) :])]
        if bases:
            return table[max(bases, key=len)]
    return None


def price_known(model: str, overrides: Mapping[str, Any] | None = None) -> bool:
    return lookup_price(model, overrides) is not None


def cost_usd(model: str, usage: Usage, overrides: Mapping[str, Any] | None = None) -> float:
    """Dollars for one call's ``usage``; 0.0 for a model with no known price (see :func:`price_known`)."""
    price = lookup_price(model, overrides)
    if price is None:
        return 0.0
    cached = min(usage.cached_tokens, usage.input_tokens)
    dollars = (
        (usage.input_tokens - cached) * price.input + cached * price.cached_input + usage.output_tokens * price.output
    )
    return dollars / 1_000_000


def load_prices(source: Mapping[str, Any] | str | Path | None) -> dict[str, Price]:
    """Price overrides from a dict, or a ``.toml`` / ``.json`` file, as ``{model: Price}``.

    The file maps model names to ``{input, cached_input, output}`` tables (or lists); a
    top-level ``prices`` or ``models`` table holding them is accepted too. Errors name the
    file and the model."""
    if source is None:
        return {}
    if isinstance(source, Mapping):
        data: Any = source
        where = "the price table"
    else:
        path = Path(source)
        where = str(path)
        try:
            text = path.read_text()
        except OSError as e:
            raise ValueError(f"cannot read the price file {path}: {e.strerror or e}") from None
        try:
            data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
            raise ValueError(f"the price file {path} is not valid {path.suffix.lstrip('.') or 'TOML'}: {e}") from None
    if isinstance(data, Mapping):
        for key in ("prices", "models"):
            if isinstance(data.get(key), Mapping) and len(data) == 1:
                data = data[key]
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a table of model -> {{input, cached_input, output}}")
    try:
        return {str(k): Price.of(v, str(k)) for k, v in data.items()}
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
