"""Parsing: every payload variant and key spelling of PLAN_FORMAT.md §2/§3 gives the IR
it should, and every rejection is a PlanError with a code and a location."""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from connect_plan import PlanError, ir
from connect_plan.formats.json_plan import Parser, load_json, parse_document, parse_expr, parse_plan
from connect_plan.limits import MAX_EXPR_DEPTH

SCHEMA = [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}]


def steps(*plan: Any) -> tuple[ir.Step, ...]:
    return parse_plan([], SCHEMA, list(plan)).steps


def one(*plan: Any) -> Any:
    (parsed,) = steps(*plan)
    return parsed


def expr(raw: Any) -> ir.Expr:
    p = Parser()
    out = parse_expr(p, raw, "/e")
    p.raise_if_errors()
    assert out is not None
    return out


def errors(plan: Any, schema: Any = SCHEMA, rows: Any = ()) -> list[tuple[str, str]]:
    with pytest.raises(PlanError) as info:
        parse_plan(list(rows), schema, plan)
    return [(d.code, d.loc) for d in info.value.details]


# ---------------------------------------------------------------- expressions


@pytest.mark.parametrize(
    "raw,want",
    [
        ("a", ir.Col("a", "/e")),
        ({"col": "a"}, ir.Col("a", "/e/col")),
        ({"column": "a"}, ir.Col("a", "/e/column")),
        ({"col": "a", "alias": "ignored", "type": "column"}, ir.Col("a", "/e/col")),
        ({"type": "column", "name": "a"}, ir.Col("a", "/e/name")),
        (1, ir.Lit(1, "/e")),
        (2.5, ir.Lit(2.5, "/e")),
        (True, ir.Lit(True, "/e")),
        (None, ir.Lit(None, "/e")),
        ({"lit": "x"}, ir.Lit("x", "/e/lit")),
        ({"lit": None}, ir.Lit(None, "/e/lit")),
        ({"type": "literal", "value": 3}, ir.Lit(3, "/e/value")),
    ],
)
def test_leaves(raw: Any, want: ir.Expr) -> None:
    assert expr(raw) == want


def test_typed_literal() -> None:
    lit = expr({"lit": "2024-01-01", "type": "date"})
    assert isinstance(lit, ir.Lit) and lit.type is not None and lit.value == "2024-01-01"


@pytest.mark.parametrize(
    "op,fn",
    [
        ("eq", "=="),
        ("==", "=="),
        ("gt", ">"),
        ("ge", ">="),
        ("lt", "<"),
        ("le", "<="),
        ("eq_null_safe", "<=>"),
        ("add", "+"),
        ("+", "+"),
        ("sub", "-"),
        ("minus", "-"),
        ("-", "-"),
        ("mul", "*"),
        ("*", "*"),
        ("div", "/"),
        ("divide", "/"),
        ("/", "/"),
        ("**", "power"),
        ("pow", "power"),
    ],
)
def test_binary_ops(op: str, fn: str) -> None:
    got = expr({"op": op, "left": {"col": "a"}, "right": {"lit": 1}})
    assert isinstance(got, ir.Call) and got.fn == fn and len(got.args) == 2


def test_ne_is_not_of_equality() -> None:
    got = expr({"op": "ne", "left": "a", "right": 1})
    assert isinstance(got, ir.Call) and got.fn == "not"
    assert isinstance(got.args[0], ir.Call) and got.args[0].fn == "=="


@pytest.mark.parametrize(
    "op,fn", [("not", "not"), ("bitwise_not", "~"), ("is_null", "isnull"), ("is_not_null", "isnotnull")]
)
def test_unary_ops(op: str, fn: str) -> None:
    got = expr({"op": op, "arg": {"col": "a"}})
    assert got == ir.Call(fn, (ir.Col("a", "/e/arg/col"),), "/e")


def test_and_or_flatten_left_spine() -> None:
    node: Any = {"col": "c0"}
    for i in range(1, 50):
        node = {"op": "and", "left": node, "right": {"col": f"c{i}"}}
    got = expr(node)
    assert isinstance(got, ir.Call) and got.fn == "and" and len(got.args) == 50
    assert [a.name for a in got.args if isinstance(a, ir.Col)] == [f"c{i}" for i in range(50)]


def test_and_args_form() -> None:
    got = expr({"op": "or", "args": ["a", "b", {"lit": True}]})
    assert isinstance(got, ir.Call) and got.fn == "or" and len(got.args) == 3


