"""The tool registry: a tool is defined once (docs/principles.md principle 1).

An env declares each tool as a typed Python function whose first parameter is the context
object (a session or world handle; not part of the schema) and whose other parameters are
typed, with defaults for optional ones. The docstring's summary becomes the description and
its Google-style ``Args:`` section the per-argument descriptions::

    registry = ToolRegistry()

    @registry.tool(category="pricing")
    def set_price(ctx, tier: Literal["basic", "pro"], price: float) -> dict:
        '''Set the monthly list price of a tier.

        Args:
            tier: Which tier to reprice.
            price: New monthly price in dollars (> 0).
        '''
        ...

From the registry come JSON schemas, OpenAI and Anthropic tool lists, Markdown docs and a
safe :meth:`ToolRegistry.call` that validates arguments (strictly: no "5" for a number,
no ``true`` for an integer, no NaN) and turns every failure into an error answer
(docs/principles.md principle 8). Use ``Literal[...]`` for enumerations, ``Annotated[float,
Field(ge=0)]`` for ranges.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
import threading
import types
import typing
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, create_model

from bizbench.core.errors import ToolError, ToolResult
from bizbench.core.jsonio import preview
from bizbench.core.limits import args_problem

__all__ = [
    "ConfiguredRegistry",
    "ConfiguredTools",
    "ParamDoc",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "echoed",
]

logger = logging.getLogger(__name__)

#: The longest tool or argument name an error echoes back whole (longer ones are cut, with their
#: length): what an agent sends must not make the answer or the record grow with it.
MAX_ECHOED_NAME = 120
#: The most problems one invalid call's error lists (the rest are counted).
MAX_ERRORS_LISTED = 20

_ARG_CONFIG = ConfigDict(
    extra="forbid",
    allow_inf_nan=False,
    strict=True,
    protected_namespaces=(),
    arbitrary_types_allowed=False,
)


@dataclass(frozen=True)
class ParamDoc:
    name: str
    annotation: Any
    type_str: str
    required: bool
    default: Any
    description: str


@dataclass
class ToolSpec:
    """Everything known about one registered tool."""

    name: str
    category: str
    description: str
    mutates: bool
    fn: Callable[..., Any]
    args_model: type[BaseModel]
    params: list[ParamDoc] = field(default_factory=list)
    doc: str = ""
    misplaced: dict[str, str] = field(default_factory=dict)  # known wrong argument -> advice

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema (object) of the tool's arguments."""
        return _json_schema(self.args_model)

    @property
    def signature(self) -> str:
        parts = []
        for p in self.params:
            s = f"{p.name}: {p.type_str}"
            if not p.required:
                s += f" = {p.default!r}"
            parts.append(s)
        return f"{self.name}({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "description": self.description,
            "mutates": self.mutates,
            "parameters": self.parameters,
        }


