"""Gymnasium text envs ``bizbench/<env>-v0`` for every registered env (docs/interfaces.md).

Importing this module registers ``bizbench/<id>-v0`` for each env of the env registry
(:func:`register_envs`), so ``gymnasium.make("bizbench.interfaces.gym:bizbench/ceo-v0")`` needs no
import of its own. One episode of :class:`BizbenchEnv` is one
:class:`~bizbench.interfaces.episode.ToolEpisode`, the core every door shares:

- ``reset(seed=S)`` plays world S of the ``split`` (``dev``: the public worlds; ``test``: the held-out
  worlds of ``$BIZBENCH_SEED_SECRET``, docs/sweeps.md); ``reset()`` draws the world seed from
  ``self.np_random``, so a run of episodes is fixed by the first seed, as in Gymnasium;
- the observation is text: the env's observation after a reset; after a step, the tool's answer (or
  ``Error: ...``), followed by the new observation when the step ended a turn, and a last line when
  it ended the episode. Every character outside :data:`CHARSET` is written as its JSON escape;
- an action is one tool call as JSON text, ``{"tool": NAME, "args": {...}}``, or ``{"advance": true}``
  to end the turn the env's default way; a malformed action is an error observation that changes
  nothing (docs/principles.md principle 8) and counts as a step;
- the reward is the change of the episode score (:meth:`ToolEpisode.reward`; the first step's
  counts from 0, so it holds the starting score), so the rewards of an episode sum to its score
  (0 for a bankrupt company);
- ``terminated`` on bankruptcy or the horizon, ``truncated`` at ``max_steps`` (Gymnasium's own
  ``max_episode_steps`` truncates too, from outside the env: the next reset ends that run);
- ``info``: ``turn`` and ``steps`` after every reset and step; a step adds ``ok``, ``error`` and
  ``turn_ended``; the reset and the last step of an episode add the episode ``score``, ``elapsed``
  and ``bankrupt``, the reset ``horizon`` and ``unit``, the last step ``ended_by`` and ``run_dir``
  (when recorded). :meth:`BizbenchEnv.system_prompt` and :meth:`BizbenchEnv.tool_reference` are what an
  agent is told;
- with ``record_dir``, each episode is a normal run directory under it (docs/run-format.md),
  finished as the episode ends, or by the next reset or close (``ended_by`` ``reset``/``close``).

Nothing returned (observation, info) holds the seed or the config (docs/principles.md principle 3).
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import gymnasium
from gymnasium import spaces

from bizbench.core.envs import list_envs
from bizbench.core.jsonio import preview
from bizbench.interfaces.episode import Answer, Split, ToolEpisode

__all__ = ["ACTION_FORMAT", "CHARSET", "BizbenchEnv", "gym_id", "parse_action", "register_envs"]

#: The characters of every observation and action: printable ASCII and its whitespace.
CHARSET = string.printable
#: The longest observation (characters); a longer one is cut with a note saying so.
MAX_OBSERVATION = 1_000_000
#: The longest action the action space describes (a longer one is still read).
MAX_ACTION = 100_000
#: ``reset()`` without a seed draws the world seed from ``[0, WORLD_SEEDS)``.
WORLD_SEEDS = 2**31

#: How to act, added to the env's system prompt.
ACTION_FORMAT = (
    "\n## Acting\n"
    "Each step is one action, written as JSON text. "
    '{"tool": "<tool name>", "args": {<arguments>}} calls a tool ("args" may be left out when it takes none); '
    '{"advance": true} ends the current turn without a tool. Characters outside ASCII may be written as JSON '
    "escapes (\\u00e9), as they are in what you read.\n"
)

_CALL_KEYS = frozenset({"tool", "args"})
_ADVANCE = {"advance": True}
_CHARSET_BYTES = CHARSET.encode()
_OUTSIDE_CHARSET = re.compile(f"[^{re.escape(CHARSET)}]+")


def gym_id(env_id: str) -> str:
    """The Gymnasium id of a bizbench env."""
    return f"bizbench/{env_id}-v0"


def register_envs() -> list[str]:
    """Register ``bizbench/<id>-v0`` for every env of the registry not yet registered (a plug-in
    registered after this module was imported); returns the ids registered now."""
    new = [spec.id for spec in list_envs() if gym_id(spec.id) not in gymnasium.registry]
    for env_id in new:
        gymnasium.register(gym_id(env_id), entry_point=f"{__name__}:BizbenchEnv", kwargs={"env_id": env_id})
    return [gym_id(env_id) for env_id in new]


class MalformedAction(ValueError):
    """An action that is not a tool call or an advance (its message is the agent's error)."""


def parse_action(action: Any) -> tuple[str, Any] | None:
    """``(tool, args)`` of a tool call, None for an advance; :class:`MalformedAction` otherwise."""
    usage = 'an action is JSON text: {"tool": "<tool name>", "args": {...}} or {"advance": true}'
    if not isinstance(action, str):
        raise MalformedAction(f"{usage}, got {type(action).__name__}")
    try:
        data = json.loads(action)
    except ValueError as e:
        raise MalformedAction(f"the action is not JSON ({e}); {usage}") from None
    except RecursionError:
        raise MalformedAction(f"the action is nested too deeply to read; {usage}") from None
    if not isinstance(data, dict):
        raise MalformedAction(f"the action is not a JSON object; {usage}")
    tool = data.get("tool")
    if isinstance(tool, str) and data.keys() <= _CALL_KEYS:
        return tool, data.get("args", {})
    if data.keys() == _ADVANCE.keys():
        if data["advance"] is True:  # not 1 or 1.0, which equal True in Python
            return None
        raise MalformedAction(f'"advance" must be true, got {preview(json.dumps(data["advance"]), 40)}; {usage}')
    unknown = sorted(data.keys() - _CALL_KEYS)
    problem = f"unknown key(s) {', '.join(map(repr, unknown))}" if unknown else 'no "tool" name (a string)'
    raise MalformedAction(f"the action has {problem}; {usage}")


def as_text(text: str) -> str:
    """``text`` in :data:`CHARSET` (each other character as its JSON escape), cut to :data:`MAX_OBSERVATION`."""
    if not text.isascii() or text.encode().translate(None, _CHARSET_BYTES):  # (a regex alone is slower)
        text = _OUTSIDE_CHARSET.sub(lambda m: json.dumps(m.group())[1:-1], text)
    if len(text) <= MAX_OBSERVATION:
        return text
    note = f"\n[cut: the text ran to {len(text):,} characters]"
    return text[: MAX_OBSERVATION - len(note)] + note


class BizbenchEnv(gymnasium.Env[str, str]):
    """One registered env as a Gymnasium text env (see the module docstring).

    ``preset``, ``horizon`` (in the env's unit) and ``split`` choose the worlds; ``record_dir``: the
    folder each episode's run directory goes in (None: nothing written); ``max_steps``: steps
    (actions) after which an episode is truncated (None: no limit); ``render_mode``: ``"ansi"`` (the
    last observation) or None. :attr:`episode` is the current episode's ToolEpisode (a trainer's
    handle: its state digest, its result)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_id: str,
        preset: str | None = None,
        horizon: int | None = None,
        split: Split = "dev",
        record_dir: str | Path | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        # a bad option is refused here, not at the first reset
        spec = ToolEpisode.check_options(env_id, preset=preset, horizon=horizon, split=split, max_steps=max_steps)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.env_id = spec.id
        self.preset = preset or spec.default_preset
        self.unit = spec.unit
        self.horizon = horizon
        self.split: Split = split
        self.record_dir = Path(record_dir) if record_dir is not None else None
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.observation_space = spaces.Text(MAX_OBSERVATION, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(MAX_ACTION, min_length=0, charset=CHARSET)
        self.episode: ToolEpisode | None = None
        self._observation: str | None = None
        self._run_number = 1

    # ------------------------------------------------------------------ Gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        if options:
            raise ValueError(f"a bizbench env takes no reset options, got {', '.join(map(str, options))}")
        super().reset(seed=seed)
        self._end_episode("reset")
        world_seed = seed if seed is not None else int(self.np_random.integers(WORLD_SEEDS))
        self.episode = episode = ToolEpisode(
            self.env_id,
            world_seed,
            preset=self.preset,
            horizon=self.horizon,
            split=self.split,
            out=self._new_run_dir(),
            agent="gym",
            interface="gym",
            max_steps=self.max_steps,
        )
        self._observation = as_text(episode.observation_text())
        info = self._info(episode)
        info.update(self._standing(episode), horizon=episode.env.horizon, unit=self.unit)
        return self._observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        episode = self._current()
        env = episode.env
        turn = env.turn
        answer = self._act(episode, action)
        reward = episode.reward()
        terminated = episode.terminated
        truncated = not terminated and episode.truncated
        now = env.turn
        info = {"turn": now, "steps": episode.steps, "ok": answer.ok, "error": answer.error, "turn_ended": now != turn}
        ended = (terminated or truncated) and episode.result is None  # this step ended the episode
        if now == turn and not ended:  # the common step: a call within the turn (or after the end)
            self._observation = as_text(answer.text)
            return self._observation, reward, terminated, truncated, info
        parts = [answer.text, "## Observation\n" + episode.observation_text()]
        if ended:
            info.update(self._standing(episode))
            parts.append("## " + episode.end_notice())
            info["ended_by"] = episode.finish()["ended_by"]
            if episode.session.path is not None:
                info["run_dir"] = str(episode.session.path)
        self._observation = as_text("\n\n".join(filter(None, parts)))
        return self._observation, reward, terminated, truncated, info

    def system_prompt(self) -> str:
        """The env's instructions for the current episode, with how to act (:data:`ACTION_FORMAT`)."""
        return self._current().system_prompt().rstrip("\n") + "\n" + ACTION_FORMAT

    def tool_reference(self) -> str:
        """The env's tools (Markdown, generated from its registry): what an action can call."""
        return self._current().tool_reference()

    def render(self) -> str | None:
        return self._observation if self.render_mode == "ansi" else None

    def close(self) -> None:
        self._end_episode("close")
        super().close()

    # ------------------------------------------------------------------ the pieces
    def _current(self) -> ToolEpisode:
        if self.episode is None:
            raise RuntimeError("call reset() first: no episode has begun")
        return self.episode

    @staticmethod
    def _act(episode: ToolEpisode, action: Any) -> Answer:
        """Run one action; a malformed one is an error answer that counts as a step. Once the
        episode has ended, every action gets the episode's own "has ended" answer."""
        try:
            call = parse_action(action)
        except MalformedAction as e:
            return episode.refuse(str(e))
        return episode.call(*call) if call is not None else episode.advance()

    @staticmethod
    def _info(episode: ToolEpisode) -> dict[str, Any]:
        """What a trainer reads after every reset and step (never the seed or the config)."""
        return {"turn": episode.turn, "steps": episode.steps}

    @staticmethod
    def _standing(episode: ToolEpisode) -> dict[str, Any]:
        """Where the episode stands, read at its start and end only: an env's score or clock can
        take a while to compute (between them, the rewards are the score's changes)."""
        env = episode.env
        return {"score": episode.score(), "elapsed": env.elapsed, "bankrupt": bool(env.bankrupt)}

    def _new_run_dir(self) -> Path | None:
        """A new, empty run directory under :attr:`record_dir` (None: no recording); the name
        counts up past the directories there, so several envs can share the folder."""
        if self.record_dir is None:
            return None
        self.record_dir.mkdir(parents=True, exist_ok=True)
        while True:
            path = self.record_dir / f"{self.env_id}-{self.preset}-gym-{self._run_number:05d}"
            self._run_number += 1
            try:
                path.mkdir()
            except FileExistsError:
                continue
            return path

    def _end_episode(self, ended_by: str) -> None:
        """Finish the current episode's run if no step finished it (an unfinished run: ``ended_by``)."""
        if self.episode is not None:
            self.episode.finish(ended_by)  # once only; a world that ended keeps its own end


register_envs()
