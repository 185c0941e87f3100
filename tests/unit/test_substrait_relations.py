"""How the Substrait front-end reads relations whose meaning depends on the spec version or the
producer (issue 31): set operations, a fetch without a count, a sort without sort fields, DuckDB's
SELECT without FROM, unordered RANGE frames and lag/lead offsets, DataFusion's and Isthmus' orders
of a multi-set aggregate. Hand-made minimal plans, no server; the derivation of the declared
result (declared.py) is checked to read each one as the converter does. Each is proven against
Spark on the producers' own plans by tests/integration/test_substrait_corpus.py."""

from __future__ import annotations

from typing import Any

import pytest

from connect_plan import ir
from connect_plan.errors import PlanError
from connect_plan.formats.substrait import parse_substrait, parse_substrait_plan
from connect_plan.formats.substrait.declared import declared_columns
from connect_plan.types import Primitive

I64 = {"i64": {"nullability": "NULLABILITY_NULLABLE"}}
STR = {"string": {"nullability": "NULLABILITY_NULLABLE"}}
DEC = {"decimal": {"precision": 38, "scale": 2, "nullability": "NULLABILITY_NULLABLE"}}
FUNCTIONS = ["count:", "sum:dec", "lag:any_i64", "max:any", "bitwise_and:i64_i64"]


def field(i: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def read(table: str = "t") -> dict[str, Any]:
    """t(k i64, s string, d decimal(38,2))"""
    return {
        "read": {
            "baseSchema": {"names": ["k", "s", "d"], "struct": {"types": [I64, STR, DEC]}},
            "namedTable": {"names": [table]},
        }
    }


def plan(rel: dict[str, Any], names: list[str], version: tuple[str, int] | None = ("acme", 85)) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions.yaml"}],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": i + 1, "name": n}}
            for i, n in enumerate(FUNCTIONS)
        ],
        "relations": [{"root": {"input": rel, "names": names}}],
    }
    if version is not None:
        doc["version"] = {"producer": version[0], "minorNumber": version[1]}
    return doc


def measure(name: str, *args: dict[str, Any], out: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"functionReference": FUNCTIONS.index(name) + 1, "arguments": [{"value": a} for a in args]}
    if out is not None:
        body["outputType"] = out
    return {"measure": body}


def project(rel: dict[str, Any], exprs: list[dict[str, Any]], emit: list[int] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"input": rel, "expressions": exprs}
    if emit is not None:
        body["common"] = {"emit": {"outputMapping": emit}}
    return {"project": body}


def refusal(doc: dict[str, Any]) -> PlanError:
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    return e.value


def steps(doc: dict[str, Any], kind: type) -> list[Any]:
    return [s for s in parse_substrait_plan(doc).steps if isinstance(s, kind)]


def declared(doc: dict[str, Any]) -> list[str]:
    """Where each column of the plan's declared result is declared (under the root's input, and
    under its ProjectRel if it has one)."""
    found = declared_columns(parse_substrait(doc))
    assert found is not None
    return [c.loc.removeprefix("/relations/0/root/input/").removeprefix("project/input/") for c in found[1]]


def root_columns(doc: dict[str, Any]) -> list[str]:
    """The generated IR column each root column reads."""
    root = parse_substrait_plan(doc).steps[-1]
    assert isinstance(root, ir.Select)
    return [i.expr.name for i in root.items if isinstance(i.expr, ir.Col)]


# ------------------------------------------------------------------ set operations


def set_plan(op: str, inputs: int = 2) -> dict[str, Any]:
    return plan({"set": {"op": op, "inputs": [read(f"t{i}") for i in range(inputs)]}}, ["k", "s", "d"])


@pytest.mark.parametrize(
    ("op", "kind", "distinct"),
    [
        ("SET_OP_MINUS_PRIMARY", "except", True),
        ("SET_OP_MINUS_PRIMARY_ALL", "except", False),
        ("SET_OP_INTERSECTION_PRIMARY", "intersect", True),
        ("SET_OP_INTERSECTION_MULTISET", "intersect", True),
        ("SET_OP_INTERSECTION_MULTISET_ALL", "intersect", False),
        ("SET_OP_UNION_DISTINCT", "union", True),
        ("SET_OP_UNION_ALL", "union", False),
    ],
)
def test_each_set_operation_is_its_spark_equivalent(op: str, kind: str, distinct: bool) -> None:
    """Two inputs: one Spark set operation; Intersection (Primary), DuckDB's and Isthmus'
    INTERSECT, removes duplicates as the spec says (it was a semi join keeping them)."""
    (one,) = steps(set_plan(op), ir.SetOp)
    assert (one.kind, one.distinct, one.by_name) == (kind, distinct, False)


