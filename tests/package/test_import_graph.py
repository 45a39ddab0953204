"""The import graph of funcarray, built from the source: no large import cycle, and no two
top-level packages that import each other.

Every ``import`` statement counts, inside functions too (a function-level import is still a
dependency, and one edge of a cycle that only moves the failure from import time to call time),
except those under ``if TYPE_CHECKING:``, as import-linter does with
``exclude_type_checking_imports``. The edges listed in the layers contract's ``ignore_imports``
(pyproject.toml) are dropped, so this test tightens as that list shrinks.

An edge goes to the module an import statement names, as grimp (import-linter's graph) records
it: ``import a.b.c`` and ``from a.b import c`` (``c`` a module) are edges to ``a.b.c`` only,
not to ``a`` and ``a.b`` as well, although Python runs the parents' ``__init__`` first. Counting
those would put every package's ``__init__`` in a cycle with each of its submodules that imports
a sibling, which says nothing about how the code depends on itself.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Source folders and the package each installs as (pyproject's package-dir).
SOURCES = {"funcarray": ROOT / "funcarray", "funcarray.transforms": ROOT / "transforms",
           "funcarray.lowering": ROOT / "lowering"}
LARGEST_CYCLE = 10


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's ``__init__``)."""
    modules = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            modules[".".join([package, *parts])] = (path, is_package)
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, except the body of ``if TYPE_CHECKING:``."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
        return
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        children: Iterable[ast.AST] = node.orelse
    else:
        children = ast.iter_child_nodes(node)
    for child in children:
        yield from _import_nodes(child)


def _known(name: str, modules: dict) -> str | None:
    """``name`` if it is a funcarray module, else its nearest ancestor that is, else None."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
             modules: dict) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (target := _known(alias.name, modules)) is not None:
                yield target
        return
    if node.level:
        # Relative: level 1 is the importer's own package (the module itself for an __init__).
        base = module.split(".")
        drop = node.level - 1 if is_package else node.level
        base = base[:len(base) - drop]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        target = submodule if submodule in modules else _known(source, modules)
        if target is not None:
            yield target


def _ignored_imports() -> list[tuple[re.Pattern, re.Pattern]]:
    """The layers contract's ``ignore_imports``, as import-linter reads them (``*`` is one
    name, ``**`` one or more)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c for c in contracts if c.get("type") == "layers"]

    def pattern(text: str) -> re.Pattern:
        parts = [r"[^.]+(\.[^.]+)*" if part == "**" else "[^.]+" if part == "*"
                 else re.escape(part) for part in text.strip().split(".")]
        return re.compile(r"\.".join(parts) + r"\Z")

    return [tuple(pattern(side) for side in line.split("->"))
            for line in layers.get("ignore_imports", [])]


def import_graph() -> dict[str, set[str]]:
    """funcarray module -> the funcarray modules it imports, less the ignored imports."""
    modules = _modules()
    ignored = _ignored_imports()
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        graph[module] = {
            target for target in _imports(path.read_text(), module, is_package, modules)
            if target != module
            and not any(a.match(module) and b.match(target) for a, b in ignored)}
    return graph


def _imports(source: str, module: str, is_package: bool, modules: dict) -> set[str]:
    """The funcarray modules that ``source`` (the text of ``module``) imports."""
    return {target for node in _import_nodes(ast.parse(source))
            for target in _targets(node, module, is_package, modules)}


def strongly_connected_components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the graph is deeper than Python's recursion limit
    allows for)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def _top_level(module: str) -> str | None:
    """The child of ``funcarray`` that ``module`` is in (None for ``funcarray`` itself)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_imports_of_every_kind_are_edges():
    modules = dict.fromkeys(["p", "p.a", "p.b", "p.c", "p.d", "p.q", "p.q.x", "p.q.y"])
    source = """
import numpy
import p.a
from p import b, not_a_module
from typing import TYPE_CHECKING
def f():
    from .x import name
if TYPE_CHECKING:
    from p import c
else:
    from . import d
"""
    # In a module, "." is its package; in a package's __init__, the package itself.
    assert _imports(source, "p.q.y", False, modules) == {"p.a", "p.b", "p", "p.q.x", "p.q"}
    # A name that is no module is an edge to the nearest module above it (p.x.name -> p).
    assert _imports(source, "p.d", False, modules) == {"p.a", "p.b", "p", "p.d"}
    assert _imports(source, "p.q", True, modules | {"p.q.d": None}) == {
        "p.a", "p.b", "p", "p.q.x", "p.q.d"}


def test_the_graph_reads_every_source_folder(graph):
    assert "funcarray.base.array" in graph["funcarray.numpy._reductions"]
    assert graph["funcarray.lowering.cache"], "lowering/ is read as funcarray.lowering"
    assert graph["funcarray.transforms.vmap"], "transforms/ is read as funcarray.transforms"


def test_largest_import_cycle_is_small(graph):
    largest = max(strongly_connected_components(graph), key=len)
    assert len(largest) <= LARGEST_CYCLE, (
        f"{len(largest)} modules import each other in a cycle (at most {LARGEST_CYCLE} "
        f"allowed): {', '.join(largest)}")


def test_no_two_top_level_packages_import_each_other(graph):
    edges: dict[tuple[str, str], tuple[str, str]] = {}
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            pair = (_top_level(module), _top_level(target))
            if None not in pair and pair[0] != pair[1]:
                edges.setdefault(pair, (module, target))
    mutual = sorted({tuple(sorted(pair)) for pair in edges if pair[::-1] in edges})
    assert not mutual, "packages that import each other:\n" + "\n".join(
        f"  {a} <-> {b}: {' -> '.join(edges[a, b])} and {' -> '.join(edges[b, a])}"
        for a, b in mutual)


def test_strongly_connected_components_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": set()}
    components = sorted(strongly_connected_components(graph))
    assert components == [["a", "b", "c"], ["d", "e"], ["f"]]
