"""Model strings, sampling options, prices, the Anthropic conversion and the replay model (offline)."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.models import ModelError, ReplayModel, ScriptedModel, Usage, make_model
from bizbench.agents.models.anthropic_client import to_anthropic
from bizbench.agents.models.factory import check_sampling
from bizbench.agents.models.openai_client import (
    OpenAIClient,
    RetryPolicy,
    call_with_retries,
    parse_arguments,
    parse_chat_completion,
)
from bizbench.agents.models.prices import PRICES, PRICES_AS_OF, Price, cost_usd, load_prices, lookup_price, price_known
from bizbench.agents.recording import AgentRun, Limits, Trajectory

KEY = "sk-unit-KEY-9876543210"
KEY_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "TOGETHER_API_KEY")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (*KEY_VARS, "OPENAI_COMPATIBLE_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


# ----------------------------------------------------------------------------- model strings


def test_openai_needs_its_key_and_uses_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="set OPENAI_API_KEY"):
        make_model("openai/gpt-5")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    m = make_model("openai/gpt-5", {"temperature": 0.5})
    assert isinstance(m, OpenAIClient)
    assert m.name == "openai/gpt-5" and m.model == "gpt-5" and m.sampling == {"temperature": 0.5}
    assert m.official and m.base_url is None and m.key_env == "OPENAI_API_KEY"
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")  # a proxy or local server: no key needed
    m = make_model("openai/gpt-5")
    assert isinstance(m, OpenAIClient) and m.base_url == "http://127.0.0.1:8000/v1"


def test_openai_compatible_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    m = make_model("openai-compatible/qwen3-8b@http://localhost:8000/v1/")
    assert isinstance(m, OpenAIClient)
    assert m.model == "qwen3-8b" and m.base_url == "http://localhost:8000/v1" and not m.official
    assert m.name == "openai-compatible/qwen3-8b@http://localhost:8000/v1/" and m.key_env is None
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", KEY)
    m = make_model("openai-compatible/org/model:tag@https://example.invalid/v1")
    assert isinstance(m, OpenAIClient) and m.model == "org/model:tag" and m.key_env == "OPENAI_COMPATIBLE_API_KEY"


@pytest.mark.parametrize(
    ("spec", "base_url", "env"),
    [
        ("openrouter/meta-llama/llama-3.3-70b-instruct", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        ("together/openai/gpt-oss-120b", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    ],
)
def test_hosted_conveniences(spec: str, base_url: str, env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=env):
        make_model(spec)
    monkeypatch.setenv(env, KEY)
    m = make_model(spec)
    assert isinstance(m, OpenAIClient) and m.base_url == base_url and m.key_env == env
    assert m.model == spec.split("/", 1)[1] and m.name == spec


def test_anthropic_and_litellm_need_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setitem(sys.modules, "anthropic", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "litellm", None)
    with pytest.raises(ValueError, match=r"pip install 'bizbench\[llm\]'"):
        make_model("anthropic/claude-sonnet-4-6")
    with pytest.raises(ValueError, match=r"pip install 'bizbench\[llm\]'"):
        make_model("litellm/gemini/gemini-2.5-pro")


def test_anthropic_needs_its_key() -> None:
    pytest.importorskip("anthropic", reason="the anthropic SDK comes with the 'llm' extra")
    with pytest.raises(ValueError, match="set ANTHROPIC_API_KEY"):
        make_model("anthropic/claude-sonnet-4-6")


def test_anthropic_client_from_a_model_string(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("anthropic", reason="the anthropic SDK comes with the 'llm' extra")
    from bizbench.agents.models.anthropic_client import AnthropicClient

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    m = make_model("anthropic/claude-opus-4-6", {"reasoning_effort": "high"})
    assert isinstance(m, AnthropicClient) and m.model == "claude-opus-4-6" and KEY not in repr(m)


def test_scripted_and_replay_strings(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"content": "hi"}) + "\n")
    m = make_model(f"scripted:{script}")
    assert isinstance(m, ScriptedModel) and m.complete([]).content == "hi"
    with pytest.raises(ValueError, match="cannot read the script"):
        make_model(f"scripted:{tmp_path / 'missing.jsonl'}")
    with pytest.raises(ValueError, match="trajectory.jsonl not found"):
        make_model(f"replay:{tmp_path}")


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("gpt-5", "expected one of"),
        ("mistral/large", "unknown model provider 'mistral'"),
        ("openai/", "model name after openai/ is missing"),
        ("openai-compatible/qwen", "openai-compatible/<name>@<base_url>"),
        ("openai-compatible/qwen@localhost:8000", "openai-compatible/<name>@<base_url>"),
        ("openai-compatible/@http://localhost:8000/v1", "openai-compatible/<name>@<base_url>"),
        ("scripted:", "needs a file"),
        ("replay:", "needs a run directory"),
    ],
)
def test_bad_model_strings(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_model(spec)


def test_sampling_options_are_checked() -> None:
    ok = {"temperature": 0.7, "top_p": 0.9, "max_tokens": 512, "reasoning_effort": "high", "seed": 3, "x": None}
    assert check_sampling(ok) == {k: v for k, v in ok.items() if v is not None}
    for bad, match in [
        ({"temperature": 3}, "temperature"),
        ({"top_p": "high"}, "top_p"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"seed": 1.5}, "seed"),
        ({"reasoning_effort": "extreme"}, "reasoning_effort"),
        ({"temprature": 0.1}, "unknown sampling option 'temprature'"),
    ]:
        with pytest.raises(ValueError, match=match):
            check_sampling(bad)
    with pytest.raises(ValueError, match="temperature"):
        make_model("openai-compatible/m@http://localhost:1/v1", {"temperature": -1})


def test_the_key_is_not_in_name_sampling_or_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in KEY_VARS[:1] + KEY_VARS[3:]:
        monkeypatch.setenv(var, KEY)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", KEY)
    for spec in ("openai/gpt-5", "openrouter/x/y", "together/x/y", "openai-compatible/m@http://localhost:1/v1"):
        m = make_model(spec, {"temperature": 0.1})
        for text in (m.name, repr(m), str(m), json.dumps(m.sampling)):
            assert KEY not in text


# ----------------------------------------------------------------------------- prices


def test_prices_table_and_cost() -> None:
    assert PRICES_AS_OF and all(isinstance(p, Price) for p in PRICES.values())
    usage = Usage(input_tokens=1_000_000, output_tokens=200_000, cached_tokens=400_000, reasoning_tokens=150_000)
    # gpt-5: $1.25 input, $0.125 cached, $10 output; reasoning is inside output_tokens (not charged twice)
    assert cost_usd("gpt-5", usage) == pytest.approx(0.6 * 1.25 + 0.4 * 0.125 + 0.2 * 10)
    assert cost_usd("openai/gpt-5-2025-08-07", usage) == cost_usd("gpt-5", usage)
    assert lookup_price("gpt-4o-mini-2024-07-18") == PRICES["gpt-4o-mini"]
    assert lookup_price("claude-sonnet-4-5-20250929") == PRICES["claude-sonnet-4-5"]
    assert lookup_price("anthropic/claude-haiku-4-5@20251001") == PRICES["claude-haiku-4-5"]
    assert lookup_price("together/openai/gpt-oss-120b") == PRICES["openai/gpt-oss-120b"]
    assert lookup_price("openrouter/deepseek/deepseek-chat") == PRICES["deepseek-chat"]
    # a different model is not a dated variant of a known one
    assert lookup_price("claude-opus-4-8") is None and lookup_price("gpt-5-codex") is None
    assert cost_usd("claude-opus-4-8", usage) == 0.0 and not price_known("claude-opus-4-8")


def test_price_overrides_from_a_dict_and_files(tmp_path: Path) -> None:
    usage = Usage(input_tokens=2_000_000, output_tokens=1_000_000, cached_tokens=0)
    over = {"claude-opus-4-8": {"input": 5, "output": 25}, "gpt-5": [2, 0.2, 20]}
    assert cost_usd("claude-opus-4-8-20261101", usage, over) == pytest.approx(2 * 5 + 25)
    assert cost_usd("gpt-5", usage, over) == pytest.approx(2 * 2 + 20)
    toml = tmp_path / "prices.toml"
    toml.write_text('["my-model"]\ninput = 1.0\ncached_input = 0.5\noutput = 2.0\n')
    assert load_prices(toml) == {"my-model": Price(1.0, 0.5, 2.0)}
    js = tmp_path / "prices.json"
    js.write_text(json.dumps({"prices": {"my-model": [1, 2]}}))
    assert load_prices(js) == {"my-model": Price(1.0, 1.0, 2.0)}
    bad = tmp_path / "bad.toml"
    bad.write_text('["m"]\ninput = "cheap"\noutput = 1\n')
    with pytest.raises(ValueError, match="bad.toml.*'m'"):
        load_prices(bad)
    with pytest.raises(ValueError, match="cannot read the price file"):
        load_prices(tmp_path / "none.toml")
    with pytest.raises(ValueError, match="unknown keys"):
        load_prices({"m": {"input": 1, "output": 2, "outptu": 3}})
    m = make_model("openai-compatible/my-model@http://localhost:1/v1", prices=str(toml))
    assert isinstance(m, OpenAIClient) and m.prices == {"my-model": Price(1.0, 0.5, 2.0)}


# ----------------------------------------------------------------------------- parsing and retries


def test_parse_chat_completion_from_a_dict() -> None:
    resp = {
        "model": "qwen3",
        "choices": [
            {
                "message": {
                    "content": None,
                    "reasoning": "hmm",
                    "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}}],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "cost": 0.0123},
    }
    reply, reported = parse_chat_completion(resp)
    assert reply.content == "" and reply.reasoning == "hmm" and reply.tool_calls[0].arguments == {"a": 1}
    assert asdict(reply.usage) == {"input_tokens": 7, "output_tokens": 3, "cached_tokens": 0, "reasoning_tokens": 0}
    assert reported == 0.0123
    assert parse_arguments('{"a": [1]}') == {"a": [1]} and parse_arguments("{oops") == "{oops"
    assert parse_arguments("  ") == {} and parse_arguments(None) == {} and parse_arguments('"text"') == '"text"'


class Flaky(Exception):
    def __init__(self, status: int | None, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"status {status}")
        self.status_code = status
        self.response = type("R", (), {"headers": headers or {}})()


def test_call_with_retries_records_attempts_and_honours_http_dates() -> None:
    failures: list[BaseException] = [
        Flaky(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}),  # in the past: no wait
        Flaky(503),
        TimeoutError(),
    ]
    sleeps: list[float] = []

    def fn() -> str:
        if failures:
            raise failures.pop(0)
        return "done"

    value, attempts = call_with_retries(
        fn,
        provider="p",
        policy=RetryPolicy(max_retries=3, base_s=2.0),
        sleep=sleeps.append,
        rng=random.Random(0),
        describe=lambda f: f.message,
        errors=(Exception,),
    )
    assert value == "done" and [a["status"] for a in attempts] == [429, 503, None]
    assert sleeps[0] == 0.0 and 1.0 <= sleeps[1] <= 2.0 * 2 and 2.0 <= sleeps[2] <= 8.0
    assert [a["wait_s"] for a in attempts] == [round(s, 3) for s in sleeps]
    with pytest.raises(ModelError) as info:
        call_with_retries(
            lambda: (_ for _ in ()).throw(Flaky(400)),
            provider="p",
            policy=RetryPolicy(),
            sleep=sleeps.append,
            rng=random.Random(0),
            describe=lambda f: f"rejected: {f.message}",
            errors=(Exception,),
        )
    assert str(info.value) == "rejected: status 400" and len(info.value.attempts) == 1


# ----------------------------------------------------------------------------- Anthropic conversion


def test_to_anthropic_converts_an_openai_history() -> None:
    tools = [{"name": "bash", "description": "Run.", "parameters": {"type": "object", "properties": {}}}]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Rules."},
        {"role": "system", "content": "More rules."},
        {"role": "user", "content": [{"type": "text", "text": "Week 1."}]},
        {
            "role": "assistant",
            "content": "Two calls.",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}},
                {"id": "b", "type": "function", "function": {"name": "bash", "arguments": "{broken"}},
                {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "file.txt"},
        {"role": "tool", "tool_call_id": "b", "content": "error: bad JSON"},
        {"role": "user", "content": "Keep going."},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "Next week."},
    ]
    thinking = {"a": [{"type": "thinking", "thinking": "plan", "signature": "s"}]}
    system, msgs, atools = to_anthropic(messages, tools, thinking)
    assert system == "Rules.\n\nMore rules."
    assert atools == [{"name": "bash", "description": "Run.", "input_schema": tools[0]["parameters"]}]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert msgs[0]["content"] == [{"type": "text", "text": "Week 1."}]
    assert msgs[1]["content"] == [
        {"type": "thinking", "thinking": "plan", "signature": "s"},
        {"type": "text", "text": "Two calls."},
        {"type": "tool_use", "id": "a", "name": "bash", "input": {"cmd": "ls"}},
        {"type": "tool_use", "id": "b", "name": "bash", "input": {"raw_arguments": "{broken"}},
        {"type": "tool_use", "id": "c", "name": "bash", "input": {}},
    ]
    assert msgs[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c", "content": "(no result)"},  # the harness left c unanswered
        {"type": "tool_result", "tool_use_id": "a", "content": "file.txt"},
        {"type": "tool_result", "tool_use_id": "b", "content": "error: bad JSON"},
        {"type": "text", "text": "Keep going."},
    ]
    assert msgs[3]["content"] == [{"type": "text", "text": "(empty)"}]
    # OpenAI-format tools pass too, and a history opening with the assistant gets a user turn first
    _, msgs, atools = to_anthropic(
        [{"role": "assistant", "content": "hi"}], [{"type": "function", "function": {"name": "f"}}]
    )
    assert msgs[0]["role"] == "user" and atools == [
        {"name": "f", "description": "", "input_schema": {"type": "object"}}
    ]


# ----------------------------------------------------------------------------- replay


def record_scripted_run(path: Path, replies: list[dict[str, Any]], asks: int) -> list[dict[str, Any]]:
    """A toy harness: asks ``asks`` times, growing the conversation by the reply and a tool result."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps({"model": "scripted", "sampling": {"temperature": 0.3}}))
    run = AgentRun(ScriptedModel(replies), Trajectory(path / "trajectory.jsonl"))
    drive(run, asks)
    run.trajectory.close()
    return run.trajectory.events


