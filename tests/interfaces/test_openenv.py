"""The OpenEnv door (bizbench.interfaces.openenv, docs/interfaces.md), driven by openenv-core's own
clients (GenericEnvClient, MCPToolClient) against a real server on a loopback port."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

pytest.importorskip("openenv")
uvicorn = pytest.importorskip("uvicorn")

from openenv.core.generic_client import GenericEnvClient  # noqa: E402
from openenv.core.mcp_client import MCPToolClient  # noqa: E402

from bizbench.core.envs import list_envs  # noqa: E402
from bizbench.core.runs import find_runs  # noqa: E402
from bizbench.interfaces.episode import ToolEpisode  # noqa: E402
from bizbench.interfaces.openenv import create_app  # noqa: E402
from bizbench.report.build import build_report  # noqa: E402
from bizbench.runner.check import find_hidden  # noqa: E402
from bizbench.runner.replay import replay_run  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openenv_trl.py"
ADVANCE = {"type": "advance"}


@contextmanager
def serving(env: str, **options: Any) -> Iterator[str]:
    """The OpenEnv server of ``env`` on a free loopback port, for the block; yields its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(env, **options), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started, "the OpenEnv server did not start"
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture(scope="module")
def lemonade_url() -> Iterator[str]:
    with serving("lemonade", horizon=3) as url:
        yield url


def client(url: str) -> Any:
    return GenericEnvClient(base_url=url).sync()


def no_argument_tool(env_id: str) -> str:
    """A read-only tool of the env that needs no arguments (from its registry)."""
    tools = ToolEpisode(env_id, 0, horizon=2).tools()
    return next(t.name for t in tools if not t.mutates and not t.input_schema.get("required"))


def run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


@pytest.mark.parametrize("env_id", [spec.id for spec in list_envs()])
def test_every_env_plays_to_done_over_openenv_and_records_a_run_that_replays_and_reports(
    env_id: str, tmp_path: Path
) -> None:
    with serving(env_id, horizon=2, out=tmp_path / "runs") as url, client(url) as env:
        reset = env.reset(seed=5)
        assert reset.observation["text"] and reset.observation["system_prompt"]
        rewards = [reset.reward]
        answer = env.step({"type": "call_tool", "tool_name": no_argument_tool(env_id), "arguments": {}})
        assert answer.observation["error"] is None and answer.observation["result"]["content"][0]["text"]
        rewards.append(answer.reward)
        for _ in range(50):
            step = env.step(ADVANCE)
            rewards.append(step.reward)
            if step.done:
                break
        state = env.state()
        late = env.step(ADVANCE)  # docs/interfaces.md: a call after the end is refused
        after = env.state()
    assert late.observation["text"] == "Error: the episode has ended; no tool can be called any more"
    assert late.done and late.reward == 0 and after["state_digest"] == state["state_digest"]
    assert step.done and state["terminated"] and state["step_count"] == len(rewards) - 1
    assert sum(rewards) == pytest.approx(state["score"])
    (run,) = run_dirs(tmp_path / "runs")
    result = json.loads((run / "result.json").read_text())
    assert result["completed"] or result["bankrupt"]
    assert result["interface"] == "openenv"
    assert json.loads((run / "config.json").read_text())["episode_id"] == state["episode_id"]
    report = replay_run(run)
    assert report.ok, report.summary()
    built = build_report([tmp_path / "runs"], tmp_path / "report", None, anchors=False, make_plots=False)
    assert [m.run.path for m in built.measured] == [run]


def test_the_tools_are_the_env_registry_with_its_json_schemas_over_step_and_the_mcp_endpoint(
    lemonade_url: str,
) -> None:
    registry = [(t.name, t.description, t.input_schema) for t in ToolEpisode("lemonade", 0, horizon=3).tools()]
    with MCPToolClient(base_url=lemonade_url).sync() as env:
        listed = [(t.name, t.description, t.input_schema) for t in env.list_tools()]
    assert listed == registry
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    served = httpx.post(f"{lemonade_url}/mcp", json=rpc, timeout=30).json()["result"]["tools"]
    assert [(t["name"], t["description"], t["input_schema"]) for t in served] == registry


