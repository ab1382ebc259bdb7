"""Shell-style commands over a tool registry: ``task assign --task-id T --employees E1,E2``.

The words before the first flag name the tool, joined by ``_`` (``market browse`` ->
``market_browse``; a word may hold underscores itself: ``fund_raising_request``, and the
longest tool name wins). Each ``--flag value`` (or ``--flag=value``) is a parameter (dashes ->
underscores), converted by the parameter's JSON-Schema type: integers, numbers, booleans
(``true``/``false`` or a bare flag), lists (comma-separated, or a JSON list when the value is
one), objects (JSON:
``--predictions '{"cash_1wk": ...}'``) and strings. Validation itself stays in the registry,
so a command and the equivalent tool call give the same answer (docs/principles.md principle 1).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bizbench.core.errors import ToolError
from bizbench.core.jsonio import preview

__all__ = [
    "ECHO_CHARS",
    "HELP_FLAGS",
    "INTEGER",
    "NUMBER",
    "command_help",
    "command_names",
    "parse_command",
    "wants_help",
]

HELP_FLAGS = ("--help",)  # after the command words: that command's help, as JSON
ECHO_CHARS = 100  # an error quotes at most this much of a word the caller typed (a bounded answer)
# What a number typed on a shell may look like: ASCII digits (not int() or float(), which take "1_0",
# " 7", "+3" and other scripts' digits). A number may have a fraction and an exponent.
# At most 100 digits: a 64-bit integer has 19, and Python's int() refuses over 4,300 (the range check
# that follows names the argument's limits).
INTEGER = re.compile(r"-?[0-9]{1,100}")
NUMBER = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def echo(text: str) -> str:
    """A word the caller typed, as an error quotes it: bounded (core.jsonio.preview)."""
    return preview(text, ECHO_CHARS)


Schemas = Mapping[str, Mapping[str, Any]]  # tool name -> JSON Schema of its arguments


def command_names(schemas: Schemas) -> list[str]:
    """Every command as typed on a shell: ``market_browse`` -> ``market browse``."""
    return [name.replace("_", " ") for name in schemas]


def parse_command(schemas: Schemas, words: Sequence[str], more: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
    """(tool name, arguments) of a command line; a ToolError naming the problem otherwise.

    ``schemas`` is ``ToolRegistry.parameter_schemas()`` (or its JSON copy: no registry needed);
    ``more``: the other commands the caller answers (``help``, ``sim init`` ...), listed with the
    tools when the words name none. A flag given twice is an error naming it (never "the last wins").
    """
    words = list(words)
    head = _until_flag(words)
    found = _longest_tool(schemas, head)
    if found is None:
        raise _unknown(" ".join(head), schemas, more, tamper="unknown_tool" if head else None)
    name, used = found
    rest = words[used:]
    props: Mapping[str, Any] = schemas[name].get("properties", {})
    args: dict[str, Any] = {}
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.startswith("--") or len(word) <= 2:
            raise ToolError(f"Unexpected '{echo(word)}' in '{name.replace('_', ' ')}': give arguments as --name value.")
        key, _, inline = word[2:].partition("=")
        param = key.replace("-", "_")
        if param not in props:
            allowed = ", ".join(f"--{p.replace('_', '-')}" for p in props) or "none"
            raise ToolError(f"Unknown flag --{echo(key)} for '{name.replace('_', ' ')}' (allowed: {allowed}).")
        if param in args:
            raise ToolError(f"Flag --{echo(key)} is given twice in '{name.replace('_', ' ')}'; give each flag once.")
        schema = props[param]
        if inline:
            value, i = inline, i + 1
        elif _is_bool(schema) and (i + 1 >= len(rest) or rest[i + 1].startswith("--")):
            value, i = "true", i + 1
        elif i + 1 < len(rest):
            value, i = rest[i + 1], i + 2
        else:
            raise ToolError(f"Flag --{echo(key)} needs a value.")
        args[param] = _convert(value, schema, key)
    return name, args


def wants_help(words: Sequence[str]) -> bool:
    """Whether a command line asks for help: ``help [COMMAND]`` or ``COMMAND --help``."""
    return bool(words) and (words[0] == "help" or any(w in HELP_FLAGS for w in words))


def command_help(registry: Any, words: Sequence[str], more: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The JSON help of ``help [COMMAND]`` / ``COMMAND --help`` from a ``ToolRegistry``: every command
    with its description, or one command's description, details and flags (docs/principles.md
    principle 1: generated from the registry). ``more``: the caller's other commands -> what they do.
    A ToolError when the words name no command."""
    head = [w for w in _until_flag([w for w in words if w not in HELP_FLAGS]) if w != "help"] if words else []
    more = dict(more or {})
    if not head:
        commands = [{"command": s.name.replace("_", " "), "description": s.description} for s in registry.specs()]
        commands += [{"command": c, "description": d} for c, d in more.items()]
        return {
            "usage": "<command words> [--flag value ...]; 'help COMMAND' or 'COMMAND --help' for its flags",
            "commands": commands,
        }
    schemas = registry.parameter_schemas()
    found = _longest_tool(schemas, head)
    if found is None or found[1] != len(head):
        typed = " ".join(head)

        def starts(command: str) -> bool:  # by whole words: "task" names "task cancel", not "tasks"
            return command == typed or command.startswith(typed + " ")

        tools = [
            {"command": c, "description": registry.spec(n).description}
            for n, c in zip(schemas, command_names(schemas), strict=True)
            if starts(c)
        ]
        others = [{"command": c, "description": d} for c, d in more.items() if starts(c)]
        if len(tools) + len(others) == 1 and others:  # "help sim init" names "sim init --seed N ..."
            return others[0]
        if tools or others:  # a prefix: every command it starts ("help task", "help sim")
            return {"usage": "'help COMMAND' or 'COMMAND --help' for its flags", "commands": tools + others}
        raise _unknown(typed, schemas, more)
    spec = registry.spec(found[0])
    flags = []
    for p in spec.params:
        flag: dict[str, Any] = {"flag": "--" + p.name.replace("_", "-"), "type": p.type_str, "required": p.required}
        if not p.required:
            flag["default"] = p.default
        flag["description"] = p.description
        flags.append(flag)
    out: dict[str, Any] = {"command": spec.name.replace("_", " "), "description": spec.description}
    details = _details(spec.doc)
    if details:
        out["details"] = details
    out["read_only"] = not spec.mutates
    out["flags"] = flags
    return out


