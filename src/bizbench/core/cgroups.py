"""Memory and process limits of a sandbox and of a seat's server, each a control group of its
own (docs/security.md).

:func:`sandbox_group` makes a fresh cgroup below this process's own (so the host's limits on
bizbench still hold), with ``max_pids`` processes and ``memory_bytes`` of memory (tmpfs
included), and yields the ``cgroup.procs`` files the sandbox's first process writes itself
into, so everything the agent starts is inside from its first instruction. On exit the group
is removed. Where no cgroup can be made (not root, a read-only cgroup file system, cgroup v2
without delegated ``memory`` and ``pids`` controllers) it yields no file and a reason: the
sandbox then keeps only its per-uid ``RLIMIT_NPROC`` and says so in its result.

:func:`server_group` moves this process itself (``bizbench serve``: the world, the tool server)
into a group of its own for as long as it serves. Sandboxes it starts meanwhile are made beside
it, not inside, so neither's use counts against the other's limit.

Both layouts are handled: cgroup v1 (one hierarchy per controller, as here) and v2 (one
unified hierarchy).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LimitGroup", "sandbox_group", "server_group"]

ROOT = Path("/sys/fs/cgroup")
SANDBOX_PREFIX = "bizbench-sandbox-"
SERVER_PREFIX = "bizbench-server-"


@dataclass(frozen=True)
class LimitGroup:
    """The cgroup of one sandbox or server: the ``cgroup.procs`` files to join (none: no cgroup)
    and what was enforced, in words (``SandboxResult.limits``, the server's log)."""

    procs: tuple[Path, ...]
    limits: str

    def exceeded(self) -> tuple[str, ...]:
        """The limits its processes ran into so far: ``"memory"`` (the kernel's OOM killer took
        one: ``oom_kill`` of v1's ``memory.oom_control``, v2's ``memory.events``) and
        ``"processes"`` (a fork or a thread was refused: ``max`` of ``pids.events``)."""
        hit = set()
        for directory in (procs.parent for procs in self.procs):
            if _counter(directory / "memory.oom_control", "oom_kill") or _counter(
                directory / "memory.events", "oom_kill"
            ):
                hit.add("memory")
            if _counter(directory / "pids.events", "max"):
                hit.add("processes")
        return tuple(sorted(hit))


def _counter(path: Path, key: str) -> int:
    """The count ``key`` of a cgroup's ``key value`` lines (0 if the file or the key is absent)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return 0
    return next((int(value) for name, _, value in (line.partition(" ") for line in lines) if name == key), 0)


def _own_path(controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of ``controller`` ("" for v2's unified one);
    for a server in its own group (:func:`server_group`), the path of the group that holds it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            parent, _, leaf = path.rpartition("/")
            return (parent or "/") if leaf.startswith(SERVER_PREFIX) else path
    return None


def _v1_dirs() -> dict[str, Path] | None:
    """cgroup v1: the memory and pids directories of this process, or None."""
    dirs = {}
    for controller in ("memory", "pids"):
        own = _own_path(controller)
        if own is None or not (ROOT / controller / "cgroup.procs").is_file():
            return None
        dirs[controller] = ROOT / controller / own.lstrip("/")
    return dirs


def _v2_dir() -> Path | None:
    """cgroup v2: this process's cgroup, when it hands memory and pids to its children."""
    if not (ROOT / "cgroup.controllers").is_file():
        return None
    own = _own_path("")
    if own is None:
        return None
    base = ROOT / own.lstrip("/")
    try:
        delegated = (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    return base if {"memory", "pids"} <= set(delegated) else None


@contextlib.contextmanager
def sandbox_group(memory_bytes: int, max_pids: int) -> Iterator[LimitGroup]:
    """A cgroup of ``memory_bytes`` and ``max_pids`` for one sandbox (see the module docstring)."""
    with _group(SANDBOX_PREFIX, memory_bytes, max_pids) as group:
        if group.procs:
            yield group
        else:
            yield LimitGroup((), f"{max_pids} processes per uid (RLIMIT_NPROC); memory not limited: {group.limits}")


@contextlib.contextmanager
def server_group(memory_bytes: int, max_pids: int) -> Iterator[LimitGroup]:
    """This process, in a cgroup of ``memory_bytes`` and ``max_pids`` (threads count) until the
    block ends; then it goes back to its own group and the new one is removed. Memory it held
    before stays charged where it was. Without a cgroup, ``limits`` says why nothing is limited."""
    with _group(SERVER_PREFIX, memory_bytes, max_pids) as group:
        if not group.procs:
            yield LimitGroup((), f"not limited: {group.limits}")
            return
        homes = [procs.parent.parent / "cgroup.procs" for procs in group.procs]
        try:
            _join(group.procs)
        except OSError as e:
            _join(homes)
            yield LimitGroup((), f"not limited: {e}")
            return
        try:
            yield group
        finally:
            _join(homes)


def _join(procs_files: list[Path] | tuple[Path, ...]) -> None:
    """Move this process, every thread of it, into each ``cgroup.procs`` given."""
    for procs in procs_files:
        procs.write_text(str(os.getpid()))


@contextlib.contextmanager
def _group(prefix: str, memory_bytes: int, max_pids: int) -> Iterator[LimitGroup]:
    """A fresh group named ``prefix`` + a random id below this process's own, removed on exit;
    or, with no ``procs``, why none could be made."""
    name = f"{prefix}{os.getpid()}-{uuid.uuid4().hex[:12]}"
    made: list[Path] = []
    try:
        settings = _plan(name, memory_bytes, max_pids)
        if isinstance(settings, str):
            yield LimitGroup((), settings)
            return
        for parent in {directory.parent for directory in settings}:
            _remove_orphans(parent, prefix)
        try:
            for directory, values in settings.items():
                directory.mkdir()
                made.append(directory)
                for file, value in values.items():
                    if (directory / file).exists():  # memsw exists only with swap accounting
                        (directory / file).write_text(str(value))
        except OSError as e:
            yield LimitGroup((), str(e))
            return
        mib = memory_bytes // (1 << 20)
        yield LimitGroup(tuple(d / "cgroup.procs" for d in made), f"cgroup: {mib} MiB, {max_pids} processes")
    finally:
        for directory in reversed(made):
            _remove(directory)


def _plan(name: str, memory_bytes: int, max_pids: int) -> dict[Path, dict[str, int | str]] | str:
    """The directories to make and the limit files to write in each, or why none can be made."""
    if os.geteuid() != 0:
        return "cgroups need root"
    v1 = _v1_dirs()
    if v1 is not None:
        return {
            v1["memory"] / name: {
                "memory.limit_in_bytes": memory_bytes,
                "memory.memsw.limit_in_bytes": memory_bytes,  # no swapping past the limit either
            },
            v1["pids"] / name: {"pids.max": max_pids},
        }
    v2 = _v2_dir()
    if v2 is not None:
        return {v2 / name: {"memory.max": memory_bytes, "memory.swap.max": 0, "pids.max": max_pids}}
    return "no cgroup with memory and pids controllers is writable here"


def _remove_orphans(parent: Path, prefix: str) -> None:
    """Remove the empty groups ``prefix`` + pid left by a process that is gone (killed before it
    could remove its own: a server past its memory limit). A group in use cannot be removed."""
    for directory in parent.glob(f"{prefix}*"):
        pid = directory.name[len(prefix) :].partition("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                directory.rmdir()


def _remove(directory: Path) -> None:
    """Remove a group once its last process is gone (a sandbox's die with its PID namespace, a
    moment after its init)."""
    for _ in range(50):
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)
