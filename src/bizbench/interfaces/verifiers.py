"""Every registered env as a verifiers environment, for ``vf-eval`` and prime-rl (docs/interfaces.md).

verifiers 0.4 composes an environment (``verifiers.v1``) from a *taskset* (the rows), a
*harness* (the program the model runs in) and an *Env* (how one task becomes one episode),
each found by a plug-in id that names a top-level module exporting the class in ``__all__``.
This module is that plug-in, under the id :data:`PLUGIN_ID`, and
:func:`load_environment` builds it for one env:

- **Rows.** :class:`BizbenchTaskset` yields one task per seed of the split (docs/sweeps.md):
  ``dev`` the public worlds, ``test`` the held-out worlds of ``$BIZBENCH_SEED_SECRET``;
  the seeds default to ``runner.sweep_spec.SPLIT_SEEDS``.
- **One world per rollout.** :class:`BizbenchEnv` opens a fresh
  :class:`~bizbench.interfaces.episode.ToolEpisode` for every rollout (a normal run
  directory under ``out`` when given one), sends the env's observation as the user turn,
  and, each time the model ends its reply without a tool call, ends the env's turn the
  env's default way (``advance``) unless a tool of the reply ended it, and sends the next
  observation. The rollout ends when
  the world does (its horizon, or bankruptcy) or when the model's turns run out
  (``max_turns``, verifiers' own limit).
- **Tools.** :class:`ToolLoopHarness` runs the chat-completions tool loop in process (as
  ``verifiers.v1.Harness.launch`` allows): its model calls go through the rollout's
  interception endpoint, so verifiers records every turn on the trace; the tools are the
  env's registry (``openai_tools``: no hand-written list, docs/principles.md principle 1);
  a refused call is an ``Error: ...`` tool message with the env's words (principle 8).
- **Reward.** :meth:`BizbenchTask.env_score` is the episode's score when the rollout ends:
  the headline score of docs/reports.md once the world has ended (0 for a bankrupt
  company), the env's score if the turns ran out first.

Nothing the model reads holds the seed, the config or the secret: the system prompt, the
observations and the answers all come from the episode (principle 3). The seed is on the
trace's task data and in the run directory, which are the researcher's record.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from openai import APIError, AsyncOpenAI
from openai.types.chat import ChatCompletionMessageToolCallUnion
from pydantic import ConfigDict, NonNegativeInt, PositiveInt, model_validator
from verifiers.v1.dialects.chat import message_to_wire

from bizbench.core.envs import get_env, list_envs
from bizbench.core.rng import secret_for_split
from bizbench.core.runlog import FAILED_SCORE
from bizbench.interfaces.episode import Split, ToolEpisode
from bizbench.runner.sweep_spec import SPLIT_SEEDS, parse_seeds

__all__ = ["PLUGIN_ID", "BizbenchEnv", "BizbenchTaskset", "ToolLoopHarness", "load_environment"]

#: The verifiers plug-in id of this module's taskset, env and harness: verifiers resolves an id to
#: a top-level module, and the package ``bizbench_verifiers`` re-exports them.
PLUGIN_ID = "bizbench_verifiers"

#: What ``interface`` config.json records for a rollout's run.
INTERFACE = "verifiers"

#: The trace's stop condition when the world ended (its horizon, or bankruptcy).
WORLD_ENDED = "world_ended"


class BizbenchTaskConfig(vf.TaskConfig):
    """What every rollout of the taskset shares (``--env.taskset.task.*``)."""

    out: Path | None = None
    """A directory under which each rollout writes its run directory (None: nothing written)."""


class BizbenchData(vf.TaskData):
    """One row: the world a rollout plays (the seed never reaches the model)."""

    env: str
    seed: NonNegativeInt
    split: Split
    preset: str | None = None
    horizon: PositiveInt | None = None


class BizbenchState(vf.State):
    """The rollout's live episode, shared by the env's loop, the harness and the reward."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    episode: ToolEpisode | None = None


