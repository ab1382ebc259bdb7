"""One run of a sweep, in whatever process holds it: :func:`execute_job` and the backends.

Workers run :func:`execute_job`, a function of a plain dict that never raises, so the same
job runs in a local process (:class:`LocalBackend`), in the sweep's own process
(:class:`InlineBackend`) or on a Ray worker (:class:`RayBackend`). An unfinished run is
continued by :func:`continue_unfinished`.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import threading
import time
import traceback
from collections import deque
from collections.abc import Hashable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Protocol

from bizbench.runner.sweep_spec import RunSpec, SweepError

__all__ = [
    "BACKENDS",
    "Backend",
    "InlineBackend",
    "LocalBackend",
    "RayBackend",
    "continue_unfinished",
    "execute_job",
    "make_backend",
    "set_aside",
    "start_run",
]

#: Thread pools of numeric libraries, capped at one per worker so N workers use N cores.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def set_aside(path: Path) -> Path:
    """Move an unfinished run directory to ``<name>.incomplete-<n>`` (the first free n)."""
    for n in itertools.count(1):
        target = path.with_name(f"{path.name}.incomplete-{n}")
        if not target.exists():
            path.rename(target)
            return target
    raise AssertionError("unreachable")


def continue_unfinished(path: Path, agent: str) -> dict[str, Any] | None:
    """Finish an unfinished run of ``agent`` (the sweep's) with ``bizbench resume``: result.json's
    content. The sweep names its agent classes and models, so the one its run directory records
    is trusted when it is the sweep's own (agent and model spec). A directory killed before its
    config.json was written holds nothing to resume: it is moved aside and None returned (the
    caller starts the run afresh)."""
    if not (path / "config.json").is_file():
        set_aside(path)
        return None
    from bizbench.core.jsonio import read_json
    from bizbench.runner.resume import resume_run

    recorded = read_json(path / "config.json") or {}
    own = recorded.get("agent") == agent and recorded.get("model_spec") in (None, agent)  # a model run's is its spec
    result: dict[str, Any] = resume_run(path, trust_agent_code=own)
    return result


def start_run(run: RunSpec, out: Path) -> dict[str, Any]:
    """Run ``run`` from the start into ``out``; returns result.json's content."""
    from bizbench.runner import agent_episode, episode

    if run.kind == "user":
        return agent_episode.run_user_agent(run.env, run.agent, run.seed, run.preset, out, run.horizon, run.world)
    if run.kind == "model":
        from bizbench.agents.models.factory import make_model
        from bizbench.agents.recording import Limits

        m = run.model or {}
        client = make_model(m["model"], m["sampling"], prices=m["prices"])
        limits = Limits(**m["limits"])
        return agent_episode.run_agent_episode(
            run.env,
            client,
            run.seed,
            run.preset,
            out,
            m["harness"],
            limits,
            m["harness_options"],
            m["model"],
            m["prices"],
            run.horizon,
        )
    return episode.run_baseline(
        run.env, run.agent, run.seed, run.preset, run.horizon, out, run.options or None, world_options=run.world or None
    )


@contextlib.contextmanager
def thread_limited_env(limit: bool = True) -> Iterator[None]:
    """While processes are started: one thread per numeric library, unless the variable is set.

    Set in this process's environment for the moment a worker is spawned, so the worker has it
    before anything (its bootstrap, the main module) loads numpy and its BLAS."""
    added = [var for var in THREAD_VARS if limit and var not in os.environ]
    os.environ.update(dict.fromkeys(added, "1"))
    try:
        yield
    finally:
        for var in added:
            os.environ.pop(var, None)


def execute_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job in whatever process holds it; never raises: a failure is an outcome.

    ``job``: ``run`` (a RunSpec as a dict), ``run_dir``, ``resume`` (the directory holds an
    unfinished run) and ``secret_id`` (the fingerprint the sweep's split demands); a tournament's
    match is ``kind: "arena"`` with the match's own fields (:func:`bizbench.runner.tournament.play_match`)."""
    from bizbench.core.rng import SECRET_ENV, secret_from_env, secret_id  # numpy: after the thread limits

    held = os.environ.get(SECRET_ENV)
    try:
        if job["secret_id"] is None:
            os.environ.pop(SECRET_ENV, None)  # dev: the public worlds, whatever this shell holds
        elif secret_id(secret_from_env()) != job["secret_id"]:
            raise SweepError(f"this worker's ${SECRET_ENV} is unset or not the sweep's (test split)")
        path = Path(job["run_dir"])
        if job.get("kind") == "arena":  # a tournament's match (runner/tournament.py)
            from bizbench.runner.tournament import play_match

            return {"status": "done", "result": play_match(job, path)}
        note = ""
        result = None
        if job["resume"]:
            result = continue_unfinished(path, job["run"]["agent"])
            note = "resumed" if result is not None else "restarted (the unfinished run was moved aside)"
        if result is None:
            result = start_run(RunSpec(**job["run"]), path)
        return {"status": "done", "result": result, "note": note}
    except Exception as e:  # noqa: BLE001 - a failed run is recorded and the sweep goes on
        return {
            "status": "failed",
            "error": f"{type(e).__name__}: {e}"[:2000],
            "traceback": traceback.format_exc(),
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


def exit_with_parent(parent: int, every_s: float = 0.5) -> None:
    """A worker's initializer: end the worker when the sweep that started it is gone (killed
    with SIGKILL, its workers would go on writing run directories that the next sweep resumes)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class LocalBackend:
    """A pool of ``workers`` fresh processes (spawn: no state inherited from the sweep process);
    each caps its numeric thread pools at one unless ``limit_threads`` is False."""

    def __init__(self, workers: int | None = None, limit_threads: bool = True) -> None:
        self.slots = max(1, workers or os.cpu_count() or 1)
        self._limit = limit_threads
        self._futures: dict[Future[dict[str, Any]], Hashable] = {}
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        spawn = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(self.slots, mp_context=spawn, initializer=exit_with_parent, initargs=(os.getpid(),))

    def submit(self, key: Hashable, job: dict[str, Any]) -> None:
        with thread_limited_env(self._limit):  # the pool starts its workers as jobs arrive
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
        """Stop the workers. Runs still going (the sweep was interrupted) are stopped with them, as
        the Ray backend cancels its tasks: they are 'interrupted', and the next sweep resumes them."""
        running = [fut for fut in self._futures if not fut.done()]
        # the executor has no public way to stop a worker mid-job (and forgets them at shutdown)
        workers = list((getattr(self._pool, "_processes", None) or {}).values()) if running else []
        for process in workers:
            process.terminate()
        self._pool.shutdown(wait=not running, cancel_futures=True)
        for process in workers:
            process.join(timeout=10)


class RayBackend:
    """Jobs as Ray tasks (one CPU each) on the cluster at ``address`` (or a local Ray started here,
    or the one this process is already connected to). Run directories must be on storage every
    node sees. ``env_vars`` go to the workers through each task's runtime environment."""

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
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.slots = max(1, workers or int(ray.cluster_resources().get("CPU", 1)))
        task = ray.remote(num_cpus=1, max_retries=0)(execute_job)
        # per task, so they reach the workers of a Ray this process did not start as well
        self._task = task.options(runtime_env={"env_vars": env_vars}) if env_vars else task
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
        from bizbench.core.rng import SECRET_ENV, secret_from_env

        env_vars = {var: "1" for var in THREAD_VARS if var not in os.environ}
        secret = secret_from_env()
        return RayBackend(workers, address, {**env_vars, SECRET_ENV: secret} if secret else env_vars)
    raise SweepError(f"unknown backend {name!r} (backends: {', '.join(BACKENDS)})")