def test_three_inputs_chain_except_intersection_primary_which_meets_their_union() -> None:
    """Minus/Intersection (Multiset)/Union apply input by input; Intersection (Primary) keeps the
    primary's rows found in *any* secondary input: once, against their UNION ALL."""
    chained = steps(set_plan("SET_OP_MINUS_PRIMARY_ALL", 3), ir.SetOp)
    assert [(s.kind, s.distinct) for s in chained] == [("except", False), ("except", False)]
    (intersect,) = [s for s in steps(set_plan("SET_OP_INTERSECTION_PRIMARY", 3), ir.SetOp) if s.kind == "intersect"]
    assert intersect.distinct
    (union,) = [s for s in intersect.right.steps if isinstance(s, ir.SetOp)]
    assert (union.kind, union.distinct) == ("union", False)


def test_minus_multiset_and_an_unset_op_are_refused_by_name() -> None:
    e = refusal(set_plan("SET_OP_MINUS_MULTISET"))
    assert e.locs == ("/relations/0/root/input/set/op",) and e.codes == ("substrait_unsupported",)
    assert "SET_OP_MINUS_MULTISET has no Spark equivalent: the spec defines Minus (Multiset)" in str(e)
    assert "SET_OP_UNSPECIFIED has no Spark equivalent" in str(refusal(set_plan("SET_OP_UNSPECIFIED")))


# ------------------------------------------------------------------ fetch and sort


def fetch_plan(version: tuple[str, int] | None, **fields: Any) -> dict[str, Any]:
    return plan({"fetch": {"input": read(), **fields}}, ["k", "s", "d"], version)


@pytest.mark.parametrize(
    ("version", "fields", "count"),
    [
        (("ibis-substrait", 52), {}, 0),  # a plain int64 then: proto3 writes no 0 (ibis' LIMIT 0)
        (("ibis-substrait", 52), {"count": "-1"}, None),  # -1: all rows (spec 0.47-0.62)
        (("DuckDB", 53), {"offset": "9", "count": "-1"}, None),
        (("datafusion", 85), {"offsetExpr": {"literal": {"i64": "9"}}}, None),  # unset since 0.63: all rows
        (("datafusion", 85), {"countExpr": {"literal": {"i64": "0"}}}, 0),
        (None, {"offset": "0", "count": "0"}, 0),  # Isthmus 0.5 writes both (LIMIT 0)
        (("acme", 70), {"count": "0"}, 0),  # set: 0 rows, whatever the version
    ],
)
def test_a_fetch_count_absent_and_zero_are_told_apart_by_the_spec_version(
    version: tuple[str, int] | None, fields: dict[str, Any], count: int | None
) -> None:
    (fetch,) = steps(fetch_plan(version, **fields), ir.Fetch)
    assert fetch.count == count


def test_a_fetch_without_a_count_in_a_plan_of_no_version_is_refused() -> None:
    e = refusal(fetch_plan(None, offset="2"))
    assert e.locs == ("/relations/0/root/input/fetch/count",)
    assert "before 0.63 an absent count is 0 (no rows), since 0.63 it is all rows" in str(e)


def test_a_sort_without_sort_fields_orders_nothing() -> None:
    """Isthmus' LIMIT without ORDER BY: a FetchRel over a SortRel with no sorts (Spark refuses an
    empty Sort: 'order' must be present)."""
    doc = plan({"fetch": {"input": {"sort": {"input": read()}}, "count": "5"}}, ["k", "s", "d"])
    assert not steps(doc, ir.OrderBy) and steps(doc, ir.Fetch)[0].count == 5


# ------------------------------------------------------------------ DuckDB's SELECT without FROM


def dummy_scan(producer: str) -> dict[str, Any]:
    """DuckDB 1.1.3's SELECT 1 AS a: a virtual table of no base schema and one row of one
    placeholder value, under a ProjectRel that means only its expressions."""
    values = {"read": {"virtualTable": {"values": [{"fields": [{"i32": 42}]}]}}}
    return plan(project(values, [{"literal": {"i32": 1}}]), ["a"], (producer, 53))


def test_duckdbs_dummy_row_is_a_row_of_no_columns() -> None:
    doc = dummy_scan("DuckDB")
    source = parse_substrait_plan(doc).source
    assert isinstance(source, ir.InlineData) and source.table.num_rows == 1
    assert declared(doc) == ["project/expressions/0/literal"]


