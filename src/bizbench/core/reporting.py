"""What an env declares for ``bizbench report`` and ``bizbench view``: plain data and small
functions of a :class:`~bizbench.core.runs.Run`, rendered by the report and viewer packages.

An env's spec names two modules (:attr:`EnvSpec.report <bizbench.core.env.EnvSpec.report>`
and :attr:`EnvSpec.viewer <bizbench.core.env.EnvSpec.viewer>`), each the same shape for every
env (tau2-bench style: one folder per domain with the same file names):

- ``envs/<id>/report.py`` implements :class:`ReportModule` (docs/reports.md, "An env's report
  module"): its score, its normalisation anchors, its tables of :class:`Column`, its per-run
  measures and its multi-run :class:`Chart` s.
- ``envs/<id>/viewer.py`` implements :class:`ViewerModule` (docs/viewer.md, "An env's viewer
  module"): how a run is cut into :class:`Periods`, its charts (:class:`Panel`), its key
  metrics and its memory file.

Env modules import only ``bizbench.core`` and their own package; this module is all they need
of the report's vocabulary. Nothing here draws or writes a file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    from bizbench.core.runs import Run

__all__ = [
    "Agg",
    "Call",
    "Chart",
    "ChartKind",
    "Column",
    "Panel",
    "Periods",
    "ReportModule",
    "ViewerModule",
    "metric_series",
    "number",
    "replay",
    "slug",
]

Agg = Literal["mean", "sum", "max", "min", "std"]
S = TypeVar("S")


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
        text = self.fmt.format(value / self.scale)
        if text.startswith("-") and math.isfinite(value) and not any(d in text for d in "123456789"):
            return text[1:]  # a small negative shown as zero is zero ("-0.000" reads as a sign)
        return text


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
    ``FAILED_RUN_KEYS`` (optional, default ``SCORE_KEYS``): the measures of the company's value
    that a run which ended early shows as 0 (docs/reports.md "Runs that ended early").
    ``TABLES``: (CSV stem, title, columns) of the per-model tables; ``PER_RUN``: the columns of
    the every-run table. ``run_metrics``: one finished run's measures (``facts``: the cached
    entry of its re-created world, or None). ``plots``: the multi-run charts of the runs of
    each model. ``world_facts`` (optional): what the report needs of the run's hidden world,
    computed once and cached with the anchors. ``arena_plots`` (optional): the charts of one
    arena's companies, given its seats' runs in seat order (docs/arena.md)."""

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


# ---------------------------------------------------------------------------- viewer
def number(value: Any) -> float | None:
    """A finite int or float as a float (None for anything else, bool included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


@dataclass
class Periods:
    """How the viewer cuts a run into periods. The default numbers periods by one field
    (``key``) that metrics rows, actions and trajectory events carry, counting from ``first``
    (cfo months from 0, yc turns from 1); an env overrides what differs (ceo weeks of days)."""

    unit: str  # the period's name: "month", "turn", "week"
    key: str  # the field that numbers periods
    first: int = 0  # the number of the first period
    x_label: str = ""  # the charts' x axis (default: ``key``)
    event_key: str = ""  # the field that numbers trajectory events (default: ``key``)

    def __post_init__(self) -> None:
        self.x_label = self.x_label or self.key
        self.event_key = self.event_key or self.key

    def label(self, period: int) -> str:
        return f"{self.unit.capitalize()} {period + self.first}"

    def span(self, period: int) -> list[float]:
        """The period's stretch of the charts' x axis."""
        return [period + self.first - 0.5, period + self.first + 0.5]

    def of_row(self, row: dict[str, Any]) -> tuple[float, int] | None:
        """(x, period) of a metrics row; None for a row without its number."""
        x = number(row.get(self.key))
        return None if x is None else (x, int(x) - self.first)

    def of_actions(self, rows: list[dict[str, Any]]) -> list[int]:
        """The period of each actions.jsonl row."""
        return [int(number(row.get(self.key)) or self.first) - self.first for row in rows]

    def of_event(self, event: dict[str, Any], previous: int) -> int:
        """The period of a trajectory event (events without one belong to the period before them)."""
        n = number(event.get(self.event_key, event.get(self.key)))
        return previous if n is None else int(n) - self.first


@dataclass(frozen=True)
class Panel:
    """One chart of the viewer beside the money chart. ``fill_zero``: a series absent from a
    metrics row was 0 there (a customer group before its first customer)."""

    id: str
    title: str
    money: bool = False
    fill_zero: bool = False


@dataclass(frozen=True)
class Call:
    """One recorded call as the viewer's memory replays see it."""

    period: int
    name: str
    args: Any
    ok: bool

    def text(self, arg: str) -> str | None:
        """A string argument of the call (None when absent or not a string)."""
        value = self.args.get(arg) if isinstance(self.args, dict) else None
        return value if isinstance(value, str) else None


