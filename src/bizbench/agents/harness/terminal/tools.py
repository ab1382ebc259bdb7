"""The six tools of the terminal harness (CEO-Bench section 3.1; reference-notes §8 "Tools").

Defined once as typed functions in :data:`registry` (docs/principles.md principle 1): the model's tool
schemas and the argument validation come from it. Each tool takes a :class:`Toolbox`, the
workspace plus the shell that runs ``bash``:

- ``bash(command, timeout_s)`` runs ``bash -lc`` in the agent sandbox
  (:func:`bizbench.core.sandbox.run_in_sandbox` with the env seat's ``sandbox_options``, see
  :func:`seat_shell`), where ``python`` imports the env's SDK and nothing of bizbench and
  ``bizbench ENV --session /workspace ...`` is the env's shell client; ``.git``, ``bin/`` and
  the seat's runtime directory are read-only there. Output over 30,000 characters keeps its
  first and last halves, with a note.
- ``read_file``, ``write_file``, ``edit_file``, ``search_files`` and ``glob_files`` work
  host-side on the workspace directory through :class:`~.workspace.Workspace`, which refuses
  paths (``..``, absolute host paths, symbolic links) leading outside it. ``search_files``
  and ``glob_files`` walk in a short-lived ``python -I -S`` child with a time limit, so a
  pathological regular expression cannot hang the harness.

A failed call raises :class:`~bizbench.core.errors.ToolError`; its message goes back to the
model and nothing changes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from bizbench.agents.harness.terminal.workspace import Workspace
from bizbench.core.errors import ToolError
from bizbench.core.registry import ToolRegistry
from bizbench.core.sandbox import SandboxError, SandboxResult, cap_output, run_in_sandbox

__all__ = [
    "DEFAULT_BASH_TIMEOUT_S",
    "MAX_BASH_TIMEOUT_S",
    "OUTPUT_LIMIT",
    "Shell",
    "Toolbox",
    "registry",
    "sandbox_shell",
    "seat_shell",
]

DEFAULT_BASH_TIMEOUT_S = 1200.0  # reference-notes §8: 1,200 s per command
MAX_BASH_TIMEOUT_S = 1800.0  # the SDK waits up to 30 min for next_week
OUTPUT_LIMIT = 30_000  # reference-notes §8: longer output keeps the first 15K and last 15K characters
READ_LINES = 2000
LINE_CHARS = 2000
SEARCH_TIMEOUT_S = 30.0
MAX_SEARCH_FILES = 100  # reference-notes §8
MAX_SEARCH_MATCHES = 200
MAX_GLOB_RESULTS = 200
_OMITTED = re.compile(r"\.\.\. \[[\d,]+ (?:characters|bytes) omitted\] \.\.\.")

#: ``shell(workspace, command, timeout_s, output_limit)`` runs one bash command for the agent.
Shell = Callable[[Path, str, float, int], SandboxResult]


def sandbox_shell(
    workspace: Path, command: str, timeout_s: float, output_limit: int, options: dict[str, Any] | None = None
) -> SandboxResult:
    """``bash -lc command`` in the agent sandbox; ``options``: a seat's ``sandbox_options()``
    (its SDK socket, PATH and read-only directories). ``.git`` is always read-only."""
    options = dict(options or {})
    readonly = (*options.pop("readonly", ()), ".git")
    return run_in_sandbox(workspace, ["bash", "-lc", command], timeout_s, output_limit, readonly=readonly, **options)


def seat_shell(options: dict[str, Any]) -> Shell:
    """The :data:`Shell` of a served seat: :func:`sandbox_shell` with its ``sandbox_options()``."""

    def shell(workspace: Path, command: str, timeout_s: float, output_limit: int) -> SandboxResult:
        return sandbox_shell(workspace, command, timeout_s, output_limit, options)

    return shell


@dataclass
class Toolbox:
    """What the tools act on: the workspace and the shell of ``bash``."""

    workspace: Workspace
    shell: Shell = sandbox_shell
    output_limit: int = OUTPUT_LIMIT


registry = ToolRegistry()


# ---------------------------------------------------------------------------- bash
@registry.tool(category="shell")
def bash(
    box: Toolbox,
    command: Annotated[str, Field(min_length=1, max_length=100_000)],
    timeout_s: Annotated[float, Field(gt=0, le=MAX_BASH_TIMEOUT_S)] = DEFAULT_BASH_TIMEOUT_S,
) -> str:
    """Run a bash command in your workspace (/workspace) and return its output and exit code.

    `python` here imports the simulation's SDK and `bizbench` is its shell client (see
    docs/README.md). Each call is a fresh shell: variables and background processes do not
    survive it, files do. Output longer than 30,000 characters keeps its first and last
    15,000 characters.

    Args:
        command: The command line, e.g. `python analysis.py` or `cat docs/README.md`.
        timeout_s: Seconds before the command is killed (default 1200, at most 1800).
    """
    try:
        result = box.shell(box.workspace.root, command, float(timeout_s), box.output_limit)
    except SandboxError as e:
        raise ToolError(f"bash is unavailable: {e}") from None
    output = result.output
    notes = []
    if len(output) > box.output_limit or _OMITTED.search(output):
        output = cap_output(output, box.output_limit)
        notes.append(
            f"[output longer than {box.output_limit:,} characters: the middle was cut. "
            "Write long output to a file and read parts of it (read_file, head, grep).]"
        )
    if result.timed_out:
        notes.append(f"[timed out after {timeout_s:g} s: the command was killed]")
    else:
        notes.append(f"[exit code {result.returncode}]")
    return (output.rstrip("\n") + "\n" if output else "") + "\n".join(notes)


# ---------------------------------------------------------------------------- files
@registry.tool(category="files", mutates=False)
def read_file(
    box: Toolbox,
    path: str,
    offset: Annotated[int, Field(ge=1)] = 1,
    limit: Annotated[int, Field(ge=1, le=10_000)] = READ_LINES,
) -> str:
    """Read a text file of the workspace with line numbers.

    Args:
        path: Path relative to the workspace (or under /workspace/).
        offset: First line to show (1 = the first line).
        limit: How many lines to show at most.
    """
    host, raw = box.workspace.read_bytes(path)
    if b"\x00" in raw[:8192]:
        raise ToolError(f"{path!r} is a binary file ({len(raw):,} bytes); inspect it with bash.")
    lines = raw.decode("utf-8", errors="replace").splitlines()
    if not lines:
        return f"({box.workspace.display(host)} is empty)"
    if offset > len(lines):
        raise ToolError(f"offset {offset} is past the end of {path!r}, which has {len(lines)} lines.")
    out: list[str] = []
    used = 0
    last = offset - 1
    for n in range(offset, min(len(lines), offset + limit - 1) + 1):
        line = lines[n - 1]
        if len(line) > LINE_CHARS:
            line = line[:LINE_CHARS] + f" ... [{len(line) - LINE_CHARS:,} more characters in this line]"
        row = f"{n:>6}\t{line}"
        if used + len(row) + 1 > box.output_limit and out:
            break
        out.append(row)
        used += len(row) + 1
        last = n
    if last < len(lines):
        more = f"continue with read_file(path={path!r}, offset={last + 1})"
        out.append(f"[lines {offset}-{last} of {len(lines)}; {more}]")
    return "\n".join(out)


@registry.tool(category="files")
def write_file(box: Toolbox, path: str, content: Annotated[str, Field(max_length=5_000_000)]) -> str:
    """Create or overwrite a file of the workspace (parent directories are created).

    Args:
        path: Path relative to the workspace (or under /workspace/).
        content: The whole new content of the file.
    """
    host = box.workspace.write_text(path, content)
    return f"Wrote {len(content):,} characters to {box.workspace.display(host)}."


@registry.tool(category="files")
def edit_file(box: Toolbox, path: str, old: Annotated[str, Field(min_length=1)], new: str) -> str:
    """Replace one exact occurrence of a text in a file of the workspace.

    Args:
        path: Path relative to the workspace (or under /workspace/).
        old: The text to replace; it must occur exactly once (include surrounding lines to make it unique).
        new: The replacement text.
    """
    _, raw = box.workspace.read_bytes(path)
    text = raw.decode("utf-8", errors="replace")
    count = text.count(old)
    if count == 0:
        raise ToolError(f"'old' does not occur in {path!r}; read the file and copy the text exactly.")
    if count > 1:
        raise ToolError(f"'old' occurs {count} times in {path!r}; include more surrounding text so it is unique.")
    host = box.workspace.write_text(path, text.replace(old, new, 1))
    return f"Edited {box.workspace.display(host)}: replaced 1 occurrence ({len(old):,} -> {len(new):,} characters)."


@registry.tool(category="files", mutates=False)
def search_files(
    box: Toolbox,
    pattern: Annotated[str, Field(min_length=1, max_length=1000)],
    path: str = ".",
    glob: str = "*",
) -> str:
    """Search the text files of the workspace for a regular expression (Python syntax).

    At most 100 files and 200 matching lines are listed, as `path:line: text`.

    Args:
        pattern: The regular expression, e.g. `def next_week` or `cash_\\d+wk`.
        path: File or directory to search (relative to the workspace).
        glob: Only files whose name matches this pattern, e.g. `*.py` or `*.md`.
    """
    start = box.workspace.resolve(path)
    try:
        re.compile(pattern)
    except re.error as e:
        raise ToolError(f"invalid regular expression {pattern!r}: {e}") from None
    found = _helper(
        {"op": "search", "root": box.workspace.real_root, "start": str(start), "pattern": pattern, "glob": glob}
    )
    rows = [f"{p}:{n}: {text}" for p, n, text in found["matches"]]
    if not rows:
        return f"No matches for {pattern!r}."
    if found["truncated"]:
        rows.append(f"[stopped at {MAX_SEARCH_FILES} files / {MAX_SEARCH_MATCHES} matches; narrow the search]")
    return "\n".join(rows)


@registry.tool(category="files", mutates=False)
def glob_files(box: Toolbox, pattern: Annotated[str, Field(min_length=1, max_length=1000)]) -> str:
    """List workspace paths matching a glob pattern (`**` spans directories; directories end in /).

    Args:
        pattern: E.g. `*.md`, `docs/**/*.json` or `**/*.py` (relative to the workspace).
    """
    rel = pattern.strip()
    if rel.startswith("/workspace/"):
        rel = rel[len("/workspace/") :]
    if rel.startswith("/") or ".." in rel.split("/"):
        raise ToolError(f"{pattern!r} leads outside the workspace; use a pattern relative to it.")
    found = _helper({"op": "glob", "root": box.workspace.real_root, "pattern": rel})
    paths: list[str] = found["paths"]
    if not paths:
        return f"No paths match {pattern!r}."
    if found["truncated"]:
        paths.append(f"[first {MAX_GLOB_RESULTS} paths; narrow the pattern]")
    return "\n".join(paths)


# ---------------------------------------------------------------------------- the walker
def _helper(request: dict[str, Any]) -> dict[str, Any]:
    """Run :data:`_WALKER` in ``python -I -S`` with a time limit; its JSON answer."""
    try:
        proc = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _WALKER],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=SEARCH_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ToolError(f"the search took longer than {SEARCH_TIMEOUT_S:g} s; use a simpler pattern.") from None
    try:
        answer: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        raise ToolError("the search failed: " + proc.stderr.strip()[-300:]) from None
    if "error" in answer:
        raise ToolError(str(answer["error"]))
    return answer


# Standard library only; runs as `python -I -S -c`, reads its request from stdin.
_WALKER = f"""
import fnmatch, json, os, re, stat, sys

