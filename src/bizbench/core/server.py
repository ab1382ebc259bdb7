"""A JSON-over-HTTP tool server: the only way an isolated agent reaches its session.

Standard library only (``http.server`` + ``socketserver``, one thread per request). The
server listens on a Unix domain socket inside the agent's workspace (bind-mounted into the
sandbox, which has no network) and optionally on TCP ``127.0.0.1:PORT`` for agents that
are not sandboxed. Wire format (reference-notes §6.1)::

    POST /call    {"tool": name, "args": {...}}
                  -> {"success": true, "data": ...}
                  |  {"success": false, "error": "<message>", "data": null}
    POST /command {"words": ["task", "accept", "--task-id", "Task-3"]}
                  -> the same answers; the words are parsed here with
                     ``parse_command(session.registry.parameter_schemas(), words)``
                     (a session without a registry answers an error), then run like
                     /call; ``observation`` and ``status`` (when no tool has that name)
                     answer like the two GETs below; ``help [COMMAND]`` and ``COMMAND
                     --help`` answer the registry's help (``cmdline.command_help``),
                     ``rules`` the seat's instructions (when the server has them), and
                     the session's own ``session_commands`` (a host session's ``sim
                     result``) their answers
    GET  /health      -> {"success": true, "data": {"status": "ok"}}
    GET  /game-status -> {"success": true, "data": session.status()}, only its
                         ``status_keys`` when the server has some (``done`` always)
    GET  /observation -> {"success": true, "data": session.observation()}
    POST /tamper  {"kind": "...", "detail": {...}}   (reports from the sandbox-side guard)
    POST /advance {}  with header ``X-Bizbench-Control: <token>``: the host ends the turn the
                  env's default way (``session.advance()``; the terminal harness's auto-advance)
                  -> {"success": true, "data": {"status": <full status>, "tool_calls": n}}
                  (n: the tool calls the env counted for it). Only a server given a
                  ``control_token`` answers it; a missing or wrong token gets 403 and a
                  ``control_refused`` tamper entry. ``bizbench serve`` writes its token to the
                  run directory (``control.token``), never to the workspace.

Guarantees (docs/principles.md principles 3 and 8): a request body above ``max_request_bytes`` is
refused before it is parsed; malformed JSON, a bad envelope or an unknown tool get a clear
error; an unexpected exception returns ``{"error": "internal_error", "request_id": ...}``
with the details only in the server log; suspicious requests go to the session's tamper
log. Tool calls are serialised by one lock, except the session's ``lock_free_tools`` (e.g. a
read-only SQL query), which run beside everything else. Nothing the server sends contains
the seed or the config: it only relays what the session's tools return.

Limits (an agent in the sandbox must not exhaust the host; docs/principles.md principle 8): at
most ``MAX_CONNECTIONS`` connections are open at once over both listeners; the accepting thread
itself answers one past the cap 503 and closes it ``REFUSAL_GRACE_S`` later (no handler thread),
and the first refusal writes one ``connection_flood`` tamper entry. A client has
``HEADER_TIMEOUT_S`` from connecting to send its request line and headers (``MAX_HEAD_BYTES`` at
most), then ``BODY_TIMEOUT_S`` to send its body: deadlines on the whole, not per read, so a client
sending a byte at a time is dropped too. The tool's own work has no limit here (ceo's
``next_week`` may take minutes); its reply must be taken within ``REPLY_TIMEOUT_S``. So the server
holds at most ``MAX_CONNECTIONS`` handler threads (plus one per listener) and
``MAX_CONNECTIONS`` requests of at most ``MAX_REQUEST_BYTES`` each, with what they parse to
(about 20 MB for a pathological 1 MB body such as ``[[], [], ...]``).
"""

from __future__ import annotations

import collections
import contextlib
import hmac
import http.client
import http.server
import io
import json
import logging
import os
import re
import signal
import socket
import socketserver
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from bizbench.core.cmdline import command_help, echo, parse_command, wants_help
from bizbench.core.errors import ToolError
from bizbench.core.jsonio import json_default, preview
from bizbench.core.registry import ToolResult
from bizbench.core.unixsock import short_unix_path

__all__ = [
    "BODY_TIMEOUT_S",
    "CONTROL_HEADER",
    "CONTROL_TOKEN",
    "HEADER_TIMEOUT_S",
    "MAX_CONNECTIONS",
    "MAX_HEAD_BYTES",
    "MAX_REQUEST_BYTES",
    "REPLY_TIMEOUT_S",
    "ToolServer",
    "ToolSession",
    "connection_info",
    "json_default",
]

