"""The CEO-Bench terminal harness (paper section 3.1; reference-notes §8), for any env with a seat:
a workspace, a wipe per turn.

The agent works in a Linux workspace with six tools (:mod:`.tools`: bash, read_file,
write_file, edit_file, search_files, glob_files). The simulator runs in its own process
(``bizbench serve ENV``, :mod:`.seat`); the agent's bash commands run in the env seat's
sandbox, where ``python`` imports the env's SDK, ``bizbench ENV --session /workspace ...`` is
its shell client, and nothing of bizbench is importable. It drives every env whose spec has a
``seat`` (ceo, yc, cfo); it is ceo's paper harness.

Each turn starts a new conversation: the system prompt (:mod:`.prompt`: the paper's
workspace rules in our words, then the seat's instructions for the env) with MEMORY.md
appended (cut at 40,000 characters, with a note) and one user message holding the turn's
observation (``GET /observation``, not a tool call). Nothing else survives from earlier turns
except files. The agent ends a turn with the env's own tools (ceo ``next_week``, yc ``sim
resume``, cfo an action) from bash; the harness reads the server's ``/game-status`` after
every bash call and resets when its ``turn`` moves.

At every turn change the workspace is committed to git (the harness's identity; the hash goes
into the trajectory's ``advance`` event). Malformed replies (no tool call, unknown tool,
arguments that are not a JSON object or do not validate) get one line of feedback and count
toward the turn's call cap and the run's limits. After ``max_calls_per_week`` tool calls (and
malformed replies) without a new turn, the harness ends the turn the env's default way
(``POST /advance``, host-only; ``auto_advance`` event).

Trajectory events (beside the shared ``model_call``/``tool_call``/``feedback``/``end``):
``workspace`` (served run started, the first commit; at the end), ``reset`` (a turn's fresh
context: turn, elapsed, MEMORY.md as shown, the observation), ``skipped_calls`` (calls of a
reply left unexecuted because the turn had changed), ``auto_advance``, ``advance`` (from/to
elapsed, calls used, commit), ``server_error``.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from bizbench.agents.harness.terminal.prompt import memory_section, system_prompt, week_intro
from bizbench.agents.harness.terminal.seat import SERVED_FILES, SeatError, ServedSeat, render_observation
from bizbench.agents.harness.terminal.tools import (
    DEFAULT_BASH_TIMEOUT_S,
    OUTPUT_LIMIT,
    Shell,
    Toolbox,
    registry,
    seat_shell,
)
from bizbench.agents.harness.terminal.workspace import MEMORY_FILE, Workspace
from bizbench.agents.models.base import ToolCall
from bizbench.agents.recording import AgentRun
from bizbench.core.errors import ToolError

__all__ = ["MEMORY_FILE", "SeatError", "ServedSeat", "TerminalHarness", "Toolbox", "Workspace", "registry"]

logger = logging.getLogger(__name__)

MEMORY_CHARS = 40_000  # reference-notes §8: MEMORY.md is cut at 40,000 characters
MAX_CALLS_PER_WEEK = 200
NO_TOOL_CALL = (
    "Your reply had no tool call. Act with a tool (bash, read_file, write_file, edit_file, search_files, "
    "glob_files); end the turn from bash the way your instructions say."
)


class TerminalHarness:
    """CEO-Bench's minimal terminal agent: workspace tools, a wipe per turn, MEMORY.md, git."""

    name = "terminal"

    def __init__(
        self,
        days: int | None = None,
        max_calls_per_week: int = MAX_CALLS_PER_WEEK,
        memory_chars: int = MEMORY_CHARS,
        output_limit: int = OUTPUT_LIMIT,
        keep_workspace: bool = False,
        workspace: str | Path | None = None,
        shell: Shell | None = None,
        context_turns: int | None = None,
    ) -> None:
        """``days``: the horizon of an env counted in days (an alias of the runner's ``horizon``);
        ``max_calls_per_week``: the tool calls of a turn before the harness ends it (the name is
        the paper's; a turn is a week in ceo)."""
        if context_turns is not None:
            raise ValueError(
                "--context-turns sets the cli-chat window; the terminal harness wipes its context each turn"
            )
        if max_calls_per_week < 1 or memory_chars < 1 or output_limit < 100:
            raise ValueError("max_calls_per_week and memory_chars must be >= 1, output_limit >= 100")
        self.days = days
        self.max_calls_per_week = max_calls_per_week
        self.memory_chars = memory_chars
        self.output_limit = output_limit
        self.keep_workspace = keep_workspace
        self.workspace = Path(workspace) if workspace is not None else None
        self.shell: Shell | None = shell

    # ------------------------------------------------------------------ runner hooks
    def open_env(self, env_id: str, seed: int, preset: str | None, horizon: int | None = None) -> ServedSeat:
        """The env's served seat (the server starts in :meth:`run`, once the run directory exists)."""
        from bizbench.core.envs import get_env

        spec = get_env(env_id)
        if spec.seat is None:
            raise ValueError(f"the terminal harness serves its env from a seat, and {env_id} has none")
        if self.days is not None:
            if spec.unit != "day":
                raise ValueError(f"days applies to envs counted in days; {env_id} counts {spec.unit}s: use horizon")
            if horizon is not None and horizon != self.days:
                raise ValueError(f"the harness option days={self.days} and horizon={horizon} disagree")
            horizon = self.days
        return ServedSeat(
            spec, seed, preset, horizon=horizon, workspace=self.workspace, keep_workspace=self.keep_workspace
        )

    def system_prompt(self, env: Any) -> str:
        return system_prompt(
            env.instructions(),
            memory_chars=self.memory_chars,
            max_calls=self.max_calls_per_week,
            bash_timeout_s=DEFAULT_BASH_TIMEOUT_S,
            output_limit=self.output_limit,
        )

    def tools(self, env: Any) -> list[dict[str, Any]]:
        return list(registry.json_schemas())

    def finish(self, env: Any, rundir: Any, result: dict[str, Any], title: str) -> None:  # noqa: ARG002
        """result.json in the runner's run directory (the served session wrote the rest there)."""
        from bizbench.core.runlog import write_result

        path = Path(rundir.path)
        served = getattr(env, "run_dir", None)
        if served is not None and Path(served).exists() and Path(served).absolute() != path.absolute():
            for name in (*SERVED_FILES, "cash.png"):
                if (Path(served) / name).exists():
                    shutil.copy2(Path(served) / name, path / name)
        write_result(path, result)
        rundir.close()

    # ------------------------------------------------------------------ the loop
    def run(self, env: ServedSeat, run: AgentRun) -> str:
        """Play turns until the episode ends or the run must stop; returns why it ended."""
        try:
            return self._run(env, run)
        except SeatError as e:
            run.trajectory.event("server_error", error=str(e))
            return "server_error"
        except BaseException:
            env.close()
            raise

    def _run(self, seat: ServedSeat, run: AgentRun) -> str:
        if not seat.started:
            seat.start(run.trajectory.path.parent if run.trajectory.path is not None else None)
        box = Toolbox(seat.workspace, self.shell or seat_shell(seat.sandbox_options()), self.output_limit)
        try:
            seat.workspace.git_init()
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:  # e.g. no git: the run goes on
            run.trajectory.event("commit_failed", elapsed=0, subject="git init", error=str(e)[:1000])
        status = seat.status()
        elapsed = int(status["elapsed"])
        commit = self._commit(seat, run, f"{seat.unit} {elapsed}: start", elapsed)
        run.trajectory.event(
            "workspace", elapsed=elapsed, commit=commit, workspace=str(seat.workspace.root), run_dir=str(seat.run_dir)
        )
        note: str | None = None
        prompt, tools = self.system_prompt(seat), self.tools(seat)  # the same every turn
        while not status.get("done"):
            outcome = self._turn(seat, run, box, status, note, prompt, tools)
            if outcome is None:
                reason = run.stopped or "stopped"
                self._final_commit(seat, run, reason)
                return reason
            status, note = outcome
        return self._ended(seat, status)

    def _ended(self, seat: ServedSeat, status: dict[str, Any]) -> str:
        if status.get("bankrupt"):
            return "bankrupt"
        if int(status.get("elapsed", 0)) >= seat.horizon_value:
            return "completed"
        return "server_stopped"

    def _final_commit(self, seat: ServedSeat, run: AgentRun, reason: str) -> None:
        elapsed = int(seat.last_status.get("elapsed", 0))
        commit = self._commit(seat, run, f"{seat.unit} {elapsed}: run ended ({reason})", elapsed)
        run.trajectory.event("workspace", elapsed=elapsed, commit=commit, ended_by=reason)

    def _commit(self, seat: ServedSeat, run: AgentRun, subject: str, elapsed: int) -> str | None:
        """Commit the workspace; a git failure is recorded (``commit_failed``) and the run goes on."""
        try:
            return seat.workspace.commit(subject, elapsed)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            logger.warning("workspace commit failed: %s", e)
            run.trajectory.event("commit_failed", elapsed=elapsed, subject=subject, error=str(e)[:1000])
            return None

    def _turn(
        self,
        seat: ServedSeat,
        run: AgentRun,
        box: Toolbox,
        status: dict[str, Any],
        note: str | None,
        prompt: str,
        tools: list[dict[str, Any]],
    ) -> tuple[dict[str, Any], str | None] | None:
        """One turn from a fresh context; the new status (None: the run must stop)."""
        elapsed = int(status["elapsed"])
        started_turn = int(status["turn"])
        turn = started_turn + 1
        observation = seat.observation()
        memory = seat.workspace.memory(self.memory_chars)
        system = prompt + memory_section(memory.text, memory.problem)
        intro = week_intro(turn, seat.unit, elapsed, seat.horizon_value, render_observation(observation), note)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": intro}]
        run.trajectory.event(
            "reset",
            turn=turn,
            elapsed=elapsed,
            memory=memory.text,
            memory_chars=memory.total_chars,
            memory_cut=memory.cut,
            memory_problem=memory.problem,
            observation=observation if isinstance(observation, dict) else {"observation": observation},
            note=note,
        )
        calls = 0
        after: dict[str, Any] | None = None
        auto = False
        while after is None:
            if calls >= self.max_calls_per_week:
                after = self._auto_advance(seat, run, elapsed, started_turn, turn, calls)
                auto = True
                break
            reply = run.ask(messages, tools, elapsed=elapsed, turn=turn)
            if reply is None:
                return None
            messages.append(reply.assistant_message())
            if not reply.tool_calls:
                calls += 1
                run.feedback(NO_TOOL_CALL, elapsed=elapsed, turn=turn)
                messages.append({"role": "user", "content": NO_TOOL_CALL})
                continue
            skipped: list[str] = []
            for call in reply.tool_calls:
                if after is not None or calls >= self.max_calls_per_week:
                    skipped.append(call.name)
                    continue
                calls += 1
                text = self._execute(box, run, call, elapsed, turn)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                if call.name == "bash":
                    now = seat.status()
                    if int(now["turn"]) != started_turn or now.get("done"):
                        after = now
            if skipped:
                why = "the turn changed" if after is not None else "the turn's call cap was reached"
                run.trajectory.event("skipped_calls", elapsed=elapsed, turn=turn, names=skipped, reason=why)
        new_elapsed = int(after["elapsed"])
        run.meter.turns += max(1, int(after["turn"]) - started_turn)
        subject = f"{seat.unit} {new_elapsed}: end of turn {turn}" + (" (auto_advance)" if auto else "")
        commit = self._commit(seat, run, subject, new_elapsed)
        run.trajectory.event(
            "advance",
            from_elapsed=elapsed,
            to_elapsed=new_elapsed,
            turn=turn,
            calls=calls,
            auto=auto,
            commit=commit,
            done=bool(after.get("done")),
        )
        next_note = None
        if auto:
            next_note = (
                f"The last turn was ended by the harness after {calls} tool calls, the simulation's "
                "default way, with nothing of yours. End the turn yourself well before the cap."
            )
        return after, next_note

    def _auto_advance(
        self, seat: ServedSeat, run: AgentRun, elapsed: int, started_turn: int, turn: int, calls: int
    ) -> dict[str, Any]:
        ok, data = seat.auto_advance()
        run.trajectory.event("auto_advance", turn=turn, elapsed=elapsed, calls=calls, ok=ok, error=None if ok else data)
        status = seat.status()
        if not ok or (int(status["turn"]) == started_turn and not status.get("done")):
            raise SeatError(f"the harness could not end the turn: {data}")
        return status

    def _execute(self, box: Toolbox, run: AgentRun, call: ToolCall, elapsed: int, turn: int) -> str:
        """Run one tool call; the text that goes back to the model (feedback for malformed calls)."""
        args = call.arguments
        if not isinstance(args, dict):
            message = (
                f"The arguments of {call.name!r} are not a JSON object ({str(args)[:200]!r}). "
                'Send an object, e.g. {"command": "ls"} for bash.'
            )
            run.feedback(message, elapsed=elapsed, turn=turn, tool=call.name)
            return f"Error: {message}"
        try:
            kwargs = registry.validate(call.name, args)
        except ToolError as e:
            run.feedback(str(e), elapsed=elapsed, turn=turn, tool=call.name)
            return f"Error: {e}"
        started = time.perf_counter()
        try:
            text, ok = str(registry.spec(call.name).fn(box, **kwargs)), True
        except ToolError as e:
            text, ok = f"Error: {e}", False
        except Exception as e:  # noqa: BLE001 - a tool failure must never end the run
            logger.exception("terminal tool %s failed", call.name)
            text, ok = f"Error: internal error in {call.name} ({type(e).__name__})", False
        seconds = round(time.perf_counter() - started, 4)
        run.tool(call.name, args, ok, text, elapsed=elapsed, turn=turn, seconds=seconds)
        return text
