"""The ``bizbench`` command line.

Keep module-level imports light (typer, rich): heavy ones (numpy, matplotlib, env
packages, model clients) go inside the command functions so ``bizbench --help`` is fast.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="bizbench",
    help="Long-horizon business simulations for evaluating LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
console = Console()
err_console = Console(stderr=True)


def _config_model(env_id: str, package: str) -> Any | None:
    """The env's config model by convention ``<package>.config:<Id>Config``, or None."""
    try:
        mod = importlib.import_module(f"{package}.config")
    except Exception:  # noqa: BLE001 - env not installed or not importable yet
        return None
    return getattr(mod, f"{env_id.capitalize()}Config", None)


# ---------------------------------------------------------------------------- info commands
@app.command()
def envs() -> None:
    """List the registered environments."""
    from bizbench.core.envs import list_envs

    table = Table(title="bizbench environments")
    table.add_column("id", style="bold cyan")
    table.add_column("title")
    table.add_column("description")
    table.add_column("package", style="dim")
    for spec in list_envs():
        table.add_row(spec.id, spec.title, spec.description, spec.package)
    console.print(table)


@app.command()
def presets(env: str = typer.Argument(..., help="Env id, e.g. 'ceo'.")) -> None:
    """List the presets of an environment (with descriptions when the config loads)."""
    from bizbench.core.envs import get_env
    from bizbench.core.presets import list_presets, load_preset

    try:
        spec = get_env(env)
    except KeyError as e:
        err_console.print(f"[red]{e.args[0]}[/red]")
        raise typer.Exit(2) from None
    try:
        names = list_presets(spec.package)
    except ValueError as e:
        err_console.print(f"[red]env {env!r} is not installed or has no presets: {e}[/red]")
        raise typer.Exit(1) from None
    model = _config_model(spec.id, spec.package)
    table = Table(title=f"{spec.id} presets")
    table.add_column("preset", style="bold cyan")
    if model is not None:
        table.add_column("description")
        table.add_column("hash", style="dim")
    for name in names:
        if model is None:
            table.add_row(name)
            continue
        try:
            cfg, h = load_preset(spec.package, name, model)
            table.add_row(name, str(getattr(cfg, "description", "")), h[:12])
        except Exception as e:  # noqa: BLE001 - show the broken preset, keep listing
            table.add_row(name, f"[red]invalid: {e}[/red]", "")
    console.print(table)


@app.command()
def version(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also show provenance."),
) -> None:
    """Print the bizbench version."""
    from bizbench import __version__

    if not verbose:
        console.print(f"bizbench {__version__}")
        return
    from bizbench.core.provenance import provenance

    for k, v in provenance().items():
        console.print(f"[bold]{k}[/bold]: {v}")


# ---------------------------------------------------------------------------- run commands
# `run`, `search` and `upper-bound` are added here (lazy imports inside each function).


def main() -> None:  # pragma: no cover - entry point convenience
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
