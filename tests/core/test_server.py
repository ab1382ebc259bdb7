"""The JSON tool server and the SDK generator, against a tiny fake session (no env, no sandbox)."""

from __future__ import annotations

import contextlib
import http.client
import inspect
import json
import logging
import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from bizbench.core.registry import ToolError, ToolRegistry, ToolResult
from bizbench.core.sdkgen import generate_init, python_type, write_sdk
from bizbench.core.server import ToolServer, connection_info

registry = ToolRegistry()


@registry.tool(category="basic", mutates=False)
def echo(ctx: Any, text: str, times: int = 1) -> dict[str, Any]:
    """Repeat a text.

    Args:
        text: What to repeat.
        times: How often (default 1).
    """
    return {"text": text * times}


@registry.tool(category="basic")
def spend(ctx: Any, amount: float, note: str | None = None) -> dict[str, Any]:
    """Spend money.

    Args:
        amount: Dollars (>= 0).
        note: Optional memo.
    """
    if amount < 0:
        raise ToolError("argument 'amount': must be >= 0")
    ctx.spent += amount
    return {"spent": ctx.spent}


@registry.tool(category="slow")
def hold(ctx: Any) -> dict[str, Any]:
    """Block until the test releases it (a long locked call)."""
    ctx.started.set()
    ctx.release.wait(30)
    return {"held": True}


@registry.tool(category="slow", mutates=False)
def query(ctx: Any, sql: str) -> dict[str, Any]:
    """A lock-free call that blocks until released (a long read-only query).

    Args:
        sql: Ignored.
    """
    ctx.started.set()
    ctx.release.wait(30)
    return {"rows": []}


@registry.tool(category="turn")
def finish(ctx: Any, mode: Literal["now", "later"] = "now") -> dict[str, Any]:
    """End the episode.

    Args:
        mode: Only "now" ends it.
    """
    ctx.over = mode == "now"
    return {"over": ctx.over}


class FakeSession:
    """Implements the server's ToolSession protocol over the fake registry."""

    lock_free_tools = frozenset({"query"})

    def __init__(self) -> None:
        self.spent = 0.0
        self.over = False
        self.tamper: list[tuple[str, dict[str, Any]]] = []
        self.started = threading.Event()
        self.release = threading.Event()

    def call_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        if name == "crash":
            raise RuntimeError("secret internals 918273")
        return registry.call(self, name, args)

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        self.tamper.append((kind, detail))

    def status(self) -> dict[str, Any]:
        return {"day": 0, "cash": 100.0 - self.spent, "subscribers": 0, "done": self.over}


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = 20) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.path)
        self.sock = s


def request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None) -> tuple[int, Any]:
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body is not None else {})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


@pytest.fixture
def session() -> FakeSession:
    return FakeSession()


@pytest.fixture
def server(session: FakeSession, tmp_path: Path) -> Iterator[ToolServer]:
    srv = ToolServer(session, socket_path=tmp_path / "rt" / "api.sock", port=0).start()
    yield srv
    session.release.set()
    srv.stop()


def unix(server: ToolServer) -> UnixConnection:
    assert server.socket_path is not None
    return UnixConnection(str(server.socket_path))


def call(server: ToolServer, tool: str, **args: Any) -> tuple[int, Any]:
    return request(unix(server), "POST", "/call", json.dumps({"tool": tool, "args": args}).encode())


# ---------------------------------------------------------------------------- round trips
def test_round_trip_unix_socket(server: ToolServer) -> None:
    assert request(unix(server), "GET", "/health") == (200, {"success": True, "data": {"status": "ok"}})
    assert call(server, "echo", text="ab", times=2) == (200, {"success": True, "data": {"text": "abab"}})
    status, reply = request(unix(server), "GET", "/game-status")
    assert status == 200 and reply["data"] == {"day": 0, "cash": 100.0, "subscribers": 0, "done": False}


def test_round_trip_tcp(server: ToolServer) -> None:
    assert server.port
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    body = json.dumps({"tool": "spend", "args": {"amount": 5}}).encode()
    assert request(conn, "POST", "/call", body) == (200, {"success": True, "data": {"spent": 5.0}})


