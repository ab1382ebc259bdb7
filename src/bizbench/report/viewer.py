"""The static HTML trajectory viewer (``bizbench view RUN [RUN...] -o DIR``).

:func:`load_run` reads one run directory (:mod:`bizbench.core.runs`, plus ``trajectory.jsonl``
of model runs) into a plain data model cut into the env's periods. What differs per env comes
from its viewer module (``envs/<id>/viewer.py``, :class:`~bizbench.core.reporting.ViewerModule`,
found through the env's spec): how a row, an action or an event falls into a period (ceo:
weeks of days, yc: turns, cfo: months), the money series, the other charts, the key metrics
and the memory file. An env without a viewer module is shown with the defaults
(:class:`_Defaults`): periods numbered by the spec's unit, cash, no other chart, no memory.
Each period holds:

- the end-of-period metrics row (flattened one level);
- the *messages*: model replies and reasoning, rationales (an accepted call's ``rationale``
  argument, e.g. ceo ``next_week``), what the agent was shown (observation, dashboard) and
  the harness's notices (feedback, auto-advance ...);
- the *actions*: every call with its arguments and result. A model run lists its
  trajectory's tool calls, which carry the results; a baseline or a user's agent lists
  ``actions.jsonl`` (ok / error only, the baselines keep no results); where the env's viewer
  module says so (ceo: the terminal harness's tools are not the env's), a model run lists
  both, the harness tools (bash, write_file ...) and the simulator calls its SDK made;
- the memory file as it was (the env's ``memory``: ceo MEMORY.md as the harness showed it,
  the yc scratchpad and the cfo notepad replayed from their writes).

:func:`write_viewer` puts one or more runs into ``DIR/index.html``: the data goes into a
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped as JSON
``\\u`` escapes, so no agent text can close the block; the page (the package data file
``viewer_template.html``) inserts every text with ``textContent`` and its
Content-Security-Policy forbids any network request. Every text of an event is cut at
``text_cap`` characters (memory snapshots and the system prompt at :data:`LONG_TEXT_CAP`)
with a visible marker, and the page says how many texts were cut.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from bizbench.core.jsonio import finite
from bizbench.core.reporting import Call, Panel, Periods, number
from bizbench.core.runs import Run, RunDirError, is_human
from bizbench.core.runs import load_run as read_run

__all__ = ["DEFAULT_TEXT_CAP", "LONG_TEXT_CAP", "ViewerError", "build_page", "load_run", "write_viewer"]

DEFAULT_TEXT_CAP = 4096  # characters of one text of an event (a reply, arguments, a result)
LONG_TEXT_CAP = 40_000  # a memory snapshot or the system prompt (MEMORY.md is shown cut at 40,000)
DATA_MARK = "__BIZBENCH_VIEWER_DATA__"
#: result.json fields shown in a run's header before and after the env's own (its RESULT_KEYS)
RESULT_FIRST = ("ended_by",)
RESULT_LAST = ("turns", "tool_calls", "model_calls", "malformed_replies", "cost_usd")
#: trajectory kinds shown as notices among the messages (the rest are replies, calls or observations)
NOTICE_KINDS = (
    "feedback",
    "auto_advance",
    "auto_pass",
    "skipped_calls",
    "advance",
    "model_error",
    "harness_error",
    "server_error",
    "commit_failed",
    "workspace",
    "end",
)


class ViewerError(ValueError):
    """A path is not a run directory (or runs cannot be compared); the message names it."""


# ---------------------------------------------------------------------------- reading
@dataclass
class _Texts:
    """Cuts texts at a cap and counts the cuts (the page reports them)."""

    cap: int
    truncated: int = 0

    def __call__(self, value: Any, cap: int | None = None) -> str:
        text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
        limit = self.cap if cap is None else cap
        if len(text) <= limit:
            return text
        self.truncated += 1
        return f"{text[:limit]}\n… [truncated: {len(text):,} characters, the first {limit:,} shown]"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _round(value: float) -> float:
    """Six significant digits: enough for a chart and a table, half the bytes of a full float."""
    return float(f"{value:.6g}")


# ---------------------------------------------------------------------------- env rules
class _Defaults:
    """What the viewer shows of an env whose viewer module leaves something out (docs/viewer.md)."""

    MONEY_NAME = "cash"
    MONEY_KEY = "cash"
    MONEY_METRICS: dict[str, float] = {"cash": 1}
    KEY_METRICS: tuple[str, ...] = ("cash",)
    PANELS: tuple[Panel, ...] = ()
    RESULT_KEYS = ("score", "final_cash", "bankrupt", "survived")
    MEMORY_LABEL = "memory"
    MEMORY_WHEN = ""  # "at the end of the <unit>"
    ENV_CALLS_WITH_TRAJECTORY = False

    @staticmethod
    def series(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {}

    @staticmethod
    def markers(row: dict[str, Any]) -> list[str]:
        return []

    @staticmethod
    def action_series(run: Run) -> dict[str, list[tuple[float, dict[str, Any]]]]:
        return {}

    @staticmethod
    def memory(run: Run, calls: list[Call], events: list[tuple[int, dict[str, Any]]]) -> Callable[[int], str] | None:
        return None


class _Rules:
    """An env's viewer module, with :class:`_Defaults` for what it leaves out."""

    def __init__(self, run: Run) -> None:
        spec = run.spec
        assert spec is not None
        self.module = spec.module("viewer") if spec.viewer else _Defaults
        make = getattr(self.module, "periods", None)
        self.periods: Periods = make(run) if make is not None else Periods(spec.unit, spec.unit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.module, name, getattr(_Defaults, name))


