"""The events of a model run's ``trajectory.jsonl``: one pydantic model per kind, one union.

Every line of ``trajectory.jsonl`` is one event, ``{"i": n, "wall_s": seconds since the run
began, "kind": ..., ...}``, appended and flushed as it happens (docs/run-format.md lists the
kinds and fields, from :func:`events_markdown`). :data:`Event` is the discriminated
union of the kinds, keyed by ``kind``; :func:`parse_event` validates one event and
:func:`read_events` reads a file. The writer is
:class:`bizbench.agents.recording.Trajectory`, which validates each event against this union
before it writes it.

Fields:

- every kind declares the fields its writers set: required where every writer sets them,
  optional (``None`` when absent) where only some harness does (``reset`` and
  ``auto_advance`` are written by several harnesses with different fields) or where older
  runs have it (a kind or field no writer sets any more stays readable);
- values that come from a model or an env (a reply's tool-call arguments, a tool result, an
  observation) are any JSON value. When one cannot be written as strict JSON (absurd nesting,
  an integer too long to print) the writer keeps a bounded preview string in its place;
- an event may carry fields beyond the declared ones (``extra="allow"``): a harness passes its
  context (its clock and what a call was about) to the shared ``model_call``, ``tool_call``
  and ``feedback`` writers, and an older or newer writer may add one. They are kept as read.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

__all__ = [
    "EVENT_MODELS",
    "AdvanceEvent",
    "AutoAdvanceEvent",
    "AutoPassEvent",
    "CommitFailedEvent",
    "EndEvent",
    "Event",
    "EventList",
    "FeedbackEvent",
    "HarnessErrorEvent",
    "ModelCallEvent",
    "ModelErrorEvent",
    "RecordedToolCall",
    "RequestSummary",
    "ResetEvent",
    "ServerErrorEvent",
    "SkippedCallsEvent",
    "TokenCounts",
    "ToolCallEvent",
    "TurnEvent",
    "WorkspaceEvent",
    "KINDS",
    "events_markdown",
    "parse_event",
    "read_events",
]


class _Part(BaseModel):
    """A structured value inside an event."""

    model_config = ConfigDict(extra="allow", frozen=True)


class RequestSummary(_Part):
    """What a model call sent: the number of messages and the characters of their contents."""

    messages: int
    chars: int


class TokenCounts(_Part):
    """Tokens of one call (``model_call``) or of the run (``end``)."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int
    reasoning_tokens: int


class RecordedToolCall(_Part):
    """One tool call of a reply, as the model sent it."""

    id: str
    name: str
    arguments: Any = Field(description="the parsed JSON object, or the raw text when it was not one")


class _Event(BaseModel):
    """Fields of every event."""

    model_config = ConfigDict(extra="allow", frozen=True)

    i: int = Field(description="the event's index in the file, from 0")
    wall_s: float = Field(description="seconds since the run began")


class _Clocked(_Event):
    """An event of the shared writers (:class:`~bizbench.agents.recording.AgentRun`): the harness
    adds its clock."""

    turn: int | None = Field(None, description="the turn")
    elapsed: int | None = Field(None, description="the elapsed count of the env's unit at the turn's start (terminal)")
    day: int | None = Field(None, description="the simulated day (terminal runs before it drove every env)")
    time: str | int | None = Field(
        None, description="cli-chat: the simulated time (yc: ISO; other envs: the elapsed count of the env's unit)"
    )
    month: int | None = Field(None, description="the month (react-json runs before it drove every env)")


class ModelCallEvent(_Clocked):
    """One model reply."""

    kind: Literal["model_call"] = "model_call"
    request: RequestSummary = Field(description="what was sent")
    content: str = Field(description="the reply's text")
    reasoning: str | None = Field(description="the reasoning the provider returned, if any")
    tool_calls: list[RecordedToolCall] | str = Field(
        description="the reply's tool calls (a bounded preview string when they could not be written as JSON)"
    )
    tokens: TokenCounts
    cost_usd: float
    model: str = Field(description="the model as the API reported it")
    finish_reason: str | None
    latency_s: float
    attempts: list[dict[str, Any]] = Field(description="failed attempts before this reply (retries)")


