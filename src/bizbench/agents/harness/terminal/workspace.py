"""The agent's workspace as the harness sees it from the host: safe paths, MEMORY.md, git.

The sandbox shows the workspace to the agent at ``/workspace``; the harness reaches the
same directory on the host. Everything here runs host-side (as the harness's user) on files
the agent controls, so every path goes through :meth:`Workspace.resolve`: a path may be
relative or start with ``/workspace``; ``..`` that leaves the workspace, absolute host paths
and symbolic links that lead outside are refused, and the harness-managed ``.git/`` and the
seat's own directories (its runtime directory, ``bin/``: ``managed``) are never written.
Files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and
must be regular files (a FIFO planted by the agent cannot block the harness).

Git (reference-notes §8 "Workspace"): the workspace is a repository committed at day 0 and at every new
simulated week. Git runs on the host with the harness's own identity and no user or system
configuration (``GIT_CONFIG_GLOBAL=/dev/null``, ``GIT_CONFIG_NOSYSTEM=1``); ``.git`` is
mounted read-only in the sandbox and refused by the file tools, so the agent cannot plant
hooks, filters or an fsmonitor that host-side git would run. Repositories the agent nests
inside the workspace are recorded as gitlinks and never looked into (submodule checks off;
``safe.directory`` names only the workspace itself, and they belong to the sandbox uid). Commit dates encode the
simulated day (a fixed calendar), so a replayed run gets the same commit hashes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bizbench.core.errors import ToolError
from bizbench.core.sandbox import WORKSPACE_MOUNT

__all__ = ["GIT_EMAIL", "GIT_NAME", "MEMORY_FILE", "PROTECTED", "Memory", "Workspace"]

MEMORY_FILE = "MEMORY.md"
PROTECTED = (".git",)  # managed by the harness: read-only for the agent (with the seat's ``managed``)
GIT_NAME = "bizbench-harness"
GIT_EMAIL = "harness@bizbench.invalid"
GIT_EPOCH = 1_735_689_600  # 2025-01-01T00:00:00Z: day 0 of the commit calendar
GIT_TIMEOUT_S = 120.0
MAX_READ_BYTES = 20_000_000  # larger files are refused by read_file / MEMORY.md
EXCLUDES = ("__pycache__/", "*.pyc", ".sandbox-code-*")


@dataclass(frozen=True)
class Memory:
    """MEMORY.md as shown at a weekly reset."""

    text: str  # what goes into the prompt (cut, with a note when cut)
    total_chars: int  # length of the whole file (0 when missing)
    cut: bool
    problem: str | None = None  # why the file could not be used (a link outside, not a file ...)


class Workspace:
    """One agent workspace on the host."""

    def __init__(self, root: Path, managed: tuple[str, ...] = ()) -> None:
        """``managed``: top-level directories the server writes (the seat's runtime directory,
        ``bin/``): refused to the file tools like ``.git`` and left out of the commits."""
        self.managed = tuple(managed)
        self.protected = (*PROTECTED, *self.managed)
        self.root = Path(root).absolute()
        self.real_root = os.path.realpath(self.root)

    # ------------------------------------------------------------------ paths
    def resolve(self, path: str, *, write: bool = False) -> Path:
        """The host path of an agent path, or ToolError naming why it is refused."""
        if not isinstance(path, str) or not path.strip():
            raise ToolError("path is empty; give a path relative to the workspace (e.g. 'MEMORY.md').")
        if "\x00" in path:
            raise ToolError("path contains a NUL character.")
        rel = path.strip()
        if rel == WORKSPACE_MOUNT or rel.startswith(WORKSPACE_MOUNT + "/"):
            rel = rel[len(WORKSPACE_MOUNT) :].lstrip("/") or "."
        elif os.path.isabs(rel):
            raise ToolError(
                f"{path!r} is outside the workspace: use a path relative to the workspace "
                f"or one under {WORKSPACE_MOUNT}/."
            )
        lexical = os.path.normpath(os.path.join(self.real_root, rel))
        if not self._inside(lexical):
            raise ToolError(f"{path!r} leads outside the workspace ('..' may not leave {WORKSPACE_MOUNT}).")
        real = os.path.realpath(lexical)
        if not self._inside(real):
            raise ToolError(f"{path!r} goes through a symbolic link that leads outside the workspace; refused.")
        if write:
            first = os.path.relpath(real, self.real_root).split(os.sep)[0]
            if first in self.protected or real == self.real_root:
                raise ToolError(f"{path!r} is managed by the harness and cannot be written.")
        return Path(real)

    def _inside(self, path: str) -> bool:
        return path == self.real_root or path.startswith(self.real_root + os.sep)

    def display(self, host: Path) -> str:
        """The workspace-relative form of a resolved host path."""
        rel = os.path.relpath(host, self.real_root)
        return "." if rel == "." else rel

    # ------------------------------------------------------------------ files
    def read_bytes(self, path: str, max_bytes: int = MAX_READ_BYTES) -> tuple[Path, bytes]:
        """A regular file's content (refusing links outside, FIFOs, directories and huge files)."""
        host = self.resolve(path)
        try:
            fd = os.open(host, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            raise ToolError(f"{path!r} does not exist.") from None
        except OSError as e:
            raise ToolError(f"cannot open {path!r}: {e.strerror}.") from None
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise ToolError(f"{path!r} is a directory; list it with glob_files or bash ls.")
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(f"{path!r} is not a regular file.")
            if st.st_size > max_bytes:
                raise ToolError(
                    f"{path!r} is {st.st_size:,} bytes (limit {max_bytes:,}); read parts of it with bash (head, sed)."
                )
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return host, b"".join(chunks)
        finally:
            os.close(fd)

    def write_text(self, path: str, content: str) -> Path:
        """Create or replace a regular file (parent directories are created)."""
        host = self.resolve(path, write=True)
        if host.is_dir():
            raise ToolError(f"{path!r} is a directory.")
        if host.exists() and not host.is_file():
            raise ToolError(f"{path!r} exists and is not a regular file.")
        parent = host.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise ToolError(f"a parent of {path!r} is a file, not a directory.") from None
        if os.path.realpath(parent) != str(parent):  # a link appeared in between: never write through it
            raise ToolError(f"a parent of {path!r} is a symbolic link; refused.")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(host, flags, 0o644)
        except OSError as e:
            raise ToolError(f"cannot write {path!r}: {e.strerror}.") from None
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        return host

    # ------------------------------------------------------------------ memory
    def memory(self, limit: int) -> Memory:
        """MEMORY.md cut at ``limit`` characters, with a note saying where the rest is."""
        try:
            _, raw = self.read_bytes(MEMORY_FILE)
        except ToolError as e:
            if not (self.root / MEMORY_FILE).exists() and not (self.root / MEMORY_FILE).is_symlink():
                return Memory("", 0, False)
            return Memory("", 0, False, problem=str(e))
        text = raw.decode("utf-8", errors="replace")
        if len(text) <= limit:
            return Memory(text, len(text), False)
        shown = text[:limit]
        next_line = shown.count("\n") + 1
        note = (
            f"\n\n[MEMORY.md is {len(text):,} characters; only the first {limit:,} are shown here. "
            f"The rest starts in line {next_line}: read it with read_file(path='MEMORY.md', offset={next_line}). "
            "Keep MEMORY.md short so all of it fits.]"
        )
        return Memory(shown + note, len(text), True)

    # ------------------------------------------------------------------ git
    def _git(self, *args: str, day: int | None = None, check: bool = True) -> str:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "LANG": "C",
            "LC_ALL": "C",
        }
        if day is not None:
            stamp = f"{GIT_EPOCH + 86_400 * day} +0000"
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = stamp
        cmd = [
            "git",
            "-c",
            f"safe.directory={self.real_root}",
            "-c",
            f"user.name={GIT_NAME}",
            "-c",
            f"user.email={GIT_EMAIL}",
            "-c",
            f"core.hooksPath={os.devnull}",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "gc.auto=0",
            "-c",
            "core.autocrlf=false",
            "-c",
            "init.defaultBranch=main",
            # never look inside repositories the agent nests in the workspace (their config
            # could name an fsmonitor command that git would run on the host)
            "-c",
            "diff.ignoreSubmodules=all",
            "-c",
            "status.submoduleSummary=false",
            "-c",
            "submodule.recurse=false",
            "-c",
            "protocol.allow=never",
            "-C",
            self.real_root,
            *args,
        ]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False)
        if check and proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()[-1000:]}")
        return proc.stdout.strip()

    def git_init(self) -> None:
        """Make the workspace a repository (once); the harness-managed paths are excluded."""
        if (Path(self.real_root) / ".git").is_dir():
            return
        self._git("init", "-q")
        info = Path(self.real_root) / ".git" / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "exclude").write_text("\n".join((*(f"/{d}/" for d in self.managed), *EXCLUDES)) + "\n")

    def commit(self, message: str, day: int) -> str:
        """Commit everything (an empty commit when nothing changed); returns the commit hash.

        Files git cannot add (e.g. a nested repository without a commit) are skipped, not fatal.
        """
        self._git("add", "-A", "--ignore-errors", ".", check=False)
        self._git("commit", "-q", "--allow-empty", "--no-verify", "-m", message, day=day)
        return self._git("rev-parse", "HEAD")

    def log(self) -> list[str]:
        """Commit subjects, newest first."""
        out = self._git("log", "--format=%s", check=False)
        return out.splitlines() if out else []

    def bundle(self, dest: Path) -> bool:
        """Write every commit to one file (``git clone workspace.bundle`` restores the history)."""
        if not (Path(self.real_root) / ".git").is_dir():
            return False
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._git("bundle", "create", "-q", str(Path(dest).absolute()), "--all")
            return True
        return False

    def remove(self) -> None:
        shutil.rmtree(self.real_root, ignore_errors=True)
