"""inspect-ai tasks for every registered env: ``bizbench/<task>`` (docs/interfaces.md).

One task per env of the registry, named by its :attr:`~bizbench.core.env.EnvSpec.task_name`
(``bizbench/ceo_bench``, ``bizbench/yc_bench``, ``bizbench/enterprise_arena``; a plug-in env
``bizbench/<id>``), registered when inspect loads this module through the ``inspect_ai`` entry
point. A task has one sample per seed (the benchmark's seeds of the split by default,
docs/sweeps.md). Its solver, :func:`play_episode`, plays one
:class:`~bizbench.interfaces.episode.ToolEpisode` with the model:

- the system message is the env's prompt (its paper's instructions) and the first user message
  the env's observation; the model sees the env's tools, built from its registry with their
  JSON Schemas (:func:`inspect_tools`);
- every tool call of a reply goes to the env; a refused call (an unknown tool, bad arguments, a
  rule of the world) is an error tool message carrying the env's message and changes nothing
  (docs/principles.md principle 8);
- a reply without a tool call ends the turn the env's default way (ceo: the week; yc:
  ``sim resume``; cfo: ``pass``), so every sample reaches the horizon or bankruptcy;
- whenever a turn ends the model is shown the new observation as a user message.

``max_steps`` (calls and turn ends) and inspect's ``message_limit`` cut a sample short; the
episode is then recorded as ended early. The scorer, :func:`episode_score`, gives the run's
headline score (docs/reports.md: 0 for a bankrupt company or a run cut short, never below 0)
with the result's key figures, the world's state digest and the run directory as metadata.
With ``out``, each sample writes a normal run directory (docs/run-format.md) that
``bizbench replay`` verifies and ``bizbench report`` reads.
"""

from __future__ import annotations

from inspect import signature
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageTool, ChatMessageUser
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolCall, ToolCallError, ToolDef, ToolError, ToolParams
from inspect_ai.util import LimitExceededError

from bizbench.core.envs import get_env, list_envs
from bizbench.core.runlog import ResultCore, headline_score
from bizbench.interfaces.episode import Split, ToolEpisode
from bizbench.runner.sweep_spec import SPLIT_SEEDS, parse_seeds

__all__ = ["FIGURES", "TASKS", "bizbench_task", "episode_score", "inspect_tools", "play_episode"]

INTERFACE = "inspect"

#: The store key under which :func:`play_episode` leaves the run's figures for :func:`episode_score`.
RESULT_KEY = "bizbench:result"

#: What the system message adds to the env's prompt: how this solver ends a turn.
ENDING_A_TURN = (
    "\n## Ending a turn\n"
    "A reply that calls no tool ends the current turn the env's default way, as if you took no further action; "
    "you are then shown the next observation.\n"
)

#: The result.json fields a score carries as metadata: the common core of every env (docs/run-format.md).
FIGURES = tuple(ResultCore.model_fields)