MAX_FILES, MAX_MATCHES, MAX_GLOB = {MAX_SEARCH_FILES}, {MAX_SEARCH_MATCHES}, {MAX_GLOB_RESULTS}
SKIP_DIRS = {{".git", "__pycache__"}}
MAX_BYTES = 5_000_000

def walk(top):
    for root, dirs, files in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        yield root, dirs, sorted(files)

def read_text(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return None
        data = b""
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if b"\\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")

def search(req):
    root, start = req["root"], req["start"]
    rx = re.compile(req["pattern"])
    name_glob = req.get("glob") or "*"
    if os.path.isfile(start) and not os.path.islink(start):
        candidates = [start]
    else:
        candidates = (os.path.join(r, f) for r, _, fs in walk(start) for f in fs)
    matches, files, truncated = [], 0, False
    for path in candidates:
        rel = os.path.relpath(path, root)
        target = rel if "/" in name_glob else os.path.basename(path)
        if not fnmatch.fnmatchcase(target, name_glob) or os.path.islink(path):
            continue
        text = read_text(path)
        if text is None:
            continue
        hit = False
        for n, line in enumerate(text.splitlines(), 1):
            if rx.search(line):
                if len(matches) >= MAX_MATCHES:
                    truncated = True
                    break
                matches.append([rel, n, line if len(line) <= 300 else line[:300] + " ..."])
                hit = True
        files += hit
        if truncated or files >= MAX_FILES:
            truncated = truncated or files >= MAX_FILES
            break
    return {{"matches": matches, "truncated": truncated}}