def test_socket_is_world_connectable_and_removed_on_stop(session: FakeSession, tmp_path: Path) -> None:
    srv = ToolServer(session, socket_path=tmp_path / "api.sock").start()
    assert (os.stat(tmp_path / "api.sock").st_mode & 0o777) == 0o666
    assert srv.port is None
    srv.stop()
    assert not (tmp_path / "api.sock").exists()


def test_a_stop_request_takes_no_lock_so_a_signal_handler_cannot_deadlock_the_wait(server: ToolServer) -> None:
    """A SIGTERM handler runs in the main thread, which may hold the stop Event's lock inside
    wait() right then (a served seat once hung on SIGTERM that way): request_stop must return."""
    lock = server._stop._cond  # type: ignore[attr-defined]  # the Event's lock, as wait() holds it
    asked = threading.Thread(target=lambda: [lock.acquire(), server.request_stop()], daemon=True)
    asked.start()
    asked.join(5)
    stuck = asked.is_alive()
    lock.release()  # a plain lock: any thread may release it, so the server can stop either way
    assert not stuck, "request_stop waited for the stop Event's lock"
    assert server.wait(timeout=5)


def test_refuses_a_socket_another_server_is_using(server: ToolServer, session: FakeSession) -> None:
    with pytest.raises(OSError, match="already listening"):
        ToolServer(session, socket_path=server.socket_path).start()
    assert request(unix(server), "GET", "/health")[0] == 200


def test_long_socket_path(session: FakeSession, tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    with ToolServer(session, socket_path=deep / "api.sock") as srv:
        assert len(str(srv.socket_path)) > 108
        fd = os.open(deep, os.O_RDONLY)
        try:
            conn = UnixConnection(f"/proc/self/fd/{fd}/api.sock")
            assert request(conn, "GET", "/health")[0] == 200
        finally:
            os.close(fd)


def test_connection_info_has_no_secrets(tmp_path: Path) -> None:
    info = connection_info(tmp_path, tmp_path / ".novamind" / "api.sock", 4242)
    assert info["socket"] == ".novamind/api.sock" and info["port"] == 4242
    assert "seed" not in json.dumps(info)


# ---------------------------------------------------------------------------- errors
def test_tool_error_is_a_clean_answer(server: ToolServer, session: FakeSession) -> None:
    status, reply = call(server, "spend", amount=-1)
    assert status == 400
    assert reply == {"success": False, "error": "argument 'amount': must be >= 0", "data": None}
    assert session.tamper == []  # an honest mistake is not tamper


def test_unknown_tool_is_logged(server: ToolServer, session: FakeSession) -> None:
    status, reply = call(server, "drop_tables")
    assert status == 400 and reply["success"] is False and reply["data"] is None
    assert reply["error"].startswith("Unknown tool: drop_tables")
    kinds = [(k, d.get("tool"), d.get("source")) for k, d in session.tamper]
    assert kinds == [("unknown_tool", "drop_tables", "server")]


def test_non_finite_argument_is_logged(server: ToolServer, session: FakeSession) -> None:
    status, reply = request(unix(server), "POST", "/call", b'{"tool": "spend", "args": {"amount": NaN}}')
    assert status == 400 and "finite" in reply["error"]
    assert session.tamper[0][0] == "non_finite" and "nan" in session.tamper[0][1]["args"]
    assert session.spent == 0


def test_session_that_logs_its_own_tamper_is_not_logged_twice(session: FakeSession, tmp_path: Path) -> None:
    session.logs_tool_tamper = True  # type: ignore[attr-defined]
    with ToolServer(session, socket_path=tmp_path / "api.sock") as srv:
        call(srv, "nope")
    assert session.tamper == []


def test_oversized_request_refused_before_parsing(server: ToolServer, session: FakeSession) -> None:
    body = b'{"tool": "echo", "args": {"text": "' + b"x" * 2_000_000 + b'"}}'
    status, reply = request(unix(server), "POST", "/call", body)
    assert status == 413 and reply["success"] is False and reply["data"] is None
    assert "too large" in reply["error"] and "1,000,000" in reply["error"]
    assert session.tamper[-1][0] == "oversized_request"
    assert session.tamper[-1][1]["content_length"] == len(body)
    assert call(server, "echo", text="still here")[1]["data"] == {"text": "still here"}


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"{not json", "Malformed JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"args": {}}', "must be a JSON object"),
        (b'{"tool": "echo", "args": [1]}', "'args' must be an object"),
        (b'{"tool": "echo", "args": {}, "x": 1}', "Unknown request fields: x"),
        (b"[" * 100_000 + b"]" * 100_000, "Malformed JSON"),
    ],
)
def test_bad_requests_get_clear_errors(server: ToolServer, body: bytes, needle: str) -> None:
    status, reply = request(unix(server), "POST", "/call", body)
    assert status == 400 and reply["success"] is False and needle in reply["error"]
    assert request(unix(server), "GET", "/health")[0] == 200