# ---------------------------------------------------------------------------------- tools
def inline_refs(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """``schema`` with each ``$ref`` to its ``$defs`` replaced by the definition: inspect's
    :class:`ToolParams` keeps no ``$defs`` (a pydantic model argument, ceo's forecasts)."""
    if defs is None and isinstance(schema, dict):
        defs = schema.get("$defs", {})
    if isinstance(schema, dict):
        if "$ref" in schema:
            return inline_refs(defs[schema["$ref"].rsplit("/", 1)[-1]] if defs else {}, defs)
        return {key: inline_refs(value, defs) for key, value in schema.items() if key != "$defs"}
    if isinstance(schema, list):
        return [inline_refs(item, defs) for item in schema]
    return schema


def inspect_tools(episode: ToolEpisode) -> list[Tool]:
    """The env's tools as inspect tools, from its registry: name, description, JSON Schema.
    Calling one calls the env; a refused call raises :class:`ToolError` with the env's message
    (inspect makes that an error tool message)."""

    def executor(name: str) -> Any:
        async def execute(**arguments: Any) -> str:
            answer = episode.call(name, arguments)
            if not answer.ok:
                raise ToolError(str(answer.error))
            return answer.text

        return execute

    return [
        ToolDef(
            executor(tool.name),
            name=tool.name,
            description=tool.description,
            parameters=ToolParams.model_validate(inline_refs(tool.input_schema)),
        ).as_tool()
        for tool in episode.tools()
    ]


def answer_message(episode: ToolEpisode, call: ToolCall) -> ChatMessageTool:
    """The tool message answering one tool call of a reply, the env's answer (or its error)."""
    if call.parse_error:
        error = ToolCallError("parsing", call.parse_error)
        return ChatMessageTool(
            content=f"Error: {call.parse_error}", tool_call_id=call.id, function=call.function, error=error
        )
    answer = episode.call(call.function, call.arguments)
    return ChatMessageTool(
        content=answer.text,
        tool_call_id=call.id,
        function=call.function,
        error=None if answer.ok else ToolCallError("unknown", str(answer.error)),
    )


# ---------------------------------------------------------------------------------- solver and scorer
def run_dir(out: str | Path | None, env_id: str, preset: str, split: str, seed: int, epoch: int) -> Path | None:
    """Where a sample records its run (docs/run-format.md), named as a sweep names its runs
    (docs/sweeps.md): ``<out>/<env>-<preset>-<split>-seed<seed>``, ``-r<epoch>`` after the first epoch."""
    if out is None:
        return None
    return Path(out) / (f"{env_id}-{preset}-{split}-seed{seed}" + (f"-r{epoch}" if epoch > 1 else ""))


@solver
def play_episode(
    env_id: str,
    preset: str | None = None,
    horizon: int | None = None,
    split: Split = "dev",
    out: str | None = None,
    max_steps: int | None = None,
) -> Solver:
    """Play the episode of the sample's seed (its id) with the model; see the module docstring."""
    spec = get_env(env_id)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        seed = int(state.sample_id)
        record = run_dir(out, env_id, preset or spec.default_preset, split, seed, state.epoch)
        episode = ToolEpisode(
            env_id,
            seed,
            preset=preset,
            horizon=horizon,
            split=split,
            out=record,
            agent=str(state.model),
            interface=INTERFACE,
            max_steps=max_steps,
        )
        state.tools = inspect_tools(episode)
        state.messages = [
            ChatMessageSystem(content=episode.system_prompt().rstrip("\n") + "\n" + ENDING_A_TURN),
            ChatMessageUser(content=episode.observation_text()),
        ]
        ended_by = None
        try:
            while not episode.finished:
                turn = episode.turn
                state = await generate(state, tool_calls="none")
                calls = state.output.message.tool_calls
                if calls:
                    state.messages.extend(answer_message(episode, call) for call in calls)
                else:
                    episode.advance()
                if not episode.finished and episode.turn != turn:
                    state.messages.append(ChatMessageUser(content=episode.observation_text()))
        except LimitExceededError as limit:
            ended_by = f"{limit.type}_limit"
            raise
        except Exception:
            ended_by = "model_error"  # the env never raises: only the model's generate can
            raise
        finally:
            result = episode.finish(ended_by)
            figures = {key: result.get(key) for key in FIGURES}
            state.store.set(
                RESULT_KEY,
                {**figures, "state_digest": episode.state_digest(), "run_dir": None if record is None else str(record)},
            )
        return state

    return solve


@scorer(metrics=[mean(), stderr()])
def episode_score() -> Scorer:
    """The run's headline score (docs/reports.md), with the result's key figures as metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        figures = state.store.get(RESULT_KEY)
        if figures is None:
            return Score(value=0.0, explanation="the episode did not start")
        return Score(
            value=float(headline_score(figures) or 0.0),
            answer=str(figures["ended_by"]),
            explanation=figures["incomplete_reason"]
            or f"{figures['ended_by']} after {figures['survived']} of {figures['horizon']} {figures['unit']}s",
            metadata=figures,
        )

    return score


# ---------------------------------------------------------------------------------- tasks
def bizbench_task(
    env_id: str,
    seed: int | None = None,
    seeds: int | str | list[int] | None = None,
    preset: str | None = None,
    horizon: int | None = None,
    split: Split = "dev",
    out: str | None = None,
    max_steps: int | None = None,
    message_limit: int | None = None,
) -> Task:
    """The inspect task of ``env_id``: one sample per seed (``seed`` or ``seeds``: ``7``,
    ``[1, 2]``, ``"1-20"``; default the split's seeds, docs/sweeps.md). ``preset`` and
    ``horizon`` (in the env's unit) choose the world; ``split`` the public (``dev``) or held-out
    (``test``) worlds; ``out`` a root for one run directory per sample; ``max_steps`` and
    ``message_limit`` cut a sample short. A bad argument is a ValueError naming it."""
    if seed is not None and seeds is not None:
        raise ValueError("give seed or seeds, not both")
    # refused here, not per sample
    spec = ToolEpisode.check_options(env_id, preset=preset, horizon=horizon, split=split, max_steps=max_steps)
    if message_limit is not None and (
        isinstance(message_limit, bool) or not isinstance(message_limit, int) or message_limit < 1
    ):
        raise ValueError(f"message_limit must be a whole number >= 1 or None, got {message_limit!r}")
    chosen = parse_seeds(SPLIT_SEEDS[split] if seed is None and seeds is None else seed if seeds is None else seeds)
    dataset = MemoryDataset(
        [Sample(input=spec.description, id=s) for s in chosen],
        name=f"{spec.task_name}-{split}",
    )
    return Task(
        dataset=dataset,
        solver=play_episode(env_id, preset, horizon, split, out, max_steps),
        scorer=episode_score(),
        message_limit=message_limit,
        name=spec.task_name,
        metadata={"env": env_id, "split": split, "preset": preset or spec.default_preset, "horizon": horizon},
    )


def _register(env_id: str, task_name: str, doc: str) -> Any:
    """Register the task ``bizbench/<task_name>`` of ``env_id`` with inspect: :func:`bizbench_task`
    of that env, whose arguments (``-T name=value``) inspect reads from the signature."""

    def env_task(**task_args: Any) -> Task:
        return bizbench_task(env_id, **task_args)

    every_but_env_id = list(signature(bizbench_task).parameters.values())[1:]
    env_task.__signature__ = signature(bizbench_task).replace(parameters=every_but_env_id)  # type: ignore[attr-defined]
    env_task.__name__ = env_task.__qualname__ = task_name
    env_task.__doc__ = doc
    return task(name=task_name)(env_task)


#: The registered task of each env, by task name.
TASKS = {spec.task_name: _register(spec.id, spec.task_name, spec.description) for spec in list_envs()}
