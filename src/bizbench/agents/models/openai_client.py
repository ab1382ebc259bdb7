"""The OpenAI-compatible chat-completions client, and the retry loop every HTTP client shares.

One client serves OpenAI itself and every server that speaks its chat-completions API
(vLLM, Ollama, SGLang, OpenRouter, Together ...): messages go out as they are (the
protocol's messages are already in the OpenAI format), tools as
``[{"type": "function", "function": {...}}]``.

Retries (:func:`call_with_retries`, used by the Anthropic and LiteLLM clients too): 429,
408/409, 5xx, timeouts and connection errors are retried with exponential backoff and
jitter (``base_s * 2**(n-1)`` capped at ``cap_s``, times a random factor in [0.5, 1]), or
after the server's ``Retry-After`` / ``retry-after-ms`` when it sends one (capped at
``max_retry_after_s``); at most ``max_retries`` retries. The SDK's own retries are off, so
each failed attempt is recorded (``{"attempt", "error", "status", "wait_s"}``) in
``ModelReply.attempts``, or in ``ModelError.attempts`` when the client gives up. Other
errors (400, 401, 403, 404 ...) raise :class:`ModelError` at once. API keys are handed to
the SDK and kept nowhere else; error texts are scrubbed of them.
"""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from bizbench.agents.models.base import ModelError, ModelReply, ToolCall, Usage
from bizbench.agents.models.prices import Price, cost_usd, lookup_price

__all__ = [
    "OpenAIClient",
    "RetryPolicy",
    "call_with_retries",
    "parse_arguments",
    "parse_chat_completion",
    "openai_tools",
]

T = TypeVar("T")

#: The sampling options every client understands (docs/models.md says how each provider maps them).
SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "reasoning_effort", "seed")


# ----------------------------------------------------------------------------- retries


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    base_s: float = 1.0
    cap_s: float = 60.0
    max_retry_after_s: float = 300.0


@dataclass
class Failure:
    """One failed attempt, classified."""

    message: str
    status: int | None
    retryable: bool
    retry_after_s: float | None = None


def _retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After``), if any.

    The headers are on ``exc.response`` (openai, anthropic) or ``exc.litellm_response_headers``."""
    sources = (getattr(getattr(exc, "response", None), "headers", None), getattr(exc, "litellm_response_headers", None))
    for headers in sources:
        try:
            ms = headers.get("retry-after-ms") if headers is not None else None
            value = headers.get("retry-after") if headers is not None else None
        except (AttributeError, TypeError):
            continue
        if ms is not None:
            try:
                return max(0.0, float(ms) / 1000)
            except ValueError:
                pass
        if value is not None:
            return _seconds(str(value))
    return None


def _seconds(value: str) -> float | None:
    """A Retry-After value: seconds, or an HTTP date."""
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _server_message(exc: BaseException) -> str:
    """The provider's own error text (from the JSON body when there is one), one line, bounded."""
    body = getattr(exc, "body", None)
    text = None
    if isinstance(body, Mapping):
        err = body.get("error", body)
        text = err.get("message") if isinstance(err, Mapping) else str(err)
    if not text:
        text = getattr(exc, "message", None) or str(exc)
    return " ".join(str(text).split())[:500]


def classify(exc: BaseException) -> Failure:
    """Turn an SDK exception (openai, anthropic or litellm: they share the shape) into a Failure."""
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    name = type(exc).__name__
    if status is None and ("Timeout" in name or isinstance(exc, TimeoutError)):
        return Failure(f"timeout ({name})", None, True)
    if status is None and ("Connection" in name or isinstance(exc, ConnectionError)):
        return Failure(f"connection error ({name}): {_server_message(exc)}", None, True)
    if status is None:
        return Failure(f"{name}: {_server_message(exc)}", None, False)
    retryable = status in (408, 409, 429) or status >= 500
    return Failure(_server_message(exc), status, retryable, _retry_after(exc) if retryable else None)


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return text


def call_with_retries(
    fn: Callable[[], T],
    *,
    provider: str,
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    rng: random.Random,
    describe: Callable[[Failure], str],
    errors: tuple[type[BaseException], ...],
    secrets: tuple[str, ...] = (),
) -> tuple[T, list[dict[str, Any]]]:
    """``fn()`` with retries; returns its value and the failed attempts before it.

    ``errors`` are the exception types the SDK raises for provider failures; anything else
    is a bug and propagates. ``describe`` words the final error of a non-retryable failure
    (so a 401 can name the env var)."""
    attempts: list[dict[str, Any]] = []
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn(), attempts
        except errors as exc:
            failure = classify(exc)
        failure.message = scrub(failure.message, secrets)
        record: dict[str, Any] = {"attempt": attempt, "error": failure.message, "status": failure.status}
        if not failure.retryable:
            record["wait_s"] = 0.0
            attempts.append(record)
            raise ModelError(scrub(describe(failure), secrets), attempts) from None
        if attempt > policy.max_retries:
            record["wait_s"] = 0.0
            attempts.append(record)
            what = f"HTTP {failure.status}" if failure.status is not None else "error"
            raise ModelError(
                f"{provider}: gave up after {attempt} attempts; last {what}: {failure.message}", attempts
            ) from None
        if failure.retry_after_s is not None:
            wait = min(failure.retry_after_s, policy.max_retry_after_s)
        else:
            wait = min(policy.cap_s, policy.base_s * 2 ** (attempt - 1)) * (0.5 + 0.5 * rng.random())
        record["wait_s"] = round(wait, 3)
        attempts.append(record)
        sleep(wait)