def test_a_refused_call_is_an_error_in_the_observation_that_changes_nothing(lemonade_url: str) -> None:
    with client(lemonade_url) as env:
        env.reset(seed=1)
        before = env.state()
        unknown = env.step({"type": "call_tool", "tool_name": "no_such_tool", "arguments": {}})
        bad_args = env.step({"type": "call_tool", "tool_name": "buy_lemons", "arguments": {"units": -4}})
        after = env.state()
    assert unknown.observation["error"]["error_type"] == "tool_not_found"
    assert "no_such_tool" in unknown.observation["error"]["message"]
    assert "buy_lemons" in unknown.observation["error"]["message"]  # the env's message lists its tools
    assert bad_args.observation["error"]["error_type"] == "execution_error"
    assert "units" in bad_args.observation["error"]["message"]
    assert not unknown.done and not bad_args.done and unknown.reward == 0 and bad_args.reward == 0
    assert after["state_digest"] == before["state_digest"]


def test_an_mcp_tool_client_calls_a_tool_and_gets_its_data(lemonade_url: str) -> None:
    with MCPToolClient(base_url=lemonade_url).sync() as env:
        env.reset(seed=2)
        status = env.call_tool("get_status")
        with pytest.raises(RuntimeError, match="units"):
            env.call_tool("buy_lemons", units=0)
    expected = ToolEpisode("lemonade", 2, horizon=3).call("get_status").data
    assert status == json.loads(json.dumps(expected))


def test_the_mcp_messages_of_a_session_call_the_tools_of_its_world(lemonade_url: str) -> None:
    def rpc(ws: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        ws.send(
            json.dumps({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}})
        )
        return dict(json.loads(ws.recv())["data"])

    with connect(lemonade_url.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "reset", "data": {"seed": 2}}))
        ws.recv()
        status = rpc(ws, "get_status", {})
        refused = rpc(ws, "buy_lemons", {"units": 0})
    expected = ToolEpisode("lemonade", 2, horizon=3).call("get_status").data
    assert status["result"]["structured_content"] == json.loads(json.dumps(expected))
    assert "units" in refused["error"]["message"]  # openenv's /mcp handler makes an MCP error result a JSON-RPC error


def test_the_same_seed_and_actions_give_the_in_process_state_digest(lemonade_url: str) -> None:
    actions = [("set_price", {"price": 1.5}), ("buy_lemons", {"units": 12}), ("end_day", {})]
    local = ToolEpisode("lemonade", 7, horizon=3)
    for name, args in actions:
        assert local.call(name, args).ok
    local.advance()
    with client(lemonade_url) as env:
        env.reset(seed=7)
        for name, args in actions:
            assert env.step({"type": "call_tool", "tool_name": name, "arguments": args}).observation["error"] is None
        env.step(ADVANCE)
        served = env.state()
    assert served["state_digest"] == local.state_digest()
    assert served["score"] == pytest.approx(local.score())


def test_two_concurrent_sessions_with_different_seeds_keep_separate_worlds(lemonade_url: str) -> None:
    async def play(seed: int, advances: int) -> dict[str, Any]:
        async with GenericEnvClient(base_url=lemonade_url) as env:
            await env.reset(seed=seed)
            for _ in range(advances):
                await env.step(ADVANCE)
            return dict(await env.state())

    async def both() -> list[dict[str, Any]]:
        return list(await asyncio.gather(play(11, 1), play(12, 2)))

    first, second = asyncio.run(both())
    for state, seed, advances in ((first, 11, 1), (second, 12, 2)):
        local = ToolEpisode("lemonade", seed, horizon=3)
        for _ in range(advances):
            local.advance()
        assert state["state_digest"] == local.state_digest()
        assert state["elapsed"] == advances
    assert first["episode_id"] != second["episode_id"]


