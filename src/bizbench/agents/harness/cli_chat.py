"""The YC-Bench harness (paper section 3 "Observations" and "Memory", Appendix C, Appendix E),
on any env.

The model acts through one native tool, ``run_command(command)``, that runs a command line of
the env (``task accept --task-id Task-42``; the env's command prefix, e.g. yc's ``yc-bench``,
or ``bizbench <env>`` in front is accepted and stripped). The line is split with :mod:`shlex`,
parsed against the registry with :func:`bizbench.core.cmdline.parse_command` and run with
``env.call_tool``; the tool result
is the JSON the shell would print: the data, or ``{"error": ...}``.

A **turn** is one model reply with the results of its commands. Each turn the model gets:

- the system prompt (the env's instructions, ``env.system_prompt("cli-chat")``: Appendix C in
  our words for yc) with the agent's memory (``env.memory()``: yc's scratchpad, cfo's notes)
  appended: it is part of the system prompt on every turn (section 3 "Memory");
- the last K turns of history (``context_turns``, the paper's K = 20; Appendix E ablates it);
  each kept turn is the status message it was shown, the reply and the command results;
- this turn's user message: the env's observation (``env.observation()``; yc: time, funds,
  payroll, runway, open tasks, events since the previous turn).

Rules for replies (decided here; the paper does not say):

- **Several tool calls** in one reply run in order, each answered by its own tool message;
  they make one turn (Table 1: "multiple actions may be issued per turn").
- **No tool call**: nothing runs; the turn still counts (limits, idle turns), and one line of
  feedback opens the next turn's user message.
- **A malformed call** (another tool name, arguments that are not a JSON object with one
  string ``command``, a line shlex cannot split, an unknown command, bad flags) is answered
  with ``{"error": ...}`` in its tool message and recorded as feedback; the other calls of
  the reply still run. An unknown command also goes to the env's tamper log, as in the shell
  seat. A well-formed command the env refuses (an unknown task id ...) is an ordinary tool
  result with ok false, not malformed.

**Auto-advance** (Table 2, "Auto-advance 5 turns"): after ``auto_advance_after`` consecutive
turns in which the env's turn did not end (``env.turn`` unchanged: no successful yc ``sim
resume``, ceo ``next_week``, cfo action) the harness ends it the env's default way
(``env.advance()``), records an ``auto_advance`` event and says so at the top of the next user
message.

``context_turns`` and ``auto_advance_after`` default to the preset's ``[harness]`` values
(yc: ``history_turns``, ``auto_advance_turns``: 20 and 5 in ``default``; 20 and 5 for an env
without them), so a preset describes the whole run (docs/principles.md principle 5); an explicit value
(``--context-turns``) overrides it, and the prompt then states the harness's numbers.
"""

from __future__ import annotations

import copy
import json
import shlex
from typing import Any

from bizbench.agents.models.base import ToolCall
from bizbench.agents.recording import AgentRun
from bizbench.core.cmdline import command_help, parse_command, wants_help
from bizbench.core.envs import get_env
from bizbench.core.errors import ToolError
from bizbench.core.jsonio import json_default, preview

__all__ = ["CliChatHarness", "split_command"]

TOOL_NAME = "run_command"
NO_CALL = (
    "No command ran: call the run_command tool with one command line, e.g. "
    'run_command(command="{prefix} {example}"). This turn still counted.'
)
DEFAULT_CONTEXT_TURNS = 20  # paper section 3 "Memory": K = 20
DEFAULT_AUTO_ADVANCE = 5  # paper Table 2: auto-advance after 5 idle turns

HOW_TO_ACT = """## How you act

Run each command with the `run_command` tool, one command line per call, e.g.
run_command(command="{prefix} market browse --limit 10"). A reply may make several calls; they run in order.
A turn is one reply and the results of its commands; every turn starts with the current observation. A reply
without a tool call runs nothing and still uses a turn.{window}"""

WINDOW = """
Your conversation history is truncated after {k} turns; the memory section of this prompt is shown every turn.
If {n} turns pass without time moving on, the harness moves it on for you."""


#: Longer lines are refused before shlex (which is quadratic); the scratchpad holds 20,000 anyway.
MAX_COMMAND_CHARS = 50_000