class ToolRegistry:
    """An ordered set of tools with schema generation and safe dispatch."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    # ------------------------------------------------------------------ registration
    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        category: str = "general",
        mutates: bool = True,
        misplaced: dict[str, str] | None = None,
    ) -> Any:
        """Decorator registering ``fn`` (usable bare or with keyword options).

        ``misplaced`` maps an argument name agents are known to try (but which the tool does not
        take) to advice appended to the "unknown argument" error, e.g. where that setting lives.
        The function is returned unchanged, so it can still be called directly.
        """

        def register(f: Callable[..., Any]) -> Callable[..., Any]:
            spec = _build_spec(f, name or f.__name__, category, mutates)
            spec.misplaced = dict(misplaced or {})
            if spec.name in self._tools:
                raise ValueError(f"tool {spec.name!r} is already registered")
            self._tools[spec.name] = spec
            return f

        if fn is not None:
            return register(fn)
        return register

    def copy(self) -> ToolRegistry:
        """A registry with the same tools, to which more can be added (an arena seat's, docs/arena.md)."""
        other = ToolRegistry()
        other._tools = dict(self._tools)
        return other

    # ------------------------------------------------------------------ introspection
    def names(self) -> list[str]:
        return list(self._tools)

    def spec(self, name: str) -> ToolSpec:
        try:
            return self._tools[name]
        except KeyError:
            raise KeyError(self._unknown(name)) from None

    def specs(self) -> list[ToolSpec]:
        return list(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._tools

    def mutates(self, name: object) -> bool:
        """Whether ``name`` is a tool that changes the world (False for a read or an unknown name)."""
        return name in self and self._tools[name].mutates  # type: ignore[index]

    def __len__(self) -> int:
        return len(self._tools)

    def parameter_schemas(self) -> dict[str, dict[str, Any]]:
        """{tool name: JSON Schema of its arguments} (what a shell client needs to parse commands)."""
        return {s.name: s.parameters for s in self.specs()}

    def json_schemas(self) -> list[dict[str, Any]]:
        return [
            {"name": s.name, "description": s.description, "parameters": s.parameters} for s in self._tools.values()
        ]

    def openai_tools(self) -> list[dict[str, Any]]:
        """Tools in the OpenAI chat-completions ``tools=`` format."""
        return [{"type": "function", "function": d} for d in self.json_schemas()]

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """Tools in the Anthropic messages ``tools=`` format."""
        return [
            {"name": d["name"], "description": d["description"], "input_schema": d["parameters"]}
            for d in self.json_schemas()
        ]

    def markdown_docs(self, title: str = "Tool reference") -> str:
        """A generated reference page: one section per tool, grouped by category."""
        out = [f"# {title}", "", "_Generated from the tool registry; do not edit by hand._", ""]
        cats: dict[str, list[ToolSpec]] = {}
        for s in self._tools.values():
            cats.setdefault(s.category, []).append(s)
        for cat, specs in cats.items():
            out += [f"## {cat}", ""]
            for s in specs:
                out += [f"### `{s.name}`", "", "```python", s.signature, "```", ""]
                if s.doc:
                    out += [s.doc, ""]
                if not s.mutates:
                    out += ["_Read-only._", ""]
                if s.params:
                    out += [
                        "| argument | type | required | default | description |",
                        "|---|---|---|---|---|",
                    ]
                    for p in s.params:
                        default = "" if p.required else f"`{p.default!r}`"
                        out.append(
                            f"| `{p.name}` | `{_md_escape(p.type_str)}` | "
                            f"{'yes' if p.required else 'no'} | {_md_escape(default)} | "
                            f"{_md_escape(p.description)} |"
                        )
                    out.append("")
        return "\n".join(out).rstrip() + "\n"

    # ------------------------------------------------------------------ dispatch
    def validate(self, name: str, args: dict[str, Any] | None) -> dict[str, Any]:
        """Validate ``args`` for tool ``name``; return keyword arguments or raise ToolError."""
        spec = self._tools.get(name)
        if spec is None:
            raise ToolError(self._unknown(name), tamper="unknown_tool")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ToolError(
                f"Invalid arguments for tool '{name}': arguments must be an object "
                f"(mapping of argument name to value), got {type(args).__name__}"
            )
        too_big = args_problem(args)
        if too_big:
            raise ToolError(f"Invalid arguments for tool '{name}': {too_big}", tamper="oversized_args")
        oversized = [key for key, value in args.items() if _oversized_int(value) or _oversized_int(key)]
        if oversized:
            where = ", ".join(f"'{echoed(k)}'" if isinstance(k, str) else "<key>" for k in oversized)
            which = "argument" if len(oversized) == 1 else "arguments"
            raise ToolError(
                f"Invalid arguments for tool '{name}': {which} {where}: integers must lie within +/-{MAX_INT}"
            )
        try:
            inst = spec.args_model.model_validate(args)
        except pydantic.ValidationError as e:
            allowed = [p.name for p in spec.params]
            msgs = _format_errors(e, allowed)
            msgs += [advice for key, advice in spec.misplaced.items() if key in args]
            if len(msgs) > MAX_ERRORS_LISTED:  # thousands of bad keys must not make a megabyte answer
                msgs = [*msgs[:MAX_ERRORS_LISTED], f"and {len(msgs) - MAX_ERRORS_LISTED:,} more problems"]
            raise ToolError(f"Invalid arguments for tool '{name}': " + "; ".join(msgs), tamper=_suspicion(e)) from None
        return {k: getattr(inst, k) for k in type(inst).model_fields}

    def call(self, ctx: Any, name: str, args: dict[str, Any] | None = None) -> ToolResult:
        """Validate and run a tool. Never raises: every failure is an error ToolResult."""
        try:
            kwargs = self.validate(name, args)
        except ToolError as e:
            return ToolResult(ok=False, error=str(e), tamper=e.tamper)
        spec = self._tools[name]
        try:
            data = spec.fn(ctx, **kwargs)
        except ToolError as e:
            return ToolResult(ok=False, error=str(e), tamper=e.tamper)
        except Exception as e:  # noqa: BLE001 - nothing an agent sends may crash a run
            logger.exception("internal error in tool %s", name)
            return ToolResult(ok=False, error=f"internal_error: {type(e).__name__}")
        return ToolResult(ok=True, data=data)

    def _unknown(self, name: str) -> str:
        return f"Unknown tool: {echoed(name)} (available: {', '.join(self._tools) or 'none'})"


# ---------------------------------------------------------------------- tools of a config
class ConfiguredTools:
    """Tools declared once whose descriptions and argument types come from an env's config, so
    what an agent reads of a limit or a fee is what the world enforces (yc's fees and notes, cfo's
    request range; docs/principles.md principles 1 and 5).

    :meth:`tool` declares one: its docstring is a :meth:`str.format` template over
    ``figures(config)``, and each argument named in ``bounded`` is typed by
    ``bounded[name](config)`` (a literal brace in such a docstring is written ``{{``).
    :meth:`registry_for` registers them all for one config, kept for
    the last :data:`CONFIGS_KEPT` configs (keyed by their JSON: a config may hold a dict, so
    it need not be hashable)."""

    CONFIGS_KEPT = 32

    def __init__(self, figures: Callable[[Any], dict[str, str]] | None = None) -> None:
        self._figures = figures
        self._declared: list[tuple[Callable[..., Any], dict[str, Any], dict[str, Callable[[Any], Any]]]] = []
        self._made: dict[str, ToolRegistry] = {}
        self._lock = threading.Lock()  # sessions of one process (a sweep's threads, a server) share it

    def registry_for(self, config: Any) -> ToolRegistry:
        """The registry of ``config``'s tools."""
        key = config.model_dump_json() if isinstance(config, BaseModel) else repr(config)
        with self._lock:
            made = self._made.pop(key, None) or self._build(config)
            self._made[key] = made  # the newest last
            if len(self._made) > self.CONFIGS_KEPT:
                del self._made[next(iter(self._made))]
        return made

    def tool(
        self, bounded: dict[str, Callable[[Any], Any]] | None = None, **options: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Declare a tool (``options`` as :meth:`ToolRegistry.tool`'s)."""

        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            unknown = set(bounded or {}) - set(inspect.signature(fn).parameters)
            if unknown:
                raise TypeError(f"tool {fn.__name__} has no parameter {', '.join(sorted(unknown))}")
            self._declared.append((fn, options, dict(bounded or {})))
            return fn

        return add

    def _build(self, config: Any) -> ToolRegistry:
        values = self._figures(config) if self._figures is not None else {}
        out = ToolRegistry()
        for fn, options, bounded in self._declared:
            types_ = {name: type_of(config) for name, type_of in bounded.items()}
            out.tool(**options)(_configured(fn, (fn.__doc__ or "").format(**values), types_))
        return out


def _configured(fn: Callable[..., Any], doc: str, types_: dict[str, Any]) -> Callable[..., Any]:
    """``fn`` as a registry reads it for one config: this docstring, these parameter types."""

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    tool.__doc__ = doc
    tool.__annotations__ = {**fn.__annotations__, **types_}
    return tool


class ConfiguredRegistry:
    """An env class's ``registry`` attribute for :class:`ConfiguredTools`: on the class, the default
    preset's registry (``bizbench tools ENV``); on an instance, its own config's. The instance keeps
    it beside the config it was made for (hashing a config to find it in the cache cost a tenth of
    a yc baseline year's calls); a copy given another config makes its own."""

    #: the instance attribute it keeps (config, registry) in; not pickled (``EnvBase.__getstate__``)
    CACHE = "_configured_tools"

    def __init__(self, tools: ConfiguredTools, default: ToolRegistry) -> None:
        self.tools, self.default = tools, default

    def __get__(self, env: Any, owner: type) -> ToolRegistry:
        if env is None:
            return self.default
        made = env.__dict__.get(self.CACHE)
        if made is None or made[0] is not env.config:
            made = env.__dict__[self.CACHE] = (env.config, self.tools.registry_for(env.config))
        tools: ToolRegistry = made[1]
        return tools


# ---------------------------------------------------------------------- helpers
def echoed(name: object) -> str:
    """``name`` (a tool's, an argument's or an id an agent sent) as an error quotes it: cut to
    :data:`MAX_ECHOED_NAME` characters, with its length (docs/security.md)."""
    return preview(name, MAX_ECHOED_NAME)


def _suspicion(error: pydantic.ValidationError) -> str | None:
    """Tamper kind of a validation failure: non-finite numbers and negative amounts are logged."""
    errors = error.errors()
    if any(err["type"] == "finite_number" for err in errors):
        return "non_finite"
    bounded = ("greater_than", "greater_than_equal")
    if any(err["type"] in bounded and isinstance(err.get("input"), int | float) and err["input"] < 0 for err in errors):
        return "negative_value"
    return None


def _build_spec(fn: Callable[..., Any], name: str, category: str, mutates: bool) -> ToolSpec:
    if not name.isidentifier():
        raise ValueError(f"tool name must be an identifier, got {name!r}")
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if not params:
        raise TypeError(f"tool {name}: first parameter must be the context object")
    hints = _argument_hints(fn, params[0].name)
    # a functools.partial's docstring is the class's unless one was set on it: else its words are
    # the wrapped function's
    documented = fn.func if isinstance(fn, functools.partial) and "__doc__" not in vars(fn) else fn
    summary, doc_body, arg_docs = _parse_docstring(inspect.getdoc(documented) or "")
    fields: dict[str, Any] = {}
    pdocs: list[ParamDoc] = []
    for p in params[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise TypeError(f"tool {name}: parameter {p.name!r} must be a named parameter")
        if p.name.startswith("_"):
            raise TypeError(f"tool {name}: parameter {p.name!r} must not start with '_'")
        ann = hints.get(p.name, p.annotation)
        if ann is inspect.Parameter.empty:
            raise TypeError(f"tool {name}: parameter {p.name!r} needs a type annotation")
        required = p.default is inspect.Parameter.empty
        desc = arg_docs.get(p.name, "")
        default = ... if required else p.default
        fields[p.name] = (ann, Field(default, description=desc or None))
        pdocs.append(ParamDoc(p.name, ann, _type_str(ann), required, p.default, desc))
    model_name = "".join(w.capitalize() for w in name.split("_")) + "Args"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # field names shadowing BaseModel attributes
        model = create_model(model_name, __config__=_ARG_CONFIG, **fields)
    return ToolSpec(
        name=name,
        category=category,
        description=summary,
        mutates=mutates,
        fn=fn,
        args_model=model,
        params=pdocs,
        doc=doc_body,
    )


def _argument_hints(fn: Callable[..., Any], context_name: str) -> dict[str, Any]:
    """Resolve the annotations of the tool arguments, skipping the context parameter.

    The context type is often imported only under ``TYPE_CHECKING``, so it is left out of
    the resolution; raw annotations are the fallback (e.g. types local to a test).
    """
    shim = types.SimpleNamespace(
        __annotations__={
            k: v for k, v in getattr(fn, "__annotations__", {}).items() if k not in (context_name, "return")
        }
    )
    try:
        # a wrapper (functools.wraps, ConfiguredTools) names types of the wrapped function's module
        return typing.get_type_hints(shim, globalns=getattr(inspect.unwrap(fn), "__globals__", {}), include_extras=True)
    except Exception:  # noqa: BLE001
        return dict(shim.__annotations__)


_SECTION_RE = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_RE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, str, dict[str, str]]:
    """Return (summary, description without sections, {arg: description})."""
    lines = doc.strip().splitlines()
    body: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    base_indent: int | None = None
    for line in lines:
        m = _SECTION_RE.match(line.strip()) if not line.startswith(" ") else None
        if m:
            section = m.group(1)
            current, base_indent = None, None
            continue
        if section is None:
            body.append(line)
            continue
        if section not in ("Args", "Arguments", "Parameters") or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if base_indent is None:
            base_indent = indent
        am = _ARG_RE.match(line.strip())
        if indent <= base_indent and am:
            current = am.group(1).lstrip("*")
            args[current] = am.group(2).strip()
        elif current is not None:
            args[current] = (args[current] + " " + line.strip()).strip()
    text = "\n".join(body).strip()
    summary = " ".join(text.split("\n\n", 1)[0].split()) if text else ""
    return summary, text, args


def _type_str(ann: Any) -> str:
    """A readable type for signatures and docs: ``float (> 0, <= 1e9) | None``, not typing's repr."""
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Annotated:
        limits = [c for meta in args[1:] for c in _constraints(meta)]
        base = _type_str(args[0])
        return f"{base} ({', '.join(limits)})" if limits else base
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_str(a) for a in args)
    if origin is typing.Literal:
        return f"Literal[{', '.join(repr(a) for a in args)}]"
    if ann is type(None):
        return "None"
    if origin is not None and args:
        return f"{getattr(origin, '__name__', str(origin))}[{', '.join(_type_str(a) for a in args)}]"
    if isinstance(ann, type):
        return ann.__name__
    s = repr(ann)
    s = re.sub(r"\btyping(_extensions)?\.", "", s)
    return re.sub(r"\b(?:[a-z_][\w]*\.)+([A-Z]\w*)", r"\1", s)  # module.Class -> Class


_LIMITS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<=", "min_length": "len >=", "max_length": "len <="}


def _constraints(meta: Any) -> list[str]:
    """``['> 0', '<= 1e9']`` from a pydantic FieldInfo or annotated-types markers."""
    items = getattr(meta, "metadata", None) or [meta]
    out = []
    for item in items:
        for attr, op in _LIMITS.items():
            value = getattr(item, attr, None)
            if value is not None and not callable(value):
                out.append(f"{op} {value:g}" if isinstance(value, float) else f"{op} {value}")
    return out


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "title" and isinstance(v, str):
                continue
            if k in ("default", "enum", "const", "examples"):
                out[k] = v
            elif k in ("properties", "$defs", "definitions", "patternProperties"):
                out[k] = {pk: _strip_titles(pv) for pk, pv in v.items()}
            else:
                out[k] = _strip_titles(v)
        return out
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = _strip_titles(model.model_json_schema())
    schema.setdefault("properties", {})
    schema["type"] = "object"
    return schema


_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "string_type": "a string",
    "bool_type": "a boolean (true or false)",
    "bool_parsing": "a boolean (true or false)",
    "dict_type": "an object (mapping)",
    "list_type": "a list",
    "model_type": "an object (mapping)",
    "model_attributes_type": "an object (mapping)",
    "none_required": "null",
}


def _fmt_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


MAX_INT = 2**63 - 1  # larger integers are refused before validation (no tool takes one)


def _oversized_int(value: Any) -> bool:
    """Whether an argument holds an integer beyond 64 bits (Python would refuse to print it); the
    arguments' depth is bounded before (:func:`~bizbench.core.limits.args_problem`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) > MAX_INT
    if isinstance(value, dict):
        return any(_oversized_int(v) or _oversized_int(k) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_oversized_int(v) for v in value)
    return False


def _got(v: Any) -> str:
    try:
        r = repr(v)
    except Exception:  # noqa: BLE001 - e.g. an integer too long to print, or an in-process object's broken repr
        r = f"<{type(v).__name__}>"
    if len(r) > 60:
        r = r[:57] + "..."
    if isinstance(v, bool | int | float | str) or v is None:
        return r
    return f"{r} ({type(v).__name__})"


def _plain_loc(loc: tuple[Any, ...]) -> tuple[str, str | None]:
    """(path, offending key) of an error location in the agent's words.

    pydantic marks a bad dict key as ``(..., key, '[key]')`` and a union member with a tag such
    as ``'list[str]'`` or ``'function-after[...]'``; neither is a name the agent wrote. The first
    part is always the argument's name as sent (a tag only follows it), so it is kept whatever
    its shape: an unknown argument ``'x[1]'`` is named as such.
    """
    key = None
    parts = list(loc)
    if parts and parts[-1] == "[key]":
        key = _got(parts[-2]) if len(parts) >= 2 else None
        parts = parts[:-2]
    parts = parts[:1] + [p for p in parts[1:] if not (isinstance(p, str) and "[" in p and p.endswith("]"))]
    return echoed(_fmt_loc(tuple(parts))), key


def _length(value: Any) -> str:
    try:
        return f"{len(value):,}"
    except TypeError:
        return "?"


def _plain_message(etype: str, ctx: dict[str, Any], msg: str, value: Any) -> tuple[str, str]:
    """(what was expected, what was got) for one pydantic error, in plain words (principle 8).

    Every message reaching an agent reads "expected X, got Y" in its own words: never
    pydantic's ("String should have at most 280 characters", "Value error, ...", "Input should
    be ..."), which names Python types and library internals.
    """
    got = _got(value)
    if etype == "literal_error" or etype == "enum":
        return f"one of {ctx.get('expected', '')}", got
    if etype in _EXPECTED:
        return _EXPECTED[etype], got
    bounds = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}
    if etype in bounds:
        key = {"greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le"}[etype]
        return f"a value {bounds[etype]} {ctx.get(key)}", got
    if etype == "string_too_long":
        return f"a text of at most {ctx.get('max_length')} characters", f"{_length(value)} characters"
    if etype == "string_too_short":
        return f"a text of at least {ctx.get('min_length')} characters", f"{_length(value)} characters"
    if etype == "too_long":
        return f"at most {ctx.get('max_length')} items", f"{_length(value)} items"
    if etype == "too_short":
        return f"at least {ctx.get('min_length')} items", f"{_length(value)} items"
    if etype == "string_pattern_mismatch":
        return f"a text matching the pattern {ctx.get('pattern')}", got
    if etype == "multiple_of":
        return f"a multiple of {ctx.get('multiple_of')}", got
    text = re.sub(r"^Input should be ", "", msg)
    return text[:1].lower() + text[1:], got


def _format_errors(err: pydantic.ValidationError, allowed: list[str]) -> list[str]:
    msgs: list[str] = []
    seen: set[str] = set()
    for e in err.errors(include_url=False):
        etype = e["type"]
        loc = tuple(e["loc"])
        path, key = _plain_loc(loc)
        path = path or "(arguments)"
        ctx = e.get("ctx") or {}
        if etype == "extra_forbidden" and len(loc) == 1:
            allowed_s = ", ".join(allowed) if allowed else "none"
            msg = f"unknown argument '{path}' (allowed: {allowed_s})"
        elif etype == "missing":
            what = "argument" if len(loc) == 1 else "field"
            msg = f"argument '{path}': required {what} is missing"
        elif etype == "extra_forbidden":
            msg = f"argument '{path}': unknown field"
        elif etype in ("value_error", "assertion_error"):
            # a validator's own sentence (e.g. "need lower <= point <= upper, got ..."), without pydantic's prefix
            reason = str(ctx.get("error", "")) or re.sub(r"^(Value error|Assertion failed), ", "", e["msg"])
            msg = f"argument '{path}': {reason}"
        else:
            expected, got = _plain_message(etype, ctx, e["msg"], e.get("input"))
            if key is not None:
                msg = f"argument '{path}': key {key}: expected {expected}, got {got}"
            else:
                msg = f"argument '{path}': expected {expected}, got {got}"
        if msg not in seen:
            seen.add(msg)
            msgs.append(msg)
    return msgs
