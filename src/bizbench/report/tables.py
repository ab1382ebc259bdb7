"""Report tables and their renderings: Markdown (stdout), CSV files and one static HTML page.

A :class:`Table` keeps two views of the same rows: the text shown (``mean ± half-width``,
formatted) and plain numbers for CSV (value, 95 % CI bounds and n in columns of their own),
so a spreadsheet never has to parse "1.2 ± 0.3". A figure that ``bizbench replay`` did not
verify carries :data:`MARK` in the text and is named in the CSV's ``unverified`` column
(docs/reports.md "Verified figures").
"""

from __future__ import annotations

import base64
import csv
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bizbench.core.runs import agent_label, is_human
from bizbench.report.aggregate import Column, Summary

__all__ = ["MARK", "Group", "Table", "aggregate_table", "html_page", "per_run_table", "to_markdown", "write_csv"]

#: the mark of a figure that ``bizbench replay`` did not verify
MARK = "†"
MARK_MEANS = (
    f"{MARK} = not verified by `bizbench replay`: a run not replayed, failed or changed since, or a figure "
    'from what replay cannot check, such as the trajectory or the meters (docs/reports.md "Verified figures")'
)

#: the note of a table with a person's runs (their agent is shown as ``NAME (human)``)
HUMAN_MEANS = '(human) = a person played these runs with `bizbench play` (docs/play.md "Human baselines")'


@dataclass
class Table:
    title: str
    name: str  # file stem of its CSV
    header: list[str]
    rows: list[list[str]]
    csv_header: list[str]
    csv_rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Group:
    """The runs of one group of an aggregate table: its key (env, preset, agent), how many
    runs and how many of them replay verified, one Summary per column, and the keys of the
    columns to which some run brings a figure replay did not verify."""

    key: tuple[str, ...]
    n: int
    verified: int
    summaries: list[Summary]
    unverified: frozenset[str]


def _cell(column: Column, s: Summary, unverified: bool) -> str:
    text = column.show(s.value)
    if s.half_width is not None:
        text += " ± " + column.show(s.half_width).lstrip("-")
    return _marked(text, unverified)


def _marked(text: str, unverified: bool) -> str:
    return f"{text} {MARK}" if unverified else text


def _unverified_labels(columns: Sequence[Column], keys: frozenset[str]) -> str:
    """The CSV's ``unverified`` field: the labels of the columns replay did not verify."""
    return "; ".join(c.label for c in columns if c.key in keys)


def _scaled(column: Column, value: float | None) -> float | None:
    return None if value is None else value / column.scale


def aggregate_table(
    title: str,
    name: str,
    columns: Sequence[Column],
    groups: Sequence[Group],
    notes: Sequence[str] = (),
) -> Table:
    """One row per group; the env is shown only in the CSV (a report section holds one env)."""
    header = ["preset", "agent / model", "n", "verified", *(c.label for c in columns)]
    csv_header = ["env", "preset", "agent", "n_runs", "n_verified"]
    for c in columns:
        csv_header.append(c.label)
        if c.agg == "mean":
            csv_header += [f"{c.label} ci95_low", f"{c.label} ci95_high", f"{c.label} n"]
    csv_header.append("unverified")
    rows, csv_rows = [], []
    for g in groups:
        cells = [_cell(c, s, c.key in g.unverified) for c, s in zip(columns, g.summaries, strict=True)]
        rows.append([*g.key[1:-1], agent_label(g.key[-1]), str(g.n), str(g.verified), *cells])
        raw: list[Any] = [*g.key, g.n, g.verified]
        for c, s in zip(columns, g.summaries, strict=True):
            raw.append(_scaled(c, s.value))
            if c.agg == "mean":
                raw += [_scaled(c, s.low), _scaled(c, s.high), s.n]
        csv_rows.append([*raw, _unverified_labels(columns, g.unverified)])
    marked = any(c.key in g.unverified for g in groups for c in columns)
    human = [HUMAN_MEANS] if any(is_human(g.key[-1]) for g in groups) else []
    return Table(title, name, header, rows, csv_header, csv_rows, [*notes, *human, *([MARK_MEANS] if marked else [])])


def per_run_table(
    title: str,
    name: str,
    columns: Sequence[Column],
    runs: Sequence[tuple[list[str], dict[str, Any], frozenset[str]]],
    notes: Sequence[str] = (),
) -> Table:
    """Rows of (identity cells [agent, seed, ended_by, replay verdict, path], measures, the
    measures replay did not verify)."""
    ident = ["agent / model", "seed", "ended by", "replay", "run"]
    header = [*ident, *(c.label for c in columns)]
    rows = [[*cells, *(_marked(c.show(m.get(c.key)), c.key in bad) for c in columns)] for cells, m, bad in runs]
    csv_rows = [
        [*cells, *(_scaled(c, m.get(c.key)) for c in columns), _unverified_labels(columns, bad)]
        for cells, m, bad in runs
    ]
    marked = any(c.key in bad for _, _, bad in runs for c in columns)
    notes = [*notes, *([MARK_MEANS] if marked else [])]
    return Table(title, name, header, rows, [*header, "unverified"], csv_rows, notes)


def _md_escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")  # one line per row: newlines and runs of space fold


def to_markdown(table: Table) -> str:
    """A GitHub-style pipe table with its title as a heading and notes below."""
    lines = [f"### {table.title}", ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in table.header) + " |")
    numeric = [bool(table.rows) and all(_NUMERIC.match(row[i]) for row in table.rows) for i in range(len(table.header))]
    lines.append("|" + "|".join("---:" if num else "---" for num in numeric) + "|")
    lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in table.rows]
    if table.notes:
        lines.append("")
        lines += [f"- {n}" for n in table.notes]
    return "\n".join(lines) + "\n"


def write_csv(table: Table, directory: Path) -> Path:
    path = directory / f"{table.name}.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(table.csv_header)
        for row in table.csv_rows:
            w.writerow(["" if v is None else (f"{v:.6g}" if isinstance(v, float) else v) for v in row])
    return path


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
th { background: #f2f2f2; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
ul.notes { font-size: 0.85em; color: #555; }
figure { display: inline-block; margin: 0.5em; } figcaption { font-size: 0.8em; color: #555; }
img { max-width: 640px; border: 1px solid #ddd; }
"""

_NUMERIC = re.compile(r"^[-–+$0-9.,% ±†]+$")


def _html_table(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.header)
    body = []
    for row in table.rows:
        cells = "".join(
            f'<td class="num">{html.escape(c)}</td>' if _NUMERIC.match(c) else f"<td>{html.escape(c)}</td>" for c in row
        )
        body.append(f"<tr>{cells}</tr>")
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in table.notes)
    out = f"<h3>{html.escape(table.title)}</h3>\n<table><thead><tr>{head}</tr></thead><tbody>"
    out += "\n".join(body) + "</tbody></table>\n"
    return out + (f'<ul class="notes">{notes}</ul>\n' if notes else "")


def html_page(title: str, sections: Sequence[tuple[str, Sequence[Table], Sequence[Path]]], notes: Sequence[str]) -> str:
    """One self-contained page: per section (heading, tables, PNG plots embedded as data URIs)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    if notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul>")
    for heading, tables, images in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts += [_html_table(t) for t in tables]
        for img in images:
            data = base64.b64encode(img.read_bytes()).decode("ascii")
            parts.append(
                f'<figure><img alt="{html.escape(img.stem)}" src="data:image/png;base64,{data}">'
                f"<figcaption>{html.escape(img.name)}</figcaption></figure>"
            )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
