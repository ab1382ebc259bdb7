"""One episode of any registered env as an MCP server (docs/interfaces.md, MCP; ``bizbench mcp ENV``).

:class:`EpisodeServer` puts one :class:`~bizbench.interfaces.episode.ToolEpisode` behind the
MCP SDK's low-level server, so what a client sees is the env's registry as it is:

- **tools**: every tool of the registry with its description and its JSON Schema as the
  ``inputSchema``; ``readOnlyHint`` from the tool's ``mutates``, ``openWorldHint`` false (the
  world is the simulation). A refused call (unknown tool, bad arguments, a rule of the world,
  a call after the end) is a normal ``CallToolResult`` with ``isError`` and the env's message,
  never a protocol error (docs/principles.md principle 8). The call that ends the episode
  (horizon, bankruptcy, a step limit) says so in its result, and the run is finished then;
- **resources**: the env's public documents: its instructions, its tool reference, the
  observation a player sees now, and the documents a seated agent finds in its workspace
  (docs/seats.md);
- **prompts**: the env's instructions (also the server's ``instructions``).

The world runs in the server process: the seed, the config and the secret never reach the
client (principle 3). The run (``out``) is finished when the episode ends, and otherwise when
the client disconnects (``ended_by: client_disconnected``) or the server is stopped
(``server_stopped``). :func:`serve_stdio` and :func:`serve_http` serve one episode;
:func:`stdio_client` opens an SDK client on a ``bizbench mcp`` subprocess (benchmarks, tests).
"""

from __future__ import annotations

import logging
import mimetypes
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.types as types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from bizbench import __version__
from bizbench.core.seat import seat_of
from bizbench.interfaces.episode import ToolEpisode

__all__ = [
    "CLIENT_DISCONNECTED",
    "PROMPT",
    "SERVER_STOPPED",
    "EpisodeServer",
    "serve_http",
    "serve_stdio",
    "stdio_client",
    "stdio_parameters",
]

CLIENT_DISCONNECTED = "client_disconnected"
SERVER_STOPPED = "server_stopped"
#: the name of the one prompt: the env's instructions
PROMPT = "instructions"
#: where the streamable-HTTP server answers
HTTP_PATH = "/mcp"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Document:
    """One public document served as a resource."""

    name: str
    description: str
    text: str

    @property
    def mime_type(self) -> str:
        return mimetypes.guess_type(self.name)[0] or "text/plain"