def test_a_row_of_more_values_than_columns_is_refused_for_other_producers() -> None:
    e = refusal(dummy_scan("acme"))
    assert e.locs == ("/relations/0/root/input/project/input/read/virtualTable/values/0",)
    assert "a row of 1 values for 0 columns" in str(e)


# ------------------------------------------------------------------ windows


def window(
    name: str, args: list[dict[str, Any]], sorts: bool, lower: dict[str, Any], upper: dict[str, Any], bounds: str = ""
) -> dict[str, Any]:
    fn: dict[str, Any] = {
        "functionReference": FUNCTIONS.index(name) + 1,
        "arguments": [{"value": a} for a in args],
        "partitions": [field(1)],
        "lowerBound": lower,
        "upperBound": upper,
    }
    if sorts:
        fn["sorts"] = [{"expr": field(0), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}]
    if bounds:
        fn["boundsType"] = bounds
    return plan(project(read(), [{"windowFunction": fn}], emit=[3]), ["w"])


def the_window(doc: dict[str, Any]) -> ir.Window:
    (step,) = [s for s in steps(doc, ir.WithColumn) if isinstance(s.expr, ir.Window)]
    assert isinstance(step.expr, ir.Window)
    return step.expr


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ({"preceding": {}}, {"following": {}}),  # Isthmus' max() OVER (PARTITION BY g)
        ({"currentRow": {}}, {"currentRow": {}}),
        ({"unbounded": {}}, {"currentRow": {}}),
    ],
)
def test_an_unordered_range_frame_of_current_row_or_unbounded_bounds_is_the_whole_partition(
    lower: dict[str, Any], upper: dict[str, Any]
) -> None:
    """Without an order every row is a peer of every other: Spark's unordered window (no frame)."""
    w = the_window(window("max:any", [field(2)], False, lower, upper))
    assert w.frame is None and not w.order_by


def test_an_unordered_range_frame_with_an_offset_is_refused_and_rows_frames_kept() -> None:
    e = refusal(window("max:any", [field(2)], False, {"preceding": {"offset": "2"}}, {"currentRow": {}}))
    assert e.locs == ("/relations/0/root/input/project/expressions/0/windowFunction",)
    assert "a RANGE frame with an offset bound needs sorts" in str(e)
    rows = the_window(
        window("max:any", [field(2)], False, {"preceding": {"offset": "2"}}, {"currentRow": {}}, "BOUNDS_TYPE_ROWS")
    )
    assert rows.frame == ir.Frame("rows", -2, 0, rows.frame.loc if rows.frame else "")


def test_lag_gets_no_frame_and_an_int_offset() -> None:
    """DataFusion writes lag(x, 2, -1) with i64 literals and a frame: Spark types the offset INT
    (casting a BIGINT one after deriving lag's own frame from it, then refusing that frame)."""
    lit = {"literal": {"i64": "2"}}
    w = the_window(
        window("lag:any_i64", [field(2), lit, {"literal": {"i64": "-1"}}], True, {"unbounded": {}}, {"currentRow": {}})
    )
    assert w.frame is None
    assert isinstance(w.func, ir.Call) and isinstance(w.func.args[1], ir.Lit)
    assert (w.func.args[1].value, w.func.args[1].type) == (2, Primitive("int"))


# ------------------------------------------------------------------ multi-set aggregates

#: GROUPING SETS ((s), ()) over t: sum(d) and count(*), both declared
ROLLUP = {
    "aggregate": {
        "input": read(),
        "groupingExpressions": [field(1)],
        "groupings": [{"expressionReferences": [0]}, {}],
        "measures": [measure("sum:dec", field(2), out=DEC), measure("count:", out=I64)],
    }
}


