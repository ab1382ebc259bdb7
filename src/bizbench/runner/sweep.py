"""Sweeps: env x preset x agent/model x seed from one TOML file, on local processes or Ray.

A sweep file (docs/sweeps.md) is validated by :class:`SweepSpec`, expanded by :func:`expand`
into :class:`RunSpec` s, each with a stable, readable directory name under the sweep's
``out``, and run by :func:`run_sweep`:

- a run whose directory holds ``result.json`` is finished and skipped;
- an unfinished one is continued by :func:`continue_unfinished` (resume, or set aside and
  restart);
- a run that raises is recorded with its error and the sweep goes on;
- per-provider concurrency limits and a sweep-wide dollar cap decide what starts next;
- ``summary.json`` and ``summary.csv`` are rewritten as every run ends, so a killed sweep
  still leaves an up-to-date summary.

The split (``dev`` or ``test``) is the evaluation protocol: dev worlds come from the public
seeds, test worlds from the seeds keyed by ``$BIZBENCH_SEED_SECRET`` (a test sweep refuses
to start without it). Workers run :func:`execute_job`, a plain function of a JSON-able job,
so the same job runs in a local process, in this process or on a Ray worker.

Modules: :mod:`~bizbench.runner.sweep_spec` (the file and its expansion),
:mod:`~bizbench.runner.sweep_worker` (one run in a worker, and the backends) and this one
(the checks before starting, the scheduler and the summary).
"""

from __future__ import annotations

import csv
import os
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from bizbench.core.jsonio import write_json
from bizbench.core.rng import SECRET_ENV, secret_from_env, secret_id
from bizbench.core.runlog import headline_score
from bizbench.runner.resume import finished
from bizbench.runner.sweep_spec import (
    SPLIT_SEEDS,
    RunSpec,
    SweepError,
    SweepSpec,
    expand,
    load_sweep,
    parse_seeds,
    provider_of,
    sweep_file,
)
from bizbench.runner.sweep_worker import (
    BACKENDS,
    THREAD_VARS,
    Backend,
    InlineBackend,
    LocalBackend,
    RayBackend,
    continue_unfinished,
    execute_job,
    make_backend,
    set_aside,
)

__all__ = [
    "BACKENDS",
    "SPLIT_SEEDS",
    "THREAD_VARS",
    "Backend",
    "InlineBackend",
    "LocalBackend",
    "RayBackend",
    "RunSpec",
    "SweepError",
    "SweepSpec",
    "SweepState",
    "check_runnable",
    "check_split",
    "continue_unfinished",
    "execute_job",
    "expand",
    "load_sweep",
    "make_backend",
    "parse_seeds",
    "provider_of",
    "run_status",
    "run_sweep",
    "set_aside",
    "sweep_file",
]

#: Result fields copied into the summary (those a run's env has; the rest stay empty).
RESULT_FIELDS = (
    "score",
    "final_cash",
    "final_funds",
    "bankrupt",
    "completed",
    "incomplete_reason",
    "ended_by",
    "days_survived",
    "months_survived",
    "turns",
    "cost_usd",
    "wall_seconds",
    "seed_secret_id",
)
SUMMARY_COLUMNS = (
    "name",
    "status",
    "env",
    "preset",
    "agent",
    "seed",
    "replicate",
    *RESULT_FIELDS,
    "headline_score",
    "error",
    "note",
    "run_dir",
)


# ---------------------------------------------------------------------------- checks before starting
def check_split(split: str) -> str | None:
    """The seed-secret fingerprint the sweep's runs must carry: None for dev (public worlds);
    for test the current secret's, or SweepError when ``$BIZBENCH_SEED_SECRET`` is unset."""
    if split == "dev":
        return None
    secret = secret_from_env()
    if secret is None:
        raise SweepError(
            f"split = 'test' runs the held-out worlds keyed by the seed secret: set ${SECRET_ENV} "
            "(ask whoever keeps the benchmark's secret), or use split = 'dev' for the public seeds"
        )
    return secret_id(secret)


