"""Sparkless' plan shapes (issue 13) at the parser: what each reads as, and the located
errors for what is refused. Results are proven against PySpark in
tests/integration/test_sparkless.py."""

from __future__ import annotations

from typing import Any

import pytest

import connect_plan
from connect_plan import PlanError, ir
from connect_plan.formats.json_plan import Parser, parse_expr

SCHEMA = [{"name": "age", "type": "bigint"}, {"name": "name", "type": "string"}]


def _c(name: str) -> dict[str, Any]:
    return {"type": "column", "name": name}


def _op(op: str, left: Any, right: Any = None) -> dict[str, Any]:
    return {"type": "op", "op": op, "left": left, "right": right}


def _expr(raw: Any) -> ir.Expr:
    p = Parser()
    out = parse_expr(p, raw, "/e")
    assert not p.errors, p.errors
    assert out is not None
    return out


def _errors(raw: Any) -> list[tuple[str, str]]:
    p = Parser()
    parse_expr(p, raw, "/e")
    return [(d.code, d.loc) for d in p.errors]


@pytest.mark.parametrize(
    "raw,fn",
    [
        (_op(">", _c("age"), {"type": "literal", "value": 1}), ">"),
        (_op("&", _c("a"), _c("b")), "and"),
        (_op("|", _c("a"), _c("b")), "or"),
        (_op("!", _c("a")), "not"),
        (_op("%", _c("a"), {"type": "literal", "value": 2}), "%"),
        (_op("eqNullSafe", _c("a"), None), "<=>"),
        (_op("isnull", _c("a")), "isnull"),
        (_op("isnotnull", _c("a")), "isnotnull"),
        (_op("like", _c("a"), {"type": "literal", "value": "x%"}), "like"),
        (_op("-", _c("a")), "negative"),
        (_op("upper", _c("a")), "upper"),
        ({"op": "upper", "left": {"col": "a"}, "right": None}, "upper"),  # Sparkless 4 robin format
        ({"op": "not", "left": {"col": "a"}, "right": None}, "not"),
    ],
)
def test_sparkless_ops_call_the_functions_pyspark_means(raw: Any, fn: str) -> None:
    out = _expr(raw)
    assert isinstance(out, ir.Call) and out.fn == fn


def test_a_null_right_operand_of_a_binary_op_is_a_null_literal() -> None:
    out = _expr(_op("==", _c("a"), None))
    assert isinstance(out, ir.Call) and out.args[1] == ir.Lit(None, "/e/right")


def test_cast_when_isin_between() -> None:
    assert isinstance(_expr(_op("cast", _c("a"), {"type": "literal", "value": "string"})), ir.Cast)
    assert isinstance(_expr({"op": "cast", "left": {"col": "a"}, "right": {"lit": "int"}}), ir.Cast)
    when = _expr({"type": "case_when", "conditions": [[_c("b"), 1]], "default": 0})
    assert isinstance(when, ir.When) and len(when.branches) == 1 and when.otherwise is not None
    when = _expr({"op": "when", "branches": [[{"col": "b"}, {"lit": 1}]], "default": None})
    assert isinstance(when, ir.When) and when.otherwise is None
    isin = _expr(_op("isin", _c("a"), [1, 2]))
    assert isinstance(isin, ir.Call) and isin.fn == "in" and len(isin.args) == 3
    between = _expr(_op("between", _c("a"), {"type": "between_bounds", "lower": 1, "upper": 2}))
    assert isinstance(between, ir.Call) and between.fn == "between"


@pytest.mark.parametrize(
    "raw,expected",
    [
        ({"type": "opaque", "repr": "concat(name)"}, [("opaque_expression", "/e")]),
        ({"type": "window", "opaque": True, "repr": "rank() OVER (...)"}, [("opaque_expression", "/e")]),
        (_op("isnull", _c("a"), _c("b")), [("sparkless_operand", "/e/right")]),
        (_op("between", _c("a"), [1, 2]), [("sparkless_operand", "/e/right")]),
        (_op("desc", _c("a")), [("sort_order", "/e/op")]),
        ({"op": "alias", "left": {"col": "a"}, "right": {"lit": "x"}}, [("alias_position", "/e/op")]),
        ({"op": "when", "branches": [[{"col": "a"}]]}, [("when_branch", "/e/branches/0")]),
        (_op("frobnicate", _c("a")), [("unknown_expr_op", "/e/op")]),
        ({"type": "op", "op": ">", "left": _c("a"), "right": 1, "rigth": 2}, [("unknown_key", "/e/rigth")]),
    ],
)
def test_refused_shapes_are_located(raw: Any, expected: list[tuple[str, str]]) -> None:
    assert _errors(raw) == expected


def test_steps_in_sparkless_shapes() -> None:
    plan = [
        {"op": "filter", "payload": {"condition": _op(">", _c("age"), {"type": "literal", "value": 26})}},
        {
            "op": "withColumn",
            "payload": {"name": "x", "expression": _op("+", _c("age"), {"type": "literal", "value": 1})},
        },
        {"op": "orderBy", "payload": {"columns": [_op("desc_nulls_last", _c("age"))], "ascending": [True]}},
        {
            "op": "select",
            "payload": {"columns": [_c("name"), {"op": "alias", "left": {"col": "x"}, "right": {"lit": "y"}}]},
        },
        {"op": "drop", "payload": {"cols": ["y"]}},
        {"op": "withColumnRenamed", "payload": {"existing": "name", "new": "n"}},
    ]
    proto = connect_plan.translate([[30, "a"]], SCHEMA, plan)
    assert proto.root.WhichOneof("rel_type") == "with_columns_renamed"


