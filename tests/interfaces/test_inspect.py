"""The inspect-ai door (bizbench/interfaces/inspect.py, docs/interfaces.md), through inspect's own
``eval`` and its ``inspect`` command, with its mock model: every registered env is a task
``bizbench/<task>`` that a model plays over the env's tools, scored by the run's headline score,
recorded as a normal run directory that replay verifies and the report scores alike."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall, ToolError, ToolInfo

import bizbench
from bizbench.core.envs import get_env, list_envs
from bizbench.core.runs import load_run
from bizbench.interfaces.episode import ToolEpisode
from bizbench.interfaces.inspect import ENDING_A_TURN, TASKS, inspect_tools
from bizbench.report.protocol import score as report_score
from bizbench.runner.replay import replay_run

ENV_IDS = [spec.id for spec in list_envs()]
SEED = 97531357  # long enough that finding it in a message would not be chance
HORIZON = 2
UNKNOWN_TOOL = "no_such_tool"


@pytest.fixture(scope="module", autouse=True)
def hermetic_inspect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """inspect's data (traces, sample buffers) and default log dir go to a temporary directory."""
    home = tmp_path_factory.mktemp("inspect-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(home / "data"))
        patch.setenv("INSPECT_LOG_DIR", str(home / "logs"))
        yield


def read_tool(episode: ToolEpisode) -> str:
    """A tool that changes nothing and needs no argument."""
    return next(t.name for t in episode.tools() if not t.mutates and not t.input_schema.get("required"))


def tool_with_arguments(episode: ToolEpisode) -> str:
    """A tool that needs an argument (called without one, the env refuses it)."""
    return next(t.name for t in episode.tools() if t.input_schema.get("required"))


def reply(text: str = "", calls: list[ToolCall] | None = None) -> ModelOutput:
    """A model reply with its token usage set (inspect's mock model otherwise counts tokens with
    tiktoken, whose vocabulary is a download)."""
    message = ChatMessageAssistant(content=text, tool_calls=calls or None, model="mockllm")
    return ModelOutput(
        model="mockllm",
        choices=[ChatCompletionChoice(message=message, stop_reason="tool_calls" if calls else "stop")],
        usage=ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15),
    )


@dataclass
class ScriptedModel:
    """Replies with ``first`` tool calls, then without any; keeps what the model was shown."""

    first: list[tuple[str, dict[str, Any]]]
    seen: list[list[ChatMessage]]
    tools: list[ToolInfo]

    parse_error: str | None = None  # the model wrote its first call's arguments as unreadable JSON

    def __call__(self, messages: list[ChatMessage], tools: list[ToolInfo], *_: Any) -> ModelOutput:
        self.seen.append(list(messages))
        self.tools = tools
        if len(self.seen) == 1 and self.first:
            calls = [ToolCall(id=f"c{i}", function=n, arguments=a) for i, (n, a) in enumerate(self.first)]
            calls[0].parse_error = self.parse_error
            return reply(calls=calls)
        return reply("I have nothing more to do this turn.")


def scripted(calls: list[tuple[str, dict[str, Any]]], parse_error: str | None = None) -> tuple[ScriptedModel, Any]:
    model = ScriptedModel(calls, [], [], parse_error)
    return model, get_model("mockllm/model", custom_outputs=model)


def run_task(env_id: str, model: Any, log_dir: Path, **task_args: Any) -> EvalLog:
    task_name = f"bizbench/{get_env(env_id).task_name}"
    args = {"seed": SEED, "horizon": HORIZON, **task_args}
    (log,) = inspect_eval(task_name, model=model, task_args=args, log_dir=str(log_dir), display="none")
    return log


@dataclass
class Played:
    """One env's task played by the scripted model, and the same calls made by hand."""

    env_id: str
    log: EvalLog
    model: ScriptedModel
    out: Path
    calls: list[tuple[str, dict[str, Any]]]
    by_hand: ToolEpisode


@pytest.fixture(scope="module", params=ENV_IDS)
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Played:
    env_id = request.param
    by_hand = ToolEpisode(env_id, SEED, horizon=HORIZON)
    calls = [(read_tool(by_hand), {}), (UNKNOWN_TOOL, {}), (tool_with_arguments(by_hand), {})]
    for name, args in calls:
        by_hand.call(name, args)
    while not by_hand.finished:
        by_hand.advance()
    model, inspect_model = scripted(calls)
    out = tmp_path_factory.mktemp(f"runs-{env_id}")
    log = run_task(env_id, inspect_model, tmp_path_factory.mktemp("logs"), out=str(out))
    return Played(env_id, log, model, out, calls, by_hand)


