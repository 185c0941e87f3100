"""Structure of the Substrait front-end, read from its source and its tables: proto enums are
named, never numbered, and every name is a value of the schema; the function table agrees with
the spec's extension files and lists every producer's spelling of the functions it knows."""

from __future__ import annotations

import ast
import base64
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2

from connect_plan.formats.substrait import descriptors
from connect_plan.formats.substrait import spellings as sp
from connect_plan.formats.substrait.proto import message_class, pool

ROOT = Path(__file__).resolve().parents[2]
FRONT_END = ROOT / "connect_plan" / "formats" / "substrait"

#: each spelling table keyed by enum value names → (the enum, the values it leaves out on purpose)
ENUM_TABLES: dict[str, tuple[str, frozenset[str]]] = {
    "JOIN_TYPES": ("substrait.JoinRel.JoinType", frozenset()),
    "REWRITTEN_JOINS": ("substrait.JoinRel.JoinType", frozenset()),
    "SET_COMPARISONS": ("substrait.Expression.Subquery.SetComparison.ComparisonOp", frozenset()),
    "REDUCTIONS": ("substrait.Expression.Subquery.SetComparison.ReductionOp", frozenset()),
    "SET_PREDICATES": ("substrait.Expression.Subquery.SetPredicate.PredicateOp", frozenset()),
    "SORT_DIRECTIONS": ("substrait.SortField.SortDirection", frozenset()),
    "SET_OPS": ("substrait.SetRel.SetOp", frozenset()),
    # the partial phases: Spark runs whole aggregations only (a located error)
    "WHOLE_AGGREGATION_PHASES": (
        "substrait.AggregationPhase",
        frozenset(
            {
                "AGGREGATION_PHASE_INITIAL_TO_INTERMEDIATE",
                "AGGREGATION_PHASE_INTERMEDIATE_TO_INTERMEDIATE",
                "AGGREGATION_PHASE_INTERMEDIATE_TO_RESULT",
            }
        ),
    ),
    # DELETE and UPDATE have no DataFrame write
    "WRITE_OPS": ("substrait.WriteRel.WriteOp", frozenset({"WRITE_OP_DELETE", "WRITE_OP_UPDATE"})),
    # ERROR_IF_EXISTS is the save mode "error", the default
    "CREATE_MODES": ("substrait.WriteRel.CreateMode", frozenset({"CREATE_MODE_ERROR_IF_EXISTS"})),
}

#: the names of the spec <=0.52 aliases: a number never resolves to them (the current name comes first)
ALIASES = frozenset({"JOIN_TYPE_SEMI", "JOIN_TYPE_ANTI", "JOIN_TYPE_SINGLE"})


def _enums() -> Iterator[tuple[str, list[str]]]:
    """(full name, value names) of every enum of the superset schema."""
    fds = descriptor_pb2.FileDescriptorSet.FromString(base64.b64decode("".join(descriptors.FILE_DESCRIPTOR_SET_B64)))

    def walk(prefix: str, messages: list[descriptor_pb2.DescriptorProto]) -> Iterator[tuple[str, list[str]]]:
        for m in messages:
            name = f"{prefix}.{m.name}"
            for e in m.enum_type:
                yield f"{name}.{e.name}", [v.name for v in e.value]
            yield from walk(name, list(m.nested_type))

    for f in fds.file:
        for e in f.enum_type:
            yield f"{f.package}.{e.name}", [v.name for v in e.value]
        yield from walk(f.package, list(f.message_type))


def _constants() -> list[tuple[str, str, int]]:
    """(module, string, line) of every upper-snake string constant in the front-end's source
    (the generated schema excepted)."""
    out = []
    for path in sorted(FRONT_END.glob("*.py")):
        if path.name == "descriptors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", node.value):
                    out.append((path.name, node.value, node.lineno))
    return out