logger = logging.getLogger("bizbench.server")

#: The largest request body read (a bigger one is refused 413 before it is parsed).
MAX_REQUEST_BYTES = 1_000_000
#: Connections open at once, over the Unix and TCP listeners together; one more is answered 503.
#: An agent needs a few (calls are serialised; a lock-free query beside a call, the host's advance).
MAX_CONNECTIONS = 16
#: Memory of `bizbench serve` (the world, the tool server, its SQL) in a cgroup of its own, where
#: one can be made (core/cgroups.py): past it the kernel kills the server, and `bizbench resume`
#: plays the record again. Its own limits keep it near a tenth of this (docs/security.md).
SERVER_MEMORY_LIMIT = 8 << 30
#: Processes and threads of `bizbench serve` in the same cgroup (a numeric library's thread pool,
#: MAX_CONNECTIONS handlers, the listeners, the --exec agent's launcher).
SERVER_PIDS_LIMIT = 1024
#: Connections the kernel queues until the server accepts them; past it a client's connect fails
#: (the standard library's 5 would refuse an honest client during a burst the server refuses in microseconds).
LISTEN_BACKLOG = 128
#: Seconds from connecting to the end of the request's headers; an idle or slow client is dropped.
HEADER_TIMEOUT_S = 10.0
#: Seconds from the end of the headers to the end of the body (1 MB arrives in milliseconds locally).
BODY_TIMEOUT_S = 30.0
#: Seconds a client may take to read its reply once the tool has answered (the tool's own work is unbounded).
REPLY_TIMEOUT_S = 120.0
#: Seconds a refused connection stays open after its 503, for the client's request to arrive.
REFUSAL_GRACE_S = 0.5
#: Bytes of a refused client's request read before closing (a close with unread bytes resets the
#: connection, and the client would lose its 503); read without waiting.
REFUSAL_DRAIN_BYTES = 256 * 1024
#: Bytes of request line and headers read before the body (more: 431, and the connection is closed).
MAX_HEAD_BYTES = 128 * 1024
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024  # oversized bodies up to this size are read and discarded for a clean reply
MAX_SANDBOX_REPORTS = 10_000  # /tamper reports logged per server; the rest are counted only
MAX_COMMAND_WORDS = 1_000
ENDPOINTS = "POST /call, POST /command, GET /health, GET /game-status, GET /observation"
CONTROL_HEADER = "X-Bizbench-Control"
#: Left beside the socket when the server stops, so a client that finds no server can say the
#: episode has ended instead of "cannot find the socket" (``{"reason": "episode_end" | "stopped"}``).
ENDED_NAME = "ended.json"
CONTROL_TOKEN = "control.token"  # the file in the run directory (never the workspace) holding the token
STATUS_WORDS = {"status": "/game-status", "observation": "/observation"}  # shell words of the GETs
_KIND_RE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")


@runtime_checkable
class ToolSession(Protocol):
    """What the server needs from a session (:class:`bizbench.core.session.Session` implements it)."""

    lock_free_tools: frozenset[str]

    def call_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        """Validate and run one tool; never raises for a bad call."""
        ...

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        """Append one suspicious attempt to the run's tamper log."""
        ...

    def status(self) -> dict[str, Any]:
        """At least ``done``; ceo adds ``day``, ``cash`` and ``subscribers``."""
        ...


# Optional session attributes (looked up with getattr):
#   logs_tool_tamper: bool - the session logs a refused call's tamper itself (the server does not)
#   stops_at_episode_end: bool (default True) - False keeps serving after status()["done"]
#       (a host-side shell session, whose read commands still answer)
#   registry: its ToolRegistry - enables POST /command (shell words parsed against its schemas)
#   observation(): what a player sees at a turn boundary - enables GET /observation
#   session_commands: {words: (what it does, callable)} - more shell commands without flags,
#       answered with the callable's data (a host session's "sim result")
#   client_commands: {usage: what it does} - commands the client answers itself (listed in help
#       and in the unknown-command error; a host session's "sim init")


