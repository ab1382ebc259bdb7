"""A sandbox's own cgroup (bizbench/core/cgroups.py): planned for both layouts, refused clearly, removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bizbench.core import cgroups


def _fake_proc_cgroup(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(text)
    real = Path.read_text

    def read_text(self: Path, *args: object, **kw: object) -> str:
        return proc.read_text() if str(self) == "/proc/self/cgroup" else real(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", read_text)


def test_without_root_no_group_is_made_and_the_limits_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 1000)
    with cgroups.sandbox_group(1 << 30, 64) as group:
        assert group.procs == ()
        assert group.limits == "64 processes per uid (RLIMIT_NPROC); memory not limited: cgroups need root"


def test_v1_groups_sit_below_this_process_own_and_are_removed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    for controller, own in (("memory", "jail/box"), ("pids", "")):
        (root / controller / own).mkdir(parents=True, exist_ok=True)
        (root / controller / "cgroup.procs").write_text("")
    _fake_proc_cgroup(monkeypatch, tmp_path, "8:pids:/\n4:memory:/jail/box\n0::/\n")
    monkeypatch.setattr(cgroups, "ROOT", root)
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 0)
    real_mkdir = Path.mkdir

    def mkdir_with_files(self: Path, *args: object, **kw: object) -> None:  # a cgroup fs makes its files
        real_mkdir(self, *args, **kw)  # type: ignore[arg-type]
        for name in ("memory.limit_in_bytes", "pids.max", "cgroup.procs"):
            (self / name).write_text("")

    monkeypatch.setattr(Path, "mkdir", mkdir_with_files)
    monkeypatch.setattr(cgroups, "_remove", lambda d: [f.unlink() for f in d.iterdir()] and d.rmdir())
    with cgroups.sandbox_group(256 << 20, 32) as group:
        memory, pids = (p.parent for p in group.procs)
        assert memory.parent == root / "memory" / "jail" / "box" and pids.parent == root / "pids"
        assert (memory / "memory.limit_in_bytes").read_text() == str(256 << 20)
        assert (pids / "pids.max").read_text() == "32" and group.limits == "cgroup: 256 MiB, 32 processes"
    assert not memory.exists() and not pids.exists()


def test_v2_needs_memory_and_pids_handed_to_children(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    (root / "agents").mkdir(parents=True)
    (root / "cgroup.controllers").write_text("memory pids")
    (root / "agents" / "cgroup.subtree_control").write_text("pids\n")
    _fake_proc_cgroup(monkeypatch, tmp_path, "0::/agents\n")
    monkeypatch.setattr(cgroups, "ROOT", root)
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 0)
    assert "no cgroup" in str(cgroups._plan("box", 1, 1))
    (root / "agents" / "cgroup.subtree_control").write_text("memory pids\n")
    assert cgroups._plan("box", 1 << 20, 8) == {
        root / "agents" / "box": {"memory.max": 1 << 20, "memory.swap.max": 0, "pids.max": 8}
    }
