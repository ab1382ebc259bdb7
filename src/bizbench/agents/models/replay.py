"""The replay model: the model replies recorded in a run directory, in order (``replay:RUN_DIR``).

Every ``model_call`` event of the run's ``trajectory.jsonl`` is one reply (content, tool
calls with their ids, reasoning, tokens, cost, the model the API reported, finish reason,
latency and failed attempts); a recorded ``model_error`` is raised again at the same
point, so a replay ends where the run ended. With the same env, seed and harness the
replay reproduces the run's result.

Each call's request summary (``{"messages": n, "chars": c}``, as
:meth:`~bizbench.agents.recording.AgentRun.ask` records it) is compared to the recorded one:

- a different number of messages means the harness has taken another path: the recorded
  replies no longer answer this conversation, so the call raises :class:`ModelError`;
- the same number of messages with a different character count is recorded in
  ``mismatches`` and replaying goes on (tool output that holds times, hashes or paths can
  change length without the run changing course);
- ``strict=True`` makes every mismatch an error.

Asking for more replies than were recorded raises :class:`ModelError` naming the count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bizbench.agents.models.base import ModelError, ModelReply, ToolCall, Usage

__all__ = ["ReplayModel", "request_summary"]


def request_summary(messages: list[dict[str, Any]]) -> dict[str, int]:
    """What the trajectory records of a request (the same sum as ``AgentRun.ask``)."""
    return {"messages": len(messages), "chars": sum(len(str(m.get("content") or "")) for m in messages)}


class ReplayModel:
    """Replays the recorded model calls of ``run_dir``."""

    def __init__(self, run_dir: str | Path, strict: bool = False) -> None:
        self.run_dir = Path(run_dir)
        path = self.run_dir / "trajectory.jsonl"
        if not path.is_file():
            raise ValueError(f"replay: {path} not found (replay:RUN_DIR needs a run directory with a trajectory)")
        self.events: list[dict[str, Any]] = []
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"replay: {path} line {n} is not JSON ({e})") from None
            if isinstance(event, dict) and event.get("kind") in ("model_call", "model_error"):
                self.events.append(event)
        config = _read_json(self.run_dir / "config.json")
        self.name = f"replay:{self.run_dir}"
        #: The model string of the recorded run (config.json), for reports.
        self.recorded_name: str | None = config.get("model")
        self.sampling: dict[str, Any] = dict(config.get("sampling") or {})
        self.strict = strict
        self.calls = 0
        #: Requests whose summary differs from the recorded one: ``{"call", "recorded", "now"}``.
        self.mismatches: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return f"ReplayModel({str(self.run_dir)!r}, {len(self.events)} recorded calls)"

    def skip(self, n: int) -> None:
        """Pass over ``n`` recorded replies (a resumed run has already replayed them)."""
        self.calls += n

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        index = self.calls
        self.calls += 1
        if index >= len(self.events):
            raise ModelError(
                f"replay: the run asks for model reply {index + 1} but {self.run_dir} recorded only "
                f"{len(self.events)}; the env, seed, harness or limits differ from the recorded run"
            )
        event = self.events[index]
        now = request_summary(messages)
        recorded = event.get("request")
        if isinstance(recorded, dict) and recorded != now:
            self.mismatches.append({"call": index + 1, "recorded": recorded, "now": now})
            if self.strict or recorded.get("messages") != now["messages"]:
                raise ModelError(
                    f"replay: request {index + 1} no longer matches the recorded run ({recorded} recorded, "
                    f"{now} now); the harness has taken another path"
                )
        if event["kind"] == "model_error":
            raise ModelError(str(event.get("error") or "recorded model error"), list(event.get("attempts") or []))
        return reply_from_event(event)


def reply_from_event(event: dict[str, Any]) -> ModelReply:
    """A recorded ``model_call`` event -> the ModelReply it recorded."""
    calls = [
        ToolCall(str(c.get("id", "")), str(c.get("name", "")), c.get("arguments", {}))
        for c in event.get("tool_calls") or []
        if isinstance(c, dict)
    ]
    tokens = event.get("tokens") or {}
    fields = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")
    return ModelReply(
        content=str(event.get("content") or ""),
        tool_calls=calls,
        reasoning=event.get("reasoning"),
        usage=Usage(**{k: int(tokens.get(k) or 0) for k in fields}),
        cost_usd=float(event.get("cost_usd") or 0.0),
        model=str(event.get("model") or ""),
        finish_reason=event.get("finish_reason"),
        latency_s=float(event.get("latency_s") or 0.0),
        attempts=list(event.get("attempts") or []),
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}
