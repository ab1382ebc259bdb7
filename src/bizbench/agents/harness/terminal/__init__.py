"""The CEO-Bench terminal harness (paper section 3.1; ref §8): a shell workspace, weekly memory wipe.

The agent works in a Linux workspace with six tools (:mod:`.tools`: bash, read_file,
write_file, edit_file, search_files, glob_files). The simulator runs in its own process
(``bizbench serve ceo``, :mod:`.seat`); the agent's bash commands run in the ceo seat's
sandbox, where ``python`` imports ``novamind_api`` and nothing of bizbench.

Each simulated week starts a new conversation: the system prompt (:mod:`.prompt`, the
paper's rules in our words plus the simulator's instructions) with MEMORY.md appended (cut
at 40,000 characters, with a note) and one user message holding the week's dashboard.
Nothing else survives from earlier weeks except files. The agent ends a week by calling
``next_week(rationale, predictions)`` through the SDK from bash; the harness polls the
server's ``/game-status`` after every bash call and resets when the day moves. A
next_week refused for bad forecasts is just an SDK error the agent reads and fixes.

At every week change the workspace is committed to git (the harness's identity; the hash
goes into the trajectory's ``advance`` event). Malformed replies (no tool call, unknown
tool, arguments that are not a JSON object or do not validate) get one line of feedback
and count toward the week's call cap and the run's limits. After ``max_calls_per_week``
tool calls (and malformed replies) without a new week, the harness advances the week
itself (``auto_advance`` event; see :meth:`.seat.CeoSeat.auto_advance`).

Trajectory events (beside the shared ``model_call``/``tool_call``/``feedback``/``end``):
``workspace`` (served run started, day-0 commit), ``reset`` (a week's fresh context:
day, MEMORY.md as shown, the dashboard), ``skipped_calls`` (calls of a reply left
unexecuted because the week had changed), ``auto_advance``, ``advance`` (from/to day, calls
used, commit), ``server_error``.
"""

from __future__ import annotations

import logging
import math
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from bizbench.agents.harness.terminal.prompt import memory_section, system_prompt, week_intro
from bizbench.agents.harness.terminal.seat import SERVED_FILES, CeoSeat, SeatError
from bizbench.agents.harness.terminal.tools import (
    DEFAULT_BASH_TIMEOUT_S,
    OUTPUT_LIMIT,
    Shell,
    Toolbox,
    registry,
    sandbox_shell,
)
from bizbench.agents.harness.terminal.workspace import MEMORY_FILE, Workspace
from bizbench.agents.models.base import ToolCall
from bizbench.agents.recording import AgentRun
from bizbench.core.errors import ToolError

__all__ = ["CeoSeat", "MEMORY_FILE", "SeatError", "TerminalHarness", "Toolbox", "Workspace", "registry"]

logger = logging.getLogger(__name__)

MEMORY_CHARS = 40_000  # ref §8: MEMORY.md is cut at 40,000 characters
MAX_CALLS_PER_WEEK = 200
NO_TOOL_CALL = (
    "Your reply had no tool call. Act with a tool (bash, read_file, write_file, edit_file, search_files, "
    "glob_files); end the week with nm.next_week(...) from bash."
)