def connection_info(workspace: Path, socket_path: Path | None, port: int | None) -> dict[str, Any]:
    """The agent-readable ``connection.json``: where to reach the server (nothing else)."""
    sock = None
    if socket_path is not None:
        try:
            sock = str(socket_path.relative_to(workspace))
        except ValueError:
            sock = str(socket_path)
    return {
        "protocol": "http+json",
        "socket": sock,
        "socket_relative_to": "workspace root" if sock and not Path(sock).is_absolute() else None,
        "host": "127.0.0.1" if port else None,
        "port": port,
        "endpoints": {
            "call": "POST /call",
            "command": "POST /command",
            "health": "GET /health",
            "status": "GET /game-status",
            "observation": "GET /observation",
        },
    }


def more_commands(
    schemas: Mapping[str, Any],
    *,
    rules: bool,
    observation: bool = True,
    session_commands: Mapping[str, str] | None = None,
    client_commands: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The shell commands a server answers besides the tools (usage -> what it does), also for
    ``help`` before a host session exists (core/cmdsession.py)."""
    more = {"help [COMMAND]": "every command, or one command's flags (also: COMMAND --help)"}
    if rules and "rules" not in schemas:
        more["rules"] = "the instructions of this seat: the rules of the game"
    if "status" not in schemas:
        more["status"] = "where the episode stands"
    if "observation" not in schemas and observation:
        more["observation"] = "what a player sees at the start of a turn"
    more.update(session_commands or {})
    more.update(client_commands or {})
    return more


class _Reply(Exception):
    """Raised inside request handling to send one JSON reply at once."""

    def __init__(self, status: int, payload: dict[str, Any]) -> None:
        super().__init__(status)
        self.status = status
        self.payload = payload


def _error(status: int, message: str) -> _Reply:
    return _Reply(status, {"success": False, "error": message, "data": None})


class _App:
    """Transport-independent request handling shared by the Unix and TCP listeners."""

    def __init__(
        self,
        session: ToolSession,
        max_request_bytes: int,
        status_keys: Any = None,
        control_token: str | None = None,
        rules: str | None = None,
        *,
        max_connections: int = MAX_CONNECTIONS,
        header_timeout_s: float = HEADER_TIMEOUT_S,
        body_timeout_s: float = BODY_TIMEOUT_S,
    ) -> None:
        self.session = session
        self.rules = rules
        self.control_token = control_token
        self.max_request_bytes = max_request_bytes
        self.max_connections = max_connections
        self.connections = threading.BoundedSemaphore(max_connections)  # one per open connection
        self.flood_logged = False
        self.header_timeout_s = header_timeout_s
        self.body_timeout_s = body_timeout_s
        self.status_keys = None if status_keys is None else frozenset(status_keys) | {"done"}
        self.lock_free = frozenset(getattr(session, "lock_free_tools", frozenset()))
        self.session_logs_tool_tamper = bool(getattr(session, "logs_tool_tamper", False))
        self.stops_at_end = bool(getattr(session, "stops_at_episode_end", True))
        registry = getattr(session, "registry", None)
        self.registry = registry
        self.command_schemas: dict[str, Any] | None = registry.parameter_schemas() if registry is not None else None
        self.session_commands: dict[str, tuple[str, Any]] = dict(getattr(session, "session_commands", {}))
        self.client_commands: dict[str, str] = dict(getattr(session, "client_commands", {}))
        self.call_lock = threading.Lock()
        self.tamper_lock = threading.Lock()
        self.sandbox_reports = 0
        self.done = threading.Event()
        self.local = threading.local()  # .ended: the current request ended the episode
        self.inflight = 0
        self.idle = threading.Condition()

    # ------------------------------------------------------------------ tamper
    def tamper(self, kind: str, detail: dict[str, Any]) -> None:
        with self.tamper_lock:
            try:
                self.session.log_tamper(kind, detail)
            except Exception:  # noqa: BLE001 - logging must not break serving
                logger.exception("tamper log failed (%s)", kind)

    def refusal(self) -> bytes:
        """The whole 503 answer to a connection past the cap; the first refusal is one tamper entry."""
        with self.tamper_lock:
            first, self.flood_logged = not self.flood_logged, True
        if first:
            self.tamper("connection_flood", {"source": "server", "limit": self.max_connections})
            logger.warning("connection cap (%d) reached: refusing connections past it", self.max_connections)
        message = (
            f"Too many open connections to the server (limit {self.max_connections}); close idle connections and retry."
        )
        body = json.dumps({"success": False, "error": message, "data": None}).encode()
        head = b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        return head + f"Content-Length: {len(body)}\r\n\r\n".encode() + body

    # ------------------------------------------------------------------ endpoints
    def get(self, path: str) -> tuple[int, dict[str, Any]]:
        if path == "/health":
            return 200, {"success": True, "data": {"status": "ok"}}
        if path == "/game-status":
            with self.call_lock:
                status = self.session.status()
            if self.status_keys is not None:
                status = {k: v for k, v in status.items() if k in self.status_keys}
            return 200, {"success": True, "data": status}
        if path == "/observation":
            observe = getattr(self.session, "observation", None)
            if observe is None:
                raise _error(404, "This session has no observation; use /call.")
            with self.call_lock:
                return 200, {"success": True, "data": observe()}
        raise _error(404, f"Unknown endpoint: GET {path[:100]} (endpoints: {ENDPOINTS})")

    def post(self, path: str, body: bytes, control: str | None = None) -> tuple[int, dict[str, Any]]:
        if path == "/call":
            return self.call(body)
        if path == "/command":
            return self.command(body)
        if path == "/tamper":
            return self.report(body)
        if path == "/advance":
            return self.advance(control)
        raise _error(404, f"Unknown endpoint: POST {path[:100]} (endpoints: {ENDPOINTS})")

    def call(self, body: bytes) -> tuple[int, dict[str, Any]]:
        request = self.parse(body, "/call")
        if not isinstance(request, dict) or not isinstance(request.get("tool"), str):
            raise _error(400, 'Request must be a JSON object {"tool": "<name>", "args": {...}}.')
        extra = set(request) - {"tool", "args"}
        if extra:
            raise _error(400, f"Unknown request fields: {', '.join(sorted(map(str, extra)))} (allowed: tool, args)")
        tool, args = request["tool"], request.get("args")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            got = type(args).__name__
            raise _error(400, f"'args' must be an object (mapping of argument name to value), got {got}")
        return self.dispatch(tool, args)

    def command(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """A shell command line (``{"words": [...]}``) parsed against the session's schemas, then run like /call."""
        if self.command_schemas is None:
            raise _error(400, "This server takes no shell commands (its session has no tool registry); use /call.")
        request = self.parse(body, "/command")
        words = request.get("words") if isinstance(request, dict) else None
        if (
            not isinstance(words, list)
            or set(request) != {"words"}
            or not all(isinstance(w, str) for w in words)
            or len(words) > MAX_COMMAND_WORDS
        ):
            raise _error(
                400, f'Request must be a JSON object {{"words": ["<word>", ...]}} (at most {MAX_COMMAND_WORDS} words).'
            )
        if len(words) == 1 and words[0] in STATUS_WORDS and words[0] not in self.command_schemas:
            return self.get(STATUS_WORDS[words[0]])
        own = self.session_commands.get(" ".join(words))
        if own is not None and "_".join(words) not in self.command_schemas:
            with self.call_lock:
                return 200, {"success": True, "data": own[1]()}
        if words == ["rules"] and self.rules is not None and "rules" not in self.command_schemas:
            return 200, {"success": True, "data": {"rules": self.rules}}
        try:
            if wants_help(words) and "help" not in self.command_schemas:
                return 200, {"success": True, "data": command_help(self.registry, words, self.more_commands())}
            self.refuse_flags_of_flagless(words)
            tool, args = parse_command(self.command_schemas, words, self.listed_commands())
        except ToolError as e:
            if e.tamper:
                self.tamper(e.tamper, {"source": "server", "command": preview(" ".join(words))})
            raise _error(400, str(e)) from None
        return self.dispatch(tool, args)

    def refuse_flags_of_flagless(self, words: list[str]) -> None:
        """ToolError when the first words name a command of this server that takes no flags
        (``sim result --foo``, ``rules --x``) and more words follow: named, not "Unknown command"."""
        head = []
        for w in words:
            if w.startswith("--"):
                break
            head.append(w)
        schemas = self.command_schemas or {}
        if any("_".join(head[:n]) in schemas for n in range(1, len(head) + 1)):
            return  # a tool's words: parse_command answers
        flagless = {*STATUS_WORDS, *self.session_commands, *(["rules"] if self.rules is not None else [])}
        for n in range(len(head), 0, -1):
            typed = " ".join(head[:n])
            if typed in flagless and n < len(words):
                extra = echo(" ".join(words[n:]))
                raise ToolError(f"'{typed}' takes no flags or arguments (got {extra}); 'help' lists the commands.")

    def more_commands(self) -> dict[str, str]:
        """The shell commands this server answers besides the tools: usage -> what it does."""
        return more_commands(
            self.command_schemas or {},
            rules=self.rules is not None,
            observation=hasattr(self.session, "observation"),
            session_commands={words: what for words, (what, _) in self.session_commands.items()},
            client_commands=self.client_commands,
        )

    def listed_commands(self) -> list[str]:
        """The commands an unknown-command error lists besides the tools: all of
        :meth:`more_commands` for a session with commands of its own (a host session: ``sim
        init``, ``sim result``); none for a served seat, whose error stays the registry's (its
        docs/README.md and instructions name ``help`` and ``rules``)."""
        return list(self.more_commands()) if self.session_commands or self.client_commands else []

    def dispatch(self, tool: str, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Run one tool call (from /call or /command) under the call lock and shape its answer."""
        if len(tool) > 200:
            self.tamper("unknown_tool", {"source": "server", "tool": preview(tool, 200)})
            raise _error(400, f"Unknown tool: {tool[:100]}...")
        lock = contextlib.nullcontext() if tool in self.lock_free else self.call_lock
        with lock:
            result = self.session.call_tool(tool, args)
            done = self.stops_at_end and tool not in self.lock_free and bool(self.session.status().get("done"))
        if result.tamper and not self.session_logs_tool_tamper:
            detail = {"source": "server", "tool": tool, "error": preview(result.error), "args": preview(args)}
            self.tamper(result.tamper, detail)
        self.local.ended = done  # signalled after the reply is written
        if result.ok:
            return 200, {"success": True, "data": result.data}
        return 400, {"success": False, "error": result.error or "error", "data": None}

    def advance(self, control: str | None) -> tuple[int, dict[str, Any]]:
        """The host ends the turn the env's default way (the control token proves it is the host)."""
        token = self.control_token
        if token is None or control is None or not hmac.compare_digest(control.encode(), token.encode()):
            self.tamper("control_refused", {"source": "server", "path": "/advance", "token_sent": control is not None})
            raise _error(403, "Only the host may advance the simulation; end the turn with the env's own tools.")
        advance = getattr(self.session, "advance", None)
        if advance is None:
            raise _error(400, "This session cannot be advanced by the host.")
        with self.call_lock:
            before = self._tool_calls()
            if not self.session.status().get("done"):
                advance()
            status = self.session.status()
            after = self._tool_calls()
        self.local.ended = self.stops_at_end and bool(status.get("done"))
        counted = after - before if before is not None and after is not None else None
        return 200, {"success": True, "data": {"status": status, "tool_calls": counted}}

    def _tool_calls(self) -> int | None:
        """The tool calls the session's env counts (None when it does not say)."""
        result = getattr(self.session, "result", None)
        if result is None:
            return None
        try:
            value = result().get("tool_calls")
        except Exception:  # noqa: BLE001 - a count is a nicety, never a failure
            logger.exception("could not count the tool calls")
            return None
        return value if isinstance(value, int) else None

    def report(self, body: bytes) -> tuple[int, dict[str, Any]]:
        request = self.parse(body, "/tamper")
        kind = request.get("kind") if isinstance(request, dict) else None
        detail = request.get("detail") if isinstance(request, dict) else None
        if not isinstance(kind, str) or not _KIND_RE.match(kind):
            kind = "invalid_report"
        with self.tamper_lock:
            self.sandbox_reports += 1
            count = self.sandbox_reports
        if count <= MAX_SANDBOX_REPORTS:
            self.tamper(kind, {"source": "sandbox", "detail": preview(detail, 2000)})
        elif count == MAX_SANDBOX_REPORTS + 1:
            self.tamper("report_flood", {"source": "server", "limit": MAX_SANDBOX_REPORTS})
        return 200, {"success": True, "data": None}

    def parse(self, body: bytes, path: str) -> Any:
        try:
            return json.loads(body)
        except (ValueError, RecursionError) as e:
            self.tamper("malformed_request", {"source": "server", "path": path, "body": preview(body[:200])})
            reason = str(e) if isinstance(e, ValueError) else "nested too deeply"
            raise _error(400, f"Malformed JSON request body: {preview(reason, 200)}") from None

    def oversized(self, path: str, length: int) -> _Reply:
        self.tamper("oversized_request", {"source": "server", "path": path[:100], "content_length": length})
        return _error(
            413,
            f"Request too large: {length:,} bytes (limit {self.max_request_bytes:,} bytes). "
            "Send smaller arguments (e.g. fewer ids per call, shorter text).",
        )


class _HeadTooLarge(http.client.HTTPException):
    """The request line and headers run past ``MAX_HEAD_BYTES`` (``http.server`` answers 431)."""


class _RequestReader(io.RawIOBase):
    """A connection's incoming bytes under one deadline and one byte budget for the whole request.

    A socket timeout bounds each ``recv`` only; setting it to the time left before every one
    bounds the whole read, so a client that trickles a byte at a time is dropped too.
    """

    def __init__(
        self, raw: io.RawIOBase | io.BufferedIOBase, connection: socket.socket, timeout_s: float, budget: int
    ) -> None:
        super().__init__()
        self.raw = raw
        self.connection = connection
        self.deadline = time.monotonic() + timeout_s
        self.budget = budget

    def extend(self, timeout_s: float, more_bytes: int) -> None:
        """A new deadline ``timeout_s`` from now and ``more_bytes`` more to read (the body)."""
        self.deadline = time.monotonic() + timeout_s
        self.budget += more_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        if self.budget <= 0:
            raise _HeadTooLarge(f"request line and headers over {MAX_HEAD_BYTES:,} bytes")
        self.connection.settimeout(left)
        n = self.raw.readinto(memoryview(buffer)[: self.budget]) or 0
        self.budget -= n
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


class _Handler(http.server.BaseHTTPRequestHandler):
    """One HTTP exchange; replies are always JSON (HTTP/1.0, one request per connection)."""

    server_version = "bizbench/1.0"
    sys_version = ""
    rbufsize = 0  # setup() buffers the raw socket file itself, over a _RequestReader

    @property
    def app(self) -> _App:
        return self.server.app  # type: ignore[attr-defined,no-any-return]

    def setup(self) -> None:
        super().setup()
        self.reader = _RequestReader(self.rfile, self.connection, self.app.header_timeout_s, MAX_HEAD_BYTES)
        self.rfile = io.BufferedReader(self.reader)

    def address_string(self) -> str:  # Unix sockets have no client address
        return str(self.client_address[0]) if isinstance(self.client_address, tuple) else "unix"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base class
        logger.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self.respond(lambda: self.app.get(self.path))

    def do_POST(self) -> None:  # noqa: N802
        self.respond(lambda: self.app.post(self.path, self.read_body(), self.headers.get(CONTROL_HEADER)))

    def read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding"):
            raise _error(411, "Chunked requests are not supported; send a Content-Length.")
        raw = self.headers.get("Content-Length")
        try:
            length = int(raw) if raw is not None else -1
        except ValueError:
            length = -1
        if length < 0:
            raise _error(411, "A POST needs a valid Content-Length header.")
        self.reader.extend(self.app.body_timeout_s, length)
        if length > self.app.max_request_bytes:
            reply = self.app.oversized(self.path, length)
            self.drain(length)
            raise reply
        try:
            return self.rfile.read(length)
        except TimeoutError:
            self.close_connection = True
            raise _error(
                408, f"The request body ({length:,} bytes) did not arrive within {self.app.body_timeout_s:g} s."
            ) from None

    def drain(self, length: int) -> None:
        """Read and drop an oversized body (unparsed) so the client can read the refusal."""
        if length > DRAIN_LIMIT_BYTES:
            self.close_connection = True
            return
        left = length
        with contextlib.suppress(OSError):
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 20))
                if not chunk:
                    break
                left -= len(chunk)

    def respond(self, handler: Any) -> None:
        app = self.app
        with app.idle:
            app.inflight += 1
        app.local.ended = False
        try:
            self.exchange(handler)
        finally:
            with app.idle:
                app.inflight -= 1
                app.idle.notify_all()
            if app.local.ended:
                app.done.set()

    def exchange(self, handler: Any) -> None:
        request_id = uuid.uuid4().hex[:12]
        try:
            status, payload = handler()
            body = json.dumps(payload, default=json_default).encode()
        except _Reply as r:
            status, body = r.status, json.dumps(r.payload).encode()
        except Exception:  # noqa: BLE001 - nothing an agent sends may crash the server
            logger.exception("internal error handling %s %s (request %s)", self.command, self.path[:100], request_id)
            status = 500
            failure = {"success": False, "error": "internal_error", "request_id": request_id, "data": None}
            body = json.dumps(failure).encode()
        try:
            self.connection.settimeout(REPLY_TIMEOUT_S)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            logger.debug("client went away before the reply (request %s)", request_id)