def test_unknown_endpoint(server: ToolServer) -> None:
    status, reply = request(unix(server), "GET", "/admin")
    assert status == 404 and "Unknown endpoint" in reply["error"]


def test_internal_error_hides_details(
    server: ToolServer, session: FakeSession, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="bizbench.server"):
        status, reply = call(server, "crash")
    assert status == 500 and reply["success"] is False and reply["error"] == "internal_error"
    assert reply["request_id"] and "918273" not in json.dumps(reply)
    assert reply["request_id"] in caplog.text and "secret internals" in caplog.text
    assert call(server, "echo", text="ok")[0] == 200


def test_sandbox_tamper_reports(server: ToolServer, session: FakeSession) -> None:
    body = json.dumps({"kind": "import_engine", "detail": {"module": "bizbench"}}).encode()
    assert request(unix(server), "POST", "/tamper", body)[1]["success"] is True
    body = json.dumps({"kind": "Bad Kind!", "detail": "x" * 10_000}).encode()
    request(unix(server), "POST", "/tamper", body)
    (k1, d1), (k2, d2) = session.tamper
    assert (k1, d1["source"]) == ("import_engine", "sandbox") and "bizbench" in d1["detail"]
    assert k2 == "invalid_report" and len(d2["detail"]) < 2_100


# ---------------------------------------------------------------------------- shell commands
class CommandSession(FakeSession):
    """A session with a tool registry: it also takes shell commands, and has an observation."""

    registry = registry

    def observation(self) -> dict[str, Any]:
        return {"spent": self.spent, "secret": "never in the status"}


def command(srv: ToolServer, words: Any) -> tuple[int, Any]:
    return request(unix(srv), "POST", "/command", json.dumps({"words": words}).encode())


def test_command_is_parsed_by_the_server_and_run_like_a_call(tmp_path: Path) -> None:
    session = CommandSession()
    with ToolServer(session, socket_path=tmp_path / "api.sock") as srv:
        assert command(srv, ["echo", "--text", "ab", "--times", "2"]) == call(srv, "echo", text="ab", times=2)
        assert command(srv, ["spend", "--amount", "2.5"])[1]["data"] == {"spent": 2.5}
        status, reply = command(srv, ["spend", "--amount", "-1"])  # the tool's own error, as from /call
        assert status == 400 and reply["error"] == "argument 'amount': must be >= 0"
        status, reply = command(srv, ["spend", "--amount", "lots"])  # a parse error: nothing ran
        assert status == 400 and "--amount expects a number" in reply["error"] and session.spent == 2.5
        assert session.tamper == []
        status, reply = command(srv, ["rm", "-rf", "/"])
        assert status == 400 and reply["error"].startswith("Unknown command: rm -rf /. Commands: echo, spend")
        assert [(k, d["source"], d["command"]) for k, d in session.tamper] == [("unknown_tool", "server", "rm -rf /")]
        assert command(srv, ["observation"])[1]["data"] == {"spent": 2.5, "secret": "never in the status"}
        assert command(srv, ["status"])[1]["data"]["cash"] == 97.5
        status, _ = command(srv, ["finish"])
        assert status == 200 and srv.done.wait(5)  # as after /call (set once the reply is written)


