"""The Env contract: what every bizbench world implements, and the spec that plugs it in.

Everything above ``envs/`` (runner, agents, report, viewer, CLI, interfaces) talks to an env
only through :class:`Env` and its :class:`EnvSpec` (docs/principles.md principle 10; docs/architecture.md),
never by its name. The words follow Gymnasium and tau2-bench where they fit:

- an env is built from a preset config and a seed (and the held-out secret) by
  :meth:`EnvSpec.make`;
- its tools are one :class:`~bizbench.core.registry.ToolRegistry`; :meth:`Env.call_tool` never
  raises: an error is an answer (``ToolResult(ok=False)``) that changes nothing;
- :meth:`Env.observation` is what a player sees at a turn boundary (never a hidden field);
- :meth:`Env.advance` ends the current turn the env's default way (ceo: the next week
  without forecasts; yc: ``sim resume``; cfo: ``pass``); :attr:`Env.turn` counts the turns
  ended, however they ended (a tool such as ceo ``next_week`` or :meth:`Env.advance`);
- :meth:`Env.system_prompt` is the env's instructions for an agent in a given harness (the
  paper's harness gets the paper's prompt; another gets the same world rules without the paper
  harness's interface, which that harness describes itself); :meth:`Env.memory` is the agent's
  own notes (yc scratchpad, cfo notepad) for harnesses that show them;
- :attr:`Env.done`, :meth:`Env.score` (the headline number), :meth:`Env.result` (result.json's
  env fields) and :meth:`Env.state_digest` (equal digests mean equal worlds).

Time: each env declares one unit (:attr:`EnvSpec.unit`: ``day``, ``turn`` or ``month``);
:attr:`Env.elapsed` and :attr:`Env.horizon` count in it, and ``--horizon N`` overrides the
preset's horizon in that unit everywhere (:meth:`EnvSpec.with_horizon`).

The record: an env keeps its action and tamper rows in memory (``actions``, ``tamper``) and
hands the rows of its other logs (``metrics``, cfo ``statements`` ...) to whoever asks,
through :meth:`Env.take_rows`; the :class:`~bizbench.core.session.Session` writes them.
Envs do no file I/O of the record.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from bizbench.core.errors import ToolResult

if TYPE_CHECKING:
    from bizbench.core.ledger import LedgerRow

__all__ = ["Baseline", "Env", "EnvBase", "EnvSpec", "Policy", "ReplayRules", "Unit"]

Unit = Literal["day", "turn", "month"]


@runtime_checkable
class Env(Protocol):
    """One seeded world behind its tools (see the module docstring)."""

    env_id: str  # the id its spec is registered under
    registry: Any  # ToolRegistry
    config: Any  # the env's pydantic config
    seed: int
    preset: str
    preset_hash: str
    secret_id: str | None
    actions: list[dict[str, Any]]  # every call, accepted and refused, as the env logged it
    tamper: list[dict[str, Any]]  # suspicious attempts

    def call(self, name: str, **args: Any) -> ToolResult: ...

    def call_tool(self, name: str, args: Any) -> ToolResult: ...

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None: ...

    def observation(self) -> dict[str, Any]: ...

    def advance(self, **args: Any) -> None: ...

    @property
    def turn(self) -> int: ...

    def system_prompt(self, harness: str) -> str: ...

    def memory(self) -> str: ...

    @property
    def done(self) -> bool: ...

    @property
    def bankrupt(self) -> bool: ...

    @property
    def elapsed(self) -> int: ...

    @property
    def horizon(self) -> int: ...

    def cash(self) -> float: ...

    def score(self) -> float: ...

    def result(self, **extra: Any) -> dict[str, Any]: ...

    def state_digest(self) -> str: ...

    def take_rows(self) -> dict[str, list[dict[str, Any]]]: ...

    def ledger_rows(self) -> list[LedgerRow]: ...

    def money_points(self) -> list[tuple[Any, float]]: ...

    def close(self) -> None: ...


class EnvBase:
    """What every env's constructor and acting share: its identity (config, seed, preset and hash,
    the held-out secret's fingerprint), the in-memory action and tamper logs, and call by name."""

    #: ledger.csv's header, for an env whose ledger rows are not (day, category, amount, group,
    #: note) in its own time unit (cfo: month and general-ledger account); None: that default.
    ledger_header: tuple[str, ...] | None = None

    def _begin(self, config: Any, seed: int, preset: str, preset_hash: str, secret: str | None) -> int:
        """Set the env's identity and empty logs; returns the world's entropy (core/rng.py)."""
        from bizbench.core.rng import secret_id, world_entropy

        self.config = config
        self.seed = seed
        self.preset = preset
        self.preset_hash = preset_hash
        self.secret_id = secret_id(secret)
        self.actions: list[dict[str, Any]] = []  # every call, accepted and refused, for the Session
        self.tamper: list[dict[str, Any]] = []
        return world_entropy(seed, secret)

    def instructions_note(self) -> str:
        """Text that ends this env's instructions wherever an agent is given them (its system
        prompt, a served seat's instructions.md and ``rules``): an arena seat's rivals
        (docs/arena.md); none by default."""
        return ""

    def with_note(self, instructions: str) -> str:
        """``instructions`` ended by :meth:`instructions_note`, if any."""
        note = self.instructions_note()
        return f"{instructions.rstrip()}\n\n{note}\n" if note else instructions

    def call(self, name: str, **args: Any) -> ToolResult:
        """Call a tool by name; failures come back as ``ToolResult(ok=False, error=...)``."""
        return self.call_tool(name, args)  # type: ignore[attr-defined]

    @classmethod
    def registry_for(cls, config: Any) -> Any:
        """The tool registry an env of ``config`` acts with (``bizbench tools ENV --preset P``, a
        seat's workspace): ``config``'s own when the class's ``registry`` is a
        :class:`~bizbench.core.registry.ConfiguredRegistry` (yc, cfo: limits and fees from the
        config), else the class's ``registry``."""
        from bizbench.core.registry import ConfiguredRegistry

        declared = inspect.getattr_static(cls, "registry", None)
        if isinstance(declared, ConfiguredRegistry):
            return declared.tools.registry_for(config)
        return cls.registry  # type: ignore[attr-defined]

    def __getstate__(self) -> dict[str, Any]:
        """The env without the tool registry its config made (made again on first use; its tools
        are functions a pickle cannot hold by value)."""
        from bizbench.core.registry import ConfiguredRegistry

        return {k: v for k, v in self.__dict__.items() if k != ConfiguredRegistry.CACHE}

    def compact_args(self, tool: str, args: dict[str, Any]) -> Any:
        """A host session's record of a call (core/cmdsession.py): a smaller stand-in for ``args``,
        taken before the call, or None to keep ``args`` whole (the default)."""
        return None

    def restore_read(self, tool: str, args: Any, ok: bool, tamper: str | None = None) -> None:
        """A host session's replay of a read its env's :class:`ReplayRules` do not re-send (ceo
        ``query``: it changed nothing, and run again it could take its time or its timeout
        differently): put it back in the action log (and its tamper entry) without running it.
        Only called for an env whose rules leave reads out; the default refuses (ValueError)."""
        raise ValueError(f"{type(self).__name__} re-sends its reads; it restores none ({tool!r})")

    def expand_args(self, tool: str, delta: Any) -> dict[str, Any]:
        """The arguments :meth:`compact_args` stood in for, on replay. Only called for an env whose
        ``compact_args`` returned something; the default refuses (ValueError)."""
        raise ValueError(f"{type(self).__name__} keeps no compact record of {tool!r}")