class _Capped(socketserver.ThreadingMixIn):
    """A thread per connection up to the app's cap, shared by both listeners. The accepting
    thread answers a connection past the cap 503 itself and closes it on one of its next polls
    (``REFUSAL_GRACE_S`` later: the client's request has arrived and is drained, so the close
    does not reset the answer away); at most ``max_connections`` refusals wait per listener."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = LISTEN_BACKLOG
    app: _App

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused: collections.deque[tuple[float, socket.socket]] = collections.deque()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.app.connections.acquire(blocking=False):
            self.refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.app.connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.app.connections.release()

    def refuse(self, connection: socket.socket) -> None:
        """Send the 503 and the end of the stream at once, without waiting; close later."""
        connection.setblocking(False)
        with contextlib.suppress(OSError):
            connection.send(self.app.refusal())
            connection.shutdown(socket.SHUT_WR)
        if len(self.refused) >= self.app.max_connections:
            _close_refused(self.refused.popleft()[1])
        self.refused.append((time.monotonic() + REFUSAL_GRACE_S, connection))

    def service_actions(self) -> None:
        """Close the refused connections whose grace is over (``serve_forever`` calls this every poll)."""
        now = time.monotonic()
        while self.refused and self.refused[0][0] <= now:
            _close_refused(self.refused.popleft()[1])

    def server_close(self) -> None:
        super().server_close()
        while self.refused:
            _close_refused(self.refused.popleft()[1])


def _close_refused(connection: socket.socket) -> None:
    """Read what a refused client sent (up to ``REFUSAL_DRAIN_BYTES``, without waiting), then close."""
    left = REFUSAL_DRAIN_BYTES
    with contextlib.suppress(OSError):
        while left > 0:
            chunk = connection.recv(min(left, 65536))
            if not chunk:
                break
            left -= len(chunk)
    connection.close()


class _UnixServer(_Capped, socketserver.UnixStreamServer):
    def server_bind(self) -> None:
        path = Path(self.server_address)  # type: ignore[arg-type]
        if path.exists() and _answers(path):
            raise OSError(f"another server is already listening on {path}")
        path.unlink(missing_ok=True)
        with short_unix_path(path) as short:
            self.socket.bind(short)
        os.chmod(path, 0o666)  # the sandboxed agent runs as another uid


class _TcpServer(_Capped, socketserver.TCPServer):
    allow_reuse_address = True


def _mark_ended(directory: Path, reason: str) -> None:
    """Write ``ENDED_NAME`` in the socket's directory (never through a planted link; best effort)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fd = os.open(ENDED_NAME, flags, 0o644, dir_fd=dir_fd)
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps({"reason": reason}) + "\n")
    except OSError:
        logger.debug("could not leave %s in %s", ENDED_NAME, directory)
    finally:
        os.close(dir_fd)


