"""The web app of ``bizbench play``: one :class:`~bizbench.play.game.Game` behind a page on loopback.

A Starlette app served by uvicorn on ``127.0.0.1`` (docs/play.md, "The page and its API"):
``/`` is the page (``static/index.html``, plain HTML/JS/CSS shipped with the package: it works
offline and asks nothing of any other address), ``/api/*`` the game as JSON.

Only the person who started the game can play it: every API request carries the game's token
(``X-Bizbench-Token``, given once in the printed URL), compared in constant time; a request
whose ``Host`` is not this loopback address and port is refused (a web page elsewhere cannot
reach the game by DNS rebinding); bodies are JSON objects of at most :data:`MAX_BODY_BYTES`; every
response forbids framing and any request beyond the page's own origin (Content-Security-Policy).
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bizbench.core.jsonio import json_default
from bizbench.play.game import Game

__all__ = ["MAX_BODY_BYTES", "PlayServer", "make_app"]

#: the largest request body (a tool's arguments are refused past 256 KiB by the registry anyway)
MAX_BODY_BYTES = 1 << 20
TOKEN_HEADER = "x-bizbench-token"
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
STATIC = resources.files("bizbench.play") / "static"


class _Json(JSONResponse):
    """JSON of tool data (numpy scalars and the like written as plain values)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, default=json_default, ensure_ascii=False).encode("utf-8")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def make_app(game: Game, token: str, hosts: set[str]) -> Starlette:
    """The app of ``game``: API requests need ``token``; every request a ``Host`` in ``hosts``."""

    async def page(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"))

    async def read_body(request: Request) -> dict[str, Any] | Response:
        too_big = _Json({"ok": False, "error": f"the request body is over {MAX_BODY_BYTES:,} bytes"}, 413)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return too_big
        body = bytearray()
        async for chunk in request.stream():  # read no further than the limit, whatever was declared
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                return too_big
        try:
            data = json.loads(bytes(body) or b"{}", parse_constant=_no_constant)
            json.dumps(data, ensure_ascii=False).encode("utf-8")  # a lone surrogate cannot be answered
        except (ValueError, UnicodeError, RecursionError):
            return _Json({"ok": False, "error": "the request body is not JSON (strict: UTF-8, no NaN)"}, 400)
        if not isinstance(data, dict):
            return _Json({"ok": False, "error": "the request body must be a JSON object"}, 400)
        return data

    def post(act: Callable[[dict[str, Any]], Any]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            data = await read_body(request)
            if isinstance(data, Response):
                return data
            reply = await run_in_threadpool(act, data)
            return reply if isinstance(reply, Response) else _Json(reply)

        return endpoint

    def call(data: dict[str, Any]) -> Any:
        tool, args = data.get("tool"), data.get("args", {})
        if not isinstance(tool, str) or not isinstance(args, dict) or set(data) - {"tool", "args"}:
            return _Json({"ok": False, "error": 'the body must be {"tool": "<name>", "args": {...}}'}, 400)
        return game.call(tool, args)

    def end_turn(data: dict[str, Any]) -> Any:
        return game.end_turn()

    def memory(data: dict[str, Any]) -> Any:
        return game.save_memory(data.get("text"))

    def finish(data: dict[str, Any]) -> Any:
        return {"ok": True, "result": game.stop()}

    def info(request: Request) -> Response:  # a plain function: Starlette runs it in its threadpool
        return _Json(game.info())

    def state(request: Request) -> Response:
        return _Json(game.state())

    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if request.headers.get("host", "") not in hosts:
            response: Response = _Json({"ok": False, "error": "this game is served to its own address only"}, 403)
        elif request.url.path.startswith("/api/") and not secrets.compare_digest(
            request.headers.get(TOKEN_HEADER, "").encode("utf-8", "surrogateescape"), token.encode()
        ):
            response = _Json({"ok": False, "error": "missing or wrong game token (open the URL bizbench printed)"}, 403)
        else:
            response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/game", info),
            Route("/api/state", state),
            Route("/api/call", post(call), methods=["POST"]),
            Route("/api/end-turn", post(end_turn), methods=["POST"]),
            Route("/api/memory", post(memory), methods=["POST"]),
            Route("/api/finish", post(finish), methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(STATIC), check_dir=False), name="static"),
        ],
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=guard)],
    )


class PlayServer:
    """The app of a game on a loopback port (0: a free one), its URL carrying the token."""

    def __init__(self, game: Game, port: int = 0, host: str = "127.0.0.1") -> None:
        self.game = game
        self.token = secrets.token_urlsafe(24)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.socket.listen(64)  # a page opened as soon as the URL is printed waits for the server
        self.port = self.socket.getsockname()[1]
        hosts = {f"{name}:{self.port}" for name in (host, "localhost")}
        self.app = make_app(game, self.token, hosts)
        self.url = f"http://{host}:{self.port}/?t={self.token}"
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C)."""
        self.server.run(sockets=[self.socket])

    def start(self) -> PlayServer:
        """Serve from a thread (tests, notebooks); :meth:`stop` ends it."""
        self._thread = threading.Thread(target=self.run, name="bizbench-play", daemon=True)
        self._thread.start()
        while not self.server.started and self._thread.is_alive():
            self._thread.join(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.socket.close()