def test_datafusions_multi_set_aggregate_has_its_grouping_id_before_the_measures() -> None:
    """DataFusion 55: s, __grouping_id, sum, count, no set index; the projection above reads
    field 1 as the grouping id (its GROUPING(s) is bit arithmetic on it) and 2, 3 as the measures."""
    doc = plan(project(ROLLUP, [field(0), field(2), field(3), field(1)], emit=[4, 5, 6, 7]), ["s", "t", "n", "gid"])
    df = plan(doc["relations"][0]["root"]["input"], ["s", "t", "n", "gid"], ("datafusion", 85))
    converted = parse_substrait_plan(df)
    (group,) = [s for s in converted.steps if isinstance(s, ir.GroupBy)]
    gid = next(a.alias for a in group.aggs if isinstance(a.expr, ir.Call) and a.expr.fn == "grouping_id")
    measures = [a.alias for a in group.aggs if a.alias != gid]
    assert [_source(converted, c) for c in root_columns(df)] == [None, measures[0], measures[1], gid]
    assert not [s for s in converted.steps if s.op == "aggregate.set_index"]
    assert declared(df)[:2] == [
        "aggregate/input/read/baseSchema/struct/types/1",
        "aggregate/measures/0/measure/outputType",
    ]
    assert declared(df)[3] == "aggregate/groupings"  # the grouping id, of a type the plan does not say
    # the spec's order for any other producer: field 1 is the first measure, field 3 the set index
    assert declared(doc)[1:] == [
        "aggregate/measures/1/measure/outputType",
        "aggregate/groupings",
        "aggregate/measures/0/measure/outputType",
    ]


def _source(plan_: ir.Plan, name: str) -> str | None:
    """The aggregate's column a projection's column is: passed on under its own name (a column
    passed on keeps its name), or a copy of it."""
    aggregated = {a.alias for g in plan_.steps if isinstance(g, ir.GroupBy) for a in g.aggs}
    if name in aggregated:
        return name
    for s in plan_.steps:
        if isinstance(s, ir.WithColumn) and s.name == name and isinstance(s.expr, ir.Col):
            inner = s.expr.name
            if any(isinstance(g, ir.GroupBy) and any(a.alias == inner for a in g.aggs) for g in plan_.steps):
                return inner
    return None


def test_a_datafusion_aggregate_with_an_emit_keeping_the_set_index_is_refused() -> None:
    """After 55 DataFusion writes the spec's order with an emit (apache/datafusion#23468), and its
    __grouping_id bitmask where the spec's set index goes (#25208): not told apart."""
    keeps = {"aggregate": {**ROLLUP["aggregate"], "common": {"emit": {"outputMapping": [0, 3, 1, 2]}}}}
    e = refusal(plan(keeps, ["s", "gid", "t", "n"], ("datafusion", 90)))
    assert e.locs == ("/relations/0/root/input/aggregate/common/emit/outputMapping",)
    drops = {"aggregate": {**ROLLUP["aggregate"], "common": {"emit": {"outputMapping": [0, 1, 2]}}}}
    assert len(root_columns(plan(drops, ["s", "t", "n"], ("datafusion", 90)))) == 3


@pytest.mark.parametrize("version", [None, ("isthmus", 77)])
def test_an_aggregate_without_its_set_index_is_read_so_where_only_that_fits(version: tuple[str, int] | None) -> None:
    """Isthmus 0.5 (no version) and substrait-java before 0.67 (spec 0.77) write no set index:
    RelRoot.names counts keys and measures only, which only that reading fits."""
    doc = plan(ROLLUP, ["s", "t", "n"], version)
    assert len(root_columns(doc)) == 3
    assert not [s for s in parse_substrait_plan(doc).steps if s.op == "aggregate.set_index"]
    assert declared(doc) == [
        "aggregate/input/read/baseSchema/struct/types/1",
        "aggregate/measures/0/measure/outputType",
        "aggregate/measures/1/measure/outputType",
    ]
    spec = plan(ROLLUP, ["s", "t", "n", "set"], version)  # the spec's reading fits: taken
    assert len(root_columns(spec)) == 4 and declared(spec)[3] == "aggregate/groupings"


def test_a_plan_that_reads_both_ways_is_refused_unless_they_mean_the_same() -> None:
    """Isthmus' ROLLUP under a ProjectRel whose emit takes its expressions (fields 2, 3 without
    the index, the index and a key with it): both readings fit, they differ, refused at the
    aggregate. An emit of the key and the measures alone means the same either way: read."""
    ambiguous = plan(project(ROLLUP, [field(0), field(1)], emit=[3, 4]), ["s", "t"], None)
    e = refusal(ambiguous)
    assert e.locs == ("/relations/0/root/input/project/input/aggregate",)
    assert "the plan reads both with and without it, the two mean different tables" in str(e)
    same = plan(project(ROLLUP, [field(0)], emit=[0, 1, 2]), ["s", "t", "n"], None)
    assert len(root_columns(same)) == 3


def test_a_later_isthmus_or_another_producer_is_read_by_the_spec_only() -> None:
    for version in (("isthmus", 78), ("acme", 53)):
        e = refusal(plan(ROLLUP, ["s", "t", "n"], version))
        assert "RelRoot.names has 3 names for 4 output columns" in str(e)
