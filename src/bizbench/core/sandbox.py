"""Run an agent's commands in a Linux-namespace sandbox (docs/principles.md principle 3, reference-notes §8).

:func:`run_in_sandbox` runs ``argv`` with new mount, PID, IPC, UTS and network namespaces
(no network at all: the tool server is reached through its Unix socket inside the
workspace) on a fresh tmpfs root that holds only:

* read-only: ``/usr`` (and the ``/bin``, ``/lib``... links or directories), a few files of
  ``/etc`` (dynamic-linker cache, ``alternatives``; a generated ``passwd``/``group``), and
  the base Python installation (``sys.base_prefix``, not the project venv);
* read-write: the workspace at ``/workspace`` (the working directory; listed sub-paths
  such as ``.novamind`` read-only), a private ``/tmp`` and ``/dev/shm``;
* a fresh ``/proc`` of the new PID namespace (``hidepid=2``: only the agent's processes)
  and a minimal ``/dev``.

Nothing else of the host is visible: not ``/work``, ``/root`` (apart from the Python
installation when it lives there), the run directory or the server's files. The
environment is replaced (``PATH``, ``HOME=/workspace``, ``LANG``, ``TMPDIR`` plus ``env``).
The command runs as an unprivileged uid (:data:`SANDBOX_UID`, "nobody") with no
capabilities and ``no_new_privs``, so it cannot undo mounts; the workspace is chowned to
that uid before each run (``.novamind``-like read-only paths stay root-owned). That walk
goes through directory fds (``os.fwalk``, ``fchownat`` with ``AT_SYMLINK_NOFOLLOW``) and never
descends into a symlink, so a directory swapped for a link mid-walk cannot hand a host file
to the sandbox uid; and runs on one workspace are serialised by an ``flock`` on a host-side
lock file (:func:`_workspace_lock`; a second run waits for the first, which its own timeout
bounds), so no sandboxed process of the workspace is alive while it is chowned. A timeout
kills the whole sandbox (its PID namespace dies with its init); each output stream is cut
to ``output_limit`` characters (first half + last half).

Backends: ``bwrap`` when installed, else util-linux ``unshare`` plus this module's own
init (the module source is piped to the sandbox Python, which mounts, pivots the root,
drops privileges and execs ``argv``). Both build the same mount plan. This needs root
(or bubblewrap) on the host; :func:`sandbox_unavailable_reason` says why not otherwise.

No process of the sandbox can enter a new user namespace: a seccomp filter
(:func:`userns_filter`, installed last before the command runs, for both backends) refuses
``clone``/``unshare`` with ``CLONE_NEWUSER`` and every other ABI's system calls, and answers
``clone3`` ENOSYS so libc falls back to ``clone``. Where a cgroup can be made
(:mod:`bizbench.core.cgroups`, root) the sandbox's processes together hold at most
``memory_bytes`` (its tmpfs included) and ``max_pids`` processes, and see their own cgroup as
the root; elsewhere only ``RLIMIT_NPROC`` caps the processes (``SandboxResult.limits`` says
which). Not limited here: CPU time and the disk use of the workspace.

This module imports only the standard library (its source doubles as the init program).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SANDBOX_UID",
    "SEAT_MARKER",
    "WORKSPACE_MOUNT",
    "SandboxError",
    "SandboxResult",
    "available_backends",
    "cap_output",
    "python_in_sandbox",
    "run_in_sandbox",
    "sandbox_python",
    "sandbox_unavailable_reason",
]

SANDBOX_UID = 65534  # "nobody"
SANDBOX_GID = 65534
WORKSPACE_MOUNT = "/workspace"
#: The file a seat writes into its runtime directory of a workspace (core/seat.py): what it wrote and
#: the directories it made. Here, not in the seat's module, so the light host-session client
#: (cli_session) can tell a served workspace without importing the seat and its registry.
SEAT_MARKER = ".bizbench-seat.json"
NPROC_LIMIT = 1024
#: the memory of one sandbox, its tmpfs included (a cgroup's, where one can be made: core/cgroups.py)
MEMORY_LIMIT = 8 << 30
TMP_SIZE = "1g"
_MAX_ARG = 100_000  # bytes; the kernel refuses single argv strings above 128 KiB
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_ENTRIES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "nsswitch.conf",
    "mime.types",
    "inputrc",
    "terminfo",
)
DEVICES = ("null", "zero", "full", "random", "urandom")
_PASSWD = f"root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:{SANDBOX_UID}:{SANDBOX_GID}:agent:/workspace:/bin/bash\n"
_GROUP = f"root:x:0:\nagent:x:{SANDBOX_GID}:\n"
_HOSTS = "127.0.0.1 localhost sandbox\n::1 localhost\n"


class SandboxError(RuntimeError):
    """The sandbox could not be set up (not the command's own failure)."""


@dataclass
class SandboxResult:
    """Outcome of one sandboxed command; ``returncode`` is -9 after a timeout."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float = 0.0
    limits: str = ""  # the memory and process limits enforced (core/cgroups.py)
    exceeded: tuple[str, ...] = ()  # the limits the command ran into: "memory", "processes"

    @property
    def output(self) -> str:
        """stdout and stderr together, as a terminal would show them (stderr after stdout)."""
        if self.stdout and self.stderr:
            return self.stdout.rstrip("\n") + "\n" + self.stderr
        return self.stdout or self.stderr


# ---------------------------------------------------------------------------- output
def cap_output(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters: the first and last halves with a marker."""
    if limit <= 0 or len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n\n... [{len(text) - 2 * half:,} characters omitted] ...\n\n{text[-half:]}"


class _Capture(threading.Thread):
    """Read a pipe to EOF keeping only its head and tail (bounded memory)."""

    def __init__(self, pipe: Any, limit: int) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.keep = max(limit, 1) * 2  # bytes per end (UTF-8 needs up to 4 per character; half a limit per end)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.pipe.read1(65536):
                self.total += len(chunk)
                room = self.keep - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk:
                    self.tail += chunk
                    if len(self.tail) > self.keep:
                        del self.tail[: len(self.tail) - self.keep]

    def text(self, limit: int) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if self.total == len(self.head) + len(self.tail):
            return cap_output(head + tail, limit)
        half = limit // 2
        head, tail = head[:half], tail[-half:]
        omitted = self.total - len(head.encode()) - len(tail.encode())
        return f"{head}\n\n... [{omitted:,} bytes omitted] ...\n\n{tail}"


# ---------------------------------------------------------------------------- host checks
def sandbox_python() -> str:
    """The base Python (not the venv) that runs inside the sandbox; SandboxError if unusable."""
    return _checked_python()


@functools.lru_cache(maxsize=1)
def _checked_python() -> str:
    prefix = Path(sys.base_prefix).resolve()
    exe = None
    for name in (f"python{sys.version_info[0]}.{sys.version_info[1]}", "python3"):
        if (prefix / "bin" / name).exists():
            exe = prefix / "bin" / name
            break
    if exe is None:
        raise SandboxError(f"no python3 under the base installation {prefix}")
    probe = "import importlib.util, sys; sys.exit(3 if importlib.util.find_spec('bizbench') else 0)"
    system = sorted(
        str(p) for d in ("/usr/bin", "/usr/local/bin") for p in Path(d).glob("python3*") if _is_interpreter(p)
    )
    for python in [str(exe), *system]:  # every interpreter the sandbox can see
        proc = subprocess.run([python, "-s", "-c", probe], env={"PATH": "/usr/bin:/bin"}, capture_output=True, cwd="/")
        if proc.returncode == 3:
            raise SandboxError(
                f"bizbench is importable from {python}, which the sandbox exposes. "
                "Install bizbench only into a virtualenv, not into a system or base interpreter."
            )
        if proc.returncode != 0 and python == str(exe):
            raise SandboxError(f"the base Python {exe} does not run: {proc.stderr.decode(errors='replace')[:500]}")
    return str(exe)


def _is_interpreter(path: Path) -> bool:
    """``python3`` or ``python3.N`` (not ``python3-config`` and the like)."""
    rest = path.name.removeprefix("python3")
    return rest == "" or (rest.startswith(".") and rest[1:].isdigit())


@functools.lru_cache(maxsize=1)
def available_backends() -> tuple[str, ...]:
    """Working backends on this host, preferred first (``bwrap``, ``unshare``)."""
    found = []
    if shutil.which("bwrap") and os.geteuid() == 0:
        ok = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "true"], capture_output=True)
        if ok.returncode == 0:
            found.append("bwrap")
    if shutil.which("unshare") and os.geteuid() == 0:
        ok = subprocess.run(
            ["unshare", "--mount", "--pid", "--net", "--ipc", "--uts", "--fork", "--kill-child", "true"],
            capture_output=True,
        )
        if ok.returncode == 0:
            found.append("unshare")
    return tuple(found)