# ---------------------------------------------------------------------------- the run model
@dataclass
class _Period:
    metrics: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Run:
    run: Run
    rules: _Rules
    texts: _Texts
    periods: dict[int, _Period] = field(default_factory=dict)
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # trajectory events by period

    @property
    def path(self) -> Path:
        return self.run.path

    def at(self, period: int) -> _Period:
        return self.periods.setdefault(max(period, 0), _Period())


def _flat_metrics(row: dict[str, Any], texts: _Texts) -> dict[str, Any]:
    """A metrics row for the period table: floats to 4 decimals (cents stay exact), dicts of numbers
    one level deep (``subscribers_by_group.S1``), lists and other objects as (cut) JSON text."""

    def exact(v: Any) -> Any:
        return round(v, 4) if isinstance(v, float) and math.isfinite(v) else v

    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, dict) and all(number(v) is not None or v is None for v in value.values()):
            for k, v in value.items():
                out[f"{key}.{k}"] = exact(v)
        elif number(value) is not None:
            out[key] = exact(value)
        elif value is None or isinstance(value, (bool, str)):
            out[key] = value if not isinstance(value, str) else texts(value)
        else:
            out[key] = texts(value)
    return out


def _metrics_and_charts(run: _Run) -> list[dict[str, Any]]:
    """Per-period metrics rows and the charts' series, from metrics.jsonl: the money chart, then
    the env's panels that have data (a ``fill_zero`` panel's series absent from a row was 0)."""
    rules = run.rules
    divisor = rules.MONEY_METRICS.get(rules.MONEY_KEY, 1)
    cash: list[list[float]] = []
    marks: list[list[Any]] = []  # [x, money, label] of each event the env marks on the money chart
    panels = {panel.id: panel for panel in rules.PANELS}
    points: dict[str, list[tuple[float, dict[str, Any]]]] = {}  # panel -> (x, {series: value}) per row
    for row in run.run.metrics:
        where = rules.periods.of_row(row)
        if where is None:
            continue
        x, period = where
        money = number(row.get(rules.MONEY_KEY))
        if money is not None:
            cash.append([x, _round(money / divisor)])
            marks += [[x, _round(money / divisor), run.texts(label)] for label in rules.markers(row)]
        for chart, values in rules.series(row).items():
            points.setdefault(chart, []).append((x, values))
        run.at(period).metrics = _flat_metrics(row, run.texts)
    for chart, rows in rules.action_series(run.run).items():
        points.setdefault(chart, []).extend(rows)
    name = str(rules.MONEY_NAME)
    charts: list[dict[str, Any]] = [
        {"id": "cash", "title": f"{name.capitalize()} ($)", "money": True, "series": [cash], "markers": marks}
    ]
    for chart, rows in points.items():
        panel = panels.get(chart, Panel(chart, chart))
        series: dict[str, list[list[float]]] = {}
        if panel.fill_zero:
            for key in sorted({key for _, values in rows for key in values}):
                series[key] = [[x, _round(number(values.get(key)) or 0.0)] for x, values in rows]
        else:
            for x, values in rows:
                for key, y in values.items():
                    value = number(y)
                    if value is not None:
                        series.setdefault(key, []).append([x, _round(value)])
        if series:
            charts.append(
                {
                    "id": chart,
                    "title": panel.title,
                    "money": panel.money,
                    "names": list(series),
                    "series": list(series.values()),
                }
            )
    order = [panel.id for panel in rules.PANELS]
    charts[1:] = sorted(charts[1:], key=lambda c: order.index(c["id"]) if c["id"] in order else len(order))
    return charts


