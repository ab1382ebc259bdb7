"""The static HTML trajectory viewer (``bizbench view RUN [RUN...] -o DIR``).

:func:`load_run` reads one run directory (layout: :mod:`bizbench.runner.rundir`, plus
``trajectory.jsonl`` of model runs) into a plain data model cut into the env's periods
(ceo: weeks, yc: turns, cfo: months). Each period holds:

- the end-of-period metrics row (flattened one level);
- the *messages*: model replies and reasoning, ceo ``next_week`` rationales, what the agent
  was shown (observation, dashboard) and the harness's notices (feedback, auto-advance ...);
- the *actions*: every call with its arguments and result. A model run of an in-process
  harness (yc cli-chat, cfo react-json) lists its trajectory's tool calls, which carry the
  results; a baseline or a user's agent lists ``actions.jsonl`` (ok / error only, the
  baselines keep no results); a ceo terminal run lists both, the harness tools (bash,
  write_file ...) and the simulator calls its SDK made;
- the memory file as it was: ceo MEMORY.md as the harness showed it at the week's start
  (``reset`` events), the yc scratchpad replayed from its successful writes, the cfo
  notepad replayed from ``save_note`` (with the preset's ``max_notes`` cap).

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

from bizbench.runner.rundir import finite, iter_jsonl

__all__ = ["DEFAULT_TEXT_CAP", "LONG_TEXT_CAP", "ViewerError", "build_page", "load_run", "write_viewer"]

DEFAULT_TEXT_CAP = 4096  # characters of one text of an event (a reply, arguments, a result)
LONG_TEXT_CAP = 40_000  # a memory snapshot or the system prompt (MEMORY.md is shown cut at 40,000)
ENVS = ("ceo", "yc", "cfo")
DATA_MARK = "__BIZBENCH_VIEWER_DATA__"
#: ceo metrics dicts drawn as customers by group: (series prefix, metrics key)
CEO_GROUPS = (("subscribers", "subscribers_by_group"), ("seats", "seats_by_group"))
#: result.json fields shown in a run's header, in this order, when present
RESULT_KEYS = (
    "ended_by",
    "score",
    "final_cash",
    "final_funds",
    "bankrupt",
    "days_survived",
    "months_survived",
    "turns",
    "final_subscribers",
    "peak_subscribers",
    "tasks_succeeded",
    "tasks_failed",
    "tool_calls",
    "model_calls",
    "malformed_replies",
    "cost_usd",
)
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
def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


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


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _round(value: float) -> float:
    """Six significant digits: enough for a chart and a table, half the bytes of a full float."""
    return float(f"{value:.6g}")


# ---------------------------------------------------------------------------- env rules
@dataclass
class _Env:
    """What differs per env: the period unit, where a row falls, the charts and the memory."""

    unit: str
    x_label: str
    memory_label: str
    first: int  # number of the first period (yc turns count from 1)

    def label(self, period: int) -> str:
        return f"{self.unit.capitalize()} {period + self.first}"

    def span(self, period: int) -> list[float]:
        """The period's stretch of the charts' x axis."""
        return [period + self.first - 0.5, period + self.first + 0.5]


@dataclass
class _Ceo(_Env):
    per: int = 7
    horizon: int = 0

    def label(self, period: int) -> str:
        end = min((period + 1) * self.per, self.horizon) if self.horizon else (period + 1) * self.per
        return f"Week {period + 1} (days {period * self.per}–{end})"

    def span(self, period: int) -> list[float]:
        end = (period + 1) * self.per
        return [float(period * self.per), float(min(end, self.horizon) if self.horizon else end)]


def _env_rules(config: dict[str, Any]) -> _Env:
    env = config.get("env")
    if env == "ceo":
        inner = _dict(config.get("config"))
        horizon = int(config.get("horizon_days") or inner.get("horizon_days") or 0)
        return _Ceo("week", "day", "MEMORY.md", 1, per=int(inner.get("days_per_turn") or 7), horizon=horizon)
    if env == "yc":
        return _Env("turn", "turn", "scratchpad", 1)
    return _Env("month", "month", "notes", 0)


# ---------------------------------------------------------------------------- the run model
@dataclass
class _Period:
    metrics: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Run:
    path: Path
    config: dict[str, Any]
    rules: _Env
    texts: _Texts
    periods: dict[int, _Period] = field(default_factory=dict)
    shown_memory: list[tuple[int, str, bool]] = field(default_factory=list)  # ceo resets: (period, text, cut)

    def at(self, period: int) -> _Period:
        return self.periods.setdefault(max(period, 0), _Period())


def _flat_metrics(row: dict[str, Any], texts: _Texts) -> dict[str, Any]:
    """A metrics row for the period table: floats to 4 decimals (cents stay exact), dicts of numbers
    one level deep (``subscribers_by_group.S1``), lists and other objects as (cut) JSON text."""

    def exact(v: Any) -> Any:
        return round(v, 4) if isinstance(v, float) and math.isfinite(v) else v

    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, dict) and all(_number(v) is not None or v is None for v in value.values()):
            for k, v in value.items():
                out[f"{key}.{k}"] = exact(v)
        elif _number(value) is not None:
            out[key] = exact(value)
        elif value is None or isinstance(value, (bool, str)):
            out[key] = value if not isinstance(value, str) else texts(value)
        else:
            out[key] = texts(value)
    return out


def _metrics_and_charts(run: _Run) -> list[dict[str, Any]]:
    """Per-period metrics rows and the charts' series, from metrics.jsonl."""
    env = run.config.get("env")
    cash: list[list[float]] = []
    groups: dict[str, dict[str, list[list[float]]]] = {}
    customers: list[tuple[float, dict[str, Any]]] = []  # ceo: (day, {"subscribers S1": n, ...})

    def add(chart: str, name: str, x: float, y: Any) -> None:
        value = _number(y)
        if value is not None:
            groups.setdefault(chart, {}).setdefault(name, []).append([x, _round(value)])

    for row in iter_jsonl(run.path / "metrics.jsonl"):
        if env == "ceo" and _number(row.get("day")) is not None:
            x, period = float(row["day"]), (int(row["day"]) - 1) // getattr(run.rules, "per", 7)
            money = row.get("cash")
            by_group = ((prefix, _dict(row.get(key))) for prefix, key in CEO_GROUPS)
            customers.append((x, {f"{prefix} {g}": n for prefix, d in by_group for g, n in d.items() if _number(n)}))
        elif env == "yc" and _number(row.get("turn")) is not None:
            x, period = float(row["turn"]), int(row["turn"]) - 1
            money = row["funds_cents"] / 100 if _number(row.get("funds_cents")) is not None else None
            add("activity", "active tasks", x, row.get("active_task_count"))
            add("activity", "runway (months)", x, row.get("runway_months"))
        elif env == "cfo" and _number(row.get("month")) is not None:
            x, period = float(row["month"]), int(row["month"])
            money = row.get("cash")
            for key in ("revenue", "originations"):
                add("flows", key, x, row.get(key))
            add("book", "borrowers", x, row.get("borrowers"))
        else:
            continue
        value = _number(money)
        if value is not None:
            cash.append([x, _round(value)])
        run.at(period).metrics = _flat_metrics(row, run.texts)
    for name in sorted({name for _, counts in customers for name in counts}):  # a group absent on a day had 0
        groups.setdefault("customers", {})[name] = [[x, _round(float(c.get(name, 0)))] for x, c in customers]
    money_name = "funds" if env == "yc" else "cash"
    charts = [{"id": "cash", "title": f"{money_name.capitalize()} ($)", "money": True, "series": [cash]}]
    titles = {
        "customers": ("Customers by group (subscribers, enterprise seats)", False),
        "activity": ("Active tasks and runway", False),
        "flows": ("Monthly revenue and originations ($)", True),
        "book": ("Borrowers", False),
    }
    for chart, series in groups.items():
        title, money_axis = titles[chart]
        charts.append(
            {
                "id": chart,
                "title": title,
                "money": money_axis,
                "names": list(series),
                "series": list(series.values()),
            }
        )
    return charts


