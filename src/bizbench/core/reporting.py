"""What an env declares for ``bizbench report``: plain data and small functions of a
:class:`~bizbench.core.runs.Run`, rendered by the report package.

An env's spec names its report module (:attr:`EnvSpec.report <bizbench.core.env.EnvSpec.report>`),
the same shape for every env (tau2-bench style: one folder per domain with the same file
names): ``envs/<id>/report.py`` implements :class:`ReportModule` (docs/reports.md, "An env's
report module"): its score, its normalisation anchors, its tables of :class:`Column`, its
per-run measures and its multi-run :class:`Chart` s.

Env modules import only ``bizbench.core`` and their own package; this module is all they need
of the report's vocabulary. Nothing here draws or writes a file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from bizbench.core.runs import Run

__all__ = [
    "Agg",
    "Chart",
    "ChartKind",
    "Column",
    "ReportModule",
    "metric_series",
    "slug",
]

Agg = Literal["mean", "sum", "max", "min", "std"]


# ---------------------------------------------------------------------------- report
@dataclass(frozen=True)
class Column:
    """One metric of a report table: its key in a run's metrics dict, header, number format,
    how runs combine, and the paper section it implements (for docs and the HTML title)."""

    key: str
    label: str
    fmt: str = "{:,.2f}"
    agg: Agg = "mean"
    source: str = ""
    scale: float = 1.0  # the shown value is value / scale (e.g. 1e6 for $M)

    def show(self, value: float | None) -> str:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "–"
        return self.fmt.format(value / self.scale)


#: the chart kinds the report draws (``bizbench.report.plots``), with what ``Chart.data`` holds:
#: ``runs``: {model: [(xs, ys) per run]} drawn as thin lines and each model's mean;
#: ``stacked``: (xs, {layer: ys}) stacked areas; ``bars``: {model: {label: value}} one bar
#: chart per model; ``cumulative``: {panel: {model: [0/1 or count per step, per run]}}.
ChartKind = Literal["runs", "stacked", "bars", "cumulative"]


@dataclass(frozen=True)
class Chart:
    """One multi-run plot of a report, as data: the report draws it into ``<env>_<name>.png``.

    ``scale`` divides the y values (1e6 for $M); ``top`` keeps a bar chart's largest values;
    ``highlight[model]`` names the bars to hatch (e.g. adversarial clients)."""

    name: str
    kind: ChartKind
    title: str
    data: Any
    xlabel: str = ""
    ylabel: str = ""
    scale: float = 1.0
    top: int | None = 10
    highlight: Mapping[str, set[str]] | None = None


def metric_series(models: Mapping[str, Sequence[Run]], x: str, y: str) -> dict[str, list[tuple[list[Any], list[Any]]]]:
    """A ``runs`` chart's data: each model's runs as (x, y) series of two metrics.jsonl fields."""
    return {k: [([d[x] for d in r.metrics], [d[y] for d in r.metrics]) for r in runs] for k, runs in models.items()}


def slug(text: str) -> str:
    """A file-name part from free text (a model name): lower case, ``_`` between words, 40 chars."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40]


class ReportModule(Protocol):
    """``envs/<id>/report.py`` (see docs/reports.md for each field's meaning).

    ``SCORE_KEYS``: result.json fields of the headline score, first present wins (``score``,
    the common core, then the field format-1 runs kept it in). ``ZERO_ANCHOR``: the baseline
    that scores 0. ``ONE_ANCHOR``: the baseline that scores 1, or a function of the run giving
    (reference, note why there is none). ``ANCHOR_LABELS``: how the anchors table names both.
    ``ANCHOR_WORLD_OPTIONS``: world options the anchor baselines run with (optional).
    ``TABLES``: (CSV stem, title, columns) of the per-model tables; ``PER_RUN``: the columns of
    the every-run table. ``run_metrics``: one finished run's measures (``facts``: the cached
    entry of its re-created world, or None). ``plots``: the multi-run charts of the runs of
    each model. ``world_facts`` (optional): what the report needs of the run's hidden world,
    computed once and cached with the anchors."""

    # the constants are read-only members, so that a module's plain constants implement them
    @property
    def SCORE_KEYS(self) -> tuple[str, ...]: ...  # noqa: N802
    @property
    def ZERO_ANCHOR(self) -> str | None: ...  # noqa: N802
    @property
    def ONE_ANCHOR(self) -> str | Callable[[Run], tuple[float | None, str]] | None: ...  # noqa: N802
    @property
    def ANCHOR_LABELS(self) -> tuple[str, str]: ...  # noqa: N802
    @property
    def TABLES(self) -> Sequence[tuple[str, str, Sequence[Column]]]: ...  # noqa: N802
    @property
    def PER_RUN(self) -> Sequence[Column]: ...  # noqa: N802

    def run_metrics(self, run: Run, facts: dict[str, Any] | None) -> dict[str, float | None]: ...

    def plots(self, models: Mapping[str, Sequence[Run]]) -> list[Chart]: ...