class Policy(Protocol):
    """A baseline: :meth:`act` plays one turn of ``env`` and ends it."""

    def act(self, env: Any) -> None: ...


@dataclass(frozen=True)
class Baseline:
    """A rule-based agent of an env: ``make(seed, **options)`` builds its policy; ``options``
    names the options it takes with their defaults (a sweep's ``options``/``grid``, the CLI);
    ``search_space()`` lists option sets worth searching (``bizbench search``) and ``label``
    names one."""

    name: str
    make: Callable[..., Policy]
    options: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    search_space: Callable[[], list[dict[str, Any]]] | None = None
    label: Callable[[dict[str, Any]], str] | None = None


@dataclass(frozen=True)
class ReplayRules:
    """What ``bizbench replay`` re-sends and compares (docs/run-format.md).

    ``advance_action``: the action-log name of :meth:`Env.advance` when it is not a registry
    tool (ceo ``next_turn``); ``resend_reads``: whether accepted read-only calls are re-sent
    (they must be where a read spends a budget, as in cfo); ``log_derived``: result fields
    counted from the action log, which replay cannot recount; ``added_later``: result fields
    added after run format 1 began, left unverified when an old run lacks them."""

    advance_action: str | None = None
    resend_reads: bool = True
    log_derived: frozenset[str] = frozenset({"tamper_events"})
    added_later: frozenset[str] = frozenset()

    def skips(self, registry: Any, tool: object) -> bool:
        """Whether replay leaves out an accepted call of ``tool``: a read, where reads are not re-sent."""
        return not self.resend_reads and tool in registry and not registry.mutates(tool)