def describe_failure(provider: str, model: str, key_env: str | None, base_url: str | None) -> Callable[[Failure], str]:
    """The message of a non-retryable failure: what went wrong and what to do."""

    def describe(f: Failure) -> str:
        where = f" at {base_url}" if base_url else ""
        if f.status == 401:
            fix = f"check {key_env}" if key_env else "the server wants a key: set OPENAI_COMPATIBLE_API_KEY"
            return f"{provider}: authentication failed (HTTP 401){where}; {fix}"
        if f.status == 403:
            return f"{provider}: permission denied (HTTP 403) for model {model!r}{where}: {f.message}"
        if f.status == 404:
            return f"{provider}: model {model!r} or endpoint not found (HTTP 404){where}: {f.message}"
        if f.status is not None:
            return f"{provider}: request rejected (HTTP {f.status}) for model {model!r}: {f.message}"
        return f"{provider}: {f.message}"

    return describe


# ----------------------------------------------------------------------------- conversion


def openai_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Provider-neutral ``{"name", "description", "parameters"}`` -> OpenAI function tools."""
    if not tools:
        return None
    out = []
    for t in tools:
        if t.get("type") == "function" and "function" in t:  # already in the OpenAI format
            out.append(t)
            continue
        fn = {"name": t["name"], "description": t.get("description", ""), "parameters": t.get("parameters") or {}}
        out.append({"type": "function", "function": fn})
    return out


def parse_arguments(raw: Any) -> dict[str, Any] | str:
    """Tool-call arguments: the JSON object, ``{}`` for empty, else the raw text (the harness gives feedback)."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    text = str(raw)
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # bad JSON, over-long integers, absurd nesting
        return text
    return value if isinstance(value, dict) else text


def _get(obj: Any, key: str, default: Any = None) -> Any:
    """A field of an SDK object or a dict, including fields the SDK does not declare."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    value = getattr(obj, key, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(key) if isinstance(extra, Mapping) else None
    return default if value is None else value


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def parse_chat_completion(resp: Any) -> tuple[ModelReply, float | None]:
    """A chat-completion response (OpenAI SDK object, LiteLLM ModelResponse or dict) -> the
    reply without cost or latency, and the cost the provider reported (OpenRouter does)."""
    choices = _get(resp, "choices") or []
    if not choices:
        raise ValueError("the reply has no choices")
    choice = choices[0]
    message = _get(choice, "message")
    calls = []
    for n, c in enumerate(_get(message, "tool_calls") or []):
        fn = _get(c, "function")
        calls.append(
            ToolCall(
                str(_get(c, "id") or f"call_{n}"), str(_get(fn, "name", "")), parse_arguments(_get(fn, "arguments"))
            )
        )
    reasoning = _get(message, "reasoning_content") or _get(message, "reasoning")
    usage = _get(resp, "usage")
    prompt_details = _get(usage, "prompt_tokens_details")
    completion_details = _get(usage, "completion_tokens_details")
    reported = _get(usage, "cost")
    reply = ModelReply(
        content=str(_get(message, "content") or ""),
        tool_calls=calls,
        reasoning=str(reasoning) if reasoning else None,
        usage=Usage(
            input_tokens=_int(_get(usage, "prompt_tokens")),
            output_tokens=_int(_get(usage, "completion_tokens")),
            cached_tokens=_int(_get(prompt_details, "cached_tokens")),
            reasoning_tokens=_int(_get(completion_details, "reasoning_tokens")),
        ),
        model=str(_get(resp, "model") or ""),
        finish_reason=_get(choice, "finish_reason"),
    )
    return reply, float(reported) if isinstance(reported, (int, float)) and not isinstance(reported, bool) else None


class PricedClient:
    """What the HTTP clients share: name, sampling, prices and the price-known flag."""

    name: str
    model: str
    sampling: dict[str, Any]

    def _init_common(
        self, name: str, model: str, sampling: Mapping[str, Any] | None, prices: Mapping[str, Any] | None
    ) -> None:
        self.name = name
        self.model = model
        self.sampling = dict(sampling or {})
        self.prices: dict[str, Price] = {k: Price.of(v, k) for k, v in (prices or {}).items()}
        #: False once a call's model had no price (its cost was counted as 0); None before any call.
        self.price_known: bool | None = None
        #: Models seen without a price.
        self.unpriced: list[str] = []
        #: Sampling options not sent to this provider, with the reason (docs/models.md).
        self.dropped: dict[str, str] = {}

    def _price(self, reply: ModelReply, reported: float | None = None) -> None:
        """Fill ``reply.cost_usd``: the provider's billed cost when it reports one, else the table."""
        if reported is not None:
            reply.cost_usd = reported
            self.price_known = self.price_known is not False
            return
        names = [n for n in (reply.model, self.model) if n]
        model = next((n for n in names if lookup_price(n, self.prices) is not None), None)
        if model is None:
            self.price_known = False
            missing = reply.model or self.model
            if missing not in self.unpriced:
                self.unpriced.append(missing)
            reply.cost_usd = 0.0
            return
        self.price_known = self.price_known is not False
        reply.cost_usd = cost_usd(model, reply.usage, self.prices)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, sampling={self.sampling!r})"


