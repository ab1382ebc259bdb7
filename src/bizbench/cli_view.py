"""``bizbench view RUN [RUN...] -o DIR``: the static HTML trajectory viewer (docs/viewer.md).

Module-level imports are typer and rich only; the viewer is imported inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

__all__ = ["view"]


def view(
    runs: Annotated[list[Path], typer.Argument(metavar="RUN", help="Run directories; several are shown side by side.")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="Directory to write index.html into.")],
    max_text: Annotated[
        int, typer.Option("--max-text", help="Characters kept of each text of an event (a reply, arguments, a result).")
    ] = 4096,
) -> None:
    """Write a self-contained HTML page (DIR/index.html) to browse runs period by period."""
    from bizbench.report.viewer import ViewerError, write_viewer

    err = Console(stderr=True)
    try:
        index = write_viewer(runs, out, text_cap=max_text)
    except ViewerError as e:
        err.print(str(e), style="red", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    except (KeyError, TypeError, ValueError) as e:  # a hand-edited or damaged run directory
        err.print(f"cannot read the runs: {type(e).__name__}: {e}", style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    size = index.stat().st_size
    message = f"wrote {index} ({size / 1024:,.0f} KB); open it in a browser (no server needed)"
    Console().print(message, markup=False, highlight=False, soft_wrap=True)
