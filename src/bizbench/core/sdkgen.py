"""Generate an env's agent-side Python SDK and docs from its tool registry (docs/principles.md principle 1).

:func:`write_sdk` writes into the agent's workspace:

* ``<package>/__init__.py`` — one function per tool with the tool's real signature
  (parameter names, order, defaults; annotations as plain-Python types) and its docstring;
  each function is ``return _call("<tool>", arg=arg, ...)``. It re-exports the runtime's
  ``__all__`` (the error class, ``call`` ...) and installs the runtime's guard on import.
* ``<package>/_runtime.py`` — the env's client runtime, copied verbatim (standard library
  only: transport, error class, guard).
* ``<runtime_dir>/site/sitecustomize.py`` (+ a copy of the runtime next to it) — put this
  directory on the sandbox's ``PYTHONPATH`` so every Python started there installs the guard.
* ``docs/tools.md`` (the registry's Markdown reference), ``docs/tools/<tool>.json`` (name,
  description, category, mutates, JSON-schema parameters) and ``docs/README.md`` (the env's
  instructions, if given);
* ``extra_files`` at the workspace root (the seat's ``bin/bizbench`` shell client and
  ``instructions.md``, :mod:`bizbench.core.seat`).

A tool whose name is a Python keyword gets a trailing underscore as a function (cfo's ``pass``
is ``pass_()``, PEP 8's convention) and keeps its name on the wire.

The output contains nothing but the registry's public descriptions and the runtime; it
imports nothing from bizbench and is byte-identical for the same registry.

The workspace may come from an earlier episode whose agent owned it, while the writer runs
as root, so nothing is written through a path: every directory is opened relative to its
parent's file descriptor with ``O_NOFOLLOW``, a symlink (or a file) sitting where a generated
directory goes is removed (never followed), and each file is written to a fresh temporary
file (``O_EXCL | O_NOFOLLOW``) then renamed over its name, which replaces a planted symlink
or hard link instead of writing through it. Stale schema files are unlinked by name in their
directory (unlink never follows a link). Symlinks directly inside ``runtime_dir`` (where the
server puts its socket and ``connection.json``) are removed too, and the directory is given
back to the writer's uid with mode 0755.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import json
import keyword
import os
import secrets
import shutil
import stat
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.registry import ToolRegistry, ToolSpec

__all__ = [
    "SdkFiles",
    "function_name",
    "sdk_paths",
    "generate_init",
    "generate_sitecustomize",
    "python_type",
    "write_files",
    "write_sdk",
]

REQUIRED_RUNTIME_NAMES = ("call", "install_guard")


@dataclass
class SdkFiles:
    """What :func:`write_sdk` wrote (absolute paths)."""

    package_dir: Path
    site_dir: Path
    docs_dir: Path
    files: list[Path] = field(default_factory=list)


# ---------------------------------------------------------------------------- types
def python_type(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> str:
    """A readable plain-Python annotation for a JSON schema (``dict[str, float] | None``)."""
    defs = defs or {}
    if "$ref" in schema:
        ref = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
        return python_type(ref, defs) if ref else "Any"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            parts: list[str] = []
            for sub in schema[key]:
                t = python_type(sub, defs)
                if t not in parts:
                    parts.append(t)
            if "None" in parts:  # keep "X | None" order
                parts = [p for p in parts if p != "None"] + ["None"]
            return " | ".join(parts)
    if "enum" in schema:
        return f"Literal[{', '.join(_literal(v, 'enum') for v in schema['enum'])}]"
    if "const" in schema:
        return f"Literal[{_literal(schema['const'], 'const')}]"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(python_type({**schema, "type": k}, defs) for k in kind)
    if kind == "array":
        items = schema.get("items")
        if isinstance(schema.get("prefixItems"), list):
            return "list"
        return f"list[{python_type(items, defs)}]" if isinstance(items, dict) and items else "list"
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra and not schema.get("properties"):
            return f"dict[str, {python_type(extra, defs)}]"
        return "dict"
    return {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "None"}.get(
        str(kind), "Any"
    )


# ---------------------------------------------------------------------------- code generation
def _runtime_names(runtime_source: str) -> tuple[list[str], set[str]]:
    """The runtime's ``__all__`` (or its public top-level names) and all its top-level defs."""
    tree = ast.parse(runtime_source)
    exports: list[str] | None = None
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exports = [str(v) for v in ast.literal_eval(node.value)]
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
    if exports is None:
        exports = sorted(n for n in defined if not n.startswith("_"))
    return exports, defined