# ----------------------------------------------------------------------------- the client


class OpenAIClient(PricedClient):
    """Chat completions on OpenAI or any OpenAI-compatible server.

    ``key_env`` only names the variable the key came from (for the 401 message); the key
    itself goes to the SDK and nowhere else. ``official`` marks api.openai.com, where
    ``max_tokens`` is sent as ``max_completion_tokens`` (reasoning models reject the former).
    A sampling option a server rejects with an "unsupported parameter/value" 400 naming it
    is dropped (recorded in ``dropped`` and as an attempt) and the call is repeated once without it.
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        key_env: str | None = "OPENAI_API_KEY",
        official: bool | None = None,
        provider: str = "openai",
        sampling: Mapping[str, Any] | None = None,
        prices: Mapping[str, Any] | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        import openai

        self._init_common(name or f"{provider}/{model}", model, sampling, prices)
        self.provider = provider
        self.base_url = base_url
        self.key_env = key_env
        self.official = official if official is not None else base_url is None
        self.timeout_s = timeout_s
        self.policy = RetryPolicy(max_retries=max_retries)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._extra_body = dict(extra_body or {})
        self._secrets = (api_key,) if api_key else ()
        self._errors: tuple[type[BaseException], ...] = (openai.OpenAIError,)
        self._sdk = openai.OpenAI(api_key=api_key or "EMPTY", base_url=base_url, timeout=timeout_s, max_retries=0)

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        converted = openai_tools(tools)
        if converted:
            kwargs["tools"] = converted
        for key, value in self.sampling.items():
            if key in self.dropped or value is None:
                continue
            if key == "max_tokens" and self.official:
                key = "max_completion_tokens"
            kwargs[key] = value
        if self._extra_body:
            kwargs["extra_body"] = self._extra_body
        return kwargs

    def _unsupported(self, exc: BaseException) -> str | None:
        """The sampling option a 400 says is unsupported, if it names one of ours."""
        if getattr(exc, "status_code", None) != 400:
            return None
        param = getattr(exc, "param", None)
        code = str(getattr(exc, "code", "") or "")
        text = _server_message(exc).lower()
        names = {"max_completion_tokens": "max_tokens"}
        for key in list(self.sampling):
            if key in self.dropped:
                continue
            sent = "max_completion_tokens" if key == "max_tokens" and self.official else key
            if param in (key, sent) or (
                ("unsupported" in code or "unsupported" in text or "not supported" in text) and f"'{sent}'" in text
            ):
                return names.get(sent, key)
        return None

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        describe = describe_failure(self.provider, self.model, self.key_env, self.base_url)
        dropped_attempts: list[dict[str, Any]] = []
        started = 0.0

        def call() -> Any:
            nonlocal started
            while True:
                started = time.perf_counter()
                try:
                    resp = self._sdk.chat.completions.create(**self._request(messages, tools))
                except self._errors as exc:
                    key = self._unsupported(exc)
                    if key is None:
                        raise
                    self.dropped[key] = f"rejected by the server: {scrub(_server_message(exc), self._secrets)}"
                    dropped_attempts.append(
                        {
                            "attempt": 0,
                            "error": f"dropped sampling option {key!r}: {self.dropped[key]}",
                            "status": 400,
                            "wait_s": 0.0,
                        }
                    )
                    continue
                if not (_get(resp, "choices") or []):
                    raise _EmptyReply(resp)
                return resp

        resp, attempts = call_with_retries(
            call,
            provider=self.provider,
            policy=self.policy,
            sleep=self._sleep,
            rng=self._rng,
            describe=describe,
            errors=(*self._errors, _EmptyReply),
            secrets=self._secrets,
        )
        latency = time.perf_counter() - started
        reply, reported = parse_chat_completion(resp)
        reply.latency_s = latency
        reply.attempts = _number(dropped_attempts + attempts)
        self._price(reply, reported)
        return reply


class _EmptyReply(Exception):
    """A 200 without choices (OpenRouter passes upstream failures on this way): retried."""

    status_code = 502

    def __init__(self, resp: Any) -> None:
        err = _get(resp, "error")
        detail = _get(err, "message") if err is not None else None
        super().__init__(f"the reply has no choices{': ' + str(detail) if detail else ''}")


def _number(attempts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for n, a in enumerate(attempts, 1):
        a["attempt"] = n
    return attempts