def _one_line(fields: dict[str, Any]) -> str:
    """A notice's fields as ``key: value · key: value`` (strings bare, the rest as compact JSON)."""
    return " · ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v, default=str)}" for k, v in fields.items())


def _call(period: int, src: str, name: Any, args: Any, ok: bool, result: Any, error: Any) -> dict[str, Any]:
    """One recorded call: ``src`` is "env" (actions.jsonl) or "tool" (trajectory.jsonl)."""
    return {"period": period, "src": src, "name": str(name), "args": args, "ok": ok, "result": result, "error": error}


def _action_rows(run: _Run) -> list[dict[str, Any]]:
    """actions.jsonl as calls: tool, arguments, ok, error (no results: the env log keeps none)."""
    rows = run.run.actions
    calls = []
    for row, period in zip(rows, run.rules.periods.of_actions(rows), strict=True):
        ok = bool(row.get("ok"))
        call = _call(period, "env", row.get("tool"), row.get("args"), ok, None, row.get("error"))
        call["at"] = row.get(run.rules.periods.key, row.get("day", row.get("time", row.get("month"))))
        calls.append(call)
    return calls


def _reply(event: dict[str, Any], texts: _Texts) -> dict[str, Any]:
    """A model_call event for the page: reply, reasoning, the calls it asked for, tokens and cost
    (a pathological event keeps only reprs of its fields, so nothing here trusts a type)."""
    out: dict[str, Any] = {"text": texts(event.get("content") or "")}
    if event.get("reasoning"):
        out["reasoning"] = texts(event["reasoning"])
    calls = event.get("tool_calls")
    if isinstance(calls, list) and calls:
        named = [c if isinstance(c, dict) else {"name": c} for c in calls]
        out["call_names"] = texts(", ".join(str(c.get("name")) for c in named), 500)
        out["calls"] = texts(
            "\n".join(f"{c.get('name')}({json.dumps(c.get('arguments'), default=str)})" for c in named)
        )
    elif calls:
        out["calls"] = texts(calls)
    tokens = _dict(event.get("tokens"))
    used = [int(number(tokens.get(k)) or 0) for k in ("input_tokens", "output_tokens")]
    out["meta"] = f"{used[0]:,} in / {used[1]:,} out tokens"
    cost = number(event.get("cost_usd"))
    if cost:
        out["meta"] += f", ${cost:.4f}"
    return out


def _trajectory(run: _Run) -> list[dict[str, Any]]:
    """trajectory.jsonl as calls (with results) and messages, each with its period."""
    calls: list[dict[str, Any]] = []
    period = 0
    texts = run.texts
    for event in run.run.trajectory:
        kind = str(event.get("kind"))
        period = run.rules.periods.of_event(event, period)
        run.events.append((period, event))
        i = event.get("i")
        if kind == "tool_call":
            ok, answer = bool(event.get("ok")), event.get("result")
            result, error = (answer, None) if ok else (None, answer)  # a refused call's result is its error
            call = _call(period, "tool", event.get("name"), event.get("arguments"), ok, result, error)
            call["i"] = i
            calls.append(call)
            continue
        message: dict[str, Any] = {"i": i, "kind": kind}
        if kind == "model_call":
            message.update(_reply(event, texts))
        elif kind in ("reset", "turn"):
            seen = event.get("dashboard") or event.get("observation")
            message["kind"] = "observation"
            message["text"] = texts(seen if seen is not None else "")
        else:
            rest = {k: v for k, v in event.items() if k not in ("i", "wall_s", "kind", "traceback")}
            message["text"] = texts(_one_line(rest))
            if kind not in NOTICE_KINDS:
                message["kind"] = f"event: {kind}"
        run.at(period).messages.append(message)
    return calls