def check_runnable(spec: SweepSpec) -> None:
    """Build every baseline (with its options) and model client once, so a typo, a missing key or
    extra, or a harness that cannot drive the env stops the sweep before anything starts."""
    from bizbench.agents.harness import unusable
    from bizbench.agents.models.factory import make_model
    from bizbench.core.envs import get_env
    from bizbench.runner.agent_episode import load_agent_class, make_harness

    for i, block in enumerate(spec.runs):
        for agent in (a for a in block.agents if ":" in a):
            try:
                load_agent_class(agent)
            except ValueError as e:
                raise SweepError(f"runs[{i}].agents: {e}") from None
        for agent in (a for a in block.agents if ":" not in a):
            for options in block.option_sets():
                try:
                    _check_baseline(block.env, agent, options)
                except (ValueError, TypeError) as e:
                    raise SweepError(f"runs[{i}].agents: {e}") from None
        for j, entry in enumerate(block.models):
            where = f"runs[{i}].models[{j}]"
            harness = entry.harness or get_env(block.env).harness
            why = unusable(harness, get_env(block.env))
            if why:
                raise SweepError(f"{where}.harness: {why}")
            try:
                make_harness(harness, **entry.harness_options)
            except (ValueError, TypeError) as e:
                raise SweepError(f"{where}.harness_options: {e}") from None
            model = entry.resolved()
            try:
                make_model(model["model"], entry.sampling, prices=model["prices"])
            except (ValueError, OSError) as e:
                raise SweepError(f"{where}: {e}") from None


def _check_baseline(env: str, agent: str, options: dict[str, Any]) -> None:
    """Build the baseline with its options (ValueError naming a wrong name, option or value)."""
    from bizbench.core.envs import get_env

    get_env(env).check_baseline(agent, options).make(0, **options)


# ---------------------------------------------------------------------------- the summary
def check_recorded(spec: SweepSpec) -> None:
    """SweepError when a run's directory holds a run made with other settings than the file now
    gives it (a horizon, a baseline's options, the world options, a model's harness, sampling,
    limits or prices): a run's name does not carry them, and the sweep would count the old run as
    this one (finished) or finish it with the old settings (unfinished)."""
    out = Path(spec.out).expanduser().absolute()
    horizons: dict[tuple[str, str], int] = {}  # (env, preset) -> the preset's horizon, loaded once
    found = [
        (run, changes)
        for run in expand(spec)
        for changes in [recorded_changes(run, out / run.name, horizons)]
        if changes
    ]
    if found:
        lines = [f"{out / run.name}: {'; '.join(changes)}" for run, changes in found[:5]]
        more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
        raise SweepError(
            f"{len(found)} run {'directory holds a run' if len(found) == 1 else 'directories hold runs'} made with "
            f"other settings than this sweep file gives {'it' if len(found) == 1 else 'them'}{more}:\n"
            + "\n".join(lines)
            + "\nUse another out directory, or the settings they were made with."
        )


def recorded_changes(run: RunSpec, run_dir: Path, horizons: dict[tuple[str, str], int] | None = None) -> list[str]:
    """What the run in ``run_dir`` was made with that ``run`` would not be (empty: none, or no run).

    Settings are compared as they act: the world options with the env's defaults filled in, a
    horizon from the recorded world when config.json has none (run format 1), the limits and the
    sampling without their unset entries; a scripted or replayed model's sampling is not compared
    (its replies do not depend on it). ``horizons`` caches each preset's horizon."""
    from bizbench.agents.recording import Limits
    from bizbench.core.envs import get_env
    from bizbench.core.jsonio import read_json

    try:
        recorded = read_json(run_dir / "config.json")
    except (OSError, ValueError):
        return []
    if not isinstance(recorded, dict) or "env" not in recorded:  # no run recorded there (resume will say)
        return []
    env = get_env(run.env)
    if run.horizon is not None:
        horizon = run.horizon
    else:
        key = (run.env, run.preset)
        cache = horizons if horizons is not None else {}
        if key not in cache:
            cache[key] = env.horizon_of(env.load_config(run.preset)[0])
        horizon = cache[key]
    got: dict[str, Any] = {
        "horizon": recorded.get("horizon"),
        "world_options": {**env.world_options, **(recorded.get("world_options") or {})},
    }
    if got["horizon"] is None and isinstance(recorded.get("config"), dict):
        try:
            got["horizon"] = env.horizon_of(recorded["config"])
        except (KeyError, TypeError, ValueError):
            pass
    wanted: dict[str, Any] = {"horizon": horizon, "world_options": {**env.world_options, **(run.world or {})}}
    if run.kind == "baseline":
        wanted["agent_options"] = run.options or {}
        got["agent_options"] = recorded.get("agent_options") or {}
    if run.kind == "model" and run.model is not None:
        m = run.model
        wanted |= {
            "harness": m["harness"] or env.harness,
            "harness_options": _set_entries(m["harness_options"]),
            "limits": _set_entries(vars(Limits(**m["limits"]))),
            "prices": m["prices"],
        }
        got |= {
            "harness": recorded.get("harness"),
            "harness_options": _set_entries(recorded.get("harness_options")),
            "limits": _set_entries(recorded.get("limits")),
            "prices": recorded.get("prices"),
        }
        if provider_of(run.agent) not in ("scripted", "replay"):
            wanted["sampling"], got["sampling"] = _set_entries(m["sampling"]), _set_entries(recorded.get("sampling"))
    return [f"{key} {got[key]!r}, not {want!r}" for key, want in wanted.items() if got[key] != want]