def test_reset_without_a_seed_plays_the_next_world_of_the_split() -> None:
    with serving("lemonade", horizon=2) as url, client(url) as env:
        env.reset()
        first = env.state()["state_digest"]
        env.reset()
        second = env.state()["state_digest"]
    assert [first, second] == [ToolEpisode("lemonade", seed, horizon=2).state_digest() for seed in (0, 1)]


def test_nothing_the_client_reads_holds_the_seed_or_a_hidden_value(lemonade_url: str) -> None:
    seed = 9876543
    with MCPToolClient(base_url=lemonade_url).sync() as tools_env:
        listed = [t.model_dump() for t in tools_env.list_tools()]
    with client(lemonade_url) as env:
        seen = [env.reset(seed=seed).observation, listed]
        seen.append(env.step({"type": "call_tool", "tool_name": "get_status", "arguments": {}}).observation)
        seen.append(env.step({"type": "call_tool", "tool_name": "set_price", "arguments": {"price": 99}}).observation)
        seen += [env.step(ADVANCE).observation, env.state()]
    local = ToolEpisode("lemonade", seed, horizon=3).env
    hidden = [seed, *local.hidden_values()]
    texts = [(f"payload {i}", json.dumps(payload)) for i, payload in enumerate(seen)]
    assert find_hidden(hidden, texts) == []


def test_max_steps_truncates_and_a_closed_session_still_writes_its_run(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    with serving("lemonade", horizon=3, max_steps=2, out=root) as url:
        with client(url) as env:
            rewards = [env.reset(seed=3).reward]
            first = env.step({"type": "call_tool", "tool_name": "get_status", "arguments": {}})
            last = env.step(ADVANCE)
            assert not first.done and last.done and env.state()["truncated"]
            rewards += [first.reward, last.reward]
            assert rewards[0] > 0 and sum(rewards) == pytest.approx(0.0)  # cut short: worth 0, as reported
        with client(url) as env:
            env.reset(seed=4)
            env.step(ADVANCE)
        deadline = time.monotonic() + 30  # the server ends a session after its client has gone
        while len([r for r in find_runs([root]) if r.finished]) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    ended = sorted(r.result["ended_by"] for r in find_runs([root]) if r.result)
    assert ended == ["closed", "max_steps"]
    assert all(replay_run(run).ok for run in run_dirs(root))


def test_bad_server_options_are_errors_that_name_them() -> None:
    with pytest.raises(KeyError, match="no_such_env"):
        create_app("no_such_env")
    with pytest.raises(ValueError, match="preset"):
        create_app("lemonade", preset="no_such_preset")
    with pytest.raises(ValueError, match="max_sessions"):
        create_app("lemonade", max_sessions=0)
    proc = subprocess.run(
        [sys.executable, "-m", "bizbench.entry", "openenv", "lemonade", "--horizon", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "horizon" in proc.stderr


def test_the_trl_example_dry_run_plays_episodes_against_the_server(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("openenv_trl", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules["openenv_trl"] = example  # dataclasses look their module up
    spec.loader.exec_module(example)
    with serving("lemonade", horizon=2, out=tmp_path / "runs") as url:
        episodes = example.main(["--url", url, "--dry-run", "--episodes", "2", "--max-actions", "20"])
    assert [episode.done for episode in episodes] == [True, True]
    assert all(not feedback.startswith("Error") for episode in episodes for _, feedback in episode.turns)
    runs = run_dirs(tmp_path / "runs")
    scores = sorted(json.loads((run / "result.json").read_text())["score"] for run in runs)
    assert sorted(episode.reward for episode in episodes) == pytest.approx(scores)
    assert example.seed_of(example.WORLD_PROMPT.format(seed=7)) == 7