def drive(run: AgentRun, asks: int, extra: str = "") -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "go" + extra}]
    for turn in range(asks):
        reply = run.ask(messages, None, turn=turn)
        if reply is None:
            return
        messages.append(reply.assistant_message())
        for c in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": c.id, "content": f"result of {c.name}"})


REPLIES: list[dict[str, Any]] = [
    {
        "content": "a",
        "reasoning": "why",
        "tool_calls": [{"name": "t", "arguments": {"x": 1}}],
        "usage": {"input_tokens": 10, "output_tokens": 2, "cached_tokens": 4, "reasoning_tokens": 1},
    },
    {"content": "b", "tool_calls": [{"id": "own", "name": "u", "arguments": "{raw"}]},
    {"content": "c"},
]


def test_replay_round_trip(tmp_path: Path) -> None:
    recorded = record_scripted_run(tmp_path / "run", REPLIES, 3)
    replay = make_model(f"replay:{tmp_path / 'run'}")
    assert isinstance(replay, ReplayModel)
    assert replay.sampling == {"temperature": 0.3} and replay.recorded_name == "scripted"
    run = AgentRun(replay, Trajectory(None))
    drive(run, 3)
    strip = ("i", "wall_s")
    assert [{k: v for k, v in e.items() if k not in strip} for e in run.trajectory.events] == [
        {k: v for k, v in e.items() if k not in strip} for e in recorded
    ]
    assert run.trajectory.events[1]["tool_calls"] == [{"id": "own", "name": "u", "arguments": "{raw"}]
    assert replay.mismatches == []
    # asking for more than was recorded is a clear error, which the run records as its end
    with pytest.raises(ModelError, match="asks for model reply 4 but .* recorded only 3"):
        replay.complete([])