def test_status_keys_limit_what_game_status_shows(tmp_path: Path) -> None:
    """cfo's cash costs a budgeted tool call: /game-status must not hand it out for free."""
    session = CommandSession()
    with ToolServer(session, socket_path=tmp_path / "api.sock", status_keys=("day",)) as srv:
        assert request(unix(srv), "GET", "/game-status")[1]["data"] == {"day": 0, "done": False}
        assert command(srv, ["status"])[1]["data"] == {"day": 0, "done": False}
        assert request(unix(srv), "GET", "/observation")[1]["data"]["spent"] == 0
        call(srv, "finish")
        assert srv.done.wait(5)  # the server itself still sees the whole status


def test_a_session_without_observation(server: ToolServer) -> None:
    status, reply = request(unix(server), "GET", "/observation")
    assert status == 404 and "no observation" in reply["error"]


@pytest.mark.parametrize(
    "body",
    [b'{"words": "echo --text a"}', b'{"words": ["echo", 3]}', b'{"words": [], "tool": "echo"}', b"[]", b"{}"],
)
def test_bad_command_requests_get_clear_errors(tmp_path: Path, body: bytes) -> None:
    with ToolServer(CommandSession(), socket_path=tmp_path / "api.sock") as srv:
        status, reply = request(unix(srv), "POST", "/command", body)
    assert status == 400 and reply["success"] is False and '{"words": ["<word>", ...]}' in reply["error"]


def test_a_session_without_a_registry_refuses_commands(server: ToolServer, session: FakeSession) -> None:
    status, reply = command(server, ["echo", "--text", "a"])
    assert status == 400 and "no shell commands" in reply["error"] and "/call" in reply["error"]
    assert session.tamper == []


# ---------------------------------------------------------------------------- concurrency
def _in_thread(fn: Any, *args: Any, **kwargs: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(fn(*args, **kwargs)), daemon=True)
    t.start()
    return t, out


def test_lock_free_tool_does_not_block_others(server: ToolServer, session: FakeSession) -> None:
    slow, slow_out = _in_thread(call, server, "query", sql="select 1")
    assert session.started.wait(10)
    assert call(server, "spend", amount=1)[0] == 200  # answered while the query is still running
    assert slow.is_alive()
    session.release.set()
    slow.join(10)
    assert slow_out[0][1]["data"] == {"rows": []}


def test_long_locked_call_does_not_block_lock_free_tool(server: ToolServer, session: FakeSession) -> None:
    slow, _ = _in_thread(call, server, "hold")
    assert session.started.wait(10)
    session.started.clear()
    session.release.set()  # the lock-free query returns at once; "hold" returns too
    assert call(server, "query", sql="x")[1]["data"] == {"rows": []}
    slow.join(10)


def test_locked_calls_are_serialised(server: ToolServer, session: FakeSession) -> None:
    slow, _ = _in_thread(call, server, "hold")
    assert session.started.wait(10)
    fast, fast_out = _in_thread(call, server, "spend", amount=2)
    fast.join(0.5)
    assert fast.is_alive() and not fast_out  # waiting for the lock
    session.release.set()
    fast.join(10)
    slow.join(10)
    assert fast_out[0][1]["data"] == {"spent": 2.0}


# ---------------------------------------------------------------------------- episode end
def test_serve_returns_after_the_ending_call_is_answered(session: FakeSession, tmp_path: Path) -> None:
    srv = ToolServer(session, socket_path=tmp_path / "api.sock").start()
    assert call(srv, "finish", mode="later")[1]["data"] == {"over": False}
    assert not srv.wait(timeout=0.2)
    client, out = _in_thread(call, srv, "finish")
    assert srv.serve(handle_signals=False) == "episode_end"
    client.join(10)
    assert out[0] == (200, {"success": True, "data": {"over": True}})
    assert not (tmp_path / "api.sock").exists()