# ---------------------------------------------------------------------------- memory
def _deltas(texts: list[str], cut: Callable[[str], str]) -> list[dict[str, Any]]:
    """Each memory snapshot against the one before it as the page shows it: how many characters
    it keeps from that one's start (``pre``) and end (``suf``), and the new text between
    (``mid``, cut by ``cut`` like every text). A notepad grows a note at a time, so the page
    grows with the notes, not with their square; the page rebuilds the texts in order."""
    out: list[dict[str, Any]] = []
    shown = ""
    for text in texts:
        pre = len(os.path.commonprefix([shown, text]))
        room = min(len(shown), len(text)) - pre
        suf = min(len(os.path.commonprefix([shown[::-1], text[::-1]])), room)
        mid = cut(text[pre : len(text) - suf])
        out.append({"pre": pre, "suf": suf, "mid": mid})
        shown = shown[:pre] + mid + shown[len(shown) - suf :]
    return out


# ---------------------------------------------------------------------------- assembly
def _call_view(call: dict[str, Any], texts: _Texts) -> dict[str, Any]:
    view: dict[str, Any] = {"src": call["src"], "name": texts(call["name"], 200), "ok": call["ok"]}
    if call.get("i") is not None:
        view["i"] = call["i"]
    if call.get("at") is not None:
        view["at"] = call["at"]
    view["args"] = texts(call["args"] if call["args"] is not None else {})
    for key in ("result", "error"):
        if call.get(key) is not None:
            view[key] = texts(call[key])
    return view


def _open(path: Path) -> Run:
    """The run directory at ``path`` (ViewerError naming it if it is not one of a known env)."""
    try:
        run = read_run(path)
    except RunDirError as e:
        raise ViewerError(str(e)) from None  # it names the path and what is wrong
    if run.spec is None:
        raise ViewerError(
            f"{path} is not a run directory of an env registered here: its config.json names env {run.env!r}"
        )
    return run


def load_run(path: str | Path, text_cap: int = DEFAULT_TEXT_CAP) -> dict[str, Any]:
    """One run directory as the viewer's data model (see the module docstring)."""
    path = Path(path)
    if text_cap < 100:
        raise ViewerError(f"the text cap must be at least 100 characters, got {text_cap}")
    record = _open(path)
    rules = _Rules(record)
    periods = rules.periods
    run = _Run(record, rules, _Texts(text_cap))
    charts = _metrics_and_charts(run)
    model_run = record.model_run
    tool_calls = _trajectory(run) if model_run else []
    env_calls = _action_rows(run) if (not model_run or rules.ENV_CALLS_WITH_TRAJECTORY) else []
    for call in env_calls:
        rationale = call["args"].get("rationale") if isinstance(call["args"], dict) else None
        if call["ok"] and isinstance(rationale, str):
            run.at(call["period"]).messages.append({"kind": "rationale", "text": run.texts(rationale)})
    replayed = [Call(c["period"], c["name"], c["args"], c["ok"]) for c in (tool_calls if model_run else env_calls)]
    memory = rules.memory(record, replayed, run.events)
    for call in tool_calls + env_calls:
        run.at(call["period"]).actions.append(_call_view(call, run.texts))

    count = max(run.periods, default=0) + 1
    snapshots: list[str] = []
    index: dict[str, int] = {}
    shown = []
    for p in range(count):
        period = run.periods.get(p, _Period())
        entry: dict[str, Any] = {
            "label": periods.label(p),
            "x": periods.span(p),
            "metrics": period.metrics,
            "messages": period.messages,
            "actions": period.actions,
        }
        if memory is not None:
            text = memory(p)
            entry["memory"] = index.setdefault(text, len(snapshots))
            if entry["memory"] == len(snapshots):
                snapshots.append(text)
        shown.append(entry)

    config, result = record.config, record.result
    prompt = record.text("system_prompt.txt")
    notes = []
    if result is None:
        notes.append("no result.json: the run did not finish (or is still running)")
        result = {}
    elif record.ended_early:
        notes.append(f"ended early ({record.ended_early}): bizbench report counts it as a failed run (score 0)")
    elif result.get("bankrupt"):
        notes.append("bankrupt: bizbench report counts it as a failed run (score 0; the papers' columns keep its cash)")
    if not model_run:
        notes.append("no trajectory.jsonl: actions only, with ok / error (the env's action log keeps no results)")
    label = " / ".join(str(config.get(k, "?")) for k in ("env", "preset", "agent")) + f" / seed {config.get('seed')}"
    seat = config.get("arena")
    if isinstance(seat, dict):  # an arena's company (docs/arena.md)
        label += f" / seat {seat.get('seat')} of {seat.get('seats')}{_arena_rank(path, seat.get('seat'))}"
    result_keys = dict.fromkeys((*RESULT_FIRST, *rules.RESULT_KEYS, *RESULT_LAST))
    data = {
        "label": label,
        "dir": path.name,
        "path": str(path),
        "env": record.env,
        "unit": periods.unit,
        "first": periods.first,
        "x_label": periods.x_label,
        "money_key": rules.MONEY_KEY,
        "money_metrics": dict(rules.MONEY_METRICS),
        "key_metrics": list(rules.KEY_METRICS),
        "memory_label": rules.MEMORY_LABEL,
        "memory_when": rules.MEMORY_WHEN or f"at the end of the {periods.unit}",
        "model_run": model_run,
        "run_kind": "model run"
        if model_run
        else "a person's game (bizbench play; actions only)"
        if is_human(config.get("agent"))
        else "baseline / agent (actions only)",
        "setup": {k: config[k] for k in ("preset", "seed", "agent", "model", "harness") if config.get(k) is not None},
        "result": {k: result[k] for k in result_keys if k in result},
        "charts": charts,
        "periods": shown,
        "memory": _deltas(snapshots, lambda text: run.texts(text, LONG_TEXT_CAP)) if memory is not None else None,
        "system_prompt": run.texts(prompt, LONG_TEXT_CAP) if prompt is not None else None,
        "notes": notes,
    }
    data["truncated"] = run.texts.truncated
    return data