def test_between_isin_getitem_startswith() -> None:
    between = expr({"op": "between", "left": "a", "lower": 1, "upper": {"lit": 5}})
    assert isinstance(between, ir.Call) and between.fn == "between" and len(between.args) == 3
    isin = expr({"op": "isin", "left": "a", "values": [1, {"lit": 2}, "x"]})
    assert isinstance(isin, ir.Call) and isin.fn == "in"
    assert [x.value for x in isin.args[1:] if isinstance(x, ir.Lit)] == [1, 2, "x"]  # bare strings are values here
    isin_lit = expr({"op": "isin", "left": "a", "right": {"lit": [1, 2]}})
    assert isinstance(isin_lit, ir.Call) and len(isin_lit.args) == 3
    item = expr({"op": "getItem", "left": "b", "right": {"lit": 0}})
    assert isinstance(item, ir.ExtractValue) and item.key == ir.Lit(0, "/e/right/lit")
    sw = expr({"op": "startswith", "left": "b", "right": {"lit": "x"}})
    assert isinstance(sw, ir.Call) and sw.fn == "startswith"


def test_regexp_op_forms() -> None:
    a = expr({"op": "regexp_extract", "left": "b", "pattern": {"lit": "(x)"}, "group": {"lit": 1}})
    b = expr({"op": "regexp_extract", "args": ["b", {"lit": "(x)"}, {"lit": 1}]})
    assert isinstance(a, ir.Call) and isinstance(b, ir.Call) and a.fn == b.fn == "regexp_extract"
    c = expr({"op": "regexp_extract", "left": "b", "right": {"lit": "x"}})  # group defaults to 0
    assert isinstance(c, ir.Call) and c.args[2] == ir.Lit(0, "/e/group")
    d = expr({"op": "regexp_replace", "left": "b", "pattern": {"lit": "x"}, "replacement": {"lit": "y"}})
    assert isinstance(d, ir.Call) and d.fn == "regexp_replace"


def test_op_with_args_routes_to_functions() -> None:
    assert expr({"op": "coalesce", "args": ["a", 0]}) == ir.Call(
        "coalesce", (ir.Col("a", "/e/args/0"), ir.Lit(0, "/e/args/1")), "/e"
    )
    assert (
        isinstance(got := expr({"op": "substringIndex", "args": ["b", {"lit": "."}, {"lit": 1}]}), ir.Call)
        and got.fn == "substring_index"
    )


def test_function_spellings_and_literal_slots() -> None:
    assert expr({"fn": "upper", "args": ["b"]}) == expr({"function": "upper", "args": [{"col": "b"}]}).__class__(
        "upper", (ir.Col("b", "/e/args/0"),), "/e"
    )
    sub = expr({"fn": "substring", "args": ["b", 1, {"lit": 2}]})
    assert isinstance(sub, ir.Call) and sub.args[1] == ir.Lit(1, "/e/args/1")
    # S slots take bare strings as strings, e slots take them as columns
    cws = expr({"fn": "concat_ws", "args": ["-", "a", "b"]})
    assert isinstance(cws, ir.Call)
    assert cws.args[0] == ir.Lit("-", "/e/args/0") and cws.args[1] == ir.Col("a", "/e/args/1")
    # a column object in a literal slot passes through for Spark to check
    col_slot = expr({"fn": "repeat", "args": ["b", {"col": "a"}]})
    assert isinstance(col_slot, ir.Call) and col_slot.args[1] == ir.Col("a", "/e/args/1/col")


def test_zero_arg_functions_may_omit_args() -> None:
    assert expr({"fn": "pi"}) == ir.Call("pi", (), "/e")
    assert expr({"fn": "pi", "args": []}) == ir.Call("pi", (), "/e")


def test_cast_forms() -> None:
    for raw in ({"fn": "cast", "args": ["a", "string"]}, {"fn": "cast", "args": ["a", {"lit": "string"}]}):
        got = expr(raw)
        assert isinstance(got, ir.Cast) and got.mode == "cast"
    assert isinstance(got := expr({"fn": "try_cast", "args": ["b", "int"]}), ir.Cast) and got.mode == "try"
    assert isinstance(got := expr({"fn": "astype", "args": ["b", "decimal(5,2)"]}), ir.Cast) and got.mode == "cast"


