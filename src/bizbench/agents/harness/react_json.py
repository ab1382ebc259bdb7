"""The EnterpriseArena harness (paper section 4.1, Appendix E): a ReAct loop of JSON blocks, on any env.

Each turn (a cfo month) the conversation starts afresh from the system prompt and the turn's
observation (cfo: the 5 latest notes included, Appendix E "Memory Tools"). Every reply must
end with one JSON block, bare or fenced with ```json: ``{"type": "tool", "name", "params"}``,
``{"type": "action", "name", "params"}`` or ``{"type": "memory", "operation": <a tool>, ...}``
(cfo's ``save_note`` / ``recall_notes``); each names a tool of the env's registry. A tool
result or an error goes back as the next user message. A reply without a valid block, with
more than one block (the harness will not guess which one was meant: none is run), or whose
block names an unknown tool or invalid arguments, gets one line of feedback.

In an env with a tool budget (the observation's ``tool_budget_left``, which counts the
accepted calls of the registry's ``"tool"`` category) the harness also counts, as the paper
counts every call (section 3.2): a reply that names no tool of the registry (no block,
several, an unknown tool), and a call of a ``"tool"``-category tool that is refused, for its
arguments or by the env at run time (e.g. an unknown filename). A refused call of any other
category (memory, an action) is free, as its accepted call is. The env itself does not count
refusals (a refused call changes nothing, docs/principles.md principle 8), so after every
call the harness tells the model the budget it enforces (``Tool budget left this <unit>:
N``); when it is spent the turn ends the env's default way (``env.advance()``: cfo ``pass``).
A turn also ends that way after ``max_replies_per_turn`` replies (ours: a model that only
takes notes would otherwise never end the run). Both rules are stated in the system prompt;
in an env whose paper harness this is not, the harness also states the reply format.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bizbench.agents.recording import AgentRun
from bizbench.core.envs import get_env
from bizbench.core.errors import ToolError

__all__ = ["ReactJsonHarness", "extract_block", "extract_blocks"]

NO_BLOCK = 'No valid JSON block found. End your reply with one, e.g. {"type": "tool", "name": "<tool>", "params": {}}.'
MANY_BLOCKS = (
    "Your reply has {n} JSON blocks; nothing was run. End your reply with exactly one block: the one call you mean."
)
#: The registry category whose calls a turn's budget counts (the observation's ``tool_budget_left``):
#: the paper's tool calls, this harness's ``"type": "tool"`` blocks. Other categories are free.
BUDGETED = "tool"
#: Bounded work on pathological replies: a bare block is looked for from at most this many failed starts.
MAX_FAILED_STARTS = 64
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def extract_blocks(text: str) -> list[dict[str, Any]]:
    """Every JSON block of ``text`` in order: each fenced ```json object, and each bare
    top-level object with a ``"type"`` outside the fences (objects nested in a block are part
    of it, not blocks)."""
    blocks: list[tuple[int, dict[str, Any]]] = []
    for match in _FENCED.finditer(text):
        parsed = _object(match.group(1))
        if parsed is not None:
            blocks.append((match.start(), parsed))
    outside = _FENCED.sub(lambda m: " " * len(m.group(0)), text)  # same offsets, fences blanked
    decoder = json.JSONDecoder()
    pos, failures = 0, 0
    while (start := outside.find("{", pos)) != -1 and failures < MAX_FAILED_STARTS:
        try:
            obj, end = decoder.raw_decode(outside, start)
        except (ValueError, RecursionError):
            pos, failures = start + 1, failures + 1
            continue
        if isinstance(obj, dict) and "type" in obj:
            blocks.append((start, obj))
        pos = end
    return [obj for _, obj in sorted(blocks, key=lambda b: b[0])]


def extract_block(text: str) -> dict[str, Any] | None:
    """The one JSON block of ``text``; None when it has none or more than one (see
    :func:`extract_blocks`)."""
    blocks = extract_blocks(text)
    return blocks[0] if len(blocks) == 1 else None


def _object(text: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError, over-long integers, absurd nesting
        return None
    return obj if isinstance(obj, dict) else None


REPLY_FORMAT = """
## Reply format
Reason step by step, then end your reply with one JSON block naming one tool and its parameters:
{{"type": "tool", "name": "<tool>", "params": {{...}}}}
A command line of the instructions is a tool: `task accept --task-id T` is {{"type": "tool", "name": "task_accept",
"params": {{"task_id": "T"}}}}. The tools:
{tools}
"""


class ReactJsonHarness:
    """Runs any env with a model that answers in JSON blocks (the paper's harness of ``cfo``)."""

    name = "react-json"

    def __init__(self, max_replies_per_turn: int = 50) -> None:
        self.max_replies_per_turn = max_replies_per_turn

    def system_prompt(self, env: Any, now: Any = None, date: Any = "<date>") -> str:
        """The env's prompt, this harness's rules, and the turn's lines (placeholders in the saved copy)."""
        rules = (
            "\n## Harness rules\n"
            "- A reply without exactly one valid JSON block, or whose block names an unknown tool or invalid "
            "arguments, gets one line of feedback.\n"
            "- Where there is a tool budget, a reply that names no tool (no block, several blocks, an unknown "
            "tool) and a budgeted tool call that is refused with an error use one call of the turn's budget, "
            "like an accepted one; a refused memory call or action uses none. Every answer ends with the "
            "budget left.\n"
            f"- After {self.max_replies_per_turn} replies in a turn without ending it, the harness ends the turn.\n"
        )
        prompt = env.system_prompt(self.name)
        if get_env(env.env_id).harness != self.name:
            tools = "\n".join(f"- {spec.signature}: {spec.description}" for spec in env.registry.specs())
            prompt = prompt.rstrip("\n") + "\n" + REPLY_FORMAT.format(tools=tools)
        unit = get_env(env.env_id).unit
        return f"{prompt}{rules}\nCurrent {unit}: {'<' + unit + '>' if now is None else now}\nCurrent date: {date}"

    def tools(self, env: Any) -> list[dict[str, Any]]:
        """The tools the prompt describes (the model answers in JSON blocks, not native tool calls)."""
        return list(env.registry.json_schemas())

    def run(self, env: Any, run: AgentRun) -> str:
        """Play until the episode ends or the run must stop; returns why it ended."""
        while not env.done:
            if not self._turn(env, run):
                return run.stopped or "stopped"
        return "bankrupt" if env.bankrupt else "completed"

    def _turn(self, env: Any, run: AgentRun) -> bool:
        """One turn; False when the run must stop before the turn is over."""
        done = self._play_turn(env, run)
        if done:
            run.meter.turns += 1
        return done

    def _play_turn(self, env: Any, run: AgentRun) -> bool:
        obs = env.observation()
        turn = env.turn
        run.trajectory.event("reset", turn=turn, elapsed=env.elapsed, observation=obs)
        date = obs.get("current_date", obs.get("time", env.elapsed))
        system = self.system_prompt(env, env.elapsed, date)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": "Observation:\n" + json.dumps(obs, indent=1, default=str)},
        ]
        budgeted = "tool_budget_left" in obs
        unit = get_env(env.env_id).unit
        charged = 0  # budgeted calls the env refused and replies that named no tool: counted here only
        for _ in range(self.max_replies_per_turn):
            if env.done or env.turn != turn:
                return True
            reply = run.ask(messages, None, turn=turn)
            if reply is None:
                return False
            messages.append({"role": "assistant", "content": reply.content})
            blocks = extract_blocks(reply.content)
            if len(blocks) == 1:
                problem = self._malformed(env, blocks[0])
            else:
                problem = MANY_BLOCKS.format(n=len(blocks)) if blocks else NO_BLOCK
            # Appendix E: 0 to 20 tool calls, then exactly one action. With the budget spent, the
            # month's action (or a free memory call) still runs; a reply that would use the budget
            # closes the month with pass.
            uses_budget = len(blocks) != 1 or self._budgeted(env, blocks[0])
            if budgeted and uses_budget and self._left(env, charged) <= 0:
                return self._close(env, run, turn, "the tool budget is spent")
            if problem is not None:
                if budgeted and uses_budget:
                    charged += 1
                run.feedback(problem, turn=turn)
                messages.append({"role": "user", "content": problem + self._budget_line(env, charged, unit, budgeted)})
                continue
            accepted, answer = self._apply(env, run, blocks[0], turn)
            if env.done or env.turn != turn:
                return True
            if budgeted and not accepted and self._budgeted(env, blocks[0]):
                charged += 1  # a refused tool call is still a call of the turn's budget (section 3.2)
            messages.append({"role": "user", "content": answer + self._budget_line(env, charged, unit, budgeted)})
        return self._close(env, run, turn, f"{self.max_replies_per_turn} replies without ending the turn")

    @staticmethod
    def _left(env: Any, charged: int) -> int:
        """The turn's budget left as this harness enforces it: the env's count of accepted
        budgeted calls, less the calls only the harness counts."""
        return int(env.observation()["tool_budget_left"]) - charged

    def _budget_line(self, env: Any, charged: int, unit: str, budgeted: bool) -> str:
        """The line every answer ends with in an env with a budget: the budget the harness enforces."""
        return f"\nTool budget left this {unit}: {max(self._left(env, charged), 0)}" if budgeted else ""

    def _budgeted(self, env: Any, block: dict[str, Any]) -> bool:
        """Whether ``block`` uses one call of the budget, run or refused: a call of a budgeted tool
        (the registry's category), or a block naming no tool of the registry (it cannot be known
        to be free)."""
        name, _ = self._call(block)
        if block.get("type") not in ("tool", "action", "memory") or not isinstance(name, str):
            return True
        return name not in env.registry or env.registry.spec(name).category == BUDGETED

    @staticmethod
    def _call(block: dict[str, Any]) -> tuple[Any, Any]:
        """(tool name, arguments) of a block, whatever their types."""
        if block.get("type") == "memory":
            return block.get("operation"), {k: v for k, v in block.items() if k not in ("type", "operation")}
        return block.get("name"), block.get("params") if block.get("params") is not None else {}

    def _malformed(self, env: Any, block: dict[str, Any]) -> str | None:
        """The one line of feedback a malformed block gets, or None."""
        if block.get("type") not in ("tool", "action", "memory"):
            return 'Unknown "type": use "tool", "action" or "memory".'
        name, args = self._call(block)
        if not isinstance(name, str) or not isinstance(args, dict):
            return 'The block needs a string "name" (or "operation") and an object "params".'
        try:
            env.registry.validate(name, args)
        except ToolError as e:
            return f"Error: {e}"
        return None

    def _apply(self, env: Any, run: AgentRun, block: dict[str, Any], turn: int) -> tuple[bool, str]:
        """Run one well-formed block; whether the env accepted it, and the text that goes back to the model."""
        name, args = self._call(block)
        result = env.call_tool(name, args)
        run.tool(name, args, result.ok, result.data if result.ok else result.error, turn=turn, type=block["type"])
        if not result.ok:
            return False, f"Error: {result.error}"
        return True, "Result:\n" + json.dumps(result.data, indent=1, default=str)

    def _close(self, env: Any, run: AgentRun, turn: int, why: str) -> bool:
        run.trajectory.event("auto_advance", turn=turn, reason=why)
        env.advance()
        return True
