"""The sweep file: its pydantic model, and its expansion into runs with stable names.

A sweep file (docs/sweeps.md) is validated by :class:`SweepSpec`, whose errors name the bad
key (``runs[0].presets: unknown cfo preset 'papr' ...``), and expanded by :func:`expand` into
:class:`RunSpec` s, each with a readable directory name under the sweep's ``out`` that is
the same every time the file is run.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = [
    "SPLIT_SEEDS",
    "ModelEntry",
    "RunBlock",
    "RunSpec",
    "SweepError",
    "SweepSpec",
    "expand",
    "load_sweep",
    "parse_seeds",
    "provider_of",
    "sweep_file",
]

#: Seeds of each split when a ``[[runs]]`` block names none. Test worlds are keyed by the
#: secret (HMAC of the seed), so the same numbers give worlds nobody without it can rebuild.
SPLIT_SEEDS = {"dev": "1-20", "test": "1-20"}


class SweepError(ValueError):
    """A sweep that cannot start: a bad file, a missing secret, an unusable model or agent."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: More seeds than this in one block is a typo, not a sweep (each is at least one run).
MAX_SEEDS = 10_000


def parse_seeds(value: Any) -> list[int]:
    """``7``, ``[1, 2, 5]``, ``"1-20"`` or ``"1-5,9,12-14"`` -> the seeds in order, without repeats."""
    if isinstance(value, bool):
        raise ValueError(f"seeds: expected an integer, a list or a range like '1-20', got {value!r}")
    if isinstance(value, int):
        items: list[Any] = [value]
    elif isinstance(value, list):
        items = value
    elif isinstance(value, str):
        items = []
        for part in value.replace(" ", "").split(","):
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
            if m is None:
                raise ValueError(f"seeds: cannot read {part!r} in {value!r} (write e.g. '1-20' or '1,3,5-7')")
            lo, hi = int(m[1]), int(m[2] or m[1])
            if hi < lo:
                raise ValueError(f"seeds: the range {part!r} runs backwards")
            if hi - lo + 1 + len(items) > MAX_SEEDS:
                raise ValueError(f"seeds: {value!r} names more than {MAX_SEEDS:,} seeds")
            items.extend(range(lo, hi + 1))
    else:
        raise ValueError(f"seeds: expected an integer, a list or a range like '1-20', got {value!r}")
    for s in items:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"seeds: {s!r} is not a non-negative integer")
    seeds = list(dict.fromkeys(items))
    if not seeds:
        raise ValueError("seeds: the list is empty")
    return seeds


def _providers() -> tuple[str, ...]:
    from bizbench.agents.models.factory import FORMS

    return tuple(provider_of(form) for form in FORMS)


def provider_of(model: str) -> str:
    """The provider prefix of a model string: ``openai/gpt-5.5`` -> ``openai``,
    ``openai-compatible/q@url`` -> ``openai-compatible``, ``scripted:f.jsonl`` -> ``scripted``."""
    m = re.match(r"[A-Za-z0-9-]+", model.strip())
    return m[0] if m else model


