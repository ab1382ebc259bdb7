"""``check_env``: the conformance suite of the Env contract, run over every registered env.

Gymnasium checks every env with one function (``gymnasium.utils.env_checker.check_env``); this
is bizbench's (docs/envs.md). Each check builds fresh worlds of the env from its
:class:`~bizbench.core.env.EnvSpec` alone, so it runs the same on ceo, yc, cfo and any plug-in:

- ``protocol``: the env is an :class:`~bizbench.core.env.Env` (every attribute of the
  protocol), its spec's presets, horizon and baselines are consistent, observations and results
  are strict JSON, ``observation()`` changes nothing (nor, when replay does not re-send reads, a
  read-only tool), ``advance()`` moves the world and ends the
  episode, the session's result has the common core (:class:`~bizbench.core.runlog.ResultCore`),
  and after the end a mutating call is refused;
- ``determinism``: every baseline, run with the same seed in a second Python process (another
  hash seed), gives the same state digest after every turn, the same action log and the same
  result; another seed draws another world;
- ``failed_calls``: bad calls generated from each tool's JSON schema (unknown tool, arguments
  not an object, a missing, an unknown, a mistyped, a non-finite, a huge or an out-of-range
  argument) are refused with an error naming the argument, never raise, are logged as refused
  and leave the state digest unchanged; so does every refused call among seeded random
  arguments for each tool, and none crashes a tool (``internal_error``); ``actions.jsonl``
  stays strict JSON;
- ``tool_docs``: every tool and argument is described, the generated schemas and the Markdown
  reference (``bizbench tools ENV --format markdown``) match the registry, and an env's shipped
  ``docs/<id>-tools.md`` equals that output;
- ``hidden``: nothing the env declares hidden (the seed, and ``hidden_values()`` when the env
  has it) appears in an observation, a tool result, an error or a file the env writes for the
  agent, over an episode of every baseline and one of the default baseline with every read-only
  tool called before each turn; ``hidden_seat``: nor in a served workspace;
- ``play``: the env's play module (``bizbench play``, :mod:`bizbench.core.play`) names tools
  of the env, and its chart points, taken before every turn of the default baseline's episode,
  are finite numbers of its declared charts that change nothing (no call logged, the same state
  digest) and hold no hidden value;
- ``replay``: a finished run (a baseline, with a refused call every turn) replays verified,
  and a copy forged by the smallest change (one more of every integer and a trillionth more of
  every float replay compares in result.json, one number on the last line of each log it
  regenerates, a cent in ledger.csv's last row) is caught in every forged field and file;
- ``resume``: ``bizbench run`` killed with SIGKILL half-way and finished by ``bizbench resume``
  ends with the result, actions, metrics and ledger of an uninterrupted run;
- ``arena`` (an env with an arena, docs/arena.md): a one-seat arena of every baseline ends in
  the single-player run's world with its action log; two seats of the default baseline end in
  equal companies (no seat is favoured); swapping two baselines between two seats mirrors the
  companies (state digests).

``hidden_values()`` is optional: an env that has it returns the strings and numbers that must
never reach the agent (a string is searched case-insensitively where a word starts, an integer
as a whole number, a float as any number of 5 or more significant digits that is it rounded or
cut to them); without it only the seed is searched. The
checks use a large, distinctive seed so that a whole-number match means a leak.

From Python or pytest::

    from bizbench.runner.check import check_env, env_problems
    check_env("cfo")                      # raises EnvCheckError listing every problem
    env_problems(spec, checks=["hidden"])  # the problems, without raising

From a shell: ``python -m bizbench.runner.check check ENV [--checks a,b]``. The same module
runs the second process of ``determinism`` (``trace``) and the killed run of ``resume``
(``kill-after``).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import os
import random
import re
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bizbench.core.env import Env, EnvSpec

if TYPE_CHECKING:
    from bizbench.runner.replay import ReplayReport

__all__ = [
    "CHECKS",
    "DEFAULT_SEED",
    "CheckReport",
    "EnvCheckError",
    "Problem",
    "bad_calls",
    "check_env",
    "env_problems",
    "find_hidden",
]

#: A seed no observation shows by chance: a whole-number match of it is a leak.
DEFAULT_SEED = 7_364_519_028
#: The horizon the checks run, in the env's unit, unless the preset's is shorter.
SHORT_HORIZON = {"day": 21, "turn": 8, "month": 3}
#: Turns a baseline may take before the check gives up on the episode ending.
MAX_TURNS = 100_000
#: result.json fields that record the host, not the run
VOLATILE_RESULT = ("wall_seconds", "provenance")
_PROBLEMS_PER_CHECK = 25


@dataclass(frozen=True)
class Problem:
    """One way an env breaks the contract."""

    check: str
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.message}"


@dataclass
class CheckReport:
    """What :func:`check_env` ran and found (``notes``: what it could not check, and why)."""

    env: str
    ran: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        lines = [f"env {self.env!r}: {len(self.problems)} problem(s) in {', '.join(self.ran) or 'no checks'}"]
        lines += _listing(self.problems)
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _listing(problems: list[Problem]) -> list[str]:
    """One line per problem, at most :data:`_PROBLEMS_PER_CHECK` of each check."""
    lines, shown = [], dict.fromkeys((p.check for p in problems), 0)
    for p in problems:
        shown[p.check] += 1
        if shown[p.check] <= _PROBLEMS_PER_CHECK:
            lines.append(f"  {p}")
    lines += [f"  [{c}] ... and {n - _PROBLEMS_PER_CHECK} more" for c, n in shown.items() if n > _PROBLEMS_PER_CHECK]
    return lines


class EnvCheckError(AssertionError):
    """An env that fails the Env contract; the message lists every problem."""

    def __init__(self, report: CheckReport) -> None:
        self.report = report
        super().__init__(
            f"env {report.env!r} breaks the Env contract (docs/envs.md) in {len(report.problems)} place(s):\n"
            + "\n".join(_listing(report.problems))
        )


@dataclass
class _Ctx:
    """One check's inputs and its findings."""

    spec: EnvSpec
    seed: int
    horizon: int
    preset: str
    workdir: Path
    docs_dir: Path | None
    report: CheckReport
    check: str = ""

    def problem(self, message: str) -> None:
        self.report.problems.append(Problem(self.check, message))

    def note(self, message: str) -> None:
        self.report.notes.append(f"{self.check}: {message}")

    def make(self, seed: int | None = None, files: Path | None = None) -> Any:
        """A fresh env of the checked preset and horizon."""
        config, digest = self.spec.load_config(self.preset)
        config = self.spec.with_horizon(config, self.horizon)
        return self.spec.make(config, self.seed if seed is None else seed, self.preset, digest, None, files=files)

    def path(self, name: str) -> Path:
        p = self.workdir / self.check / name
        p.parent.mkdir(parents=True, exist_ok=True)
        return p