def prefixes(env: Any) -> tuple[tuple[str, ...], ...]:
    """The words accepted (and stripped) in front of a command: the env's command prefix (yc's
    paper ``yc-bench``) and bizbench's shell form ``bizbench <env>``."""
    spec = get_env(env.env_id)
    return (tuple((spec.command_prefix or spec.id).split()), ("bizbench", spec.id))


def command_prefix(env: Any) -> str:
    spec = get_env(env.env_id)
    return spec.command_prefix or spec.id


def split_command(command: str, accepted: tuple[tuple[str, ...], ...] = ()) -> list[str]:
    """The words of a command line, without a leading prefix of ``accepted``; ToolError (no
    tamper) when shlex cannot split it or it is longer than ``MAX_COMMAND_CHARS``."""
    if len(command) > MAX_COMMAND_CHARS:
        raise ToolError(f"The command line has {len(command):,} characters; at most {MAX_COMMAND_CHARS:,}.")
    try:
        words = shlex.split(command)
    except ValueError as e:
        raise ToolError(f"Cannot split the command line ({e}); check the quotes.") from None
    for prefix in accepted:
        if prefix and tuple(words[: len(prefix)]) == prefix:
            return words[len(prefix) :]
    return words


class CliChatHarness:
    """Runs any env through one ``run_command`` tool (the paper's harness of ``yc``)."""

    name = "cli-chat"

    def __init__(self, context_turns: int | None = None, auto_advance_after: int | None = None) -> None:
        for label, value in (("context_turns", context_turns), ("auto_advance_after", auto_advance_after)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{label} must be a whole number >= 1, got {value!r}")
        self.context_turns = context_turns
        self.auto_advance_after = auto_advance_after

    # ------------------------------------------------------------------ setup
    def settings(self, env: Any) -> tuple[int, int]:
        """(K turns of history, idle turns before auto-advance) for this env."""
        preset = getattr(getattr(env, "config", None), "harness", None)
        k = (
            getattr(preset, "history_turns", DEFAULT_CONTEXT_TURNS)
            if self.context_turns is None
            else self.context_turns
        )
        n = getattr(preset, "auto_advance_turns", DEFAULT_AUTO_ADVANCE)
        if self.auto_advance_after is not None:
            n = self.auto_advance_after
        return int(k), int(n)

    def base_prompt(self, env: Any) -> str:
        """The env's instructions (stating this harness's K and auto-advance) and how to act."""
        k, n = self.settings(env)
        view = env
        preset = getattr(getattr(env, "config", None), "harness", None)
        if preset is not None and (preset.history_turns, preset.auto_advance_turns) != (k, n):
            # The prompt is generated from the config: give it one whose [harness] holds our numbers.
            view = copy.copy(getattr(env, "env", env))  # the env itself, not the session recording it
            view.config = env.config.model_copy(
                update={"harness": preset.model_copy(update={"history_turns": k, "auto_advance_turns": n})}
            )
        text = str(view.system_prompt(self.name)).rstrip("\n")
        window = "" if preset is not None else WINDOW.format(k=k, n=n)
        return f"{text}\n\n{HOW_TO_ACT.format(prefix=command_prefix(env), window=window)}\n"

    def system_message(self, env: Any, base: str | None = None) -> str:
        """The system prompt of the current turn: the instructions plus the scratchpad as it is now."""
        pad = str(env.memory() or "")
        base = self.base_prompt(env) if base is None else base
        return f"{base}\n## Your memory (kept across turns; shown here every turn)\n\n{pad or '(empty)'}\n"

    def system_prompt(self, env: Any) -> str:
        """The exact system prompt of the first turn (saved as system_prompt.txt)."""
        return self.system_message(env)

    def tools(self, env: Any) -> list[dict[str, Any]]:
        commands = [name.replace("_", " ") for name in env.registry.parameter_schemas()]
        prefix = command_prefix(env)
        return [
            {
                "name": TOOL_NAME,
                "description": (
                    f"Run one `{prefix}` command line and return its JSON output "
                    f'(or {{"error": ...}}). Commands: {", ".join(commands)}.'
                ),
                "parameters": {
                    "type": "object",
                    "properties": {
                        "command": {
                            "type": "string",
                            "description": f'e.g. "{prefix} {commands[0]}"',
                        }
                    },
                    "required": ["command"],
                    "additionalProperties": False,
                },
            }
        ]

    # ------------------------------------------------------------------ the loop
    def run(self, env: Any, run: AgentRun) -> str:
        """Play until the episode ends or the run must stop; returns why it ended."""
        k, idle_limit = self.settings(env)
        base = self.base_prompt(env)
        tools = self.tools(env)
        schemas = env.registry.parameter_schemas()
        history: list[list[dict[str, Any]]] = []  # one list of messages per turn
        idle = 0
        note = ""  # feedback or an auto-advance notice for the top of the next user message
        no_call = NO_CALL.format(prefix=command_prefix(env), example=next(iter(schemas)).replace("_", " "))
        while not env.done:
            turn = run.meter.turns + 1
            status = env.observation()
            before = env.turn
            run.trajectory.event("turn", turn=turn, time=status.get("time", env.elapsed), observation=status)
            text = f"Status at the start of turn {turn}:\n{json.dumps(status, default=json_default)}"
            user = {"role": "user", "content": f"{note}\n\n{text}" if note else text}
            note = ""
            messages = [{"role": "system", "content": self.system_message(env, base)}]
            for past in history:  # the last K turns
                messages.extend(past)
            messages.append(user)
            reply = run.ask(messages, tools, turn=turn, time=status.get("time", env.elapsed))
            if reply is None:
                return run.stopped or "stopped"
            current = [user, reply.assistant_message()]
            if not reply.tool_calls:
                run.feedback(no_call, turn=turn)
                note = no_call
            for call in reply.tool_calls:
                answer = self._call(env, run, schemas, call, turn)
                current.append({"role": "tool", "tool_call_id": call.id, "content": answer})
            advanced = env.turn != before
            history.append(current)
            del history[:-k]
            run.meter.turns += 1
            idle = 0 if advanced else idle + 1
            if idle >= idle_limit and not env.done:
                note = self._auto_advance(env, run, turn, idle, note)
                idle = 0
        return "bankrupt" if env.bankrupt else "completed"

    def _call(self, env: Any, run: AgentRun, schemas: Any, call: ToolCall, turn: int) -> str:
        """Run one tool call: the tool message's content."""
        command: Any = None
        try:
            command = self._command_of(call, command_prefix(env))
            words = split_command(command, prefixes(env))
            if wants_help(words) and "help" not in schemas:  # the registry's help: no env action, no tamper
                return _dump(command_help(env.registry, words))
            name, args = parse_command(schemas, words)
        except ToolError as e:
            if e.tamper:
                env.log_tamper(e.tamper, {"source": "cli-chat", "command": preview(command)})
            run.feedback(str(e), turn=turn, tool=call.name, arguments=preview(call.arguments))
            return _dump({"error": str(e)})
        result = env.call_tool(name, args)
        output = result.data if result.ok else {"error": result.error}
        run.tool(name, args, result.ok, output, turn=turn, command=command)
        return _dump(output)

    @staticmethod
    def _command_of(call: ToolCall, prefix: str) -> str:
        if call.name != TOOL_NAME:
            raise ToolError(f"Unknown tool {preview(call.name, 100)!r}: the only tool is {TOOL_NAME}(command).")
        args = call.arguments
        if not isinstance(args, dict):
            raise ToolError(
                f'The arguments of {TOOL_NAME} must be a JSON object {{"command": "..."}}, got {preview(args, 200)!r}.'
            )
        extra = sorted(set(args) - {"command"})
        if extra:
            raise ToolError(f"Unknown argument(s) {', '.join(extra)} for {TOOL_NAME}: it takes only command.")
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolError(
                f'{TOOL_NAME} needs "command": a non-empty command line, e.g. "{prefix} <command> --flag value".'
            )
        return command

    def _auto_advance(self, env: Any, run: AgentRun, turn: int, idle: int, note: str) -> str:
        before = getattr(env, "time", env.elapsed)  # yc: the simulated time; else elapsed units
        env.advance()
        after = getattr(env, "time", env.elapsed)
        run.meter.env_calls += 1
        run.trajectory.event("auto_advance", turn=turn, idle_turns=idle, time_before=before, time=after, ok=True)
        notice = f"{idle} turns passed without time moving on, so the harness moved it on (the env's turn end)."
        return f"{note}\n\n{notice}" if note else notice


def _dump(value: Any) -> str:
    return json.dumps(value, default=json_default)