def test_when_forms() -> None:
    two = expr({"fn": "when", "args": [{"op": "gt", "left": "a", "right": 1}, {"lit": "y"}]})
    assert isinstance(two, ir.When) and two.otherwise is None and len(two.branches) == 1
    chain = expr({"fn": "when", "args": [True, 1, False, 2, 3]})
    assert isinstance(chain, ir.When) and len(chain.branches) == 2 and chain.otherwise == ir.Lit(3, "/e/args/4")


def test_udf_forms() -> None:
    assert expr({"udf": "f", "args": ["a"]}) == ir.UdfCall("f", (ir.Col("a", "/e/args/0"),), "/e")
    assert isinstance(expr({"op": "udf", "name": "f", "args": []}), ir.UdfCall)


@pytest.mark.parametrize(
    "raw,code",
    [
        ([1, 2], "expr_type"),
        ({"lit": {"x": 1}}, "literal_type"),
        ({"op": "likes", "left": "a", "right": "b"}, "unknown_expr_op"),
        ({"op": "gt", "left": "a"}, "missing_key"),
        ({"fn": "nope", "args": []}, "unknown_function"),
        ({"fn": "upper", "args": "a"}, "args_type"),
        ({"fn": "upper", "args": ["a", "b"]}, "arity"),
        ({"fn": "cast", "args": ["a", "integer64"]}, "unknown_type"),
        ({"fn": "substring", "args": ["b", "x", 1]}, "literal_expected"),
        ({"fn": 3, "args": []}, "fn_name"),
        ({"something": 1}, "expr_form"),
        ({"col": 5}, "column_name"),
        ("", "column_name"),
        ({"col": "a", "side": "middle"}, "column_side"),
    ],
)
def test_expression_errors(raw: Any, code: str) -> None:
    p = Parser()
    assert parse_expr(p, raw, "/e") is None or p.errors
    assert code in [d.code for d in p.errors]
    assert all(d.loc.startswith("/e") for d in p.errors)


def test_expression_depth_is_bounded_without_recursion_error() -> None:
    node: Any = {"col": "a"}
    for _ in range(5000):
        node = {"fn": "upper", "args": [node]}
    p = Parser()
    assert parse_expr(p, node, "/e") is None
    assert [d.code for d in p.errors] == ["too_deep"]
    assert p.errors[0].loc.count("/args/0") == MAX_EXPR_DEPTH + 1


# ---------------------------------------------------------------- ops


def test_filter_and_bare_payload() -> None:
    assert isinstance(one({"op": "filter", "payload": {"op": "gt", "left": "a", "right": 1}}), ir.Filter)
    f = one({"op": "filter", "payload": "a"})
    assert isinstance(f, ir.Filter) and f.condition == ir.Col("a", "/plan/0/payload")


def test_select_variants() -> None:
    s = one(
        {
            "op": "select",
            "payload": [
                "a",
                {"col": "b"},
                {"column": "a", "alias": "c"},
                {"name": "b"},
                {"type": "column", "name": "a"},
                {"name": "n", "expr": 1},
                {"fn": "upper", "args": ["b"]},
                {"fn": "lower", "args": ["b"], "alias": "lo"},
                "concat(a, '-', b) as k",
                "a as z",
                "*",
                3,
            ],
        }
    )
    assert isinstance(s, ir.Select)
    kinds = [(type(i.expr).__name__, i.alias) for i in s.items]
    assert kinds == [
        ("Col", None),
        ("Col", None),
        ("Col", "c"),
        ("Col", None),
        ("Col", None),
        ("Lit", "n"),
        ("Call", None),
        ("Call", "lo"),
        ("Call", "k"),
        ("Col", "z"),
        ("Star", None),
        ("Lit", None),
    ]
    cols = one({"op": "select", "payload": {"columns": [{"type": "column", "name": "a"}]}})
    assert isinstance(cols, ir.Select) and cols.items[0].expr == ir.Col("a", "/plan/0/payload/columns/0/name")


def test_select_concat_ws_string_form() -> None:
    s = one({"op": "select", "payload": ["concat_ws('|', a, b)"]})
    assert isinstance(s, ir.Select)
    call = s.items[0].expr
    assert isinstance(call, ir.Call) and call.fn == "concat_ws" and call.args[0] == ir.Lit("|", "/plan/0/payload/0")