def test_replay_mismatches(tmp_path: Path) -> None:
    record_scripted_run(tmp_path / "run", REPLIES, 3)
    # same path, other text length: recorded, replay goes on
    replay = ReplayModel(tmp_path / "run")
    run = AgentRun(replay, Trajectory(None))
    drive(run, 3, extra="!")
    assert run.stopped is None and run.meter.model_calls == 3
    assert [m["call"] for m in replay.mismatches] == [1, 2, 3]
    assert replay.mismatches[0] == {
        "call": 1,
        "recorded": {"messages": 2, "chars": 5},
        "now": {"messages": 2, "chars": 6},
    }
    # strict: any mismatch is an error
    strict = ReplayModel(tmp_path / "run", strict=True)
    with pytest.raises(ModelError, match="request 1 no longer matches"):
        strict.complete([{"role": "system", "content": "sys"}, {"role": "user", "content": "go!"}])
    # another number of messages: the harness took another path
    other = ReplayModel(tmp_path / "run")
    other.complete([{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}])
    with pytest.raises(ModelError, match="request 2 no longer matches"):
        other.complete([{"role": "user", "content": "different"}])


def test_replay_raises_a_recorded_model_error_again(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.mkdir()
    calls = 0

    def flaky(messages: Any, tools: Any) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise ModelError("provider down", attempts=[{"attempt": 1, "error": "500", "status": 500, "wait_s": 0.0}])
        return {"content": "ok"}

    run = AgentRun(ScriptedModel(flaky), Trajectory(path / "trajectory.jsonl"), Limits(max_turns=10))
    drive(run, 5)
    run.trajectory.close()
    assert run.stopped == "model_error"
    again = AgentRun(ReplayModel(path), Trajectory(None))
    drive(again, 5)
    assert again.stopped == "model_error"
    assert again.trajectory.events[-1]["attempts"] == [{"attempt": 1, "error": "500", "status": 500, "wait_s": 0.0}]


def test_a_recorded_cfo_run_replays_to_the_same_result(tmp_path: Path) -> None:
    from bizbench.runner.agent_episode import run_agent_episode

    def block(kind: str, name: str) -> dict[str, Any]:
        return {"content": "```json\n" + json.dumps({"type": kind, "name": name, "params": {}}) + "\n```"}

    script = [block("tool", "check_cash_in_bank"), {"content": "no block"}, block("action", "pass")]
    limits = Limits(max_turns=4)
    first = run_agent_episode("cfo", ScriptedModel(script), 5, "paper", tmp_path / "a", limits=limits)
    replay = make_model(f"replay:{tmp_path / 'a'}")
    second = run_agent_episode("cfo", replay, 5, "paper", tmp_path / "b", limits=limits)
    assert isinstance(replay, ReplayModel) and replay.mismatches == []
    volatile = ("wall_seconds", "provenance")
    assert {k: v for k, v in first.items() if k not in volatile} == {
        k: v for k, v in second.items() if k not in volatile
    }
    assert second["model"] == first["model"] == "scripted"  # a replay reports the recorded model