def sandbox_unavailable_reason() -> str | None:
    """Why no sandbox can run here, or None when one can."""
    if not sys.platform.startswith("linux"):
        return "the sandbox needs Linux namespaces"
    if os.geteuid() != 0:
        return "the sandbox needs root on the host (to bind-mount the workspace and drop to an unprivileged uid)"
    if not available_backends():
        return "neither bwrap nor unshare can create mount/pid/net namespaces here"
    try:
        sandbox_python()
    except SandboxError as e:
        return str(e)
    return None


# ---------------------------------------------------------------------------- plan
@functools.lru_cache(maxsize=1)
def _generated_etc() -> str:
    """A host directory with the sandbox's generated /etc files (created once per process)."""
    path = Path(tempfile.mkdtemp(prefix="bizbench-sandbox-etc-"))
    path.chmod(0o755)
    for name, text in (("passwd", _PASSWD), ("group", _GROUP), ("hosts", _HOSTS), ("hostname", "sandbox\n")):
        (path / name).write_text(text)
        (path / name).chmod(0o644)
    return str(path)


def _plan(workspace: Path, readonly: Sequence[str]) -> list[list[str]]:
    """Mount operations on the new root: [op, ...args] with op in dir/symlink/ro/rw/tmpfs/proc/dev."""
    ops: list[list[str]] = []
    for d in SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            ops.append(["symlink", os.readlink(p), d])
        elif p.is_dir():
            ops.append(["ro", d, d])
    ops.append(["dir", "/etc"])
    for name in ETC_ENTRIES:
        if os.path.exists(f"/etc/{name}"):
            ops.append(["ro", str(Path(f"/etc/{name}").resolve()), f"/etc/{name}"])
    etc = _generated_etc()
    for name in ("passwd", "group", "hosts", "hostname"):
        ops.append(["ro", f"{etc}/{name}", f"/etc/{name}"])
    prefix = str(Path(sys.base_prefix).resolve())
    if not any(prefix == d or prefix.startswith(d + "/") for d in SYSTEM_DIRS):
        ops.append(["ro", prefix, prefix])
    ops.append(["rw", str(workspace), WORKSPACE_MOUNT])
    for rel in readonly:
        src = _inside(workspace, rel)
        if src.exists():
            ops.append(["ro", str(src), f"{WORKSPACE_MOUNT}/{src.relative_to(workspace)}"])
    ops.append(["tmpfs", "/tmp", "1777"])
    ops.append(["proc", "/proc"])
    ops.append(["dev", "/dev"])
    return ops