class ModelErrorEvent(_Clocked):
    """The model could not answer (after the client's retries); the run ends with ``model_error``."""

    kind: Literal["model_error"] = "model_error"
    error: str
    attempts: list[dict[str, Any]]


class ToolCallEvent(_Clocked):
    """One executed tool call, accepted or refused by the env."""

    kind: Literal["tool_call"] = "tool_call"
    name: str = Field(description="the env's tool (terminal: the harness's tool)")
    arguments: Any = Field(description="the arguments as run")
    ok: bool
    result: Any = Field(description="the result, or the error when not ok")
    command: str | None = Field(None, description="the command line as the model wrote it (cli-chat)")
    type: str | None = Field(None, description='the block\'s type: "tool", "action" or "memory" (react-json)')
    seconds: float | None = Field(None, description="how long the tool ran (terminal)")


class FeedbackEvent(_Clocked):
    """The harness's one line of feedback on a malformed reply or call (it counts toward the limits)."""

    kind: Literal["feedback"] = "feedback"
    message: str
    tool: str | None = Field(None, description="the tool the malformed call named (cli-chat, terminal)")
    arguments: Any = Field(None, description="a preview of the malformed call's arguments (cli-chat)")


class ResetEvent(_Event):
    """A fresh context: react-json and terminal at every turn."""

    kind: Literal["reset"] = "reset"
    turn: int | None = Field(None, description="the turn")
    elapsed: int | None = Field(None, description="the elapsed count of the env's unit")
    observation: dict[str, Any] | None = Field(None, description="the turn's observation")
    month: int | None = Field(None, description="the month (react-json runs before it drove every env)")
    day: int | None = Field(None, description="the first day of the week (terminal runs before it drove every env)")
    memory: str | None = Field(None, description="MEMORY.md as shown, cut to the limit (terminal)")
    memory_chars: int | None = Field(None, description="the length of the whole file (terminal)")
    memory_cut: bool | None = Field(None, description="whether it was cut (terminal)")
    memory_problem: str | None = Field(None, description="why the file could not be used (terminal)")
    dashboard: str | None = Field(None, description="the week's dashboard (terminal runs before it drove every env)")
    note: str | None = Field(None, description="what the harness told the model about the last turn (terminal)")


class TurnEvent(_Event):
    """The status a cli-chat turn began with."""

    kind: Literal["turn"] = "turn"
    turn: int
    time: str | int = Field(description="the simulated time (yc: ISO; other envs: the elapsed count of the env's unit)")
    observation: dict[str, Any] = Field(description="the status shown to the model")


class AutoAdvanceEvent(_Event):
    """The harness ended the turn itself: cli-chat after idle turns, react-json when the turn's budget or
    reply cap is spent, terminal at the weekly call cap."""

    kind: Literal["auto_advance"] = "auto_advance"
    turn: int
    ok: bool | None = Field(None, description="whether time moved on (cli-chat, terminal)")
    idle_turns: int | None = Field(None, description="turns without time moving on (cli-chat)")
    time_before: str | int | None = Field(None, description="the simulated time before (cli-chat; as in `turn`)")
    time: str | int | None = Field(None, description="the simulated time after (cli-chat)")
    reason: str | None = Field(None, description="why the turn was ended (react-json)")
    elapsed: int | None = Field(None, description="the elapsed count of the env's unit at the turn's start (terminal)")
    day: int | None = Field(None, description="the day the week began (terminal runs before it drove every env)")
    calls: int | None = Field(None, description="the turn's calls (terminal)")
    error: Any = Field(None, description="why the seat refused, when not ok (terminal)")
    result: Any = Field(None, description="what sim resume returned (cli-chat runs before it drove every env)")