def test_with_column_and_rename_and_drop() -> None:
    w = one({"op": "withColumn", "payload": {"alias": "x", "expr": "a"}})
    assert isinstance(w, ir.WithColumn) and w.name == "x"
    r = one({"op": "withColumnRenamed", "payload": {"old": "a", "new": "c"}})
    assert isinstance(r, ir.WithColumnRenamed) and (r.old, r.new) == ("a", "c")
    d = one({"op": "drop", "payload": {"columns": ["a", {"col": "b"}, {"column": "c"}]}})
    assert isinstance(d, ir.Drop) and d.names == ("a", "b", "c")


def test_limit_offset_distinct_stop() -> None:
    assert one({"op": "limit", "payload": {"n": 0}}) == ir.Limit(0, "limit", "/plan/0", 0)
    assert one({"op": "offset"}) == ir.Offset(0, "offset", "/plan/0", 0)
    assert one({"op": "offset", "payload": {"n": 3}}) == ir.Offset(0, "offset", "/plan/0", 3)
    assert one({"op": "distinct"}) == ir.Distinct(0, "distinct", "/plan/0")
    assert one({"op": "stop", "payload": None}) == ir.Stop(0, "stop", "/plan/0")


def _keys(payload: Any) -> list[tuple[str, bool, bool | None]]:
    o = one({"op": "orderBy", "payload": payload})
    assert isinstance(o, ir.OrderBy)
    return [(k.expr.name if isinstance(k.expr, ir.Col) else "?", k.ascending, k.nulls_first) for k in o.keys]


def test_order_by_variants() -> None:
    assert _keys({"columns": ["a", "b"], "ascending": [True, False]}) == [("a", True, None), ("b", False, None)]
    assert _keys({"columns": ["a DESC", "b asc"]}) == [("a", False, None), ("b", True, None)]
    assert _keys({"columns": ["a"], "ascending": False}) == [("a", False, None)]
    assert _keys({"columns": ["a", "b"], "nulls_first": [True, False]}) == [("a", True, True), ("b", True, False)]
    assert _keys({"columns": ["a"], "nulls_last": [True]}) == [("a", True, False)]
    assert _keys({"columns": [{"col": "a", "asc": False}, {"name": "b", "desc": True, "nulls_first": True}]}) == [
        ("a", False, None),
        ("b", False, True),
    ]
    assert _keys({"columns": ["['a', 'b']"]}) == [("a", True, None), ("b", True, None)]
    assert _keys({"columns": ["a", "desc"]}) == [("a", False, None)]
    # an explicit suffix wins over the ascending list (robin HEAD read only the suffix)
    assert _keys({"columns": ["a DESC"], "ascending": [True]}) == [("a", False, None)]


def test_group_by_agg_rollup_cube() -> None:
    g = one(
        {
            "op": "groupBy",
            "payload": {
                "group_by": ["a", {"col": "b"}, {"expr": {"fn": "upper", "args": ["b"]}}],
                "aggregations": [
                    {"agg": "count"},
                    {"func": "sum", "column": "a", "name": "s"},
                    {"agg": "first", "column": "b", "ignorenulls": True},
                    {"agg": "avg", "column": "a", "cast": "int"},
                    {"expr": {"fn": "max", "args": ["a"]}, "alias": "m"},
                ],
            },
        }
    )
    assert isinstance(g, ir.GroupBy) and g.kind == "groupby" and len(g.keys) == 3
    assert g.aggs is not None
    count, total, first, avg, mx = g.aggs
    assert count.expr == ir.Call(
        "count", (ir.Lit(1, "/plan/0/payload/aggregations/0/column"),), "/plan/0/payload/aggregations/0/agg"
    )
    assert (
        total.alias == "s"
        and isinstance(first.expr, ir.Call)
        and first.expr.args[1] == ir.Lit(True, "/plan/0/payload/aggregations/2/ignorenulls")
    )
    assert isinstance(avg.expr, ir.Cast) and mx.alias == "m"
    # a groupBy without aggs and the agg after it are one step once parsed (aggs never None)
    paired = one(
        {"op": "groupBy", "payload": {"group_by": ["a"]}},
        {"op": "agg", "payload": {"aggs": [{"agg": "max", "column": "a"}]}},
    )
    assert isinstance(paired, ir.GroupBy) and paired.aggs is not None and len(paired.aggs) == 1
    assert paired.agg_index == 1 and paired.keys == (ir.Col("a", "/plan/0/payload/group_by/0"),)
    assert errors([{"op": "groupBy", "payload": {"group_by": ["a"]}}]) == [("groupby_without_aggs", "/plan/0")]
    r = one({"op": "rollup", "payload": {"columns": ["a"], "aggs": []}})
    assert isinstance(r, ir.GroupBy) and r.kind == "rollup"
    c = one({"op": "cube", "payload": {"group_by": [], "aggregations": []}})
    assert isinstance(c, ir.GroupBy) and c.kind == "cube"
    a = one({"op": "agg", "payload": {"aggs": [{"agg": "max", "column": "a"}]}})
    assert isinstance(a, ir.Agg)


