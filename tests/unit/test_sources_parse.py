"""Parsing and translating the format extensions without a server: every invalid shape is
a PlanError with its location (never a KeyError, AttributeError or RecursionError), and
the protos have the Spark Connect shape the docs promise."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql.connect import proto as pb

import connect_plan
from connect_plan import ir
from connect_plan.formats.json_plan import parse_document

INLINE = {"schema": [{"name": "k", "type": "int"}, {"name": "v", "type": "string"}], "rows": [[1, "a"]]}
NESTED = {"input": INLINE, "plan": []}


def doc(plan: list[Any], **extra: Any) -> dict[str, Any]:
    return {"input": INLINE, "plan": plan, **extra}


INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    ("input_two_kinds", {"input": {"table": "t", "range": 3}, "plan": []}, "input_kind", "/input"),
    ("input_unknown_kind", {"input": {"nothing": 1}, "plan": []}, "missing_key", "/input/schema"),  # the core message
    ("table_empty", {"input": {"table": " "}, "plan": []}, "table_name", "/input/table"),
    ("files_not_strings", {"input": {"files": [1], "format": "csv"}, "plan": []}, "paths", "/input/files"),
    (
        "files_bad_option",
        {"input": {"files": "/x", "format": "csv", "options": {"header": [1]}}, "plan": []},
        "option_value",
        "/input/options/header",
    ),
    (
        "files_bad_schema",
        {"input": {"files": "/x", "format": "csv", "schema": [{"name": "a", "type": "nope"}]}, "plan": []},
        "unknown_type",
        "/input/schema/0/type",
    ),
    ("range_zero_step", {"input": {"range": {"end": 3, "step": 0}}, "plan": []}, "range", "/input/range/step"),
    ("range_no_end", {"input": {"range": {"start": 3}}, "plan": []}, "missing_key", "/input/range/end"),
    ("range_not_int", {"input": {"range": {"end": 1.5}}, "plan": []}, "range", "/input/range/end"),
    ("sql_not_string", {"input": {"sql": 3}, "plan": []}, "sql", "/input/sql"),
    (
        "sql_bad_param_name",
        {"input": {"sql": "select :a", "args": {"a b": 1}}, "plan": []},
        "sql_parameter",
        "/input/args",
    ),
    (
        "sql_param_not_literal",
        {"input": {"sql": "select :a", "args": {"a": [1]}}, "plan": []},
        "expr_type",
        "/input/args/a",
    ),
    (
        "sql_param_column",
        {"input": {"sql": "select :a", "args": {"a": {"col": "x"}}}, "plan": []},
        "sql_parameter",
        "/input/args/a",
    ),
    (
        "sql_param_function",
        {"input": {"sql": "select :a", "args": {"a": {"fn": "upper", "args": [{"lit": "x"}]}}}, "plan": []},
        "sql_parameter",
        "/input/args/a",
    ),
    (
        "sql_param_column_in_array",
        {"input": {"sql": "select :a", "args": {"a": {"fn": "array", "args": [1, "x"]}}}, "plan": []},
        "sql_parameter",
        "/input/args/a/args/1",
    ),
    (
        "sql_param_call_in_map",
        {
            "input": {
                "sql": "select :a",
                "args": {"a": {"fn": "create_map", "args": [{"lit": "k"}, {"fn": "current_date", "args": []}]}},
            },
            "plan": [],
        },
        "sql_parameter",
        "/input/args/a/args/1",
    ),
    (
        "sql_positional_cast",
        {"input": {"sql": "select ?", "args": [1, {"fn": "cast", "args": [{"lit": "1"}, "int"]}]}, "plan": []},
        "sql_parameter",
        "/input/args/1",
    ),
    (
        "sql_param_window",
        {
            "input": {"sql": "select :a", "args": {"a": {"fn": "row_number", "args": [], "over": {"order_by": ["x"]}}}},
            "plan": [],
        },
        "sql_parameter",
        "/input/args/a",
    ),
    (
        "sql_typed_param_bad_in_array",
        {
            "input": {"sql": "select :a", "args": {"a": {"fn": "array", "args": [{"lit": "x", "type": "date"}]}}},
            "plan": [],
        },
        "literal_type",
        "/input/args/a/args/0",
    ),
    (
        "sql_typed_param_bad",
        {"input": {"sql": "select :a", "args": {"a": {"lit": "x", "type": "date"}}}, "plan": []},
        "literal_type",
        "/input/args/a",
    ),
    ("ref_unknown", {"with": {"a": NESTED}, "input": {"ref": "b"}, "plan": []}, "unknown_ref", "/input/ref"),
    ("with_not_object", {"with": [1], "input": INLINE, "plan": []}, "with_type", "/with"),
    ("no_input_no_read", {"plan": [{"op": "filter", "payload": "v"}], "conf": {}}, "missing_key", "/input"),
    (
        "input_and_read",
        {"input": INLINE, "plan": [{"op": "read", "payload": {"range": 2}}]},
        "read_not_first",
        "/plan/0",
    ),
    (
        "source_input_and_read",
        {"input": {"range": 1}, "plan": [{"op": "read", "payload": {"range": 2}}]},
        "conflicting_input",
        "/plan/0",
    ),
    (
        "read_not_first",
        doc([{"op": "limit", "payload": {"n": 1}}, {"op": "read", "payload": {"range": 2}}]),
        "read_not_first",
        "/plan/1",
    ),
    (
        "write_not_last",
        doc([{"op": "write", "payload": {"path": "/x", "format": "parquet"}}, {"op": "limit", "payload": {"n": 1}}]),
        "output_not_last",
        "/plan/0",
    ),
    ("write_no_format", doc([{"op": "write", "payload": {"path": "/x"}}]), "missing_key", "/plan/0/payload/format"),
    (
        "write_two_targets",
        doc([{"op": "write", "payload": {"path": "/x", "table": "t", "format": "csv"}}]),
        "write_target",
        "/plan/0/payload",
    ),
    (
        "write_bad_mode",
        doc([{"op": "write", "payload": {"path": "/x", "format": "csv", "mode": "replace"}}]),
        "write_mode",
        "/plan/0/payload/mode",
    ),
    (
        "insert_into_ignore",
        doc([{"op": "write", "payload": {"insertInto": "t", "mode": "ignore"}}]),
        "write_mode",
        "/plan/0/payload/mode",
    ),
    (
        "insert_into_partitioned",
        doc([{"op": "write", "payload": {"insertInto": "t", "partition_by": ["k"]}}]),
        "not_applicable",
        "/plan/0/payload/partition_by",
    ),
    (
        "output_and_write",
        doc([{"op": "write", "payload": {"path": "/x", "format": "csv"}}], output={"path": "/y", "format": "csv"}),
        "conflicting_output",
        "/output",
    ),
    (
        "nested_write",
        doc(
            [
                {
                    "op": "join",
                    "payload": {
                        "on": ["k"],
                        "other": {
                            "input": INLINE,
                            "plan": [{"op": "write", "payload": {"path": "/x", "format": "csv"}}],
                        },
                    },
                }
            ]
        ),
        "nested_output",
        "/plan/0/payload/other/plan/0",
    ),
    (
        "nested_conf",
        doc([{"op": "union", "payload": {"other": {"input": INLINE, "plan": [], "conf": {"a": "b"}}}}]),
        "nested_conf",
        "/plan/0/payload/other/conf",
    ),
    ("conf_bad_value", doc([], conf={"spark.x": [1]}), "conf_value", "/conf/spark.x"),
    ("view_no_name", doc([{"op": "createOrReplaceTempView", "payload": {}}]), "view_name", "/plan/0/payload/name"),
    (
        "two_right_sides",
        doc([{"op": "join", "payload": {"on": ["k"], "other": NESTED, "other_table": "t"}}]),
        "conflicting_input",
        "/plan/0/payload/other_table",
    ),
    (
        "right_data_and_plan",
        doc([{"op": "join", "payload": {"on": ["k"], "other": NESTED, "other_data": [], "other_schema": []}}]),
        "conflicting_input",
        "/plan/0/payload/other",
    ),
    (
        "other_plan_steps_without_data",
        doc([{"op": "union", "payload": {"other_plan": [{"op": "distinct"}]}}]),
        "missing_key",
        "/plan/0/payload/other_data",
    ),
    (
        "nested_error_located",
        doc(
            [
                {
                    "op": "join",
                    "payload": {
                        "on": ["k"],
                        "other": {"input": INLINE, "plan": [{"op": "limit", "payload": {"n": -1}}]},
                    },
                }
            ]
        ),
        "bad_count",
        "/plan/0/payload/other/plan/0/payload/n",
    ),
    (
        "single_join",
        doc([{"op": "join", "payload": {"on": ["k"], "how": "single", "other": NESTED}}]),
        "unsupported_join_type",
        "/plan/0/payload/how",
    ),
    (
        "broadcast_not_bool",
        doc([{"op": "join", "payload": {"on": ["k"], "broadcast": "yes", "other": NESTED}}]),
        "bool_expected",
        "/plan/0/payload/broadcast",
    ),
    (
        "intersect_distinct_false",
        doc([{"op": "intersect", "payload": {"other": NESTED, "distinct": False}}]),
        "conflict",
        "/plan/0/payload/distinct",
    ),
    (
        "minus_primary_distinct",
        doc([{"op": "minusPrimary", "payload": {"other": NESTED, "distinct": True}}]),
        "conflict",
        "/plan/0/payload/distinct",
    ),
    (
        "minus_primary_column_count",
        doc(
            [
                {
                    "op": "minusPrimary",
                    "payload": {"other": {"input": INLINE, "plan": [{"op": "drop", "payload": ["v"]}]}},
                }
            ]
        ),
        "column_count",
        "/plan/0",
    ),
    (
        "intersect_primary_needs_names",
        doc([{"op": "intersectPrimary", "payload": {"other": {"table": "t"}}}]),
        "needs_schema",
        "/plan/0",
    ),
    (
        "fetch_negative",
        doc([{"op": "fetch", "payload": {"offset": -1, "count": 2}}]),
        "bad_count",
        "/plan/0/payload/offset",
    ),
    (
        "grouping_sets_empty",
        doc([{"op": "groupingSets", "payload": {"sets": [], "aggs": []}}]),
        "payload_type",
        "/plan/0/payload/sets",
    ),
    (
        "grouping_sets_member_not_key",
        doc([{"op": "groupingSets", "payload": {"group_by": ["k"], "sets": [["v"]], "aggs": []}}]),
        "unknown_column",
        "/plan/0/payload/sets/0/0",
    ),
    (
        "agg_filter_first",
        doc(
            [
                {
                    "op": "groupBy",
                    "payload": {
                        "group_by": ["k"],
                        "aggs": [{"agg": "last", "column": "v", "filter": {"op": "eq", "left": "k", "right": 1}}],
                    },
                }
            ]
        ),
        "agg_filter",
        "/plan/0/payload/aggs/0/filter",
    ),
    ("sample_fraction", doc([{"op": "sample", "payload": {"fraction": 1.5}}]), "fraction", "/plan/0/payload/fraction"),
    ("repartition_nothing", doc([{"op": "repartition", "payload": {}}]), "missing_key", "/plan/0/payload/n"),
    (
        "coalesce_columns",
        doc([{"op": "coalesce", "payload": {"n": 1, "columns": ["k"]}}]),
        "not_applicable",
        "/plan/0/payload/columns",
    ),
    ("hint_no_name", doc([{"op": "hint", "payload": {"parameters": []}}]), "payload_type", "/plan/0/payload"),
    ("tail_negative", doc([{"op": "tail", "payload": {"n": -3}}]), "bad_count", "/plan/0/payload/n"),
]


@pytest.mark.parametrize(("name", "document", "code", "loc"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_extension_is_a_located_plan_error(name: str, document: dict[str, Any], code: str, loc: str) -> None:
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(None, None, document)
    assert (code, loc) in [(d.code, d.loc) for d in info.value.details], str(info.value)


def test_deeply_nested_plans_are_a_plan_error_not_a_recursion_error() -> None:
    deep: dict[str, Any] = {"input": INLINE, "plan": []}
    for _ in range(200):
        deep = {"input": INLINE, "plan": [{"op": "union", "payload": {"other": deep}}]}
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(None, None, deep)
    assert "too_deep" in info.value.codes


def test_old_documents_take_the_old_path_unchanged() -> None:
    """A core document parses to the same IR as before (no output, no conf, inline source)."""
    plan = parse_document(doc([{"op": "limit", "payload": {"n": 1}}]))
    assert isinstance(plan.source, ir.InlineData) and plan.output is None and plan.conf == ()


def _rel(document: dict[str, Any]) -> pb.Relation:
    return connect_plan.translate(None, None, document).root


def test_sources_become_read_range_and_sql_relations() -> None:
    r = _rel({"input": {"table": "db.sales", "options": {"versionAsOf": 3}}, "plan": []})
    assert r.read.named_table.unparsed_identifier == "db.sales" and dict(r.read.named_table.options) == {
        "versionAsOf": "3"
    }
    r = _rel(
        {
            "input": {
                "files": ["/a/*.csv", "/b"],
                "format": "csv",
                "options": {"header": True},
                "schema": [{"name": "a b", "type": "decimal(5,2)"}],
            },
            "plan": [],
        }
    )
    ds = r.read.data_source
    assert (ds.format, list(ds.paths), dict(ds.options), ds.schema) == (
        "csv",
        ["/a/*.csv", "/b"],
        {"header": "true"},
        "`a b` decimal(5,2)",
    )
    r = _rel({"plan": [{"op": "read", "payload": {"range": [1, 9, 2]}}]})
    assert (r.range.start, r.range.end, r.range.step, r.range.HasField("num_partitions")) == (1, 9, 2, False)
    r = _rel({"input": {"sql": "select :a, ?", "args": {"a": "x'"}}, "plan": []})
    assert r.sql.query == "select :a, ?" and r.sql.named_arguments["a"].literal.string == "x'"


def test_a_shared_sub_plan_is_emitted_identically_at_each_use() -> None:
    document = {
        "with": {"s": {"input": INLINE, "plan": [{"op": "filter", "payload": "v"}]}},
        "input": {"ref": "s"},
        "plan": [{"op": "unionAll", "payload": {"other": {"ref": "s"}}}],
    }
    r = _rel(document)
    left, right = r.set_op.left_input, r.set_op.right_input
    assert left.project.expressions[0].HasField("unresolved_star") and right.project.expressions[0].HasField(
        "unresolved_star"
    )
    assert left.common.plan_id != right.common.plan_id
    assert left.project.input == right.project.input and left.project.input.HasField("filter")


def test_used_once_nested_plans_are_inlined() -> None:
    r = _rel(doc([{"op": "union", "payload": {"other": {"input": INLINE, "plan": [{"op": "distinct"}]}}}]))
    assert r.set_op.right_input.HasField("deduplicate")


def test_writes_and_views_are_commands() -> None:
    p = connect_plan.translate(
        None,
        None,
        doc(
            [
                {
                    "op": "write",
                    "payload": {
                        "path": "/o",
                        "format": "parquet",
                        "mode": "append",
                        "partition_by": ["k"],
                        "options": {"compression": "zstd"},
                    },
                }
            ]
        ),
    )
    w = p.command.write_operation
    assert (w.path, w.source, w.mode, list(w.partitioning_columns), dict(w.options)) == (
        "/o",
        "parquet",
        pb.WriteOperation.SAVE_MODE_APPEND,
        ["k"],
        {"compression": "zstd"},
    )
    assert w.input.collect_metrics.input.HasField("local_relation")
    p = connect_plan.translate(None, None, doc([], output={"insertInto": "t", "overwrite": True}))
    assert p.command.write_operation.table.save_method == pb.WriteOperation.SaveTable.TABLE_SAVE_METHOD_INSERT_INTO
    assert p.command.write_operation.mode == pb.WriteOperation.SAVE_MODE_OVERWRITE
    p = connect_plan.translate(None, None, doc([{"op": "createGlobalTempView", "payload": "g"}]))
    v = p.command.create_dataframe_view
    assert (v.name, v.is_global, v.replace) == ("g", True, False)


def test_filtered_measure_is_a_case_when_inside_the_aggregate() -> None:
    r = _rel(
        doc(
            [
                {
                    "op": "groupBy",
                    "payload": {
                        "group_by": ["v"],
                        "aggs": [{"agg": "sum", "column": "k", "filter": {"op": "gt", "left": "k", "right": 1}}],
                    },
                }
            ]
        )
    )
    fn = r.aggregate.aggregate_expressions[0].unresolved_function
    assert fn.function_name == "sum" and fn.arguments[0].unresolved_function.function_name == "when"


def test_grouping_sets_reference_the_grouping_expressions() -> None:
    r = _rel(doc([{"op": "groupingSets", "payload": {"sets": [["k", "v"], ["V"], []], "aggs": [{"agg": "count"}]}}]))
    a = r.aggregate
    assert a.group_type == pb.Aggregate.GROUP_TYPE_GROUPING_SETS
    assert [e.unresolved_attribute.unparsed_identifier for e in a.grouping_expressions] == ["k", "v"]
    assert [len(g.grouping_set) for g in a.grouping_sets] == [2, 1, 0]


@pytest.mark.parametrize(
    "payload",
    [
        {"columns": [{"col": "v", "desc": True, "nulls_first": True}, {"col": "k", "asc": True, "nulls_last": True}]},
        {"columns": ["v", "k"], "ascending": [False, True], "nulls_first": [True, False]},
        ["v DESC", "k"],
        "k",
    ],
)
def test_sort_is_order_by_under_its_substrait_name(payload: Any) -> None:
    """'sort' takes every orderBy payload shape and gives the identical relation."""
    ours = connect_plan.translate(None, None, doc([{"op": "sort", "payload": payload}]))
    theirs = connect_plan.translate(None, None, doc([{"op": "orderBy", "payload": payload}]))
    assert ours == theirs and ours.root.sort.is_global


def test_sort_errors_name_the_op() -> None:
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(None, None, doc([{"op": "sort", "payload": {"columns": []}}]))
    assert info.value.locs == ("/plan/0/payload/columns",) and "sort 'columns'" in str(info.value)


@pytest.mark.parametrize(
    ("op", "join_type"),
    [("minusPrimary", pb.Join.JOIN_TYPE_LEFT_ANTI), ("intersectPrimary", pb.Join.JOIN_TYPE_LEFT_SEMI)],
)
def test_primary_set_types_are_joins_on_every_column_by_position(op: str, join_type: int) -> None:
    other = {
        "input": {"schema": [{"name": "a", "type": "bigint"}, {"name": "k", "type": "string"}], "rows": []},
        "plan": [],
    }
    j = _rel(doc([{"op": op, "payload": {"other": other}}])).join
    assert j.join_type == join_type and not j.using_columns
    cond = j.join_condition.unresolved_function
    assert cond.function_name == "and"
    pairs = []
    for eq in cond.arguments:
        assert eq.unresolved_function.function_name == "<=>"
        left, right = (a.unresolved_attribute for a in eq.unresolved_function.arguments)
        assert (left.plan_id, right.plan_id) == (j.left.common.plan_id, j.right.common.plan_id)
        pairs.append((left.unparsed_identifier, right.unparsed_identifier))
    assert pairs == [("k", "a"), ("v", "k")]  # by position, not by name


def test_sort_within_partitions_is_a_local_sort() -> None:
    r = _rel(
        doc(
            [
                {"op": "repartition", "payload": {"columns": ["k"]}},
                {"op": "sortWithinPartitions", "payload": ["k", "v DESC"]},
            ]
        )
    )
    assert not r.sort.is_global and [o.direction for o in r.sort.order] == [
        pb.Expression.SortOrder.SORT_DIRECTION_ASCENDING,
        pb.Expression.SortOrder.SORT_DIRECTION_DESCENDING,
    ]
    assert r.sort.input.HasField("repartition_by_expression")
    assert _rel(doc([{"op": "sort", "payload": ["k"]}])).sort.is_global


def test_sql_parameters_accept_literals_and_constructors_over_literals() -> None:
    """What Spark binds (Literal, array/map/struct constructors of literals) translates; typed
    literals are typed Literal protos wherever they are, never casts (which Spark rejects)."""
    args = {
        "a": {"fn": "array", "args": [1, {"lit": "2024-01-02", "type": "date"}]},
        "m": {
            "fn": "create_map",
            "args": [
                {"lit": "k"},
                {"fn": "named_struct", "args": [{"lit": "x"}, {"lit": "1.5", "type": "decimal(3,1)"}]},
            ],
        },
        "e": {
            "fn": "map_from_entries",
            "args": [{"fn": "array", "args": [{"fn": "struct", "args": [1, {"lit": None}]}]}],
        },
    }
    sql = _rel({"input": {"sql": "select :a, :m, :e", "args": args}, "plan": []}).sql
    a = sql.named_arguments["a"].unresolved_function
    assert a.function_name == "array" and a.arguments[1].literal.HasField("date")
    inner = sql.named_arguments["m"].unresolved_function.arguments[1].unresolved_function
    assert inner.function_name == "named_struct" and inner.arguments[1].literal.decimal.value == "1.5"
    assert sql.named_arguments["e"].unresolved_function.function_name == "map_from_entries"

    def kinds(e: pb.Expression) -> set[str]:
        kind = e.WhichOneof("expr_type")
        out = {kind}
        if kind == "unresolved_function":
            for x in e.unresolved_function.arguments:
                out |= kinds(x)
        return out

    assert set().union(*(kinds(e) for e in sql.named_arguments.values())) == {"unresolved_function", "literal"}


def test_invalid_sql_parameters_fail_before_any_network_call() -> None:
    doc = {"input": {"sql": "select :a", "args": {"a": {"col": "x"}}}, "plan": []}
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.execute_plan(None, None, doc, "sc://127.0.0.1:9")  # nothing listens there
    assert info.value.codes == ("sql_parameter",)
