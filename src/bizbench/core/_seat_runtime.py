"""The client runtime of a generated seat SDK: transport, errors and the sandbox guard.

Standard library only. :mod:`bizbench.core.seat` writes this template into the agent's
workspace as ``<package>/_runtime.py`` (and, for the sandbox's ``sitecustomize``, as
``<runtime dir>/site/_<package>_runtime.py``) with the block of seat constants below filled
in for the env and the error class renamed (ceo: ``novamind_api``, ``NovaMindAPIError``). It
holds no simulator code.

Where the server is: ``$<PREFIX>_PORT`` (TCP on 127.0.0.1) if set, else the Unix socket
``$<PREFIX>_SOCKET``, else ``<runtime dir>/api.sock`` in the nearest directory above this
file (the workspace root).

The guard (:func:`install_guard`) is best effort: it blocks imports of the simulator
package and reports them, and reports reads of host paths (``/work``, ``/root`` outside
the Python installation, ``/home``) and of other processes' ``/proc/<pid>`` entries. It is
bypassed by ``python -I`` (no ``sitecustomize``, no ``PYTHONPATH``) or by not importing this
package, but then the access still fails: nothing of the host is mounted in the sandbox.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import threading
from typing import Any

__all__ = ["APIError", "call", "game_status", "observation"]

# --- seat constants: bizbench.core.seat writes this block for each env ---
API_NAME = "bizbench API"
PACKAGE = "bizbench_api"
ENV_PORT = "BIZBENCH_API_PORT"
ENV_SOCKET = "BIZBENCH_API_SOCKET"
RUNTIME_DIR = ".bizbench"
SOCKET_NAME = "api.sock"
ENDED_NAME = "ended.json"
TOOL_TIMEOUTS: dict[str, float] = {}  # tools slower than TIMEOUT_S (ceo: next_week)
# --- end of seat constants ---

TIMEOUT_S = 60.0  # above the server's 30-s query limit
BLOCKED_MODULES = ("bizbench",)  # the simulator runs in another process and is never importable
WATCHED_ROOTS = ("/work", "/root", "/home")
MAX_REPORTS = 20  # per process
_UNIX_PATH_MAX = 100


class APIError(Exception):
    """A tool call failed; the message says why (and which argument, when one was wrong)."""


# ---------------------------------------------------------------------------- transport
class _UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over a Unix domain socket."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            if len(os.fsencode(self._path)) <= _UNIX_PATH_MAX:
                sock.connect(self._path)
            else:  # too long for sun_path: connect through a directory descriptor
                fd = os.open(os.path.dirname(self._path), os.O_RDONLY | os.O_DIRECTORY)
                try:
                    sock.connect(f"/proc/self/fd/{fd}/{os.path.basename(self._path)}")
                finally:
                    os.close(fd)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


def _workspace() -> str | None:
    """The nearest directory above this file that holds the runtime directory (the workspace root)."""
    here = os.path.dirname(os.path.abspath(__file__))
    while True:
        if os.path.isdir(os.path.join(here, RUNTIME_DIR)):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def ended_message() -> str | None:
    """Why no server answers, when the server said so on its way out (``ENDED_NAME`` beside its socket)."""
    dirs = []
    env = os.environ.get(ENV_SOCKET)
    if env:
        dirs.append(os.path.dirname(env))
    root = _workspace()
    if root is not None:
        dirs.append(os.path.join(root, RUNTIME_DIR))
    for d in dirs:
        try:
            with open(os.path.join(d, ENDED_NAME), encoding="utf-8") as f:
                reason = json.load(f).get("reason")
        except (OSError, ValueError, AttributeError):
            continue
        if reason == "episode_end":
            return f"The episode has ended: the {API_NAME} server has shut down, so no further calls are possible."
        return (
            f"The episode has ended: the run was stopped and the {API_NAME} server has shut down, "
            "so no further calls are possible."
        )
    return None


def socket_path() -> str:
    """The server's Unix socket: ``$<PREFIX>_SOCKET`` or ``<runtime dir>/api.sock`` in the workspace."""
    env = os.environ.get(ENV_SOCKET)
    if env:
        return env
    root = _workspace()
    if root is None or not os.path.exists(os.path.join(root, RUNTIME_DIR, SOCKET_NAME)):
        ended = ended_message()
        if ended:
            raise APIError(ended)
        raise APIError(
            f"Cannot find the {API_NAME} server: no {RUNTIME_DIR}/{SOCKET_NAME} above {__file__} "
            f"and neither {ENV_PORT} nor {ENV_SOCKET} is set."
        )
    return os.path.join(root, RUNTIME_DIR, SOCKET_NAME)


def _connection(timeout: float) -> http.client.HTTPConnection:
    port = os.environ.get(ENV_PORT)
    if port:
        try:
            return http.client.HTTPConnection("127.0.0.1", int(port), timeout=timeout)
        except ValueError:
            raise APIError(f"{ENV_PORT} must be a port number, got {port!r}") from None
    return _UnixHTTPConnection(socket_path(), timeout)


