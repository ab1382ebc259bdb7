"""Model clients against a local stub HTTP server (127.0.0.1, no keys, no network).

The stub plays an OpenAI-compatible or Anthropic endpoint: each test queues the responses
(status, JSON body, headers, an event that holds the answer) and reads back the requests the client sent. The HTTP
layer is real (the SDK's own client), so retries, timeouts and error mapping are exercised
as they happen in a run. Backoff sleeps are injected: nothing here sleeps for real except
the one timeout test (its client's 2 s timeout; the held answer is released after it).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bizbench.agents.models import ModelError, make_model
from bizbench.agents.models.openai_client import OpenAIClient
from bizbench.agents.recording import AgentRun, Trajectory

SECRET = "sk-test-SECRET-0123456789abcdef"


class Stub:
    """A scripted HTTP server: ``push`` responses, read ``requests``."""

    def __init__(self) -> None:
        self.responses: list[tuple[int, Any, dict[str, str], float]] = []
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                with stub.lock:
                    stub.requests.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "body": json.loads(raw or b"{}"),
                        }
                    )
                    none_left = (500, {"error": {"message": "no response"}}, {}, None)
                    status, body, headers, hold = stub.responses.pop(0) if stub.responses else none_left
                if hold is not None:
                    hold.wait(60)  # the answer waits until the test releases it
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def push(
        self,
        status: int = 200,
        body: Any = None,
        headers: dict[str, str] | None = None,
        hold: threading.Event | None = None,
    ) -> None:
        self.responses.append((status, body if body is not None else {}, headers or {}, hold))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub() -> Iterator[Stub]:
    s = Stub()
    yield s
    s.close()


def completion(
    content: str | None = "ok",
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, Any] | None = None,
    model: str = "stub-model-2025-01-01",
    **message: Any,
) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": content, **message}
    if tool_calls:
        msg["tool_calls"] = [
            {
                "id": c.get("id", f"call_{n}"),
                "type": "function",
                "function": {"name": c["name"], "arguments": c["args"]},
            }
            for n, c in enumerate(tool_calls)
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def error(message: str, **fields: Any) -> dict[str, Any]:
    return {"error": {"message": message, "type": "error", **fields}}


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(stub: Stub, sleeps: Sleeps | None = None, **kw: Any) -> OpenAIClient:
    options: dict[str, Any] = {
        "timeout_s": 5.0,
        "max_retries": 3,
        "sleep": sleeps if sleeps is not None else Sleeps(),
        "official": False,
    }
    options.update(kw)
    return OpenAIClient(
        "stub-model",
        name=f"openai-compatible/stub-model@{stub.url}/v1",
        api_key=SECRET,
        base_url=f"{stub.url}/v1",
        key_env="OPENAI_COMPATIBLE_API_KEY",
        provider="openai-compatible",
        **options,
    )


TOOLS = [
    {
        "name": "check_cash",
        "description": "Cash in the bank.",
        "parameters": {"type": "object", "properties": {"account": {"type": "string"}}},
    }
]


def test_happy_path_with_tool_calls_usage_reasoning_and_cost(stub: Stub) -> None:
    usage = {
        "prompt_tokens": 2_000_000,
        "completion_tokens": 300_000,
        "total_tokens": 2_300_000,
        "prompt_tokens_details": {"cached_tokens": 1_000_000},
        "completion_tokens_details": {"reasoning_tokens": 100_000},
    }
    calls = [{"id": "call_a", "name": "check_cash", "args": '{"account": "main"}'}]
    stub.push(body=completion("Let me look.", calls, usage, reasoning_content="thinking hard"))
    prices = {"stub-model": {"input": 1.0, "cached_input": 0.1, "output": 10.0}}
    c = client(stub, sampling={"temperature": 0.2, "max_tokens": 256, "seed": 7}, prices=prices)
    messages = [
        {"role": "system", "content": "You are the CFO."},
        {"role": "user", "content": "Go."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "check_cash", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "$5"},
    ]
    reply = c.complete(messages, TOOLS)
    assert reply.content == "Let me look." and reply.reasoning == "thinking hard"
    assert [asdict(t) for t in reply.tool_calls] == [
        {"id": "call_a", "name": "check_cash", "arguments": {"account": "main"}}
    ]
    assert asdict(reply.usage) == {
        "input_tokens": 2_000_000,
        "output_tokens": 300_000,
        "cached_tokens": 1_000_000,
        "reasoning_tokens": 100_000,
    }
    # dated variant priced as its base: 1M uncached * $1 + 1M cached * $0.1 + 0.3M output (reasoning inside) * $10
    assert reply.cost_usd == pytest.approx(1.0 + 0.1 + 3.0)
    assert c.price_known is True
    assert reply.model == "stub-model-2025-01-01" and reply.finish_reason == "tool_calls"
    assert reply.attempts == [] and reply.latency_s > 0
    (req,) = stub.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == f"Bearer {SECRET}"
    body = req["body"]
    assert body["model"] == "stub-model" and body["messages"] == messages
    assert body["tools"] == [{"type": "function", "function": TOOLS[0]}]
    assert body["temperature"] == 0.2 and body["max_tokens"] == 256 and body["seed"] == 7


def test_official_openai_sends_max_completion_tokens_and_unknown_price_is_flagged(stub: Stub) -> None:
    stub.push(body=completion(model="brand-new-model"))
    c = client(stub, sampling={"max_tokens": 100, "reasoning_effort": "low"}, official=True)
    reply = c.complete([{"role": "user", "content": "hi"}])
    body = stub.requests[0]["body"]
    assert body["max_completion_tokens"] == 100 and "max_tokens" not in body and body["reasoning_effort"] == "low"
    assert reply.cost_usd == 0.0 and c.price_known is False and c.unpriced == ["brand-new-model"]


def test_429_then_success_honours_retry_after_without_sleeping(stub: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.push(429, error("Rate limit reached"), {"retry-after": "7"})
    stub.push(body=completion("fine"))
    sleeps = Sleeps()
    real_sleep, slept = time.sleep, []
    monkeypatch.setattr(time, "sleep", lambda s: (slept.append(s), real_sleep(min(s, 0.05))))
    reply = client(stub, sleeps).complete([{"role": "user", "content": "hi"}])
    assert not [s for s in slept if s >= 1]  # the 7 s went to the injected sleep (counted, not timed: issue 18)
    assert reply.content == "fine" and sleeps == [7.0]
    assert reply.attempts == [{"attempt": 1, "error": "Rate limit reached", "status": 429, "wait_s": 7.0}]
    assert len(stub.requests) == 2


def test_retry_after_ms_and_backoff_with_jitter(stub: Stub) -> None:
    stub.push(503, error("overloaded"), {"retry-after-ms": "250"})
    stub.push(500, error("boom"))
    stub.push(502, error("bad gateway"))
    stub.push(body=completion())
    sleeps = Sleeps()
    reply = client(stub, sleeps).complete([{"role": "user", "content": "hi"}])
    assert sleeps[0] == 0.25
    assert 1.0 <= sleeps[1] <= 2.0 and 2.0 <= sleeps[2] <= 4.0  # 1 s * 2**(attempt-1), jitter in [0.5, 1]
    assert [a["status"] for a in reply.attempts] == [503, 500, 502]


def test_repeated_500s_give_up_with_every_attempt(stub: Stub) -> None:
    for _ in range(4):
        stub.push(500, error("internal"))
    sleeps = Sleeps()
    with pytest.raises(ModelError) as info:
        client(stub, sleeps, max_retries=3).complete([{"role": "user", "content": "hi"}])
    e = info.value
    assert "gave up after 4 attempts" in str(e) and "HTTP 500" in str(e)
    assert [a["attempt"] for a in e.attempts] == [1, 2, 3, 4]
    assert all(a["status"] == 500 for a in e.attempts) and len(sleeps) == 3
    assert e.attempts[-1]["wait_s"] == 0.0


def test_timeout_is_retried(stub: Stub) -> None:
    held = threading.Event()  # the first answer comes only after the client gave up on it
    stub.push(body=completion("late"), hold=held)
    stub.push(body=completion("on time"))
    try:
        reply = client(stub, timeout_s=2).complete([{"role": "user", "content": "hi"}])
    finally:
        held.set()
    assert reply.content == "on time"
    (attempt,) = reply.attempts
    assert attempt["status"] is None and "timeout" in attempt["error"].lower()


def test_connection_error_is_retried_then_gives_up() -> None:
    c = OpenAIClient(
        "m", api_key=SECRET, base_url="http://127.0.0.1:9/v1", official=False, max_retries=2, sleep=Sleeps()
    )
    with pytest.raises(ModelError) as info:
        c.complete([{"role": "user", "content": "hi"}])
    assert len(info.value.attempts) == 3 and "connection" in info.value.attempts[0]["error"].lower()


def test_malformed_tool_call_arguments_keep_the_raw_string(stub: Stub) -> None:
    calls = [
        {"name": "check_cash", "args": '{"account": "main"'},  # cut short
        {"name": "check_cash", "args": "[1, 2]"},  # JSON, not an object
        {"name": "check_cash", "args": ""},  # no arguments
    ]
    stub.push(body=completion(None, calls))
    reply = client(stub).complete([{"role": "user", "content": "hi"}], TOOLS)
    assert [t.arguments for t in reply.tool_calls] == ['{"account": "main"', "[1, 2]", {}]
    assert reply.content == ""
    # the raw text goes back into the history unchanged
    assert reply.assistant_message()["tool_calls"][0]["function"]["arguments"] == '{"account": "main"'


def test_401_is_a_clear_error_at_once_and_the_key_is_scrubbed(stub: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.push(401, error(f"Incorrect API key provided: {SECRET}."))
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", SECRET)
    sleeps = Sleeps()
    model = make_model(f"openai-compatible/stub-model@{stub.url}/v1", sleep=sleeps)
    with pytest.raises(ModelError) as info:
        model.complete([{"role": "user", "content": "hi"}])
    text = str(info.value)
    assert "HTTP 401" in text and "OPENAI_COMPATIBLE_API_KEY" in text
    assert len(info.value.attempts) == 1 and sleeps == [] and len(stub.requests) == 1
    assert SECRET not in text and SECRET not in json.dumps(info.value.attempts)


def test_401_on_openai_names_openai_api_key(stub: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    stub.push(401, error("bad key"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{stub.url}/v1")
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        make_model("openai/gpt-5", sleep=Sleeps()).complete([{"role": "user", "content": "hi"}])
    assert stub.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize("status", [400, 404])
def test_other_client_errors_are_not_retried(stub: Stub, status: int) -> None:
    stub.push(status, error("nope"))
    with pytest.raises(ModelError) as info:
        client(stub).complete([{"role": "user", "content": "hi"}])
    assert f"HTTP {status}" in str(info.value) and "'stub-model'" in str(info.value)
    assert len(stub.requests) == 1


def test_a_rejected_sampling_option_is_dropped_and_the_call_repeated(stub: Stub) -> None:
    stub.push(
        400,
        error(
            "Unsupported value: 'temperature' does not support 0.2 with this model.",
            param="temperature",
            code="unsupported_value",
        ),
    )
    stub.push(body=completion("ok"))
    stub.push(body=completion("again"))
    c = client(stub, sampling={"temperature": 0.2, "seed": 1})
    reply = c.complete([{"role": "user", "content": "hi"}])
    assert reply.content == "ok" and "temperature" in c.dropped
    assert reply.attempts[0]["status"] == 400 and "temperature" in reply.attempts[0]["error"]
    assert "temperature" in stub.requests[0]["body"] and "temperature" not in stub.requests[1]["body"]
    c.complete([{"role": "user", "content": "hi"}])  # later calls leave it out from the start
    assert "temperature" not in stub.requests[2]["body"] and stub.requests[2]["body"]["seed"] == 1
    assert c.sampling == {"temperature": 0.2, "seed": 1}  # as requested, for the record


def test_a_reply_without_choices_is_retried(stub: Stub) -> None:
    stub.push(
        body={
            "id": "x",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [],
            "error": {"message": "upstream"},
        }
    )
    stub.push(body=completion("ok"))
    reply = client(stub).complete([{"role": "user", "content": "hi"}])
    assert reply.content == "ok" and "upstream" in reply.attempts[0]["error"]


def test_the_key_never_shows(stub: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", SECRET)
    stub.push(429, error(f"slow down {SECRET}"))
    stub.push(body=completion("ok", [{"name": "check_cash", "args": "{}"}]))
    stub.push(500, error(f"broken for {SECRET}"))
    stub.push(500, error(f"broken for {SECRET}"))
    model = make_model(
        f"openai-compatible/stub-model@{stub.url}/v1", {"temperature": 0.0}, max_retries=1, sleep=Sleeps()
    )
    reply = model.complete([{"role": "user", "content": "hi"}], TOOLS)
    with pytest.raises(ModelError) as info:
        model.complete([{"role": "user", "content": "hi"}], TOOLS)
    seen = [
        repr(model),
        str(model),
        model.name,
        json.dumps(model.sampling),
        json.dumps(reply.to_dict()),
        repr(reply),
        str(info.value),
        repr(info.value),
        json.dumps(info.value.attempts),
    ]
    for text in seen:
        assert SECRET not in text
    assert "***" in json.dumps(reply.attempts)


def test_agent_run_records_retries_and_provider_failures(stub: Stub) -> None:
    stub.push(429, error("busy"), {"retry-after": "1"})
    stub.push(body=completion("first"))
    for _ in range(3):
        stub.push(500, error("down"))
    run = AgentRun(client(stub, max_retries=2), Trajectory(None))
    assert run.ask([{"role": "user", "content": "hi"}], TOOLS, turn=1) is not None
    assert run.ask([{"role": "user", "content": "hi"}], TOOLS, turn=2) is None
    call, err = run.trajectory.events
    assert call["kind"] == "model_call" and call["attempts"][0]["status"] == 429 and call["turn"] == 1
    assert err["kind"] == "model_error" and len(err["attempts"]) == 3 and run.stopped == "model_error"


# ----------------------------------------------------------------------------- Anthropic


def anthropic_reply(content: list[dict[str, Any]], stop: str = "tool_use", **usage: int) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 50, **usage},
    }


def test_anthropic_converts_the_history_and_captures_thinking(stub: Stub) -> None:
    pytest.importorskip("anthropic", reason="the anthropic SDK comes with the 'llm' extra")
    from bizbench.agents.models.anthropic_client import AnthropicClient

    thinking = {"type": "thinking", "thinking": "cash first", "signature": "sig1"}
    stub.push(
        body=anthropic_reply(
            [
                thinking,
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "check_cash", "input": {"account": "main"}},
            ],
            cache_read_input_tokens=1000,
            cache_creation_input_tokens=10,
        )
    )
    stub.push(body=anthropic_reply([{"type": "text", "text": "Done."}], stop="end_turn"))
    c = AnthropicClient(
        "claude-sonnet-4-6",
        api_key=SECRET,
        base_url=stub.url,
        sampling={"reasoning_effort": "low", "temperature": 0.5, "max_tokens": 1000, "seed": 3},
        sleep=Sleeps(),
    )
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the CFO."},
        {"role": "user", "content": "Month 1."},
    ]
    reply = c.complete(history, TOOLS)
    assert reply.content == "Checking." and reply.reasoning == "cash first"
    assert [asdict(t) for t in reply.tool_calls] == [
        {"id": "toolu_1", "name": "check_cash", "arguments": {"account": "main"}}
    ]
    assert asdict(reply.usage) == {
        "input_tokens": 1110,
        "output_tokens": 50,
        "cached_tokens": 1000,
        "reasoning_tokens": 0,
    }
    assert reply.finish_reason == "tool_calls" and reply.model == "claude-sonnet-4-6"
    # $3 per M on 110 uncached, $0.30 per M on 1000 cached, $15 per M on 50 output
    assert reply.cost_usd == pytest.approx((110 * 3 + 1000 * 0.3 + 50 * 15) / 1e6)
    body = stub.requests[0]["body"]
    assert body["system"] == "You are the CFO." and body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Month 1."}]}
    ]
    assert body["tools"] == [
        {"name": "check_cash", "description": "Cash in the bank.", "input_schema": TOOLS[0]["parameters"]}
    ]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 2048 + 4096 and "temperature" not in body and "seed" not in body
    assert set(c.dropped) == {"temperature", "seed"}
    headers = stub.requests[0]["headers"]
    assert SECRET in (headers.get("x-api-key", ""), headers.get("authorization", "").removeprefix("Bearer "))

    history += [reply.assistant_message(), {"role": "tool", "tool_call_id": "toolu_1", "content": "$5"}]
    assert c.complete(history, TOOLS).content == "Done."
    msgs = stub.requests[1]["body"]["messages"]
    assert msgs[1] == {
        "role": "assistant",
        "content": [
            thinking,
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "check_cash", "input": {"account": "main"}},
        ],
    }
    assert msgs[2] == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "$5"}]}


def test_anthropic_faults_and_401(stub: Stub) -> None:
    pytest.importorskip("anthropic", reason="the anthropic SDK comes with the 'llm' extra")
    from bizbench.agents.models.anthropic_client import AnthropicClient

    stub.push(
        529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, {"retry-after": "3"}
    )
    stub.push(body=anthropic_reply([{"type": "text", "text": "hi"}], stop="end_turn"))
    stub.push(
        401, {"type": "error", "error": {"type": "authentication_error", "message": f"invalid x-api-key {SECRET}"}}
    )
    sleeps = Sleeps()
    c = AnthropicClient("claude-haiku-4-5", api_key=SECRET, base_url=stub.url, sleep=sleeps)
    reply = c.complete([{"role": "user", "content": "hi"}])
    assert reply.content == "hi" and reply.finish_reason == "stop" and sleeps == [3.0]
    assert reply.attempts == [{"attempt": 1, "error": "Overloaded", "status": 529, "wait_s": 3.0}]
    with pytest.raises(ModelError) as info:
        c.complete([{"role": "user", "content": "hi"}])
    assert "ANTHROPIC_API_KEY" in str(info.value) and SECRET not in str(info.value) + json.dumps(info.value.attempts)
    assert SECRET not in repr(c)


# ----------------------------------------------------------------------------- LiteLLM


def test_litellm_through_an_openai_compatible_stub(stub: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-map download at import
    pytest.importorskip("litellm", reason="litellm comes with the 'llm' extra")
    from bizbench.agents.models.litellm_client import LiteLLMClient

    stub.push(429, error("busy"), {"retry-after": "2"})
    stub.push(body=completion("via litellm", [{"name": "check_cash", "args": "{bad"}]))
    sleeps = Sleeps()
    c = LiteLLMClient("openai/stub-model", api_key=SECRET, base_url=f"{stub.url}/v1", sleep=sleeps, max_retries=2)
    reply = c.complete([{"role": "user", "content": "hi"}], TOOLS)
    assert reply.content == "via litellm" and reply.tool_calls[0].arguments == "{bad"
    assert [a["status"] for a in reply.attempts] == [429] and sleeps == [2.0]
    assert len(stub.requests) == 2


# ----------------------------------------------------------------------------- live


@pytest.mark.network
@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="needs OPENAI_API_KEY (live OpenAI call)")
def test_live_openai_call() -> None:
    model = make_model(os.environ.get("BIZBENCH_LIVE_MODEL", "openai/gpt-4.1-nano"), {"max_tokens": 200})
    reply = model.complete([{"role": "user", "content": "Call check_cash with account 'main'."}], TOOLS)
    assert reply.model and reply.usage.input_tokens > 0
    assert reply.tool_calls or reply.content