class BizbenchTask(vf.Task[BizbenchData, BizbenchState, BizbenchTaskConfig]):
    """One seed's world; :meth:`for_episode` binds a rollout's copy to its episode."""

    episode: ToolEpisode | None = None

    def open_episode(self, model: str) -> ToolEpisode:
        """A fresh recorded episode of this row's world, played by ``model``."""
        data, root = self.data, self.config.out
        run_dir = None if root is None else root / f"{data.env}-{data.split}-seed{data.seed}-{uuid.uuid4().hex[:8]}"
        return ToolEpisode(
            data.env,
            data.seed,
            preset=data.preset,
            horizon=data.horizon,
            split=data.split,
            out=run_dir,
            agent=model,
            interface=INTERFACE,
        )

    def for_episode(self, episode: ToolEpisode) -> BizbenchTask:
        """This task for one rollout of ``episode``: its system prompt is the env's (unless the
        taskset's ``system_prompt`` file replaced it)."""
        rollout = self.with_data(**({} if self.data.system_prompt else {"system_prompt": episode.system_prompt()}))
        rollout.episode = episode
        return rollout

    async def setup(self, trace: vf.Trace, runtime: vf.Runtime) -> None:
        trace.state.episode = self.episode

    @vf.reward
    async def env_score(self) -> float:
        """The episode's score (docs/interfaces.md), scored when the rollout has ended: 0 for a
        bankrupt company, and 0 when the rollout ended before the world did (``max_turns``, an
        error), as the report counts that run."""
        assert self.episode is not None
        return self.episode.score() if self.episode.finished else FAILED_SCORE

    @vf.metric
    async def world(self) -> dict[str, float]:
        """Where the world stands when the rollout ends."""
        assert self.episode is not None
        env = self.episode.env
        return {"bankrupt": float(env.bankrupt), "elapsed": float(env.elapsed), "horizon": float(env.horizon)}


def _env_ids() -> list[str]:
    return [spec.id for spec in list_envs()]


class BizbenchConfig(vf.TasksetConfig):
    """Which worlds (``--env.taskset.*``)."""

    env: str | None = None
    """The env id (``bizbench envs`` lists them); required."""
    split: Split = "dev"
    seeds: list[NonNegativeInt] | None = None
    """The seeds, one task each (None: the split's reported seeds)."""
    preset: str | None = None
    horizon: PositiveInt | None = None
    """The horizon in the env's unit (None: the preset's)."""
    task: BizbenchTaskConfig = BizbenchTaskConfig()

    @model_validator(mode="after")
    def _known_env_and_preset(self) -> BizbenchConfig:
        if self.env is None:
            return self
        if self.env not in _env_ids():
            raise ValueError(f"env: unknown env {self.env!r}; registered: {', '.join(_env_ids())}")
        presets = get_env(self.env).presets()
        if self.preset is not None and self.preset not in presets:
            raise ValueError(f"preset: {self.env} has no preset {self.preset!r}; its presets: {', '.join(presets)}")
        return self


class BizbenchTaskset(vf.Taskset[BizbenchTask, BizbenchConfig]):
    """One task per seed of the split."""

    def load(self) -> list[BizbenchTask]:
        config = self.config
        if config.env is None:
            raise ValueError(f"env: name the env to play (--env.taskset.env); registered: {', '.join(_env_ids())}")
        secret_for_split(config.split)  # the test split is refused here, before any rollout, without its secret
        seeds = config.seeds if config.seeds is not None else parse_seeds(SPLIT_SEEDS[config.split])
        return [
            BizbenchTask(
                BizbenchData(
                    name=f"{config.env}/{config.split}/{seed}",
                    env=config.env,
                    seed=seed,
                    split=config.split,
                    preset=config.preset,
                    horizon=config.horizon,
                ),
                config.task,
            )
            for seed in seeds
        ]


class BizbenchEnvConfig(vf.EnvConfig):
    """The one seat, ``--env.agent.*``: the model under evaluation. The tool loop runs in this
    process, so the seat's runtime defaults to a local subprocess box (no sandbox needed)."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())


class BizbenchEnv(vf.Env[BizbenchEnvConfig]):
    """One rollout per episode; the env is the model's user (see the module docstring)."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        assert isinstance(task, BizbenchTask)
        agent = agents.agent
        episode = task.open_episode(model=str(agent.config.model))
        trace: vf.Trace | None = None
        try:
            async with agent.interaction(task.for_episode(episode)) as interaction:
                trace = interaction.trace
                if episode.session.run is not None:
                    trace.info["bizbench_run"] = str(episode.session.run.path.resolve())
                turn = episode.turn
                segment = await interaction.turn(episode.observation_text())
                while not (segment.terminated or _stopped(trace) or episode.finished):
                    if episode.turn == turn:  # no tool of the reply ended the turn (the stand's end_day)
                        episode.advance()
                    if episode.finished:
                        break
                    turn = episode.turn
                    segment = await interaction.turn(episode.observation_text())
                if episode.terminated:
                    trace.stop(WORLD_ENDED)
                trace.info["state_digest"] = episode.state_digest()
        finally:
            episode.finish(_ended_by(episode, trace), meter=_meter(trace))