def replay(
    calls: Sequence[Call], start: S, apply: Callable[[S, Call], S], render: Callable[[S], str]
) -> Callable[[int], str] | None:
    """A memory file period by period, rebuilt from the calls that wrote it: ``apply`` folds
    each call (in order) into the state, ``render`` shows the state at each period's end; after
    the last period with a call it stays as it was. None without any call."""
    if not calls:
        return None
    by_period: dict[int, list[Call]] = {}
    for call in calls:
        by_period.setdefault(call.period, []).append(call)
    state, states = start, {}
    for period in range(max(by_period) + 1):
        for call in by_period.get(period, []):
            state = apply(state, call)
        states[period] = render(state)
    last = max(states)
    return lambda period: states[min(period, last)]


class ViewerModule(Protocol):
    """``envs/<id>/viewer.py`` (see docs/viewer.md for each field's meaning). Every field is
    optional: the viewer's defaults (periods keyed by the spec's unit, cash, no other chart, no
    memory) show any env.

    ``periods(run)``: how the run is cut. ``MONEY_NAME`` ("cash", "funds"), ``MONEY_KEY`` (its
    metrics field) and ``MONEY_METRICS`` (metrics in money, with the divisor to dollars: 100 for
    cents). ``KEY_METRICS``: shown first in the period's table. ``PANELS`` and ``series(row)``:
    the other charts and each one's values in a metrics row. ``markers(row)``: the labels of the
    events of a metrics row's period marked on the money chart (cfo: a raise asked or settled).
    ``action_series(run)``: points of the other charts read from the run's actions, as
    ``{panel id: [(x, {series: value})]}`` (ceo: each plan's list price). ``RESULT_KEYS``: the result.json
    fields of the run card. ``MEMORY_LABEL`` / ``MEMORY_WHEN`` and ``memory(run, calls,
    events)``: the agent's memory file in each period. ``ENV_CALLS_WITH_TRAJECTORY``: list
    actions.jsonl beside a model run's trajectory calls (a harness whose own tools are not the
    env's, whose agent reaches the env through an SDK)."""

    # the constants are read-only members, so that a module's plain constants implement them
    @property
    def MONEY_NAME(self) -> str: ...  # noqa: N802
    @property
    def MONEY_KEY(self) -> str: ...  # noqa: N802
    @property
    def MONEY_METRICS(self) -> Mapping[str, float]: ...  # noqa: N802
    @property
    def KEY_METRICS(self) -> Sequence[str]: ...  # noqa: N802
    @property
    def PANELS(self) -> Sequence[Panel]: ...  # noqa: N802
    @property
    def RESULT_KEYS(self) -> Sequence[str]: ...  # noqa: N802
    @property
    def MEMORY_LABEL(self) -> str: ...  # noqa: N802
    @property
    def MEMORY_WHEN(self) -> str: ...  # noqa: N802
    @property
    def ENV_CALLS_WITH_TRAJECTORY(self) -> bool: ...  # noqa: N802

    def periods(self, run: Run) -> Periods: ...

    def series(self, row: dict[str, Any]) -> dict[str, dict[str, Any]]: ...

    def markers(self, row: dict[str, Any]) -> list[str]: ...

    def action_series(self, run: Run) -> dict[str, list[tuple[float, dict[str, Any]]]]: ...

    def memory(
        self, run: Run, calls: list[Call], events: list[tuple[int, dict[str, Any]]]
    ) -> Callable[[int], str] | None: ...