def _json_default(value: Any) -> Any:
    """Let numpy/pandas scalars and arrays through as plain numbers and lists."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def request(method: str, path: str, payload: Any = None, timeout: float = TIMEOUT_S) -> Any:
    """One HTTP exchange with the server; returns the decoded JSON reply."""
    body = None
    if payload is not None:
        try:
            body = json.dumps(payload, default=_json_default).encode()
        except (TypeError, ValueError) as e:
            raise APIError(f"Arguments must be JSON-serialisable: {e}") from None
    conn = _connection(timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read()
    except TimeoutError:
        raise APIError(
            f"No reply from the {API_NAME} server within {timeout:.0f} s; the call may still complete "
            "on the server, so check the state (e.g. game_status()) before retrying."
        ) from None
    except (OSError, http.client.HTTPException) as e:
        ended = ended_message() if isinstance(e, OSError) else None
        if ended:
            raise APIError(ended) from None
        raise APIError(f"Cannot reach the {API_NAME} server ({type(e).__name__}: {e})") from None
    finally:
        conn.close()
    try:
        return json.loads(raw)
    except ValueError:
        raise APIError(f"Invalid reply from the {API_NAME} server (HTTP {response.status})") from None


def call(tool: str, /, **args: Any) -> Any:
    """Call a tool by name; returns its ``data`` or raises :class:`APIError`."""
    reply = request("POST", "/call", {"tool": tool, "args": args}, max(TOOL_TIMEOUTS.get(tool, 0.0), TIMEOUT_S))
    if not isinstance(reply, dict) or not reply.get("success"):
        error = reply.get("error") if isinstance(reply, dict) else None
        raise APIError(error or "The server rejected the call without a message.")
    return reply.get("data")


def _get(path: str) -> dict[str, Any]:
    reply = request("GET", path)
    if isinstance(reply, dict) and not reply.get("success", True):
        raise APIError(reply.get("error") or "The server refused the request without a message.")
    data = reply.get("data") if isinstance(reply, dict) else None
    return data if isinstance(data, dict) else {}


def game_status() -> dict[str, Any]:
    """Where the episode stands (time elapsed, whether it is over; ceo adds cash and subscribers). Free."""
    return _get("/game-status")


def observation() -> dict[str, Any]:
    """What a player sees at the start of a turn (ceo: the dashboard; cfo: the month's message). Free."""
    return _get("/observation")


# ---------------------------------------------------------------------------- guard
_state = threading.local()
_reported: set[tuple[str, str]] = set()


def report_tamper(kind: str, **detail: Any) -> None:
    """Tell the server about a suspicious attempt (best effort, at most MAX_REPORTS per process)."""
    key = (kind, repr(sorted(detail.items())))
    if key in _reported or len(_reported) >= MAX_REPORTS or getattr(_state, "busy", False):
        return
    _reported.add(key)
    _state.busy = True
    try:
        request("POST", "/tamper", {"kind": kind, "detail": detail}, timeout=5.0)
    except Exception:  # noqa: BLE001 - reporting must never break the agent's code
        pass
    finally:
        _state.busy = False


class _EngineBlocker:
    """A meta-path finder that refuses the simulator package (and reports the attempt)."""

    bizbench_seat_guard = True

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname.partition(".")[0] in BLOCKED_MODULES:
            report_tamper("import_engine", module=fullname)
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: the simulator runs in a separate process; "
                f"use {PACKAGE} (import {PACKAGE}).",
                name=fullname,
            )
        return None


_allowed: tuple[str, ...] = ()  # the Python installation and the workspace (set by install_guard)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _suspicious(path: str) -> str | None:
    """The kind of a watched path, or None."""
    if path.startswith("/proc/"):
        entry = path.split("/")[2]
        if entry.isdigit() and int(entry) != os.getpid():
            return "proc_access"
        return None
    if any(_under(path, root) for root in WATCHED_ROOTS) and not any(_under(path, p) for p in _allowed):
        return "host_path_access"
    return None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event not in ("open", "os.listdir", "os.scandir") or getattr(_state, "busy", False):
        return
    target = args[0] if args else None
    if isinstance(target, bytes):
        target = os.fsdecode(target)
    if not isinstance(target, str):
        return
    if not os.path.isabs(target):
        _state.busy = True
        try:
            target = os.path.join(os.getcwd(), target)
        except OSError:
            pass
        finally:
            _state.busy = False
    kind = _suspicious(os.path.normpath(target))
    if kind is not None:
        report_tamper(kind, path=os.path.normpath(target), event=event)


def install_guard() -> None:
    """Install the import blocker and the audit hook once per process.

    Importing the SDK package calls this, so it also applies to unsandboxed code that uses
    the SDK: there the workspace itself is exempt from the host-path reports.
    """
    global _allowed
    if any(getattr(f, "bizbench_seat_guard", False) for f in sys.meta_path):
        return
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}
    workspace = _workspace()
    if workspace is not None:
        roots.add(os.path.realpath(workspace))
    _allowed = tuple(sorted(roots))
    sys.meta_path.insert(0, _EngineBlocker())  # type: ignore[arg-type]
    sys.addaudithook(_audit)
