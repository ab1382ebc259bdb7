"""A served seat driven from inside the sandbox, each answer checked against a mirror env
that runs the same command in this process (docs/seats.md): the shared part of the seat
isolation tests of every env (tests/cfo/test_cfo_seat.py, tests/yc/test_shell_isolation.py)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.cmdline import parse_command
from bizbench.core.errors import ToolError
from bizbench.core.sandbox import run_in_sandbox
from bizbench.core.seat import seat_of
from bizbench.core.server import json_default

#: commands the server answers from its session, not from a tool the mirror could run
UNMIRRORED = ("status",)


def plain(value: Any) -> Any:
    """``value`` as it comes back through the seat's JSON."""
    return json.loads(json.dumps(value, default=json_default))


@dataclass
class SandboxedSeat:
    """A seat served for ``env_id`` at ``ws`` (recording into ``run``) and its mirror env."""

    env_id: str
    ws: Path
    run: Path
    proc: subprocess.Popen[bytes]
    mirror: Any
    replies: list[str] = field(default_factory=list)

    def sandbox(self, argv: list[str], timeout: float = 60) -> Any:
        options = seat_of(self.env_id).sandbox_options()
        r = run_in_sandbox(self.ws, argv, timeout, output_limit=10_000_000, **options)
        assert not r.timed_out
        self.replies += [r.stdout, r.stderr]
        return r

    def command(self, *words: str) -> tuple[int, Any]:
        """One command in the sandbox; its answer must equal the mirror's (which runs it too)."""
        r = self.sandbox(["bizbench", self.env_id, "--session", "/workspace", *words])
        lines = r.stdout.strip().splitlines()
        assert len(lines) == 1 and r.stderr == "", (r.stdout, r.stderr)  # exactly one JSON document
        out = json.loads(lines[0])
        assert r.returncode == (1 if isinstance(out, dict) and set(out) == {"error"} else 0), (r.returncode, out)
        if list(words) == ["observation"]:
            assert out == plain(self.mirror.observation())
        elif words[:2] != ("sim", "init") and " ".join(words) not in UNMIRRORED:
            assert out == self.expected(list(words)), words
        return r.returncode, out

    def expected(self, words: list[str]) -> Any:
        try:
            name, args = parse_command(self.mirror.registry.parameter_schemas(), words)
        except ToolError as e:
            if e.tamper:
                self.mirror.log_tamper(e.tamper, {})
            return {"error": str(e)}
        result = self.mirror.call_tool(name, args)
        return plain(result.data) if result.ok else {"error": result.error}