def _inside(workspace: Path, rel: str) -> Path:
    """``workspace/rel`` if it is a real (non-symlinked) path inside the workspace."""
    path = workspace / rel
    if path.is_symlink() or workspace.resolve() not in path.resolve().parents:
        raise SandboxError(f"read-only path {rel!r} must be a real directory inside the workspace")
    return path


def _prepare_workspace(workspace: Path, readonly: Sequence[str]) -> None:
    """Give the workspace to the sandbox uid, except the read-only paths (left to root).

    Every change goes through the fd of the directory being walked (``os.fwalk`` checks that
    what it opens is what it listed and never enters a symlink) and ``chown`` never follows a
    link, so swapping a directory for a symlink during the walk changes nothing outside.
    """
    top = os.path.realpath(workspace)
    skip = {os.path.normpath(os.path.join(top, r)) for r in readonly}
    for root, dirs, files, dir_fd in os.fwalk(top, follow_symlinks=False):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in skip]
        if root == top:
            st = os.fstat(dir_fd)
            if (st.st_uid, st.st_gid) != (SANDBOX_UID, SANDBOX_GID):
                os.fchown(dir_fd, SANDBOX_UID, SANDBOX_GID)
        for name in [*dirs, *files]:
            if os.path.join(root, name) in skip:
                continue
            with contextlib.suppress(FileNotFoundError):
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if (st.st_uid, st.st_gid) != (SANDBOX_UID, SANDBOX_GID):
                    os.chown(name, SANDBOX_UID, SANDBOX_GID, dir_fd=dir_fd, follow_symlinks=False)