def translate(pattern):
    out = []
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        j, seg = 0, ""
        while j < len(part):
            c = part[j]
            if c == "*":
                seg += "[^/]*"
            elif c == "?":
                seg += "[^/]"
            elif c == "[":
                k = part.find("]", j + 2)
                if k == -1:
                    seg += re.escape(c)
                else:
                    body = part[j + 1:k]
                    if body.startswith("!"):
                        body = "^" + body[1:]
                    seg += "[" + body + "]"
                    j = k
            else:
                seg += re.escape(c)
            j += 1
        out.append(seg + ("" if last else "/"))
    return re.compile("".join(out) + r"\\Z")

def glob(req):
    root = req["root"]
    rx = translate(req["pattern"])
    paths, truncated = [], False
    for r, dirs, files in walk(root):
        for name in dirs + files:
            full = os.path.join(r, name)
            rel = os.path.relpath(full, root)
            if rx.match(rel):
                is_dir = os.path.isdir(full) and not os.path.islink(full)
                paths.append(rel + ("/" if is_dir else ""))
    paths.sort()
    if len(paths) > MAX_GLOB:
        paths, truncated = paths[:MAX_GLOB], True
    return {{"paths": paths, "truncated": truncated}}

def main():
    req = json.loads(sys.stdin.read())
    try:
        out = search(req) if req["op"] == "search" else glob(req)
    except (re.error, ValueError, OSError) as e:
        out = {{"error": type(e).__name__ + ": " + str(e)}}
    sys.stdout.write(json.dumps(out))

main()
"""