def only_sample(log: EvalLog) -> Any:
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


# ---------------------------------------------------------------------------------- the tasks
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_registered_env_is_a_task_named_by_its_spec_with_one_sample_per_seed(env_id: str) -> None:
    spec = get_env(env_id)
    task = TASKS[spec.task_name](seeds="1-3", horizon=HORIZON)
    assert task.name == spec.task_name
    assert [sample.id for sample in task.dataset] == [1, 2, 3]
    assert len(TASKS[spec.task_name]().dataset) == 20  # the split's seeds (docs/sweeps.md)


def test_a_model_that_calls_tools_plays_the_episode_to_its_horizon_and_is_scored_by_it(played: Played) -> None:
    sample = only_sample(played.log)
    score = sample.scores["episode_score"]
    assert score.value == played.by_hand.score()
    assert score.metadata["completed"] is True and score.metadata["ended_by"] == "completed"
    assert score.metadata["state_digest"] == played.by_hand.state_digest()  # same seed, same actions, same world


def test_the_model_sees_the_envs_prompt_and_its_registry_tools_with_their_schemas(played: Played) -> None:
    registry = {t.name: t for t in played.by_hand.tools()}
    assert [t.name for t in played.model.tools] == list(registry)
    for info in played.model.tools:
        assert info.description == registry[info.name].description
        assert set(info.parameters.properties) == set(registry[info.name].input_schema["properties"])
        assert "$ref" not in info.parameters.model_dump_json()
    system, first_observation = played.model.seen[0][:2]
    fresh = ToolEpisode(played.env_id, SEED, horizon=HORIZON, interface="inspect")
    assert system.role == "system" and system.text.startswith(fresh.system_prompt().rstrip("\n"))
    assert system.text.endswith(ENDING_A_TURN)  # how a reply without a tool call ends the turn
    assert first_observation.text == fresh.observation_text()


def test_a_refused_call_is_an_error_tool_message_with_the_envs_message_not_an_eval_error(played: Played) -> None:
    answers = [m for m in only_sample(played.log).messages if isinstance(m, ChatMessageTool)]
    assert [m.function for m in answers] == [name for name, _ in played.calls]
    accepted, unknown, missing = answers
    assert accepted.error is None
    fresh = ToolEpisode(played.env_id, SEED, horizon=HORIZON)
    for message, (name, args) in zip([unknown, missing], played.calls[1:], strict=True):
        assert message.error is not None
        assert message.error.message == fresh.call(name, args).error


def test_a_reply_without_a_tool_call_ends_the_turn_and_shows_the_next_observation(played: Played) -> None:
    messages = only_sample(played.log).messages
    plain_replies = [i for i, m in enumerate(messages) if isinstance(m, ChatMessageAssistant) and not m.tool_calls]
    turns = played.by_hand.env.turn
    assert len(plain_replies) == turns  # one turn ended per reply without a tool call, to the horizon
    for i in plain_replies[:-1]:
        assert isinstance(messages[i + 1], ChatMessageUser)  # the next turn's observation
    assert plain_replies[-1] == len(messages) - 1  # the world ended: nothing follows the last reply


def test_the_model_never_sees_the_seed(played: Played) -> None:
    shown = [m.text for messages in played.model.seen for m in messages]
    shown += [info.model_dump_json() for info in played.model.tools]
    assert not any(str(SEED) in text for text in shown)


def test_each_sample_records_a_run_directory_that_replay_verifies_and_the_report_scores_alike(played: Played) -> None:
    sample = only_sample(played.log)
    run_dir = Path(sample.scores["episode_score"].metadata["run_dir"])
    assert run_dir.parent == played.out
    config = json.loads((run_dir / "config.json").read_text())
    assert (config["interface"], config["agent"], config["seed"]) == ("inspect", "mockllm/model", SEED)
    actions = [json.loads(line) for line in (run_dir / "actions.jsonl").read_text().splitlines()]
    assert [(a["tool"], a["ok"]) for a in actions[:3]] == [
        (played.calls[0][0], True),
        (UNKNOWN_TOOL, False),
        (played.calls[2][0], False),
    ]
    assert replay_run(run_dir).ok
    assert report_score(load_run(run_dir)) == sample.scores["episode_score"].value


def test_a_call_with_unreadable_arguments_is_answered_with_the_parse_error_and_not_sent(tmp_path: Path) -> None:
    env_id = ENV_IDS[0]
    episode = ToolEpisode(env_id, SEED, horizon=HORIZON)
    _, model = scripted([(read_tool(episode), {})], parse_error="Expecting value: line 1 column 2")
    sample = only_sample(run_task(env_id, model, tmp_path))
    (answer,) = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert answer.error is not None and answer.error.type == "parsing"
    assert answer.error.message == "Expecting value: line 1 column 2"
    assert sample.scores["episode_score"].metadata["tool_calls"] == 0