class AutoPassEvent(_Event):
    """Read from older runs only: react-json closed a cfo month with pass (today: `auto_advance`)."""

    kind: Literal["auto_pass"] = "auto_pass"
    month: int
    reason: str


class EndEvent(_Event):
    """The last event: why the run ended and its meters."""

    kind: Literal["end"] = "end"
    ended_by: str = Field(description="completed, bankrupt, a limit, model_error, harness_error ...")
    turns: int
    model_calls: int
    env_calls: int
    malformed_replies: int
    tokens: TokenCounts
    cost_usd: float
    model_reported: list[str] = Field(description="the models the API reported")
    price_known: bool | None = Field(None, description="false when the model has no price (costs are not known)")
    unpriced_models: list[str] | None = None
    sampling_dropped: dict[str, Any] | None = Field(None, description="sampling options the provider dropped")
    replay_mismatches: list[dict[str, Any]] | None = Field(None, description="a replayed run's request mismatches")


class HarnessErrorEvent(_Event):
    """The harness raised; the run ends with ``harness_error`` and is still written."""

    kind: Literal["harness_error"] = "harness_error"
    error: str
    traceback: str


class WorkspaceEvent(_Event):
    """terminal: the workspace committed at the start and when the run ends."""

    kind: Literal["workspace"] = "workspace"
    elapsed: int | None = Field(None, description="the elapsed count of the env's unit")
    day: int | None = Field(None, description="the simulated day (terminal runs before it drove every env)")
    commit: str | None = Field(description="the git commit, or null when git failed")
    workspace: str | None = Field(None, description="the workspace folder (at the start)")
    run_dir: str | None = Field(None, description="the served seat's run directory (at the start)")
    ended_by: str | None = Field(None, description="why the run ended (at the end)")


class AdvanceEvent(_Event):
    """terminal: a turn ended (by the agent's tools or the harness)."""

    kind: Literal["advance"] = "advance"
    from_elapsed: int | None = Field(None, description="the elapsed count of the env's unit before")
    to_elapsed: int | None = Field(None, description="the elapsed count after")
    from_day: int | None = Field(None, description="the day before (terminal runs before it drove every env)")
    to_day: int | None = Field(None, description="the day after (idem)")
    turn: int
    calls: int
    auto: bool = Field(description="whether the harness ended the turn")
    commit: str | None
    cash: float | None = Field(None, description="ceo's cash after (terminal runs before it drove every env)")
    done: bool


class SkippedCallsEvent(_Event):
    """terminal: calls of a reply left unexecuted because the turn had changed or its cap was reached."""

    kind: Literal["skipped_calls"] = "skipped_calls"
    elapsed: int | None = Field(None, description="the elapsed count of the env's unit at the turn's start")
    day: int | None = Field(None, description="the day (terminal runs before it drove every env)")
    turn: int
    names: list[str]
    reason: str


class CommitFailedEvent(_Event):
    """terminal: a git commit of the workspace failed; the run goes on."""

    kind: Literal["commit_failed"] = "commit_failed"
    elapsed: int | None = Field(None, description="the elapsed count of the env's unit")
    day: int | None = Field(None, description="the day (terminal runs before it drove every env)")
    subject: str
    error: str


class ServerErrorEvent(_Event):
    """terminal: the served seat failed; the run ends with ``server_error``."""

    kind: Literal["server_error"] = "server_error"
    error: str


Event = Annotated[
    Union[  # noqa: UP007 - the kinds, in the order docs/run-format.md lists them
        ModelCallEvent,
        ModelErrorEvent,
        ToolCallEvent,
        FeedbackEvent,
        EndEvent,
        HarnessErrorEvent,
        ResetEvent,
        TurnEvent,
        AutoAdvanceEvent,
        AutoPassEvent,
        WorkspaceEvent,
        AdvanceEvent,
        SkippedCallsEvent,
        CommitFailedEvent,
        ServerErrorEvent,
    ],
    Field(discriminator="kind"),
]
"""One trajectory event: the model of its ``kind``."""