def _set_entries(mapping: dict[str, Any] | None) -> dict[str, Any]:
    """``mapping`` without its unset (None) entries: an option left out and one set to None alike."""
    return {k: v for k, v in (mapping or {}).items() if v is not None}


def run_status(run_dir: Path) -> Literal["finished", "unfinished", "new"]:
    """finished: it has its result; unfinished: the directory holds a run that did not end."""
    if finished(run_dir) is not None:
        return "finished"
    return "unfinished" if _holds_run(run_dir) else "new"


def _holds_run(run_dir: Path) -> bool:
    return run_dir.is_dir() and any(run_dir.iterdir())


def _cost(result: dict[str, Any] | None) -> float:
    value = (result or {}).get("cost_usd")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


@dataclass
class SweepState:
    """What the sweep knows so far: one row per run, what it has spent, and where it writes."""

    out: Path
    spec: SweepSpec
    runs: list[RunSpec]
    backend: str
    workers: int
    secret_id: str | None = None
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    spent: float = 0.0
    started: float = field(default_factory=time.time)
    written: float = 0.0  # when the summary was last written
    write_seconds: float = 0.0  # how long that took

    def __post_init__(self) -> None:
        for run in self.runs:
            row: dict[str, Any] = {c: None for c in SUMMARY_COLUMNS}
            row.update(name=run.name, status="pending", env=run.env, preset=run.preset, agent=run.agent)
            row.update(seed=run.seed, replicate=run.replicate, run_dir=run.name, error="", note="")
            row["spec"] = asdict(run)
            self.rows[run.name] = row

    def record(self, name: str, status: str, result: dict[str, Any] | None = None, **extra: Any) -> None:
        row = self.rows[name]
        row["status"] = status
        for key in RESULT_FIELDS:
            row[key] = (result or {}).get(key)
        row["headline_score"] = headline_score(result) if result else None  # what bizbench report ranks by
        row.update(extra)
        self.spent += _cost(result)

    def counts(self) -> dict[str, int]:
        return dict(Counter(row["status"] for row in self.rows.values()))

    def write(self, finished: bool = False, now: bool = True) -> None:
        """summary.json and summary.csv, each replaced atomically. ``now=False`` skips a write that
        would follow the last within 20 times its duration, so rewriting the summary of a sweep
        of thousands of runs takes at most about 5 % of the time (a small one is always written)."""
        if not now and time.time() - self.written < 20 * self.write_seconds:
            return
        self.written = time.time()
        summary = {
            "out": str(self.out),
            "split": self.spec.split,
            "seed_secret_id": self.secret_id,
            "backend": self.backend,
            "workers": self.workers,
            "max_dollars": self.spec.max_dollars,
            "spent_usd": round(self.spent, 6),
            "counts": self.counts(),
            "finished": finished,
            "started_at": _iso(self.started),
            "updated_at": _iso(time.time()),
            "sweep": self.spec.model_dump(mode="json"),
            "runs": list(self.rows.values()),
        }
        write_json(self.out / "summary.json", summary)
        tmp = self.out / "summary.csv.tmp"
        with tmp.open("w", newline="") as f:
            w = csv.DictWriter(f, SUMMARY_COLUMNS, extrasaction="ignore")
            w.writeheader()
            for row in self.rows.values():
                w.writerow({k: "" if v is None else v for k, v in row.items()})
        os.replace(tmp, self.out / "summary.csv")
        self.write_seconds = time.time() - self.written


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