def _stopped(trace: vf.Trace) -> bool:
    """Whether the exchange is over though its last segment answered (a limit such as
    ``max_turns`` reached, or a failure): the env's turn is then not advanced."""
    return trace.stop_condition is not None or bool(trace.errors)


def _meter(trace: vf.Trace | None) -> dict[str, Any] | None:
    """result.json's ``tokens``, as the trace counted them (the price of a model is not known here)."""
    if trace is None:
        return None
    return {"tokens": {"input_tokens": trace.num_input_tokens, "output_tokens": trace.num_output_tokens}}


def _ended_by(episode: ToolEpisode, trace: vf.Trace | None) -> str | None:
    """result.json's ``ended_by``: the world's own end (None), else what stopped the rollout."""
    if episode.terminated:
        return None
    if trace is None or not trace.ok:
        return "harness_error"
    return trace.stop_condition or "incomplete"


class ToolLoopHarness(vf.Harness[vf.HarnessConfig]):
    """The model calls the env's tools until it replies without one (one segment).

    In process: a segment is relaunched on the conversation the trace holds
    (``SUPPORTS_RESUME``), and every model call goes through the rollout's endpoint."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> vf.ProgramResult:
        episode = trace.state.episode
        assert isinstance(episode, ToolEpisode), "a bizbench rollout's state holds its episode"
        system, prompt = self.resolve_prompt(data)
        messages: list[Any] = [{"role": "system", "content": system}] if system else []
        messages += (
            [{"role": "user", "content": prompt}] if isinstance(prompt, str) else map(message_to_wire, prompt or [])
        )
        tools = episode.registry.openai_tools()
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as model:
            while not episode.finished:
                try:
                    completion = await model.chat.completions.create(model=ctx.model, messages=messages, tools=tools)
                except APIError as error:  # a limit reached (max_turns) or the model failing
                    return vf.ProgramResult(exit_code=1, stdout="", stderr=str(error))
                reply = completion.choices[0].message
                messages.append(reply.model_dump(exclude_none=True))
                if not reply.tool_calls:
                    break
                for call in reply.tool_calls:
                    answer = episode.call(*_called(call))
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": answer.text})
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


def _called(call: ChatCompletionMessageToolCallUnion) -> tuple[str, Any]:
    """A tool call's name and its arguments as the env's registry takes them: the JSON value, or
    the text itself when it is not JSON (the registry refuses it with its own message)."""
    name, arguments = (
        (call.function.name, call.function.arguments)
        if call.type == "function"
        else (call.custom.name, call.custom.input)
    )
    try:
        return name, json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return name, arguments


def load_environment(
    env: str,
    split: Split = "dev",
    *,
    seeds: Sequence[int] | None = None,
    preset: str | None = None,
    horizon: int | None = None,
    max_turns: int | None = None,
    out: Path | str | None = None,
) -> vf.Env:
    """The verifiers environment of ``env``: one task per seed of ``split`` (default: the
    split's reported seeds), worlds of ``preset`` cut at ``horizon``, at most ``max_turns``
    model turns per rollout (None: until the world ends), each rollout a run directory under
    ``out`` (None: nothing written). Bad arguments raise a ``pydantic.ValidationError`` naming
    the field."""
    taskset: dict[str, Any] = {
        "id": PLUGIN_ID,
        "env": env,
        "split": split,
        "preset": preset,
        "horizon": horizon,
        "task": {"out": out},
    }
    if seeds is not None:
        taskset["seeds"] = list(seeds)
    config = vf.resolve_env_config({"taskset": taskset, "agent": {"max_turns": max_turns}})
    return vf.load_environment(config)