RIGHT = {"other_data": [[1, "x"]], "other_schema": [{"name": "a", "type": "int"}, {"name": "c", "type": "string"}]}


@pytest.mark.parametrize(
    "how,canon",
    [
        ("inner", "inner"),
        ("left", "left"),
        ("left_outer", "left"),
        ("leftouter", "left"),
        ("right", "right"),
        ("right_outer", "right"),
        ("outer", "full"),
        ("full", "full"),
        ("full_outer", "full"),
        ("fullouter", "full"),
        ("semi", "left_semi"),
        ("left_semi", "left_semi"),
        ("leftsemi", "left_semi"),
        ("anti", "left_anti"),
        ("left_anti", "left_anti"),
        ("leftanti", "left_anti"),
        ("cross", "cross"),
        ("LEFT", "left"),
    ],
)
def test_join_how_spellings(how: str, canon: str) -> None:
    j = one({"op": "join", "payload": {**RIGHT, "on": ["a"], "how": how}})
    assert isinstance(j, ir.Join) and j.how == canon


def test_join_on_forms_and_key_placement() -> None:
    for on in (
        "a",
        ["a"],
        [{"col": "a"}],
        {"col": "a"},
        [{"op": "eq", "left": {"col": "a"}, "right": {"col": "a"}}],
        [{"operator": "==", "left": {"col": "a"}, "right": {"col": "A"}}],
    ):
        j = one({"op": "join", "payload": {**RIGHT, "on": on}})
        assert isinstance(j, ir.Join) and [k.lower() for k in j.keys] == ["a"] and j.condition is None, on
    cond = one({"op": "join", "payload": {**RIGHT, "on": {"op": "gt", "left": {"col": "a"}, "right": {"col": "c"}}}})
    assert isinstance(cond, ir.Join) and not cond.keys and cond.condition is not None
    camel = one(
        {
            "op": "join",
            "otherData": [[1, "x"]],
            "otherSchema": RIGHT["other_schema"],
            "on": ["a"],
            "payload": {"how": "left"},
        }
    )
    assert isinstance(camel, ir.Join) and camel.how == "left" and camel.right.source.table.num_rows == 1
    no_payload = one({"op": "join", **RIGHT, "on": "a"})
    assert isinstance(no_payload, ir.Join)
    dict_rows = one(
        {
            "op": "join",
            "payload": {"other_data": [{"c": "y", "a": 2}], "other_schema": RIGHT["other_schema"], "on": "a"},
        }
    )
    assert isinstance(dict_rows, ir.Join) and dict_rows.right.source.table.to_pylist() == [{"a": 2, "c": "y"}]


def test_union_variants() -> None:
    u = one({"op": "union", "payload": RIGHT})
    assert isinstance(u, ir.SetOp) and not u.by_name
    ubn = one(
        {"op": "unionByName", "payload": {"otherData": RIGHT["other_data"], "otherSchema": RIGHT["other_schema"]}}
    )
    assert isinstance(ubn, ir.SetOp) and ubn.by_name and ubn.allow_missing
    for name in ("crossJoin", "cross_join"):
        assert isinstance(one({"op": name, "payload": RIGHT}), ir.CrossJoin)


# ---------------------------------------------------------------- documents, input and errors


def test_plan_as_json_text_and_document() -> None:
    text = '[{"op": "limit", "payload": {"n": 1}}]'
    assert parse_plan([], SCHEMA, text).steps == (ir.Limit(0, "limit", "/plan/0", 1),)
    doc = parse_document({"input": {"schema": SCHEMA, "rows": [[1, "x"]]}, "plan": []})
    assert doc.source.table.num_rows == 1