def _literal(value: Any, where: str) -> str:
    """Python source of ``value`` (strings in double quotes, like ``ruff format``)."""
    text = json.dumps(value) if isinstance(value, str) else repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError):
        same = False
    if not same:
        raise ValueError(f"{where}: default {value!r} has no Python literal form")
    return text


def _wrap(line: str, width: int) -> list[str]:
    """Wrap a long docstring line; continuation lines are indented one level deeper."""
    if len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip())]
    return textwrap.wrap(
        line, width, subsequent_indent=lead + ("    " if lead else ""), break_long_words=False, break_on_hyphens=False
    ) or [line]


def _docstring(text: str, indent: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').rstrip()
    width = 120 - len(indent)
    lines = [w for line in (text.splitlines() or [""]) for w in _wrap(line, width)]
    body = "\n".join((indent + line) if line.strip() else "" for line in lines[1:])
    if body:
        return f'{indent}"""{lines[0]}\n{body}\n{indent}"""'
    return f'{indent}"""{lines[0]}"""'


def _tool_doc(spec: ToolSpec) -> str:
    parts = [spec.doc or spec.description or spec.name]
    if spec.params:
        args = ["Args:"]
        for p in spec.params:
            args.append(f"    {p.name}: {' '.join(p.description.split()) or '(no description)'}")
        parts.append("\n".join(args))
    if not spec.mutates:
        parts.append("Read-only.")
    return "\n\n".join(parts)


def function_name(tool: str) -> str:
    """The SDK function of a tool: its name, with a trailing underscore when that is a Python keyword."""
    return f"{tool}_" if keyword.iskeyword(tool) else tool


def _function(spec: ToolSpec, reserved: set[str]) -> str:
    name = function_name(spec.name)
    if name in reserved or not name.isidentifier():
        raise ValueError(f"tool name {spec.name!r} clashes with a name of the generated SDK")
    schema = spec.parameters
    props, defs = schema.get("properties", {}), schema.get("$defs", {})
    params, passed = [], []
    for p in spec.params:
        if keyword.iskeyword(p.name):
            raise ValueError(f"tool {spec.name}: parameter {p.name!r} is a Python keyword")
        text = f"{p.name}: {python_type(props.get(p.name, {}), defs)}"
        if not p.required:
            text += f" = {_literal(p.default, f'tool {spec.name}, parameter {p.name}')}"
        params.append(text)
        passed.append(f"{p.name}={p.name}")
    head = f"def {name}({', '.join(params)}) -> Any:"
    if len(head) > 120 and params:
        head = f"def {name}(\n" + "".join(_param_lines(t) for t in params) + ") -> Any:"
    call = f'    return _call("{spec.name}"' + "".join(f", {a}" for a in passed) + ")"
    if len(call) > 120 and passed:
        call = f'    return _call(\n        "{spec.name}",\n' + "".join(f"        {a},\n" for a in passed) + "    )"
    return f"{head}\n{_docstring(_tool_doc(spec), '    ')}\n{call}\n"


def _param_lines(text: str) -> str:
    """One parameter of a multi-line signature; a long ``Literal[...]`` gets one value per line."""
    line = f"    {text},\n"
    start, end = text.find("Literal["), text.find("]")
    if len(line) <= 120 or start < 0 or end < 0:
        return line
    try:
        values = ast.literal_eval("[" + text[start + len("Literal[") : end] + "]")
    except (ValueError, SyntaxError):
        return line
    inner = "".join(f"        {_literal(v, 'enum')},\n" for v in values)
    rest = text[end + 1 :].strip()
    return f"    {text[:start]}Literal[\n{inner}    ]" + (f"\n    {rest},\n" if rest else ",\n")


def generate_init(registry: ToolRegistry, package: str, runtime_source: str, title: str | None = None) -> str:
    """The source of ``<package>/__init__.py`` for ``registry`` (deterministic, ``ruff format`` style)."""
    exports, defined = _runtime_names(runtime_source)
    missing = [n for n in REQUIRED_RUNTIME_NAMES if n not in defined]
    if missing:
        raise ValueError(f"the runtime must define {', '.join(missing)}")
    title = title or f"{package} SDK"
    specs = registry.specs()
    example = next((function_name(s.name) for s in specs if not s.params and not s.mutates), "call")
    errors = next((n for n in exports if n.endswith("Error")), "an exception")
    listing = "\n".join(f"    {function_name(s.name)}  -- {s.description}" for s in specs)
    header = (
        f"{title}: one function per tool (generated from the tool registry; do not edit).\n\n"
        "Usage::\n\n"
        f"    import {package}\n"
        f"    {package}.{example}()\n\n"
        f"Each function returns the tool's data and raises {errors} on failure;\n"
        "``call(tool, **args)`` calls any tool by name. Full reference: docs/tools.md.\n\n"
        f"Tools:\n{listing}"
    )
    reserved = set(exports) | {"Any", "Literal", "annotations"}
    functions: list[str] = []
    category = None
    for spec in specs:
        if spec.category != category:
            category = spec.category
            functions.append(f"# {'-' * 76} {category}\n")
        functions.append(_function(spec, reserved))
    uses_literal = any("Literal[" in f for f in functions)
    out = [_docstring(header, ""), "", "from __future__ import annotations", ""]
    out += ["from typing import Any" + (", Literal" if uses_literal else ""), ""]
    if exports:
        out.append(f"from ._runtime import {', '.join(exports)}")
    out += ["from ._runtime import call as _call", "from ._runtime import install_guard as _install_guard", ""]
    out += ["_install_guard()", ""]
    names = exports + [function_name(s.name) for s in specs]
    out += ["__all__ = ["] + [f'    "{n}",' for n in names] + ["]", ""]
    return "\n".join(out) + "".join(f"\n\n{block}" for block in functions)


def generate_sitecustomize(package: str) -> str:
    """``sitecustomize.py`` for the sandbox: installs the guard from the runtime copy next to it."""
    module = f"_{package}_runtime"
    return (
        '"""Sandbox start-up hook (generated): block the simulator import, report host-path reads.\n\n'
        "Best effort: ``python -I`` skips it, but nothing of the host is mounted in the sandbox anyway.\n"
        '"""\n\n'
        "try:\n"
        f"    from {module} import install_guard\n\n"
        "    install_guard()\n"
        "except Exception:  # noqa: BLE001 - a broken hook must not stop Python from starting\n"
        "    pass\n"
    )


# ---------------------------------------------------------------------------- writer
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_RACED = (errno.ELOOP, errno.ENOTDIR, errno.ENOENT, errno.EEXIST)


def _relative_parts(rel: str | Path, what: str) -> tuple[str, ...]:
    """``rel`` as plain path components (no absolute path, no ``..``); ValueError otherwise."""
    path = Path(rel)
    parts = path.parts
    if path.is_absolute() or not parts or any(p in ("..", "") for p in parts):
        raise ValueError(f"{what} {str(rel)!r} escapes the workspace")
    return tuple(parts)


def _remove_entry(dir_fd: int, name: str) -> None:
    """Remove ``name`` from the directory: a symlink or file is unlinked, a real directory deleted."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)  # fd-based; refuses to follow symlinks
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)


def _open_dir(parent_fd: int, name: str) -> int:
    """An fd of the real directory ``name`` under ``parent_fd``, made if missing (a symlink there is removed)."""
    for _ in range(5):
        try:
            st: os.stat_result | None = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISDIR(st.st_mode):
            _remove_entry(parent_fd, name)
            st = None
        if st is None:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=parent_fd)
        try:
            return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except OSError as e:
            if e.errno not in _RACED:
                raise
    raise OSError(errno.ELOOP, f"cannot make a real directory {name!r}: it keeps being replaced")


def _write_at(dir_fd: int, name: str, text: str, mode: int = 0o644) -> None:
    """Write ``name`` in the directory atomically: a new file renamed over whatever was there."""
    data = text.encode("utf-8")
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, _NEW_FILE_FLAGS, mode, dir_fd=dir_fd)
    try:
        try:
            os.fchmod(fd, mode)  # whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        try:
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as e:  # a directory sits where the file goes
            if e.errno not in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                raise
            _remove_entry(dir_fd, name)
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


class _Tree:
    """Writes below one root directory through directory fds, never following a symlink."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self._fds: dict[tuple[str, ...], int] = {(): os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)}

    def dir(self, parts: tuple[str, ...]) -> int:
        """The fd of ``root/parts`` (each level a real directory, made if missing)."""
        if parts not in self._fds:
            parent = self.dir(parts[:-1])
            self._fds[parts] = _open_dir(parent, parts[-1])
        return self._fds[parts]

    def write(self, parts: tuple[str, ...], text: str, written: list[Path], mode: int = 0o644) -> None:
        _write_at(self.dir(parts[:-1]), parts[-1], text, mode)
        written.append(self.root.joinpath(*parts))

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()


def _secure_runtime_dir(tree: _Tree, parts: tuple[str, ...]) -> None:
    """``runtime_dir`` (and ``owned_dirs``) are the server's: no symlinks directly inside, owned by
    us, not writable by others."""
    fd = tree.dir(parts)
    for name in os.listdir(fd):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                os.unlink(name, dir_fd=fd)
    st = os.fstat(fd)
    if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
        os.fchown(fd, 0, 0)
    if stat.S_IMODE(st.st_mode) & 0o022:
        os.fchmod(fd, 0o755)


def _write_files(
    tree: _Tree,
    files: Sequence[tuple[tuple[str, ...], str, int]],
    owned: Sequence[tuple[str, ...]],
    written: list[Path],
) -> None:
    for parts in owned:
        _secure_runtime_dir(tree, parts)
    for parts, text, mode in files:
        tree.write(parts, text, written, mode)


def write_files(workspace: Path, files: Sequence[tuple[str, str, int]], owned_dirs: Sequence[str] = ()) -> list[Path]:
    """Write (path relative to ``workspace``, text, mode) files the way :func:`write_sdk` does
    (never through a symlink; ``owned_dirs`` kept like its ``runtime_dir``)."""
    parts = [(_relative_parts(rel, "file"), text, mode) for rel, text, mode in files]
    owned = [_relative_parts(rel, "owned dir") for rel in owned_dirs]
    written: list[Path] = []
    tree = _Tree(Path(workspace).absolute())
    try:
        _write_files(tree, parts, owned, written)
    finally:
        tree.close()
    return written


def sdk_paths(
    registry: ToolRegistry,
    package: str,
    *,
    runtime_dir: str,
    env_docs: bool = True,
    extra_docs: Sequence[str] = (),
    extra_files: Sequence[str] = (),
) -> list[str]:
    """The paths (relative to the workspace, ``/``-separated) :func:`write_sdk` writes with these
    arguments, in its order (a seat checks them before writing: :meth:`bizbench.core.seat.Seat.check_workspace`)."""
    site = f"{runtime_dir}/site"
    out = [
        f"{package}/__init__.py",
        f"{package}/_runtime.py",
        f"{site}/sitecustomize.py",
        f"{site}/_{package}_runtime.py",
    ]
    out += ["docs/tools.md", *(f"docs/tools/{name}.json" for name in registry.names())]
    out += ["docs/README.md"] if env_docs else []
    generated = set(out)
    for rel in extra_docs:
        path = f"docs/{'/'.join(_relative_parts(rel, 'extra doc'))}"
        if path in generated:  # two texts for one file: the last written would silently win
            raise ValueError(f"extra doc {rel!r} is a document the SDK generates ({path})")
        out.append(path)
    out += ["/".join(_relative_parts(rel, "extra file")) for rel in extra_files]
    return out


def write_sdk(
    workspace: Path,
    registry: ToolRegistry,
    package: str,
    env_docs: str = "",
    *,
    runtime_source: str,
    runtime_dir: str,
    title: str | None = None,
    extra_docs: Sequence[tuple[str, str]] = (),
    extra_files: Sequence[tuple[str, str, int]] = (),
    owned_dirs: Sequence[str] = (),
    own_schemas: Sequence[str] | None = None,
) -> SdkFiles:
    """Write the SDK package, the sandbox ``sitecustomize`` and the docs into ``workspace``.

    Args:
        workspace: The agent's workspace root.
        registry: The env's tool registry.
        package: Importable package name of the SDK.
        env_docs: The env's agent instructions (Markdown) for ``docs/README.md``; skipped if empty.
        runtime_source: Source of the env's client runtime (``__all__`` names what it exports;
            it must export ``call`` and ``install_guard``).
        runtime_dir: Hidden workspace directory for the socket, ``connection.json`` and ``site/``.
        title: Human name of the API for docstrings and docs.
        extra_docs: More (relative path under docs/, text) pairs to write.
        extra_files: (path relative to the workspace, text, mode) of more files to write.
        owned_dirs: Workspace directories kept like ``runtime_dir`` (read-only in the sandbox:
            no symlinks inside, owned by the writer, mode 0755), e.g. ``bin``.
        own_schemas: The names under docs/tools/ an earlier write of this caller left (removed
            when no tool has that name any more; every other file there is kept). None: every
            ``docs/tools/*.json`` that names no tool is removed (a workspace wholly the caller's).
    """
    if not package.isidentifier() or keyword.iskeyword(package):
        raise ValueError(f"package must be an identifier, got {package!r}")
    runtime = _relative_parts(runtime_dir, "runtime_dir")
    extras = [(_relative_parts(rel, "extra doc"), text) for rel, text in extra_docs]
    files = [(_relative_parts(rel, "extra file"), text, mode) for rel, text, mode in extra_files]
    owned = [_relative_parts(rel, "owned dir") for rel in owned_dirs]
    workspace = Path(workspace).absolute()
    init_source = generate_init(registry, package, runtime_source, title)
    written: list[Path] = []
    site = (*runtime, "site")
    tree = _Tree(workspace)
    try:
        tree.write((package, "__init__.py"), init_source, written)
        tree.write((package, "_runtime.py"), runtime_source, written)
        _secure_runtime_dir(tree, runtime)
        tree.write((*site, "sitecustomize.py"), generate_sitecustomize(package), written)
        tree.write((*site, f"_{package}_runtime.py"), runtime_source, written)
        docs = ("docs",)
        tree.write((*docs, "tools.md"), registry.markdown_docs(f"{title or package} tool reference"), written)
        schemas = (*docs, "tools")
        schema_fd = tree.dir(schemas)
        names = set(registry.names())
        for entry in os.listdir(schema_fd):
            if entry.endswith(".json") and not entry.startswith(".") and entry[: -len(".json")] not in names:
                if own_schemas is None or entry in own_schemas:
                    _remove_entry(schema_fd, entry)
        for spec in registry.specs():
            tree.write((*schemas, f"{spec.name}.json"), json.dumps(spec.to_dict(), indent=2) + "\n", written)
        if env_docs:
            tree.write((*docs, "README.md"), env_docs.rstrip() + "\n", written)
        for parts, text in extras:
            tree.write((*docs, *parts), text, written)
        _write_files(tree, files, owned, written)
    finally:
        tree.close()
    return SdkFiles(
        package_dir=workspace / package, site_dir=workspace.joinpath(*site), docs_dir=workspace / "docs", files=written
    )
