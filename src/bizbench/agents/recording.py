"""Recording an LLM run: trajectory.jsonl, the exact prompt and tools, and the run's meters.

Every event is one JSON line, appended and flushed as it happens (docs/run-format.md):
``{"i": n, "wall_s": seconds since the run began, "kind": ..., ...}``.
Each is validated against its typed model (:mod:`bizbench.core.events`, listed in
docs/run-format.md) before it is written: the shared ``model_call`` (request summary, reply,
reasoning, tool calls, tokens, cost, failed attempts), ``model_error``, ``tool_call`` (name,
arguments, ok, result or error) and ``feedback`` (what the harness told the model about a
malformed reply) come from :class:`AgentRun`; the harnesses add their own (``reset``,
``turn``, ``auto_advance``, the terminal's workspace events) and the runner the last, ``end``
(why the run ended, with the run's meters). :func:`read_events` reads them back.
The system prompt and tool schemas go beside it (``system_prompt.txt``, ``tools.json``).
"""

from __future__ import annotations

import json
import reprlib
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from bizbench.agents.models.base import ModelClient, ModelError, ModelReply, Usage
from bizbench.core.events import Event, EventList, parse_event, read_events
from bizbench.core.jsonio import finite, jsonable

__all__ = ["AgentRun", "Event", "EventList", "Limits", "Meter", "Trajectory", "read_events"]


class Trajectory:
    """Append-only trajectory.jsonl (or an in-memory list when ``path`` is None)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.events: list[dict[str, Any]] = []
        self._file: IO[str] | None = path.open("a") if path is not None else None
        self._start = time.perf_counter()

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append one event (flushed) and return it as written.

        ValueError when it is not an event of :mod:`bizbench.core.events` (an unknown kind, a
        required field missing or of the wrong type): a bug of its writer, never of the model.
        A value that cannot be written as strict JSON (a model's absurdly nested or over-long
        arguments) is kept as a bounded preview string instead."""
        row = {"i": len(self.events), "wall_s": round(time.perf_counter() - self._start, 4), "kind": kind, **fields}
        row, line = _encode(row)
        parse_event(row)
        self.events.append(row)
        if self._file is not None:
            self._file.write(line + "\n")
            self._file.flush()
        return row

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class _Preview(reprlib.Repr):
    """A bounded repr (depth, lengths and counts cut) that also survives integers too long to print."""

    def repr_int(self, x: int, level: int) -> str:
        try:
            return super().repr_int(x, level)
        except ValueError:  # over the interpreter's limit of digits in str(int)
            return f"<int of about {int(x.bit_length() * 0.30103):,} digits>"


_REPR = _Preview()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 6, 4000, 200, 50, 50


def _encode(row: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(plain JSON values, the line): numpy values made plain, NaN and infinities as strings;
    a field that still cannot be written (absurd nesting, an integer too long to print)
    becomes a bounded preview, the others stay as they are."""
    try:
        row = finite(jsonable(row))
        return row, json.dumps(row, default=str, allow_nan=False)
    except (RecursionError, ValueError):  # pathological model output
        pass
    safe: dict[str, Any] = {}
    for key, value in row.items():
        try:
            value = finite(jsonable(value))
            json.dumps(value, default=str, allow_nan=False)
        except (RecursionError, ValueError):
            value = _REPR.repr(value)
        safe[key] = value
    return safe, json.dumps(safe, default=str)


def save_setup(run_dir: Path, system_prompt: str, tools: list[dict[str, Any]]) -> None:
    """The exact system prompt and tool schemas of the run, beside its trajectory."""
    (run_dir / "system_prompt.txt").write_text(system_prompt)
    (run_dir / "tools.json").write_text(json.dumps(tools, indent=2) + "\n")


@dataclass(frozen=True)
class Limits:
    """Per-run budgets; reaching one ends the run cleanly with its name as the reason."""

    max_dollars: float | None = None
    max_tokens: int | None = None
    max_turns: int | None = None


@dataclass
class Meter:
    """What the run has used so far."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    model_calls: int = 0
    turns: int = 0
    env_calls: int = 0  # every executed call: tools, memory, actions, commands
    malformed: int = 0
    models_reported: list[str] = field(default_factory=list)

    def add(self, reply: ModelReply) -> None:
        self.usage = self.usage + reply.usage
        self.cost_usd += reply.cost_usd
        self.model_calls += 1
        if reply.model and reply.model not in self.models_reported:
            self.models_reported.append(reply.model)

    def exceeded(self, limits: Limits) -> str | None:
        if limits.max_dollars is not None and self.cost_usd >= limits.max_dollars:
            return "max_dollars"
        if limits.max_tokens is not None and self.usage.total >= limits.max_tokens:
            return "max_tokens"
        if limits.max_turns is not None and self.turns >= limits.max_turns:
            return "max_turns"
        return None

    def summary(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "model_calls": self.model_calls,
            "env_calls": self.env_calls,
            "malformed_replies": self.malformed,
            "tokens": asdict(self.usage),
            "cost_usd": round(self.cost_usd, 6),
            "model_reported": self.models_reported,
        }


@dataclass
class AgentRun:
    """A model, its trajectory, meter and limits: what every harness shares.

    :meth:`ask` is the only way a harness calls the model: it records the call, charges the
    meter and turns a provider failure into an ended run (``stopped`` says why)."""

    model: ModelClient
    trajectory: Trajectory
    limits: Limits = Limits()
    meter: Meter = field(default_factory=Meter)
    stopped: str | None = None

    def ask(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **context: Any
    ) -> ModelReply | None:
        """One model call (``context``: turn, sim time ...); None once the run must stop."""
        if self.stopped is None:
            self.stopped = self.meter.exceeded(self.limits)
        if self.stopped is not None:
            return None
        summary = {"messages": len(messages), "chars": sum(len(str(m.get("content") or "")) for m in messages)}
        try:
            reply = self.model.complete(messages, tools)
        except ModelError as e:
            self.trajectory.event("model_error", error=str(e), attempts=e.attempts, **context)
            self.stopped = "model_error"
            return None
        self.meter.add(reply)
        if self.limits.max_dollars is not None and getattr(self.model, "price_known", None) is False:
            self.stopped = "max_dollars_unpriced"  # a dollar budget cannot be kept without a price
        self.trajectory.event(
            "model_call",
            request=summary,
            content=reply.content,
            reasoning=reply.reasoning,
            tool_calls=[{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls],
            tokens=asdict(reply.usage),
            cost_usd=reply.cost_usd,
            model=reply.model,
            finish_reason=reply.finish_reason,
            latency_s=round(reply.latency_s, 4),
            attempts=reply.attempts,
            **context,
        )
        return reply

    def tool(self, name: str, arguments: Any, ok: bool, result: Any, **context: Any) -> None:
        """Record one executed (or refused) tool call."""
        self.meter.env_calls += 1
        self.trajectory.event("tool_call", name=name, arguments=arguments, ok=ok, result=result, **context)

    def feedback(self, message: str, **context: Any) -> None:
        """Record the harness's answer to a malformed reply (it counts toward the limits)."""
        self.meter.malformed += 1
        self.trajectory.event("feedback", message=message, **context)
