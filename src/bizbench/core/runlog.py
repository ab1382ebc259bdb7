"""The run log: the files of a run directory, their typed models, one writer and one reader.

A run directory (docs/run-format.md) is written by a :class:`~bizbench.core.session.Session`
through :class:`RunDir`, whatever drove the run (a baseline, a model harness, a served seat, a
user's agent class):

- ``config.json``: :class:`RunConfig` (env, preset and its hash, seed, agent, horizon and its
  unit, the full world config, ``run_format`` and the held-out secret's fingerprint);
- ``actions.jsonl``: one :class:`ActionRecord` per call, accepted or refused, appended and
  flushed as it happens;
- ``tamper.jsonl``, ``metrics.jsonl`` and the env's other logs (cfo ``statements.jsonl``):
  appended as they happen;
- ``ledger.csv``, ``cash.png`` and, last and atomically, ``result.json`` (:class:`ResultCore`
  plus the env's own fields): written once, when the run ends.

Model runs add ``trajectory.jsonl`` (:mod:`bizbench.agents.recording`), a resumed run adds
``attempts/`` and ``resume.jsonl`` (:mod:`bizbench.runner.resume`). Format 1 (before the Env
contract) is still read: :func:`read_config` fills in what it lacks.
"""

from __future__ import annotations

import csv
import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ConfigDict

from bizbench.core.jsonio import PREVIEW_CHARS, jsonable, preview, read_json, write_json
from bizbench.core.limits import MAX_ARGS_BYTES
from bizbench.core.rng import secret_from_env, secret_id

#: ledger.csv's columns, unless the env names its own (``Env.ledger_header``)
LEDGER_HEADER = ("day", "category", "amount", "group", "note")

__all__ = [
    "ATTEMPTS",
    "MAX_LOGGED_ARGS",
    "RESUMING",
    "RUN_FORMAT",
    "CRASHED",
    "FAILED_SCORE",
    "ActionRecord",
    "ResultCore",
    "RunConfig",
    "RunDir",
    "action_record",
    "ended_early",
    "headline_score",
    "log_lines",
    "read_result",
    "require_new",
    "tamper_record",
    "write_result",
]

#: The version of the layout documented in docs/run-format.md (config.json's ``run_format``).
#: 2: the Env contract (``horizon``, ``unit``; ``args`` always the parsed object; the common
#: result core). 1: the first format, still read.
RUN_FORMAT = 2
#: The folder of a run directory that keeps the files of its killed attempts (:mod:`bizbench.runner.resume`).
ATTEMPTS = "attempts"
#: What a directory being resumed holds before the run starts again (an arena's: arena.json).
RESUMING = frozenset({"config.json", "arena.json", ATTEMPTS, "resume.jsonl"})
#: Bytes of arguments (as JSON) a record keeps verbatim when replay does not send the call again
#: (a refused call, an unsent read); larger ones keep a digest and a preview.
MAX_LOGGED_ARGS = 16_000
#: The longest tool name of a refused call that actions.jsonl keeps whole (no tool's name is near it).
MAX_LOGGED_TOOL = 200
#: The most characters a value of a tamper entry prints to (an env's preview of what was sent fits).
MAX_TAMPER_VALUE = 2 * PREVIEW_CHARS


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class RunConfig(_Open):
    """config.json: what the run was (the world, the agent); env-specific fields sit beside these."""

    run_format: int = 1
    env: str
    preset: str
    preset_hash: str = ""
    seed: int
    agent: str
    seed_secret_id: str | None = None
    horizon: int | None = None  # in ``unit``; format 1 has it only inside ``config``
    unit: str | None = None
    config: dict[str, Any]


class ActionRecord(_Open):
    """One line of actions.jsonl. The time field is the env's (``day``, ``time`` or ``month``).

    ``args`` is the parsed arguments object as the agent sent it; for a call replay does not send
    again (a refused one, or a read the env's replay rules skip) whose arguments are not JSON or
    larger than :data:`MAX_LOGGED_ARGS` bytes it is None and ``args_sha256`` / ``args_bytes`` /
    ``args_preview`` describe them."""

    tool: str | None = None
    args: Any = None
    ok: bool
    error: str | None = None