def test_after_the_server_exits_the_sdk_and_the_shell_say_the_episode_has_ended(
    session: FakeSession, tmp_path: Path
) -> None:
    from bizbench.core.seat import seat_of

    seat = seat_of("ceo")
    ws = tmp_path / "ws"
    seat.write_workspace(ws)
    sock = seat.socket_path(ws)
    sdk = (
        f"import {seat.package} as api\n"
        "try:\n    api.call('echo', text='x')\n"
        f"except api.{seat.error} as e:\n    print(e)\n"
    )

    def answers() -> list[str]:
        """What the SDK says, finding the server by the workspace and by $..._SOCKET, and what the shell says."""
        base = {"PATH": "/usr/bin:/bin"}
        out = []
        for env in (base, {**base, f"{seat.prefix}_SOCKET": str(sock)}):
            proc = subprocess.run([sys.executable, "-c", sdk], cwd=ws, env=env, capture_output=True, text=True)
            out.append(proc.stdout.strip())
        shell = subprocess.run(
            [sys.executable, "-I", "-S", str(ws / "bin" / "bizbench"), "ceo", "--session", str(ws), "get_vars"],
            capture_output=True,
            text=True,
        )
        out.append(json.loads(shell.stdout)["error"])
        return out

    srv = ToolServer(session, socket_path=sock).start()
    client, _ = _in_thread(call, srv, "finish")
    assert srv.serve(handle_signals=False) == "episode_end"
    client.join(10)
    sdk_ws, sdk_env, shell = answers()
    assert (
        sdk_ws
        == sdk_env
        == "The episode has ended: the NovaMind API server has shut down, so no further calls are possible."
    )
    assert shell == "The episode has ended: the ceo session server has shut down, so no further commands are possible."

    srv = ToolServer(FakeSession(), socket_path=sock).start()  # a new server forgets the old end
    assert not (sock.parent / "ended.json").exists()
    srv.request_stop()
    assert srv.serve(handle_signals=False) == "signal"
    assert all("the run was stopped" in a and "has ended" in a for a in answers())


# ---------------------------------------------------------------------------- limits (issue 16)
def _connect(srv: ToolServer) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(str(srv.socket_path))
    return s


def _until_closed(socks: list[socket.socket], within_s: float = 30) -> tuple[dict[socket.socket, bytes], int]:
    """What the server sent on each socket it closed within a generous bound (one it kept open
    is missing), and the most threads this process had meanwhile."""
    received = dict.fromkeys(socks, b"")
    still_open, closed, peak = set(socks), {}, threading.active_count()
    deadline = time.monotonic() + within_s
    while still_open and time.monotonic() < deadline:
        peak = max(peak, threading.active_count())
        for s in select.select(list(still_open), [], [], 0.05)[0]:
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            received[s] += chunk
            if not chunk:
                still_open.discard(s)
                closed[s] = received[s]
    return closed, peak


def _trickle_until_dropped(s: socket.socket, within_s: float = 30) -> bool:
    """Send a byte every 0.05 s until the server closes the connection (True) or the bound passes."""
    deadline = time.monotonic() + within_s
    try:
        while time.monotonic() < deadline:
            s.send(b"X")
            if select.select([s], [], [], 0.05)[0]:
                while s.recv(65536):
                    pass
                return True
    except OSError:  # reset or broken pipe: dropped too
        return True
    return False


def test_a_flood_of_idle_connections_is_capped_refused_and_dropped(session: FakeSession, tmp_path: Path) -> None:
    """3,000 idle connections once gave the server 3,003 threads until the sandbox exited."""
    cap = 4
    srv = ToolServer(session, socket_path=tmp_path / "api.sock", max_connections=cap, header_timeout_s=3).start()
    try:
        baseline = threading.active_count()
        flood = [_connect(srv) for _ in range(cap + 50)]
        status, reply = call(srv, "echo", text="x")  # while the flood holds the cap: a clear refusal
        assert status == 503 and reply["success"] is False and reply["data"] is None
        assert reply["error"] == "Too many open connections to the server (limit 4); close idle connections and retry."
        answers, peak = _until_closed(flood)  # the refused at once, the idle after the header timeout
        assert len(answers) == cap + 50, "idle connections were kept open"
        refused = [a for a in answers.values() if a.startswith(b"HTTP/1.0 503")]
        assert len(refused) == 50 and sorted(set(answers.values()) - set(refused)) == [b""]
        assert peak <= baseline + cap
        assert call(srv, "echo", text="still here")[1]["data"] == {"text": "still here"}
        assert session.tamper == [("connection_flood", {"source": "server", "limit": cap})]  # one, not 51
    finally:
        srv.stop()