def _arena_rank(seat_dir: Path, seat: Any) -> str:
    """``, rank r`` of an arena's company from its arena's standings.json, or "" before it exists."""
    try:
        standings = json.loads((seat_dir.parent / "standings.json").read_text(encoding="utf-8"))["standings"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    rank = next((row.get("rank") for row in standings if isinstance(row, dict) and row.get("seat") == seat), None)
    return f", rank {rank}" if rank is not None else ""


def _embed(payload: dict[str, Any]) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' survives (they become \\u escapes), and the
    ASCII output escapes U+2028/2029."""
    text = json.dumps(finite(payload), ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def build_page(runs: list[dict[str, Any]], text_cap: int = DEFAULT_TEXT_CAP) -> str:
    """The viewer page of loaded runs (:func:`load_run`), all data inlined."""
    if not runs:
        raise ViewerError("give at least one run directory")
    envs = sorted({r["env"] for r in runs})
    if len(envs) > 1:
        listed = ", ".join(f"{r['path']} ({r['env']})" for r in runs)
        raise ViewerError(f"runs of different envs cannot be compared period by period: {listed}")
    labels = [r["label"] for r in runs]
    for r in runs:
        if labels.count(r["label"]) > 1:
            r["label"] = f"{r['label']} ({r['dir']})"
    from bizbench import __version__

    payload = {"generator": f"bizbench {__version__} view", "text_cap": text_cap, "long_cap": LONG_TEXT_CAP}
    payload["runs"] = runs
    template = resources.files("bizbench.report").joinpath("viewer_template.html").read_text(encoding="utf-8")
    if template.count(DATA_MARK) != 1:
        raise RuntimeError("viewer_template.html must hold the data mark exactly once")
    return template.replace(DATA_MARK, _embed(payload))


def write_viewer(runs: Sequence[str | Path], out: str | Path, text_cap: int = DEFAULT_TEXT_CAP) -> Path:
    """Write ``out/index.html`` for one run, or a side-by-side comparison of several (an arena
    directory stands for its seats, its companies side by side); its path."""
    from bizbench.runner.arena import seat_dirs

    loaded = [load_run(seat, text_cap) for p in runs for seat in seat_dirs(p)]
    page = build_page(loaded, text_cap)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ViewerError(f"{out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
