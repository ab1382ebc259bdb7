"""A sandbox's and a server's own cgroups (bizbench/core/cgroups.py): planned for both layouts, refused
clearly, enforced, removed."""

from __future__ import annotations

import signal
import subprocess
import sys
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


def test_without_root_a_server_is_not_limited_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 1000)
    with cgroups.server_group(1 << 30, 64) as group:
        assert group == cgroups.LimitGroup((), "not limited: cgroups need root")


def test_a_sandbox_of_a_confined_server_is_made_beside_the_server_not_inside(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _fake_proc_cgroup(monkeypatch, tmp_path, "8:pids:/jail/bizbench-server-0a1b\n4:memory:/bizbench-server-9f\n0::/\n")
    assert (cgroups._own_path("pids"), cgroups._own_path("memory"), cgroups._own_path("")) == ("/jail", "/", "/")


# ---------------------------------------------------------------------------- on this host's own cgroups
def _confined(code: str, memory_bytes: int, max_pids: int) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh Python inside ``server_group``; it prints the group's limits first."""
    program = (
        "import sys\nfrom bizbench.core.cgroups import server_group\n"
        f"with server_group({memory_bytes}, {max_pids}) as group:\n"
        "    print(group.limits, flush=True)\n" + "".join(f"    {line}\n" for line in code.splitlines())
    )
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)


def _skip_without_cgroups(done: subprocess.CompletedProcess[str]) -> None:
    if done.stdout.startswith("not limited"):
        pytest.skip(f"no cgroup here: {done.stdout.strip()}")


def test_a_server_that_allocates_past_its_memory_limit_is_killed_by_the_kernel_and_its_group_swept_later() -> None:
    done = _confined(
        "import os\nprint(os.getpid(), flush=True)\nx = bytearray(400 << 20)\nprint('survived')", 200 << 20, 64
    )
    _skip_without_cgroups(done)
    limits, pid = done.stdout.split("\n")[:2]
    assert limits == "cgroup: 200 MiB, 64 processes" and done.returncode == -signal.SIGKILL
    homes = list((cgroups._v1_dirs() or {}).values()) or [cgroups._v2_dir()]  # where this process makes groups
    orphans = [g for home in homes if home for g in home.glob(f"{cgroups.SERVER_PREFIX}{pid}-*")]
    assert orphans  # the killed server could not remove its group: the next one does
    within = _confined("x = bytearray(100 << 20)\nprint('survived', len(x))", 200 << 20, 64)
    assert within.returncode == 0 and within.stdout.split()[-2:] == ["survived", str(100 << 20)]
    assert not [g for g in orphans if g.exists()]


def test_a_server_cannot_start_threads_past_its_process_limit() -> None:
    code = (
        "import threading\nstop = threading.Event()\nstarted = 0\n"
        "try:\n    for _ in range(100):\n        threading.Thread(target=stop.wait).start()\n        started += 1\n"
        "except RuntimeError:\n    pass\nstop.set()\nprint('threads', started)"
    )
    done = _confined(code, 1 << 30, 20)
    _skip_without_cgroups(done)
    started = int(done.stdout.split()[-1])
    assert done.returncode == 0 and 0 < started < 20


def test_a_server_is_in_its_group_while_serving_and_back_home_after_it_with_the_group_removed() -> None:
    program = """
from pathlib import Path
from bizbench.core import cgroups
before = Path("/proc/self/cgroup").read_text()
with cgroups.server_group(1 << 30, 64) as group:
    print(group.limits)
    inside = Path("/proc/self/cgroup").read_text()
    with cgroups.sandbox_group(1 << 30, 64) as box:
        print(*(p.parent for p in group.procs))
        print(*(p.parent for p in box.procs))
print(inside.count(cgroups.SERVER_PREFIX), Path("/proc/self/cgroup").read_text() == before)
print(*(p.parent.exists() for p in group.procs))
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    _skip_without_cgroups(done)
    _, servers, boxes, (count, home), exist = (line.split() for line in done.stdout.strip().split("\n"))
    assert int(count) >= 2 and home == "True"  # v1 names it in the memory and pids lines, v2 in the unified one
    assert [Path(b).parent for b in boxes] == [Path(s).parent for s in servers]  # siblings, not nested
    assert all(Path(b).name.startswith(cgroups.SANDBOX_PREFIX) for b in boxes) and len(boxes) == len(servers)
    assert exist == ["False"] * len(servers)
