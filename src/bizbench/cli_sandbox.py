"""``bizbench sandbox WORKSPACE -- CMD...``: an agent's process in the sandbox of a served seat (docs/agents.md).

The sandbox (:func:`bizbench.core.sandbox.run_in_sandbox` with the seat's ``sandbox_options``,
docs/seats.md "The sandbox") shows the process the workspace at /workspace and nothing else of
the host: not the run directory, not the server's process or its command line (docs/principles.md
principle 3). :class:`AgentProcess` is also the agent side of ``bizbench serve ENV ... --exec CMD``
(:mod:`bizbench.cli_seat`). Module-level imports are typer and rich only.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from bizbench.cli_seat import DEFAULT_TIMEOUT_S, _fail, err_console

if TYPE_CHECKING:
    from bizbench.core.sandbox import SandboxResult
    from bizbench.core.seat import Seat

__all__ = ["AgentProcess", "sandbox", "sandbox_refusal", "served_seat"]

#: characters of each output stream kept (first and last halves): a longer log belongs in a
#: file of the workspace (docs/agents.md)
OUTPUT_LIMIT = 1_000_000
TIMED_OUT = 124  # the exit status after --timeout, as timeout(1)


def sandbox_refusal(what: str) -> str | None:
    """Why ``what`` cannot run in the sandbox on this host (the sandbox's own reason), or None."""
    from bizbench.core import sandbox

    reason = sandbox.sandbox_unavailable_reason()
    return None if reason is None else f"{what} runs the agent in the sandbox, which is unavailable here: {reason}"


def served_seat(workspace: Path) -> Seat:
    """The seat a running ``bizbench serve`` wrote into ``workspace``; ValueError saying what is missing.

    A seat's marker counts only as a regular file of this user: the sandboxed agent (another uid)
    can plant a directory in the workspace, never the server's marker."""
    from stat import S_ISREG

    from bizbench.core.envs import list_envs
    from bizbench.core.seat import MARKER, seat_of
    from bizbench.core.server import ENDED_NAME

    found = []
    for spec in list_envs():
        if spec.seat is None:
            continue
        seat = seat_of(spec)
        try:
            st = (workspace / seat.runtime_dir / MARKER).lstat()
        except OSError:
            continue
        if S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
            found.append(seat)
    if not found:
        raise ValueError(
            f"{workspace} is not a served workspace (no seat's {MARKER} in it): start `bizbench serve ENV "
            f"--workspace {workspace}` first, or serve and run the agent in one go with `bizbench serve ... --exec CMD`"
        )
    if len(found) > 1:
        raise ValueError(f"{workspace} holds the seats of several envs ({', '.join(s.env for s in found)})")
    seat = found[0]
    socket = seat.socket_path(workspace)
    if (socket.parent / ENDED_NAME).exists():
        raise ValueError(f"the episode served in {workspace} has ended ({seat.runtime_dir}/{ENDED_NAME})")
    if not socket.exists():
        raise ValueError(f"no server is serving {workspace} (no {seat.runtime_dir}/{socket.name}): start it first")
    return seat


class AgentProcess:
    """``argv`` in the sandbox of ``seat``'s workspace, on a thread of its own.

    ``on_exit`` is called once the process has ended (its own exit, its timeout, or :meth:`stop`).
    """

    def __init__(
        self,
        workspace: Path,
        seat: Seat,
        argv: list[str],
        timeout_s: float,
        on_exit: Callable[[], None] = lambda: None,
    ) -> None:
        self.workspace, self.seat, self.argv, self.timeout_s = workspace, seat, argv, timeout_s
        self.result: SandboxResult | None = None
        self.error: str | None = None  # the sandbox could not be set up
        self._on_exit = on_exit
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="agent-sandbox", daemon=True)

    def _run(self) -> None:
        from bizbench.core.sandbox import SandboxError, run_in_sandbox

        try:
            options: dict[str, Any] = self.seat.sandbox_options()
            self.result = run_in_sandbox(
                self.workspace, self.argv, self.timeout_s, OUTPUT_LIMIT, stop=self._stop, **options
            )
        except (SandboxError, OSError, ValueError) as e:
            self.error = str(e)
        finally:
            self._on_exit()

    def start(self) -> AgentProcess:
        self._thread.start()
        return self

    @property
    def exited(self) -> bool:
        """True once the process has ended."""
        return not self._thread.is_alive()

    def stop(self) -> None:
        """End the process now, if it still runs: its sandbox (and every process in it) is killed."""
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join()

    def ended_by(self) -> str:
        """result.json's ``ended_by`` when the agent's exit ended the seat (docs/agents.md)."""
        if self.result is None:
            return "harness_error"
        if self.result.timed_out:
            return "agent_timeout"
        return "agent_exit" if self.result.returncode == 0 else "agent_error"

    def report(self) -> int:
        """Write the process's output (stdout, stderr) and what ended it; return its exit status."""
        if self.result is None:
            err_console.print(f"the sandbox failed: {self.error}", style="red", markup=False, highlight=False)
            return 2
        sys.stdout.write(self.result.stdout)
        sys.stdout.flush()
        sys.stderr.write(self.result.stderr)
        if self.result.timed_out:
            err_console.print(f"the agent's process was killed at its time limit ({self.timeout_s:g} s)", markup=False)
            return TIMED_OUT
        code = self.result.returncode
        if code:
            said = f"exited with status {code}" if code > 0 else f"was killed (signal {-code})"
            err_console.print(f"the agent's process {said}", markup=False, highlight=False)
        return code if code >= 0 else 128 - code


def sandbox(
    workspace: str = typer.Argument(..., help="A workspace that `bizbench serve ENV --workspace` is serving."),
    command: list[str] = typer.Argument(..., metavar="-- CMD...", help="The agent's command and its arguments."),
    timeout: float = typer.Option(DEFAULT_TIMEOUT_S, min=1, help="Seconds before the sandbox is killed."),
) -> None:
    """Run CMD in the sandbox of a served workspace: the workspace at /workspace, the seat's SDK
    and `bizbench ENV --session /workspace` on hand, no network, nothing else of the host.

    Options go before WORKSPACE. Exits with CMD's status (124 after --timeout); its output is
    printed when it ends (each stream's first and last 500,000 characters)."""
    argv = command[1:] if command[:1] == ["--"] else command
    if not argv:
        raise _fail("give the command after --: bizbench sandbox WORKSPACE -- CMD...")
    refusal = sandbox_refusal("bizbench sandbox")
    if refusal:
        raise _fail(refusal)
    ws = Path(workspace).absolute()
    try:
        seat = served_seat(ws)
    except ValueError as e:
        raise _fail(str(e)) from None
    ended = threading.Event()  # the agent exited
    stop_asked: list[int] = []  # a stop request, by signal: a handler takes no lock (the Event's may be held)
    for sig in (signal.SIGINT, signal.SIGTERM):  # a stop request ends the sandbox too
        signal.signal(sig, lambda signum, _: stop_asked.append(signum))
    agent = AgentProcess(ws, seat, argv, timeout, on_exit=ended.set).start()
    while not (stop_asked or ended.wait(0.1)):
        pass
    agent.stop()
    raise typer.Exit(agent.report())