class TerminalHarness:
    """CEO-Bench's minimal terminal agent: workspace tools, weekly wipe, MEMORY.md, git."""

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
        if context_turns is not None:
            raise ValueError("--context-turns sets the cli-chat window; the terminal harness wipes its context weekly")
        if max_calls_per_week < 1 or memory_chars < 1 or output_limit < 100:
            raise ValueError("max_calls_per_week and memory_chars must be >= 1, output_limit >= 100")
        self.days = days
        self.max_calls_per_week = max_calls_per_week
        self.memory_chars = memory_chars
        self.output_limit = output_limit
        self.keep_workspace = keep_workspace
        self.workspace = Path(workspace) if workspace is not None else None
        self.shell: Shell = shell or sandbox_shell

    # ------------------------------------------------------------------ runner hooks
    def open_env(self, env_id: str, seed: int, preset: str | None) -> CeoSeat:
        """A ceo seat (the server starts in :meth:`run`, once the run directory exists)."""
        if env_id != "ceo":
            raise ValueError(f"the terminal harness runs the ceo env (got {env_id!r}); use cli-chat or react-json")
        from bizbench.core.envs import get_env

        return CeoSeat(
            seed,
            preset or get_env(env_id).default_preset,
            days=self.days,
            workspace=self.workspace,
            keep_workspace=self.keep_workspace,
        )

    def system_prompt(self, env: Any) -> str:
        return system_prompt(
            env.config,
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
    def run(self, env: CeoSeat, run: AgentRun) -> str:
        """Play weeks until the episode ends or the run must stop; returns why it ended."""
        try:
            return self._run(env, run)
        except SeatError as e:
            run.trajectory.event("server_error", error=str(e))
            return "server_error"
        except BaseException:
            env.close()
            raise

    def _run(self, seat: CeoSeat, run: AgentRun) -> str:
        if not seat.started:
            seat.start(run.trajectory.path.parent if run.trajectory.path is not None else None)
        box = Toolbox(seat.workspace, self.shell, self.output_limit)
        try:
            seat.workspace.git_init()
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:  # e.g. no git: the run goes on
            run.trajectory.event("commit_failed", day=0, subject="git init", error=str(e)[:1000])
        status = seat.status()
        day = int(status["day"])
        commit = self._commit(seat, run, f"day {day}: start", day)
        run.trajectory.event(
            "workspace", day=day, commit=commit, workspace=str(seat.workspace.root), run_dir=str(seat.run_dir)
        )
        note: str | None = None
        prompt, tools = self.system_prompt(seat), self.tools(seat)  # the same every week
        while not status.get("done"):
            outcome = self._week(seat, run, box, status, note, prompt, tools)
            if outcome is None:
                reason = run.stopped or "stopped"
                self._final_commit(seat, run, reason)
                return reason
            status, note = outcome
        reason = self._ended(seat, status)
        return reason

    def _ended(self, seat: CeoSeat, status: dict[str, Any]) -> str:
        if status.get("bankrupt"):
            return "bankrupt"
        if int(status.get("day", 0)) >= seat.config.horizon_days:
            return "completed"
        return "server_stopped"

    def _final_commit(self, seat: CeoSeat, run: AgentRun, reason: str) -> None:
        day = int(seat.last_status.get("day", 0))
        commit = self._commit(seat, run, f"day {day}: run ended ({reason})", day)
        run.trajectory.event("workspace", day=day, commit=commit, ended_by=reason)

    def _commit(self, seat: CeoSeat, run: AgentRun, subject: str, day: int) -> str | None:
        """Commit the workspace; a git failure is recorded (``commit_failed``) and the run goes on."""
        try:
            return seat.workspace.commit(subject, day)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            logger.warning("workspace commit failed: %s", e)
            run.trajectory.event("commit_failed", day=day, subject=subject, error=str(e)[:1000])
            return None

    def _week(
        self,
        seat: CeoSeat,
        run: AgentRun,
        box: Toolbox,
        status: dict[str, Any],
        note: str | None,
        prompt: str,
        tools: list[dict[str, Any]],
    ) -> tuple[dict[str, Any], str | None] | None:
        """One simulated week from a fresh context; the new status (None: the run must stop)."""
        day = int(status["day"])
        per = int(seat.config.days_per_turn)
        horizon = int(seat.config.horizon_days)
        turn = day // per + 1
        dashboard = seat.dashboard()
        memory = seat.workspace.memory(self.memory_chars)
        system = prompt + memory_section(memory.text, memory.problem)
        intro = week_intro(turn, -(-horizon // per), day, horizon, dashboard, note)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": intro}]
        run.trajectory.event(
            "reset",
            day=day,
            turn=turn,
            memory=memory.text,
            memory_chars=memory.total_chars,
            memory_cut=memory.cut,
            memory_problem=memory.problem,
            dashboard=dashboard,
            note=note,
        )
        calls = 0
        after: dict[str, Any] | None = None
        auto = False
        while after is None:
            if calls >= self.max_calls_per_week:
                after = self._auto_advance(seat, run, day, turn, calls)
                auto = True
                break
            reply = run.ask(messages, tools, day=day, turn=turn)
            if reply is None:
                return None
            messages.append(reply.assistant_message())
            if not reply.tool_calls:
                calls += 1
                run.feedback(NO_TOOL_CALL, day=day, turn=turn)
                messages.append({"role": "user", "content": NO_TOOL_CALL})
                continue
            skipped: list[str] = []
            for call in reply.tool_calls:
                if after is not None or calls >= self.max_calls_per_week:
                    skipped.append(call.name)
                    continue
                calls += 1
                text = self._execute(box, run, call, day, turn)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                if call.name == "bash":
                    now = seat.status()
                    if int(now["day"]) != day or now.get("done"):
                        after = now
            if skipped:
                why = "the week changed" if after is not None else "the week's call cap was reached"
                run.trajectory.event("skipped_calls", day=day, turn=turn, names=skipped, reason=why)
        new_day = int(after["day"])
        run.meter.turns += max(1, math.ceil((new_day - day) / per))
        subject = f"day {new_day}: end of week {turn}" + (" (auto_advance)" if auto else "")
        commit = self._commit(seat, run, subject, new_day)
        run.trajectory.event(
            "advance",
            from_day=day,
            to_day=new_day,
            turn=turn,
            calls=calls,
            auto=auto,
            commit=commit,
            cash=after.get("cash"),
            done=bool(after.get("done")),
        )
        next_note = None
        if auto:
            next_note = (
                f"Last week was ended by the harness after {calls} tool calls without next_week; "
                "no forecast of yours was recorded for it. Call next_week well before the cap."
            )
        return after, next_note

    def _auto_advance(self, seat: CeoSeat, run: AgentRun, day: int, turn: int, calls: int) -> dict[str, Any]:
        reason = f"{calls} tool calls in week {turn} without next_week (cap {self.max_calls_per_week})"
        ok, data = seat.auto_advance(reason)
        run.trajectory.event("auto_advance", day=day, turn=turn, calls=calls, ok=ok, error=None if ok else data)
        status = seat.status()
        if not ok or (int(status["day"]) == day and not status.get("done")):
            raise SeatError(f"the harness could not advance the week: {data}")
        return status

    def _execute(self, box: Toolbox, run: AgentRun, call: ToolCall, day: int, turn: int) -> str:
        """Run one tool call; the text that goes back to the model (feedback for malformed calls)."""
        args = call.arguments
        if not isinstance(args, dict):
            message = (
                f"The arguments of {call.name!r} are not a JSON object ({str(args)[:200]!r}). "
                'Send an object, e.g. {"command": "ls"} for bash.'
            )
            run.feedback(message, day=day, turn=turn, tool=call.name)
            return f"Error: {message}"
        try:
            kwargs = registry.validate(call.name, args)
        except ToolError as e:
            run.feedback(str(e), day=day, turn=turn, tool=call.name)
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
        run.tool(call.name, args, ok, text, day=day, turn=turn, seconds=seconds)
        return text
