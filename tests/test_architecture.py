"""The shape of the package, checked: no import circles, a small top level, and the tracks
asked rather than switched on (see docs/ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memtracks"
TRACK_NAMES = frozenset({"fact", "event", "inference", "temporal"})
MAX_TOP_LEVEL = 12
MAX_TRACK_SWITCHES = 3  # outside tracks/: the storage's premise table, Premise.on_fact
RECORD_TYPES = frozenset({"Fact", "Event", "Inference"})
# outside tracks/: the tiers (5) and fusion (8: sessions, threads, content-free turns); the
# cards ask the tracks for their text (10 before)
MAX_RECORD_SWITCHES = 13


def modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package by dotted name, with whether it is a package's __init__."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def imports(name: str, path: Path, is_package: bool, known: dict[str, tuple[Path, bool]]) -> set[str]:
    """The package's modules that ``name`` imports anywhere: at the top, inside functions and
    under ``TYPE_CHECKING`` alike."""

    def resolve(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    base = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = ".".join(base[: len(base) - node.level + 1] + [node.module or ""]) if node.level else node.module
            module = (module or "").strip(".")
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        else:
            continue
        found |= {t for t in map(resolve, (t for t in targets if t.startswith("memtracks"))) if t and t != name}
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def track_switches() -> Iterator[str]:
    """``x == "fact"``, ``"temporal" != y``, ``x in ("fact", "event")`` outside tracks/."""
    for path in PACKAGE.rglob("*.py"):
        if "tracks" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            for value in (node.left, *node.comparators):
                names = value.elts if isinstance(value, ast.Tuple | ast.List | ast.Set) else [value]
                if any(isinstance(n, ast.Constant) and n.value in TRACK_NAMES for n in names):
                    yield f"{path.relative_to(PACKAGE)}:{node.lineno}"
                    break


def record_switches() -> Iterator[str]:
    """``isinstance(x, Fact)``, ``isinstance(x, Event | Inference)`` outside tracks/: a track's
    record asked what it is rather than its track what to do."""
    for path in PACKAGE.rglob("*.py"):
        if "tracks" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"):
                continue
            if len(node.args) == 2 and RECORD_TYPES & {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}:
                yield f"{path.relative_to(PACKAGE)}:{node.lineno}"


def test_the_package_has_no_import_circles() -> None:
    known = modules()
    graph = {name: imports(name, path, is_package, known) for name, (path, is_package) in known.items()}
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_top_level_keeps_the_public_face_only() -> None:
    top = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert len(top) <= MAX_TOP_LEVEL, top
    for face in ("memory", "config", "errors", "records", "scopes", "toolkit"):
        assert face in top


def test_the_tracks_are_asked_not_switched_on() -> None:
    found = list(track_switches())
    assert len(found) <= MAX_TRACK_SWITCHES, found


def test_the_records_are_not_asked_what_they_are() -> None:
    found = list(record_switches())
    assert len(found) <= MAX_RECORD_SWITCHES, found
    assert not [f for f in found if f.startswith("retrieval/cards.py")], found