# ---------------------------------------------------------------------------- entry points
def check_env(
    spec: EnvSpec | str,
    checks: Iterable[str] | None = None,
    *,
    seed: int = DEFAULT_SEED,
    horizon: int | None = None,
    preset: str | None = None,
    workdir: Path | None = None,
    docs_dir: Path | None = None,
    raise_errors: bool = True,
) -> CheckReport:
    """Run ``checks`` (default: all of :data:`CHECKS`) on the env; raise :class:`EnvCheckError`
    listing every problem (``raise_errors=False``: return the report whatever it holds).

    ``horizon`` (in the env's unit) defaults to a short one (:data:`SHORT_HORIZON`); ``workdir``
    receives the runs (a temporary directory by default); ``docs_dir`` is where an env's
    ``<id>-tools.md`` is looked for (default: the ``docs/`` of the bizbench checkout, if any)."""
    if isinstance(spec, str):
        from bizbench.core.envs import get_env

        spec = get_env(spec)
    names = list(CHECKS) if checks is None else list(checks)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown check {', '.join(unknown)}; choose from {', '.join(CHECKS)}")
    preset = preset or spec.default_preset
    if horizon is None:
        horizon = min(SHORT_HORIZON[spec.unit], spec.horizon_of(spec.load_config(preset)[0]))
    report = CheckReport(spec.id)
    with _workdir(workdir) as root:
        ctx = _Ctx(spec, seed, horizon, preset, root, docs_dir if docs_dir is not None else _repo_docs(), report)
        for name in names:
            ctx.check = name
            report.ran.append(name)
            try:
                CHECKS[name](ctx)
            except Exception as e:  # noqa: BLE001 - a check that cannot finish is a problem of the env
                frame = traceback.extract_tb(e.__traceback__)[-1]
                where = f"{Path(frame.filename).name}:{frame.lineno}"
                ctx.problem(f"the check stopped: {type(e).__name__}: {e} (at {where})")
    if raise_errors and report.problems:
        raise EnvCheckError(report)
    return report


def env_problems(spec: EnvSpec | str, checks: Iterable[str] | None = None, **options: Any) -> list[Problem]:
    """The problems :func:`check_env` finds, without raising."""
    return check_env(spec, checks, raise_errors=False, **options).problems


@contextmanager
def _workdir(path: Path | None) -> Iterator[Path]:
    if path is not None:
        Path(path).mkdir(parents=True, exist_ok=True)
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="bizbench-check-") as tmp:
        yield Path(tmp)


def _repo_docs() -> Path | None:
    """The ``docs/`` of the bizbench checkout this module runs from (None when installed)."""
    docs = Path(__file__).resolve().parents[3] / "docs"
    return docs if docs.is_dir() else None


# ---------------------------------------------------------------------------- episodes
def _policies(spec: EnvSpec, seed: int) -> dict[str, Any]:
    """A fresh policy of every baseline (its default options)."""
    return {name: baseline.make(seed) for name, baseline in spec.baseline_table().items()}


def _play(env: Any, policy: Any, each_turn: Callable[[Any], None] | None = None) -> int:
    """Run ``policy`` until the episode ends; ``each_turn(env)`` before each turn and at the end."""
    turns = 0
    while not env.done:
        if each_turn is not None:
            each_turn(env)
        policy.act(env)
        turns += 1
        if turns >= MAX_TURNS:
            raise RuntimeError(f"the episode did not end within {MAX_TURNS} turns")
    if each_turn is not None:
        each_turn(env)
    return turns


def _canonical(value: Any) -> str:
    from bizbench.core.jsonio import jsonable

    return json.dumps(jsonable(value), sort_keys=True, default=str)


def _append_digest(digests: list[str], env: Any) -> None:
    digests.append(env.state_digest())


