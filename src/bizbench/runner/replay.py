"""``bizbench replay RUN``: re-execute a run's recorded actions on a fresh world and check its record.

A verifiable submission is a run directory: config.json (env, preset, seed, the full world
config) and actions.jsonl (every call the agent made, in order, with whether it was
accepted). Replay checks that the recorded world config is the named preset's as installed
(the horizon override aside), builds a fresh world from it and the seed, and sends it the
accepted calls in order, through a :class:`~bizbench.core.session.Session` writing a
temporary run directory, whoever made them (a baseline, a model through a harness, a user's
agent class or an outside agent on a served seat):

- a refused call changed nothing (docs/principles.md principle 8) and is not sent again;
- the env's replay rules (:class:`bizbench.core.env.ReplayRules`) say whether an accepted
  read-only call (``mutates=False``, e.g. ceo ``query``) is sent again (it must be where a read
  spends a budget, as in cfo) and which logged name is the env's turn end (ceo ``next_turn``);
- every re-sent call must be accepted again;
- every result.json field the env computes from its world must be present and equal;
- every file of the record the report reads that the world writes must be what the replay
  wrote: the env's logs (``Env.take_rows``: metrics.jsonl, cfo statements.jsonl) and
  ledger.csv line for line, and the re-sent lines of actions.jsonl (their clock included),
  each value parsed and compared exactly (docs/principles.md principle 4: same seed, same
  actions, same bytes).

What replay cannot verify is listed (``unverified``, ``files_unverified``): who made the calls
(the agent and model names), the meters of a model run (turns, tokens, cost, ``ended_by``),
the counts of calls it does not re-send, the lines of actions.jsonl it does not re-send, and
the files no world writes (trajectory.jsonl, tamper.jsonl ...).

:func:`save_verdict` keeps what replay found outside the run directory, in the verifier's own
store (a submission cannot bring its own verdict), with the SHA-256 of every file it verified;
:func:`read_verdict` gives the report a run's verdict, void once any of those files changed
(docs/run-format.md "bizbench replay", docs/reports.md "Verified figures").
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.env import ReplayRules
from bizbench.core.envs import get_env
from bizbench.core.jsonio import jsonable, preview, read_json, write_json
from bizbench.core.provenance import provenance
from bizbench.core.runlog import read_result
from bizbench.core.runs import ACTIONS
from bizbench.core.session import Session
from bizbench.runner.arena import ARENA_CONFIG, STANDINGS, play_seats, ranked_by, read_setup, seat_dir, standings
from bizbench.runner.runconfig import (
    RunDirError,
    check_secret,
    config_changes,
    open_recorded_env,
    read_config,
    recorded_config,
)

__all__ = [
    "ReplayReport",
    "Verdict",
    "default_verdict_store",
    "read_verdict",
    "replay_arena",
    "replay_run",
    "same_value",
    "save_verdict",
]

#: result.json floats equal to this relative tolerance (the record's files are compared exactly):
#: float noise in the last bits passes, a cent on any amount up to $10 billion does not (1e-9
#: let a cent, even 20 cents, on a cfo score of $205,901,067.40 verify: issue 18)
RESULT_REL_TOL = 1e-13
#: core fields that are the meters of whoever drove the run, not the world's
_DRIVER_FIELDS = frozenset({"tokens", "cost_usd", "ended_by", "incomplete_reason"})
#: files of the record replay checks otherwise (config.json against the preset, result.json
#: field by field) or cannot regenerate: no world writes them, or refused calls made them
_NOT_REGENERATED = frozenset({"config.json", "result.json", "tamper.jsonl", "cash.png"})
#: a line of the record: its line number and its values (a JSON object, or a ledger.csv row)
Line = tuple[int, dict[str, Any]]


@dataclass
class ReplayReport:
    """What the replay found: ``ok`` when the world is the preset's, every re-sent call was
    accepted again, every outcome matched and every regenerated file is the recorded one."""

    path: str
    env: str
    seed: int
    actions_sent: int = 0
    actions_skipped: int = 0
    config_changes: list[str] = field(default_factory=list)
    divergence: str | None = None
    mismatches: dict[str, dict[str, Any]] = field(default_factory=dict)
    compared: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    #: files replay regenerated and found equal (actions.jsonl: its re-sent lines)
    files_verified: list[str] = field(default_factory=list)
    #: file -> its first difference and how many lines differ
    file_mismatches: dict[str, str] = field(default_factory=dict)
    #: the run's other files, which replay cannot regenerate
    files_unverified: list[str] = field(default_factory=list)
    #: the positions in actions.jsonl (0-based, its JSON lines) of the calls re-sent, in order
    actions_resent: list[int] = field(default_factory=list)
    #: SHA-256 of each file of the run as replay read it
    digests: dict[str, str | None] = field(default_factory=dict)
    #: the bizbench that recorded the run ("bizbench 0.3.0, commit 1a2b3c4d5e6f"), when it is
    #: not this one: a world changed between the two also makes a replay differ
    recorded_with: str | None = None

    @property
    def ok(self) -> bool:
        return not self.config_changes and self.divergence is None and not self.mismatches and not self.file_mismatches

    def problem(self) -> str | None:
        """The first reason the run is not verified (None when it is)."""
        if self.config_changes:
            return "the world differs from its preset in " + ", ".join(self.config_changes)
        if self.divergence:
            return self.divergence
        if self.mismatches:
            return "result.json differs in " + ", ".join(self.mismatches)
        if self.file_mismatches:
            name, why = next(iter(self.file_mismatches.items()))
            return f"{name}: {why}"
        return None

    def summary(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "env": self.env,
            "seed": self.seed,
            "ok": self.ok,
            "actions_sent": self.actions_sent,
            "actions_skipped": self.actions_skipped,
            "fields_compared": len(self.compared),
            "config_changes": self.config_changes,
            "divergence": self.divergence,
            "mismatches": self.mismatches,
            "files_verified": self.files_verified,
            "file_mismatches": self.file_mismatches,
            "unverified": self.unverified,
            "files_unverified": self.files_unverified,
            "recorded_with": self.recorded_with,
        }


def replay_run(path: str | Path) -> ReplayReport:
    """Re-execute ``path``'s actions.jsonl on a fresh world and compare the outcome with
    result.json and the regenerated files with the recorded ones."""
    path = Path(path)
    config, recorded, report = _open_record(path)
    spec = get_env(config["env"])
    env = open_recorded_env(config, check_secret(path, recorded.get("seed_secret_id")))
    actions = _lines(path / ACTIONS)
    with tempfile.TemporaryDirectory(prefix="bizbench-replay-") as tmp:
        session = Session(spec, env, Path(tmp) / "run")
        try:
            _send_actions(session, spec.replay, actions, report)
        finally:
            _check_record(report, path, session, config, recorded, actions)
    return report


def replay_arena(path: str | Path) -> list[ReplayReport]:
    """Re-play an arena directory (runner/arena.py): a fresh arena of its seed, each seat sent
    its own accepted calls in its own thread (turns end together, as they did), then every
    seat's record checked as :func:`replay_run` checks a run; one report a seat, then one for
    standings.json (ranks, scores and the env's arena fields such as the contests)."""
    path = Path(path)
    setup, spec = read_setup(path)
    seats = setup["seats"]
    if not (path / STANDINGS).is_file():  # written last, when every seat has its result
        raise RunDirError(f"{path} is an unfinished arena (no {STANDINGS}): bizbench resume finishes it")
    records = [_open_record(seat_dir(path, i)) for i in range(seats)]
    config, recorded, _ = records[0]
    arena = spec.make_arena(
        recorded_config(config),
        config["seed"],
        seats,
        config["preset"],
        config.get("preset_hash") or "",
        check_secret(path, recorded.get("seed_secret_id")),
        **spec.headless(),
    )
    actions = [_lines(seat_dir(path, i) / ACTIONS) for i in range(seats)]
    with tempfile.TemporaryDirectory(prefix="bizbench-replay-") as tmp:
        sessions = [Session(spec, env, seat_dir(Path(tmp), i)) for i, env in enumerate(arena.seats)]

        def sender(i: int) -> Any:
            return lambda session: _send_actions(session, spec.replay, actions[i], records[i][2])

        try:
            play_seats(arena, [sender(i) for i in range(len(sessions))], sessions)
        finally:
            for i, session in enumerate(sessions):
                seat_config, seat_recorded, report = records[i]
                _check_record(report, seat_dir(path, i), session, seat_config, seat_recorded, actions[i])
    seats = [report for _, _, report in records]
    agents = [seat_recorded.get("agent") for _, seat_recorded, _ in records]
    return [*seats, _check_standings(path, arena, seats, agents, setup.get("agents"))]


def _check_standings(path: Path, arena: Any, seats: list[ReplayReport], agents: list[Any], listed: Any) -> ReplayReport:
    """The arena's own report: standings.json's ranks, scores and arena fields against the replay's,
    and its agents against the seats' records (``agents``, each seat's result.json) and arena.json
    (``listed``). Who sat in a seat is the record's word, not the world's: replay checks that the
    records agree, not who played."""
    recorded = read_json(path / STANDINGS) or {}
    report = ReplayReport(str(path), seats[0].env, seats[0].seed)
    report.digests = {name: _sha256(path / name) for name in (ARENA_CONFIG, STANDINGS)}
    rows = recorded.get("standings")
    by_headline = not isinstance(rows, list) or ranked_by([r for r in rows if isinstance(r, dict)]) != "score"
    fresh = {"standings": standings([seat.result for seat in seats], by_headline), **jsonable(arena.result())}
    for key, value in fresh.items():
        report.compared.append(key)
        mine = recorded.get(key, "(missing)")
        if key == "standings" and isinstance(mine, list):  # who sat there is the record's word, not the world's
            mine = [{k: v for k, v in row.items() if k != "agent"} for row in mine]
            value = [{k: v for k, v in row.items() if k != "agent"} for row in value]
        if not same_value(mine, value, RESULT_REL_TOL):
            report.mismatches[key] = {"recorded": mine, "replayed": value}
    rows = recorded.get("standings")
    named = (
        [row.get("agent") for row in rows]
        if isinstance(rows, list) and all(isinstance(r, dict) for r in rows)
        else None
    )
    report.compared.append("agents")
    if named != agents or listed != agents:
        report.mismatches["agents"] = {"recorded": named, "arena.json": listed, "seats' result.json": agents}
    report.files_verified = [STANDINGS] if not report.mismatches else []
    report.files_unverified = [ARENA_CONFIG]
    return report


def _open_record(path: Path) -> tuple[dict[str, Any], dict[str, Any], ReplayReport]:
    """A finished run's config.json, result.json and the empty report of its replay."""
    config = read_config(path)
    recorded = read_result(path)
    if recorded is None:
        served = config.get("agent") == "served" and not config.get("harness")
        how = (
            "its outside agent is not bizbench's to restart, so it stays unfinished"
            if served
            else ("bizbench resume finishes it")
        )
        raise RunDirError(f"{path} has no readable result.json: only a finished run can be replayed ({how})")
    report = ReplayReport(
        str(path),
        config["env"],
        config["seed"],
        config_changes=config_changes(config),
        recorded_with=another_bizbench(recorded.get("provenance")),
    )
    report.digests = {f.name: _sha256(f) for f in sorted(path.iterdir()) if f.is_file()}
    return config, recorded, report


def _check_record(
    report: ReplayReport,
    path: Path,
    session: Session,
    config: dict[str, Any],
    recorded: dict[str, Any],
    actions: list[Line],
) -> None:
    """Finish the replayed session and compare its result and files with the recorded run's."""
    env = session.env
    own = set(env.result())
    fresh = jsonable(session.finish(plot=False))
    # the name of every log of the env, even one without a line (its rows are all written now)
    logs = {f"{name}.jsonl" for name in env.take_rows()}
    _compare_result(report, session.spec.replay, config, recorded, fresh, own)
    assert session.path is not None
    _compare_files(report, path, session.path, logs, actions, config)


def another_bizbench(recorded: Any) -> str | None:
    """The version and commit a result's ``provenance`` names, when either differs from this
    bizbench's (a commit is compared only when both are known), else None."""
    if not isinstance(recorded, dict):
        return None
    now = provenance()
    version, commit = recorded.get("bizbench"), recorded.get("git_commit")
    other_commit = commit is not None and now["git_commit"] is not None and commit != now["git_commit"]
    if version == now["bizbench"] and not other_commit:
        return None
    return f"bizbench {version}, commit {str(commit)[:12] if commit else 'unknown'}"


def _compare_result(
    report: ReplayReport,
    rules: ReplayRules,
    config: dict[str, Any],
    recorded: dict[str, Any],
    fresh: dict[str, Any],
    own: set[str],
) -> None:
    """Every result.json field the env computes from its world, present and equal."""
    report.result = fresh
    skipped = rules.log_derived | _DRIVER_FIELDS | {"wall_seconds", "provenance"}
    # a format-1 run predates the common result core: the core fields its env did not compute
    # itself are left unverified there, like the env's fields added later
    added = rules.added_later | (set(fresh) - own if config.get("run_format", 1) < 2 else set())
    for key, value in fresh.items():
        if key in skipped or (key not in recorded and key in added):
            continue
        report.compared.append(key)
        if key not in recorded:
            report.mismatches[key] = {"recorded": "(missing)", "replayed": value}
        elif not same_value(recorded[key], value, RESULT_REL_TOL):
            report.mismatches[key] = {"recorded": recorded[key], "replayed": value}
    report.unverified = sorted(k for k in recorded if k not in report.compared and k != "provenance")


def _compare_files(
    report: ReplayReport,
    path: Path,
    fresh_dir: Path,
    logs: set[str],
    actions: list[Line],
    config: dict[str, Any],
) -> None:
    """The recorded files the world writes against the ones the replay wrote: actions.jsonl's
    re-sent lines, every log of the env and ledger.csv. Format 1 wrote its files its own way
    (yc and cfo model runs wrote their logs at the end): there they are left unverified."""
    compared: dict[str, tuple[list[Line], list[Line]]] = {}
    if config.get("run_format", 1) >= 2:
        compared[ACTIONS] = ([actions[i] for i in report.actions_resent], _lines(fresh_dir / ACTIONS))
        written = {f.name for f in fresh_dir.iterdir()} - _NOT_REGENERATED - {ACTIONS}
        for name in sorted(written | logs):
            compared[name] = (_lines(path / name), _lines(fresh_dir / name))
    for name, (recorded_lines, fresh_lines) in compared.items():
        difference = _first_difference(recorded_lines, [row for _, row in fresh_lines])
        if difference:
            report.file_mismatches[name] = difference
        else:
            report.files_verified.append(name)
    checked = set(compared) | {"config.json", "result.json"}
    report.files_unverified = sorted(name for name in report.digests if name not in checked)


def _lines(path: Path) -> list[Line]:
    """The lines of a record file as the report reads them (:mod:`bizbench.core.runs`): a
    .jsonl log's JSON objects or ledger.csv's rows (``csv.DictReader``), each with its line
    number; [] when the file is absent."""
    if not path.is_file():
        return []
    if path.suffix == ".csv":
        with path.open(newline="", errors="replace") as f:
            reader = csv.DictReader(f)
            return [(reader.line_num, dict(row)) for row in reader]
    numbered = []
    with path.open(errors="replace") as f:
        for number, text in enumerate(f, 1):
            try:
                row = json.loads(text)
            except ValueError:
                continue  # skipped by the report too (core/jsonio.iter_jsonl)
            if isinstance(row, dict):
                numbered.append((number, row))
    return numbered


def _first_difference(recorded: list[Line], fresh: list[dict[str, Any]]) -> str:
    """'' when the recorded lines hold exactly the replayed values, else the first differing
    line and field, and how many lines differ."""
    differing: list[str] = []
    for (number, row), again in zip(recorded, fresh, strict=False):
        key = next((k for k in sorted(row.keys() | again.keys()) if not same_value(_get(row, k), _get(again, k))), None)
        if key is not None:
            differing.append(
                f"line {number}, field {key!r}: recorded {_shown(_get(row, key))}, replayed {_shown(_get(again, key))}"
            )
    parts = [f"{differing[0]} ({len(differing)} of {min(len(recorded), len(fresh))} lines differ)"] if differing else []
    if len(recorded) != len(fresh):
        parts.append(f"{len(recorded)} lines recorded, {len(fresh)} replayed")
    return "; ".join(parts)


_ABSENT = object()


def _get(row: dict[str, Any], key: str) -> Any:
    return row.get(key, _ABSENT)


def _shown(value: Any) -> str:
    return "(missing)" if value is _ABSENT else preview(value, 80)


def same_value(a: Any, b: Any, rel_tol: float = 0.0) -> bool:
    """Parsed values identical: a bool is no number, NaN is NaN, nothing is rounded; with
    ``rel_tol``, floats equal to that relative tolerance (result.json's fields, as replay has
    always compared them)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k], rel_tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y, rel_tol) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if rel_tol and (isinstance(a, float) or isinstance(b, float)):
        both_numbers = all(isinstance(x, int | float) for x in (a, b))
        return both_numbers and math.isclose(a, b, rel_tol=rel_tol)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _send_actions(env: Any, rules: ReplayRules, lines: list[Line], report: ReplayReport) -> None:
    """Send the accepted calls in order; the first one refused now is the divergence."""
    for index, (number, row) in enumerate(lines):
        tool, args = row.get("tool"), row.get("args")
        if row.get("ok") is not True or not isinstance(tool, str):
            report.actions_skipped += 1
            continue
        if rules.skips(env.registry, tool):
            report.actions_skipped += 1  # a read changes nothing; its record may keep only a digest
            continue
        if not isinstance(args, dict):
            report.divergence = (
                f"action on line {number} ({tool}) was accepted but its logged arguments are not an object"
            )
            return
        if tool == rules.advance_action:
            problem = _advance_problem(env, args)
            if problem:
                report.divergence = f"action on line {number} ({tool}): {problem}"
                return
            env.advance(**args)
        else:
            answer = env.call_tool(tool, args)
            if not answer.ok:
                report.divergence = (
                    f"action on line {number} ({tool}) was accepted in the run but refused now: {answer.error}"
                )
        report.actions_sent += 1
        report.actions_resent.append(index)
        if report.divergence:
            return


def _advance_problem(env: Any, args: dict[str, Any]) -> str:
    """Why logged turn-end arguments cannot be sent again ('' when they can): only the names
    ``advance`` takes, each a whole number >= 1 or null."""
    import inspect

    takes = set(inspect.signature(env.env.advance).parameters)
    unknown = sorted(set(args) - takes)
    if unknown:
        return f"unknown argument(s) {', '.join(unknown)}"
    for key, value in args.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            return f"{key} must be null or a positive integer, got {value!r}"
    return ""


def _sha256(path: Path) -> str | None:
    """The SHA-256 of a file's bytes (None when it is absent)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError):
        return None


# ---------------------------------------------------------------------------- verdicts
#: the version of a verdict file's layout
VERDICT_FORMAT = 1
VERIFIED, NOT_REPLAYED = "verified", "not replayed"


@dataclass(frozen=True)
class Verdict:
    """What the report may take as verified of a run (:func:`read_verdict`): ``status`` is
    ``verified`` or why not; a verified run's result.json fields, files and actions.jsonl
    lines (0-based positions among its JSON lines) that replay regenerated."""

    status: str
    result_fields: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()
    action_lines: tuple[int, ...] = ()

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED

    @property
    def label(self) -> str:
        """The status without its reason (``replay failed``, ``changed since replay`` ...)."""
        return self.status.partition(":")[0]


def default_verdict_store() -> Path:
    """Where ``bizbench replay`` keeps its verdicts and ``bizbench report`` reads them:
    ``$XDG_CACHE_HOME/bizbench/replays`` (``~/.cache/bizbench/replays``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bizbench" / "replays"


def _verdict_file(run: Path, store: Path) -> Path:
    """One verdict per run directory (its absolute path), the last replay's."""
    return store / f"{hashlib.sha256(str(run.resolve()).encode()).hexdigest()[:32]}.json"


def save_verdict(report: ReplayReport, store: Path) -> Path:
    """Keep what replay found of ``report.path`` in ``store``, bound to the SHA-256 of every
    file it checked (null: absent when replayed)."""
    run = Path(report.path)
    checked = sorted({"config.json", "result.json", *report.files_verified, *report.file_mismatches})
    verdict = {
        "format": VERDICT_FORMAT,
        "path": str(run.resolve()),
        "ok": report.ok,
        "problem": report.problem(),
        "digests": {name: report.digests.get(name) for name in checked},
        "result_fields": [k for k in report.compared if k not in report.mismatches],
        "files": report.files_verified,
        "action_lines": report.actions_resent if ACTIONS in report.files_verified else [],
    }
    store.mkdir(parents=True, exist_ok=True)
    target = _verdict_file(run, store)
    write_json(target, verdict)
    return target


def read_verdict(run: Path, store: Path | None) -> Verdict:
    """The verdict of the last replay of ``run`` kept in ``store``: ``verified`` only when it
    verified the run and none of the files it checked has changed since."""
    data = read_json(_verdict_file(run, store)) if store is not None else None
    if data is None or data.get("format") != VERDICT_FORMAT or data.get("path") != str(run.resolve()):
        return Verdict(NOT_REPLAYED)
    digests = data.get("digests")
    if not isinstance(digests, dict) or not digests:
        return Verdict(NOT_REPLAYED)
    changed = [name for name, digest in digests.items() if _sha256(run / str(name)) != digest]
    if changed:
        return Verdict("changed since replay: " + ", ".join(changed))
    if data.get("ok") is not True:
        return Verdict(f"replay failed: {data.get('problem')}")
    return Verdict(
        VERIFIED,
        frozenset(data.get("result_fields") or ()),
        frozenset(data.get("files") or ()),
        tuple(data.get("action_lines") or ()),
    )
