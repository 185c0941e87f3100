"""The result contract without a server: what a Substrait plan declares (formats/substrait/
declared.py), how Spark's schema is held to it (connect_plan/contract.py), and the client's
result path refusing a result that differs, releasing the execution (over recorded answers).

Real producers' plans and the real server: tests/integration/test_substrait_contract.py."""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from connect_plan import ir
from connect_plan.contract import check_schema
from connect_plan.errors import PlanError, ResultContractError, ResultIntegrityError
from connect_plan.formats import load_plan
from connect_plan.formats.substrait import parse_substrait, parse_substrait_plan
from connect_plan.formats.substrait.declared import declared_columns, result_contract
from connect_plan.formats.substrait.declared_types import SPARK_TYPES
from connect_plan.types import type_string
from tests.support.transport import RecordedTransport, generated, recorded_client

ROOT = Path(__file__).resolve().parents[2]


def t(kind: str, nullable: bool = True, **params: Any) -> dict[str, Any]:
    return {kind: {"nullability": "NULLABILITY_NULLABLE" if nullable else "NULLABILITY_REQUIRED", **params}}


I64, STR, F64, I32 = t("i64"), t("string"), t("fp64"), t("i32")
DEC = t("decimal", precision=15, scale=2)


def field(i: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def read(names: list[str], types: list[dict[str, Any]], table: str = "t") -> dict[str, Any]:
    return {
        "read": {
            "baseSchema": {"names": names, "struct": {"types": types, "nullability": "NULLABILITY_REQUIRED"}},
            "namedTable": {"names": [table]},
        }
    }


#: t(k i64, s string, x fp64, d decimal(15,2) required)
T = read(["k", "s", "x", "d"], [I64, STR, F64, t("decimal", False, precision=15, scale=2)])
U = read(["k", "y"], [I64, STR], "u")

FUNCTIONS = ["equal:any_any", "sum:dec", "count:", "concat:str_str", "avg:fp64"]


def call(
    name: str, *args: dict[str, Any], out: dict[str, Any] | None = None, kind: str = "scalarFunction"
) -> dict[str, Any]:
    body: dict[str, Any] = {"functionReference": FUNCTIONS.index(name) + 1, "arguments": [{"value": a} for a in args]}
    if out is not None:
        body["outputType"] = out
    return body if kind == "measure" else {kind: body}


def plan(rel: dict[str, Any], names: list[str], *extra: dict[str, Any], producer: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions.yaml"}],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": i + 1, "name": n}}
            for i, n in enumerate(FUNCTIONS)
        ],
        "relations": [*extra, {"root": {"input": rel, "names": names}}],
    }
    if producer:
        doc["version"] = {"producer": producer, "minorNumber": 53}
    return doc


def project(rel: dict[str, Any], exprs: list[dict[str, Any]], emit: list[int] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"input": rel, "expressions": exprs}
    if emit is not None:
        body["common"] = {"emit": {"outputMapping": emit}}
    return {"project": body}


def declared(doc: dict[str, Any]) -> list[tuple[str | None, str, str]]:
    """(name, Spark type or '-', declared Substrait type) of each column the plan declares, read
    from the plan alone (the converter is not asked: it refuses some plans here)."""
    contract = result_contract(parse_substrait(doc))
    assert contract is not None
    return [(c.name, type_string(c.type) if c.type is not None else "-", c.declared) for c in contract.columns]


# ---------------------------------------------------------------- what a plan declares


def test_a_read_declares_its_base_schema_after_its_projection_mask_and_emit() -> None:
    rel = {"read": {**T["read"], "projection": {"select": {"structItems": [{"field": 3}, {"field": 1}]}}}}
    assert declared(plan(rel, ["d", "s"])) == [("d", "decimal(15,2)", "decimal<15, 2>"), ("s", "string", "string?")]
    contract = parse_substrait_plan(plan(rel, ["d", "s"])).contract
    assert contract is not None and contract.loc == "/relations/0/root"
    assert contract.columns[0].loc == "/relations/0/root/input/read/baseSchema/struct/types/3"
    assert contract.columns[1].name_loc == "/relations/0/root/names/1"
    emitted = project(T, [call("concat:str_str", field(1), field(1), out=STR)], emit=[4, 0])
    assert declared(plan(emitted, ["c", "k"])) == [("c", "string", "string?"), ("k", "bigint", "i64?")]