def test_schema_spellings() -> None:
    for schema in (
        [("a", "int")],
        [["a", "int"]],
        [{"fieldName": "a", "dataType": "int"}],
        [{"name": "a", "dataType": {"typeName": "integer"}}],
        {"fields": [{"name": "a", "type": "int"}]},
    ):
        table = parse_plan([[1]], schema, []).source.table
        assert str(table.schema.field("a").type) == "int32", schema


def test_all_problems_are_reported_at_once() -> None:
    got = errors(
        [{"op": "nope"}, {"op": "limit", "payload": {"n": -1}}, {"op": "filter", "payload": {"fn": "zz", "args": []}}]
    )
    assert got == [
        ("unknown_op", "/plan/0/op"),
        ("bad_count", "/plan/1/payload/n"),
        ("unknown_function", "/plan/2/payload/fn"),
    ]


def test_input_errors_are_located() -> None:
    assert errors([], schema=[{"name": "a", "type": "nope"}]) == [("unknown_type", "/input/schema/0/type")]
    assert errors([], schema=[("a", "int"), ("A", "int")]) == [("duplicate_column", "/input/schema/1")]
    assert errors([], schema=[("a", "int")], rows=[[1], [1, 2]]) == [("row_length", "/input/rows/1")]
    assert errors([], schema=[("a", "int")], rows=[["x"]]) == [("row_value", "/input/rows/0/0")]
    assert errors([], schema=[("a", "int")], rows=[5]) == [("row_type", "/input/rows/0")]


@pytest.mark.parametrize(
    "text,code",
    [
        ("[", "json_syntax"),
        ("[" * 100_000 + "]" * 100_000, "json_too_deep"),
        ("[NaN]", "json_syntax"),
        (b"\xff", "json_encoding"),
    ],
)
def test_load_json_errors(text: Any, code: str) -> None:
    with pytest.raises(PlanError) as info:
        load_json(text)
    assert info.value.codes == (code,)


def test_plan_error_is_value_error_and_lists_details() -> None:
    with pytest.raises(ValueError) as info:
        parse_plan([], SCHEMA, [{"op": "limit", "payload": {}}])
    err = info.value
    assert isinstance(err, PlanError)
    assert err.details[0].as_dict() == {
        "code": "bad_count",
        "loc": "/plan/0/payload/n",
        "message": "limit needs 'n', a non-negative integer",
    }


# ---------------------------------------------------------------- incomplete and variant types


@pytest.mark.parametrize(
    "type_", ["map", "array<map>", "struct<a:map>", "map<string,map>", "array<array>", "struct<a:array>"]
)
def test_types_without_a_spark_type_are_located_in_every_schema(type_: str) -> None:
    """A bare map (anywhere) and a nested bare array name no Spark type: located errors in
    the input schema, a right side's schema and a read schema, never TypeParseError."""
    assert errors([], [{"name": "v", "type": type_}]) == [("incomplete_type", "/input/schema/0/type")]
    join = {
        "op": "join",
        "payload": {
            "other_data": [],
            "other_schema": [{"name": "a", "type": "int"}, {"name": "m", "type": type_}],
            "on": ["a"],
        },
    }
    assert errors([join]) == [("incomplete_type", "/plan/0/payload/other_schema/1/type")]
    union = {"op": "unionByName", "other_data": [[None]], "other_schema": [["m", type_]], "payload": {}}
    assert errors([union]) == [("incomplete_type", "/plan/0/other_schema/0/type")]
    with pytest.raises(PlanError) as info:
        parse_document(
            {"input": {"files": ["/x"], "format": "parquet", "schema": [{"name": "m", "type": type_}]}, "plan": []}
        )
    assert [(d.code, d.loc) for d in info.value.details] == [("incomplete_type", "/input/schema/0/type")]


@pytest.mark.parametrize("type_", ["map", "array", "array<map>"])
def test_casts_and_typed_literals_to_incomplete_types_are_located(type_: str) -> None:
    cast = {"op": "withColumn", "payload": {"name": "c", "expr": {"fn": "cast", "args": ["a", type_]}}}
    typed = {"op": "withColumn", "payload": {"name": "c", "expr": {"lit": None, "type": type_}}}
    agg = {"op": "groupBy", "payload": {"group_by": [], "aggs": [{"agg": "max", "column": "a", "cast": type_}]}}
    assert errors([cast, typed, agg]) == [
        ("incomplete_type", "/plan/0/payload/expr/args/1"),
        ("incomplete_type", "/plan/1/payload/expr/type"),
        ("incomplete_type", "/plan/2/payload/aggs/0/cast"),
    ]


