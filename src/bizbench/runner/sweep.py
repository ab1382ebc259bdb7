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
"""

from __future__ import annotations

import csv
import importlib
import itertools
import json
import multiprocessing
import os
import re
import time
import tomllib
import traceback
from collections import Counter, deque
from collections.abc import Callable, Hashable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bizbench.core.rng import SECRET_ENV, secret_from_env, secret_id

__all__ = [
    "BACKENDS",
    "InlineBackend",
    "LocalBackend",
    "RayBackend",
    "RunSpec",
    "SweepError",
    "SweepSpec",
    "continue_unfinished",
    "execute_job",
    "expand",
    "load_sweep",
    "parse_seeds",
    "provider_of",
    "run_sweep",
    "set_aside",
]

#: Seeds of each split when a ``[[runs]]`` block names none. Test worlds are keyed by the
#: secret (HMAC of the seed), so the same numbers give worlds nobody without it can rebuild.
SPLIT_SEEDS = {"dev": "1-20", "test": "1-20"}
#: Result fields copied into the summary (those a run's env has; the rest stay empty).
RESULT_FIELDS = (
    "score",
    "final_cash",
    "final_funds",
    "bankrupt",
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
    "error",
    "note",
    "run_dir",
)
#: Thread pools of numeric libraries, capped at one per worker so N workers use N cores.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


class SweepError(ValueError):
    """A sweep that cannot start: a bad file, a missing secret, an unusable model or agent."""


# ---------------------------------------------------------------------------- the sweep file
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def parse_seeds(value: Any) -> list[int]:
    """``7``, ``[1, 2, 5]``, ``"1-20"`` or ``"1-5,9,12-14"`` -> the seeds in order, without repeats."""
    if isinstance(value, bool):
        raise ValueError(f"seeds: expected an integer, a list or a range like '1-20', got {value!r}")
    if isinstance(value, int):
        items: list[Any] = [value]
    elif isinstance(value, list):
        items = value
    elif isinstance(value, str):
        items = []
        for part in value.replace(" ", "").split(","):
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
            if m is None:
                raise ValueError(f"seeds: cannot read {part!r} in {value!r} (write e.g. '1-20' or '1,3,5-7')")
            lo, hi = int(m[1]), int(m[2] or m[1])
            if hi < lo:
                raise ValueError(f"seeds: the range {part!r} runs backwards")
            items.extend(range(lo, hi + 1))
    else:
        raise ValueError(f"seeds: expected an integer, a list or a range like '1-20', got {value!r}")
    seeds: list[int] = []
    for s in items:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"seeds: {s!r} is not a non-negative integer")
        if s not in seeds:
            seeds.append(s)
    if not seeds:
        raise ValueError("seeds: the list is empty")
    return seeds


def _providers() -> tuple[str, ...]:
    from bizbench.agents.models.factory import FORMS

    return tuple(provider_of(form) for form in FORMS)


def provider_of(model: str) -> str:
    """The provider prefix of a model string: ``openai/gpt-5.5`` -> ``openai``,
    ``openai-compatible/q@url`` -> ``openai-compatible``, ``scripted:f.jsonl`` -> ``scripted``."""
    m = re.match(r"[A-Za-z0-9-]+", model.strip())
    return m[0] if m else model


class ModelLimits(_Strict):
    """Per-run budgets of a model (``bizbench run --max-dollars/--max-tokens/--max-turns``)."""

    max_dollars: float | None = Field(default=None, gt=0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_turns: int | None = Field(default=None, ge=1)


class ModelEntry(_Strict):
    """One model in the seat, with its harness, sampling, limits and prices."""

    model: str
    label: str | None = None  # its part of run names (default: from the model string)
    harness: str | None = None  # default: the env's paper's harness
    harness_options: dict[str, Any] = Field(default_factory=dict)
    sampling: dict[str, Any] = Field(default_factory=dict)
    limits: ModelLimits = ModelLimits()
    prices: str | None = None  # a TOML/JSON price table (docs/models.md)

    @field_validator("model")
    @classmethod
    def _model(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the model string is empty")
        return v.strip()

    @field_validator("sampling")
    @classmethod
    def _sampling(cls, v: dict[str, Any]) -> dict[str, Any]:
        from bizbench.agents.models.factory import check_sampling

        return check_sampling(v)

    @property
    def provider(self) -> str:
        return provider_of(self.model)

    def name_part(self) -> str:
        if self.label:
            return _slug(self.label)
        if self.provider in ("scripted", "replay"):
            return f"{self.provider}-{_slug(Path(self.model.split(':', 1)[1]).stem)}"
        return _slug(self.model.split("@", 1)[0].replace("/", "_"))


class RunBlock(_Strict):
    """A ``[[runs]]`` table: one env, its presets, agents and/or models, seeds."""

    env: str
    preset: str | None = None
    presets: list[str] | None = None
    agents: list[str] = Field(default_factory=list)  # baselines, or module:Class
    models: list[ModelEntry] = Field(default_factory=list)
    seeds: list[int] | None = None  # default: the split's seeds
    n: int = Field(default=1, ge=1)  # runs per (model, preset, seed)
    days: int | None = Field(default=None, ge=1)  # ceo baselines: horizon override
    options: dict[str, Any] = Field(default_factory=dict)  # agent options for every run
    grid: dict[str, list[Any]] = Field(default_factory=dict)  # agent options: every combination
    db: bool = True  # ceo baselines: write company.db

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, v: Any) -> Any:
        return None if v is None else parse_seeds(v)

    @field_validator("models", mode="before")
    @classmethod
    def _models(cls, v: Any) -> Any:
        return [{"model": m} if isinstance(m, str) else m for m in v] if isinstance(v, list) else v

    @field_validator("env")
    @classmethod
    def _env(cls, v: str) -> str:
        from bizbench.core.envs import get_env

        try:
            get_env(v)
        except KeyError as e:
            raise ValueError(e.args[0]) from None
        return v

    @field_validator("grid")
    @classmethod
    def _grid(cls, v: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for key, values in v.items():
            if not values:
                raise ValueError(f"grid.{key} has no values")
        return v

    @model_validator(mode="after")
    def _block(self) -> RunBlock:
        from bizbench.core.envs import get_env
        from bizbench.core.presets import list_presets

        spec = get_env(self.env)
        if self.preset is not None and self.presets is not None:
            raise ValueError("give preset or presets, not both")
        names = self.presets if self.presets is not None else [self.preset or spec.default_preset]
        known = list_presets(spec.package)
        for name in names:
            if name not in known:
                raise ValueError(f"unknown {self.env} preset {name!r} (presets: {', '.join(known)})")
        self.presets, self.preset = names, None
        if not self.agents and not self.models:
            raise ValueError("give agents (baselines or module:Class) and/or models")
        both = sorted(set(self.options) & set(self.grid))
        if both:
            raise ValueError(f"{', '.join(both)} given in both options and grid")
        if (self.options or self.grid) and self.env != "ceo":
            raise ValueError("options and grid are agent options of ceo baselines (e.g. rule-based's price_book)")
        if self.days is not None and self.env != "ceo":
            raise ValueError(f"days overrides the ceo horizon; {self.env} runs its preset's (models: harness_options)")
        baselines = [a for a in self.agents if ":" not in a]
        if self.n > 1 and baselines:
            raise ValueError(f"n > 1 repeats model runs; baselines are deterministic ({', '.join(baselines)})")
        return self


class Concurrency(_Strict):
    """``[limits]``: at most this many runs at once per provider (``openai = 4``)."""

    concurrency: dict[str, int] = Field(default_factory=dict)

    @field_validator("concurrency")
    @classmethod
    def _concurrency(cls, v: dict[str, int]) -> dict[str, int]:
        providers = _providers()
        for key, limit in v.items():
            if key not in providers:
                raise ValueError(f"unknown provider {key!r} (providers: {', '.join(providers)})")
            if limit < 1:
                raise ValueError(f"{key} = {limit}: a limit is at least 1")
        return v


class SweepSpec(_Strict):
    """A sweep file (docs/sweeps.md)."""

    out: str
    split: Literal["dev", "test"] = "dev"
    max_dollars: float | None = Field(default=None, gt=0)  # stop starting runs once finished runs cost this
    limits: Concurrency = Field(default_factory=Concurrency)
    runs: list[RunBlock] = Field(min_length=1)


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def validation_message(e: ValidationError, source: str) -> str:
    """Pydantic errors as lines naming the key: ``runs[0].presets: unknown cfo preset ...``."""
    lines = []
    for err in e.errors():
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key (docs/sweeps.md lists the keys)"
        lines.append(f"  {_where(tuple(err['loc']))}: {msg}")
    return f"{source}: invalid sweep file\n" + "\n".join(lines)


def load_sweep(path: str | Path, data: dict[str, Any] | None = None) -> SweepSpec:
    """Read and validate a sweep file (or ``data`` already read from it); SweepError says what is wrong."""
    if data is None:
        try:
            data = tomllib.loads(Path(path).read_text())
        except OSError as e:
            raise SweepError(f"cannot read the sweep file {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise SweepError(f"{path}: not valid TOML: {e}") from None
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as e:
        raise SweepError(validation_message(e, str(path))) from None


# ---------------------------------------------------------------------------- expansion
@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep; ``name`` is its directory under the sweep's ``out``."""

    name: str
    env: str
    preset: str
    seed: int
    agent: str  # a baseline, module:Class, or the model string
    kind: Literal["baseline", "user", "model"]
    replicate: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    days: int | None = None
    db: bool = True
    model: dict[str, Any] | None = None  # ModelEntry as a dict (kind == "model")

    @property
    def provider(self) -> str | None:
        """The provider whose concurrency limit applies (None: baselines and user agents)."""
        return provider_of(self.agent) if self.kind == "model" else None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_.") or "x"