def test_a_project_adds_its_expressions_and_duckdbs_means_only_them() -> None:
    exprs = [call("concat:str_str", field(1), field(1), out=STR), {"literal": {"i32": 1}}]
    assert [n for n, _, _ in declared(plan(project(T, exprs), ["k", "s", "x", "d", "c", "one"]))][-2:] == ["c", "one"]
    duck = declared(plan(project(T, exprs), ["c", "one"], producer="DuckDB"))
    assert duck == [("c", "string", "string?"), ("one", "int", "i32")]


def _aggregate(**body: Any) -> dict[str, Any]:
    return {"aggregate": {"input": T, **body}}


SUM = {"measure": call("sum:dec", field(3), out=t("decimal", precision=38, scale=2), kind="measure")}
COUNT = {"measure": call("count:", out=t("i64", False), kind="measure")}


def test_an_aggregate_declares_keys_measures_and_the_grouping_set_index_last() -> None:
    """GROUPING SETS ((s, k), (s)): keys in declaration order (k nullable: not in every set),
    then the measures, then the i32 index of the set that made the row."""
    doc = plan(
        _aggregate(
            groupingExpressions=[field(1), field(0)],
            groupings=[{"expressionReferences": [0, 1]}, {"expressionReferences": [0]}],
            measures=[SUM, COUNT],
        ),
        ["s", "k", "total", "n", "set"],
    )
    assert declared(doc) == [
        ("s", "string", "string?"),
        ("k", "bigint", "i64?"),
        ("total", "decimal(38,2)", "decimal<38, 2>?"),
        ("n", "bigint", "i64"),
        ("set", "int", "i32"),
    ]
    contract = parse_substrait_plan(doc).contract
    assert contract is not None and contract.columns[4].loc == "/relations/0/root/input/aggregate/groupings"
    assert contract.columns[2].loc == "/relations/0/root/input/aggregate/measures/0/measure/outputType"


def test_required_keys_missing_from_a_grouping_set_become_nullable() -> None:
    required = read(["k"], [t("i64", False)])
    doc = plan(
        {"aggregate": {"input": required, "groupings": [{"groupingExpressions": [field(0)]}, {}], "measures": [COUNT]}},
        ["k", "n", "set"],
    )
    assert [d for _, _, d in declared(doc)] == ["i64?", "i64", "i32"]


def test_repeated_grouping_expressions_are_read_as_substrait_java_reads_them() -> None:
    """One grouping set: each expression a column, a repeated one twice (the converter agrees).
    Several: each distinct one once, as DataFusion means its rel-level list that repeats an
    expression per set using it (ROLLUP (s, k): [s, k, s])."""
    one = plan(_aggregate(groupings=[{"groupingExpressions": [field(1), field(1)]}], measures=[COUNT]), ["a", "b", "n"])
    assert [d for _, _, d in declared(one)] == ["string?", "string?", "i64"]
    assert parse_substrait_plan(one).contract == result_contract(parse_substrait(one))
    rollup = _aggregate(
        groupingExpressions=[field(1), field(0), field(1)],
        groupings=[{"expressionReferences": [0, 1]}, {"expressionReferences": [2]}, {}],
        measures=[COUNT],
    )
    assert [d for _, _, d in declared(plan(rollup, ["s", "k", "n", "set"]))] == ["string?", "i64?", "i64", "i32"]
    old = _aggregate(groupings=[{"groupingExpressions": [field(0)]}, {"groupingExpressions": [field(1), field(0)]}])
    assert [d for _, _, d in declared(plan(old, ["k", "s", "set"]))] == ["i64?", "string?", "i32"]