class ResultCore(_Open):
    """The fields every env's result.json has (the env's own fields sit beside them)."""

    env: str
    preset: str
    seed: int
    final_cash: float  # dollars
    bankrupt: bool
    completed: bool  # reached the horizon
    incomplete_reason: str | None = None  # why a run that is neither completed nor bankrupt ended early
    survived: int  # in the env's unit
    survived_fraction: float
    score: float
    horizon: int
    unit: str
    tool_calls: int
    tokens: dict[str, int] | None = None  # None: no model was metered
    cost_usd: float | None = None
    ended_by: str = "completed"


#: ``ended_by`` values that mean the agent's side crashed (its code, its harness, its model or
#: the seat's server): the run is written, incomplete, and the command that ran it exits 1.
CRASHED = frozenset({"agent_error", "harness_error", "model_error", "server_error"})


#: format-1 ``ended_by`` values of a run that reached its natural end
FINISHED_FORMAT_1 = frozenset({"completed", "bankrupt", "episode_end"})


def ended_early(result: dict[str, Any]) -> str | None:
    """Why a finished run did not reach its natural end (its horizon, or bankruptcy), or None.

    A run that stopped early (an agent error, a turn or dollar limit, an agent that returned)
    is a failed run, never a score of the company it left behind: the report counts it so
    (docs/reports.md "Runs that ended early"). Format-1 runs, which lack ``completed``, are
    judged by the world's own ``done`` where they kept it, else by their ``ended_by`` (a
    format-1 served seat ended with ``episode_end``)."""
    if result.get("bankrupt"):
        return None
    completed = result.get("completed")
    if completed is None:
        done = result.get("done")
        completed = done if isinstance(done, bool) else result.get("ended_by", "completed") in FINISHED_FORMAT_1
    if completed:
        return None
    return str(result.get("incomplete_reason") or f"ended by {result.get('ended_by', 'unknown')}")


#: The headline score of a failed run, one that went bankrupt or ended before its horizon: a
#: failed company is worth nothing, never the cash it left behind nor less than nothing.
#: EnterpriseArena (eq 2) scores a bankrupt company 0; CEO-Bench and YC-Bench end a company when
#: its cash falls below 0, so 0 is the most it keeps. One value for both ways of failing, so
#: stopping a company on its way to bankruptcy never ranks above letting it fail.
#: docs/reports.md "Runs that ended early".
FAILED_SCORE = 0.0


def headline_score(result: dict[str, Any], score: float | None = None) -> float | None:
    """The score a report ranks a finished run by: :data:`FAILED_SCORE` when it failed, else its
    ``score`` (or the one given, e.g. a format-1 run's field), never below :data:`FAILED_SCORE`
    (a cfo eq 2 score can fall below 0 through the tool charge or, on hardened, its debt)."""
    value = result.get("score") if score is None else score
    if result.get("bankrupt") or ended_early(result):
        return FAILED_SCORE
    return None if value is None else max(float(value), FAILED_SCORE)


