"""The namespace sandbox: what a command inside can and cannot see or do (no tool server here)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bizbench.core.sandbox import (
    SANDBOX_UID,
    WORKSPACE_MOUNT,
    SandboxError,
    _bwrap_argv,
    _plan,
    _prepare_workspace,
    _workspace_lock,
    available_backends,
    cap_output,
    python_in_sandbox,
    run_in_sandbox,
    sandbox_python,
    sandbox_unavailable_reason,
    userns_filter,
)

REASON = sandbox_unavailable_reason()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
BACKENDS = available_backends() if REASON is None else ("none",)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "hello.txt").write_text("hi\n")
    return path


def bash(ws: Path, cmd: str, backend: str, timeout: float = 30, **kw: object) -> tuple[int, str, str]:
    r = run_in_sandbox(ws, ["bash", "-c", cmd], timeout, backend=backend, **kw)  # type: ignore[arg-type]
    return r.returncode, r.stdout, r.stderr


# ---------------------------------------------------------------------------- pure helpers
def test_cap_output_keeps_both_ends() -> None:
    text = "A" * 20_000 + "B" * 20_000
    out = cap_output(text, 30_000)
    assert out.startswith("A" * 15_000) and out.endswith("B" * 15_000)
    assert "10,000 characters omitted" in out and len(out) < 30_100
    assert cap_output("short", 30_000) == "short"


def test_plan_mounts_only_what_is_needed(tmp_path: Path) -> None:
    ops = _plan(tmp_path, ())
    targets = {op[2] if op[0] in ("ro", "rw", "symlink") else op[1] for op in ops}
    assert WORKSPACE_MOUNT in targets and "/proc" in targets and "/tmp" in targets
    sources = [op[1] for op in ops if op[0] in ("ro", "rw")]
    assert not any(s == "/work" or s.startswith("/work/") for s in sources)
    assert not any(s in ("/root", "/etc", "/home", "/") for s in sources)
    assert str(Path(sys.base_prefix).resolve()) in sources or sys.base_prefix.startswith("/usr")
    assert not any(s.startswith(sys.prefix) for s in sources if sys.prefix != sys.base_prefix)  # not the venv


def test_bwrap_plan_matches_unshare_plan(tmp_path: Path) -> None:
    argv = _bwrap_argv(_plan(tmp_path, ()), ["python3", "-c", "1"], {"HOME": "/workspace"}, "/workspace", 9)
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--clearenv", "--proc"):
        assert flag in argv
    assert argv[argv.index("--seccomp") + 1] == "9"
    assert argv[argv.index("--bind") + 1 : argv.index("--bind") + 3] == [str(tmp_path), WORKSPACE_MOUNT]
    assert f"--reuid={SANDBOX_UID}" in argv and argv[-3:] == ["python3", "-c", "1"]


@needs_sandbox
def test_base_python_cannot_import_bizbench() -> None:
    assert Path(sandbox_python()).resolve().is_relative_to(Path(sys.base_prefix).resolve())


# ---------------------------------------------------------------------------- isolation
@needs_sandbox
def test_runs_as_unprivileged_user_in_the_workspace(ws: Path, backend: str) -> None:
    code, out, err = bash(ws, "id -u; pwd; cat hello.txt; echo made > new.txt", backend)
    assert code == 0, err
    assert out.split() == [str(SANDBOX_UID), WORKSPACE_MOUNT, "hi"]
    assert (ws / "new.txt").read_text() == "made\n"


@needs_sandbox
def test_environment_is_scrubbed(ws: Path, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIZBENCH_HOST_MARKER", "host-secret-value")
    code, out, _ = bash(ws, "env", backend, env={"EXTRA": "1"})
    assert code == 0 and "host-secret-value" not in out and "BIZBENCH_HOST_MARKER" not in out
    names = {line.split("=", 1)[0] for line in out.splitlines()}
    assert {"PATH", "HOME", "LANG", "EXTRA"} <= names
    assert "VIRTUAL_ENV" not in names and "PYTHONPATH" not in names
    assert "HOME=/workspace" in out


@needs_sandbox
def test_host_paths_are_invisible(ws: Path, backend: str) -> None:
    cmd = "ls /work; ls -A /root; ls -A /root/.pyenv/..; ls /home; ls /etc"
    code, out, err = bash(ws, cmd, backend)
    assert "No such file" in err  # /work and /home
    listed = set(out.split())
    assert "main" not in listed and "shared" not in listed
    assert listed & {"passwd", "ld.so.cache"}
    assert "shadow" not in listed and "ssh" not in listed


@needs_sandbox
def test_only_sandbox_processes_are_visible(ws: Path, backend: str) -> None:
    code, out, _ = bash(ws, "ps -e -o pid=,comm=", backend)
    assert code == 0
    comms = [line.split()[1] for line in out.splitlines()]
    assert "pytest" not in " ".join(comms) and len(comms) <= 4
    code, out, _ = bash(ws, "cat /proc/1/environ /proc/1/cmdline 2>&1; true", backend)
    assert "PATH=" not in out


@needs_sandbox
def test_no_network(ws: Path, backend: str) -> None:
    code = (
        "import socket\n"
        "for addr in [('127.0.0.1', 80), ('1.1.1.1', 53)]:\n"
        "    s = socket.socket(); s.settimeout(3)\n"
        "    try:\n"
        "        s.connect(addr); print('CONNECTED', addr)\n"
        "    except OSError as e:\n"
        "        print('refused', addr, e.errno)\n"
    )
    r = python_in_sandbox(ws, code, 30, backend=backend)
    assert "CONNECTED" not in r.stdout and r.stdout.count("refused") == 2, r.stderr


@needs_sandbox
def test_mounts_cannot_be_undone(ws: Path, backend: str) -> None:
    cmd = "umount /workspace; mount -o remount,rw /usr; touch /usr/x /etc/x /x; echo done"
    code, out, err = bash(ws, cmd, backend)
    assert out.strip() == "done"
    assert err.count("ermission denied") + err.count("Read-only") + err.count("must be superuser") >= 3


@needs_sandbox
def test_readonly_subpath(ws: Path, backend: str) -> None:
    (ws / ".rt").mkdir()
    (ws / ".rt" / "keep.txt").write_text("k")
    code, out, err = bash(ws, "echo x > .rt/keep.txt; mv .rt .moved; cat .rt/keep.txt", backend, readonly=(".rt",))
    assert out == "k" and (ws / ".rt" / "keep.txt").read_text() == "k"
    assert (ws / ".rt").stat().st_uid == os.getuid()  # left to the host user


@needs_sandbox
def test_readonly_symlink_is_refused(ws: Path, backend: str) -> None:
    (ws / "link").symlink_to("/etc")
    with pytest.raises(SandboxError, match="read-only path"):
        run_in_sandbox(ws, ["true"], 10, readonly=("link",), backend=backend)


@needs_sandbox
def test_timeout_kills_everything(ws: Path, backend: str) -> None:
    r = run_in_sandbox(ws, ["bash", "-c", "sleep 987651 & sleep 987652"], 1.0, backend=backend)
    assert r.timed_out and r.returncode == -9
    assert not _host_processes_with("98765")


@needs_sandbox
def test_background_processes_die_with_the_command(ws: Path, backend: str) -> None:
    r = run_in_sandbox(ws, ["bash", "-c", "(sleep 987653 &) ; echo started"], 30, backend=backend)
    assert r.stdout.strip() == "started" and not r.timed_out
    assert not _host_processes_with("987653")


@needs_sandbox
def test_output_is_capped(ws: Path, backend: str) -> None:
    r = python_in_sandbox(ws, "print('H' * 50_000 + 'T' * 50_000)", 30, output_limit=1_000, backend=backend)
    assert r.stdout.startswith("H" * 500) and r.stdout.rstrip().endswith("T" * 400)
    assert len(r.stdout) < 1_200 and "omitted" in r.stdout


@needs_sandbox
def test_python_script_and_exit_code(ws: Path, backend: str) -> None:
    (ws / "s.py").write_text("import sys\nprint(sys.prefix)\nsys.exit(3)\n")
    r = python_in_sandbox(ws, Path("s.py"), 30, backend=backend)
    assert r.returncode == 3 and r.stdout.strip() == sys.base_prefix
    r = python_in_sandbox(ws, "import bizbench", 30, backend=backend)
    assert r.returncode == 1 and "No module named 'bizbench'" in r.stderr


@needs_sandbox
def test_missing_command(ws: Path, backend: str) -> None:
    r = run_in_sandbox(ws, ["no-such-command-x"], 10, backend=backend)
    assert r.returncode == 127 and "cannot run" in r.stderr


def _host_processes_with(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "bash -c" not in cmdline:
                found.append(cmdline)
    return found


@needs_sandbox
def test_code_longer_than_one_argument(ws: Path, backend: str) -> None:
    code = "x = 0\n" + "x += 1\n" * 40_000 + "print(x)\n"
    r = python_in_sandbox(ws, code, 60, backend=backend)
    assert r.returncode == 0 and r.stdout.strip() == "40000", r.stderr
    assert not list(ws.glob(".sandbox-code-*"))


# ---------------------------------------------------------------------------- workspace preparation (host side)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to the sandbox uid needs root")


def _racing_walkers(ws: Path, victim: Path, monkeypatch: pytest.MonkeyPatch, at: str) -> None:
    """A sandboxed process swaps ``ws/sub`` for a symlink to ``victim`` in the middle of the walk.

    ``at="sub"``: after ``sub`` was listed and entered (the reviewer's /tmp/rev/race.py);
    ``at="top"``: after the top was listed, before ``sub`` is chowned and entered. Both
    ``os.walk`` and ``os.fwalk`` are wrapped, whichever the preparation uses.
    """

    def swap(root: str) -> None:
        if (at == "sub" and root.endswith("/sub")) or (at == "top" and Path(root) == ws.resolve()):
            os.rename(ws / "sub", ws / "sub.old")
            os.symlink(victim, ws / "sub")

    real_walk, real_fwalk = os.walk, os.fwalk

    def racing_walk(top: Any, *a: Any, **k: Any) -> Iterator[Any]:
        for entry in real_walk(top, *a, **k):
            swap(str(entry[0]))
            yield entry

    def racing_fwalk(top: Any = ".", *a: Any, **k: Any) -> Iterator[Any]:
        for entry in real_fwalk(top, *a, **k):
            swap(str(entry[0]))
            yield entry

    monkeypatch.setattr(os, "walk", racing_walk)
    monkeypatch.setattr(os, "fwalk", racing_fwalk)


@needs_root
@pytest.mark.parametrize("at", ["sub", "top"])
def test_prepare_workspace_never_chowns_through_a_swapped_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: str
) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "secret").write_text("x")
    (ws / ".ro").mkdir()
    victim = tmp_path / "host_dir"
    victim.mkdir()
    (victim / "secret").write_text("host file owned by root")
    _racing_walkers(ws, victim, monkeypatch, at)
    _prepare_workspace(ws, (".ro",))
    monkeypatch.undo()
    for p in (victim, victim / "secret"):
        assert os.stat(p).st_uid == 0, p
    assert os.lstat(ws).st_uid == SANDBOX_UID
    if at == "sub":  # the directory already entered is still walked (under its new name)
        assert os.stat(ws / "sub.old" / "secret").st_uid == SANDBOX_UID
    assert os.lstat(ws / ".ro").st_uid == 0  # read-only paths stay the host's


@needs_root
def test_prepare_workspace_gives_everything_else_to_the_sandbox(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "a" / "b" / "f").write_text("x")
    (ws / ".ro" / "site").mkdir(parents=True)
    (ws / "link").symlink_to("/etc/passwd")
    _prepare_workspace(ws, (".ro",))
    for rel in ("", "a", "a/b", "a/b/f", "link"):
        assert os.lstat(ws / rel).st_uid == SANDBOX_UID, rel
    assert os.stat("/etc/passwd").st_uid == 0
    assert os.lstat(ws / ".ro").st_uid == 0 and os.lstat(ws / ".ro" / "site").st_uid == 0


def test_workspace_lock_serialises_holders(tmp_path: Path) -> None:
    got = threading.Event()

    def second() -> None:
        with _workspace_lock(tmp_path / "ws"):
            got.set()

    with _workspace_lock(tmp_path / "ws"):
        th = threading.Thread(target=second)
        th.start()
        assert not got.wait(0.3)  # waits while the first holds the lock
        with _workspace_lock(tmp_path / "other"):  # another workspace does not wait
            pass
    assert got.wait(5)
    th.join()


@needs_sandbox
def test_runs_on_one_workspace_do_not_overlap(ws: Path, backend: str) -> None:
    cmd = "echo start >> log.txt; sleep 0.5; echo end >> log.txt"
    threads = [threading.Thread(target=bash, args=(ws, cmd, backend)) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert (ws / "log.txt").read_text().split() == ["start", "end", "start", "end"]


# ---------------------------------------------------------------------------- issue 16: user namespaces, limits
def test_the_seccomp_filter_is_refused_for_an_architecture_it_has_no_numbers_for() -> None:
    assert len(userns_filter("x86_64")) == 14 * 8 and len(userns_filter("aarch64")) == 14 * 8
    with pytest.raises(ValueError, match="no seccomp filter for architecture 'sparc'"):
        userns_filter("sparc")


USERNS_ATTEMPTS = [
    "unshare -U true",
    "unshare -Urm sh -c 'mount -t tmpfs x /tmp'",
    "unshare -Urn true",
    # unshare(2) and clone(2) with CLONE_NEWUSER straight from libc (the base Python has no os.unshare)
    "python3 -c 'import ctypes,sys; sys.exit(ctypes.CDLL(None).unshare(0x10000000) == -1)'",
    'python3 -c \'import ctypes,sys; sys.exit(ctypes.CDLL(None).syscall(56 if __import__("platform").machine()'
    ' == "x86_64" else 220, 0x10000000 | 17, 0, 0, 0, 0) == -1)\'',
]


@needs_sandbox
@pytest.mark.parametrize("attempt", USERNS_ATTEMPTS)
def test_no_process_in_the_sandbox_can_enter_a_new_user_namespace(ws: Path, backend: str, attempt: str) -> None:
    code, out, err = bash(ws, f"{attempt}; echo rc=$?", backend)
    assert code == 0 and "rc=0" not in out, (out, err)


@needs_sandbox
def test_ordinary_work_still_runs_under_the_filter(ws: Path, backend: str) -> None:
    script = (
        "import subprocess, threading, multiprocessing\n"
        "t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n"
        "print(subprocess.run(['sh', '-c', 'echo pipe | tr a-z A-Z'], capture_output=True, text=True).stdout.strip())\n"
        "with multiprocessing.Pool(2) as pool: print(sum(pool.map(abs, [-1, -2])))\n"
    )
    (ws / "work.py").write_text(script)
    code, out, err = bash(ws, "python3 work.py && (sleep 0.1 & wait) && echo done", backend)
    assert code == 0 and out.split() == ["thread", "PIPE", "3", "done"], err


@needs_sandbox
def test_the_sandbox_sees_no_cgroup_path_of_the_host(ws: Path, backend: str) -> None:
    code, out, _ = bash(ws, "cat /proc/self/cgroup", backend)
    assert code == 0 and all(line.endswith(":/") for line in out.split())


@needs_sandbox
def test_a_memory_hog_is_killed_at_the_sandbox_limit_and_the_host_goes_on(ws: Path, backend: str) -> None:
    hog = "python3 -c 'x = bytearray(400 << 20); print(len(x))'"
    r = run_in_sandbox(ws, ["bash", "-c", hog], 60, backend=backend, memory_bytes=200 << 20)
    if not r.limits.startswith("cgroup"):
        pytest.skip(f"no cgroup here: {r.limits}")
    assert r.returncode != 0 and "419430400" not in r.stdout and r.exceeded == ("memory",)
    assert r.stderr.endswith("sandbox: the memory limit was reached (cgroup: 200 MiB, 1024 processes)\n")
    fine = run_in_sandbox(ws, ["bash", "-c", hog], 60, backend=backend)
    assert fine.stdout.strip() == "419430400" and fine.exceeded == () and "limit was reached" not in fine.stderr


@needs_sandbox
def test_a_fork_bomb_stops_at_the_sandbox_process_limit(ws: Path, backend: str) -> None:
    bomb = "for i in $(seq 300); do sleep 30 & done 2>/dev/null; jobs -p | wc -l"
    r = run_in_sandbox(ws, ["bash", "-c", bomb], 60, backend=backend, max_pids=40)
    if not r.limits.startswith("cgroup"):
        pytest.skip(f"no cgroup here: {r.limits}")
    assert r.limits.endswith("40 processes") and int(r.stdout.split()[-1] if r.stdout.split() else 0) < 40
    assert r.exceeded == ("processes",) and r.stderr.endswith(
        "the processes limit was reached (cgroup: 8192 MiB, 40 processes)\n"
    )
    assert bash(ws, "echo alive", backend)[1].strip() == "alive"  # the next sandbox starts as usual


@needs_sandbox
def test_a_stop_from_another_thread_kills_the_whole_sandbox(ws: Path, backend: str) -> None:
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    r = run_in_sandbox(ws, ["bash", "-c", "sleep 60 & sleep 60"], 120, backend=backend, stop=stop)
    assert r.returncode == -9 and not r.timed_out and r.duration_s < 30