def test_a_slow_loris_client_is_dropped(session: FakeSession, tmp_path: Path) -> None:
    """A byte at a time keeps every read short; the header deadline bounds the whole request."""
    srv = ToolServer(session, socket_path=tmp_path / "api.sock", header_timeout_s=1).start()
    try:
        s = _connect(srv)
        s.sendall(b"POST /call HTTP/1.0\r\nX-Slow: ")
        assert _trickle_until_dropped(s)
        assert call(srv, "echo", text="ok")[0] == 200
    finally:
        srv.stop()


def test_a_body_that_trickles_or_stalls_is_dropped(session: FakeSession, tmp_path: Path) -> None:
    srv = ToolServer(session, socket_path=tmp_path / "api.sock", body_timeout_s=1).start()
    try:
        trickling = _connect(srv)
        trickling.sendall(b"POST /call HTTP/1.0\r\nContent-Length: 100000\r\n\r\n")
        assert _trickle_until_dropped(trickling)
        stalled = _connect(srv)
        stalled.sendall(b'POST /call HTTP/1.0\r\nContent-Length: 100\r\n\r\n{"tool": "spend"')
        answers, _ = _until_closed([stalled])
        head, _, body = answers[stalled].partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.0 408")
        assert json.loads(body)["error"] == "The request body (100 bytes) did not arrive within 1 s."
        assert session.spent == 0
    finally:
        srv.stop()


def test_request_headers_past_the_head_budget_are_refused(server: ToolServer, session: FakeSession) -> None:
    """90 headers of 2 KB each pass http.server's own limits (100 headers of 64 KB: 6.5 MB a connection)."""
    body = json.dumps({"tool": "spend", "args": {"amount": 1}}).encode()
    pad = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"p" * 2_000) for i in range(90))
    s = _connect(server)
    with contextlib.suppress(OSError):  # the server may answer and close before it has all of it
        s.sendall(b"POST /call HTTP/1.0\r\n" + pad + b"Content-Length: %d\r\n\r\n" % len(body) + body)
    answers, _ = _until_closed([s])
    assert answers[s] == b"" or answers[s].startswith(b"HTTP/1.0 431")
    assert session.spent == 0
    assert call(server, "spend", amount=1)[1]["data"] == {"spent": 1.0}


def test_a_long_tool_call_outlives_the_request_timeouts(session: FakeSession, tmp_path: Path) -> None:
    """The timeouts bound reading the request, never the tool's own work (ceo's next_week may take minutes)."""
    srv = ToolServer(session, socket_path=tmp_path / "api.sock", header_timeout_s=0.2, body_timeout_s=0.2).start()
    try:
        slow, out = _in_thread(call, srv, "hold")
        assert session.started.wait(10)
        threading.Event().wait(1.0)  # five times both timeouts
        session.release.set()
        slow.join(10)
        assert out == [(200, {"success": True, "data": {"held": True}})]
    finally:
        srv.stop()


def test_limits_must_be_positive(session: FakeSession, tmp_path: Path) -> None:
    for bad in ({"max_connections": 0}, {"header_timeout_s": 0}, {"body_timeout_s": -1}):
        with pytest.raises(ValueError, match="max_connections must be >= 1 and the timeouts > 0"):
            ToolServer(session, socket_path=tmp_path / "api.sock", **bad)


# ---------------------------------------------------------------------------- SDK generation
RUNTIME = '''"""Test runtime: records calls instead of sending them."""
__all__ = ["APIError", "call"]
CALLS = []


class APIError(Exception):
    pass


def call(tool, /, **args):
    CALLS.append((tool, args))
    return {"tool": tool, "args": args}


def install_guard():
    pass
'''