def test_a_translation_whose_column_count_differs_is_refused_before_anything_is_sent(monkeypatch: Any) -> None:
    """The converter's root outputs a column too many: a located PlanError, no network."""
    from connect_plan.formats.substrait import commands as convert

    real = convert.convert_plan

    def one_more(msg: Any, tables: Any = None) -> ir.Plan:
        out = real(msg, tables)
        root = out.steps[-1]
        assert isinstance(root, ir.Select)
        extra = dataclasses.replace(root.items[0], alias="extra")
        return dataclasses.replace(out, steps=(*out.steps[:-1], dataclasses.replace(root, items=(*root.items, extra))))

    monkeypatch.setattr(convert, "convert_plan", one_more)
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(plan(U, ["k", "y"]))
    assert e.value.codes == ("result_contract",) and e.value.locs == ("/relations/0/root",)
    assert "connect_plan's translation outputs 3 columns where the plan declares 2 ('k', 'y')" in str(e.value)


def test_a_measure_without_output_type_is_not_declared_but_counted() -> None:
    """DataFusion 55 writes its aggregate calls without output_type."""
    bare = {"measure": {"functionReference": 2, "arguments": [{"value": field(3)}]}}
    assert declared(
        plan(_aggregate(groupings=[{"groupingExpressions": [field(1)]}], measures=[bare]), ["s", "total"])
    ) == [
        ("s", "string", "string?"),
        ("total", "-", "not declared"),
    ]


JOINS = {
    "JOIN_TYPE_INNER": ["i64?", "string?", "fp64?", "decimal<15, 2>", "i64?", "string?"],
    "JOIN_TYPE_LEFT": ["i64?", "string?", "fp64?", "decimal<15, 2>", "i64?", "string?"],
    "JOIN_TYPE_RIGHT": ["i64?", "string?", "fp64?", "decimal<15, 2>?", "i64?", "string?"],
    "JOIN_TYPE_OUTER": ["i64?", "string?", "fp64?", "decimal<15, 2>?", "i64?", "string?"],
    "JOIN_TYPE_LEFT_SEMI": ["i64?", "string?", "fp64?", "decimal<15, 2>"],
    "JOIN_TYPE_LEFT_ANTI": ["i64?", "string?", "fp64?", "decimal<15, 2>"],
    "JOIN_TYPE_RIGHT_SEMI": ["i64?", "string?"],
    "JOIN_TYPE_RIGHT_ANTI": ["i64?", "string?"],
    "JOIN_TYPE_LEFT_SINGLE": ["i64?", "string?", "fp64?", "decimal<15, 2>", "i64?", "string?"],
    "JOIN_TYPE_RIGHT_SINGLE": ["i64?", "string?", "fp64?", "decimal<15, 2>?", "i64?", "string?"],
    "JOIN_TYPE_LEFT_MARK": ["i64?", "string?", "fp64?", "decimal<15, 2>", "boolean?"],
    "JOIN_TYPE_RIGHT_MARK": ["i64?", "string?", "boolean?"],
}


@pytest.mark.parametrize("how", list(JOINS))
def test_every_join_type_declares_its_sides(how: str) -> None:
    join = {"join": {"left": T, "right": U, "expression": call("equal:any_any", field(0), field(4)), "type": how}}
    cols = declared(plan(join, [f"c{i}" for i in range(len(JOINS[how]))]))
    assert [d for _, _, d in cols] == JOINS[how]


def test_a_cross_join_a_set_operation_and_a_shared_subtree() -> None:
    cross = {"cross": {"left": U, "right": U}}
    assert len(declared(plan(cross, ["a", "b", "c", "d"]))) == 4
    typed_null = {"literal": {"null": t("i64")}}
    first = project(read(["k"], [t("i64", False)]), [{"literal": {"null": {}}}], emit=[0, 1])  # DuckDB's NULL
    second = project(read(["k"], [t("i64", False)]), [typed_null], emit=[0, 1])
    union = {"set": {"inputs": [first, second], "op": "SET_OP_UNION_ALL"}}
    # the first declared type of each column; nullable if any input's is
    assert [d for _, _, d in declared(plan(union, ["k", "n"]))] == ["i64", "i64?"]
    shared = {"rel": U}
    ref = {"reference": {"subtreeOrdinal": 0}}
    assert [d for _, _, d in declared(plan({"cross": {"left": ref, "right": ref}}, list("abcd"), shared))] == [
        "i64?",
        "string?",
    ] * 2