def _value_part(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return _slug(str(v).lower() if isinstance(v, bool) else str(v))


def _absolute_model(entry: ModelEntry) -> dict[str, Any]:
    """The entry with its files as absolute paths (workers may run in another directory)."""
    d = entry.model_dump()
    prov = entry.provider
    if prov in ("scripted", "replay"):
        d["model"] = f"{prov}:{Path(entry.model.split(':', 1)[1]).expanduser().absolute()}"
    if entry.prices:
        d["prices"] = str(Path(entry.prices).expanduser().absolute())
    return d


def expand(spec: SweepSpec) -> list[RunSpec]:
    """Every run of the sweep, in file order; SweepError if two runs would share a directory."""
    runs: list[RunSpec] = []
    for block in spec.runs:
        seeds = block.seeds or parse_seeds(SPLIT_SEEDS[spec.split])
        keys = list(block.grid)
        combos = [dict(zip(keys, vals, strict=True)) for vals in itertools.product(*block.grid.values())]
        for preset in block.presets or []:
            for agent in block.agents:
                kind: Literal["baseline", "user"] = "user" if ":" in agent else "baseline"
                label = _slug(agent.rsplit(":", 1)[-1]) if kind == "user" else _slug(agent)
                for combo in combos if kind == "baseline" else [{}]:
                    options = {**block.options, **combo} if kind == "baseline" else {}
                    parts = [block.env, preset, label, *(_value_part(v) for v in options.values())]
                    for seed in seeds:
                        for r in range(1, block.n + 1):
                            name = "-".join([*parts, f"seed{seed}"]) + (f"-r{r}" if r > 1 else "")
                            days = block.days if block.env == "ceo" else None
                            runs.append(RunSpec(name, block.env, preset, seed, agent, kind, r, options, days, block.db))
            for entry in block.models:
                for seed in seeds:
                    for r in range(1, block.n + 1):
                        name = f"{block.env}-{preset}-{entry.name_part()}-seed{seed}" + (f"-r{r}" if r > 1 else "")
                        model = _absolute_model(entry)
                        runs.append(RunSpec(name, block.env, preset, seed, entry.model, "model", r, model=model))
    seen: dict[str, RunSpec] = {}
    for run in runs:
        if run.name in seen:
            hint = " (give each model a distinct label)" if run.kind == "model" else ""
            raise SweepError(f"two runs of the sweep are both named {run.name!r}{hint}")
        seen[run.name] = run
    return runs


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
    from bizbench.agents.harness import DEFAULT_HARNESS, HARNESS_ENVS
    from bizbench.agents.models.factory import make_model
    from bizbench.runner.agent_episode import make_harness

    for i, block in enumerate(spec.runs):
        combos = [dict(zip(block.grid, v, strict=True)) for v in itertools.product(*block.grid.values())]
        for agent in (a for a in block.agents if ":" not in a):
            for combo in combos:
                try:
                    _check_baseline(block.env, agent, {**block.options, **combo})
                except (ValueError, TypeError) as e:
                    raise SweepError(f"runs[{i}].agents: {e}") from None
        for j, entry in enumerate(block.models):
            where = f"runs[{i}].models[{j}]"
            harness = entry.harness or DEFAULT_HARNESS[block.env]
            if block.env not in HARNESS_ENVS.get(harness, (block.env,)):
                raise SweepError(f"{where}.harness: {harness} does not drive {block.env} (docs/agents.md)")
            try:
                make_harness(harness, **entry.harness_options)
            except (ValueError, TypeError) as e:
                raise SweepError(f"{where}.harness_options: {e}") from None
            model = _absolute_model(entry)
            try:
                make_model(model["model"], entry.sampling, prices=model["prices"])
            except (ValueError, OSError) as e:
                raise SweepError(f"{where}: {e}") from None


def _check_baseline(env: str, agent: str, options: dict[str, Any]) -> None:
    module = importlib.import_module(f"bizbench.envs.{env}.baselines")
    if env == "ceo":
        policy = module.make_policy(agent, seed=0, **options)
        missing = [k for k in options if not hasattr(policy, k)]
        if missing:
            raise ValueError(f"the {agent} baseline takes no option {', '.join(missing)}")
    else:
        module.make_policy(agent)


# ---------------------------------------------------------------------------- one run (in a worker)
def set_aside(path: Path) -> Path:
    """Move an unfinished run directory to ``<name>.incomplete-<n>`` (the first free n)."""
    for n in itertools.count(1):
        target = path.with_name(f"{path.name}.incomplete-{n}")
        if not target.exists():
            path.rename(target)
            return target
    raise AssertionError("unreachable")


def continue_unfinished(path: Path) -> dict[str, Any] | None:
    """Finish an unfinished run: result.json's content, or None once the directory has been moved
    aside (the caller then starts the run afresh). The one place a sweep decides how to continue:
    ``bizbench.runner.resume.resume_run`` when the tree has it, else set aside and restart."""
    try:
        from bizbench.runner.resume import resume_run  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError as e:
        if e.name != "bizbench.runner.resume":
            raise
        set_aside(path)
        return None
    result: dict[str, Any] = resume_run(path)
    return result


def start_run(run: RunSpec, out: Path) -> dict[str, Any]:
    """Run ``run`` from the start into ``out``; returns result.json's content."""
    from bizbench.runner import agent_episode, episode

    if run.kind == "user":
        return agent_episode.run_user_agent(run.env, run.agent, run.seed, run.preset, out)
    if run.kind == "model":
        from bizbench.agents.models.factory import make_model
        from bizbench.agents.recording import Limits

        m = run.model or {}
        client = make_model(m["model"], m["sampling"], prices=m["prices"])
        return agent_episode.run_agent_episode(
            run.env, client, run.seed, run.preset, out, m["harness"], Limits(**m["limits"]), m["harness_options"]
        )
    if run.env == "ceo":
        return episode.run_ceo_baseline(
            run.agent, run.seed, run.preset, run.days, out, run.options or None, database=run.db
        )
    runner: Callable[..., dict[str, Any]] = getattr(episode, f"run_{run.env}_baseline")
    return runner(run.agent, run.seed, run.preset, out)


def limit_threads() -> None:
    """One thread per numeric library in this worker (set before numpy loads its BLAS)."""
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")


def execute_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job in whatever process holds it; never raises: a failure is an outcome.

    ``job``: ``run`` (a RunSpec as a dict), ``run_dir``, ``resume`` (the directory holds an
    unfinished run) and ``secret_id`` (the fingerprint the sweep's split demands)."""
    started = time.time()
    held = os.environ.get(SECRET_ENV)
    try:
        if job["secret_id"] is None:
            os.environ.pop(SECRET_ENV, None)  # dev: the public worlds, whatever this shell holds
        elif secret_id(secret_from_env()) != job["secret_id"]:
            raise SweepError(f"this worker's ${SECRET_ENV} is unset or not the sweep's (test split)")
        path = Path(job["run_dir"])
        note = ""
        result = None
        if job["resume"]:
            result = continue_unfinished(path)
            note = "resumed" if result is not None else "restarted (the unfinished run was moved aside)"
        if result is None:
            result = start_run(RunSpec(**job["run"]), path)
        return {"status": "done", "result": result, "note": note, "started": started, "ended": time.time()}
    except Exception as e:  # noqa: BLE001 - a failed run is recorded and the sweep goes on
        return {
            "status": "failed",
            "error": f"{type(e).__name__}: {e}"[:2000],
            "traceback": traceback.format_exc(),
            "started": started,
            "ended": time.time(),
        }
    finally:
        if held is not None:
            os.environ[SECRET_ENV] = held


def _crashed(e: BaseException) -> dict[str, Any]:
    """The outcome of a job whose worker died (not an exception inside the run)."""
    return {"status": "failed", "error": f"worker lost: {type(e).__name__}: {e}"[:2000], "traceback": ""}


# ---------------------------------------------------------------------------- backends
class Backend(Protocol):
    """Where jobs run. ``slots`` jobs at a time; ``wait`` blocks until at least one ends."""

    slots: int

    def submit(self, key: Hashable, job: dict[str, Any]) -> None: ...

    def wait(self) -> list[tuple[Hashable, dict[str, Any]]]: ...

    def close(self) -> None: ...


class InlineBackend:
    """Jobs run one at a time in this process (debugging, profiling; what tests monkeypatch)."""

    slots = 1

    def __init__(self) -> None:
        self._queue: deque[tuple[Hashable, dict[str, Any]]] = deque()

    def submit(self, key: Hashable, job: dict[str, Any]) -> None:
        self._queue.append((key, job))

    def wait(self) -> list[tuple[Hashable, dict[str, Any]]]:
        key, job = self._queue.popleft()
        return [(key, execute_job(job))]

    def close(self) -> None:
        self._queue.clear()


class LocalBackend:
    """A pool of ``workers`` fresh processes (spawn: no state inherited from the sweep process);
    each caps its numeric thread pools at one unless ``limit_threads`` is False."""

    def __init__(self, workers: int | None = None, limit_threads: bool = True) -> None:
        self.slots = max(1, workers or os.cpu_count() or 1)
        self._limit = limit_threads
        self._futures: dict[Future[dict[str, Any]], Hashable] = {}
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        init = limit_threads if self._limit else None
        return ProcessPoolExecutor(self.slots, mp_context=multiprocessing.get_context("spawn"), initializer=init)

    def submit(self, key: Hashable, job: dict[str, Any]) -> None:
        try:
            fut = self._pool.submit(execute_job, job)
        except BrokenProcessPool:  # a worker died earlier: the pool is unusable, start another
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            fut = self._pool.submit(execute_job, job)
        self._futures[fut] = key

    def wait(self) -> list[tuple[Hashable, dict[str, Any]]]:
        done, _ = wait_futures(list(self._futures), return_when=FIRST_COMPLETED)
        out = []
        for fut in done:
            key = self._futures.pop(fut)
            try:
                out.append((key, fut.result()))
            except Exception as e:  # noqa: BLE001 - the worker process died (BrokenProcessPool ...)
                out.append((key, _crashed(e)))
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class RayBackend:
    """Jobs as Ray tasks (one CPU each) on the cluster at ``address`` (or a local Ray started here,
    or the one this process is already connected to). Run directories must be on storage every
    node sees. ``env_vars`` go to the workers through the job's runtime environment."""

    def __init__(
        self, workers: int | None = None, address: str | None = None, env_vars: dict[str, str] | None = None
    ) -> None:
        try:
            import ray
        except ImportError:
            raise SweepError("the ray backend needs Ray: pip install 'bizbench[cluster]'") from None
        self._ray = ray
        self._owner = not ray.is_initialized()
        if self._owner:
            runtime_env = {"env_vars": env_vars} if env_vars else None
            ray.init(address=address, runtime_env=runtime_env, include_dashboard=False, log_to_driver=False)
        self.slots = max(1, workers or int(ray.cluster_resources().get("CPU", 1)))
        self._task = ray.remote(num_cpus=1, max_retries=0)(execute_job)
        self._refs: dict[Any, Hashable] = {}

    def submit(self, key: Hashable, job: dict[str, Any]) -> None:
        self._refs[self._task.remote(job)] = key

    def wait(self) -> list[tuple[Hashable, dict[str, Any]]]:
        ready, _ = self._ray.wait(list(self._refs), num_returns=1)
        out = []
        for ref in ready:
            key = self._refs.pop(ref)
            try:
                out.append((key, self._ray.get(ref)))
            except Exception as e:  # noqa: BLE001 - the worker or node died
                out.append((key, _crashed(e)))
        return out

    def close(self) -> None:
        for ref in self._refs:
            self._ray.cancel(ref, force=True)
        self._refs.clear()
        if self._owner:
            self._ray.shutdown()


BACKENDS = ("local", "ray", "inline")


def make_backend(name: str, workers: int | None = None, address: str | None = None) -> Backend:
    """A backend by name (``--backend``)."""
    if name == "local":
        return LocalBackend(workers)
    if name == "inline":
        return InlineBackend()
    if name == "ray":
        secret = secret_from_env()
        return RayBackend(workers, address, {SECRET_ENV: secret} if secret else None)
    raise SweepError(f"unknown backend {name!r} (backends: {', '.join(BACKENDS)})")


# ---------------------------------------------------------------------------- the summary
def read_result(run_dir: Path) -> dict[str, Any] | None:
    """A finished run's result.json (None when the run is unfinished or absent)."""
    try:
        data = json.loads((run_dir / "result.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def run_status(run_dir: Path) -> Literal["finished", "unfinished", "new"]:
    """finished: result.json is there; unfinished: the directory holds a run that did not end."""
    if (run_dir / "result.json").is_file():
        return "finished"
    return "unfinished" if run_dir.is_dir() and any(run_dir.iterdir()) else "new"


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
    #: seconds between two summary writes while runs keep ending (a long sweep rewrites a large file)
    write_every: float = 1.0

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
        row.update(extra)
        self.spent += _cost(result)

    def counts(self) -> dict[str, int]:
        return dict(Counter(row["status"] for row in self.rows.values()))

    def write(self, finished: bool = False, now: bool = True) -> None:
        """summary.json and summary.csv, each replaced atomically (``now=False``: unless written
        less than ``write_every`` seconds ago)."""
        if not now and time.time() - self.written < self.write_every:
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
        _replace(self.out / "summary.json", json.dumps(summary, indent=2, default=str) + "\n")
        tmp = self.out / "summary.csv.tmp"
        with tmp.open("w", newline="") as f:
            w = csv.DictWriter(f, SUMMARY_COLUMNS, extrasaction="ignore")
            w.writeheader()
            for row in self.rows.values():
                w.writerow({k: "" if v is None else v for k, v in row.items()})
        os.replace(tmp, self.out / "summary.csv")


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------- the scheduler
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
    out = Path(spec.out).expanduser().absolute()
    out.mkdir(parents=True, exist_ok=True)
    todo: deque[tuple[RunSpec, bool]] = deque()
    pool = make_backend(backend, workers, address) if isinstance(backend, str) else backend
    label = backend if isinstance(backend, str) else type(backend).__name__
    state = SweepState(out, spec, runs, label, pool.slots, expected_secret)
    for run in runs:
        result = read_result(out / run.name)
        if result is None:
            todo.append((run, run_status(out / run.name) == "unfinished"))
        elif result.get("seed_secret_id") != expected_secret:
            error = f"finished under another seed secret ({result.get('seed_secret_id')}); use another out directory"
            state.record(run.name, "failed", None, error=error)
        else:
            state.record(run.name, "skipped", result, note="finished before this sweep")
        if state.rows[run.name]["status"] != "pending" and on_update is not None:
            on_update(state, run.name)
    state.write()
    limits = spec.limits.concurrency
    in_flight: Counter[str | None] = Counter()
    running: dict[str, RunSpec] = {}
    try:
        while todo or running:
            if spec.max_dollars is not None and state.spent >= spec.max_dollars and todo:
                reason = f"max_dollars: finished runs cost ${state.spent:,.2f}, the cap is ${spec.max_dollars:,.2f}"
                for run, _ in todo:
                    state.record(run.name, "not_started", None, note=reason)
                    if on_update is not None:
                        on_update(state, run.name)
                todo.clear()
                state.write()
            while len(running) < pool.slots:
                pick = next((x for x in todo if _room(x[0], in_flight, limits)), None)
                if pick is None:
                    break
                todo.remove(pick)
                run, resume = pick
                job = {"run": asdict(run), "run_dir": str(out / run.name), "resume": resume}
                pool.submit(run.name, {**job, "secret_id": expected_secret})
                running[run.name] = run
                in_flight[run.provider] += 1
                state.rows[run.name].update(status="running", started_at=_iso(time.time()))
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


def sweep_file(path: str | Path, out: str | None = None, max_dollars: float | None = None) -> SweepSpec:
    """A sweep file with the command line's overrides applied (and validated again)."""
    spec = load_sweep(path)
    if out is None and max_dollars is None:
        return spec
    data = spec.model_dump(mode="json", exclude_none=True)
    data.update({k: v for k, v in (("out", out), ("max_dollars", max_dollars)) if v is not None})
    return load_sweep(path, data)