@dataclass(frozen=True)
class EnvSpec:
    """Everything the rest of bizbench needs to know about an env, found by its id.

    ``env`` is ``"module:Class"`` of the :class:`Env` (imported on first use, so listing envs
    stays light); ``config`` is ``"module:Model"`` of its pydantic config. ``horizon_key`` is
    the path of the horizon in the config (in ``unit``). ``seat`` is the module of its seat
    (the SDK written into a served workspace, :mod:`bizbench.core.seat`); ``report`` the module
    of its report measures, ``viewer`` of its viewer panels and ``play`` of its play page
    (:mod:`bizbench.core.play`); ``harness`` its paper's harness. ``baselines`` is
    ``"module:NAME"`` of a mapping name -> :class:`Baseline`."""

    id: str
    title: str
    description: str
    package: str
    env: str
    config: str
    unit: Unit
    horizon_key: tuple[str, ...]
    baselines: str
    default_baseline: str
    harness: str
    default_preset: str = "default"
    #: how a command line starts in the env's prompt (yc: the paper's ``yc-bench``); default the id
    command_prefix: str | None = None
    seat: str | None = None
    report: str | None = None
    viewer: str | None = None
    play: str | None = None
    replay: ReplayRules = ReplayRules()
    #: switches of the world's agent-visible resources, with their defaults (ceo ``database``:
    #: write company.db); :meth:`headless` turns them all off
    world_options: Mapping[str, Any] = field(default_factory=dict)
    #: the benchmark's name as a task id (inspect-ai ``bizbench/<task>``, docs/interfaces.md);
    #: None: the env id
    task: str | None = None
    #: ``"module:Class"`` of the env's :class:`~bizbench.core.arena.Arena` (rival companies in one
    #: market, docs/arena.md); None: the env has no arena
    arena: str | None = None

    @property
    def task_name(self) -> str:
        """The benchmark's task id: :attr:`task`, else the env id."""
        return self.task or self.id

    # ------------------------------------------------------------------ lazy pieces
    def load(self, ref: str) -> Any:
        """``module:attr`` -> the object."""
        module, _, attr = ref.partition(":")
        return getattr(importlib.import_module(module), attr)

    @property
    def env_class(self) -> Any:
        return self.load(self.env)

    @property
    def config_model(self) -> Any:
        return self.load(self.config)

    def baseline_table(self) -> Mapping[str, Baseline]:
        table: Mapping[str, Baseline] = self.load(self.baselines)
        return table

    def baseline(self, name: str) -> Baseline:
        """The named baseline (ValueError listing this env's baselines)."""
        table = self.baseline_table()
        if name not in table:
            raise ValueError(f"unknown {self.id} baseline {name!r}; choose from {', '.join(table)}")
        return table[name]

    def check_baseline(self, name: str, options: Mapping[str, Any] | None = None) -> Baseline:
        """The named baseline, if it takes every one of ``options`` (ValueError naming what it takes)."""
        baseline = self.baseline(name)
        unknown = sorted(set(options or {}) - set(baseline.options))
        if unknown:
            takes = ", ".join(baseline.options) or "none"
            raise ValueError(
                f"the {self.id} {baseline.name} baseline takes no option {', '.join(unknown)} (its options: {takes})"
            )
        return baseline

    def module(self, which: Literal["seat", "report", "viewer", "play"]) -> Any:
        """The env's seat, report, viewer or play module (ValueError when it has none)."""
        ref = getattr(self, which)
        if ref is None:
            raise ValueError(f"env {self.id!r} has no {which}")
        return importlib.import_module(ref)

    # ------------------------------------------------------------------ configs
    def load_config(self, preset: str | None = None) -> tuple[Any, str]:
        """(validated config, preset hash) of a preset shipped with the env."""
        from bizbench.core.presets import load_preset

        return load_preset(self.package, preset or self.default_preset, self.config_model)

    def presets(self) -> list[str]:
        from bizbench.core.presets import list_presets

        return list_presets(self.package)

    def horizon_of(self, config: Any) -> int:
        value = config
        for key in self.horizon_key:
            value = value[key] if isinstance(value, dict) else getattr(value, key)
        return int(value)

    def with_horizon(self, config: Any, horizon: int | None) -> Any:
        """``config`` with its horizon set to ``horizon`` (in :attr:`unit`; None: unchanged)."""
        if horizon is None:
            return config
        if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
            raise ValueError(f"--horizon must be a whole number of {self.unit}s >= 1, got {horizon!r}")

        def put(node: Any, keys: tuple[str, ...]) -> Any:
            if len(keys) == 1:
                return node.model_copy(update={keys[0]: horizon})
            return node.model_copy(update={keys[0]: put(getattr(node, keys[0]), keys[1:])})

        return put(config, self.horizon_key)

    def validate_config(self, data: dict[str, Any]) -> Any:
        """A recorded config (config.json's ``config``) as the env's model."""
        return self.config_model.model_validate(data)

    # ------------------------------------------------------------------ worlds
    def make(
        self,
        config: Any,
        seed: int,
        preset: str | None = None,
        preset_hash: str = "",
        secret: str | None = None,
        files: Path | None = None,
        **world_options: Any,
    ) -> Env:
        """A fresh env. ``files``: a directory for the agent-visible files the env keeps (ceo's
        company.db); ``world_options``: the names in :attr:`world_options`."""
        unknown = sorted(set(world_options) - set(self.world_options))
        if unknown:
            raise ValueError(f"env {self.id!r} takes no option {', '.join(unknown)}")
        env: Env = self.env_class(
            config,
            seed,
            preset or self.default_preset,
            preset_hash,
            secret,
            files=files,
            **world_options,
        )
        return env

    def make_arena(
        self,
        config: Any,
        seed: int,
        seats: int,
        preset: str | None = None,
        preset_hash: str = "",
        secret: str | None = None,
        files: list[Path] | None = None,
        **world_options: Any,
    ) -> Any:
        """A fresh :class:`~bizbench.core.arena.Arena` of ``seats`` rival companies (ValueError when
        the env has none, or for a seat count it does not take); ``files[i]`` and
        ``world_options`` are seat i's as :meth:`make` takes them."""
        if self.arena is None:
            raise ValueError(f"env {self.id!r} has no arena (docs/arena.md lists the envs that do)")
        unknown = sorted(set(world_options) - set(self.world_options))
        if unknown:
            raise ValueError(f"env {self.id!r} takes no option {', '.join(unknown)}")
        if files is not None and len(files) != seats:
            raise ValueError(f"{seats} seats but {len(files)} file directories")
        cls = self.load(self.arena)
        return cls(config, seed, seats, preset or self.default_preset, preset_hash, secret, files, **world_options)

    def headless(self) -> dict[str, Any]:
        """World options for a run no agent reads (replay, anchors, searches): each agent-visible
        resource switched off."""
        return dict.fromkeys(self.world_options, False)

    def from_preset(
        self,
        preset: str | None = None,
        seed: int = 42,
        horizon: int | None = None,
        secret: str | None = None,
        **kw: Any,
    ) -> Env:
        """A fresh env of a named preset (``horizon`` overrides its horizon)."""
        config, digest = self.load_config(preset)
        return self.make(self.with_horizon(config, horizon), seed, preset, digest, secret, **kw)