def test_every_enum_name_in_the_source_is_a_value_of_the_schema() -> None:
    """A string spelled like a value of one of the schema's enums (it starts with that enum's
    value prefix, ``JOIN_TYPE_``...) must be one of its values: a typo would never match."""
    enums = dict(_enums())
    prefixes = {}
    for name, values in enums.items():
        prefix = values[0].rpartition("_UNSPECIFIED")[0] + "_" if values[0].endswith("_UNSPECIFIED") else None
        if prefix:
            prefixes[prefix] = name
    known = {v for values in enums.values() for v in values}
    seen = []
    wrong = []
    for module, value, line in _constants():
        prefix = next((p for p in prefixes if value.startswith(p)), None)
        if prefix is None:
            continue
        seen.append(value)
        if value not in known:
            wrong.append(f"{module}:{line}: {value!r} is no value of {prefixes[prefix]}")
    assert not wrong, "\n".join(wrong)
    # the check saw the names the converter reads (it cannot pass by finding none)
    assert {"JOIN_TYPE_LEFT_SEMI", "BOUNDS_TYPE_ROWS", "AGGREGATION_INVOCATION_DISTINCT"} <= set(seen)


@pytest.mark.parametrize("table", sorted(ENUM_TABLES))
def test_each_enum_table_names_values_of_its_enum(table: str) -> None:
    enum_name = ENUM_TABLES[table][0]
    values = [v.name for v in pool().FindEnumTypeByName(enum_name).values]
    keys = set(getattr(sp, table))
    assert keys <= set(values), sorted(keys - set(values))
    assert not keys & ALIASES


def test_the_enum_tables_cover_their_enums() -> None:
    """Every value of each enum is read by some table, or left out on purpose (unspecified: an
    error, or the default the code names)."""
    covered: dict[str, set[str]] = {}
    for table, (enum_name, left_out) in ENUM_TABLES.items():
        covered.setdefault(enum_name, set()).update(getattr(sp, table), left_out)
    for enum_name, names in covered.items():
        values = {v.name for v in pool().FindEnumTypeByName(enum_name).values} - ALIASES
        missing = {v for v in values - names if not v.endswith("_UNSPECIFIED")}
        assert not missing, (enum_name, sorted(missing))


def test_a_number_with_an_alias_gives_the_current_name() -> None:
    from connect_plan.formats.substrait.state import enum_name

    join = message_class("substrait.JoinRel")(type=5)
    assert enum_name(join, "type") == "JOIN_TYPE_LEFT_SEMI"
    join.type = 99  # proto3 enums are open: a number no spec version names
    assert enum_name(join, "type") == ""


# ---------------------------------------------------------------- the function table

#: how producers write the URI (or URN) of the extension that declares a function: the file's
#: stem, or none (DataFusion declares no URI; DuckDB names only the extensions folder, or none)
_GITHUB = "https://github.com/substrait-io/substrait/blob/main/extensions/"
URI_SPELLINGS: dict[str, str] = {
    "Isthmus": r"/(functions_\w+)\.yaml",
    "ibis, DuckDB": re.escape(_GITHUB) + r"(functions_\w+)\.yaml",
    "a URN (spec >= 0.75)": r"extension:io\.substrait:(functions_\w+)",
    "DuckDB's folder": re.escape(_GITHUB) + "()",
    "none (DataFusion, DuckDB)": "()",
}

#: the message of each kind of call, by full name → the kinds of row a call may name
CALLS: dict[str, tuple[sp.FunctionKind, ...]] = {
    "substrait.Expression.ScalarFunction": ("scalar",),
    "substrait.AggregateFunction": ("aggregate",),
    "substrait.Expression.WindowFunction": ("window", "aggregate"),
}


def _extension_file(uri: str) -> str:
    for pattern in URI_SPELLINGS.values():
        m = re.fullmatch(pattern, uri)
        if m:
            return m.group(1)
    raise AssertionError(f"an extension URI spelled in no known way: {uri!r} (add it to URI_SPELLINGS)")


def _calls(msg: Any) -> Iterator[tuple[str, int]]:
    """(call message name, function anchor) of every function call in a plan."""
    from google.protobuf.message import Message

    stack: list[Message] = [msg]
    while stack:
        m = stack.pop()
        if m.DESCRIPTOR.full_name in CALLS:
            yield m.DESCRIPTOR.full_name, m.function_reference
        for fd, value in m.ListFields():
            if fd.message_type is None or fd.message_type.GetOptions().map_entry:
                continue
            stack.extend(value if fd.is_repeated else [value])


