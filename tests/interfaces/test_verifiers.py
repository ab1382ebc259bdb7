"""verifiers (docs/interfaces.md): every registered env as a verifiers environment, run by verifiers' own code.

Rollouts run through ``Env.serving`` + ``Env.run_episode`` (what verifiers' eval runner calls for each
rollout) and through ``vf-eval bizbench_verifiers`` itself. The model is a
scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1 (no network): verifiers' own
client and interception server talk to it as to any provider. Horizons are short.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
import verifiers.v1 as vf
from aiohttp import web

from bizbench.core.envs import list_envs
from bizbench.core.runlog import headline_score
from bizbench.interfaces.episode import ToolEpisode
from bizbench.interfaces.verifiers import WORLD_ENDED, BizbenchEnv, load_environment
from bizbench.report.build import build_report
from bizbench.runner.check import find_hidden
from bizbench.runner.replay import replay_run
from bizbench.runner.sweep_spec import SPLIT_SEEDS, parse_seeds

ENVS = [spec.id for spec in list_envs()]
SEED = 3
HIDDEN_SEED = 7364519028  # distinctive: a whole-number match of it in what the model read is a leak
HORIZON = 2
UNKNOWN_TOOL = "zz_no_such_tool"

Message = dict[str, Any]
Script = Callable[[list[Message]], Message]


def tool_call(name: str, arguments: str = "{}") -> Message:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call", "type": "function", "function": {"name": name, "arguments": arguments}}],
    }


def say(text: str) -> Message:
    return {"role": "assistant", "content": text}


def refuse_once_per_turn(messages: list[Message]) -> Message:
    """Each turn: a call of a tool that does not exist, then a reply without a call (the turn ends)."""
    return tool_call(UNKNOWN_TOOL) if messages[-1]["role"] == "user" else say("Nothing more today.")


def always_calling(messages: list[Message]) -> Message:
    return tool_call(UNKNOWN_TOOL)


def never_calling(messages: list[Message]) -> Message:
    return say("I wait.")


class ScriptedModel:
    """A chat-completions endpoint on 127.0.0.1 whose replies come from ``script(messages)``; it keeps
    every request it received (what the model read). Served from its own thread, so a rollout in this
    process and a ``vf-eval`` subprocess reach it alike."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self.port = 0

    async def _chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        message = self.script(body["messages"])
        return web.json_response(
            {
                "id": f"reply-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
            }
        )

    def _serve(self) -> None:
        async def start() -> web.AppRunner:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            runner = web.AppRunner(app)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            self.port = runner.addresses[0][1]
            return runner

        runner = self._loop.run_until_complete(start())
        self._started.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())

    def __enter__(self) -> ScriptedModel:
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        self._started.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def context(self) -> vf.ModelContext:
        return vf.ModelContext(
            model="scripted", client=vf.EvalClientConfig(base_url=self.base_url, api_key_var="SCRIPTED_KEY")
        )

    def tool_messages(self) -> list[str]:
        """Every tool answer the model read, once each (later requests repeat the conversation)."""
        return [m["content"] for m in self.requests[-1]["messages"] if m["role"] == "tool"] if self.requests else []


@pytest.fixture
def scripted() -> Iterator[Callable[[Script], ScriptedModel]]:
    models: list[ScriptedModel] = []

    def start(script: Script) -> ScriptedModel:
        models.append(ScriptedModel(script).__enter__())
        return models[-1]

    yield start
    for model in models:
        model.__exit__()


def play(env: vf.Env, model: ScriptedModel, seed_index: int = 0) -> vf.Trace:
    """One rollout of the taskset's ``seed_index``-th task, through the env's own episode runner."""

    async def main() -> vf.Episode:
        task = list(env.taskset)[seed_index]
        async with env.serving():
            return await env.run_episode(task, model.context())

    episode = asyncio.run(main())
    assert episode.ok, episode.errors
    [trace] = episode.traces
    return trace


def result_of(trace: vf.Trace) -> dict[str, Any]:
    return json.loads((Path(trace.info["bizbench_run"]) / "result.json").read_text())


# ---------------------------------------------------------------------------- loading
@pytest.mark.parametrize("env_id", ENVS)
def test_every_registered_env_loads_as_one_task_per_seed_of_the_split(env_id: str) -> None:
    env = load_environment(env_id, seeds=[1, 2], horizon=HORIZON)
    assert isinstance(env, BizbenchEnv)
    assert [(t.data.env, t.data.seed, t.data.split, t.data.horizon) for t in env.taskset] == [
        (env_id, 1, "dev", HORIZON),
        (env_id, 2, "dev", HORIZON),
    ]
    assert [t.data.seed for t in load_environment(env_id).taskset] == parse_seeds(SPLIT_SEEDS["dev"])