def test_expressions_declare_their_types() -> None:
    exprs = [
        {"cast": {"type": t("decimal", precision=10, scale=3), "input": field(2)}},
        {"literal": {"varChar": {"value": "ab", "length": 5}}},
        {"literal": {"fixedChar": "abc"}},
        {"literal": {"precisionTimestampTz": {"precision": 6, "value": "0"}}},
        {"literal": {"timestamp": "0"}},
        {"literal": {"intervalYearToMonth": {"years": 1}}},
        {"literal": {"intervalDayToSecond": {"days": 1, "precision": 6}}},
        {"literal": {"uuid": "ABEiM0RVZneImaq7zN3u/w=="}},
        {"singularOrList": {"value": field(0), "options": [{"literal": {"i64": "1"}}]}},
        {"ifThen": {"ifs": [{"if": {"literal": {"boolean": True}}, "then": {}}], "else": {"literal": {"string": "x"}}}},
        {"ifThen": {"ifs": [{"if": {"literal": {"boolean": True}}, "then": {}}]}},
        {"subquery": {"scalar": {"input": project(U, [field(0)], emit=[2])}}},
        {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": U}}},
        {"literal": {"list": {"values": [{"i32": 1}]}}},
        {"literal": {"emptyMap": {"key": STR, "value": I32}}},
    ]
    cols = declared(plan(project(T, exprs, emit=list(range(4, 4 + len(exprs)))), [f"c{i}" for i in range(len(exprs))]))
    assert [(s, d) for _, s, d in cols] == [
        ("decimal(10,3)", "decimal<10, 3>?"),
        ("string", "varchar<5>"),
        ("string", "fixedchar<3>"),
        ("timestamp", "precision_timestamp_tz<6>"),
        ("timestamp_ntz", "timestamp"),
        ("interval year to month", "interval_year"),
        ("interval day to second", "interval_day<6>"),
        ("string", "uuid"),
        ("boolean", "boolean?"),
        ("string", "string"),  # a branch with no kind (DataFusion's NULL): the others say
        ("-", "not declared"),
        ("bigint", "i64?"),
        ("boolean", "boolean?"),
        ("array<int>", "list<i32>"),
        ("map<string,int>", "map<string?, i32?>"),
    ]


def test_struct_field_names_come_from_root_names_depth_first() -> None:
    nested = {"nested": {"struct": {"fields": [field(0), {"nested": {"struct": {"fields": [field(1)]}}}]}}}
    cols = declared(plan(project(T, [nested], emit=[4]), ["st", "a", "inner", "b"]))
    assert cols == [("st", "struct<a:bigint,inner:struct<b:string>>", "struct<i64?, struct<string?>>")]


def test_a_plan_that_writes_declares_no_result_and_a_json_plan_none() -> None:
    write = {
        "write": {
            "namedTable": {"names": ["out"]},
            "tableSchema": {"names": ["k"], "struct": {"types": [I64]}},
            "op": "WRITE_OP_INSERT",
            "input": project(T, [field(0)], emit=[4]),
        }
    }
    assert parse_substrait_plan(plan(write, [])).contract is None
    assert load_plan([{"op": "select", "payload": ["a"]}], [[1]], [("a", "bigint")]).contract is None


@pytest.mark.slow
def test_real_producers_tpch_plans_declare_what_the_converter_translates(tmp_path: Path) -> None:
    """DataFusion's and DuckDB's TPC-H plans, made now: each plan's declared columns are
    those the converter outputs (parse_substrait_plan refuses a different count), named by
    RelRoot.names; DuckDB declares every column's type, DataFusion all but its aggregates'.
    (Against Spark's answers, with Isthmus too: tests/integration/test_substrait_contract.py.)"""
    pytest.importorskip("datafusion")
    pytest.importorskip("duckdb_extension_substrait")
    from tests import substrait_producers as sp

    tpch = sp.make_tpch(tmp_path)
    undeclared: dict[str, int] = {}
    for producer, made in (("datafusion", sp.datafusion_plans(tpch)), ("duckdb", sp.duckdb_plans(tpch))):
        planned = {q: p for q, p in made.items() if not (isinstance(p, str) and not p.startswith("{"))}
        assert len(planned) >= 15, producer
        undeclared[producer] = 0
        for plan in planned.values():
            contract = parse_substrait_plan(plan, tpch.tables()).contract
            assert contract is not None
            assert [c.name for c in contract.columns] == list(parse_substrait(plan).relations[0].root.names)
            undeclared[producer] += sum(c.type is None for c in contract.columns)
    assert undeclared["duckdb"] == 0 and undeclared["datafusion"] > 0


def test_a_window_rel_and_an_extension_rel() -> None:
    """Relations the converter refuses: the derivation reads a ConsistentPartitionWindowRel
    and says where it cannot read an extension."""
    window = {
        "window": {
            "input": U,
            "windowFunctions": [{"functionReference": 3, "outputType": t("i64", False)}],
            "partitionExpressions": [field(1)],
        }
    }
    found = declared_columns(parse_substrait(plan(window, ["k", "y", "n"])))
    assert found is not None and [c.type.text() for c in found[1]] == ["i64?", "string?", "i64"]
    with pytest.raises(PlanError) as e:
        result_contract(parse_substrait(plan({"extensionLeaf": {}}, ["a"])))
    assert e.value.codes == ("result_contract",) and e.value.locs == ("/relations/0/root/input/extensionLeaf",)


def test_the_mapping_table_in_the_docs_is_the_code_s() -> None:
    """docs/substrait.md's table of the result contract lists every Substrait kind with the
    Spark type the code maps it to."""
    doc = (ROOT / "docs" / "substrait.md").read_text(encoding="utf-8")
    section = doc.split("### Types: Substrait → Spark", 1)[1].split("\n### ", 1)[0]
    rows = dict(re.findall(r"^\| `([a-z0-9_]+)`[^|]*\| `([^`]+)` \|", section, re.M))
    assert rows == SPARK_TYPES


# ---------------------------------------------------------------- Spark's schema held to it


def contract(*columns: tuple[str, str | None, str]) -> ir.Contract:
    """A contract of (name, Spark type string or None, declared text) columns."""
    from connect_plan.types import parse_type

    return ir.Contract(
        "/relations/0/root",
        tuple(
            ir.ContractColumn(n, parse_type(s) if s else None, d, f"/decl/{i}", f"/relations/0/root/names/{i}", None)
            for i, (n, s, d) in enumerate(columns)
        ),
    )


def schema(*fields: tuple[str, pa.DataType]) -> pa.Schema:
    return pa.schema([pa.field(n, ty) for n, ty in fields])


def refused(c: ir.Contract, s: pa.Schema) -> list[str]:
    with pytest.raises(ResultContractError) as e:
        check_schema(c, s)
    assert isinstance(e.value, ResultIntegrityError) and set(e.value.codes) == {"result_contract"}
    return [str(d) for d in e.value.details]


def test_a_column_too_many_or_too_few_is_refused_naming_the_relation_and_columns() -> None:
    c = contract(("s", "string", "string"), ("n", "bigint", "i64"))
    (text,) = refused(c, schema(("s", pa.string()), ("n", pa.int64()), ("set", pa.int32())))
    assert text.startswith("/relations/0/root: the plan declares 2 columns ('s', 'n'), Spark returned 3")
    assert "first differ at column 2" in text
    (text,) = refused(c, schema(("n", pa.int64())))
    assert "first differ at column 0 ('s', Spark 'n')" in text


def test_a_column_in_another_place_or_of_another_class_is_refused_every_one_at_once() -> None:
    c = contract(("s", "string", "string"), ("n", "bigint", "i64"), ("total", "decimal(38,2)", "decimal<38, 2>"))
    texts = refused(c, schema(("s", pa.string()), ("n", pa.decimal128(25, 2)), ("t", pa.int64())))
    assert texts == [
        "/decl/1: column 1 ('n') is declared i64, Spark returned decimal(25,2): a decimal where the plan "
        "declares an integer [result_contract]",
        "/relations/0/root/names/2: column 2 is 'total' in the plan, Spark returned 't' there [result_contract]",
    ]


@pytest.mark.parametrize(
    ("declared_type", "spark", "returned"),
    [
        ("bigint", pa.int32(), pa.int64()),  # extract(year): i64 declared, Spark's int: widened
        ("int", pa.int64(), pa.int32()),  # count declared i32 (Calcite): narrowed, checked
        ("decimal(38,2)", pa.decimal128(25, 2), pa.decimal128(38, 2)),  # Spark's sum precision
        ("decimal(15,2)", pa.decimal128(19, 6), pa.decimal128(19, 6)),  # more digits than declared: kept
        ("decimal(38,0)", pa.int64(), pa.decimal128(38, 0)),  # DuckDB's HUGEINT sum: an exact integer
        ("double", pa.decimal128(19, 6), pa.float64()),  # DuckDB's avg is a double: nearest
        ("double", pa.int64(), pa.float64()),  # Substrait's ceil(fp64) is fp64, Spark's bigint
        ("float", pa.float64(), pa.float32()),  # fp32 math Spark computes in double
        ("timestamp_ntz", pa.timestamp("us"), pa.timestamp("us")),
        ("timestamp", pa.timestamp("us", tz="Europe/Paris"), pa.timestamp("us", tz="Europe/Paris")),
        ("string", pa.null(), pa.string()),  # an untyped NULL column
        ("array<bigint>", pa.list_(pa.int32()), pa.list_(pa.int64())),
    ],
)
def test_within_a_class_the_result_comes_in_the_declared_type(
    declared_type: str, spark: pa.DataType, returned: pa.DataType
) -> None:
    conformed = check_schema(contract(("c", declared_type, declared_type)), schema(("c", spark)))
    assert conformed.schema.field(0).type == returned


@pytest.mark.parametrize(
    ("declared_type", "spark", "why"),
    [
        ("bigint", pa.decimal128(25, 2), "a decimal where the plan declares an integer"),
        ("bigint", pa.float64(), "a floating point where the plan declares an integer"),
        ("decimal(10,2)", pa.float64(), "a floating point where the plan declares a decimal"),
        ("string", pa.int64(), "an integer where the plan declares a string"),
        (
            "timestamp_ntz",
            pa.timestamp("us", tz="UTC"),
            "a timestamp with time zone where the plan declares a timestamp",
        ),
        ("date", pa.timestamp("us"), "a timestamp where the plan declares a date"),
        ("struct<a:bigint>", pa.struct([pa.field("b", pa.int64())]), "struct field 0 is 'a' in the plan, 'b'"),
        ("array<string>", pa.list_(pa.int64()), "an integer where the plan declares a string"),
    ],
)
def test_another_class_is_refused(declared_type: str, spark: pa.DataType, why: str) -> None:
    (text,) = refused(contract(("c", declared_type, declared_type)), schema(("c", spark)))
    assert why in text


def test_a_column_the_plan_does_not_type_is_checked_for_its_place_only() -> None:
    conformed = check_schema(contract(("c", None, "not declared")), schema(("c", pa.decimal128(3, 1))))
    assert conformed.schema == schema(("c", pa.decimal128(3, 1))) and not conformed.casts


def test_values_are_cast_exactly_or_refused() -> None:
    c = contract(("n", "int", "i32"), ("a", "double", "fp64"), ("f", "float", "fp32"))
    s = schema(("n", pa.int64()), ("a", pa.decimal128(19, 6)), ("f", pa.float64()))
    conformed = check_schema(c, s)
    ok = pa.record_batch(
        [pa.array([1, 2]), pa.array([Decimal("0.1"), None], pa.decimal128(19, 6)), pa.array([1.5, None])], schema=s
    )
    out = conformed.batch(ok)
    assert out.schema == conformed.schema
    assert out.column(1).to_pylist() == [0.1, None]  # the nearest double, not pyarrow's 0.09999999999999999
    too_big = pa.record_batch([pa.array([2**40, 1]), ok.column(1), ok.column(2)], schema=s)
    with pytest.raises(
        ResultContractError, match=r"column 0 \('n'\): a value Spark returned does not fit the declared type i32"
    ):
        conformed.batch(too_big)
    beyond_float32 = pa.record_batch([ok.column(0), ok.column(1), pa.array([1e300, 1.0])], schema=s)
    with pytest.raises(ResultContractError, match="float32's range"):
        conformed.batch(beyond_float32)


def test_a_null_in_a_column_declared_required_is_refused() -> None:
    c = ir.Contract("/relations/0/root", (ir.ContractColumn("k", None, "i64", "/decl/0", "/names/0", False),))
    conformed = check_schema(c, schema(("k", pa.int64())))
    assert conformed.batch(pa.record_batch([pa.array([1, 2])], names=["k"])).num_rows == 2
    with pytest.raises(
        ResultContractError, match=r"column 0 \('k'\) is declared required \(i64\), and Spark returned a NULL"
    ):
        conformed.batch(pa.record_batch([pa.array([1, None])], names=["k"]))


# ---------------------------------------------------------------- the client's result path


def _with_contract(doc: Any, *columns: tuple[str, str | None, str]) -> ir.Plan:
    return dataclasses.replace(load_plan(doc), contract=contract(*columns))


SMALL = generated(1_000)  # id bigint, s string: 1000 rows in 10 batches of 100


def test_the_client_refuses_a_result_that_differs_and_releases_its_execution() -> None:
    transport = RecordedTransport("small")
    bad = _with_contract(SMALL, ("id", "bigint", "i64"), ("s", "string", "string"), ("n", "bigint", "i64"))
    with recorded_client(transport) as c:
        with pytest.raises(ResultContractError, match="declares 3 columns"):
            c.execute(bad)
        with pytest.raises(ResultContractError, match="declares 3 columns"):
            c.stream(bad)
    assert [s.closed for s in transport.streams] == [1, 1]  # released, never left open
    assert all(s.read <= 3 for s in transport.streams)  # refused at the first batch (of 16 responses)


def test_the_client_returns_the_declared_types_and_schema_reports_them() -> None:
    transport = RecordedTransport("small")
    declared_plan = _with_contract(SMALL, ("id", "int", "i32"), ("s", "string", "varchar<10>"))
    with recorded_client(transport) as c:
        table = c.execute(declared_plan)
        reader = c.stream(declared_plan)
        streamed = reader.read_all()
    assert table.schema.field("id").type == pa.int32() and table.column("id").to_pylist() == list(range(1_000))
    assert streamed.equals(table) and reader.schema == table.schema


def test_schema_reports_the_declared_types_and_refuses_a_different_result() -> None:
    """Client.schema (AnalyzePlan) of a plan whose recorded analysis is id bigint, c0..c2 int."""
    doc = {"input": {"range": 1}, "plan": []}
    declared_plan = _with_contract(
        doc, ("id", "bigint", "i64"), ("c0", "bigint", "i64"), ("c1", None, "-"), ("c2", "int", "i32")
    )
    with recorded_client(RecordedTransport(analyze="schema")) as c:
        got = c.schema(declared_plan)
        assert [f.type for f in got] == [pa.int64(), pa.int64(), pa.int32(), pa.int32()]
        with pytest.raises(ResultContractError, match=r"column 3 \('c2'\) is declared string"):
            c.schema(
                _with_contract(
                    doc, ("id", "bigint", "i64"), ("c0", None, "-"), ("c1", None, "-"), ("c2", "string", "string")
                )
            )