def _action_periods(run: _Run, rows: list[dict[str, Any]]) -> list[int]:
    """The period of each actions.jsonl row.

    ceo rows carry the day; a successful ``next_week`` is logged after the week it ends has been
    simulated, so it belongs to the day of the row before it. cfo rows carry the month. yc rows
    carry a clock time only: a turn ends with its successful ``sim_resume``."""
    env = run.config.get("env")
    out: list[int] = []
    if env == "ceo":
        per, day = getattr(run.rules, "per", 7), 0
        for row in rows:
            logged = int(_number(row.get("day")) or 0)
            advanced = row.get("tool") == "next_week" and row.get("ok")
            out.append((day if advanced else logged) // per)
            day = logged
    elif env == "cfo":
        out = [int(_number(row.get("month")) or 0) for row in rows]
    else:
        turn = 0
        for row in rows:
            out.append(turn)
            if row.get("tool") == "sim_resume" and row.get("ok"):
                turn += 1
    return out


def _event_period(run: _Run, event: dict[str, Any], previous: int) -> int:
    """The period of a trajectory event (events without one belong to the period before them)."""
    env = run.config.get("env")
    if env == "cfo" and _number(event.get("month")) is not None:
        return int(event["month"])
    if env == "ceo" and _number(event.get("turn")) is not None:
        return int(event["turn"]) - 1
    if env == "ceo" and _number(event.get("day")) is not None:
        return int(event["day"]) // getattr(run.rules, "per", 7)
    if env == "yc" and _number(event.get("turn")) is not None:
        return int(event["turn"]) - 1
    return previous


def _one_line(fields: dict[str, Any]) -> str:
    """A notice's fields as ``key: value · key: value`` (strings bare, the rest as compact JSON)."""
    return " · ".join(f"{k}: {v if isinstance(v, str) else json.dumps(v, default=str)}" for k, v in fields.items())


def _call(period: int, src: str, name: Any, args: Any, ok: bool, result: Any, error: Any) -> dict[str, Any]:
    """One recorded call: ``src`` is "env" (actions.jsonl) or "tool" (trajectory.jsonl)."""
    return {"period": period, "src": src, "name": str(name), "args": args, "ok": ok, "result": result, "error": error}


def _action_rows(run: _Run) -> list[dict[str, Any]]:
    """actions.jsonl as calls: tool, arguments, ok, error (no results: the env log keeps none)."""
    rows = list(iter_jsonl(run.path / "actions.jsonl"))
    calls = []
    for row, period in zip(rows, _action_periods(run, rows), strict=True):
        ok = bool(row.get("ok"))
        call = _call(period, "env", row.get("tool"), row.get("args"), ok, None, row.get("error"))
        call["at"] = row.get("day", row.get("time", row.get("month")))
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
    used = [int(_number(tokens.get(k)) or 0) for k in ("input_tokens", "output_tokens")]
    out["meta"] = f"{used[0]:,} in / {used[1]:,} out tokens"
    cost = _number(event.get("cost_usd"))
    if cost:
        out["meta"] += f", ${cost:.4f}"
    return out


def _trajectory(run: _Run) -> list[dict[str, Any]]:
    """trajectory.jsonl as calls (with results) and messages, each with its period."""
    calls: list[dict[str, Any]] = []
    period = 0
    texts = run.texts
    for event in iter_jsonl(run.path / "trajectory.jsonl"):
        kind = str(event.get("kind"))
        period = _event_period(run, event, period)
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
            if kind == "reset" and run.config.get("env") == "ceo":
                run.shown_memory.append((period, event.get("memory") or "", bool(event.get("memory_cut"))))
        else:
            rest = {k: v for k, v in event.items() if k not in ("i", "wall_s", "kind", "traceback")}
            message["text"] = texts(_one_line(rest))
            if kind not in NOTICE_KINDS:
                message["kind"] = f"event: {kind}"
        run.at(period).messages.append(message)
    return calls


# ---------------------------------------------------------------------------- memory
def _content(call: dict[str, Any]) -> str | None:
    args = call.get("args")
    content = args.get("content") if isinstance(args, dict) else None
    return content if isinstance(content, str) else None


def _scratchpad(calls: list[dict[str, Any]]) -> Callable[[int], str] | None:
    """yc: the scratchpad after each period, replayed from its successful writes."""
    kinds = ("scratchpad_write", "scratchpad_append")
    writes = [c for c in calls if c["ok"] and c["name"] in kinds and _content(c) is not None]  # "" clears it
    if not writes:
        return None
    by_period: dict[int, list[dict[str, Any]]] = {}
    for c in writes:
        by_period.setdefault(c["period"], []).append(c)
    text, states = "", {}
    for period in range(max(by_period, default=0) + 1):
        for c in by_period.get(period, []):
            content = _content(c) or ""
            text = text + content if c["name"] == "scratchpad_append" else content
        states[period] = text
    last = max(states, default=0)
    return lambda period: states[min(period, last)]


def _notepad(calls: list[dict[str, Any]], config: dict[str, Any]) -> Callable[[int], str] | None:
    """cfo: the notes after each period, replayed from successful save_note calls (oldest dropped
    beyond the preset's ``max_notes``, as the notepad does); newest first."""
    saves = [c for c in calls if c["ok"] and c["name"] == "save_note" and _content(c) is not None]
    if not saves:
        return None
    agent = _dict(_dict(config.get("config")).get("agent"))
    cap, shown = agent.get("max_notes"), int(agent.get("notes_shown") or 5)
    notes: list[str] = []
    states: dict[int, str] = {}
    by_period: dict[int, list[dict[str, Any]]] = {}
    for c in saves:
        by_period.setdefault(c["period"], []).append(c)
    saved = 0
    for period in range(max(by_period) + 1):
        for c in by_period.get(period, []):
            saved += 1
            tags = c["args"].get("tags") if isinstance(c["args"].get("tags"), list) else []
            notes.append(f"#{saved} (month {c['period']}) [{', '.join(map(str, sorted(set(tags))))}]\n{_content(c)}")
            if cap is not None and len(notes) > int(cap):
                notes.pop(0)
        head = f"{len(notes)} note(s), newest first; the {shown} newest are shown in each month's observation.\n\n"
        states[period] = head + "\n\n".join(notes[::-1])
    last = max(states)
    return lambda period: states[min(period, last)]


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


def _shown_memory(run: _Run) -> Callable[[int], str] | None:
    """ceo terminal runs: MEMORY.md as the harness showed it at the start of each week."""
    if not run.shown_memory:
        return None
    states: dict[int, str] = {}
    for period, text, cut in run.shown_memory:
        states[period] = text + ("\n\n[the harness cut MEMORY.md here when it showed it]" if cut else "")
    known = sorted(states)

    def at(period: int) -> str:
        before = [p for p in known if p <= period]
        return states[before[-1]] if before else ""

    return at


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


def load_run(path: str | Path, text_cap: int = DEFAULT_TEXT_CAP) -> dict[str, Any]:
    """One run directory as the viewer's data model (see the module docstring)."""
    path = Path(path)
    if not path.is_dir():
        raise ViewerError(f"{path} is not a run directory: no such directory")
    config = _read_json(path / "config.json")
    if not isinstance(config, dict) or config.get("env") not in ENVS:
        raise ViewerError(f"{path} is not a run directory: it has no readable config.json naming an env (ceo, yc, cfo)")
    if text_cap < 100:
        raise ViewerError(f"the text cap must be at least 100 characters, got {text_cap}")
    env = str(config["env"])
    rules = _env_rules(config)
    run = _Run(path, config, rules, _Texts(text_cap))
    charts = _metrics_and_charts(run)
    model_run = (path / "trajectory.jsonl").is_file()
    tool_calls = _trajectory(run) if model_run else []
    env_calls = _action_rows(run) if (not model_run or env == "ceo") else []
    for call in env_calls:
        rationale = call["args"].get("rationale") if isinstance(call["args"], dict) else None
        if call["name"] == "next_week" and call["ok"] and isinstance(rationale, str):
            run.at(call["period"]).messages.append({"kind": "rationale", "text": run.texts(rationale)})
    if env == "ceo":
        memory = _shown_memory(run)
    elif env == "yc":
        memory = _scratchpad(tool_calls if model_run else env_calls)
    else:
        memory = _notepad(tool_calls if model_run else env_calls, config)
    for call in tool_calls + env_calls:
        run.at(call["period"]).actions.append(_call_view(call, run.texts))

    count = max(run.periods, default=0) + 1
    snapshots: list[str] = []
    index: dict[str, int] = {}
    periods = []
    for p in range(count):
        period = run.periods.get(p, _Period())
        entry: dict[str, Any] = {
            "label": rules.label(p),
            "x": rules.span(p),
            "metrics": period.metrics,
            "messages": period.messages,
            "actions": period.actions,
        }
        if memory is not None:
            text = memory(p)
            entry["memory"] = index.setdefault(text, len(snapshots))
            if entry["memory"] == len(snapshots):
                snapshots.append(text)
        periods.append(entry)

    result = _read_json(path / "result.json")
    prompt = path / "system_prompt.txt"
    notes = []
    if not isinstance(result, dict):
        notes.append("no result.json: the run did not finish (or is still running)")
        result = {}
    if not model_run:
        notes.append("no trajectory.jsonl: actions only, with ok / error (the env's action log keeps no results)")
    label = " / ".join(str(config.get(k, "?")) for k in ("env", "preset", "agent")) + f" / seed {config.get('seed')}"
    data = {
        "label": label,
        "dir": path.name,
        "path": str(path),
        "env": env,
        "unit": rules.unit,
        "first": rules.first,
        "x_label": rules.x_label,
        "memory_label": rules.memory_label,
        "model_run": model_run,
        "setup": {k: config[k] for k in ("preset", "seed", "agent", "model", "harness") if config.get(k) is not None},
        "result": {k: result[k] for k in RESULT_KEYS if k in result},
        "charts": charts,
        "periods": periods,
        "memory": _deltas(snapshots, lambda text: run.texts(text, LONG_TEXT_CAP)) if memory is not None else None,
        "system_prompt": run.texts(prompt.read_text(errors="replace"), LONG_TEXT_CAP) if prompt.is_file() else None,
        "notes": notes,
    }
    data["truncated"] = run.texts.truncated
    return data


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
    """Write ``out/index.html`` for one run, or a side-by-side comparison of several; its path."""
    loaded = [load_run(p, text_cap) for p in runs]
    page = build_page(loaded, text_cap)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ViewerError(f"{out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