def test_top_level_bare_array_of_inline_rows_is_still_inferred() -> None:
    plan = parse_plan([[[1, 2]]], [("a", "array")], [])
    assert str(plan.source.table.schema.field("a").type) == "list<item: int64>"


def test_variant_columns_carry_json_values_in_sparks_arrow_form() -> None:
    from pyspark.sql.types import VariantVal

    rows = [[{"a": [1, "x"]}], ["s"], [1.5], [True], [None]]
    table = parse_plan(rows, [("v", "variant")], []).source.table
    got = [
        None if v is None else VariantVal(v["value"], v["metadata"]).toPython() for v in table.column("v").to_pylist()
    ]
    assert got == [{"a": [1, "x"]}, "s", decimal.Decimal("1.5"), True, None]
    nested = parse_plan(
        [[[{"k": 1}, None], {"v": [2]}]], [("av", "array<variant>"), ("sv", "struct<v:variant>")], []
    ).source.table
    assert nested.schema.field("av").type.value_type.field("metadata").metadata == {b"variant": b"true"}


def test_variant_values_that_are_not_json_are_located() -> None:
    import datetime as dt

    assert errors([], [("v", "variant")], rows=[[float("nan")], [dt.date(2024, 1, 1)]]) == [
        ("row_value", "/input/rows/0/0"),
        ("row_value", "/input/rows/1/0"),
    ]


@pytest.mark.parametrize(
    "fn,n",
    [
        ("make_timestamp", 4),
        ("make_timestamp", 5),
        ("make_timestamp", 8),
        ("make_timestamp_ntz", 3),
        ("make_timestamp_ntz", 7),
        ("try_make_timestamp", 1),
    ],
)
def test_make_timestamp_takes_its_two_forms_only(fn: str, n: int) -> None:
    step = {"op": "withColumn", "payload": {"name": "t", "expr": {"fn": fn, "args": ["a"] * n}}}
    assert errors([step]) == [("arity", "/plan/0/payload/expr/args")]


def test_make_timestamp_time_zone_is_a_string_literal_slot() -> None:
    seven = expr({"fn": "make_timestamp", "args": ["a", "a", "a", "a", "a", "a", "UTC"]})
    three = expr({"fn": "make_timestamp", "args": ["a", "b", "UTC"]})
    column = expr({"fn": "make_timestamp_ltz", "args": ["a", "a", "a", "a", "a", "a", {"col": "tz"}]})
    assert isinstance(seven, ir.Call) and seven.args[6] == ir.Lit("UTC", "/e/args/6")
    assert isinstance(three, ir.Call) and three.args == (
        ir.Col("a", "/e/args/0"),
        ir.Col("b", "/e/args/1"),
        ir.Lit("UTC", "/e/args/2"),
    )
    assert isinstance(column, ir.Call) and column.args[6] == ir.Col("tz", "/e/args/6/col")


@pytest.mark.parametrize("value", ["false", "true", 0, 1, None, [False]])
def test_union_by_name_allow_missing_columns_must_be_a_boolean(value: Any) -> None:
    step = {"op": "unionByName", "payload": {"other_data": [], "other_schema": SCHEMA, "allowMissingColumns": value}}
    assert errors([step]) == [("bool_expected", "/plan/0/payload/allowMissingColumns")]


@pytest.mark.parametrize("value,allow", [(False, False), (True, True), ("absent", True)])
def test_union_by_name_allow_missing_columns_is_read(value: Any, allow: bool) -> None:
    payload: dict[str, Any] = {"other_data": [], "other_schema": SCHEMA}
    if value != "absent":
        payload["allowMissingColumns"] = value
    (step,) = steps({"op": "unionByName", "payload": payload})
    assert isinstance(step, ir.SetOp) and step.allow_missing is allow