def _lock_dir() -> int:
    """An fd of this user's private directory of workspace lock files (made if missing)."""
    path = os.path.join(tempfile.gettempdir(), f"bizbench-sandbox-locks-{os.geteuid()}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    st = os.fstat(fd)
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        os.close(fd)
        raise SandboxError(f"the sandbox lock directory {path} is not private to this user")
    return fd


@contextlib.contextmanager
def _workspace_lock(workspace: Path) -> Iterator[None]:
    """Hold the host-side lock of ``workspace`` (threads and processes of this user wait in turn)."""
    key = hashlib.sha256(os.path.realpath(workspace).encode()).hexdigest()[:32]
    dir_fd = _lock_dir()
    try:
        fd = os.open(f"{key}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    py_bin = str(Path(sandbox_python()).parent)
    base = {
        "PATH": f"{py_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": WORKSPACE_MOUNT,
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "USER": "agent",
        "TERM": "dumb",
    }
    for k, v in (env or {}).items():
        if not isinstance(k, str) or not isinstance(v, str) or "=" in k or not k:
            raise ValueError(f"bad environment entry {k!r}")
        base[k] = v
    return base


# ---------------------------------------------------------------------------- backends
def _unshare_argv() -> list[str]:
    return [
        "unshare",
        "--mount",
        "--pid",
        "--net",
        "--ipc",
        "--uts",
        "--cgroup",  # its cgroup is its root: /proc/self/cgroup names nothing of the host
        "--fork",
        "--kill-child=SIGKILL",
        "--propagation",
        "private",
        sandbox_python(),
        "-I",
        "-S",
        "-",
    ]


def _bwrap_argv(
    ops: list[list[str]], argv: Sequence[str], env: Mapping[str, str], cwd: str, seccomp_fd: int
) -> list[str]:
    """The same plan for bubblewrap (run as root; privileges dropped by setpriv inside; the
    seccomp program of :func:`userns_filter` read from ``seccomp_fd``)."""
    out = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    out += ["--seccomp", str(seccomp_fd)]
    out += ["--die-with-parent", "--hostname", "sandbox", "--tmpfs", "/", "--clearenv"]
    for op, *args in ops:
        if op == "symlink":
            out += ["--symlink", args[0], args[1]]
        elif op == "dir":
            out += ["--dir", args[0]]
        elif op == "ro":
            out += ["--ro-bind", args[0], args[1]]
        elif op == "rw":
            out += ["--bind", args[0], args[1]]
        elif op == "tmpfs":
            out += ["--perms", args[1], "--size", str(1 << 30), "--tmpfs", args[0]]
        elif op == "proc":
            out += ["--proc", args[0]]
        elif op == "dev":
            out += ["--dev", args[0]]
    out += ["--remount-ro", "/"]
    for k, v in env.items():
        out += ["--setenv", k, v]
    out += ["--chdir", cwd, "--", "/usr/bin/prlimit", f"--nproc={NPROC_LIMIT}", "/usr/bin/setpriv"]
    out += [f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_GID}", "--clear-groups", "--no-new-privs"]
    out += ["--inh-caps=-all", "--bounding-set=-all", "--", *argv]
    return out


def run_in_sandbox(
    workspace: Path,
    argv: Sequence[str],
    timeout_s: float,
    output_limit: int = 30_000,
    env: Mapping[str, str] | None = None,
    *,
    readonly: Sequence[str] = (),
    cwd: str = WORKSPACE_MOUNT,
    backend: str | None = None,
    memory_bytes: int = MEMORY_LIMIT,
    max_pids: int = NPROC_LIMIT,
    stop: threading.Event | None = None,
) -> SandboxResult:
    """Run ``argv`` inside the sandbox with ``workspace`` mounted read-write at /workspace.

    Args:
        workspace: Host directory to mount at ``/workspace`` (created if missing).
        argv: The command, e.g. ``["python3", "main.py"]`` or ``["bash", "-c", cmd]``.
        timeout_s: Wall-clock limit; the whole sandbox is killed when it passes.
        output_limit: Characters kept per stream (first half + last half).
        env: Extra environment variables (on top of PATH, HOME, LANG, TMPDIR, USER, TERM).
        readonly: Workspace-relative paths mounted read-only (e.g. ``.novamind``).
        cwd: Working directory inside the sandbox.
        backend: ``"bwrap"`` or ``"unshare"``; default: the first available.
        memory_bytes: Memory of every process of the sandbox together (and its tmpfs).
        max_pids: Processes and threads of the sandbox together.
        stop: Set from another thread to kill the whole sandbox now (its result is then a
            kill: ``returncode`` -9, ``timed_out`` False).

    The memory and process limits hold where a cgroup can be made (:mod:`bizbench.core.cgroups`);
    elsewhere only ``RLIMIT_NPROC`` does. ``SandboxResult.limits`` says which, and
    ``SandboxResult.exceeded`` which of them the command ran into (also the last line of stderr).
    """
    if not argv:
        raise ValueError("argv must not be empty")
    reason = sandbox_unavailable_reason()
    if reason:
        raise SandboxError(reason)
    backends = available_backends()
    backend = backend or backends[0]
    if backend not in backends:
        raise SandboxError(f"sandbox backend {backend!r} is not available (available: {', '.join(backends)})")
    workspace = Path(workspace).absolute()
    workspace.mkdir(parents=True, exist_ok=True)
    full_env = _environment(env)
    from bizbench.core.cgroups import sandbox_group  # the parent's side only: not in the init program

    with _workspace_lock(workspace), sandbox_group(memory_bytes, max_pids) as group:
        _prepare_workspace(workspace, readonly)  # no other sandboxed process of this workspace runs meanwhile
        ops = _plan(workspace, readonly)
        result = _run_plan(ops, argv, full_env, cwd, backend, timeout_s, output_limit, group.procs, stop)
        result.limits, result.exceeded = group.limits, group.exceeded()
        if result.exceeded:  # said to the agent too: a process gone without a word is a puzzle
            note = f"sandbox: the {' and '.join(result.exceeded)} limit was reached ({group.limits})\n"
            result.stderr += ("\n" if result.stderr and not result.stderr.endswith("\n") else "") + note
        return result


def _run_plan(
    ops: list[list[str]],
    argv: Sequence[str],
    full_env: dict[str, str],
    cwd: str,
    backend: str,
    timeout_s: float,
    output_limit: int,
    cgroup_procs: Sequence[Path] = (),
    stop: threading.Event | None = None,
) -> SandboxResult:
    with tempfile.TemporaryDirectory(prefix="bizbench-sandbox-root-") as newroot:
        status_r, status_w = os.pipe()
        opened = [status_r, status_w]
        try:
            if backend == "bwrap":
                seccomp_r, seccomp_w = os.pipe()  # bwrap installs the same filter from this fd
                opened.append(seccomp_r)
                with open(seccomp_w, "wb") as f:
                    f.write(userns_filter(os.uname().machine))
                cmd, program = _bwrap_argv(ops, argv, full_env, cwd, seccomp_r), None
                pass_fds: tuple[int, ...] = (seccomp_r,)
                os.write(status_w, b"ok")
            else:
                config = {
                    "newroot": newroot,
                    "ops": ops,
                    "argv": list(argv),
                    "env": full_env,
                    "cwd": cwd,
                    "status_fd": status_w,
                }
                cmd, pass_fds = _unshare_argv(), (status_w,)
                source = Path(__file__).read_text(encoding="utf-8")
                program = f"{source}\n\n_init_main({json.dumps(config)!r})\n".encode()
            cmd = _joining(cgroup_procs, cmd)
            return _execute(cmd, program, pass_fds, status_r, status_w, timeout_s, output_limit, stop)
        finally:
            for fd in opened:
                with contextlib.suppress(OSError):
                    os.close(fd)


def _joining(cgroup_procs: Sequence[Path], cmd: list[str]) -> list[str]:
    """``cmd``, started by a shell that first moves itself into each cgroup (writing 0 to its
    ``cgroup.procs``), so the sandbox and all it starts are inside from their first instruction."""
    if not cgroup_procs:
        return cmd
    join = 'for f; do [ "$f" = -- ] && break; echo 0 > "$f" || exit 125; shift; done; shift; exec "$@"'
    return ["/bin/sh", "-c", join, "sh", *map(str, cgroup_procs), "--", *cmd]


def _execute(
    cmd: list[str],
    program: bytes | None,
    pass_fds: tuple[int, ...],
    status_r: int,
    status_w: int,
    timeout_s: float,
    output_limit: int,
    stop: threading.Event | None = None,
) -> SandboxResult:
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE if program is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
        cwd="/",
        pass_fds=pass_fds,
        start_new_session=True,
    )
    # status_w stays open until the caller closes both ends once (closing it here too could
    # close another thread's new fd that reused the number)
    readers = [_Capture(proc.stdout, output_limit), _Capture(proc.stderr, output_limit)]
    for r in readers:
        r.start()
    if program is not None and proc.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(program)
        proc.stdin.close()
    timed_out = False
    while proc.poll() is None:  # until it ends, its time is up, or ``stop`` is set
        left = start + timeout_s - time.monotonic()
        timed_out = left <= 0
        if timed_out or (stop is not None and stop.is_set()):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=left if stop is None else min(left, 0.1))
    proc.wait()
    for r in readers:
        r.join(timeout=10)
    status = b""
    with contextlib.suppress(OSError):
        os.set_blocking(status_r, False)
        status = os.read(status_r, 16)
    stderr = readers[1].text(output_limit)
    if status != b"ok" and not timed_out:
        raise SandboxError(f"sandbox setup failed (exit {proc.returncode}): {stderr.strip()[-2000:]}")
    return SandboxResult(
        returncode=-9 if timed_out else proc.returncode,
        stdout=readers[0].text(output_limit),
        stderr=stderr,
        timed_out=timed_out,
        duration_s=time.monotonic() - start,
    )


