"""Every registered env as an OpenEnv server (docs/interfaces.md), extra ``[openenv]``.

``create_app(env, preset=, horizon=, split=, out=, max_steps=, max_sessions=)`` is a FastAPI app
made by openenv-core's own ``create_app``; ``bizbench openenv ENV --port 8000`` serves it with
uvicorn. Each OpenEnv session (a WebSocket client: ``GenericEnvClient``,
``MCPToolClient``) gets its own :class:`BizbenchEnvironment` and so its own world:

- ``reset(seed=N)`` plays world N of the split (docs/sweeps.md; no seed: the next world, 0, 1,
  2 ... in the order the server's sessions reset); the observation carries the env's system
  prompt and its turn observation;
- ``step`` takes OpenEnv's MCP actions, ``list_tools`` and ``call_tool`` (the tools are the env's
  registry with their JSON Schemas, served by a FastMCP server, so ``/mcp`` lists and calls them
  too), and ``advance``: end the turn the env's default way;
- a refused call is an error in the observation (``CallToolObservation.error`` with the env's
  message, docs/principles.md principle 8), never an HTTP or protocol error;
- the reward of reset and of each step is :meth:`ToolEpisode.reward`, so the rewards of an
  episode add up to its score; ``done`` on bankruptcy, the horizon or ``max_steps``;
- ``state`` is the episode's id, steps, clock, score and state digest, never the seed.

With ``out`` each episode is a normal run directory ``out/<env>-<id>`` (``bizbench replay``,
``bizbench report``). Nothing here names an env (docs/principles.md principle 10).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI
from fastmcp import FastMCP
from fastmcp.client.client import CallToolResult
from fastmcp.tools import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent, ToolAnnotations
from openenv.core.env_server.http_server import create_app as create_openenv_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolObservation, ListToolsAction, ToolError, ToolErrorType
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from bizbench.core.jsonio import jsonable
from bizbench.interfaces.episode import Answer, Split, Tool, ToolEpisode

__all__ = ["BizbenchAction", "BizbenchEnvironment", "EpisodeState", "TurnObservation", "create_app"]

INTERFACE = "openenv"
NO_EPISODE = "no episode is running: reset the environment first"


class BizbenchAction(Action):
    """One step: ``call_tool`` (OpenEnv's CallToolAction: ``tool_name`` and ``arguments``),
    ``list_tools`` (its ListToolsAction) or ``advance`` (end the turn the env's default way)."""

    type: Literal["call_tool", "list_tools", "advance"] = "call_tool"
    tool_name: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)


class TurnObservation(Observation):
    """What the agent reads at a turn boundary (after reset and advance)."""

    text: str = Field(description="the env's observation of the turn")
    system_prompt: str = Field(default="", description="after reset: the env's instructions for a tool-calling agent")


class EpisodeState(State):
    """Where the session's episode stands (no seed, no config: docs/principles.md principle 3)."""

    env: str = ""
    elapsed: int = Field(default=0, description="time played, in the env's unit")
    horizon: int = 0
    unit: str = ""
    score: float = Field(default=0.0, description="the episode score the rewards add up to")
    terminated: bool = False
    truncated: bool = False
    state_digest: str = Field(default="", description="SHA-256 of the world: equal digests mean equal worlds")


class RegistryTool(FastMCPTool):
    """One tool of the env's registry on the session's FastMCP server (its name, description and
    JSON Schema as the registry states them); a call goes to the session's episode."""

    environment: Any = Field(exclude=True)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        answer = await asyncio.to_thread(self.environment.call, self.name, arguments)
        return ToolResult(content=answer.text, structured_content=_structured(answer.data), is_error=not answer.ok)


class BizbenchEnvironment(MCPEnvironment):
    """One OpenEnv session: one :class:`ToolEpisode` at a time (see the module docstring)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, door: Door) -> None:
        self.door = door
        self.episode: ToolEpisode | None = None
        self.episode_id: str | None = None
        server = FastMCP(door.env)
        for tool in door.tools:
            server.add_tool(
                RegistryTool(
                    name=tool.name,
                    description=tool.description,
                    parameters=tool.input_schema,
                    annotations=ToolAnnotations(read_only_hint=not tool.mutates),
                    environment=self,
                )
            )
        super().__init__(server)

    # ------------------------------------------------------------------ the OpenEnv API
    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> TurnObservation:
        """A fresh world: world ``seed`` of the split (None: the server's next); a running episode ends first."""
        if kwargs:
            raise ValueError(f"reset takes seed and episode_id, not {', '.join(sorted(kwargs))}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")  # the running episode goes on
        self._end("reset")
        run_name = f"{self.door.env}-{uuid.uuid4().hex[:12]}"
        self.episode_id = episode_id or run_name
        self.episode = self.door.episode(next(self.door.seeds) if seed is None else seed, run_name, self.episode_id)
        return self._turn(system_prompt=self.episode.system_prompt())

    def step(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        if _kind(action) == "list_tools":
            return super().step(ListToolsAction(), timeout_s)
        return self._step_impl(action)

    async def step_async(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        if _kind(action) == "list_tools":
            return await super().step_async(ListToolsAction(), timeout_s)
        return await asyncio.to_thread(self._step_impl, action)

    def _step_impl(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        """``call_tool`` or ``advance``, with the step's reward and ``done``."""
        if _kind(action) == "advance":
            if self.episode is not None:
                answer = self.episode.advance()
                if not answer.ok:  # the episode has ended: refused as a tool call is
                    return self._scored(TurnObservation(text=answer.text))
            return self._turn()
        name = str(getattr(action, "tool_name", ""))
        answer = self.call(name, getattr(action, "arguments", {}))
        if answer.ok:
            result = CallToolResult(
                content=[TextContent(type="text", text=answer.text)],
                structured_content=_structured(answer.data),
                meta=None,
                data=jsonable(answer.data),
                is_error=False,
            )
            return self._scored(CallToolObservation(tool_name=name, result=result))
        kind = ToolErrorType.EXECUTION_ERROR if name in self.door.tool_names else ToolErrorType.TOOL_NOT_FOUND
        return self._scored(
            CallToolObservation(tool_name=name, error=ToolError(error_type=kind, message=str(answer.error)))
        )

    @property
    def state(self) -> EpisodeState:
        episode = self.episode
        if episode is None:
            return EpisodeState(env=self.door.env)
        env = episode.env
        return EpisodeState(
            episode_id=self.episode_id,
            step_count=episode.steps,
            env=self.door.env,
            elapsed=env.elapsed,
            horizon=env.horizon,
            unit=episode.spec.unit,
            score=episode.score(),
            terminated=episode.terminated,
            truncated=episode.truncated,
            state_digest=episode.state_digest(),
        )

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name=self.door.title, description=self.door.description)

    def close(self) -> None:
        self._end("closed")
        super().close()

    # ------------------------------------------------------------------ the episode
    def call(self, name: str, arguments: Any) -> Answer:
        """One tool call of the running episode (an error answer when none runs)."""
        if self.episode is None:
            return Answer(False, f"Error: {NO_EPISODE}", error=NO_EPISODE)
        return self.episode.call(name, arguments)

    def _turn(self, system_prompt: str = "") -> Observation:
        if self.episode is None:
            return TurnObservation(text=f"Error: {NO_EPISODE}", done=True)
        return self._scored(TurnObservation(text=self.episode.observation_text(), system_prompt=system_prompt))

    def _scored(self, observation: Observation) -> Observation:
        """``observation`` with the episode's reward and done; the run is written when it is done."""
        episode = self.episode
        if episode is None:
            observation.done = True
            return observation
        observation.reward = episode.reward()
        observation.done = episode.finished
        if observation.done:
            episode.finish()
        return observation

    def _end(self, ended_by: str) -> None:
        """Write the running episode's result (``ended_by`` when its world has not ended)."""
        if self.episode is not None:
            self.episode.finish(ended_by)  # once only; a world that ended keeps its own end


class Door:
    """What every session of one server shares: the env, its options and its tools (from a probe
    episode, which checks the options before anything is served), and the next seed."""

    def __init__(
        self,
        env: str,
        preset: str | None,
        horizon: int | None,
        split: Split,
        out: Path | None,
        max_steps: int | None,
    ) -> None:
        probe = ToolEpisode(env, 0, preset=preset, horizon=horizon, split=split, max_steps=max_steps)
        probe.finish("probe")
        self.env, self.title, self.description = probe.spec.id, probe.spec.title, probe.spec.description
        self.tools: list[Tool] = probe.tools()
        self.tool_names = {tool.name for tool in self.tools}
        self.preset, self.horizon, self.split, self.max_steps = preset, horizon, split, max_steps
        self.out = out
        self.seeds: Iterator[int] = itertools.count()

    def episode(self, seed: int, run_name: str, episode_id: str) -> ToolEpisode:
        """A recorded episode of world ``seed`` (its run directory ``out/run_name``; ``episode_id`` in config.json)."""
        return ToolEpisode(
            self.env,
            seed,
            preset=self.preset,
            horizon=self.horizon,
            split=self.split,
            out=None if self.out is None else self.out / run_name,
            agent=INTERFACE,
            interface=INTERFACE,
            max_steps=self.max_steps,
            episode_id=episode_id,
        )


def create_app(
    env: str,
    *,
    preset: str | None = None,
    horizon: int | None = None,
    split: Split = "dev",
    out: Path | str | None = None,
    max_steps: int | None = None,
    max_sessions: int = 8,
) -> FastAPI:
    """The OpenEnv server of ``env`` (see the module docstring). ``out``: the root of the
    sessions' run directories (None: nothing written); ``max_sessions``: concurrent sessions.
    A bad option is a ValueError or KeyError naming it."""
    if isinstance(max_sessions, bool) or not isinstance(max_sessions, int) or max_sessions < 1:
        raise ValueError(f"max_sessions must be a whole number >= 1, got {max_sessions!r}")
    door = Door(env, preset, horizon, split, None if out is None else Path(out), max_steps)
    if door.out is not None:
        door.out.mkdir(parents=True, exist_ok=True)
    factory = functools.partial(BizbenchEnvironment, door)
    return create_openenv_app(factory, BizbenchAction, TurnObservation, door.env, max_concurrent_envs=max_sessions)


def _kind(action: Action) -> str:
    """The action's ``type`` (BizbenchAction and OpenEnv's MCP actions all carry one)."""
    return str(getattr(action, "type", ""))


def _structured(data: Any) -> dict[str, Any] | None:
    """A tool's data as MCP structured content (an object; other values under ``result``, as FastMCP does)."""
    if data is None:
        return None
    value = jsonable(data)
    return value if isinstance(value, dict) else {"result": value}