def test_stop_is_transparent_between_a_group_by_and_its_agg_and_around_read_and_write() -> None:
    import connect_plan

    group = {"op": "groupBy", "payload": {"group_by": ["a"]}}
    agg = {"op": "agg", "payload": {"aggs": [{"agg": "count"}]}}
    stop = {"op": "stop"}
    connect_plan.translate([[1, "x"]], SCHEMA, [stop, group, stop, stop, agg, stop])
    connect_plan.translate(
        [[1, "x"]], SCHEMA, [group, agg, {"op": "write", "payload": {"path": "/tmp/o", "format": "parquet"}}, stop]
    )
    connect_plan.translate(None, None, {"plan": [stop, {"op": "read", "payload": {"range": 3}}, stop]})
    connect_plan.translate(None, None, [stop, {"op": "read", "payload": {"range": 3}}])
    with pytest.raises(PlanError) as info:
        connect_plan.translate([[1, "x"]], SCHEMA, [group, stop])  # still no aggregation
    assert info.value.codes == ("groupby_without_aggs",)
    with pytest.raises(PlanError) as info:
        parse_document({"input": {"range": 2}, "plan": [stop, {"op": "read", "payload": {"range": 3}}]})
    assert [(d.code, d.loc) for d in info.value.details] == [("conflicting_input", "/plan/1")]


def test_side_picks_a_join_input_only_inside_a_join_condition() -> None:
    cond = {
        "op": "eq",
        "left": {"col": "a", "side": "left"},
        "right": {"fn": "abs", "args": [{"col": "a", "side": "right"}]},
    }
    (join,) = steps({"op": "join", "payload": {"other_data": [], "other_schema": SCHEMA, "on": [cond], "how": "inner"}})
    assert isinstance(join, ir.Join) and join.condition is not None
    sides = [n.side for n in ir.walk(join.condition) if isinstance(n, ir.Col)]
    assert sides == ["left", "right"] or sorted(sides) == ["left", "right"]
    elsewhere = [
        {"op": "filter", "payload": {"op": "gt", "left": {"col": "a", "side": "right"}, "right": 0}},
        {"op": "withColumn", "payload": {"name": "c", "expr": {"col": "a", "side": "left"}}},
        {"op": "select", "payload": [{"name": "c", "expr": {"fn": "upper", "args": [{"col": "b", "side": "right"}]}}]},
        {"op": "select", "payload": [{"col": "a", "side": "left"}]},
        {
            "op": "groupBy",
            "payload": {
                "group_by": [{"col": "a", "side": "left"}],
                "aggs": [{"agg": "count", "column": {"col": "b", "side": "right"}}],
            },
        },
        {"op": "orderBy", "payload": {"columns": [{"col": "a", "side": "right"}]}},
        {"op": "drop", "payload": {"columns": [{"col": "b", "side": "left"}]}},
        {
            "op": "withColumn",
            "payload": {
                "name": "r",
                "expr": {
                    "fn": "row_number",
                    "window": {"partition_by": [{"col": "a", "side": "left"}], "order_by": ["b"]},
                },
            },
        },
    ]
    assert errors(elsewhere) == [
        ("column_side", "/plan/0/payload/left/side"),
        ("column_side", "/plan/1/payload/expr/side"),
        ("column_side", "/plan/2/payload/0/expr/args/0/side"),
        ("column_side", "/plan/3/payload/0/side"),
        ("column_side", "/plan/4/payload/group_by/0/side"),
        ("column_side", "/plan/4/payload/aggs/0/column/side"),
        ("column_side", "/plan/5/payload/columns/0/side"),
        ("column_side", "/plan/6/payload/columns/0/side"),
        ("column_side", "/plan/7/payload/expr/window/partition_by/0/side"),
    ]


def test_a_join_type_nested_thousands_deep_is_a_located_error_not_a_recursion_error() -> None:
    """Found by test_fuzz (seed 70, wrap_deep): the message took repr() of the whole value."""
    how: Any = "left"
    for _ in range(3000):
        how = [how]
    right = {"input": {"schema": [["a", "int"]], "rows": []}, "plan": []}
    with pytest.raises(PlanError) as info:
        parse_plan([], [["a", "int"]], [{"op": "join", "payload": {"other": right, "on": ["a"], "how": how}}])
    assert info.value.codes == ("join_type",) and info.value.details[0].loc == "/plan/0/payload/how"


def test_a_non_ascii_digit_key_of_an_array_object_is_a_row_error() -> None:
    """'¹'.isdigit() is True but int('¹') fails: {"¹": 1} as an array<int> value raised ValueError."""
    with pytest.raises(PlanError) as info:
        parse_plan([[{"¹": 1}]], [["a", "array<int>"]], [])
    assert info.value.codes == ("row_value",)
