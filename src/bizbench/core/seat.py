"""An env's seat: what an agent outside the simulator gets in its workspace (docs/principles.md principles 1, 3).

A seat is generated from the env's tool registry and a short declaration, a :class:`Seat`
that the env's seat module (``EnvSpec.seat``, e.g. ``bizbench.envs.cfo.sdk``) exports as
``SEAT``. :meth:`Seat.write_workspace` writes, for every env alike:

- ``<package>/``: the stdlib-only Python SDK, one function per tool
  (:mod:`bizbench.core.sdkgen`) over the runtime template :mod:`bizbench.core._seat_runtime`,
  and ``<runtime dir>/site/`` (its sandbox start-up guard);
- ``bin/bizbench``: the JSON shell client, one template for every env
  (:mod:`bizbench.core._shell_client`): ``bizbench <env> --session /workspace <command words>``
  sends the words to the server's ``POST /command`` over the Unix socket;
- ``docs/README.md`` (how to act: the SDK and the shell; ``help [COMMAND]`` and ``rules``), ``docs/tools.md``,
  ``docs/tools/<tool>.json`` and the env's own documents; ``instructions.md`` when the env
  has instructions for a seated agent (yc, cfo: its prompt with the shell prefix);
- ``<runtime dir>/``: the server's socket ``api.sock`` and ``connection.json``, and
  ``ended.json`` once the server has stopped (the SDK and the shell client then say the
  episode has ended).

:func:`open_seat` serves a :class:`~bizbench.core.session.Session` there with
:class:`~bizbench.core.server.ToolServer` (``bizbench serve ENV``, :mod:`bizbench.cli_seat`);
the agent's code runs in :func:`bizbench.core.sandbox.run_in_sandbox` with
:meth:`Seat.sandbox_options`. Nothing written holds the seed or a hidden value: only the
registry's public descriptions, the env's public documents and the templates.
docs/seats.md describes the whole.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import IO, TYPE_CHECKING, Any

from bizbench.core.sandbox import SEAT_MARKER, WORKSPACE_MOUNT
from bizbench.core.sdkgen import SdkFiles, function_name, sdk_paths, write_files, write_sdk

if TYPE_CHECKING:
    from bizbench.core.env import EnvSpec
    from bizbench.core.registry import ToolRegistry
    from bizbench.core.server import ToolServer
    from bizbench.core.session import Session

__all__ = [
    "BIN_DIR",
    "CLIENT",
    "MARKER",
    "SOCKET_NAME",
    "Seat",
    "SeatError",
    "launch_serve",
    "open_seat",
    "render_template",
    "seat_of",
]

SOCKET_NAME = "api.sock"
CONNECTION = "connection.json"
BIN_DIR = "bin"  # bin/bizbench: read-only in the sandbox and first on its PATH
CLIENT = f"{BIN_DIR}/bizbench"
INSTRUCTIONS = "instructions.md"
#: In the runtime directory (the server's, read-only in the sandbox, so an agent can neither
#: forge nor remove it): what the seat wrote and the directories it made, only those its own.
MARKER = SEAT_MARKER
_MARKER_MAX_BYTES = 1_000_000
_STALE_TMP = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{12}\.tmp$")  # a write cut short (core/sdkgen.py _write_at)
CLIENT_TIMEOUT_S = 120.0  # the shell client's least wait for an answer
_HERE = Path(__file__).resolve().parent
_START = "# --- seat constants:"
_END = "# --- end of seat constants ---"


class SeatError(RuntimeError):
    """A served seat could not be started."""


def render_template(source: str, constants: Mapping[str, Any], renames: Mapping[str, str] | None = None) -> str:
    """``source`` (a template module) with its block of seat constants replaced by ``constants``
    (``NAME = <literal>`` lines, in the template's order) and identifiers renamed."""
    head, sep, rest = source.partition(_START)
    block, sep2, tail = rest.partition(_END)
    if not sep or not sep2:
        raise ValueError("the template has no block of seat constants")
    names = re.findall(r"^([A-Z_]+)\b.*=", block, flags=re.MULTILINE)
    if sorted(names) != sorted(constants):
        raise ValueError(f"the template's seat constants are {', '.join(names)}, got {', '.join(constants)}")
    lines = "".join(f"{name} = {_literal(constants[name])}\n" for name in names)
    out = f"{head}{_START} written by bizbench.core.seat for this env ---\n{lines}{_END}{tail}"
    for old, new in (renames or {}).items():
        out = re.sub(rf"\b{re.escape(old)}\b", new, out)
    return out


def _literal(value: Any) -> str:
    """Python source of a constant (strings in double quotes, as ``ruff format`` writes them)."""
    text = json.dumps(value)
    if ast.literal_eval(text) != value:
        raise ValueError(f"seat constant {value!r} has no JSON-compatible Python literal")
    return text


@dataclass(frozen=True)
class Seat:
    """What an env declares about its seat; everything else is generated from its registry.

    ``package``: the SDK's import name; ``title``: the API's human name; ``runtime_dir``: the
    hidden workspace directory of the socket (read-only in the sandbox); ``error``: the SDK's
    exception class; ``env_prefix``: of the SDK's environment variables ``<prefix>_SOCKET`` and
    ``<prefix>_PORT`` (default: the package name in capitals). ``readme(config)``: the env's
    own opening of docs/README.md (default: a generated one); ``instructions(config, prefix)``:
    the text of ``instructions.md`` given the shell prefix (``bizbench <env> --session
    /workspace``); ``host_instructions(config, prefix)``: what ``rules`` answers in a host
    session, which has no workspace and no SDK (default: ``instructions`` when they name the
    prefix, else a generic text; core/cmdsession.py ``host_rules``); ``documents(config)``: more
    public documents, path under docs/ -> text. ``tool_timeouts``: seconds the clients wait for
    slow tools; ``status_keys``: the fields of the session's status that ``game_status()``
    shows the agent (None: all of them; cfo hides its cash, which costs a budgeted tool call);
    ``example``: a command line for usage messages and docs."""

    env: str
    package: str
    title: str
    runtime_dir: str
    error: str = "APIError"
    env_prefix: str | None = None
    readme: Callable[[Any], str] | None = None
    instructions: Callable[[Any, str], str] | None = None
    host_instructions: Callable[[Any, str], str] | None = None
    documents: Callable[[Any], Mapping[str, str]] | None = None
    tool_timeouts: Mapping[str, float] = field(default_factory=dict)
    status_keys: tuple[str, ...] | None = None
    example: str = "status"

    def __post_init__(self) -> None:
        for what, name in (("package", self.package), ("error", self.error)):
            if not name.isidentifier():
                raise ValueError(f"seat {what} must be a Python identifier, got {name!r}")
        if "/" in self.runtime_dir or self.runtime_dir in ("", ".", "..", BIN_DIR):
            raise ValueError(f"runtime_dir must be one directory name other than {BIN_DIR!r}, got {self.runtime_dir!r}")

    # ------------------------------------------------------------------ where things are
    @property
    def prefix(self) -> str:
        """Of the SDK's environment variables (``NOVAMIND_API`` -> ``$NOVAMIND_API_SOCKET``)."""
        return self.env_prefix or self.package.upper()

    def command_prefix(self, mount: str = WORKSPACE_MOUNT) -> str:
        """How a seated agent's shell starts a command: ``bizbench <env> --session /workspace``."""
        return f"bizbench {self.env} --session {mount}"

    def socket_path(self, workspace: Path) -> Path:
        """Where the server listens for this workspace (the SDK and the shell client look there)."""
        return Path(workspace).absolute() / self.runtime_dir / SOCKET_NAME

    def connection_path(self, workspace: Path) -> Path:
        """``connection.json``: written once the server listens (a launcher waits for it)."""
        return Path(workspace).absolute() / self.runtime_dir / CONNECTION

    def sandbox_options(self, mount: str = WORKSPACE_MOUNT) -> dict[str, Any]:
        """Keyword arguments for ``run_in_sandbox``: ``bin/`` first on PATH, the SDK's guard and
        socket in the environment; ``bin/`` and the runtime directory read-only."""
        py_bin = Path(sys.base_prefix).resolve() / "bin"  # the sandbox's own PATH starts with it too
        return {
            "env": {
                "PATH": f"{mount}/{BIN_DIR}:{py_bin}:/usr/local/bin:/usr/bin:/bin",
                "PYTHONPATH": f"{mount}/{self.runtime_dir}/site:{mount}",
                f"{self.prefix}_SOCKET": f"{mount}/{self.runtime_dir}/{SOCKET_NAME}",
            },
            "readonly": (self.runtime_dir, BIN_DIR),
        }

    # ------------------------------------------------------------------ generated sources
    def runtime_source(self) -> str:
        """The SDK's client runtime: :mod:`bizbench.core._seat_runtime` filled in for this env."""
        from bizbench.core.server import ENDED_NAME

        constants = {
            "API_NAME": self.title,
            "PACKAGE": self.package,
            "ENV_PORT": f"{self.prefix}_PORT",
            "ENV_SOCKET": f"{self.prefix}_SOCKET",
            "RUNTIME_DIR": self.runtime_dir,
            "SOCKET_NAME": SOCKET_NAME,
            "ENDED_NAME": ENDED_NAME,
            "TOOL_TIMEOUTS": dict(self.tool_timeouts),
        }
        source = (_HERE / "_seat_runtime.py").read_text(encoding="utf-8")
        return render_template(source, constants, {"APIError": self.error})

    def client_source(self) -> str:
        """``bin/bizbench``: :mod:`bizbench.core._shell_client` filled in for this env."""
        from bizbench.core.server import ENDED_NAME

        constants = {
            "ENV_ID": self.env,
            "RUNTIME_DIR": self.runtime_dir,
            "SOCKET_NAME": SOCKET_NAME,
            "ENDED_NAME": ENDED_NAME,
            "TIMEOUT_S": max([CLIENT_TIMEOUT_S, *self.tool_timeouts.values()]),
            "EXAMPLE": self.example,
        }
        return render_template((_HERE / "_shell_client.py").read_text(encoding="utf-8"), constants)

    def readme_text(self, config: Any, registry: ToolRegistry) -> str:
        """docs/README.md: the env's opening (or a generated one about the SDK), then the shell."""
        specs = registry.specs()
        keyworded = [s.name for s in specs if function_name(s.name) != s.name]
        if self.readme is not None:
            opening = self.readme(config).rstrip()
        else:
            read = next((s.name for s in specs if not s.params and not s.mutates), None)
            example = f"api.{function_name(read)}()" if read else "api.game_status()"
            renamed = "".join(
                f"\n- The tool `{n}` is `api.{function_name(n)}()` (a Python keyword)." for n in keyworded
            )
            opening = f"""# {self.title}: how to act

The simulation runs in a separate process. This workspace reaches it in two ways, both
standard library only and ready to use: the Python SDK `{self.package}` and the shell command
`{self.command_prefix()}`.

## Python

```python
import {self.package} as api

{example}
```

- One function per tool, with the tool's arguments (docs/tools.md). Each returns the tool's
  data and raises `api.{self.error}` with a message that names the wrong argument; a failed
  call changes nothing.
- `api.call("tool_name", **args)` calls any tool by name. `api.observation()` returns what a
  player sees at the start of a turn and `api.game_status()` where the episode stands; both
  are free.{renamed}"""
        multi = next((s.name for s in specs if "_" in s.name), specs[0].name if specs else "tool")
        return f"""{opening}

## Shell

```bash
{self.command_prefix()} {self.example}
```

- The words name a tool: `{multi.replace("_", " ")}` or `{multi}`. Then one `--flag value` per
  argument (`--some-flag` or `--some_flag`). Lists are comma-separated (`--ids a,b`), objects
  are JSON, and a true/false flag alone means true.
- Every command prints one JSON document: the tool's data (exit status 0) or
  `{{"error": "..."}}` (exit status 1). A failed command changes nothing.
- `observation` and `status` answer like the SDK's `observation()` and `game_status()`;
  `help` lists every command, `help <command>` (or `<command> --help`) gives its flags, and
  `rules` prints the instructions.
- The session is this workspace, created by the host: there is no `sim init`.

Reference: `docs/tools.md` (every tool, its arguments and ranges) and `docs/tools/<tool>.json`
(the JSON schema of each tool). The SDK's source is in `{self.package}/`.
"""

    def rules_text(
        self,
        config: Any,
        registry: ToolRegistry,
        prefix: str | None = None,
        note: Callable[[str], str] | None = None,
    ) -> str:
        """What the shell command ``rules`` answers: ``instructions.md`` (the env's instructions
        with the shell ``prefix``, ended by the session env's ``note``: an arena seat's rivals),
        or docs/README.md when the env declares none."""
        if self.instructions is not None:
            text = self.instructions(config, prefix or self.command_prefix()).rstrip() + "\n"
            return note(text) if note is not None else text
        return self.readme_text(config, registry)

    # ------------------------------------------------------------------ the workspace
    def write_workspace(
        self,
        workspace: Path,
        config: Any = None,
        registry: ToolRegistry | None = None,
        note: Callable[[str], str] | None = None,
    ) -> SdkFiles:
        """Write the seat into ``workspace`` (symlink-safe, :func:`bizbench.core.sdkgen.write_sdk`).

        ``config``: the session's (default: the env's default preset); ``registry``: the
        session's (default: the env class's registry for ``config``, ``EnvBase.registry_for``, so
        instructions and tools describe the same preset); ``note``: what ends the instructions
        (the session env's ``with_note``: an arena seat's rivals). Refused (SeatError, nothing written)
        when a path it would write exists and is not the seat's own (:meth:`check_workspace`);
        ``<runtime dir>/.bizbench-seat.json`` then lists what it wrote and the directories it made."""
        config, registry = self._config_registry(config, registry)
        ws = Path(workspace).absolute()
        marker = self.check_workspace(ws, config, registry)
        docs = dict(self.documents(config)) if self.documents is not None else {}
        files = [(CLIENT, self.client_source(), 0o755)]
        if self.instructions is not None:
            files.append((INSTRUCTIONS, self.rules_text(config, registry, note=note), 0o644))
        planned = self._paths(config, registry)
        made = sorted({d for d in self._dirs(planned) if not (ws / d).exists() and not (ws / d).is_symlink()})
        dirs = sorted(set(marker["dirs"]) | set(made))
        self._write_marker(ws, sorted(set(marker["files"]) | set(planned)), dirs)  # a crash leaves them claimed
        self._remove_stale_tmp(ws)
        out = write_sdk(
            ws,
            registry,
            self.package,
            self.readme_text(config, registry),
            runtime_source=self.runtime_source(),
            runtime_dir=self.runtime_dir,
            title=self.title,
            extra_docs=sorted(docs.items()),
            extra_files=files,
            owned_dirs=(BIN_DIR,),
            own_schemas=[f.removeprefix("docs/tools/") for f in marker["files"] if f.startswith("docs/tools/")],
        )
        self._write_marker(ws, planned, dirs)
        return out

    def _config_registry(self, config: Any, registry: ToolRegistry | None) -> tuple[Any, ToolRegistry]:
        if registry is None or config is None:
            from bizbench.core.envs import get_env

            spec = get_env(self.env)
            config = config if config is not None else spec.load_config()[0]
            registry = registry if registry is not None else spec.env_class.registry_for(config)
        assert registry is not None
        return config, registry

    def _paths(self, config: Any, registry: ToolRegistry) -> list[str]:
        """Every path (relative to the workspace) :meth:`write_workspace` writes for ``config``."""
        docs = sorted(self.documents(config)) if self.documents is not None else []
        files = [CLIENT, *([INSTRUCTIONS] if self.instructions is not None else [])]
        return sdk_paths(registry, self.package, runtime_dir=self.runtime_dir, extra_docs=docs, extra_files=files)

    def _dirs(self, paths: list[str]) -> set[str]:
        """The directories the seat's files go in (and ``bin/``, the runtime directory)."""
        out = {BIN_DIR, self.runtime_dir}
        for rel in paths:
            parts = rel.split("/")[:-1]
            out |= {"/".join(parts[: i + 1]) for i in range(len(parts))}
        return out

    def _marker(self, ws: Path) -> dict[str, list[str]]:
        """The marker an earlier write left (empty lists when there is none); SeatError when
        something else sits at its name."""
        path = ws / self.runtime_dir / MARKER
        try:
            st = path.lstat()
        except FileNotFoundError:
            return {"files": [], "dirs": []}
        bad = f"{path} is not a seat's marker; serve a new or empty workspace, or move it away"
        if not S_ISREG(st.st_mode) or st.st_size > _MARKER_MAX_BYTES or st.st_uid != os.geteuid():
            raise SeatError(bad)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as f:
                data = json.loads(f.read(_MARKER_MAX_BYTES + 1))
            files, dirs = data["files"], data["dirs"]
            if not all(isinstance(x, str) for x in [*files, *dirs]):
                raise TypeError
        except (OSError, ValueError, KeyError, TypeError):
            raise SeatError(bad) from None
        return {"files": list(files), "dirs": list(dirs)}

    def _write_marker(self, ws: Path, files: list[str], dirs: list[str]) -> None:
        data = {"written_by": "bizbench seat (docs/seats.md)", "env": self.env, "files": files, "dirs": dirs}
        text = json.dumps(data, indent=1) + "\n"
        write_files(ws, [(f"{self.runtime_dir}/{MARKER}", text, 0o644)], owned_dirs=(self.runtime_dir,))

    def _remove_stale_tmp(self, ws: Path) -> None:
        """A write cut short leaves ``.<name>.<hex>.tmp`` in ``bin/`` or the runtime directory: the seat's own."""
        for name in (BIN_DIR, self.runtime_dir):
            try:
                fd = os.open(ws / name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                for entry in os.listdir(fd):
                    if _STALE_TMP.match(entry):
                        os.unlink(entry, dir_fd=fd)
            finally:
                os.close(fd)

    def check_workspace(
        self, workspace: Path, config: Any = None, registry: ToolRegistry | None = None
    ) -> dict[str, list[str]]:
        """SeatError unless every path the seat would write is new or the seat's own: a file listed
        in ``<runtime dir>/.bizbench-seat.json`` (what an earlier write left), ``bin/`` and the runtime directory
        made by a seat (listed there too), owned by this user and holding only what a seat writes
        (and a write's stale ``.<name>.<hex>.tmp``). A user's file is never replaced, deleted,
        chowned or chmodded: serving a user's folder is refused instead. Returns the marker."""
        from bizbench.core.server import ENDED_NAME

        config, registry = self._config_registry(config, registry)
        ws = Path(workspace).absolute()
        advice = (
            f"serve a new or empty workspace (or one a server prepared, with its {self.runtime_dir}/{MARKER}), "
            "or move it away"
        )
        marker = self._marker(ws)
        files, dirs = set(marker["files"]), set(marker["dirs"])
        planned = self._paths(config, registry)
        ours = {BIN_DIR: {"bizbench"}, self.runtime_dir: {"site", SOCKET_NAME, CONNECTION, ENDED_NAME, MARKER}}
        for name, expected in ours.items():
            path = ws / name
            try:
                st = path.lstat()
            except FileNotFoundError:
                continue
            if not S_ISDIR(st.st_mode):
                raise SeatError(f"{path} exists and is not a directory; {advice}")
            if st.st_uid != os.geteuid():
                raise SeatError(f"{path} belongs to uid {st.st_uid}, not to the server's user; {advice}")
            foreign = sorted(e for e in os.listdir(path) if e not in expected and not self._stale_tmp_of(e, expected))
            if foreign:
                shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
                raise SeatError(f"{path} holds files a seat does not write ({shown}); {advice}")
            if name not in dirs:
                raise SeatError(f"{path} exists and was not made by a seat ({MARKER} does not list it); {advice}")
        for d in sorted(self._dirs(planned)):
            path = ws / d
            if path.is_symlink() or (path.exists() and not path.is_dir()):
                if d not in dirs:
                    raise SeatError(f"{path} exists and is not a directory the seat made; {advice}")
        for rel in planned:
            path = ws / rel
            if (path.exists() or path.is_symlink()) and rel not in files:
                raise SeatError(f"{path} exists and is not the seat's ({MARKER} does not list it); {advice}")
        return marker

    @staticmethod
    def _stale_tmp_of(entry: str, expected: set[str]) -> bool:
        m = _STALE_TMP.match(entry)
        return m is not None and m["name"] in expected

    def forget_connection(self, workspace: Path) -> None:
        """Remove an earlier server's ``connection.json`` (through the runtime directory's fd: a
        symlink planted in its place is never followed)."""
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(Path(workspace).absolute() / self.runtime_dir, flags)
        except OSError:
            return  # no runtime directory yet (or a link, which write_workspace replaces)
        try:
            os.unlink(CONNECTION, dir_fd=fd)
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)

    def write_connection(self, workspace: Path, info: Mapping[str, Any]) -> Path:
        """``<runtime dir>/connection.json`` (never through a link planted in the runtime directory)."""
        text = json.dumps(dict(info), indent=2) + "\n"
        return write_files(Path(workspace), [(f"{self.runtime_dir}/{CONNECTION}", text, 0o644)], [self.runtime_dir])[0]


def seat_of(spec: EnvSpec | str) -> Seat:
    """The :class:`Seat` an env declares (``SEAT`` of its seat module); ValueError when it has none."""
    if isinstance(spec, str):
        from bizbench.core.envs import get_env

        spec = get_env(spec)
    module = spec.module("seat")
    seat = getattr(module, "SEAT", None)
    if not isinstance(seat, Seat):
        raise ValueError(f"the seat module {spec.seat} of env {spec.id!r} declares no SEAT")
    if seat.env != spec.id:
        raise ValueError(f"the seat module {spec.seat} declares env {seat.env!r}, not {spec.id!r}")
    return seat


def open_seat(session: Session, workspace: Path, port: int | None = None) -> ToolServer:
    """Serve ``session`` to an agent in ``workspace``: write the seat, start a
    :class:`~bizbench.core.server.ToolServer` on its socket (and TCP ``port``; 0 = a free one),
    then ``connection.json``. The caller serves (``server.serve()``) and ends the run
    (``session.finish(ended_by=...)``)."""
    from bizbench.core.server import ToolServer, connection_info

    seat = seat_of(session.spec)
    ws = Path(workspace).absolute()
    seat.forget_connection(ws)  # written again once this server listens
    with_note = getattr(session.env, "with_note", None)  # an env on EnvBase may end its instructions with a note
    note = with_note if callable(with_note) else None
    seat.write_workspace(ws, session.config, session.registry, note)
    rules = seat.rules_text(session.config, session.registry, note=note)
    server = ToolServer(session, socket_path=seat.socket_path(ws), port=port, status_keys=seat.status_keys, rules=rules)
    server.start()
    try:
        seat.write_connection(ws, connection_info(ws, server.socket_path, server.port))
    except BaseException:
        server.stop()
        raise
    return server


def launch_serve(
    env_id: str,
    seed: int,
    workspace: Path,
    run_dir: Path,
    *args: str,
    environ: Mapping[str, str] | None = None,
    log: IO[bytes] | None = None,
    cwd: Path | None = None,
    timeout_s: float = 120.0,
) -> subprocess.Popen[bytes]:
    """Start ``bizbench serve ENV`` in its own process (``args``: more of its options, e.g.
    ``--preset P``) and return once it listens: its socket and ``connection.json`` exist.

    ``environ``: the server's environment (default: this process's; the held-out
    ``$BIZBENCH_SEED_SECRET`` goes there, never into the sandbox); ``log``: where its output
    goes (default: pipes). SeatError, with what it printed, if it exits or is not ready in time."""
    seat = seat_of(env_id)
    cmd = [sys.executable, "-m", "bizbench.cli", "serve", env_id, "--seed", str(seed)]
    cmd += ["--workspace", str(workspace), "--run-dir", str(run_dir), *args]
    seat.forget_connection(workspace)  # an earlier server's
    out = log if log is not None else subprocess.PIPE
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=dict(environ) if environ is not None else dict(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=subprocess.STDOUT if log is not None else subprocess.PIPE,
    )
    deadline = time.monotonic() + timeout_s
    while not (seat.connection_path(workspace).exists() and seat.socket_path(workspace).exists()):
        if proc.poll() is not None:
            said = proc.stderr.read().decode(errors="replace") if proc.stderr is not None else ""
            raise SeatError(f"bizbench serve {env_id} exited with code {proc.returncode}: {said.strip()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise SeatError(f"bizbench serve {env_id} did not start within {timeout_s:.0f} s")
        time.sleep(0.05)
    return proc