def action_record(row: dict[str, Any], resent: bool = True) -> dict[str, Any]:
    """An env's action row as actions.jsonl keeps it (see :class:`ActionRecord`). An accepted
    call that ``bizbench replay`` sends again (``resent``) keeps its arguments whole: they are
    within :data:`~bizbench.core.limits.MAX_ARGS_BYTES`. Any other row bounds the tool name and
    replaces arguments larger than :data:`MAX_LOGGED_ARGS` (or not JSON, or nested too deep to
    print) by their digest, size and preview, and cuts its error to as many characters: what
    an agent sends must not make the record grow with it. Never raises."""
    if row.get("ok") is True and resent:
        return row
    tool, error = row.get("tool"), row.get("error")
    if isinstance(tool, str) and len(tool) > MAX_LOGGED_TOOL:
        row = {**row, "tool": preview(tool, MAX_LOGGED_TOOL)}
    if isinstance(error, str) and len(error) > MAX_LOGGED_ARGS:
        row = {**row, "error": preview(error, MAX_LOGGED_ARGS)}
    if "args" not in row:
        return row
    args = row["args"]
    try:
        text: str | None = json.dumps(jsonable(args), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = None
    if text is not None and len(text) <= MAX_LOGGED_ARGS:
        return row
    raw = (text if text is not None else preview(args, MAX_ARGS_BYTES)).encode("utf-8", "replace")
    return {
        **row,
        "args": None,
        "args_sha256": hashlib.sha256(raw).hexdigest(),
        "args_bytes": len(raw),
        "args_preview": preview(args, 200),
    }


def tamper_record(row: dict[str, Any]) -> dict[str, Any]:
    """A tamper entry as tamper.jsonl keeps it: each value that prints longer than
    :data:`MAX_TAMPER_VALUE` characters (a tool name, an error, what was sent) cut to a preview."""
    return {key: value if _short(value) else preview(value, MAX_TAMPER_VALUE) for key, value in row.items()}


def _short(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float):
        return True
    if isinstance(value, str):
        return len(value) <= MAX_TAMPER_VALUE
    try:
        return len(json.dumps(jsonable(value), default=str)) <= MAX_TAMPER_VALUE
    except (TypeError, ValueError, RecursionError):
        return False


def log_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The JSON lines of log rows (numpy values as plain numbers; anything else as its string)."""
    return [json.dumps(jsonable(row), default=str) + "\n" for row in rows]


def require_new(path: Path | None) -> None:
    """A run writes into a new or empty directory: appending a second run to a first one's
    trajectory and metrics would corrupt both. The one exception is a run being resumed,
    whose killed attempts ``bizbench resume`` has moved to ``attempts/``."""
    if path is None or not Path(path).is_dir():
        return
    names = {p.name for p in Path(path).iterdir()}
    if names and not (ATTEMPTS in names and names <= RESUMING):
        raise ValueError(
            f"the run directory {path} already holds a run; choose another --out or remove it "
            "(`bizbench resume` finishes a killed run)"
        )


def read_result(path: Path) -> dict[str, Any] | None:
    """result.json of a finished run, or None (absent, cut short by a kill, or not an object)."""
    return read_json(Path(path) / "result.json")


def write_result(path: Path, result: dict[str, Any]) -> None:
    """result.json, written last: its presence means the run is finished."""
    write_json(Path(path) / "result.json", result)


class RunDir:
    """Append-only writer of one run directory (the only writer of the record)."""

    def __init__(self, path: Path, config: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        held_out = secret_id(secret_from_env())  # worlds drawn under $BIZBENCH_SEED_SECRET (core.rng)
        record = {"run_format": RUN_FORMAT, "seed_secret_id": held_out, **config}
        RunConfig.model_validate(record)
        write_json(self.path / "config.json", record)
        self.tamper_log.touch()  # an empty log is an explicit "no attempts"
        self._files: dict[str, IO[str]] = {}
        self._lock = threading.Lock()  # a served session's lock-free tools log beside the others

    @property
    def tamper_log(self) -> Path:
        return self.path / "tamper.jsonl"

    def append(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Append rows to ``<name>.jsonl`` and flush, so a crash loses nothing already done."""
        self.append_lines(name, log_lines(rows))

    def append_lines(self, name: str, lines: list[str]) -> None:
        """Append JSON lines (:func:`log_lines`) to ``<name>.jsonl`` and flush."""
        if not lines:
            return
        with self._lock:
            f = self._files.get(name)
            if f is None:
                f = self._files[name] = (self.path / f"{name}.jsonl").open("a")
            f.writelines(lines)
            f.flush()

    def write_ledger(self, rows: list[Any], header: Sequence[str] | None = None) -> None:
        """ledger.csv: day (the env's time unit), category, amount in dollars, group, note; an
        env whose rows mean something else names its columns (``Env.ledger_header``)."""
        with (self.path / "ledger.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(list(header or LEDGER_HEADER))
            for row in rows:
                w.writerow([row.day, row.category, f"{row.cents / 100:.2f}", row.group, row.note])

    def close(self) -> None:
        with self._lock:
            for f in self._files.values():
                f.close()
            self._files.clear()
