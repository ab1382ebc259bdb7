"""The mutation score of the code that decides a score or a verdict (`make mutants`, docs/testing.md).

Reads mutmut's verdicts (``mutmut results --all true``) and the survivors docs/testing.md
explains, prints each module's mutants, killed and survivors, and exits 1 when fewer than
90 % of the mutants that are not listed as equivalent are killed, or when a survivor is not
explained. A timeout, a crash and a type-check failure count as killed (the change was
noticed); a mutant no test runs counts as survived.

    python tests/mutants_report.py [--results FILE] [--doc docs/testing.md] [--markdown]
    python tests/mutants_report.py --retry-survivors [--mutants mutants]
    python tests/mutants_report.py --save-checkpoint [--checkpoint FILE] [--mutants mutants]
    python tests/mutants_report.py --restore-checkpoint [--audit N] [--checkpoint FILE] [--mutants mutants]

``--retry-survivors`` (a step of `make mutants`) clears mutmut's kept verdict of every survivor
docs/testing.md does not explain, so the run tries it again: mutmut keeps a verdict until the
mutated function changes, so a survivor that a new test kills would otherwise still count as one.

A full run takes longer than a working session on 2 cores, so its verdicts are kept in git:
``--save-checkpoint`` writes mutmut's kept verdicts (``mutants/**/*.py.meta``: each mutant's
verdict and the hash of each mutated function) to ``CHECKPOINT``; on a machine with no
``mutants/`` yet, ``--restore-checkpoint`` writes them back, and mutmut keeps each verdict whose
function is unchanged, as it does between two runs on one machine. A checkpoint made under another
``[tool.mutmut]`` configuration or heavy-test list is not restored. ``--audit N`` clears N kept
kills, drawn at random (seeded by the checkpoint's bytes), so the run checks them again: a kill a
later change of the tests undid shows up as an unexplained survivor.
"""

from __future__ import annotations

import argparse
import fnmatch
import gzip
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = ROOT / "tests" / "mutants_checkpoint.json.gz"
REQUIRED_SCORE = 0.90
KILLED = {"killed", "timeout", "caught by type check", "segfault"}
SURVIVED = {"survived", "no tests", "suspicious"}
#: a row of docs/testing.md's survivor table: | `mutant` | equivalent, accepted or killed | why |
#: (killed: code that runs only at import, which mutmut cannot switch on, and that a named test
#: kills when the mutant is applied to the source); the
#: mutant may be a glob over one function's mutants (``...x_prompt__mutmut_*``)
SURVIVOR_ROW = re.compile(r"^\|\s*`(?P<name>[^`]+__mutmut_[\d*]+)`\s*\|\s*(?P<kind>equivalent|accepted|killed)\s*\|")


@dataclass
class ModuleScore:
    """One module's mutants by verdict."""

    statuses: Counter[str] = field(default_factory=Counter)
    equivalent: int = 0
    accepted: int = 0
    killed_by_hand: int = 0

    @property
    def killed(self) -> int:
        return sum(n for s, n in self.statuses.items() if s in KILLED) + self.killed_by_hand

    @property
    def survived(self) -> int:
        return sum(n for s, n in self.statuses.items() if s in SURVIVED) - self.killed_by_hand

    @property
    def counted(self) -> int:
        """The mutants that count: all checked ones but the equivalent."""
        return self.killed + self.survived - self.equivalent


def module_of(mutant: str) -> str:
    """``bizbench.core.ledger.xǁLedgerǁpost__mutmut_3`` -> ``bizbench.core.ledger``."""
    return re.split(r"\.x[_ǁ]", mutant, maxsplit=1)[0]


def parse_results(text: str) -> dict[str, str]:
    """``name: status`` lines of ``mutmut results --all true``."""
    out = {}
    for line in text.splitlines():
        name, sep, status = line.strip().partition(": ")
        if sep and "__mutmut_" in name:
            out[name] = status.strip()
    return out


def explained_survivors(doc: str) -> dict[str, str]:
    """The survivors docs/testing.md lists, each with its kind (equivalent, accepted or killed)."""
    return {m["name"]: m["kind"] for line in doc.splitlines() if (m := SURVIVOR_ROW.match(line.strip()))}


def explanation(name: str, explained: dict[str, str]) -> str | None:
    """The kind docs/testing.md gives this mutant, by its name or a glob that matches it."""
    return explained.get(name) or next((k for g, k in explained.items() if fnmatch.fnmatchcase(name, g)), None)


def score(results: dict[str, str], explained: dict[str, str]) -> dict[str, ModuleScore]:
    modules: dict[str, ModuleScore] = {}
    for name, status in sorted(results.items()):
        module = modules.setdefault(module_of(name), ModuleScore())
        module.statuses[status] += 1
        kind = explanation(name, explained) if status in SURVIVED else None
        if kind:
            if kind == "equivalent":
                module.equivalent += 1
            elif kind == "killed":
                module.killed_by_hand += 1
            else:
                module.accepted += 1
    return modules


