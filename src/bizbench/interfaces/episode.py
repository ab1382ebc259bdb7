"""One episode of any env behind its tools: the piece every standard interface shares.

MCP, OpenEnv, Gymnasium, verifiers and inspect-ai (docs/interfaces.md) each reach an env the
same way: a :class:`ToolEpisode` opens a recorded :class:`~bizbench.core.session.Session`
(a normal run directory when given one: replay and report work on it), lists the env's tools
from its one registry (name, description, JSON Schema: no hand-written tool list), runs a call
(a refused call is an answer, never an exception), renders observations and answers as text,
and keeps the episode score the rewards telescope to.

The seed is the world's, never the agent's: nothing here puts it, the config or the secret in
a tool list, an answer or an observation (docs/principles.md principle 3). Seeds follow the
benchmark's protocol (docs/sweeps.md): ``split="dev"`` plays the public worlds of a seed,
``split="test"`` the held-out worlds of ``$BIZBENCH_SEED_SECRET`` (refused without it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bizbench.core.envs import get_env
from bizbench.core.jsonio import json_default
from bizbench.core.rng import secret_for_split
from bizbench.core.runlog import FAILED_SCORE, headline_score
from bizbench.core.session import Session
from bizbench.runner.episode import open_session

__all__ = ["Answer", "Split", "Tool", "ToolEpisode", "render", "tool_list"]

Split = Literal["dev", "test"]

#: What an interface adds to the env's prompt where the prompt shows command lines (the spec's
#: ``command_prefix``, yc's ``yc-bench``) but the agent calls tools by name.
COMMAND_LINES_AS_TOOLS = (
    "\n## Calling the tools\n"
    "Act by calling the tools by name with JSON arguments. A command line of these instructions is a tool: "
    "its words joined by underscores name the tool and its flags are the arguments (`task accept --task-id T` "
    'is the tool task_accept with {"task_id": "T"}).\n'
)


@dataclass(frozen=True)
class Tool:
    """One tool as every interface lists it (from the env's registry)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    mutates: bool
    category: str


@dataclass(frozen=True)
class Answer:
    """What one call returned: ``ok`` with ``data``, or the env's ``error`` (nothing changed);
    ``text`` is what an agent reads either way."""

    ok: bool
    text: str
    data: Any = None
    error: str | None = None


def render(data: Any) -> str:
    """A tool's data or an observation as the text an agent reads (JSON; plain strings as they are)."""
    if isinstance(data, str):
        return data
    return json.dumps(data, indent=1, default=json_default, ensure_ascii=False)


def tool_list(registry: Any) -> list[Tool]:
    """The tools of a registry, in its order."""
    return [Tool(s.name, s.description, s.parameters, s.mutates, s.category) for s in registry.specs()]


class ToolEpisode:
    """One recorded episode of ``env_id`` (see the module docstring).

    ``out``: the run directory (None: nothing written). ``agent`` names the player in
    config.json (``mcp``, ``gym``, a model ...); ``interface`` is recorded beside it.
    ``max_steps``: calls after which the episode is truncated (None: no limit). ``meta``:
    further config.json fields."""

    def __init__(
        self,
        env_id: str,
        seed: int,
        *,
        preset: str | None = None,
        horizon: int | None = None,
        split: Split = "dev",
        out: Path | str | None = None,
        agent: str = "interface",
        interface: str = "",
        max_steps: int | None = None,
        **meta: Any,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.spec = self.check_options(env_id, preset=preset, horizon=horizon, split=split, max_steps=max_steps)
        self.split: Split = split
        self.max_steps = max_steps
        self.interface = interface
        if max_steps is not None:
            meta["max_steps"] = max_steps
        self.session: Session = open_session(
            env_id,
            seed,
            preset,
            Path(out) if out is not None else None,
            agent,
            horizon,
            secret=secret_for_split(split),
            interface=interface,
            split=split,
            **meta,
        )
        self.steps = 0
        self._result: dict[str, Any] | None = None
        self._scored = 0.0  # the score the rewards so far add up to

    @staticmethod
    def check_options(
        env_id: str,
        *,
        preset: str | None = None,
        horizon: int | None = None,
        split: str = "dev",
        max_steps: int | None = None,
    ) -> Any:
        """The env's spec, if an episode of these options can be played: every door checks them
        here before its first episode (an unknown env is a KeyError; a bad preset, horizon,
        split, a test split without its secret, or a bad step limit a ValueError naming it)."""
        spec = get_env(env_id)
        spec.with_horizon(spec.load_config(preset)[0], horizon)
        secret_for_split(split)
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a whole number >= 1 or None, got {max_steps!r}")
        return spec

    # ------------------------------------------------------------------ what the agent sees
    @property
    def env(self) -> Any:
        return self.session.env

    @property
    def registry(self) -> Any:
        return self.env.registry

    def tools(self) -> list[Tool]:
        return tool_list(self.registry)

    def system_prompt(self) -> str:
        """The env's instructions for an agent that calls its tools by name."""
        prompt = self.env.system_prompt(self.interface or "tools")
        return prompt.rstrip("\n") + "\n" + COMMAND_LINES_AS_TOOLS if self.spec.command_prefix else prompt

    def tool_reference(self) -> str:
        """The env's public tool reference (Markdown, generated from its registry)."""
        return str(self.registry.markdown_docs(f"{self.spec.title}: tools"))

    def observation(self) -> dict[str, Any]:
        return dict(self.env.observation())

    def observation_text(self) -> str:
        return render(self.observation())

    # ------------------------------------------------------------------ acting
    def call(self, name: str, args: Any = None) -> Answer:
        """One tool call, recorded; a refused call (bad name, bad arguments, a rule of the world,
        an episode already over) is an error :class:`Answer` that changes nothing."""
        if self.finished:
            return self._ended()
        result = self.session.call_tool(name, {} if args is None else args)
        self.steps += 1
        if result.ok:
            return Answer(True, render(result.data), data=result.data)
        return Answer(False, f"Error: {result.error}", error=result.error)

    def advance(self, **args: Any) -> Answer:
        """End the current turn the env's default way (ceo: the week; yc: ``sim resume``; cfo:
        ``pass``), with ``args`` for :meth:`Env.advance` (a recorded turn end played again): an
        empty answer, or the error of an episode already over."""
        if self.finished:
            return self._ended()
        self.session.advance(**args)
        self.steps += 1
        return Answer(True, "")

    def refuse(self, error: str) -> Answer:
        """An action an interface could not read (it never reached the env, so it is not in
        the run's actions): an error answer that counts as a step, or the error of an episode
        already over."""
        if self.finished:
            return self._ended()
        self.steps += 1
        return Answer(False, f"Error: {error}", error=error)

    @staticmethod
    def _ended() -> Answer:
        error = "the episode has ended; no tool can be called any more"
        return Answer(False, f"Error: {error}", error=error)

    # ------------------------------------------------------------------ where it stands
    @property
    def turn(self) -> int:
        """Turns ended so far (by a tool such as ceo ``next_week`` or by :meth:`advance`)."""
        return int(self.env.turn)

    @property
    def terminated(self) -> bool:
        """The world ended: bankruptcy or the horizon."""
        return bool(self.env.done)

    @property
    def truncated(self) -> bool:
        """The step limit was reached before the world ended."""
        return not self.terminated and self.max_steps is not None and self.steps >= self.max_steps

    @property
    def finished(self) -> bool:
        return self._result is not None or self.terminated or self.truncated

    def score(self) -> float:
        """The episode score so far, which the rewards of :meth:`reward` telescope to.

        While the world runs: the env's score (ceo, yc: cash; cfo: eq 2). Once the episode is
        over: the headline score ``bizbench report`` gives its run (docs/reports.md), so one
        episode has one score through every door: 0 for a bankrupt company, 0 for an episode
        cut short (a step limit, a door's own limit or a disconnection: stalling never beats
        playing), else the env's score, never below 0."""
        if self._result is not None:
            return float(headline_score(self._result) or FAILED_SCORE)
        env = self.env
        if env.done:
            value = headline_score({"bankrupt": env.bankrupt, "completed": not env.bankrupt, "score": env.score()})
            return float(value or FAILED_SCORE)
        return FAILED_SCORE if self.truncated else float(env.score())

    def reward(self) -> float:
        """The change of :meth:`score` since the last call (the first call: since 0), so the
        rewards of an episode sum to its final score."""
        now = self.score()
        reward, self._scored = now - self._scored, now
        return reward

    def state_digest(self) -> str:
        """The world's digest: equal digests mean equal worlds (still the final world's after :meth:`finish`)."""
        return str(self.env.state_digest())

    # ------------------------------------------------------------------ the end
    def finish(self, ended_by: str | None = None, **extra: Any) -> dict[str, Any]:
        """Write the run's result (once; later calls return it). A world that ended ends the run
        as it ended (completed / bankrupt), whatever ``ended_by`` says; a truncated one with
        ``max_steps``; else with ``ended_by`` (an interface's reason: ``client_disconnected`` ...;
        default ``incomplete``). ``extra``: the Session's (``meter``: a model's ``tokens`` and
        ``cost_usd``) and further result fields."""
        if self._result is None:
            if self.terminated:
                ended_by = None
            elif self.truncated:
                ended_by = "max_steps"
            self._result = self.session.finish(ended_by, agent=self.session.agent, interface=self.interface, **extra)
        return self._result

    def end_notice(self) -> str:
        """What every interface tells the agent once the episode is over (it finishes the run)."""
        result = self.finish()
        return (
            f"The episode is over ({result['ended_by']}); its score is {self.score():,.2f}. "
            "No tool can be called any more."
        )

    @property
    def result(self) -> dict[str, Any] | None:
        """result.json's content once :meth:`finish` ran, else None."""
        return self._result
