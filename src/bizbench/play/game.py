"""One game of ``bizbench play``: a person's recorded episode of any env (docs/play.md).

A :class:`Game` is a :class:`~bizbench.interfaces.episode.ToolEpisode` played by a person: the
same seat an agent gets through every standard interface (the env's tools from its one registry,
its observation, its memory), recorded as a normal run directory whose agent is ``human:NAME``
(every call appended to actions.jsonl as it happens). It adds what a page needs: the history of
this run's calls with the answers the person was given, the charts of the env's play module
(:mod:`bizbench.core.play`: only what the seat shows) and the memory, saved the env's way.

Nothing hidden leaves a game: its views are built from the observation, the tools' answers and the
env's play module, never from the config, the seed or the world (docs/principles.md principle 3).

:meth:`Game.resume` continues a game whose page was closed or whose server died: like ``bizbench
resume`` (docs/run-format.md), the killed attempt moves to ``attempts/<n>/`` and every recorded
call is sent again, in order, to a fresh world of the same seed, which rebuilds the same world,
record, history and charts; the person plays on from there.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bizbench.core.jsonio import jsonable, preview, read_jsonl
from bizbench.core.play import PlayChart, Point, Seen
from bizbench.core.rng import secret_for_split, secret_id
from bizbench.core.runs import ACTIONS, RunDirError, human_agent, human_name, is_human
from bizbench.interfaces.episode import Answer, ToolEpisode, render
from bizbench.runner.resume import archive_attempt, exclusive, finished, log_attempt
from bizbench.runner.runconfig import check_secret, config_changes, read_config

__all__ = ["END_TURN", "Game", "NoPlayModule"]

#: the history's name for the end-turn control (:meth:`Game.end_turn`)
END_TURN = "(end turn)"
#: characters of an answer or of printed arguments kept in the history (the call's own answer is whole)
HISTORY_TEXT = 4000
#: the newest history entries a state carries
HISTORY_SHOWN = 300
#: the memory a page may save at once (characters)
MAX_MEMORY_CHARS = 200_000
#: the fields of result.json a page shows once the game is over: the common result core
#: (:class:`~bizbench.core.runlog.ResultCore`) without the seed; an env's own fields may name what
#: its seat hid (yc's adversarial clients), and the person may play that world again
SHOWN_RESULT = (
    "score",
    "final_cash",
    "bankrupt",
    "completed",
    "incomplete_reason",
    "survived",
    "horizon",
    "unit",
    "tool_calls",
    "ended_by",
)


class NoPlayModule:
    """The play page of an env without a play module: no chart, no memory to edit."""

    CHARTS: tuple[PlayChart, ...] = ()
    MONEY: tuple[str, str, float] | None = None
    END_TURN = "End the turn"
    END_TURN_TOOL: str | None = None
    TURN_TOOLS: tuple[str, ...] = ()
    MEMORY_LABEL = "memory"
    MEMORY_HELP = "This env keeps no memory a player can edit."
    MEMORY_FILE: str | None = None
    MEMORY_ADDS = False

    @staticmethod
    def memory_call(text: str) -> tuple[str, dict[str, Any]] | None:
        return None

    @staticmethod
    def points(env: Any, seen: Sequence[Seen]) -> list[Point]:
        return []


class Game:
    """A person's game of ``env_id`` recorded in ``out`` (see the module docstring).

    The run directory is held (an exclusive lock) until :meth:`close`: one page plays a game."""

    def __init__(
        self,
        env_id: str,
        seed: int,
        *,
        out: Path,
        name: str = "player",
        preset: str | None = None,
        horizon: int | None = None,
        split: str = "dev",
        _hold: contextlib.ExitStack | None = None,
    ) -> None:
        """``_hold``: the lock of ``out`` already taken (:meth:`resume` keeps it from the archive on)."""
        agent = human_agent(name)
        out = Path(out)
        created = next((p for p in reversed((out, *out.parents)) if not p.exists()), None)
        out.mkdir(parents=True, exist_ok=True)
        self._hold = _hold if _hold is not None else contextlib.ExitStack()
        if _hold is None:
            self._hold.enter_context(exclusive(out))
        try:
            secret = secret_for_split(split)
            self.episode = ToolEpisode(
                env_id,
                seed,
                preset=preset,
                horizon=horizon,
                split=split,  # type: ignore[arg-type]
                out=out,
                agent=agent,
                interface="play",
                seed_secret_id=secret_id(secret),
            )
        except BaseException:
            self._hold.close()
            if created is not None:  # a game that could not start leaves no directory behind
                shutil.rmtree(created, ignore_errors=True)
            raise
        self.path = out
        self.spec = self.episode.spec
        self.module: Any = self.spec.module("play") if self.spec.play else NoPlayModule
        self._lock = threading.RLock()
        self.history: list[dict[str, Any]] = []
        self._seen: list[Seen] = []  # this turn's answers, for the charts
        #: chart -> series -> x -> value
        self._points: dict[str, dict[str, dict[float, float]]] = {}
        #: the time played in the attempts before a resume (result.json ``wall_seconds`` adds it)
        self.earlier_seconds = 0.0
        self._mark()

    # ------------------------------------------------------------------ resuming
    @classmethod
    def resume(cls, path: Path) -> Game:
        """Continue the unfinished game in ``path`` (RunDirError when it is not one, or is finished)."""
        path = Path(path)
        config = read_config(path)
        agent = config.get("agent")
        if not is_human(agent):
            raise RunDirError(f"{path} is not a person's game (its agent is {agent!r}); bizbench resume finishes it")
        split = str(config.get("split") or "dev")
        if split != "dev":
            check_secret(path, config.get("seed_secret_id"))
        changed = config_changes(config)
        if changed:
            what = ", ".join(changed)
            raise RunDirError(f"{path}: preset {config['preset']!r} no longer builds the recorded world ({what})")
        hold = contextlib.ExitStack()  # one lock from the archive to the game's end: no second resume between
        hold.enter_context(exclusive(path))
        try:
            if finished(path) is not None:
                raise RunDirError(f"{path} is finished; bizbench view shows it and bizbench replay verifies it")
            attempts = archive_attempt(path)
            game = cls(
                config["env"],
                int(config["seed"]),
                out=path,
                name=human_name(str(agent)),
                preset=config.get("preset"),
                horizon=config.get("horizon"),
                split=split,
                _hold=hold,
            )
        except BaseException:
            hold.close()
            raise
        # the longest record of the attempts (a resume that died early leaves a shorter one)
        previous = max(reversed(attempts), key=lambda a: len(read_jsonl(a / ACTIONS)))
        old = read_jsonl(previous / ACTIONS)
        game.earlier_seconds = sum(_played_seconds(a) for a in attempts)
        try:
            sent = game._replay(old)
        except Exception as e:
            game.close()
            raise RunDirError(f"{path}: the record could not be played again ({type(e).__name__}: {e})") from e
        memory_file = game.module.MEMORY_FILE
        kept = [a / memory_file for a in attempts if memory_file and (a / memory_file).is_file()]
        if kept:
            shutil.copy2(kept[-1], path / memory_file)
        log_attempt(path, previous.name, old, replies_reused=0, actions_resent=sent)
        return game

    def _replay(self, rows: list[dict[str, Any]]) -> int:
        """Play the record again, in order: every call is sent again (a refused one is refused
        again, as it was) and an accepted turn end ends the turn again; a call whose record keeps
        only a digest of its arguments (a refused call or a skipped read past
        :data:`~bizbench.core.runlog.MAX_LOGGED_ARGS`: it changed nothing) is restored as it was
        recorded. Returns how many were sent again."""
        sent = 0
        for row in rows:
            tool, args = row.get("tool"), row.get("args")
            if "args_sha256" in row:
                self._restore(row)
            elif not isinstance(tool, str) or not isinstance(args, dict):
                continue
            elif tool == self.spec.replay.advance_action and row.get("ok") is True:
                self.end_turn(**{k: v for k, v in args.items() if v is not None})  # null: the default
                sent += 1
            else:
                self.call(tool, args)
                sent += 1
        return sent

    def _restore(self, row: dict[str, Any]) -> None:
        """A recorded call that changed nothing and cannot be sent again, put back in the env's log
        as it was (the env's call counts count it) and in the history."""
        with self._lock:
            self.episode.env.actions.append(dict(row))
            self.episode.session.flush()
            self.episode.steps += 1
            error = row.get("error")
            text = (
                f"Error: {error}" if error else "(its answer is not kept: the record holds a digest of its arguments)"
            )
            self._log(str(row.get("tool")), row.get("args_preview"), Answer(bool(row.get("ok")), text, error=error))

    # ------------------------------------------------------------------ what the page shows
    def info(self) -> dict[str, Any]:
        """What never changes during the game (the page's ``/api/game``): no seed, no config."""
        turn_tools = set(self.module.TURN_TOOLS)
        tools = [
            {
                "name": t.name,
                "description": t.description,
                "category": t.category,
                "mutates": t.mutates,
                "ends_turn": t.name in turn_tools,
                "schema": t.input_schema,
            }
            for t in self.episode.tools()
        ]
        return {
            "env": self.spec.id,
            "title": self.spec.title,
            "unit": self.spec.unit,
            "horizon": self.episode.env.horizon,
            "agent": self.episode.session.agent,
            "end_turn": self.module.END_TURN,
            "tools": tools,
            "guide": self.episode.system_prompt(),
            "memory": {
                "label": self.module.MEMORY_LABEL,
                "help": self.module.MEMORY_HELP,
                "editable": self._memory_editable(),
                "adds": bool(self.module.MEMORY_ADDS),
            },
        }

    def state(self) -> dict[str, Any]:
        """Where the game stands (the page's ``/api/state``)."""
        with self._lock:
            episode, env = self.episode, self.episode.env
            observation = jsonable(episode.observation())
            return {
                "turn": episode.turn,
                "elapsed": env.elapsed,
                "horizon": env.horizon,
                "unit": self.spec.unit,
                "done": bool(env.done),
                "bankrupt": bool(env.bankrupt),
                "finished": episode.result is not None,
                # the score only once the game is over: a running score would show what the seat
                # hides (cfo's score is its cash and valuation, which the CFO pays to check)
                "score": episode.score() if episode.result is not None else None,
                "observation": observation,
                "money": self._money(observation),
                "observation_text": render(observation),
                "memory": self.memory(),
                "charts": self.charts(),
                "history": self.history[-HISTORY_SHOWN:],
                "history_total": len(self.history),
                "result": self.shown_result(),
            }

    def _money(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        """The money the observation shows, in dollars, as the play module names it (None: none)."""
        if self.module.MONEY is None:
            return None
        label, key, divisor = self.module.MONEY
        value = observation.get(key)
        return {"label": label, "value": value / divisor} if isinstance(value, int | float) else None

    def charts(self) -> list[dict[str, Any]]:
        """The env's charts: each series' points in the order of x (the env's unit, or turns)."""
        return [
            {
                "id": chart.id,
                "title": chart.title,
                "money": chart.money,
                "x": self.spec.unit if chart.axis == "elapsed" else "turn",
                "series": [
                    {"name": name, "points": [[x, v] for x, v in sorted(values.items())]}
                    for name, values in self._points.get(chart.id, {}).items()
                ],
            }
            for chart in self.module.CHARTS
        ]

    def memory(self) -> str:
        """The memory as the player left it: the env's file in the run directory, or the env's own."""
        name = self.module.MEMORY_FILE
        if name is None:
            return str(self.episode.env.memory())
        try:
            return (self.path / name).read_text()
        except (FileNotFoundError, UnicodeDecodeError):
            return ""

    def _memory_editable(self) -> bool:
        return self.module.MEMORY_FILE is not None or self.module.memory_call("") is not None

    # ------------------------------------------------------------------ acting
    def call(self, tool: str, args: Any) -> dict[str, Any]:
        """One tool call, recorded (a refused call changes nothing and says why)."""
        with self._lock:
            if self.episode.finished:  # refused, and in no record: nor in the history
                return _answer(self.episode.call(tool, args))
            answer = self.episode.call(tool, args)
            self._after(tool, args, answer)
            return _answer(answer)

    def end_turn(self, **args: Any) -> dict[str, Any]:
        """End the turn the env's default way (the page's end-turn control): the play module's
        :attr:`~bizbench.core.play.PlayModule.END_TURN_TOOL`, else :meth:`Env.advance`."""
        tool = self.module.END_TURN_TOOL
        if tool is not None and not args:
            return self.call(tool, {})
        with self._lock:
            answer = self.episode.advance(**args)
            self._after(END_TURN, args, answer)
            return _answer(answer)

    def save_memory(self, text: Any) -> dict[str, Any]:
        """Save the memory the env's way: a file of the run directory or the env's memory tool."""
        if not isinstance(text, str):
            return _error("the memory must be a string")
        if len(text) > MAX_MEMORY_CHARS:
            return _error(f"the memory holds at most {MAX_MEMORY_CHARS:,} characters; this is {len(text):,}")
        name = self.module.MEMORY_FILE
        if name is None:
            call = self.module.memory_call(text)
            if call is None:
                return _error(f"{self.spec.id} keeps no memory a player can edit")
            return self.call(*call)
        with self._lock:
            if self.episode.finished:
                return _error("the game has ended; the memory can no longer change")
            temporary = self.path / f".{name}.tmp"
            temporary.write_text(text)
            temporary.replace(self.path / name)
            return {"ok": True, "text": f"saved {name} ({len(text):,} characters)", "data": None, "error": None}

    def shown_result(self) -> dict[str, Any] | None:
        """The result a page shows (:data:`SHOWN_RESULT`), once the game is over (else None)."""
        result = self.episode.result
        return None if result is None else jsonable({k: result[k] for k in SHOWN_RESULT if k in result})

    def stop(self) -> dict[str, Any] | None:
        """End the game now (the person stopped it): result.json is written; returns what a page shows of it."""
        with self._lock:
            self._finish("stopped")
            return self.shown_result()

    def close(self) -> None:
        """Let the run directory go (the game stays as it is: finished, or to resume)."""
        self._hold.close()

    def _log(self, tool: str, args: Any, answer: Answer) -> tuple[int, int]:
        """Add a call to the history, with the turn before and after it; returns those turns."""
        turn_before = self.history[-1]["turn_after"] if self.history else 0
        turn = self.episode.turn
        self.history.append(
            {
                "i": len(self.history),
                "turn": turn_before,
                "turn_after": turn,
                "tool": tool,
                "args": args if len(render(args)) <= HISTORY_TEXT else preview(render(args), HISTORY_TEXT),
                "ok": answer.ok,
                "text": answer.text if len(answer.text) <= HISTORY_TEXT else preview(answer.text, HISTORY_TEXT),
                "error": answer.error,
            }
        )
        return turn_before, turn

    def _after(self, tool: str, args: Any, answer: Answer) -> None:
        """Record what the page was answered, the charts' points, and the end of a world that ended."""
        turn_before, turn = self._log(tool, args, answer)
        if turn != turn_before:
            self._seen = []
        elif tool != END_TURN:
            self._seen.append(Seen(tool, args if isinstance(args, dict) else {}, answer.ok, answer.data))
        self._mark()
        if self.episode.terminated and self.episode.result is None:
            self._finish(None)

    def _finish(self, ended_by: str | None) -> None:
        """Write result.json; its ``wall_seconds`` is the time played, every attempt's included."""
        played = time.perf_counter() - self.episode.session.started + self.earlier_seconds
        self.episode.finish(ended_by, wall_seconds=round(played, 3))

    def _mark(self) -> None:
        """The charts' points now (a later point at the same x replaces an earlier one)."""
        if self.episode.result is not None:
            return
        env = self.episode.env
        axes = {chart.id: float(env.elapsed if chart.axis == "elapsed" else env.turn) for chart in self.module.CHARTS}
        for point in self.module.points(self.episode.session.env, tuple(self._seen)):
            if point.chart in axes:
                x = axes[point.chart] if point.x is None else float(point.x)
                self._points.setdefault(point.chart, {}).setdefault(point.series, {})[x] = float(point.value)


def _played_seconds(attempt: Path) -> float:
    """The time an attempt was played: from its start (config.json, written first) to its last
    call (actions.jsonl, appended as each happens); 0 when it made none."""
    try:
        return max(0.0, (attempt / ACTIONS).stat().st_mtime - (attempt / "config.json").stat().st_mtime)
    except FileNotFoundError:
        return 0.0


def _answer(answer: Answer) -> dict[str, Any]:
    return {"ok": answer.ok, "text": answer.text, "data": jsonable(answer.data), "error": answer.error}


def _error(error: str) -> dict[str, Any]:
    return {"ok": False, "text": f"Error: {error}", "data": None, "error": error}