class EpisodeServer:
    """An MCP server (``.server``, the SDK's low-level :class:`~mcp.server.lowlevel.Server`) for
    ``episode``. ``close_reason``: the ``ended_by`` of a run that is still going when the server's
    lifespan ends (stdio, in memory: the client disconnected; HTTP: the server stopped)."""

    def __init__(self, episode: ToolEpisode, close_reason: str = CLIENT_DISCONNECTED) -> None:
        self.episode = episode
        self.close_reason = close_reason
        spec = episode.spec
        self.uri_root = f"bizbench://{spec.id}/"
        self.documents = self._documents()
        self.server: Server[Any] = Server(
            f"bizbench-{spec.id}",
            version=__version__,
            title=spec.title,
            description=spec.description,
            instructions=episode.system_prompt(),
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_read_resource=self._read_resource,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
        )

    def close(self, ended_by: str | None = None) -> dict[str, Any]:
        """Finish the run once (later calls return its result): as the episode ended if it has,
        else with ``ended_by`` (default: ``close_reason``)."""
        return self.episode.finish(ended_by or self.close_reason)

    @asynccontextmanager
    async def _lifespan(self, _server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            self.close()

    # ------------------------------------------------------------------ tools
    async def _list_tools(self, _ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = [
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.input_schema,
                annotations=types.ToolAnnotations(read_only_hint=not tool.mutates, open_world_hint=False),
            )
            for tool in self.episode.tools()
        ]
        return types.ListToolsResult(tools=tools)

    async def _call_tool(self, _ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = self.episode.call(params.name, params.arguments)
        content: list[types.ContentBlock] = [types.TextContent(text=answer.text)]
        if self.episode.finished:
            content.append(types.TextContent(text=self.episode.end_notice()))
        return types.CallToolResult(content=content, is_error=not answer.ok)

    # ------------------------------------------------------------------ resources
    def _documents(self) -> dict[str, Document]:
        """The public documents by URI: instructions, tool reference and the seat's documents."""
        episode = self.episode
        docs = [
            Document("instructions.md", "The env's instructions for an agent (the prompt).", episode.system_prompt()),
            Document("tools.md", "Every tool, its arguments and their ranges.", episode.tool_reference()),
        ]
        seat = seat_of(episode.spec) if episode.spec.seat else None
        if seat is not None and seat.documents is not None:
            for path, text in sorted(seat.documents(episode.env.config).items()):
                docs.append(Document(f"docs/{path}", "A document of a seated agent's workspace.", text))
        return {self.uri_root + doc.name: doc for doc in docs}

    @property
    def observation_uri(self) -> str:
        return self.uri_root + "observation.json"

    async def _list_resources(
        self, _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        resources = [
            types.Resource(
                uri=self.observation_uri,
                name="observation.json",
                description="What a player sees now (the status at the turn boundary).",
                mime_type="application/json",
            )
        ]
        resources += [
            types.Resource(uri=uri, name=doc.name, description=doc.description, mime_type=doc.mime_type)
            for uri, doc in self.documents.items()
        ]
        return types.ListResourcesResult(resources=resources)

    async def _read_resource(self, _ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if params.uri == self.observation_uri:
            text, mime_type = self.episode.observation_text(), "application/json"
        elif params.uri in self.documents:
            doc = self.documents[params.uri]
            text, mime_type = doc.text, doc.mime_type
        else:
            known = ", ".join([self.observation_uri, *self.documents])
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {params.uri!r} (available: {known})")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=mime_type, text=text)]
        )

    # ------------------------------------------------------------------ prompts
    async def _list_prompts(self, _ctx: Any, _params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        spec = self.episode.spec
        return types.ListPromptsResult(prompts=[types.Prompt(name=PROMPT, description=f"Play {spec.title}.")])

    async def _get_prompt(self, _ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name!r} (available: {PROMPT})")
        message = types.PromptMessage(role="user", content=types.TextContent(text=self.episode.system_prompt()))
        return types.GetPromptResult(description=f"Play {self.episode.spec.title}.", messages=[message])


# ---------------------------------------------------------------------------- serving
def serve_stdio(episode: ToolEpisode) -> dict[str, Any]:
    """Serve ``episode`` over stdin/stdout until the client disconnects (or SIGINT/SIGTERM);
    result.json's content. Nothing but the protocol reaches stdout (the SDK points fd 1 at
    stderr while it serves)."""
    door = EpisodeServer(episode, CLIENT_DISCONNECTED)

    async def serve() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_stop_on_signal, door)
            async with stdio_server() as (read, write):
                await door.server.run(read, write, door.server.create_initialization_options())
            tasks.cancel_scope.cancel()

    anyio.run(serve)
    return door.close()


async def _stop_on_signal(door: EpisodeServer) -> None:
    """On SIGINT/SIGTERM: finish the run (``server_stopped``) between two requests, then exit at
    once, as the process would without this handler: the SDK's stdin reader is a thread that
    no cancellation reaches while the client keeps stdin open."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            result = door.close(SERVER_STOPPED)
            logger.info("stopped by signal %d (%s)", signum, result["ended_by"])
            logging.shutdown()
            os._exit(0)


def serve_http(
    episode: ToolEpisode, port: int, host: str = "127.0.0.1", on_listen: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Serve ``episode`` over streamable HTTP at ``http://HOST:PORT/mcp`` (port 0: a free one)
    until SIGINT/SIGTERM; clients may come and go, the episode stays. ``on_listen(url)`` is
    called once the socket listens. Returns result.json's content."""
    import uvicorn

    door = EpisodeServer(episode, SERVER_STOPPED)
    app = door.server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen()  # a client that connects now waits until uvicorn accepts
    bound = sock.getsockname()[1]
    url = f"http://{f'[{host}]' if family == socket.AF_INET6 else host}:{bound}{HTTP_PATH}"
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    if on_listen is not None:
        on_listen(url)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return door.close()


# ---------------------------------------------------------------------------- clients
def stdio_parameters(env_id: str, seed: int, **options: Any) -> StdioServerParameters:
    """How to start ``bizbench mcp ENV --seed N ...`` with this Python and this process's
    environment (so plug-in envs and ``$BIZBENCH_SEED_SECRET`` carry over). ``options`` are the
    command's by their Python names (``horizon=2``, ``out=...``, ``max_steps=5``); None leaves
    one out."""
    args = ["-m", "bizbench.entry", "mcp", env_id, "--seed", str(seed)]
    for name, value in options.items():
        args += [f"--{name.replace('_', '-')}", str(value)] if value is not None else []
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))


def stdio_client(env_id: str, seed: int, **options: Any) -> Client:
    """An MCP SDK client on a fresh ``bizbench mcp`` subprocess (options: :func:`stdio_parameters`'):
    ``async with stdio_client(env_id, seed) as client: await client.call_tool(name, args)``. The
    server's stderr goes to this process's stderr."""
    return Client(sdk_stdio_client(stdio_parameters(env_id, seed, **options)))