# ---------------------------------------------------------------------------- the scheduler
def _reserved(run: RunSpec) -> float:
    """What a run may still spend: its own ``max_dollars`` limit (0 for baselines and for
    models without one, whose cost is known only when they end)."""
    return float(((run.model or {}).get("limits") or {}).get("max_dollars") or 0.0)


def _over_cap(cap: float | None, spent: float, runs: list[RunSpec]) -> bool:
    """Whether starting the last of ``runs`` beside the others could pass the sweep's cap."""
    return cap is not None and spent + sum(_reserved(r) for r in runs) > cap


def run_sweep(
    spec: SweepSpec,
    backend: Backend | str = "local",
    workers: int | None = None,
    address: str | None = None,
    on_update: Callable[[SweepState, str], None] | None = None,
) -> SweepState:
    """Run every unfinished run of ``spec`` (see the module docstring); returns the final state,
    whose rows are also in ``<out>/summary.json`` and ``summary.csv``. ``on_update(state, name)``
    is called as each run is settled (skipped, done, failed or not started)."""
    expected_secret = check_split(spec.split)
    runs = expand(spec)
    check_runnable(spec)
    check_recorded(spec)
    out = Path(spec.out).expanduser().absolute()
    label = backend if isinstance(backend, str) else type(backend).__name__
    state = SweepState(out, spec, runs, label, 0, expected_secret)
    todo: deque[tuple[RunSpec, bool]] = deque()
    for run in runs:
        result = finished(out / run.name)
        if result is None:
            todo.append((run, _holds_run(out / run.name)))
        elif result.get("seed_secret_id") != expected_secret:
            error = f"finished under another seed secret ({result.get('seed_secret_id')}); use another out directory"
            state.record(run.name, "failed", None, error=error)
        else:
            state.record(run.name, "skipped", result, note="finished before this sweep")
        if state.rows[run.name]["status"] != "pending" and on_update is not None:
            on_update(state, run.name)
    pool = make_backend(backend, workers, address) if isinstance(backend, str) else backend
    state.workers = pool.slots
    out.mkdir(parents=True, exist_ok=True)
    limits = spec.limits.concurrency
    in_flight: Counter[str | None] = Counter()
    running: dict[str, RunSpec] = {}
    try:
        state.write()
        while todo or running:
            if spec.max_dollars is not None and state.spent >= spec.max_dollars and todo:
                reason = f"max_dollars: finished runs cost ${state.spent:,.2f}, the cap is ${spec.max_dollars:,.2f}"
                for run, _ in todo:
                    state.record(run.name, "not_started", None, note=reason)
                    if on_update is not None:
                        on_update(state, run.name)
                todo.clear()
                state.write()
            started = False
            while len(running) < pool.slots:
                pick = next((x for x in todo if _room(x[0], in_flight, limits)), None)
                if pick is None or (running and _over_cap(spec.max_dollars, state.spent, [*running.values(), pick[0]])):
                    break
                todo.remove(pick)
                run, resume = pick
                job = {"run": asdict(run), "run_dir": str(out / run.name), "resume": resume}
                pool.submit(run.name, {**job, "secret_id": expected_secret})
                running[run.name] = run
                in_flight[run.provider] += 1
                state.rows[run.name].update(status="running", started_at=_iso(time.time()))
                started = True
            if started:  # the summary says which runs are going, should the sweep be killed now
                state.write()
            if not running:
                break
            for key, outcome in pool.wait():
                run = running.pop(str(key))
                in_flight[run.provider] -= 1
                ended = _iso(time.time())
                if outcome["status"] == "done":
                    state.record(run.name, "done", outcome["result"], note=outcome.get("note", ""), ended_at=ended)
                else:
                    error, tb = outcome["error"], outcome.get("traceback", "")
                    state.record(run.name, "failed", None, error=error, traceback=tb, ended_at=ended)
                state.write(now=not running)
                if on_update is not None:
                    on_update(state, run.name)
    except BaseException:
        for name in running:
            state.rows[name].update(status="interrupted", note="the sweep stopped while it ran")
        state.write()
        raise
    finally:
        pool.close()
    state.write(finished=True)
    return state


def _room(run: RunSpec, in_flight: Counter[str | None], limits: dict[str, int]) -> bool:
    limit = limits.get(run.provider or "")
    return limit is None or in_flight[run.provider] < limit
