"""Memory and process limits of one sandbox, as a control group of its own (docs/security.md).

:func:`sandbox_group` makes a fresh cgroup below this process's own (so the host's limits on
bizbench still hold), with ``max_pids`` processes and ``memory_bytes`` of memory (tmpfs
included), and yields the ``cgroup.procs`` files the sandbox's first process writes itself
into, so everything the agent starts is inside from its first instruction. On exit the group
is removed. Where no cgroup can be made (not root, a read-only cgroup file system, cgroup v2
without delegated ``memory`` and ``pids`` controllers) it yields no file and a reason: the
sandbox then keeps only its per-uid ``RLIMIT_NPROC`` and says so in its result.

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

__all__ = ["SandboxGroup", "sandbox_group"]

ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class SandboxGroup:
    """The cgroup of one sandbox: the ``cgroup.procs`` files to join (none: no cgroup) and what
    was enforced, in words (``SandboxResult.limits``)."""

    procs: tuple[Path, ...]
    limits: str


def _own_path(controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of ``controller`` ("" for v2's unified one)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path
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
def sandbox_group(memory_bytes: int, max_pids: int) -> Iterator[SandboxGroup]:
    """A cgroup of ``memory_bytes`` and ``max_pids`` for one sandbox (see the module docstring)."""
    name = f"bizbench-sandbox-{uuid.uuid4().hex[:12]}"
    made: list[Path] = []
    try:
        settings = _plan(name, memory_bytes, max_pids)
        if isinstance(settings, str):
            yield SandboxGroup((), f"{max_pids} processes per uid (RLIMIT_NPROC); memory not limited: {settings}")
            return
        try:
            for directory, values in settings.items():
                directory.mkdir()
                made.append(directory)
                for file, value in values.items():
                    if (directory / file).exists():  # memsw exists only with swap accounting
                        (directory / file).write_text(str(value))
        except OSError as e:
            yield SandboxGroup((), f"{max_pids} processes per uid (RLIMIT_NPROC); memory not limited: {e}")
            return
        mib = memory_bytes // (1 << 20)
        yield SandboxGroup(tuple(d / "cgroup.procs" for d in made), f"cgroup: {mib} MiB, {max_pids} processes")
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


def _remove(directory: Path) -> None:
    """Remove a sandbox's cgroup once its last process is gone (they die with the sandbox's PID
    namespace, a moment after its init)."""
    for _ in range(50):
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)
