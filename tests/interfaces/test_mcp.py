"""``bizbench mcp`` (docs/interfaces.md, MCP): every registered env through the MCP SDK's own client.

In memory (``mcp.client.Client`` on the server object, so the test holds the server's episode),
over stdio (a ``bizbench mcp`` subprocess) and over streamable HTTP. Horizons are short.
"""

from __future__ import annotations

import json
import math
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from typer.testing import CliRunner

from bizbench.cli import app
from bizbench.core.envs import get_env, list_envs
from bizbench.core.seat import seat_of
from bizbench.interfaces.episode import ToolEpisode
from bizbench.interfaces.mcp import (
    CLIENT_DISCONNECTED,
    PROMPT,
    SERVER_STOPPED,
    EpisodeServer,
    stdio_client,
    stdio_parameters,
)
from bizbench.report.build import build_report
from bizbench.runner.check import bad_calls, find_hidden
from bizbench.runner.replay import replay_run

ENVS = [spec.id for spec in list_envs()]
SEED = 3
HORIZON = 2
UNKNOWN_TOOL = "zz_no_such_tool"
MAX_TURNS = 100  # more turn calls than any env's horizon of HORIZON takes


def new_episode(env_id: str, seed: int = SEED, **options: Any) -> ToolEpisode:
    return ToolEpisode(env_id, seed, horizon=HORIZON, agent="mcp", interface="mcp", **options)


def over_mcp(door: EpisodeServer, play: Callable[[Client], Awaitable[Any]], **client_options: Any) -> Any:
    """``play(client)`` with an SDK client connected in memory to ``door``'s server."""

    async def main() -> Any:
        async with Client(door.server, **client_options) as client:
            return await play(client)

    return anyio.run(main)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


def is_json_object(args: Any) -> bool:
    """Whether ``args`` can be a call's arguments on the wire: a JSON object (no NaN, no infinity)."""
    try:
        json.dumps(args, allow_nan=False)
    except ValueError:
        return False
    return isinstance(args, dict)