#: The model of every kind, in the union's order.
EVENT_MODELS: tuple[type[_Event], ...] = typing.get_args(typing.get_args(Event)[0])

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
KINDS: tuple[str, ...] = tuple(m.model_fields["kind"].default for m in EVENT_MODELS)


def parse_event(row: Any) -> Event:
    """The typed event of one decoded line; ValueError naming the kind and the fields otherwise."""
    if not isinstance(row, dict):
        raise ValueError(f"a trajectory event is a JSON object, not {type(row).__name__}")
    kind = row.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown trajectory event kind {kind!r} (known: {', '.join(KINDS)})")
    try:
        return _ADAPTER.validate_python(row)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'][1:]) or '(event)'}: {err['msg']}" for err in e.errors()
        )
        raise ValueError(f"trajectory event {kind!r}: {problems}") from None


class EventList(list[Event]):
    """The events of a trajectory file; ``skipped`` counts the lines that are not an event (a
    line cut short by a kill, a line that is not JSON or does not validate)."""

    skipped: int = 0


def read_events(path: Path) -> EventList:
    """The typed events of a ``trajectory.jsonl``, in order; unreadable lines are skipped and
    counted in ``skipped`` (a missing file gives no events)."""
    events = EventList()
    path = Path(path)
    if not path.is_file():
        return events
    with path.open(errors="replace") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                events.append(parse_event(json.loads(line)))
            except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
                events.skipped += 1
    return events


# ---------------------------------------------------------------------------- documentation
def _type_name(annotation: Any) -> str:
    """A short, readable name of a field's type (``int | null``, ``list[RecordedToolCall]`` ...)."""
    if annotation is Any:
        return "any JSON"
    if annotation is type(None):
        return "null"
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(annotation))
    if origin is Literal:
        return " or ".join(json.dumps(a) for a in typing.get_args(annotation))
    if origin is list:
        return f"list[{_type_name(typing.get_args(annotation)[0])}]"
    if origin is dict:
        return "object"
    if isinstance(annotation, type) and issubclass(annotation, _Part):
        fields = ", ".join(annotation.model_fields)
        return f"{{{fields}}}"
    names = {int: "int", float: "number", str: "string", bool: "bool"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def events_markdown() -> str:
    """The event kinds and their fields as markdown (docs/run-format.md holds this text; a test
    checks that it is current)."""
    clock = [name for name in _Clocked.model_fields if name not in _Event.model_fields]
    lines = [
        "Every event has `i` (int, its index in the file from 0), `wall_s` (number, seconds since the run",
        "began) and `kind`. A field marked **required** is in every event of its kind; the others are",
        "absent (or null) when the writer does not set them. `model_call`, `model_error`, `tool_call` and",
        "`feedback` also carry the harness's clock, whichever applies, and may carry other context a",
        "harness passes:",
        "",
        *(_field_line(name, _Clocked.model_fields[name], "") for name in clock),
        "",
        "The kinds: the shared ones first (`AgentRun`, then the runner's last two), then those of a harness:",
        "",
    ]
    for model in EVENT_MODELS:
        kind = model.model_fields["kind"].default
        doc = " ".join((model.__doc__ or "").split()).replace("``", "`")
        lines.append(f"- `{kind}`: {doc}")
        for name, field in model.model_fields.items():
            if name in _Event.model_fields or name == "kind" or (issubclass(model, _Clocked) and name in clock):
                continue
            lines.append(_field_line(name, field, "  "))
    return "\n".join(lines) + "\n"


def _field_line(name: str, field: Any, indent: str) -> str:
    text = f"{indent}- `{name}` ({_type_name(field.annotation)}"
    text += ", **required**)" if field.is_required() else ")"
    return text + (f": {field.description}" if field.description else "")