@pytest.mark.parametrize(
    "plan,expected",
    [
        ([{"op": "filter"}], [("missing_key", "/plan/0/payload")]),
        ([{"op": "filter", "payload": None}], [("missing_key", "/plan/0/payload")]),
        (
            [{"op": "orderBy", "payload": {"columns": ["age"], "acending": [False]}}],
            [("unknown_key", "/plan/0/payload/acending")],
        ),
        ([{"op": "limit", "payload": {"n": 1}, "paylod": 2}], [("unknown_key", "/plan/0/paylod")]),
        (
            [{"op": "select", "payload": {"columns": [{"fn": "sum", "args": ["age"], "windw": {}}]}}],
            [("unknown_key", "/plan/0/payload/columns/0/windw")],
        ),
        (
            [
                {
                    "op": "groupBy",
                    "payload": {"group_by": ["name"], "aggs": [{"agg": "sum", "column": "age", "alais": "s"}]},
                }
            ],
            [("unknown_key", "/plan/0/payload/aggs/0/alais")],
        ),
    ],
)
def test_typos_are_refused_not_ignored(plan: list[Any], expected: list[tuple[str, str]]) -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.validate([[30, "a"]], SCHEMA, plan)
    assert [(d.code, d.loc) for d in info.value.details] == expected


def test_null_valued_and_producer_keys_are_not_errors() -> None:
    connect_plan.validate(
        [[30, "a"]], SCHEMA, [{"op": "orderBy", "payload": {"columns": ["age"], "nulls_last": None, "extra": None}}]
    )
    doc = {"name": "a robin fixture", "description": "...", "expected": {"rows": []}}
    connect_plan.validate(None, None, {**doc, "input": {"schema": SCHEMA, "rows": []}, "plan": []})


def test_a_document_with_a_misspelled_plan_key() -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.validate(None, None, {"input": {"schema": SCHEMA, "rows": []}, "plann": []})
    assert info.value.details[0].code == "unknown_key" and "did you mean 'plan'?" in info.value.details[0].message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a key another kind of input reads is unknown here: a table's schema was ignored
        ({"table": "t", "schema": [{"name": "a", "type": "int"}]}, [("unknown_key", "/input/schema")]),
        ({"table": "t", "optons": {"a": "b"}}, [("unknown_key", "/input/optons")]),
        ({"sql": "select 1 as a", "schema": "a int"}, [("unknown_key", "/input/schema")]),
        ({"range": 5, "schema": [{"name": "id", "type": "bigint"}]}, [("unknown_key", "/input/schema")]),
        ({"range": {"end": 5, "stepp": 2}}, [("unknown_key", "/input/range/stepp")]),
        ({"files": "/d/x.parquet", "fromat": "parquet"}, [("unknown_key", "/input/fromat")]),
        ({"schema": [{"name": "a", "type": "int"}], "rows": [[1]], "options": {}}, [("unknown_key", "/input/options")]),
    ],
)
def test_unknown_keys_of_each_kind_of_input_are_refused(source: dict[str, Any], expected: list[Any]) -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.validate(None, None, {"input": source, "plan": []})
    assert [(d.code, d.loc) for d in info.value.details] == expected


def test_every_key_each_kind_of_input_reads_is_accepted() -> None:
    for source in (
        {"table": "t", "options": {"versionAsOf": "1"}},
        {"files": "/d/x.csv", "format": "csv", "options": {"header": "true"}, "schema": "a int"},
        {"range": {"start": 0, "end": 5, "step": 1, "numPartitions": 2}},
        {"sql": "select :x as a", "args": {"x": 1}},
        {"schema": [{"name": "a", "type": "int"}], "data": [[1]]},
    ):
        connect_plan.validate(None, None, {"input": source, "plan": []})


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        ([{"op": "orderBy", "payload": {"columns": [{"col": "age", "dsc": True}]}}], "/plan/0/payload/columns/0/dsc"),
        (
            [{"op": "orderBy", "payload": {"columns": [{"expr": {"col": "age"}, "ascnd": False}]}}],
            "/plan/0/payload/columns/0/ascnd",
        ),
        ([{"op": "select", "payload": [{"name": "x", "expr": {"col": "age"}, "extra": 1}]}], "/plan/0/payload/0/extra"),
        ([{"op": "select", "payload": [{"col": "age", "alais": "x"}]}], "/plan/0/payload/0/alais"),
        (
            [{"op": "filter", "payload": {"op": "gt", "left": {"col": "age", "sid": "left"}, "right": {"lit": 1}}}],
            "/plan/0/payload/left/sid",
        ),
        (
            [{"op": "filter", "payload": {"op": "gt", "left": {"col": "age"}, "right": {"lit": 1, "tpe": "int"}}}],
            "/plan/0/payload/right/tpe",
        ),
        (
            [{"op": "filter", "payload": {"condition": _op(">", {"type": "column", "name": "age", "nme": 1}, 1)}}],
            "/plan/0/payload/condition/left/nme",
        ),
    ],
)
def test_typos_in_items_references_and_literals_are_refused(plan: list[Any], expected: str) -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.validate([[30, "a"]], SCHEMA, plan)
    assert [(d.code, d.loc) for d in info.value.details] == [("unknown_key", expected)]


def test_a_schema_fields_typo_is_refused_and_structtype_json_keys_are_not() -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.validate([[1]], [{"name": "a", "type": "int", "nulable": False}], [])
    assert [(d.code, d.loc) for d in info.value.details] == [("unknown_key", "/input/schema/0/nulable")]
    spark_json = {"fields": [{"name": "a", "type": "integer", "nullable": True, "metadata": {}}]}
    connect_plan.validate([[1]], spark_json, [])