def test_python_type() -> None:
    assert python_type({"type": "integer"}) == "int"
    assert python_type({"anyOf": [{"type": "null"}, {"type": "number"}]}) == "float | None"
    assert python_type({"type": "object", "additionalProperties": {"type": "number"}}) == "dict[str, float]"
    assert python_type({"type": "array", "items": {"type": "string"}}) == "list[str]"
    assert python_type({"enum": ["a", "b"], "type": "string"}) == 'Literal["a", "b"]'
    assert python_type({"$ref": "#/$defs/X"}, {"X": {"type": "object", "properties": {"a": {}}}}) == "dict"


def test_generated_sdk_matches_registry(tmp_path: Path) -> None:
    files = write_sdk(tmp_path, registry, "fake_api", "# Fake\n", runtime_source=RUNTIME, runtime_dir=".fake")
    assert (tmp_path / "fake_api" / "_runtime.py").read_text() == RUNTIME
    assert (tmp_path / ".fake" / "site" / "sitecustomize.py").exists()
    assert (tmp_path / "docs" / "README.md").read_text() == "# Fake\n"
    assert json.loads((tmp_path / "docs" / "tools" / "echo.json").read_text())["name"] == "echo"
    assert "### `spend`" in (tmp_path / "docs" / "tools.md").read_text()
    assert all(p.is_relative_to(tmp_path) for p in files.files)
    probe = (
        "import inspect, json, fake_api as m\n"
        "out = {n: [[p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]\n"
        "       for p in inspect.signature(getattr(m, n)).parameters.values()] for n in m.__all__ if n != 'APIError'}\n"
        "out['__doc__spend'] = m.spend.__doc__\n"
        "out['__call__'] = [m.spend(3), m.echo('x', times=2)]\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    got = json.loads(proc.stdout)
    for spec in registry.specs():
        want = [[p.name, "POSITIONAL_OR_KEYWORD", None if p.required else repr(p.default)] for p in spec.params]
        assert got[spec.name] == want, spec.name
    assert "Spend money." in got["__doc__spend"] and "amount: Dollars (>= 0)." in got["__doc__spend"]
    assert got["__call__"] == [
        {"tool": "spend", "args": {"amount": 3, "note": None}},
        {"tool": "echo", "args": {"text": "x", "times": 2}},
    ]


def test_generated_sdk_is_deterministic_and_ruff_clean(tmp_path: Path) -> None:
    a = generate_init(registry, "fake_api", RUNTIME, "Fake API")
    assert a == generate_init(registry, "fake_api", RUNTIME, "Fake API")
    compile(a, "fake_api/__init__.py", "exec")
    ruff = Path(sys.executable).parent / "ruff"
    if ruff.exists():
        (tmp_path / "gen.py").write_text(a)
        opts = ["--isolated", "--line-length", "120"]
        check = subprocess.run([str(ruff), "check", *opts, "--select", "E,F,W,I,B,UP", str(tmp_path / "gen.py")])
        fmt = subprocess.run([str(ruff), "format", *opts, "--check", str(tmp_path / "gen.py")])
        assert check.returncode == 0 and fmt.returncode == 0


def test_generator_refuses_clashing_names() -> None:
    reg = ToolRegistry()

    @reg.tool
    def call(ctx: Any) -> None:
        """Clashes with the runtime's call()."""

    with pytest.raises(ValueError, match="clashes"):
        generate_init(reg, "fake_api", RUNTIME)
    with pytest.raises(ValueError, match="install_guard"):
        generate_init(registry, "fake_api", "def call(tool, /, **a):\n    pass\n")


def test_a_keyword_tool_gets_a_trailing_underscore() -> None:
    """cfo's action ``pass``: the function ``pass_()`` calls the tool ``pass``."""
    reg = ToolRegistry()

    @reg.tool(name="pass")
    def pass_month(ctx: Any) -> None:
        """Do nothing."""

    src = generate_init(reg, "fake_api", RUNTIME)
    assert "def pass_() -> Any:" in src and 'return _call("pass")' in src and '"pass_",' in src
    compile(src, "fake_api/__init__.py", "exec")


def test_signature_of_generated_function_in_process(tmp_path: Path) -> None:
    """The same drift check without a subprocess: exec the generated module with a stub runtime."""
    src = generate_init(registry, "fake_api", RUNTIME)
    src = src.replace("from ._runtime import", "from fake_runtime_stub import")
    stub = type(sys)("fake_runtime_stub")
    exec(compile(RUNTIME, "stub", "exec"), stub.__dict__)
    sys.modules["fake_runtime_stub"] = stub
    try:
        ns: dict[str, Any] = {}
        exec(compile(src, "fake_api", "exec"), ns)
    finally:
        del sys.modules["fake_runtime_stub"]
    sig = inspect.signature(ns["echo"])
    assert list(sig.parameters) == ["text", "times"] and sig.parameters["times"].default == 1


def _snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file and directory below ``root`` with its content, mode and mtime."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(root))] = (p.read_bytes() if p.is_file() else b"", st.st_mode, st.st_mtime_ns)
    return out


def test_write_sdk_never_follows_planted_symlinks(tmp_path: Path) -> None:
    """A previous agent owned the workspace; root regenerates the SDK there."""
    ws, host = tmp_path / "ws", tmp_path / "host"
    for d in ("tools_dir", "pkg_dir", "runtime_dir"):
        (host / d).mkdir(parents=True)
        (host / d / "important.json").write_text("{}")
        (host / d / "__init__.py").write_text("keep")
    (host / "secret.md").write_text("host file")
    (ws / "docs").mkdir(parents=True)
    os.symlink(host / "tools_dir", ws / "docs" / "tools")
    os.symlink(host / "secret.md", ws / "docs" / "tools.md")
    os.symlink(host / "pkg_dir", ws / "fake_api")
    os.symlink(host / "runtime_dir", ws / ".fake")
    os.link(host / "secret.md", ws / "docs" / "README.md")  # a hard link is replaced, not written through
    before = _snapshot(host)
    files = write_sdk(
        ws, registry, "fake_api", "# Fake\n", runtime_source=RUNTIME, runtime_dir=".fake", extra_docs=[("x.md", "x")]
    )
    assert _snapshot(host) == before
    for rel in ("docs/tools", "fake_api", ".fake", ".fake/site"):
        assert (ws / rel).is_dir() and not (ws / rel).is_symlink(), rel
    for p in files.files:
        assert p.is_file() and not p.is_symlink() and p.resolve().is_relative_to(ws.resolve()), p
    assert (ws / "docs" / "tools.md").read_text().startswith("#") and (
        ws / "docs" / "README.md"
    ).read_text() == "# Fake\n"
    assert sorted(os.listdir(ws / "docs" / "tools")) == sorted(f"{n}.json" for n in registry.names())


def test_write_sdk_cleans_the_runtime_dir_and_refuses_escaping_docs(tmp_path: Path) -> None:
    ws, host = tmp_path / "ws", tmp_path / "host"
    (ws / ".fake").mkdir(parents=True)
    (ws / ".fake").chmod(0o777)
    host.mkdir()
    (host / "conn.json").write_text("host")
    os.symlink(host / "conn.json", ws / ".fake" / "connection.json")
    os.symlink(host, ws / ".fake" / "site")
    (ws / "docs" / "tools").mkdir(parents=True)
    (ws / "docs" / "tools" / "gone.json").write_text("{}")  # stale: no such tool
    (ws / "docs" / "tools" / "stale_dir.json").mkdir()
    write_sdk(ws, registry, "fake_api", runtime_source=RUNTIME, runtime_dir=".fake")
    assert sorted(os.listdir(host)) == ["conn.json"] and (host / "conn.json").read_text() == "host"
    assert not (ws / ".fake" / "connection.json").exists() and not (ws / ".fake" / "site").is_symlink()
    assert (ws / ".fake").stat().st_mode & 0o022 == 0
    assert sorted(os.listdir(ws / "docs" / "tools")) == sorted(f"{n}.json" for n in registry.names())
    for bad in ("../escape.md", "/etc/x.md", "a/../../b.md"):
        with pytest.raises(ValueError, match="escapes"):
            write_sdk(ws, registry, "fake_api", runtime_source=RUNTIME, runtime_dir=".fake", extra_docs=[(bad, "x")])
    assert not (tmp_path / "escape.md").exists()