def python_in_sandbox(
    workspace: Path,
    code_or_file: str | Path,
    timeout_s: float = 300.0,
    output_limit: int = 30_000,
    env: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> SandboxResult:
    """Run Python code (a ``str``) or a script (a ``Path``, inside the workspace) in the sandbox."""
    python = sandbox_python()
    workspace = Path(workspace).absolute()
    if isinstance(code_or_file, Path):
        path = code_or_file if code_or_file.is_absolute() else workspace / code_or_file
        try:
            rel = path.absolute().relative_to(workspace)
        except ValueError:
            raise ValueError(f"script {code_or_file} is not inside the workspace {workspace}") from None
        return run_in_sandbox(workspace, [python, f"{WORKSPACE_MOUNT}/{rel}"], timeout_s, output_limit, env, **kwargs)
    if len(code_or_file.encode()) <= _MAX_ARG:
        return run_in_sandbox(workspace, [python, "-c", code_or_file], timeout_s, output_limit, env, **kwargs)
    # too long for one argv string: run it from a new temporary file in the workspace (never
    # through a link the agent may have planted: O_EXCL | O_NOFOLLOW, unpredictable name)
    workspace.mkdir(parents=True, exist_ok=True)
    script = workspace / f".sandbox-code-{os.getpid()}-{os.urandom(8).hex()}.py"
    fd = os.open(script, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(code_or_file)
    try:
        argv = [python, f"{WORKSPACE_MOUNT}/{script.name}"]
        return run_in_sandbox(workspace, argv, timeout_s, output_limit, env, **kwargs)
    finally:
        script.unlink(missing_ok=True)


# ---------------------------------------------------------------------------- seccomp
# The filter that keeps the agent out of new user namespaces (issue 16 finding 4: inside one,
# an unprivileged process holds every capability over its own mounts, network and netfilter,
# the doorway of most unprivileged kernel exploits). Classic BPF over ``struct seccomp_data``
# (linux/seccomp.h: int nr at offset 0, u32 arch at 4, u64 args[6] from 16; little-endian on
# every architecture below, so the low 32 bits of args[0] are at 16).
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_SECCOMP_RET_ALLOW, _SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
_EPERM, _ENOSYS = 1, 38
_CLONE_NEWUSER = 0x10000000
_X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: numbers with this bit are refused outright
#: per ``platform.machine()``: AUDIT_ARCH_* (linux/audit.h) and the numbers of clone, unshare, clone3
_SECCOMP_ABI = {"x86_64": (0xC000003E, 56, 272, 435), "aarch64": (0xC00000B7, 220, 97, 435)}
#: classic BPF opcodes (linux/filter.h): ld word at absolute offset, jeq/jge/jset on a constant, ret
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06


def userns_filter(machine: str) -> bytes:
    """The seccomp program (an array of ``struct sock_filter``) that refuses, with EPERM, clone and
    unshare with CLONE_NEWUSER and any system call of another ABI (i386, x32), and answers
    clone3 ENOSYS: its flags sit in memory a filter cannot read, and libc falls back to clone.
    Everything else is allowed. ValueError on an architecture it has no numbers for (the
    sandbox then refuses to run rather than run unfiltered)."""
    import struct

    if machine not in _SECCOMP_ABI:
        raise ValueError(f"no seccomp filter for architecture {machine!r} (known: {', '.join(_SECCOMP_ABI)})")
    arch, clone, unshare, clone3 = _SECCOMP_ABI[machine]
    eperm, enosys = _SECCOMP_RET_ERRNO | _EPERM, _SECCOMP_RET_ERRNO | _ENOSYS
    program = [  # (code, jump if true, jump if false, k); a jump skips that many instructions
        (_LD_ABS, 0, 0, 4),  # 0: arch
        (_JEQ, 1, 0, arch),  # 1: the native ABI -> 3
        (_RET, 0, 0, eperm),  # 2: another ABI
        (_LD_ABS, 0, 0, 0),  # 3: nr
        (_JGE, 6, 0, _X32_SYSCALL_BIT),  # 4: x32 -> 11
        (_JEQ, 7, 0, clone3),  # 5: -> 13
        (_JEQ, 2, 0, clone),  # 6: -> 9
        (_JEQ, 1, 0, unshare),  # 7: -> 9
        (_RET, 0, 0, _SECCOMP_RET_ALLOW),  # 8
        (_LD_ABS, 0, 0, 16),  # 9: the flags (low half of args[0])
        (_JSET, 0, 1, _CLONE_NEWUSER),  # 10: CLONE_NEWUSER -> 11, else -> 12
        (_RET, 0, 0, eperm),  # 11
        (_RET, 0, 0, _SECCOMP_RET_ALLOW),  # 12
        (_RET, 0, 0, enosys),  # 13
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


# ---------------------------------------------------------------------------- init (inside)
# Everything below runs as PID 1 of the new namespaces (unshare backend), as root, from the
# base Python with -I -S. It is this module's own source piped to stdin plus one call.
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_MOVE, _MS_REC, _MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
_MNT_DETACH = 2
_PR_SET_NO_NEW_PRIVS = 38
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}


def _init_main(config_json: str) -> None:  # pragma: no cover - runs inside the sandbox
    import ctypes
    import platform
    import resource
    import socket

    cfg = json.loads(config_json)
    libc = ctypes.CDLL(None, use_errno=True)

    class SockFprog(ctypes.Structure):  # struct sock_fprog (linux/filter.h)
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    def check(rc: int, what: str) -> None:
        if rc != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")

    def mount(src: str | None, dst: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        enc = [None if s is None else s.encode() for s in (src, dst, fstype, data)]
        check(libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {src} on {dst}")

    def bind(src: str, dst: str, flags: int) -> None:
        if os.path.isdir(src):
            os.makedirs(dst, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(dst), mode=0o755, exist_ok=True)
            if not os.path.exists(dst):
                os.close(os.open(dst, os.O_CREAT | os.O_WRONLY, 0o644))
        mount(src, dst, None, _MS_BIND)
        mount(None, dst, None, _MS_REMOUNT | _MS_BIND | flags)

    root = cfg["newroot"]
    status_fd = cfg["status_fd"]
    try:
        mount(None, "/", None, _MS_REC | _MS_PRIVATE)
        mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=64m")
        for op, *args in cfg["ops"]:
            if op == "symlink":
                os.symlink(args[0], root + args[1])
            elif op == "dir":
                os.makedirs(root + args[0], mode=0o755, exist_ok=True)
            elif op == "ro":
                bind(args[0], root + args[1], _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
            elif op == "rw":
                bind(args[0], root + args[1], _MS_NOSUID | _MS_NODEV)
            elif op == "tmpfs":
                os.makedirs(root + args[0], mode=0o755, exist_ok=True)
                mount("tmpfs", root + args[0], "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode={args[1]},size={TMP_SIZE}")
            elif op == "proc":
                os.makedirs(root + args[0], mode=0o555, exist_ok=True)
                mount("proc", root + args[0], "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2")
            elif op == "dev":
                dev = root + args[0]
                os.makedirs(dev, exist_ok=True)
                mount("tmpfs", dev, "tmpfs", _MS_NOSUID, "mode=0755,size=1m")
                for name in DEVICES:
                    bind(f"/dev/{name}", f"{dev}/{name}", _MS_NOSUID)
                for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0")):
                    os.symlink(target, f"{dev}/{name}")
                os.symlink("/proc/self/fd/1", f"{dev}/stdout")
                os.symlink("/proc/self/fd/2", f"{dev}/stderr")
                os.makedirs(f"{dev}/shm")
                mount("tmpfs", f"{dev}/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, f"mode=1777,size={TMP_SIZE}")
        os.chdir(root)
        number = _SYS_PIVOT_ROOT.get(platform.machine())
        if number is not None:
            check(libc.syscall(number, b".", b"."), "pivot_root")
            check(libc.umount2(b".", _MNT_DETACH), "umount old root")
        else:  # switch_root style on architectures not in the table
            mount(root, "/", None, _MS_MOVE)
            os.chroot(".")
        os.chdir("/")
        mount(None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
        socket.sethostname("sandbox")
        null = os.open("/dev/null", os.O_RDONLY)
        seccomp = userns_filter(platform.machine())
        program = ctypes.create_string_buffer(seccomp, len(seccomp))
        fprog = SockFprog(len(seccomp) // 8, ctypes.addressof(program))
    except Exception as e:  # noqa: BLE001 - report and stop before running anything
        os.write(2, f"sandbox setup failed: {e}\n".encode())
        os._exit(125)
    os.write(status_fd, b"ok")
    os.close(status_fd)
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(null, 0)
            os.close(null)
            resource.setrlimit(resource.RLIMIT_NPROC, (NPROC_LIMIT, NPROC_LIMIT))
            os.setgroups([])
            os.setgid(SANDBOX_GID)
            os.setuid(SANDBOX_UID)
            check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
            check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")
            os.chdir(cfg["cwd"])
            os.execvpe(cfg["argv"][0], cfg["argv"], cfg["env"])
        except OSError as e:
            os.write(2, f"sandbox: cannot run {cfg['argv'][0]!r}: {e.strerror or e}\n".encode())
            os._exit(127)
    code = 1
    while True:  # PID 1 reaps every orphan; when the command ends, the namespace dies with us
        try:
            done, status = os.wait()
        except ChildProcessError:
            break
        if done == pid:
            code = os.waitstatus_to_exitcode(status)
            break
    os._exit(code if code >= 0 else 128 - code)
