"""The ceo seat: the ``novamind_api`` SDK and ``bizbench ceo --session /workspace`` (docs/ceo-seat.md).

A declaration for :mod:`bizbench.core.seat`, which generates the workspace from the tool
registry: ``novamind_api/`` (one function per tool; ``nm.NovaMindAPIError``), ``bin/bizbench``,
``docs/`` (``README.md`` opens with this package's ``README.md``; the env's public documents
from :mod:`bizbench.envs.ceo.workspace`: instructions, tables, the day-0 channel table) and
``.novamind/`` (the socket, connection.json). ``bizbench serve ceo`` serves a session there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizbench.core.seat import Seat

__all__ = ["SEAT", "sandbox_options", "socket_path", "write_workspace"]

_HERE = Path(__file__).resolve().parent


def _readme(config: Any) -> str:
    return (_HERE / "README.md").read_text(encoding="utf-8")


def _instructions(config: Any, prefix: str) -> str:  # noqa: ARG001 - the ceo prompt names the SDK itself
    from bizbench.envs.ceo.prompt import system_prompt

    return system_prompt(config, sdk=True)


def _documents(config: Any) -> dict[str, str]:
    from bizbench.envs.ceo.workspace import workspace_documents

    return {rel.removeprefix("docs/"): text for rel, text in workspace_documents(config).items()}


SEAT = Seat(
    env="ceo",
    package="novamind_api",
    title="NovaMind API",
    runtime_dir=".novamind",
    error="NovaMindAPIError",
    readme=_readme,
    instructions=_instructions,
    documents=_documents,
    tool_timeouts={"next_week": 1800.0},  # simulating a week of a large market can take minutes
    example="get_vars",
)

socket_path = SEAT.socket_path
sandbox_options = SEAT.sandbox_options
write_workspace = SEAT.write_workspace
