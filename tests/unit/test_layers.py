"""The package's layers hold by test (ARCHITECTURE.md): each module imports only from its own
layer or below, no import cycle (top-level or function-level), and no private name crosses a
module boundary. Imports under ``if TYPE_CHECKING:`` are annotations only and not counted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "connect_plan"

#: module name prefixes, lowest layer first; a module belongs to the first layer whose
#: prefix matches it exactly or as a package
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",
        (
            "connect_plan.records",
            "connect_plan.errors",
            "connect_plan.names",
            "connect_plan.error_codes",
            "connect_plan.limits",
            "connect_plan.shapes",
            "connect_plan.types",
            "connect_plan.functions",
            "connect_plan.ir",
            "connect_plan._pyspark_import",
            "connect_plan.spark_proto",
            "connect_plan.arrow_types",
        ),
    ),
    ("data", ("connect_plan.data",)),
    ("front-ends", ("connect_plan.formats",)),
    ("policy", ("connect_plan.policy",)),
    ("translator", ("connect_plan.translator",)),
    ("drawing", ("connect_plan.drawing",)),
    # the execution layer, ordered: records and plain values; failures described and results
    # checked; the channel and retries; the gRPC transport; the seam that opens it; inputs
    # placed through the seam; the launchers
    (
        "execution: records",
        (
            "connect_plan.deadlines",
            "connect_plan.responses",
            "connect_plan.call_failures",
            # the result contract: what a plan declares of its result, against what came back
            "connect_plan.contract",
            "connect_plan.telemetry",
            "connect_plan.versions",
            "connect_plan.udf",
        ),
    ),
    ("execution: failures and results", ("connect_plan.server_errors", "connect_plan.results")),
    ("execution: channel", ("connect_plan.retries", "connect_plan.channel")),
    ("execution: transport", ("connect_plan.grpc_transport",)),
    ("execution: seam", ("connect_plan.transport",)),
    ("execution: inputs", ("connect_plan.inputs",)),
    # the launchers import only errors; the client asks them for the local server's URL
    ("execution: launchers", ("connect_plan.server", "connect_plan.sail")),
    ("client", ("connect_plan.client",)),
    (
        "drivers",
        (
            "connect_plan.output",
            "connect_plan.cli",
            # the Flight SQL front door (connect-plan serve), beside the CLI
            "connect_plan.flightsql",
            "connect_plan.display",
            "connect_plan.fixtures",
            "connect_plan.__main__",
            "connect_plan",
        ),
    ),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or (prefix != "connect_plan" and module.startswith(prefix + ".")):
                return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS in {__file__}")


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                for n in ast.walk(sub):
                    inside.add(id(n))
    return inside


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, str, int]]:
    """``(imported module, imported name or '', line)`` for every import of the package."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_blocks(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("connect_plan"):
                    yield alias.name, "", node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("connect_plan"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:  # ``from . import ir`` imports a module
                    yield sub, "", node.lineno
                else:
                    yield target, alias.name, node.lineno


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for name, path in known.items():
        for target, _, _ in imports(name, path, known):
            if target != name:
                edges[name].add(target)
    return edges


def test_every_module_has_a_layer() -> None:
    for name in modules():
        layer_of(name)


def test_the_execution_layer_is_ordered() -> None:
    """The transport stack has an order of its own: a module of it importing one above it
    (the channel the transport, the checker the transport...) fails the layer test."""
    order = [
        "connect_plan.call_failures",
        "connect_plan.server_errors",
        "connect_plan.retries",
        "connect_plan.grpc_transport",
        "connect_plan.transport",
        "connect_plan.inputs",
        "connect_plan.server",
    ]
    ranks = [layer_of(m) for m in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks), dict(zip(order, ranks))
    assert layer_of("connect_plan.results") < layer_of("connect_plan.grpc_transport")
    assert layer_of("connect_plan.channel") < layer_of("connect_plan.grpc_transport")


def test_modules_import_only_their_layer_or_below() -> None:
    known = modules()
    upward = []
    for name, path in known.items():
        for target, _, line in imports(name, path, known):
            if layer_of(target) > layer_of(name):
                upward.append(
                    f"{path.relative_to(ROOT)}:{line}: {name} ({LAYERS[layer_of(name)][0]}) imports "
                    f"{target} ({LAYERS[layer_of(target)][0]})"
                )
    assert not upward, "\n".join(upward)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    """A package importing its own submodules is one edge; a submodule importing its
    package back (``from . import x`` of a name the package defines) closes a cycle."""
    assert _cycles(graph()) == []


def test_no_private_name_crosses_a_module() -> None:
    known = modules()
    crossing = [
        f"{path.relative_to(ROOT)}:{line}: from {target} import {imported}"
        for name, path in known.items()
        for target, imported, line in imports(name, path, known)
        if imported.startswith("_") and not imported.startswith("__") and target != name
    ]
    assert not crossing, "\n".join(crossing)


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_the_cycle_finder_finds_cycles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert _cycles(edges) == expected