def test_each_function_row_is_declared_in_its_files() -> None:
    """The ``files`` of every row: the spec's YAML files declare the name with the row's kind
    (substrait-extensions, the spec's own files)."""
    yaml = pytest.importorskip("yaml")
    spec = pytest.importorskip("substrait_extensions").__spec__
    folder = Path(next(iter(spec.submodule_search_locations))) / "extensions"
    declared: dict[tuple[str, str], set[str]] = {}
    for path in folder.glob("functions_*.yaml"):
        doc = yaml.safe_load(path.read_text())
        for kind in ("scalar", "aggregate", "window"):
            for f in doc.get(f"{kind}_functions") or []:
                declared.setdefault((kind, f["name"]), set()).add(path.stem)
    wrong = [
        f"{kind} {name}: {sorted(set(row.files) - declared.get((kind, name), set()))}"
        for (kind, name), row in sp.FUNCTIONS.items()
        if not set(row.files) <= declared.get((kind, name), set())
    ]
    assert not wrong, wrong
    # a row with no file is a producer's own name: the spec has no function of that name and kind
    own = [f"{kind} {name}" for (kind, name), row in sp.FUNCTIONS.items() if not row.files and (kind, name) in declared]
    assert not own, own


def test_every_producer_spelling_of_a_known_function_is_listed() -> None:
    """In every recorded producer plan, a call of a function the table knows is declared
    under one of the row's files or under none, with a URI spelled in a known way."""
    from connect_plan.formats.substrait.proto import parse_substrait
    from tests.substrait_recorded import recorded_plans

    seen = 0
    wrong = set()
    for plan in recorded_plans():
        msg = parse_substrait(plan.path.read_text())
        uris = {u.extension_uri_anchor: u.uri for u in msg.extension_uris}
        urns = {u.extension_urn_anchor: u.urn for u in msg.extension_urns}
        declared = {}
        for d in msg.extensions:
            if d.WhichOneof("mapping_type") == "extension_function":
                f = d.extension_function
                uri = uris.get(f.extension_uri_reference) or urns.get(f.extension_urn_reference) or ""
                declared[f.function_anchor] = (sp.function_name(f.name)[0], _extension_file(uri))
        for call, anchor in _calls(msg):
            name, file = declared[anchor]
            rows = [sp.FUNCTIONS[(k, name)] for k in CALLS[call] if (k, name) in sp.FUNCTIONS]
            if not rows:
                continue  # a function no row knows: refused, by name (the golden holds the error)
            seen += 1
            if file and not any(file in row.files for row in rows):
                wrong.add(f"{plan.producer}: {name} in {file} (rows: {[row.files for row in rows]})")
            if any(not row.files and plan.producer not in row.producers for row in rows):
                wrong.add(f"{plan.producer}: its own name {name} is not listed as written by it")
    assert not wrong, sorted(wrong)
    assert seen > 1000


# ---------------------------------------------------------------- modules


def test_the_converted_kinds() -> None:
    """The relation and expression kinds converted, each by a registered module function (any
    other kind is a located error naming it)."""
    from connect_plan.formats.substrait.commands import convert_plan
    from connect_plan.formats.substrait.state import EXPRESSIONS, RELATIONS

    assert convert_plan  # importing it registers every converter
    assert set(RELATIONS) == {
        "read",
        "filter",
        "project",
        "fetch",
        "sort",
        "aggregate",
        "join",
        "cross",
        "set",
        "reference",
    }
    assert set(EXPRESSIONS) == {
        "selection",
        "literal",
        "scalar_function",
        "cast",
        "if_then",
        "switch_expression",
        "singular_or_list",
        "multi_or_list",
        "subquery",
        "window_function",
        "nested",
        "lambda",
    }


def test_no_module_passes_800_lines() -> None:
    """The front-end stays split (descriptors.py is generated: the schema, not code)."""
    long = {
        p.name: n
        for p in FRONT_END.glob("*.py")
        if p.name != "descriptors.py" and (n := len(p.read_text().splitlines())) > 800
    }
    assert not long, long
    assert "do not edit" in (FRONT_END / "descriptors.py").read_text()[:300]