def render(modules: dict[str, ModuleScore], markdown: bool) -> str:
    total = ModuleScore()
    for m in modules.values():
        total.statuses.update(m.statuses)
        total.equivalent += m.equivalent
        total.accepted += m.accepted
        total.killed_by_hand += m.killed_by_hand
    header = ("module", "mutants", "killed", "survived", "equivalent", "accepted", "score")
    rows = [  # a module none of whose mutants was checked yet has no score
        (name, m.killed + m.survived, m.killed, m.survived, m.equivalent, m.accepted)
        + (f"{m.killed / m.counted:.1%}" if m.counted else "-",)
        for name, m in [*sorted(modules.items()), ("total", total)]
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += [f"| `{r[0]}` | " + " | ".join(map(str, r[1:])) + " |" for r in rows]
    else:
        lines = [f"{header[0]:<44}" + "".join(f"{h:>11}" for h in header[1:])]
        lines += [f"{r[0]:<44}" + "".join(f"{v:>11}" for v in r[1:]) for r in rows]
    return "\n".join(lines)


def _metas(mutants: Path) -> list[Path]:
    return sorted(mutants.rglob("*.py.meta"))


def retry_survivors(mutants: Path, explained: dict[str, str]) -> int:
    """Clear the kept verdict of every survivor in mutmut's ``*.meta`` files under ``mutants`` (an
    exit code whose status is a survivor's) that ``explained`` (docs/testing.md's table) does not
    explain; return how many were cleared. An explained survivor stays: an equivalent one cannot
    die, and trying it again costs every test that reaches its function."""
    from mutmut.stats import status_by_exit_code  # mutmut's own exit-code meanings (a dev dependency)

    cleared = 0
    for meta in _metas(mutants):
        data = json.loads(meta.read_text())
        verdicts = data.get("exit_code_by_key", {})
        survivors = [
            name
            for name, code in verdicts.items()
            if status_by_exit_code.get(code) in SURVIVED and not explanation(name, explained)
        ]
        if survivors:
            verdicts.update(dict.fromkeys(survivors))
            meta.write_text(json.dumps(data, indent=4))
            cleared += len(survivors)
    return cleared


def configuration_digest(root: Path = ROOT) -> str:
    """What a kept verdict depends on besides the code: ``[tool.mutmut]`` and the heavy-test list."""
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mutmut"]
    heavy = (root / "tests" / "heavy_tests.txt").read_text()
    return hashlib.sha256(json.dumps([config, heavy], sort_keys=True).encode()).hexdigest()


def save_checkpoint(mutants: Path, checkpoint: Path, root: Path = ROOT) -> int:
    """Write every ``*.py.meta`` under ``mutants`` (verdicts and function hashes) to ``checkpoint``;
    return how many mutants have a verdict."""
    files = {}
    for meta in _metas(mutants):
        data = json.loads(meta.read_text())
        files[meta.relative_to(mutants).as_posix()] = {
            "exit_code_by_key": data["exit_code_by_key"],
            "hash_by_function_name": data.get("hash_by_function_name", {}),
        }
    payload = {"format": 1, "configuration": configuration_digest(root), "files": files}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    checkpoint.write_bytes(gzip.compress(text.encode(), mtime=0))
    return _with_verdict(files)


def _with_verdict(files: dict[str, dict[str, dict[str, int | None]]]) -> int:
    """How many mutants of a checkpoint's ``files`` have a verdict."""
    return sum(code is not None for f in files.values() for code in f["exit_code_by_key"].values())


def restore_checkpoint(checkpoint: Path, mutants: Path, audit: int = 0, root: Path = ROOT) -> str:
    """Write ``checkpoint``'s verdicts as mutmut's ``*.py.meta`` files under ``mutants`` when it has
    none, clearing ``audit`` kept kills drawn at random (their names go to ``mutants/audit.txt``);
    return what was done, in words."""
    if _metas(mutants):
        return f"{mutants} already holds verdicts: kept them, the checkpoint is not restored"
    if not checkpoint.exists():
        return f"no checkpoint at {checkpoint}: every mutant is checked"
    raw = checkpoint.read_bytes()
    payload = json.loads(gzip.decompress(raw))
    if payload["configuration"] != configuration_digest(root):
        return "the checkpoint was made under another [tool.mutmut] or heavy-test list: every mutant is checked"
    files = payload["files"]
    kills = sorted(name for f in files.values() for name, code in f["exit_code_by_key"].items() if code == 1)
    audited = set(random.Random(hashlib.sha256(raw).hexdigest()).sample(kills, min(audit, len(kills))))
    for rel, f in files.items():
        meta = mutants / rel
        meta.parent.mkdir(parents=True, exist_ok=True)
        verdicts = {name: None if name in audited else code for name, code in f["exit_code_by_key"].items()}
        empty: dict[str, float] = {}  # mutmut's other keys, filled again by the run
        data = {
            "exit_code_by_key": verdicts,
            "hash_by_function_name": f["hash_by_function_name"],
            "type_check_error_by_key": empty,
            "durations_by_key": empty,
            "estimated_durations_by_key": empty,
        }
        meta.write_text(json.dumps(data, indent=4))
    (mutants / "audit.txt").write_text("".join(f"{name}\n" for name in sorted(audited)))
    restored = _with_verdict(files) - len(audited)
    return f"restored {restored} verdicts from {checkpoint.name}; {len(audited)} kept kills will be checked again"


#: a test's time limit under a mutant (``make mutants``): the tests it runs take under a second
#: each (the heavy ones are left out), so one still running after a minute has hung. mutmut's own
#: limit covers all of a mutant's tests and waits 4 x (their time + 10 s): minutes for a world's.
MUTANT_TEST_TIMEOUT = 60


def under_a_mutant(environ: Mapping[str, str]) -> bool:
    """This process runs a mutant (not mutmut's first pass, ``stats``, nor its clean run)."""
    return "__mutmut_" in environ.get("MUTANT_UNDER_TEST", "")


def mutant_pythonpath(environ: Mapping[str, str]) -> str | None:
    """The ``$PYTHONPATH`` that makes a started process run the mutant under test: mutmut activates
    a mutant in this process only (its copy of ``src`` on ``sys.path``, the mutant's name in
    ``$MUTANT_UNDER_TEST``), so that copy goes first. None outside a mutant (and in mutmut's first
    pass, ``stats``, whose bookkeeping works in its own process only)."""
    if not under_a_mutant(environ):
        return None
    import bizbench

    rest = [environ["PYTHONPATH"]] if environ.get("PYTHONPATH") else []  # an empty entry would add the cwd
    return os.pathsep.join([str(Path(bizbench.__file__).parents[1]), *rest])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, help="saved `mutmut results --all true` output (default: run it)")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "testing.md")
    parser.add_argument("--markdown", action="store_true", help="the table as markdown (for docs/testing.md)")
    parser.add_argument("--retry-survivors", action="store_true", help="clear unexplained survivors' verdicts, exit")
    parser.add_argument("--mutants", type=Path, default=ROOT / "mutants", help="mutmut's working directory")
    parser.add_argument("--checkpoint", type=Path, default=CHECKPOINT, help="the kept verdicts in git")
    parser.add_argument("--save-checkpoint", action="store_true", help="write mutants/'s verdicts to it and exit")
    parser.add_argument("--restore-checkpoint", action="store_true", help="write its verdicts to mutants/, exit")
    parser.add_argument("--audit", type=int, default=0, help="with --restore-checkpoint: kept kills to check again")
    ns = parser.parse_args(argv)
    if ns.retry_survivors:
        cleared = retry_survivors(ns.mutants, explained_survivors(ns.doc.read_text()))
        print(f"{cleared} survivors docs/testing.md does not explain will be tried again")
        return 0
    if ns.save_checkpoint:
        print(f"{save_checkpoint(ns.mutants, ns.checkpoint)} verdicts saved to {ns.checkpoint}")
        return 0
    if ns.restore_checkpoint:
        print(restore_checkpoint(ns.checkpoint, ns.mutants, ns.audit))
        return 0
    if ns.results:
        text = ns.results.read_text()
    else:
        run = [sys.executable, "-m", "mutmut", "results", "--all", "true"]
        text = subprocess.run(run, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    results = parse_results(text)
    if not results:
        print("no mutmut results: run `make mutants` first", file=sys.stderr)
        return 2
    explained = explained_survivors(ns.doc.read_text())
    modules = score(results, explained)
    print(render(modules, ns.markdown))
    unexplained = sorted(n for n, s in results.items() if s in SURVIVED and not explanation(n, explained))
    survivors = [n for n, s in results.items() if s in SURVIVED]
    stale = sorted(g for g in explained if not any(fnmatch.fnmatchcase(n, g) for n in survivors))
    unchecked = sorted(n for n, s in results.items() if s not in KILLED | SURVIVED)
    audit = ns.mutants / "audit.txt"
    audited = audit.read_text().split() if audit.exists() else []
    undone = sorted(n for n in audited if results.get(n) not in KILLED)
    if audited:
        print(f"\naudit: {len(audited)} kills kept from the checkpoint checked again, {len(undone)} not killed now")
    for title, names in (
        ("survivors docs/testing.md does not explain", unexplained),
        ("listed in docs/testing.md but no longer surviving", stale),
        ("not checked", unchecked),
        ("kept kills the audit found undone", undone),
    ):
        if names:
            print(f"\n{len(names)} {title}:")
            print("\n".join(f"  {n}: {results.get(n, '(not a mutant now)')}" for n in names))
    counted = sum(m.counted for m in modules.values())
    killed = sum(m.killed for m in modules.values())
    rate = killed / max(counted, 1)
    print(f"\nkilled {killed} of {counted} non-equivalent mutants: {rate:.1%} (required {REQUIRED_SCORE:.0%})")
    return 0 if rate >= REQUIRED_SCORE and not unexplained and not unchecked and not undone else 1


if __name__ == "__main__":
    sys.exit(main())