def example(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A value ``schema`` allows, with nested objects filled in (arguments a call needs)."""
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return example(next(s for s in schema[key] if s.get("type") != "null"), defs)
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: example(schema["properties"][name], defs) for name in schema.get("required", [])}
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = min(max(low, 1), schema.get("maximum", math.inf))
        return int(math.ceil(value)) if kind == "integer" else float(value)
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind == "array":
        return [example(schema.get("items", {}), defs) for _ in range(schema.get("minItems", 0))]
    return None


def example_args(input_schema: dict[str, Any]) -> dict[str, Any]:
    return dict(example(input_schema, input_schema.get("$defs", {})))


def turn_call(env_id: str) -> tuple[str, dict[str, Any]]:
    """The env's call that ends a turn, found from its registry: the first mutating tool whose
    example call, on a scratch episode, ends one."""
    scratch = new_episode(env_id)
    for tool in scratch.tools():
        args = example_args(tool.input_schema)
        turn = scratch.env.turn
        if tool.mutates and scratch.call(tool.name, args).ok and scratch.env.turn > turn:
            return tool.name, args
    raise AssertionError(f"{env_id}: no tool ends a turn")


def read_calls(episode: ToolEpisode) -> list[tuple[str, dict[str, Any]]]:
    return [(t.name, example_args(t.input_schema)) for t in episode.tools() if not t.mutates]


async def read_everything(client: Client) -> list[tuple[str, str]]:
    """(where, text) of all a client can read without calling a tool."""
    tools = await client.list_tools()
    seen = [("tools/list", json.dumps([t.model_dump(mode="json") for t in tools.tools]))]
    seen.append(("instructions", client.instructions or ""))
    prompt = await client.get_prompt(PROMPT)
    seen += [("prompt", message.content.text) for message in prompt.messages]  # type: ignore[union-attr]
    for resource in (await client.list_resources()).resources:
        contents = (await client.read_resource(resource.uri)).contents
        seen += [(resource.uri, content.text) for content in contents]  # type: ignore[union-attr]
    return seen


# ---------------------------------------------------------------------------- tools
@pytest.mark.parametrize("env_id", ENVS)
def test_the_tools_are_the_envs_registry_with_its_json_schemas(env_id: str) -> None:
    episode = new_episode(env_id)
    listed = over_mcp(EpisodeServer(episode), lambda client: client.list_tools()).tools
    registry = episode.registry.specs()
    assert [t.name for t in listed] == [s.name for s in registry]
    for tool, spec in zip(listed, registry, strict=True):
        assert tool.input_schema == spec.parameters
        assert tool.description == spec.description
        assert tool.annotations.read_only_hint is (not spec.mutates)


@pytest.mark.parametrize("env_id", ENVS)
def test_every_read_tool_answers_over_mcp_as_it_does_in_process(env_id: str) -> None:
    episode, twin = new_episode(env_id), new_episode(env_id)
    calls = read_calls(episode)

    async def play(client: Client) -> list[Any]:
        return [await client.call_tool(name, args) for name, args in calls]

    results = over_mcp(EpisodeServer(episode), play)
    for (name, args), result in zip(calls, results, strict=True):
        answer = twin.call(name, args)
        assert (result.is_error, texts(result)) == (not answer.ok, [answer.text]), name
    no_arguments = [name for (name, args), r in zip(calls, results, strict=True) if not args and r.is_error]
    assert calls and not no_arguments, f"read tools without arguments refused: {no_arguments}"
    assert episode.state_digest() == twin.state_digest()


# ---------------------------------------------------------------------------- errors are answers
@pytest.mark.parametrize("env_id", ENVS)
def test_a_refused_call_is_an_error_result_with_the_envs_message_not_a_protocol_error(env_id: str) -> None:
    episode = new_episode(env_id)
    before = episode.state_digest()
    calls = [call for call in bad_calls(episode.registry) if is_json_object(call[2])]

    async def play(client: Client) -> list[Any]:
        return [await client.call_tool(tool, args) for _, tool, args, _ in calls]

    results = over_mcp(EpisodeServer(episode), play)
    assert any(tool == UNKNOWN_TOOL for _, tool, _, _ in calls)
    for (label, _, _, name), result in zip(calls, results, strict=True):
        assert result.is_error, label
        assert texts(result)[0].startswith("Error: ") and (name is None or name in texts(result)[0]), label
    assert episode.state_digest() == before


def test_a_rule_of_the_world_is_an_error_result_that_changes_nothing() -> None:
    episode = new_episode("lemonade")
    before = episode.state_digest()
    result = over_mcp(EpisodeServer(episode), lambda client: client.call_tool("buy_lemons", {"units": 1000}))
    assert result.is_error and texts(result) == [f"Error: {episode.env.actions[-1]['error']}"]
    assert "cash" in texts(result)[0]
    assert episode.state_digest() == before


def test_an_unknown_resource_or_prompt_is_a_protocol_error_naming_what_there_is() -> None:
    door = EpisodeServer(new_episode("lemonade"))

    async def play(client: Client) -> list[str]:
        messages = []
        for ask in (client.read_resource("bizbench://lemonade/zz"), client.get_prompt("zz")):
            with pytest.raises(MCPError) as refused:
                await ask
            messages.append(refused.value.message)
        return messages

    resource, prompt = over_mcp(door, play)
    assert "zz" in resource and door.observation_uri in resource
    assert "zz" in prompt and PROMPT in prompt


# ---------------------------------------------------------------------------- what the client reads
@pytest.mark.parametrize("env_id", ENVS)
def test_the_resources_and_the_prompt_are_the_envs_public_documents(env_id: str) -> None:
    episode = new_episode(env_id)
    seen = dict(over_mcp(EpisodeServer(episode), read_everything))
    root = f"bizbench://{env_id}/"
    assert seen["instructions"] == seen["prompt"] == seen[root + "instructions.md"] == episode.system_prompt()
    assert seen[root + "tools.md"] == episode.tool_reference()
    assert json.loads(seen[root + "observation.json"]) == json.loads(episode.observation_text())
    seat = seat_of(env_id) if get_env(env_id).seat else None
    documents = seat.documents(episode.env.config) if seat is not None and seat.documents is not None else {}
    assert {root + "docs/" + path: text for path, text in documents.items()}.items() <= seen.items()


@pytest.mark.parametrize("env_id", ENVS)
def test_the_client_never_sees_the_seed_or_a_hidden_value(env_id: str) -> None:
    seed = 918_273_645
    episode = new_episode(env_id, seed)
    hidden_values = getattr(episode.env, "hidden_values", list)
    calls = [*read_calls(episode), turn_call(env_id), (UNKNOWN_TOOL, {})]

    async def play(client: Client) -> list[tuple[str, str]]:
        seen = await read_everything(client)
        for name, args in calls:
            seen += [(name, text) for text in texts(await client.call_tool(name, args))]
        return seen

    seen = over_mcp(EpisodeServer(episode), play)
    assert find_hidden([seed, *hidden_values()], seen) == []


# ---------------------------------------------------------------------------- a whole episode
@pytest.mark.parametrize("env_id", ENVS)
def test_a_whole_episode_over_mcp_ends_in_the_state_of_the_same_calls_in_process(env_id: str) -> None:
    episode, twin = new_episode(env_id), new_episode(env_id)
    turn = turn_call(env_id)

    async def play(client: Client) -> list[tuple[str, dict[str, Any]]]:
        calls = [*read_calls(episode), (UNKNOWN_TOOL, {})]
        for name, args in calls:
            await client.call_tool(name, args)
        for _ in range(MAX_TURNS):
            calls.append(turn)
            last = texts(await client.call_tool(*turn))
            if len(last) > 1:
                break
        assert "The episode is over (completed)" in last[-1]
        return calls

    calls = over_mcp(EpisodeServer(episode), play)
    for name, args in calls:
        twin.call(name, args)
    assert episode.terminated and twin.terminated
    assert episode.state_digest() == twin.state_digest()
    assert episode.result is not None and episode.result["ended_by"] == "completed"
    assert episode.score() == twin.score()


def test_a_step_limit_ends_the_episode_and_the_call_that_reaches_it_says_so() -> None:
    episode = new_episode("lemonade", max_steps=2)

    async def play(client: Client) -> list[list[str]]:
        return [texts(await client.call_tool("get_status", {})) for _ in range(3)]

    first, second, third = over_mcp(EpisodeServer(episode), play)
    assert len(first) == 1 and "The episode is over (max_steps)" in second[1]
    assert third[0] == "Error: the episode has ended; no tool can be called any more"


def test_a_client_that_disconnects_early_leaves_an_incomplete_run_that_replays_and_reports(tmp_path: Path) -> None:
    run = tmp_path / "run"
    episode = new_episode("lemonade", out=run)

    async def play(client: Client) -> str | None:
        await client.call_tool("buy_lemons", {"units": 5})
        await client.call_tool("end_day", {})
        return client.instructions

    instructions = over_mcp(EpisodeServer(episode), play, mode="legacy")  # the initialize handshake
    assert instructions == episode.system_prompt()
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == CLIENT_DISCONNECTED and not result["completed"]
    assert result["agent"] == "mcp" and result["interface"] == "mcp"
    assert replay_run(run).ok
    report = build_report([run], tmp_path / "report", None, anchors=False, make_plots=False)
    assert [m.metrics["ended_early"] for m in report.measured] == [1.0]


# ---------------------------------------------------------------------------- bizbench mcp, out of process
def test_bizbench_mcp_over_stdio_plays_an_episode_whose_run_replays(tmp_path: Path) -> None:
    run = tmp_path / "run"
    monthly = next(spec.id for spec in list_envs() if spec.unit == "month")  # one turn a unit of the horizon
    turn, read = turn_call(monthly), read_calls(new_episode(monthly))[0]

    async def main() -> tuple[list[str], list[str]]:
        async with stdio_client(monthly, SEED, horizon=HORIZON, out=run) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            await client.call_tool(*read)
            answers = [texts(await client.call_tool(*turn)) for _ in range(HORIZON)]
            return names, answers[-1]

    names, last = anyio.run(main)
    assert names == [s.name for s in new_episode(monthly).registry.specs()]
    assert "The episode is over (completed)" in last[1]
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == "completed" and result["agent"] == "mcp"
    assert replay_run(run).ok


def test_bizbench_mcp_over_streamable_http_keeps_one_episode_across_clients_until_stopped(tmp_path: Path) -> None:
    run = tmp_path / "run"
    params = stdio_parameters("lemonade", SEED, horizon=HORIZON, out=run)
    argv = [params.command, *params.args, "--http", "0"]
    server = subprocess.Popen(argv, env=params.env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        url = next((m.group(1) for line in server.stderr if (m := re.search(r"serving lemonade at (\S+)", line))), "")
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        async def one_client(name: str, args: dict[str, Any]) -> Any:
            async with Client(url) as client:
                return await client.call_tool(name, args)

        bought = anyio.run(one_client, "buy_lemons", {"units": 7})
        status = anyio.run(one_client, "get_status", {})  # a second client: the same episode
        assert not bought.is_error and json.loads(texts(status)[0])["lemons"] == 7
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == SERVER_STOPPED and not result["completed"]
    assert replay_run(run).ok


def test_a_stopped_stdio_server_finishes_its_run_and_writes_only_the_protocol_to_stdout(tmp_path: Path) -> None:
    run = tmp_path / "run"
    params = stdio_parameters("lemonade", SEED, horizon=HORIZON, out=run)
    server = subprocess.Popen(
        [params.command, *params.args],
        env=params.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None

    def request(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
        server.stdin.flush()
        return dict(json.loads(server.stdout.readline()))

    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    assert request(1, "initialize", hello)["result"]["serverInfo"]["name"] == "bizbench-lemonade"
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    called = request(2, "tools/call", {"name": "buy_lemons", "arguments": {"units": 3}})
    assert called["result"]["isError"] is False
    server.send_signal(signal.SIGTERM)  # stdin still open: the client has not gone
    rest, _ = server.communicate(timeout=60)
    assert server.returncode == 0 and rest == ""
    result = json.loads((run / "result.json").read_text())
    assert result["ended_by"] == SERVER_STOPPED and result["tool_calls"] == 1
    assert replay_run(run).ok


# ---------------------------------------------------------------------------- the command line
@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["mcp", "zz-env", "--seed", "1"], "zz-env"),
        (["mcp", "lemonade", "--seed", "1", "--preset", "zz-preset"], "zz-preset"),
        (["mcp", "lemonade", "--seed", "-1"], "seed"),
        (["mcp", "lemonade", "--seed", "1", "--split", "zz"], "split"),
        (["mcp", "lemonade", "--seed", "1", "--http", "70000"], "--http"),
    ],
)
def test_a_bad_option_is_a_clear_error_naming_the_problem(argv: list[str], named: str) -> None:
    refused = CliRunner().invoke(app, argv)
    assert refused.exit_code == 2 and named in refused.output


@pytest.mark.parametrize("command", [["mcp", "lemonade", "--seed", "1", "--http"], ["openenv", "lemonade", "--port"]])
def test_a_port_in_use_is_a_clear_error_and_leaves_no_run_behind(command: list[str], tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        refused = CliRunner().invoke(app, [*command, str(port), "--out", str(tmp_path / "run")])
    assert refused.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in refused.output
    assert not (tmp_path / "run").exists()


def test_bizbench_mcp_without_the_sdk_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp raises ImportError
    monkeypatch.delitem(sys.modules, "bizbench.interfaces.mcp")
    refused = CliRunner().invoke(app, ["mcp", "lemonade", "--seed", "1"])
    assert refused.exit_code == 2 and "bizbench[mcp]" in refused.output