def test_verifiers_own_loader_finds_the_plugin_by_its_id() -> None:
    config = vf.resolve_env_config({"taskset": {"id": "bizbench_verifiers", "env": ENVS[0], "seeds": [5]}})
    env = vf.load_environment(config)
    assert isinstance(env, BizbenchEnv) and [t.data.seed for t in env.taskset] == [5]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"env": "zz_no_such_env"}, "unknown env 'zz_no_such_env'"),
        ({"env": ENVS[0], "preset": "zz_no_such_preset"}, "no preset 'zz_no_such_preset'"),
        ({"env": ENVS[0], "horizon": 0}, "horizon"),
        ({"env": ENVS[0], "seeds": [-1]}, "seeds"),
        ({"env": ENVS[0], "split": "train"}, "split"),
    ],
)
def test_bad_options_are_an_error_naming_the_problem(options: dict[str, Any], named: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=named):
        load_environment(**options)


def test_the_test_split_is_refused_without_the_secret_and_plays_held_out_worlds_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BIZBENCH_SEED_SECRET", raising=False)
    with pytest.raises(ValueError, match="BIZBENCH_SEED_SECRET"):
        list(load_environment(ENVS[0], "test").taskset)
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "a secret of the benchmark")
    assert [t.data.split for t in load_environment(ENVS[0], "test", seeds=[1]).taskset] == ["test"]


# ---------------------------------------------------------------------------- rollouts
@pytest.mark.parametrize("env_id", ENVS)
def test_every_registered_env_plays_a_recorded_rollout_whose_reward_is_the_episode_score(
    env_id: str, tmp_path: Path, scripted: Callable[[Script], ScriptedModel]
) -> None:
    model = scripted(refuse_once_per_turn)
    trace = play(load_environment(env_id, seeds=[HIDDEN_SEED], horizon=HORIZON, out=tmp_path), model)

    result = result_of(trace)
    assert result["completed"] and result["interface"] == "verifiers" and result["agent"] == "scripted"
    assert trace.stop_condition == WORLD_ENDED
    assert trace.reward == trace.rewards["env_score"].score == headline_score(result)
    assert trace.metrics["bankrupt"] == float(result["bankrupt"])
    assert replay_run(Path(trace.info["bizbench_run"])).ok

    fresh = ToolEpisode(env_id, HIDDEN_SEED, horizon=HORIZON, interface="verifiers")
    first = model.requests[0]
    assert first["tools"] == fresh.registry.openai_tools()  # the env's registry, every tool
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["messages"][0]["content"] == fresh.system_prompt()
    assert first["messages"][1]["content"] == fresh.observation_text()
    seen = [(f"request {i}", json.dumps(r["messages"])) for i, r in enumerate(model.requests)]
    hidden_values = getattr(fresh.env, "hidden_values", list)
    assert find_hidden([HIDDEN_SEED, *hidden_values()], seen) == []


def test_a_bankrupt_company_is_rewarded_zero_not_its_cash(
    tmp_path: Path, scripted: Callable[[Script], ScriptedModel]
) -> None:
    # the stand pays its rent every day and sells nothing while nobody buys lemons (docs/envs.md)
    trace = play(load_environment("lemonade", seeds=[SEED], out=tmp_path), scripted(never_calling))
    result = result_of(trace)
    assert result["bankrupt"] and result["final_cash"] < 0 and result["score"] < 0
    assert trace.reward == headline_score(result) == 0.0
    assert trace.metrics["bankrupt"] == 1.0


def test_a_refused_call_is_an_error_tool_message_that_changes_nothing(
    tmp_path: Path, scripted: Callable[[Script], ScriptedModel]
) -> None:
    env_id = ENVS[0]
    first_tool = ToolEpisode(env_id, SEED).tools()[0].name

    calls = [tool_call(UNKNOWN_TOOL), tool_call(first_tool, "{not json"), tool_call(first_tool, '{"zz_arg": 1}')]

    def refusals(messages: list[Message]) -> Message:
        answered = sum(m["role"] == "tool" for m in messages)
        return calls[answered] if answered < len(calls) else say("Done.")

    refused = scripted(refusals)
    trace = play(load_environment(env_id, seeds=[SEED], horizon=HORIZON, out=tmp_path / "refused"), refused)
    unknown, not_json, bad_argument = refused.tool_messages()
    assert unknown.startswith("Error: ") and UNKNOWN_TOOL in unknown
    assert not_json.startswith("Error: ") and "must be an object" in not_json  # the registry's words
    assert bad_argument.startswith("Error: ") and "zz_arg" in bad_argument
    assert trace.ok and trace.errors == []
    actions = [
        json.loads(line) for line in (Path(trace.info["bizbench_run"]) / "actions.jsonl").read_text().splitlines()
    ]
    assert [a["ok"] for a in actions[:3]] == [False, False, False]

    silent = play(load_environment(env_id, seeds=[SEED], horizon=HORIZON), scripted(never_calling))
    assert trace.info["state_digest"] == silent.info["state_digest"]  # three refusals changed nothing