# ---------------------------------------------------------------------------------- limits and arguments
def test_max_steps_cuts_a_sample_short_and_it_scores_zero_as_a_run_ended_early(tmp_path: Path) -> None:
    env_id = ENV_IDS[0]
    episode = ToolEpisode(env_id, SEED, horizon=HORIZON)
    _, model = scripted([(read_tool(episode), {})])
    sample = only_sample(run_task(env_id, model, tmp_path, max_steps=1))
    score = sample.scores["episode_score"]
    assert (score.value, score.metadata["ended_by"], score.metadata["completed"]) == (0.0, "max_steps", False)


def test_inspects_message_limit_ends_the_sample_and_the_run_records_it(tmp_path: Path) -> None:
    env_id = ENV_IDS[0]
    _, model = scripted([])  # replies without tool calls: system, observation, reply, the next observation ...
    sample = only_sample(run_task(env_id, model, tmp_path, horizon=30, message_limit=3, out=str(tmp_path / "runs")))
    assert sample.limit is not None and sample.limit.type == "message"
    score = sample.scores["episode_score"]
    assert (score.value, score.metadata["ended_by"]) == (0.0, "message_limit")
    assert json.loads((Path(score.metadata["run_dir"]) / "result.json").read_text())["ended_by"] == "message_limit"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"seed": 1, "seeds": [1, 2]}, "seed or seeds"),
        ({"seeds": "1-x"}, "seeds"),
        ({"horizon": 0}, "horizon"),
        ({"preset": "no-such-preset"}, "no-such-preset"),
        ({"split": "prod"}, "split"),
        ({"split": "test"}, "BIZBENCH_SEED_SECRET"),
        ({"max_steps": 0}, "max_steps"),
        ({"max_steps": "x"}, "max_steps"),
        ({"message_limit": -1}, "message_limit"),
    ],
)
def test_a_bad_task_argument_is_a_clear_error_naming_it(
    args: dict[str, Any], named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIZBENCH_SEED_SECRET", raising=False)
    with pytest.raises(ValueError, match=named):
        TASKS[get_env(ENV_IDS[0]).task_name](**args)


def test_the_inspect_tools_call_the_env_and_a_refused_call_raises_the_envs_message() -> None:
    episode = ToolEpisode(ENV_IDS[0], SEED, horizon=HORIZON)
    tools = {t.name: t for t in episode.tools()}
    inspect_tool = dict(zip(tools, inspect_tools(episode), strict=True))
    twin = ToolEpisode(ENV_IDS[0], SEED, horizon=HORIZON)
    assert asyncio.run(inspect_tool[read_tool(episode)]()) == twin.call(read_tool(twin)).text
    before = episode.state_digest()
    with pytest.raises(ToolError) as refused:
        asyncio.run(inspect_tool[tool_with_arguments(episode)]())
    assert str(refused.value) == twin.call(tool_with_arguments(twin)).error
    assert episode.state_digest() == before


# ---------------------------------------------------------------------------------- the command line
OFFLINE_TOKENS = '''"""inspect's mock model counts tokens with tiktoken, whose vocabulary is a download: offline,
an estimate of four characters a token stands in for it."""
import tiktoken


class _Estimate:
    def encode(self, text, **_):
        return range(len(text) // 4 + 1)


tiktoken.get_encoding = lambda name: _Estimate()
'''


def test_inspect_eval_on_the_command_line_runs_enterprise_arena_and_logs_the_runs_score(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(OFFLINE_TOKENS)
    source = str(Path(bizbench.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "home" / "data"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), source, os.environ.get("PYTHONPATH", "")]),
    }
    inspect_command = Path(sys.executable).parent / "inspect"
    command = [str(inspect_command), "eval", "bizbench/enterprise_arena", "--model", "mockllm/model"]
    command += ["-T", f"horizon={HORIZON}", "-T", "seeds=[1, 2]", "-T", f"out={tmp_path / 'runs'}"]
    command += ["--log-dir", str(tmp_path / "logs"), "--display", "none"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    (log_file,) = (tmp_path / "logs").iterdir()
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.eval.task_registry_name == "bizbench/enterprise_arena"
    assert log.samples is not None and [s.id for s in log.samples] == [1, 2]
    for sample in log.samples:
        run = load_run(sample.scores["episode_score"].metadata["run_dir"])
        assert run.finished and sample.scores["episode_score"].value == report_score(run) > 0