def _differing(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def trace(spec: EnvSpec, seed: int, horizon: int, preset: str) -> dict[str, Any]:
    """Every baseline's episode: the state digest at the start and after each turn, the action
    log's digest and the result (the second process of ``determinism`` prints this)."""
    ctx = _Ctx(spec, seed, horizon, preset, Path("."), None, CheckReport(spec.id))
    out: dict[str, Any] = {}
    for name, policy in _policies(spec, seed).items():
        env = ctx.make()
        digests: list[str] = []
        _play(env, policy, partial(_append_digest, digests))
        out[name] = {
            "digests": digests,
            "actions": hashlib.sha256(_canonical(env.actions).encode()).hexdigest(),
            "result": json.loads(_canonical(env.result())),
        }
        env.close()
    return out


# ---------------------------------------------------------------------------- subprocesses
def _python(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env or dict(os.environ)
    )


def _bizbench(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The ``bizbench`` command in a new process (the installed entry point's code)."""
    return _python("-c", "from bizbench.entry import main; main()", *args, timeout=timeout)


def _tail(text: str, lines: int = 8) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def _unreachable(ctx: _Ctx, proc: subprocess.CompletedProcess[str]) -> bool:
    """Whether a child process failed because it does not know the env (registered in-process only)."""
    if f"unknown env {ctx.spec.id!r}" in proc.stderr or f"unknown env '{ctx.spec.id}'" in proc.stderr:
        ctx.problem(
            f"another process does not know env {ctx.spec.id!r}: it was registered in this process only; list "
            "its spec in $BIZBENCH_ENVS (module:ATTR) or a `bizbench.envs` entry point so that sweep workers, "
            "resume and serve find it"
        )
        return True
    return False


# ---------------------------------------------------------------------------- protocol
def _protocol_members() -> list[str]:
    return sorted({*Env.__annotations__, *(n for n in vars(Env) if not n.startswith("_"))})


def _strict_json(value: Any) -> str | None:
    """None when ``value`` is strict JSON (no NaN), else why not."""
    from bizbench.core.jsonio import jsonable

    try:
        json.dumps(jsonable(value), allow_nan=False)
    except (TypeError, ValueError) as e:
        return str(e)
    return None


def check_protocol(ctx: _Ctx) -> None:
    spec = ctx.spec
    if spec.unit not in SHORT_HORIZON:
        ctx.problem(f"unit {spec.unit!r} is not one of {', '.join(SHORT_HORIZON)}")
    presets = spec.presets()
    if spec.default_preset not in presets:
        ctx.problem(f"the default preset {spec.default_preset!r} is not among the presets {presets}")
    for name in presets:
        try:
            config, digest = spec.load_config(name)
            spec.horizon_of(config)
        except Exception as e:  # noqa: BLE001
            ctx.problem(f"preset {name!r} does not load: {e}")
    table = spec.baseline_table()
    if spec.default_baseline not in table:
        ctx.problem(f"the default baseline {spec.default_baseline!r} is not in the baselines {list(table)}")
    for name, baseline in table.items():
        if baseline.name != name:
            ctx.problem(f"baseline {name!r} is named {baseline.name!r}")
        policy = baseline.make(ctx.seed)
        if not callable(getattr(policy, "act", None)):
            ctx.problem(f"baseline {name!r} makes no policy with act(env)")
    env = ctx.make()
    missing = [m for m in _protocol_members() if not hasattr(env, m)]
    if missing or not isinstance(env, Env):
        ctx.problem(f"{type(env).__name__} is not an Env: it lacks {', '.join(missing) or '(see Env)'}")
        return
    from bizbench.core.registry import ToolRegistry

    if not isinstance(env.registry, ToolRegistry) or not len(env.registry):
        ctx.problem("env.registry must be a ToolRegistry with at least one tool")
    if (env.seed, env.preset) != (ctx.seed, ctx.preset):
        ctx.problem(f"env.seed/env.preset are {env.seed!r}/{env.preset!r}, built with {ctx.seed!r}/{ctx.preset!r}")
    if env.horizon != ctx.horizon or spec.horizon_of(env.config) != ctx.horizon:
        ctx.problem(f"--horizon {ctx.horizon} gave env.horizon {env.horizon} (horizon_key {spec.horizon_key})")
    if env.done or env.elapsed != 0:
        ctx.problem(f"a fresh env is done={env.done} with elapsed={env.elapsed}; expected not done at 0")
    for what, value in (("observation()", env.observation()), ("result()", env.result())):
        if not isinstance(value, dict):
            ctx.problem(f"{what} must be a dict, got {type(value).__name__}")
        elif (why := _strict_json(value)) is not None:
            ctx.problem(f"{what} is not strict JSON: {why}")
    before = env.state_digest()
    if not isinstance(before, str) or not before:
        ctx.problem(f"state_digest() must be a non-empty string, got {before!r}")
    env.observation()
    if env.state_digest() != before:
        ctx.problem("observation() changed the state digest (it must only read)")
    rows = env.take_rows()
    if not isinstance(rows, dict) or not all(isinstance(v, list) for v in rows.values()):
        ctx.problem("take_rows() must return {log name: [rows]}")
    if not spec.replay.resend_reads:  # replay skips reads, so a read must change nothing
        for tool in (t for t in env.registry.specs() if not t.mutates):
            env.call_tool(tool.name, _filler(tool))
            if env.state_digest() != before:
                ctx.problem(f"read-only {tool.name} changed the state digest, and replay does not re-send reads")
                before = env.state_digest()
    env.advance()
    if env.state_digest() == before:
        ctx.problem("advance() did not change the state digest: the world did not move")
    turns = 1
    while not env.done and turns < MAX_TURNS:
        env.advance()
        turns += 1
    if not env.done:
        ctx.problem(f"advance() did not end the episode in {MAX_TURNS} turns")
        return
    if not env.bankrupt and env.elapsed != env.horizon:
        ctx.problem(f"the episode ended at elapsed={env.elapsed}, horizon={env.horizon}, not bankrupt")
    for row in env.ledger_rows():
        if not isinstance(getattr(row, "cents", None), int) or isinstance(row.cents, bool):
            ctx.problem(f"a ledger row's cents are not an integer: {row!r}")
            break
    points = env.money_points()
    if not isinstance(points, list) or not all(len(p) == 2 for p in points):
        ctx.problem("money_points() must return [(time, dollars)]")
    for tool in (s for s in env.registry.specs() if s.mutates):
        args = _filler(tool)
        done_digest = env.state_digest()
        if env.call_tool(tool.name, args).ok:
            ctx.problem(f"after the end, {tool.name}({_canonical(args)}) was accepted")
        if env.state_digest() != done_digest:
            ctx.problem(f"after the end, {tool.name} changed the state digest")
    from bizbench.core.runlog import ResultCore
    from bizbench.core.session import Session

    result = Session(spec, env).finish()
    try:
        ResultCore.model_validate(result)
    except Exception as e:  # noqa: BLE001
        ctx.problem(f"the session's result lacks the common core: {e}")
    if (why := _strict_json({k: v for k, v in result.items() if k != "wall_seconds"})) is not None:
        ctx.problem(f"the result is not strict JSON: {why}")


# ---------------------------------------------------------------------------- determinism
def check_determinism(ctx: _Ctx) -> None:
    here = trace(ctx.spec, ctx.seed, ctx.horizon, ctx.preset)
    other = ctx.make(seed=ctx.seed + 1)
    if any(other.state_digest() == run["digests"][0] for run in here.values()):
        ctx.problem(f"seeds {ctx.seed} and {ctx.seed + 1} build the same world (equal digests)")
    other.close()
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    args = ["trace", ctx.spec.id, "--seed", str(ctx.seed), "--horizon", str(ctx.horizon), "--preset", ctx.preset]
    proc = _python("-m", "bizbench.runner.check", *args, env=env)
    if proc.returncode != 0:
        if not _unreachable(ctx, proc):
            ctx.problem(f"the second process failed (exit {proc.returncode}): {_tail(proc.stderr)}")
        return
    there = json.loads(proc.stdout)
    for name, mine in here.items():
        theirs = there.get(name)
        if theirs is None:
            ctx.problem(f"baseline {name!r} is missing in the second process")
            continue
        a, b = mine["digests"], theirs["digests"]
        diverged = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        if diverged is not None:
            when = "at the start" if diverged == 0 else f"after turn {diverged}"
            ctx.problem(f"baseline {name!r}: the state digest differs in a second process {when}")
        elif len(a) != len(b):
            ctx.problem(f"baseline {name!r}: {len(a) - 1} turns here, {len(b) - 1} in a second process")
        if mine["actions"] != theirs["actions"]:
            ctx.problem(f"baseline {name!r}: the action log differs in a second process")
        diff = _differing(mine["result"], theirs["result"])
        if diff:
            ctx.problem(f"baseline {name!r}: result fields differ in a second process: {', '.join(diff)}")


# ---------------------------------------------------------------------------- bad calls
_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (type(None), "null"),
)


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    return schema


def _options(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a (possibly union) schema, references resolved."""
    schema = _resolve(schema, defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return [o for sub in schema[key] for o in _options(sub, defs)]
    return [schema]


def _json_type(value: Any) -> str:
    return next(name for kind, name in _JSON_TYPES if type(value) is kind)


def _types(schema: dict[str, Any], defs: dict[str, Any]) -> set[str] | None:
    """The JSON types a schema allows (None when it does not say)."""
    types: set[str] = set()
    for option in _options(schema, defs):
        if "type" in option:
            kind = option["type"]
            types.update([kind] if isinstance(kind, str) else kind)
        elif "enum" in option:
            types.update(_json_type(v) for v in option["enum"])
        elif "const" in option:
            types.add(_json_type(option["const"]))
        else:
            return None
    return types


def _valid(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A value the schema allows (a filler for the other arguments of a bad call)."""
    schema = _resolve(schema, defs)
    if "default" in schema:
        return schema["default"]
    options = _options(schema, defs)
    option = next((o for o in options if o.get("type") != "null"), options[0])
    if "const" in option:
        return option["const"]
    if option.get("enum"):
        return option["enum"][0]
    kind = option.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind in ("integer", "number"):
        low = option.get("minimum", option.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in option else 0))
        high = option.get("maximum", option.get("exclusiveMaximum", math.inf))
        value = max(low, min(1, high if high != math.inf else 1))
        return int(math.ceil(value)) if kind == "integer" else float(value)
    if kind == "string":
        return "x" * max(1, option.get("minLength", 1))
    if kind == "boolean":
        return False
    if kind == "array":
        return [_valid(option.get("items", {}), defs) for _ in range(option.get("minItems", 0))]
    if kind == "object":
        return {}
    return None


def _bad_values(schema: dict[str, Any], defs: dict[str, Any]) -> list[tuple[str, Any]]:
    """(label, value) pairs the schema refuses."""
    types = _types(schema, defs)
    out: list[tuple[str, Any]] = []
    if types is not None:
        wrong = [
            ("a string", "zz-not-valid"),
            ("a number", 5),
            ("a fraction", 0.5),
            ("a boolean", True),
            ("a list", [1]),
            ("an object", {"zz": 1}),
            ("null", None),
        ]
        for label, value in wrong:
            kind = _json_type(value)
            if kind not in types and not (kind == "integer" and "number" in types):
                out.append((label, value))
        if types & {"integer", "number"}:
            out += [("NaN", math.nan), ("infinity", math.inf), ("-infinity", -math.inf)]
            out += [("a huge integer", 10**30), ("a huge negative integer", -(10**30))]
            if "string" not in types:
                out.append(("a numeric string", "5"))
    for option in _options(schema, defs):
        if option.get("enum") and all(isinstance(v, str) for v in option["enum"]):
            out.append(("not one of the options", "zz-not-an-option"))
        for key, delta in (("minimum", -1), ("exclusiveMinimum", 0), ("maximum", 1), ("exclusiveMaximum", 0)):
            bound = option.get(key)
            numeric = option.get("type") in ("integer", "number")
            if numeric and isinstance(bound, int | float) and not isinstance(bound, bool):
                out.append((f"beyond its {key} {bound}", bound + delta))
        if option.get("type") == "string":
            if isinstance(option.get("maxLength"), int) and option["maxLength"] <= 1_000_000:
                out.append((f"longer than {option['maxLength']} characters", "x" * (option["maxLength"] + 1)))
            if option.get("minLength", 0) >= 1:
                out.append(("empty", ""))
    seen: set[str] = set()
    unique = []
    for label, value in out:
        if label not in seen:
            seen.add(label)
            unique.append((label, value))
    return unique


def bad_calls(registry: Any) -> list[tuple[str, str, Any, str | None]]:
    """Calls every env must refuse, from the registry's JSON schemas: (label, tool, arguments,
    the name its error must mention or None)."""
    unknown = "zz_no_such_tool"
    calls: list[tuple[str, str, Any, str | None]] = [("an unknown tool", unknown, {}, unknown)]
    for spec in registry.specs():
        schema = spec.parameters
        defs = schema.get("$defs", {})
        props: dict[str, Any] = schema.get("properties", {})
        required: list[str] = list(schema.get("required", []))
        filler = {p: _valid(props[p], defs) for p in required}
        name = spec.name
        calls.append((f"{name}: arguments not an object", name, ["zz"], None))
        calls.append((f"{name}: an unknown argument", name, {**filler, "zz_not_an_argument": 1}, "zz_not_an_argument"))
        for p in required:
            calls.append((f"{name}: {p} missing", name, {k: v for k, v in filler.items() if k != p}, p))
        for p, sub in props.items():
            for label, value in _bad_values(sub, defs):
                calls.append((f"{name}: {p} {label}", name, {**filler, p: value}, p))
    return calls


def _ready_env(ctx: _Ctx, files: Path | None = None) -> Any:
    """A fresh env one turn into the default baseline (a state worth protecting)."""
    env = ctx.make(files=files)
    policy = ctx.spec.baseline(ctx.spec.default_baseline).make(ctx.seed)
    if not env.done:
        policy.act(env)
    return env


_WORDS = ("", "x", "S1", "none", "select 1", "DROP TABLE ledger", "../../etc/passwd", "1e309", "-1")


def _garbage(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON-ish value: the kind of thing a confused model sends."""
    kind = rng.randrange(9 if depth < 2 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.choice([0, -1, 1, 7, 2**31, 2**63, 2**70, -(2**70)])
    if kind == 3:
        return rng.choice([0.5, -0.0, 1e308, -1e-9, math.nan, math.inf, -math.inf])
    if kind in (4, 5, 6):
        return rng.choice(_WORDS)
    if kind == 7:
        return [_garbage(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(_WORDS): _garbage(rng, depth + 1) for _ in range(rng.randrange(3))}


def _fuzz_calls(registry: Any, seed: int, per_tool: int = 8) -> list[tuple[str, str, Any]]:
    """Random arguments for every tool (seeded: the same calls on every run)."""
    rng = random.Random(seed)
    calls = []
    for spec in registry.specs():
        keys = [p.name for p in spec.params] + ["junk", ""]
        for n in range(per_tool):
            if n == per_tool - 1:
                args: Any = _garbage(rng)  # not even an object, sometimes
            else:
                args = {rng.choice(keys): _garbage(rng) for _ in range(rng.randrange(4))}
            calls.append((f"{spec.name}: random arguments #{n + 1}", spec.name, args))
    return calls


def check_failed_calls(ctx: _Ctx) -> None:
    from bizbench.core.session import Session

    env = _ready_env(ctx)
    run = ctx.path("run")
    session = Session(ctx.spec, env, run, agent="check_env")
    before = env.state_digest()
    generated = [(label, name, args, named, True) for label, name, args, named in bad_calls(env.registry)]
    fuzzed = [(label, name, args, None, False) for label, name, args in _fuzz_calls(env.registry, ctx.seed)]
    for label, name, args, named, must_refuse in generated + fuzzed:
        logged = len(env.actions)
        try:  # the env's own call_tool: the session would answer for an env that raises
            answer = env.call_tool(name, args)
        except Exception as e:  # noqa: BLE001
            ctx.problem(f"{label}: call_tool raised {type(e).__name__}: {e}")
            before = env.state_digest()
            continue
        session.flush()
        after = env.state_digest()
        if len(env.actions) != logged + 1 or env.actions[-1].get("ok") is not answer.ok:
            ctx.problem(f"{label}: not logged in env.actions as one call (ok={answer.ok})")
        if answer.ok:
            if must_refuse:
                ctx.problem(f"{label}: accepted ({_canonical(args)[:120]})")
            before = after  # a random call may be a good one
            continue
        if not isinstance(answer.error, str) or not answer.error.strip():
            ctx.problem(f"{label}: refused without an error message")
        elif answer.error.startswith("internal_error"):
            ctx.problem(f"{label}: the tool crashed ({answer.error}) on {_canonical(args)[:120]}")
        elif named is not None and named not in answer.error:
            ctx.problem(f"{label}: the error does not name {named!r}: {answer.error[:200]}")
        if after != before:
            ctx.problem(f"{label}: refused, but the state digest changed ({_canonical(args)[:120]})")
            before = after
    if session.run is not None:
        session.run.close()
    lines = (run / "actions.jsonl").read_text().splitlines() if (run / "actions.jsonl").is_file() else []

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    for n, line in enumerate(lines, 1):
        try:
            json.loads(line, parse_constant=refuse)
        except ValueError as e:
            ctx.problem(f"actions.jsonl line {n} is not strict JSON ({e}): {line[:120]}")
            break
    if len(lines) != len(env.actions):
        ctx.problem(f"actions.jsonl has {len(lines)} lines for {len(env.actions)} calls")
    env.close()


# ---------------------------------------------------------------------------- tool docs
_ARGS_SECTION = re.compile(r"^(Args|Arguments|Parameters):\s*$")
_ARG_LINE = re.compile(r"^(\s+)(\w+)\s*(?:\([^)]*\))?\s*:")


def _documented_args(doc: str) -> list[str]:
    """The names in a Google-style docstring's ``Args:`` section."""
    names: list[str] = []
    inside, indent = False, None
    for line in doc.splitlines():
        if _ARGS_SECTION.match(line.strip()) and not line.startswith(" "):
            inside, indent = True, None
            continue
        if inside and line.strip() and not line.startswith(" "):
            inside = False
        m = _ARG_LINE.match(line) if inside else None
        if m and (indent is None or len(m.group(1)) <= indent):
            indent = len(m.group(1))
            names.append(m.group(2))
    return names


def check_tool_docs(ctx: _Ctx) -> None:
    import inspect

    env = ctx.make()
    registry = env.registry
    env.close()
    title = f"{ctx.spec.id} tool reference"
    markdown = registry.markdown_docs(title)
    sections = {m.group(1): m.start() for m in re.finditer(r"^### `(\w+)`", markdown, re.M)}
    names = registry.names()
    if sorted(sections) != sorted(names):
        ctx.problem(f"the Markdown reference lists {sorted(sections)}, the registry {sorted(names)}")
    for spec in registry.specs():
        if not spec.description.strip():
            ctx.problem(f"tool {spec.name} has no description (the first line of its docstring)")
        for p in spec.params:
            if not p.description.strip():
                ctx.problem(f"argument {p.name!r} of tool {spec.name} has no description (an Args: entry)")
        stale = sorted(set(_documented_args(inspect.getdoc(spec.fn) or "")) - {p.name for p in spec.params})
        if stale:
            ctx.problem(f"tool {spec.name} documents arguments it does not take: {', '.join(stale)}")
        start = sections.get(spec.name)
        if start is not None:
            end = min([s for s in sections.values() if s > start] + [len(markdown)])
            text = markdown[start:end]
            lost = [p.name for p in spec.params if f"| `{p.name}` |" not in text]
            if lost or spec.signature not in text:
                ctx.problem(f"the Markdown section of {spec.name} lacks its signature or arguments {lost}")
        schema = spec.parameters
        if sorted(schema.get("properties", {})) != sorted(p.name for p in spec.params):
            ctx.problem(f"the JSON schema of {spec.name} has other arguments than the function")
        if sorted(schema.get("required", [])) != sorted(p.name for p in spec.params if p.required):
            ctx.problem(f"the JSON schema of {spec.name} requires other arguments than the function")
    for fmt, listing in (
        ("json schemas", [d["name"] for d in registry.json_schemas()]),
        ("OpenAI tools", [d["function"]["name"] for d in registry.openai_tools()]),
        ("Anthropic tools", [d["name"] for d in registry.anthropic_tools()]),
    ):
        if listing != names:
            ctx.problem(f"the {fmt} list {listing}, the registry {names}")
    proc = _bizbench("tools", ctx.spec.id, "--format", "markdown")
    if proc.returncode != 0:
        if not _unreachable(ctx, proc):
            ctx.problem(f"`bizbench tools {ctx.spec.id} --format markdown` failed: {_tail(proc.stderr)}")
    elif proc.stdout != markdown:
        ctx.problem(f"`bizbench tools {ctx.spec.id} --format markdown` differs from the registry's reference")
    shipped = ctx.docs_dir / f"{ctx.spec.id}-tools.md" if ctx.docs_dir is not None else None
    if shipped is not None and shipped.is_file():
        if shipped.read_text() != markdown:
            ctx.problem(f"{shipped.name} differs from the registry's reference: regenerate it (make docs)")
    else:
        ctx.note("no shipped <id>-tools.md to compare")


# ---------------------------------------------------------------------------- hidden
def _declared_hidden(ctx: _Ctx, env: Any) -> list[str | int | float]:
    values: list[str | int | float] = [env.seed]
    method = getattr(env, "hidden_values", None)
    if callable(method):
        values += [v for v in method() if not isinstance(v, bool)]
    return values


_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w.])")
#: a shown number with this many significant digits that is a hidden float rounded or cut to
#: them is that float
_SIGNIFICANT = 5


def _significant(token: str) -> int:
    mantissa = re.split("[eE]", token)[0]
    return len(mantissa.lstrip("-").replace(".", "").lstrip("0"))


def _shown_as(value: float, digits: int) -> set[float]:
    """``value`` rounded and cut to ``digits`` significant digits."""
    exact = Decimal(repr(value))
    if exact == 0:
        return {0.0}
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    return {float(exact.quantize(quantum, rounding=r)) for r in (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN)}


_Numbers = dict[int, dict[float, re.Match[str]]]  # digits -> value -> where first shown


def _long_numbers(text: str) -> _Numbers:
    """The numbers of ``text`` with at least ``_SIGNIFICANT`` significant digits, by their count
    of them and their value (the first place each is shown)."""
    index: _Numbers = {}
    for m in _NUMBER.finditer(text):
        digits = _significant(m.group())
        if digits >= _SIGNIFICANT:
            index.setdefault(digits, {}).setdefault(float(m.group()), m)
    return index


def _float_shown(value: float, numbers: _Numbers) -> re.Match[str] | None:
    """The first of a text's long ``numbers`` that is ``value`` rounded or cut to its digits."""
    shown = [found[f] for digits, found in numbers.items() for f in _shown_as(value, digits) if f in found]
    return min(shown, key=lambda m: m.start(), default=None)


def _search(value: str | int | float, text: str, numbers: _Numbers) -> re.Match[str] | None:
    """Where a hidden value shows in ``text``: a string (any case) where a word starts, an
    integer as a whole number, a float rounded or cut to enough significant digits (among
    ``numbers``, the text's ``_long_numbers``)."""
    if isinstance(value, str):
        return re.search(rf"(?<![a-z0-9]){re.escape(value)}", text, re.I) if value else None
    if isinstance(value, int):
        return re.search(rf"(?<![\d.]){value}(?!\d)", text)
    if not math.isfinite(value):
        return None
    return _float_shown(value, numbers)


def find_hidden(values: Iterable[str | int | float], texts: Iterable[tuple[str, str]]) -> list[str]:
    """Where each hidden value appears among ``texts`` ((where, text) pairs): one line per value found."""
    texts = list(texts)
    numbers: list[_Numbers | None] = [None] * len(texts)  # each text's long numbers, parsed once
    leaks = []
    for value in dict.fromkeys(values):
        for i, (where, text) in enumerate(texts):
            if isinstance(value, float) and numbers[i] is None:
                numbers[i] = _long_numbers(text)
            m = _search(value, text, numbers[i] or {})
            if m:
                around = text[max(0, m.start() - 60) : m.end() + 60].replace("\n", " ")
                leaks.append(f"hidden {value!r} appears in {where}: ...{around}...")
                break
    return leaks


def _dump(value: Any) -> str:
    return value if isinstance(value, str) else _canonical(value)


def _files_text(root: Path, label: str) -> list[tuple[str, str]]:
    out = []
    for p in sorted(root.rglob("*")) if root.is_dir() else []:
        if p.is_file() and not p.is_symlink():
            out.append((f"{label} {p.relative_to(root)}", p.read_bytes().decode("latin-1")))
    return out


def _recording(env: Any, sink: list[tuple[str, str]], label: str) -> None:
    """Make ``env`` record every tool result it gives (an instance attribute shadows the method,
    so the env's own ``advance`` is recorded too)."""
    original = env.call_tool

    def call_tool(name: str, args: Any) -> Any:
        answer = original(name, args)
        where = f"{label}: {name} at {env.elapsed}"
        sink.append((f"the result of {where}", _dump(answer.data)))
        if answer.error:
            sink.append((f"the error of {where}", answer.error))
        return answer

    env.call_tool = call_tool


def _filler(tool: Any) -> dict[str, Any]:
    """Valid-looking values of a tool's required arguments."""
    schema = tool.parameters
    return {p: _valid(schema["properties"][p], schema.get("$defs", {})) for p in schema.get("required", [])}


def _probe_reads(ctx: _Ctx, texts: list[tuple[str, str]]) -> None:
    """The default baseline's episode with every read-only tool called before each turn, so that
    reads no baseline makes are searched too (their answers go to ``texts``)."""
    files = ctx.path("files-reads")
    files.mkdir(exist_ok=True)
    env = ctx.make(files=files)
    _recording(env, texts, "reads")
    reads = [(t.name, _filler(t)) for t in env.registry.specs() if not t.mutates]
    policy = ctx.spec.baseline(ctx.spec.default_baseline).make(ctx.seed)
    try:
        turns = 0
        while not env.done and turns < MAX_TURNS:
            for name, args in reads:
                env.call_tool(name, args)
            policy.act(env)
            turns += 1
    except Exception as e:  # noqa: BLE001 - reads may spend what the baseline counted on (cfo's budget)
        ctx.note(f"the default baseline stopped after the probing reads ({type(e).__name__}: {e})")
    env.close()
    texts += _files_text(files, "the agent-visible file of the reads:")


def check_hidden(ctx: _Ctx) -> None:
    env = ctx.make()
    registry = env.registry
    hidden = _declared_hidden(ctx, env)
    if not callable(getattr(env, "hidden_values", None)):
        ctx.note("the env has no hidden_values(): only the seed is searched for")
    texts: list[tuple[str, str]] = [
        ("the tool reference", registry.markdown_docs(f"{ctx.spec.id} tool reference")),
        ("the tool schemas", _dump(registry.json_schemas())),
    ]
    prompt = getattr(env, "system_prompt", None)
    if callable(prompt):
        try:
            texts.append(("the system prompt", str(prompt())))
        except TypeError:
            pass
    env.close()
    for name, policy in _policies(ctx.spec, ctx.seed).items():
        files = ctx.path(f"files-{name}")
        files.mkdir(exist_ok=True)
        env = ctx.make(files=files)
        _recording(env, texts, name)

        def observe(e: Any, n: str = name, sink: list[tuple[str, str]] = texts) -> None:
            sink.append((f"the observation of {n} at {e.elapsed}", _dump(e.observation())))

        _play(env, policy, observe)
        hidden += _declared_hidden(ctx, env)
        env.close()
        texts += _files_text(files, f"the agent-visible file of {name}:")
    _probe_reads(ctx, texts)
    env = _ready_env(ctx)
    for label, name, args, _ in bad_calls(env.registry):
        answer = env.call_tool(name, args)
        texts.append((f"the error of a bad call ({label})", str(answer.error)))
    hidden += _declared_hidden(ctx, env)
    env.close()
    for leak in find_hidden(hidden, texts):
        ctx.problem(leak)


def check_hidden_seat(ctx: _Ctx) -> None:
    if ctx.spec.seat is None:
        ctx.note("the env declares no seat")
        return
    from bizbench.core.seat import seat_of

    env = ctx.make()
    ws = ctx.path("workspace")
    ws.mkdir(exist_ok=True)
    seat_of(ctx.spec).write_workspace(ws, env.config, env.registry)
    texts = _files_text(ws, "the workspace file")
    if not texts:
        ctx.problem("the seat wrote no file into the workspace")
    for leak in find_hidden(_declared_hidden(ctx, env), texts):
        ctx.problem(leak)
    env.close()


# ---------------------------------------------------------------------------- play
def check_play(ctx: _Ctx) -> None:
    if ctx.spec.play is None:
        ctx.note("the env declares no play module: bizbench play shows no chart and no editable memory")
        return
    module = ctx.spec.module("play")
    env = ctx.make(files=ctx.path("files"))
    _check_play_names(ctx, module, env)
    charts = {chart.id for chart in module.CHARTS}
    texts: list[tuple[str, str]] = []

    def take_points(e: Any) -> None:
        before, logged = e.state_digest(), len(e.actions)
        points = module.points(e, ())
        if (e.state_digest(), len(e.actions)) != (before, logged):
            ctx.problem(f"points() changed the world or logged a call at {e.elapsed}")
        for p in points:
            numbers = [p.value] if p.x is None else [p.value, p.x]
            if p.chart not in charts or not all(isinstance(v, int | float) and math.isfinite(v) for v in numbers):
                ctx.problem(f"points() at {e.elapsed}: {p.chart!r} is not a declared chart of finite numbers")
        texts.append((f"the chart points at {e.elapsed}", _canonical([vars(p) for p in points])))

    _play(env, ctx.spec.baseline(ctx.spec.default_baseline).make(ctx.seed), take_points)
    for leak in find_hidden(_declared_hidden(ctx, env), texts):
        ctx.problem(leak)
    env.close()


def _check_play_names(ctx: _Ctx, module: Any, env: Any) -> None:
    """The tools a play module names are the env's (a turn tool that ends the turn unasked), its
    money is a number of the observation."""
    registry = env.registry
    names = set(registry.names())
    for tool in module.TURN_TOOLS:
        if tool not in names:
            ctx.problem(f"TURN_TOOLS names {tool!r}, not a tool of the env")
    tool = module.END_TURN_TOOL
    if tool is not None and (tool not in names or registry.spec(tool).parameters.get("required")):
        ctx.problem(f"END_TURN_TOOL {tool!r} is not a tool of the env callable without arguments")
    observation = env.observation()
    if module.MONEY is not None and not isinstance(observation.get(module.MONEY[1]), int | float):
        ctx.problem(f"MONEY names {module.MONEY[1]!r}, not a number of the observation")
    call = module.memory_call("notes")
    if (call is None) == (module.MEMORY_FILE is None):
        ctx.problem("the memory is kept by exactly one of MEMORY_FILE and memory_call")
    if call is not None and call[0] not in names:
        ctx.problem(f"memory_call names {call[0]!r}, not a tool of the env")
    if module.MEMORY_FILE is not None and Path(module.MEMORY_FILE).name != module.MEMORY_FILE:
        ctx.problem(f"MEMORY_FILE {module.MEMORY_FILE!r} is not a plain file name")


# ---------------------------------------------------------------------------- replay and resume
def check_replay(ctx: _Ctx) -> None:
    from bizbench.runner.episode import open_session
    from bizbench.runner.replay import replay_run

    out = ctx.path("run")
    policy = ctx.spec.baseline(ctx.spec.default_baseline).make(ctx.seed)
    session = open_session(ctx.spec.id, ctx.seed, ctx.preset, out, ctx.spec.default_baseline, ctx.horizon)
    while not session.done:
        session.call_tool("zz_no_such_tool", {})  # a refused call every turn: replay skips it
        policy.act(session)
    session.finish(agent=ctx.spec.default_baseline)
    report = replay_run(out)
    if not report.ok:
        ctx.problem(f"a finished run does not replay: {_canonical(report.summary())[:1500]}")
        return
    fields, files = _forge_smallest(out, ctx.path("forged"), report)
    forged = replay_run(ctx.path("forged"))
    missed = [k for k in fields if k not in forged.mismatches] + [f for f in files if f not in forged.file_mismatches]
    if missed:
        ctx.problem(f"replay verifies a run forged by the smallest change in: {', '.join(missed)}")


def _nudged(value: Any) -> Any:
    """The smallest change to a number a forger would make: one more of an integer (a customer,
    a day, a cent counted in cents), a trillionth more of a float (less than a cent on any
    amount below $10 billion); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return value + 1
    return value + max(abs(value), 1.0) * 1e-12 if math.isfinite(value) else None


def _forge_smallest(run: Path, forged: Path, report: ReplayReport) -> tuple[list[str], list[str]]:
    """A copy of ``run`` with every number of result.json that replay compares changed by
    :func:`_nudged`, and the last line of every log replay regenerates by :func:`_forged_line`;
    returns the forged fields and files."""
    from bizbench.core.jsonio import read_json

    shutil.copytree(run, forged)
    result = read_json(forged / "result.json") or {}
    fields = [k for k in report.compared if _nudged(result.get(k)) is not None]
    result.update({k: _nudged(result[k]) for k in fields})
    (forged / "result.json").write_text(json.dumps(result))
    files = []
    for name in report.files_verified:  # a forged call in actions.jsonl is a divergence: the replay tests
        path = forged / name
        lines = path.read_text().splitlines() if name != "actions.jsonl" and path.is_file() else []
        last = _forged_line(name, lines[-1]) if lines else None
        if last is not None:
            path.write_text("\n".join([*lines[:-1], last]) + "\n")
            files.append(name)
    return fields, files


def _forged_line(name: str, line: str) -> str | None:
    """``line`` of log ``name`` with one number changed (a cent of a CSV row, :func:`_nudged` on
    the first number of a JSON row); None when it has no number."""
    if name.endswith(".csv"):
        cells = next(csv.reader([line]))
        i = next((i for i, c in enumerate(cells) if re.fullmatch(r"-?\d+\.\d\d", c)), None)
        if i is None:
            return None
        cells[i] = f"{Decimal(cells[i]) + Decimal('0.01')}"
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(cells)
        return buf.getvalue()
    row = json.loads(line)
    key = next((k for k, v in row.items() if _nudged(v) is not None), None)
    if key is None:
        return None
    return json.dumps({**row, key: _nudged(row[key])})


def _comparable(run: Path) -> dict[str, Any]:
    from bizbench.core.jsonio import read_json, read_jsonl

    result = read_json(run / "result.json") or {}
    files = {
        name: read_jsonl(run / name)
        for name in sorted(p.name for p in run.glob("*.jsonl"))
        if name not in ("resume.jsonl", "trajectory.jsonl", "tamper.jsonl")
    }
    ledger = (run / "ledger.csv").read_text() if (run / "ledger.csv").is_file() else None
    return {
        "result.json": {k: v for k, v in result.items() if k not in VOLATILE_RESULT},
        **files,
        "ledger.csv": ledger,
    }


def check_resume(ctx: _Ctx) -> None:
    args = ["run", ctx.spec.id, "--agent", ctx.spec.default_baseline, "--seed", str(ctx.seed)]
    args += ["--preset", ctx.preset, "--horizon", str(ctx.horizon)]
    whole, killed = ctx.path("uninterrupted"), ctx.path("killed")
    proc = _bizbench(*args, "--out", str(whole))
    if proc.returncode != 0:
        if not _unreachable(ctx, proc):
            ctx.problem(f"`bizbench {' '.join(args)}` failed: {_tail(proc.stderr or proc.stdout)}")
        return
    calls = sum(1 for _ in (whole / "actions.jsonl").open()) if (whole / "actions.jsonl").is_file() else 0
    if calls < 2:
        ctx.problem(f"the uninterrupted run logged {calls} actions: too few to kill it half-way")
        return
    kill = ["-m", "bizbench.runner.check", "kill-after", str(calls // 2), "--", *args, "--out", str(killed)]
    proc = _python(*kill)
    if proc.returncode != -signal.SIGKILL:
        ctx.problem(f"the run was not killed half-way (exit {proc.returncode}): {_tail(proc.stderr)}")
        return
    proc = _bizbench("resume", str(killed))
    if proc.returncode != 0:
        ctx.problem(f"`bizbench resume` failed (exit {proc.returncode}): {_tail(proc.stderr or proc.stdout)}")
        return
    a, b = _comparable(whole), _comparable(killed)
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            if name == "result.json":
                diff = _differing(a[name], b.get(name) or {})
                ctx.problem(f"the resumed run's result differs from the uninterrupted one in: {', '.join(diff)}")
            else:
                ctx.problem(f"the resumed run's {name} differs from the uninterrupted one")


# ---------------------------------------------------------------------------- arena
def _arena_play(ctx: _Ctx, agents: list[str]) -> Any:
    """An arena of the checked preset and horizon, seat i played by baseline ``agents[i]`` to the end."""
    from bizbench.runner.arena import play_seats

    config, digest = ctx.spec.load_config(ctx.preset)
    arena = ctx.spec.make_arena(ctx.spec.with_horizon(config, ctx.horizon), ctx.seed, len(agents), ctx.preset, digest)
    policies = [ctx.spec.baseline(name).make(ctx.seed) for name in agents]

    def driver(i: int) -> Callable[[Any], None]:
        def drive(env: Any) -> None:
            _play(env, policies[i])

        return drive

    play_seats(arena, [driver(i) for i in range(len(agents))], arena.seats)
    return arena


def check_arena(ctx: _Ctx) -> None:
    if ctx.spec.arena is None:
        ctx.note("the env has no arena")
        return
    for name, policy in _policies(ctx.spec, ctx.seed).items():
        single = ctx.make()
        _play(single, policy)
        (seat,) = _arena_play(ctx, [name]).seats
        if seat.state_digest() != single.state_digest():
            ctx.problem(f"baseline {name!r}: a one-seat arena ends in another world than the single-player run")
        if _canonical([(a.get("tool"), a.get("args"), a.get("ok")) for a in seat.actions]) != _canonical(
            [(a.get("tool"), a.get("args"), a.get("ok")) for a in single.actions]
        ):
            ctx.problem(f"baseline {name!r}: a one-seat arena's action log differs from the single-player run's")
        single.close()
        seat.close()
    twins = _arena_play(ctx, [ctx.spec.default_baseline] * 2).seats
    if twins[0].state_digest() != twins[1].state_digest():
        ctx.problem(
            f"two seats of baseline {ctx.spec.default_baseline!r} end in different companies: a seat is favoured"
        )
    names = list(ctx.spec.baseline_table())
    pair = [ctx.spec.default_baseline, next(n for n in names if n != ctx.spec.default_baseline)]
    ab, ba = _arena_play(ctx, pair), _arena_play(ctx, pair[::-1])
    if [s.state_digest() for s in ab.seats] != [s.state_digest() for s in ba.seats][::-1]:
        ctx.problem(f"seats {pair} and {pair[::-1]}: swapping the agents does not mirror the companies")
    for arena in (ab, ba):
        for env in arena.seats:
            env.close()


CHECKS: dict[str, Callable[[_Ctx], None]] = {
    "protocol": check_protocol,
    "determinism": check_determinism,
    "failed_calls": check_failed_calls,
    "tool_docs": check_tool_docs,
    "hidden": check_hidden,
    "hidden_seat": check_hidden_seat,
    "play": check_play,
    "replay": check_replay,
    "resume": check_resume,
    "arena": check_arena,
}


# ---------------------------------------------------------------------------- command line
def _kill_after(calls: int, argv: list[str]) -> None:
    """Run ``bizbench ARGV`` and SIGKILL this process once ``calls`` actions are on disk."""
    from bizbench.core.session import Session

    flush = Session.flush

    def flush_then_die(self: Session) -> None:
        flush(self)
        if self.run is not None and len(self.env.actions) >= calls:
            os.kill(os.getpid(), signal.SIGKILL)

    Session.flush = flush_then_die  # type: ignore[method-assign]
    sys.argv = ["bizbench", *argv]
    # the command line is run as a program (as `python -m bizbench.cli` would), not imported:
    # the runner sits below the CLI
    runpy.run_module("bizbench.cli", run_name="__main__", alter_sys=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bizbench.runner.check", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_check = sub.add_parser("check", help="run check_env on an env; exit 1 on a problem")
    p_check.add_argument("env")
    p_check.add_argument("--checks", default=None, help=f"comma-separated, among {', '.join(CHECKS)}")
    p_trace = sub.add_parser("trace", help="print every baseline's digests, actions and result (JSON)")
    p_trace.add_argument("env")
    for p in (p_check, p_trace):
        p.add_argument("--seed", type=int, default=DEFAULT_SEED)
        p.add_argument("--horizon", type=int, default=None)
        p.add_argument("--preset", default=None)
    p_kill = sub.add_parser("kill-after", help="run `bizbench ARGS`, SIGKILLed after N actions")
    p_kill.add_argument("calls", type=int)
    p_kill.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)
    if ns.command == "kill-after":
        _kill_after(ns.calls, ns.args[1:] if ns.args[:1] == ["--"] else ns.args)
        return 0
    from bizbench.core.envs import get_env

    try:
        spec = get_env(ns.env)
    except KeyError as e:
        print(e.args[0], file=sys.stderr)
        return 2
    preset = ns.preset or spec.default_preset
    if ns.command == "trace":
        horizon = ns.horizon or min(SHORT_HORIZON[spec.unit], spec.horizon_of(spec.load_config(preset)[0]))
        print(json.dumps(trace(spec, ns.seed, horizon, preset)))
        return 0
    checks = ns.checks.split(",") if ns.checks else None
    report = check_env(spec, checks, seed=ns.seed, horizon=ns.horizon, preset=preset, raise_errors=False)
    print(report)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