def _details(doc: str) -> str:
    """A tool's docstring after its first paragraph (the description, which may span lines)."""
    lines = doc.strip().splitlines()
    blank = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    return "\n".join(lines[blank:]).strip()


def _unknown(typed: str, schemas: Schemas, more: Iterable[str], tamper: str | None = None) -> ToolError:
    """The error of words that name no command: what was typed (bounded) and every command."""
    listed = ", ".join([*command_names(schemas), *more])
    return ToolError(f"Unknown command: {echo(typed) or '(none)'}. Commands: {listed}", tamper=tamper)


def _until_flag(words: list[str]) -> list[str]:
    out = []
    for w in words:
        if w.startswith("--"):
            break
        out.append(w)
    return out


def _longest_tool(schemas: Schemas, head: list[str]) -> tuple[str, int] | None:
    """(tool, number of words it took) of the longest tool name the first words spell."""
    for n in range(len(head), 0, -1):
        candidate = "_".join(head[:n])
        if candidate in schemas:
            return candidate, n
    return None


def _types(schema: Mapping[str, Any]) -> list[str]:
    """JSON-Schema types of a parameter, looking through ``anyOf`` (optional parameters)."""
    if "anyOf" in schema:
        return [t for s in schema["anyOf"] for t in _types(s)]
    if "$ref" in schema:  # a referenced pydantic model: an object
        return ["object"]
    t = schema.get("type")
    return [t] if isinstance(t, str) else list(t or [])


def _is_bool(schema: Mapping[str, Any]) -> bool:
    return "boolean" in _types(schema)


def _json(text: str, flag: str, kind: type | tuple[type, ...], what: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError as e:
        raise ToolError(f"--{flag} expects {what}, got '{echo(text)}' ({e}).") from None
    if not isinstance(value, kind):
        raise ToolError(f"--{flag} expects {what}, got '{echo(text)}'.")
    return value


def _convert(text: str, schema: Mapping[str, Any], flag: str) -> Any:
    types = _types(schema)
    if not types:  # an untyped value: JSON if it reads as JSON, else the text
        try:
            return json.loads(text)
        except ValueError:
            return text
    if "object" in types and (text.lstrip()[:1] == "{" or "array" not in types):
        return _json(text, flag, dict, "a JSON object, e.g. '{\"key\": 1}'")
    if "array" in types:
        if text.lstrip()[:1] == "[":  # a JSON list, if it is one (else the words between commas)
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            if isinstance(value, list):
                return value
        arrays = [s for s in schema.get("anyOf", [schema]) if s.get("type") == "array"]
        items: dict[str, Any] = arrays[0].get("items", {}) if arrays else {}
        return [_convert(part.strip(), items, flag) for part in text.split(",") if part.strip()]
    if "integer" in types:
        if not INTEGER.fullmatch(text):
            raise ToolError(f"--{flag} expects an integer (up to 100 digits 0-9, an optional '-'), got '{echo(text)}'.")
        return int(text)
    if "number" in types:
        if not NUMBER.fullmatch(text):
            raise ToolError(f"--{flag} expects a number (digits 0-9 as in 2.5, -3 or 2e7), got '{echo(text)}'.")
        return float(text)
    if "boolean" in types:
        if text.lower() in ("true", "1", "yes"):
            return True
        if text.lower() in ("false", "0", "no"):
            return False
        raise ToolError(f"--{flag} expects true or false, got '{echo(text)}'.")
    return text