def _forget_ended(directory: Path) -> None:
    """A new server for this directory: the previous one's end marker no longer holds."""
    with contextlib.suppress(FileNotFoundError):
        (directory / ENDED_NAME).unlink()


def _answers(path: Path) -> bool:
    """Whether something accepts connections on the Unix socket ``path`` (a live server)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        with short_unix_path(path) as short:
            probe.connect(short)
        return True
    except OSError:
        return False
    finally:
        probe.close()


class ToolServer:
    """Serve a :class:`ToolSession` on a Unix socket and/or TCP 127.0.0.1.

    ``with ToolServer(session, socket_path=ws / ".novamind/api.sock", port=0) as srv:
    srv.wait()`` serves until the episode ends (``status()["done"]`` after a call) or
    :meth:`stop` is called. ``port=0`` picks a free port (see :attr:`port`).
    """

    def __init__(
        self,
        session: ToolSession,
        *,
        socket_path: Path | None = None,
        port: int | None = None,
        max_request_bytes: int = MAX_REQUEST_BYTES,
        status_keys: Any = None,
        control_token: str | None = None,
        rules: str | None = None,
        max_connections: int = MAX_CONNECTIONS,
        header_timeout_s: float = HEADER_TIMEOUT_S,
        body_timeout_s: float = BODY_TIMEOUT_S,
    ) -> None:
        """``status_keys``: the fields of ``session.status()`` that ``GET /game-status`` shows
        (None: all); the server itself still sees them all. ``control_token``: the secret of
        ``POST /advance`` (None: nobody may advance through the server). ``rules``: what the
        shell command ``rules`` answers (the seat's instructions; None: no such command). The
        limits default to the module's constants (see the module docstring)."""
        if socket_path is None and port is None:
            raise ValueError("give a socket_path, a port, or both")
        if max_connections < 1 or header_timeout_s <= 0 or body_timeout_s <= 0:
            raise ValueError("max_connections must be >= 1 and the timeouts > 0")
        self.app = _App(
            session,
            max_request_bytes,
            status_keys,
            control_token,
            rules,
            max_connections=max_connections,
            header_timeout_s=header_timeout_s,
            body_timeout_s=body_timeout_s,
        )
        self.socket_path = Path(socket_path).absolute() if socket_path is not None else None
        self._want_port = port
        self._servers: list[socketserver.BaseServer] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._stop_requested = False  # request_stop's flag: a signal handler may set it (no lock taken)
        self._port: int | None = None

    @property
    def port(self) -> int | None:
        """The bound TCP port (after :meth:`start`), or None without TCP."""
        return self._port

    @property
    def done(self) -> threading.Event:
        """Set when a call ended the episode."""
        return self.app.done

    def start(self) -> ToolServer:
        """Bind the listeners and start serving on background threads."""
        try:
            if self.socket_path is not None:
                self.socket_path.parent.mkdir(parents=True, exist_ok=True)
                _forget_ended(self.socket_path.parent)
                unix = _UnixServer(str(self.socket_path), _Handler, bind_and_activate=False)
                self._activate(unix)
            if self._want_port is not None:
                tcp = _TcpServer(("127.0.0.1", self._want_port), _Handler, bind_and_activate=False)
                self._activate(tcp)
                self._port = int(tcp.server_address[1])
        except BaseException:
            for srv in self._servers:
                srv.server_close()
            if self._servers and self.socket_path is not None:
                self.socket_path.unlink(missing_ok=True)
            self._servers.clear()
            raise
        for srv in self._servers:
            t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            t.name = f"tool-server-{type(srv).__name__}"
            t.start()
            self._threads.append(t)
        logger.info("tool server listening (socket=%s, port=%s)", self.socket_path, self.port)
        return self

    def _activate(self, srv: _UnixServer | _TcpServer) -> None:
        srv.app = self.app
        try:
            srv.server_bind()
            srv.server_activate()
        except BaseException:
            srv.server_close()
            raise
        self._servers.append(srv)

    def request_stop(self) -> None:
        """Ask :meth:`serve`/:meth:`wait` to return. Safe from a signal handler: it only sets a flag
        that :meth:`wait` reads as it polls. Setting the stop Event there could deadlock: a handler
        runs in the main thread, which may hold that Event's lock inside :meth:`wait` right then."""
        self._stop_requested = True

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the episode ends, :meth:`request_stop` or :meth:`stop`; True if it did within
        ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not (self._stop_requested or self._stop.is_set() or self.app.done.is_set()):
            if deadline is not None and time.monotonic() >= deadline:
                return False
            self._stop.wait(0.1)
        return True

    def stop(self, grace_s: float = 60.0) -> None:
        """Stop listening, let in-flight requests finish (up to ``grace_s``) and remove the socket."""
        self._stop.set()
        for srv in self._servers:
            srv.shutdown()
            srv.server_close()
        for t in self._threads:
            t.join(timeout=5)
        with self.app.idle:
            self.app.idle.wait_for(lambda: self.app.inflight == 0, timeout=grace_s)
        stopped = bool(self._servers)
        self._servers.clear()
        self._threads.clear()
        if self.socket_path is not None:
            if stopped:
                _mark_ended(self.socket_path.parent, "episode_end" if self.app.done.is_set() else "stopped")
            self.socket_path.unlink(missing_ok=True)

    def serve(self, handle_signals: bool = True) -> str:
        """Serve until the episode ends ("episode_end") or SIGINT/SIGTERM ("signal"), then stop.

        Callers that must finish work after a stop request (e.g. writing a run directory)
        install their own handlers calling :meth:`request_stop` and pass ``handle_signals=False``.
        """
        previous: dict[int, Any] = {}
        if handle_signals and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, lambda *_: self.request_stop())
        try:
            if not self._servers:
                self.start()
            self.wait()
        finally:
            reason = "episode_end" if self.app.done.is_set() else "signal"
            self.stop()
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        return reason

    def __enter__(self) -> ToolServer:
        return self if self._servers else self.start()  # open_seat hands over a started server

    def __exit__(self, *exc: object) -> None:
        self.stop()