def test_a_reply_whose_tool_ended_the_turn_is_not_followed_by_a_second_turn_end(
    tmp_path: Path, scripted: Callable[[Script], ScriptedModel]
) -> None:
    def end_day_then_stop(messages: list[Message]) -> Message:
        return tool_call("end_day") if messages[-1]["role"] == "user" else say("Closed for today.")

    trace = play(load_environment("lemonade", seeds=[SEED], horizon=HORIZON, out=tmp_path), scripted(end_day_then_stop))
    actions = (Path(trace.info["bizbench_run"]) / "actions.jsonl").read_text().splitlines()
    assert [json.loads(a)["tool"] for a in actions] == ["end_day"] * HORIZON
    assert trace.num_turns == 2 * HORIZON - 1 and trace.stop_condition == WORLD_ENDED  # no reply after the last end_day


def test_the_same_seed_and_replies_give_the_same_world_and_another_seed_another(
    scripted: Callable[[Script], ScriptedModel],
) -> None:
    env = load_environment(ENVS[0], seeds=[SEED, SEED + 1], horizon=HORIZON)
    digests = [play(env, scripted(refuse_once_per_turn), seed_index).info["state_digest"] for seed_index in (0, 0, 1)]
    assert digests[0] == digests[1] != digests[2]


def test_max_turns_ends_a_rollout_whose_model_never_stops_calling_tools(
    tmp_path: Path, scripted: Callable[[Script], ScriptedModel]
) -> None:
    model = scripted(always_calling)
    trace = play(load_environment(ENVS[0], seeds=[SEED], horizon=HORIZON, max_turns=3, out=tmp_path), model)
    assert trace.stop_condition == "max_turns" and trace.num_turns == 3 and len(model.requests) == 3
    result = result_of(trace)
    assert result["ended_by"] == "max_turns" and not result["completed"]
    assert trace.reward == 0.0  # cut short: worth 0, as the report counts it (stalling never beats playing)
    assert result["tokens"] == {"input_tokens": trace.num_input_tokens, "output_tokens": trace.num_output_tokens}
    report = build_report([trace.info["bizbench_run"]], tmp_path / "report", None, anchors=False, make_plots=False)
    assert [m.metrics["ended_early"] for m in report.measured] == [1.0]


# ---------------------------------------------------------------------------- vf-eval
def test_vf_eval_finds_the_plugin_by_its_id_and_each_rollout_is_a_run_directory_that_replays_and_reports(
    tmp_path: Path, scripted: Callable[[Script], ScriptedModel]
) -> None:
    model = scripted(refuse_once_per_turn)
    runs, out = tmp_path / "runs", tmp_path / "vf"
    options = ["--env.taskset.env", ENVS[0], "--env.taskset.seeds", "[1, 2]", "--env.taskset.horizon", str(HORIZON)]
    options += ["--env.taskset.task.out", str(runs), "-m", "scripted", "--client.base-url", model.base_url]
    options += ["--client.api-key-var", "SCRIPTED_KEY", "--no-push", "--no-rich", "-o", str(out), "--run.name", "smoke"]
    vf_eval = str(Path(sys.executable).parent / "vf-eval")  # verifiers' own command, in a fresh process
    done = subprocess.run([vf_eval, "bizbench_verifiers", *options], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]

    episodes = [json.loads(line) for line in (out / "smoke" / "traces.jsonl").read_text().splitlines()]
    traces = [trace for episode in episodes for trace in episode["traces"]]
    assert sorted(t["task"]["data"]["seed"] for t in traces) == [1, 2]
    for trace in traces:
        run = Path(trace["info"]["bizbench_run"])
        assert trace["rewards"]["env_score"]["score"] == headline_score(json.loads((run / "result.json").read_text()))
        assert replay_run(run).ok
    report = build_report(sorted(runs.iterdir()), tmp_path / "report", None, anchors=False, make_plots=False)
    assert len(report.measured) == 2