class ModelLimits(_Strict):
    """Per-run budgets of a model (``bizbench run --max-dollars/--max-tokens/--max-turns``)."""

    max_dollars: float | None = Field(default=None, gt=0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_turns: int | None = Field(default=None, ge=1)


class ModelEntry(_Strict):
    """One model in the seat, with its harness, sampling, limits and prices."""

    model: str
    label: str | None = None  # its part of run names (default: from the model string)
    harness: str | None = None  # default: the env's paper's harness
    harness_options: dict[str, Any] = Field(default_factory=dict)
    sampling: dict[str, Any] = Field(default_factory=dict)
    limits: ModelLimits = ModelLimits()
    prices: str | None = None  # a TOML/JSON price table (docs/models.md)

    @field_validator("model")
    @classmethod
    def _model(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the model string is empty")
        return v.strip()

    @field_validator("sampling")
    @classmethod
    def _sampling(cls, v: dict[str, Any]) -> dict[str, Any]:
        from bizbench.agents.models.factory import check_sampling

        return check_sampling(v)

    @property
    def provider(self) -> str:
        return provider_of(self.model)

    def resolved(self) -> dict[str, Any]:
        """The entry as a dict, its files as absolute paths (workers may run in another directory)."""
        from bizbench.agents.models.factory import portable_spec

        d = self.model_dump()
        d["model"] = portable_spec(self.model)
        if self.prices:
            d["prices"] = str(Path(self.prices).expanduser().absolute())
        return d

    def name_part(self) -> str:
        return _slug(self.label) if self.label else model_slug(self.model)


class RunBlock(_Strict):
    """A ``[[runs]]`` table: one env, its presets, agents and/or models, seeds."""

    env: str
    preset: str | None = None
    presets: list[str] | None = None
    agents: list[str] = Field(default_factory=list)  # baselines, or module:Class
    models: list[ModelEntry] = Field(default_factory=list)
    seeds: list[int] | None = None  # default: the split's seeds
    n: int = Field(default=1, ge=1)  # runs per (model, preset, seed)
    horizon: int | None = Field(default=None, ge=1)  # horizon override, in the env's unit
    days: int | None = Field(default=None, ge=1)  # the horizon of an env counted in days (ceo)
    options: dict[str, Any] = Field(default_factory=dict)  # agent options for every run
    grid: dict[str, list[Any]] = Field(default_factory=dict)  # agent options: every combination
    world: dict[str, Any] = Field(default_factory=dict)  # the env's world options (ceo database)
    db: bool | None = None  # the ceo world option database: write company.db

    def option_sets(self) -> list[dict[str, Any]]:
        """The baselines' options of each run: ``options`` with every combination of ``grid``."""
        values = itertools.product(*self.grid.values())
        return [{**self.options, **dict(zip(self.grid, combo, strict=True))} for combo in values]

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, v: Any) -> Any:
        return None if v is None else parse_seeds(v)

    @field_validator("models", mode="before")
    @classmethod
    def _models(cls, v: Any) -> Any:
        return [{"model": m} if isinstance(m, str) else m for m in v] if isinstance(v, list) else v

    @field_validator("env")
    @classmethod
    def _env(cls, v: str) -> str:
        from bizbench.core.envs import get_env

        try:
            get_env(v)
        except KeyError as e:
            raise ValueError(e.args[0]) from None
        return v

    @field_validator("grid")
    @classmethod
    def _grid(cls, v: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for key, values in v.items():
            if not values:
                raise ValueError(f"grid.{key} has no values")
        return v

    @model_validator(mode="after")
    def _block(self) -> RunBlock:
        from bizbench.core.envs import get_env
        from bizbench.core.presets import list_presets

        spec = get_env(self.env)
        if self.preset is not None and self.presets is not None:
            raise ValueError("give preset or presets, not both")
        names = self.presets if self.presets is not None else [self.preset or spec.default_preset]
        known = list_presets(spec.package)
        for name in names:
            if name not in known:
                raise ValueError(f"unknown {self.env} preset {name!r} (presets: {', '.join(known)})")
        self.presets, self.preset = names, None
        if not self.agents and not self.models:
            raise ValueError("give agents (baselines or module:Class) and/or models")
        both = sorted(set(self.options) & set(self.grid))
        if both:
            raise ValueError(f"{', '.join(both)} given in both options and grid")
        if self.days is not None:
            if spec.unit != "day":
                raise ValueError(
                    f"days sets the horizon of envs counted in days; {self.env} counts {spec.unit}s: use horizon"
                )
            if self.horizon is not None and self.horizon != self.days:
                raise ValueError("give horizon or days, not both")
            self.horizon, self.days = self.days, None
        if self.db is not None:
            if "database" not in spec.world_options:
                raise ValueError(f"db is a world option of envs with a database; {self.env} has none")
            self.world = {**self.world, "database": self.db}
            self.db = None
        unknown = sorted(set(self.world) - set(spec.world_options))
        if unknown:
            takes = ", ".join(spec.world_options) or "none"
            raise ValueError(f"{self.env} has no world option {', '.join(unknown)} (its world options: {takes})")
        baselines = [a for a in self.agents if ":" not in a]
        for name in baselines:
            if name in spec.baseline_table():
                spec.check_baseline(name, {**self.options, **self.grid})
        if self.n > 1 and baselines:
            raise ValueError(f"n > 1 repeats model runs; baselines are deterministic ({', '.join(baselines)})")
        return self


class Concurrency(_Strict):
    """``[limits]``: at most this many runs at once per provider (``openai = 4``)."""

    concurrency: dict[str, int] = Field(default_factory=dict)

    @field_validator("concurrency")
    @classmethod
    def _concurrency(cls, v: dict[str, int]) -> dict[str, int]:
        providers = _providers()
        for key, limit in v.items():
            if key not in providers:
                raise ValueError(f"unknown provider {key!r} (providers: {', '.join(providers)})")
            if limit < 1:
                raise ValueError(f"{key} = {limit}: a limit is at least 1")
        return v


class SweepSpec(_Strict):
    """A sweep file (docs/sweeps.md)."""

    out: str
    split: Literal["dev", "test"] = "dev"
    max_dollars: float | None = Field(default=None, gt=0)  # stop starting runs once finished runs cost this
    limits: Concurrency = Field(default_factory=Concurrency)
    runs: list[RunBlock] = Field(min_length=1)


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def validation_message(e: ValidationError, source: str, what: str = "sweep file", doc: str = "docs/sweeps.md") -> str:
    """Pydantic errors as lines naming the key: ``runs[0].presets: unknown cfo preset ...``
    (``what``: the kind of file, ``doc``: where its keys are listed)."""
    lines = []
    for err in e.errors():
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = f"unknown key ({doc} lists the keys)"
        loc = tuple(err["loc"])
        if loc:
            msg = msg.removeprefix(f"{loc[-1]}: ")  # a message that names its key already
        lines.append(f"  {_where(loc)}: {msg}")
    return f"{source}: invalid {what}\n" + "\n".join(lines)


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """A TOML file's content; SweepError naming ``what`` (the sweep file ...) when it cannot be read."""
    try:
        return tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise SweepError(f"cannot read the {what} {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{path}: not valid TOML: {e}") from None


def load_sweep(path: str | Path, data: dict[str, Any] | None = None) -> SweepSpec:
    """Read and validate a sweep file (or ``data`` already read from it); SweepError says what is wrong."""
    if data is None:
        data = read_toml(path, "sweep file")
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as e:
        raise SweepError(validation_message(e, str(path))) from None


# ---------------------------------------------------------------------------- expansion
@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep; ``name`` is its directory under the sweep's ``out``."""

    name: str
    env: str
    preset: str
    seed: int
    agent: str  # a baseline, module:Class, or the model string
    kind: Literal["baseline", "user", "model"]
    replicate: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    horizon: int | None = None
    world: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] | None = None  # ModelEntry as a dict (kind == "model")

    @property
    def provider(self) -> str | None:
        """The provider whose concurrency limit applies (None: baselines and user agents)."""
        return provider_of(self.agent) if self.kind == "model" else None


def model_slug(model: str) -> str:
    """A model string's part of a run's name: ``scripted-<file stem>``, ``replay-<run>``, or the
    provider and model without a server URL (``openai_gpt-5``)."""
    provider = provider_of(model)
    if provider in ("scripted", "replay"):
        return f"{provider}-{_slug(Path(model.split(':', 1)[1]).stem)}"
    return _slug(model.split("@", 1)[0].replace("/", "_"))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_.") or "x"


def _value_part(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return _slug(str(v).lower() if isinstance(v, bool) else str(v))


def expand(spec: SweepSpec) -> list[RunSpec]:
    """Every run of the sweep, in file order; SweepError if two runs would share a directory."""
    runs: list[RunSpec] = []
    for block in spec.runs:
        seeds = block.seeds or parse_seeds(SPLIT_SEEDS[spec.split])
        for preset in block.presets or []:
            for agent in block.agents:
                kind: Literal["baseline", "user"] = "user" if ":" in agent else "baseline"
                label = _slug(agent.rsplit(":", 1)[-1]) if kind == "user" else _slug(agent)
                for options in block.option_sets() if kind == "baseline" else [{}]:
                    parts = [block.env, preset, label, *(_value_part(v) for v in options.values())]
                    for seed in seeds:
                        for r in range(1, block.n + 1):
                            name = "-".join([*parts, f"seed{seed}"]) + (f"-r{r}" if r > 1 else "")
                            runs.append(
                                RunSpec(
                                    name, block.env, preset, seed, agent, kind, r, options, block.horizon, block.world
                                )
                            )
            for entry in block.models:
                for seed in seeds:
                    for r in range(1, block.n + 1):
                        name = f"{block.env}-{preset}-{entry.name_part()}-seed{seed}" + (f"-r{r}" if r > 1 else "")
                        model = entry.resolved()
                        runs.append(
                            RunSpec(
                                name,
                                block.env,
                                preset,
                                seed,
                                entry.model,
                                "model",
                                r,
                                horizon=block.horizon,
                                model=model,
                            )
                        )
    seen: dict[str, RunSpec] = {}
    for run in runs:
        if run.name in seen:
            hint = " (give each model a distinct label)" if run.kind == "model" else ""
            raise SweepError(f"two runs of the sweep are both named {run.name!r}{hint}")
        seen[run.name] = run
    return runs


def sweep_file(path: str | Path, out: str | None = None, max_dollars: float | None = None) -> SweepSpec:
    """A sweep file with the command line's overrides applied (and validated again)."""
    spec = load_sweep(path)
    if out is None and max_dollars is None:
        return spec
    data = spec.model_dump(mode="json", exclude_none=True)
    data.update({k: v for k, v in (("out", out), ("max_dollars", max_dollars)) if v is not None})
    return load_sweep(path, data)
