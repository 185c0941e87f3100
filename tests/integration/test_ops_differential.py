"""Every op of PLAN_FORMAT.md §2, every payload variant and key spelling, checked against
PySpark's own DataFrame API on the same server."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pyspark.sql import functions as F

PEOPLE_SCHEMA = [
    {"name": "id", "type": "bigint"},
    {"name": "name", "type": "string"},
    {"name": "age", "type": "int"},
    {"name": "dept", "type": "string"},
    {"name": "salary", "type": "double"},
    {"name": "hired", "type": "date"},
    {"name": "active", "type": "boolean"},
]
PEOPLE = [
    [1, "Alice", 34, "IT", 5200.0, "2020-01-15", True],
    [2, "Bob", 45, "HR", 4100.5, "2018-07-01", False],
    [3, "Carol", 29, "IT", 6100.0, "2021-03-30", True],
    [4, "Dan", None, "Sales", 3900.0, None, True],
    [5, "Eve", 52, "HR", None, "2015-11-11", None],
    [6, "Frank", 38, None, 4500.0, "2019-05-05", False],
    [7, "Grace", 29, "Sales", 4800.0, "2022-09-09", True],
]
DEPTS_SCHEMA = [
    {"name": "dept", "type": "string"},
    {"name": "name", "type": "string"},
    {"name": "floor", "type": "int"},
]
DEPTS = [["IT", "Engineering", 3], ["HR", "Human Resources", 1], ["Ops", "Operations", 2]]


@dataclass(frozen=True)
class Case:
    id: str
    plan: list[dict[str, Any]]
    oracle: Callable[..., Any]
    ordered: bool = False
    rows: Any = None
    schema: Any = None


def _depts(h: Any) -> Any:
    return h.df(DEPTS, DEPTS_SCHEMA)


def _join_renamed(h: Any, df: Any, how: str, on: Any = "dept") -> Any:
    right = _depts(h).withColumnRenamed("name", "name_right")
    return df.join(right, on, how)


JOIN_PAYLOAD = {"other_data": DEPTS, "other_schema": DEPTS_SCHEMA}


def _join_case(how: str, spark_how: str, *, renamed: bool) -> Case:
    """A key join with each ``how`` spelling; semi/anti joins output no right columns."""

    def oracle(df: Any, h: Any) -> Any:
        if renamed:
            return _join_renamed(h, df, spark_how, ["dept"])
        return df.join(_depts(h), ["dept"], spark_how)

    return Case(f"join_{how}", [{"op": "join", "payload": {**JOIN_PAYLOAD, "on": ["dept"], "how": how}}], oracle)


CASES: list[Case] = [
    # ---- filter
    Case(
        "filter_gt",
        [{"op": "filter", "payload": {"op": "gt", "left": {"col": "age"}, "right": {"lit": 30}}}],
        lambda df, h: df.filter(F.col("age") > 30),
    ),
    Case(
        "filter_bare_boolean_column", [{"op": "filter", "payload": "active"}], lambda df, h: df.filter(F.col("active"))
    ),
    Case(
        "filter_and_or_not",
        [
            {
                "op": "filter",
                "payload": {
                    "op": "or",
                    "left": {
                        "op": "and",
                        "left": {"op": "ge", "left": {"col": "age"}, "right": {"lit": 29}},
                        "right": {"op": "not", "arg": {"op": "eq", "left": {"col": "dept"}, "right": {"lit": "HR"}}},
                    },
                    "right": {"op": "is_null", "arg": {"col": "salary"}},
                },
            }
        ],
        lambda df, h: df.filter(((F.col("age") >= 29) & ~(F.col("dept") == "HR")) | F.col("salary").isNull()),
    ),
    Case(
        "filter_run_merged",
        [
            {"op": "filter", "payload": {"op": "gt", "left": {"col": "salary"}, "right": {"lit": 4000}}},
            {"op": "filter", "payload": {"op": "ne", "left": {"col": "dept"}, "right": {"lit": "HR"}}},
            {"op": "filter", "payload": {"op": "lt", "left": "age", "right": 50}},
        ],
        lambda df, h: df.filter(F.col("salary") > 4000).filter(F.col("dept") != "HR").filter(F.col("age") < 50),
    ),
    Case(
        "filter_eq_null_safe",
        [{"op": "filter", "payload": {"op": "eq_null_safe", "left": {"col": "dept"}, "right": {"lit": None}}}],
        lambda df, h: df.filter(F.col("dept").eqNullSafe(None)),
    ),
    Case(
        "filter_le_date_string",
        [{"op": "filter", "payload": {"op": "le", "left": {"col": "hired"}, "right": {"lit": "2020-01-15"}}}],
        lambda df, h: df.filter(F.col("hired") <= "2020-01-15"),
    ),
    Case(
        "filter_column_spelling_column_key",
        [{"op": "filter", "payload": {"op": "eq", "left": {"column": "name"}, "right": {"lit": "Bob"}}}],
        lambda df, h: df.filter(F.col("name") == "Bob"),
    ),
    Case(
        "filter_case_insensitive_name",
        [{"op": "filter", "payload": {"op": "gt", "left": {"col": "AGE"}, "right": {"lit": 40}}}],
        lambda df, h: df.filter(F.col("AGE") > 40),
    ),
    # ---- select
    Case("select_names", [{"op": "select", "payload": ["name", "age"]}], lambda df, h: df.select("name", "age")),
    Case(
        "select_sparkless_columns",
        [
            {
                "op": "select",
                "payload": {"columns": [{"type": "column", "name": "id"}, {"type": "column", "name": "name"}]},
            }
        ],
        lambda df, h: df.select("id", "name"),
    ),
    Case(
        "select_col_column_name_objects",
        [{"op": "select", "payload": [{"col": "id"}, {"column": "dept"}, {"name": "age"}]}],
        lambda df, h: df.select("id", "dept", "age"),
    ),
    Case(
        "select_name_expr",
        [
            {
                "op": "select",
                "payload": [
                    {"name": "n", "expr": {"fn": "upper", "args": [{"col": "name"}]}},
                    {"name": "a2", "expr": {"op": "*", "left": {"col": "age"}, "right": {"lit": 2}}},
                ],
            }
        ],
        lambda df, h: df.select(F.upper("name").alias("n"), (F.col("age") * 2).alias("a2")),
    ),
    Case(
        "select_bare_expression_spark_name",
        [{"op": "select", "payload": ["id", {"fn": "lower", "args": [{"col": "name"}]}]}],
        lambda df, h: df.select("id", F.lower("name")),
    ),
    Case(
        "select_mixed_kinds_and_literal",
        [{"op": "select", "payload": ["id", {"col": "age"}, {"name": "k", "expr": {"lit": "x"}}, {"lit": 7}]}],
        lambda df, h: df.select("id", "age", F.lit("x").alias("k"), F.lit(7)),
    ),
    Case(
        "select_concat_string_form",
        [{"op": "select", "payload": ["id", "concat(name, '-', dept) as label"]}],
        lambda df, h: df.select("id", F.concat("name", F.lit("-"), "dept").alias("label")),
    ),
    Case(
        "select_concat_ws_string_form",
        [{"op": "select", "payload": ["concat_ws('/', name, dept) as p"]}],
        lambda df, h: df.select(F.concat_ws("/", "name", "dept").alias("p")),
    ),
    Case(
        "select_as_alias_string",
        [{"op": "select", "payload": ["age as years", "id"]}],
        lambda df, h: df.select(F.col("age").alias("years"), "id"),
    ),
    Case("select_star", [{"op": "select", "payload": ["*"]}], lambda df, h: df.select("*")),
    Case(
        "select_upper_case_name_keeps_spelling",
        [{"op": "select", "payload": ["NAME"]}],
        lambda df, h: df.select("NAME"),
    ),
    # ---- withColumn
    Case(
        "with_column_new",
        [{"op": "withColumn", "payload": {"name": "u", "expr": {"fn": "upper", "args": [{"col": "name"}]}}}],
        lambda df, h: df.withColumn("u", F.upper("name")),
    ),
    Case(
        "with_column_alias_key",
        [{"op": "withColumn", "payload": {"alias": "x", "expr": {"lit": 1.5}}}],
        lambda df, h: df.withColumn("x", F.lit(1.5)),
    ),
    Case(
        "with_column_replace_keeps_position",
        [
            {
                "op": "withColumn",
                "payload": {"name": "age", "expr": {"op": "+", "left": {"col": "age"}, "right": {"lit": 1}}},
            }
        ],
        lambda df, h: df.withColumn("age", F.col("age") + 1),
    ),
    Case(
        "with_column_run_independent_merged",
        [
            {
                "op": "withColumn",
                "payload": {"name": "a", "expr": {"op": "add", "left": {"col": "age"}, "right": {"lit": 1}}},
            },
            {"op": "withColumn", "payload": {"name": "b", "expr": {"fn": "lower", "args": ["dept"]}}},
            {
                "op": "withColumn",
                "payload": {"name": "c", "expr": {"op": "div", "left": {"col": "salary"}, "right": {"lit": 2}}},
            },
        ],
        lambda df, h: (
            df.withColumn("a", F.col("age") + 1).withColumn("b", F.lower("dept")).withColumn("c", F.col("salary") / 2)
        ),
    ),
    Case(
        "with_column_run_dependent",
        [
            {
                "op": "withColumn",
                "payload": {"name": "a", "expr": {"op": "mul", "left": {"col": "age"}, "right": {"lit": 10}}},
            },
            {
                "op": "withColumn",
                "payload": {"name": "b", "expr": {"op": "sub", "left": {"col": "a"}, "right": {"lit": 1}}},
            },
            {
                "op": "withColumn",
                "payload": {"name": "a", "expr": {"op": "minus", "left": {"col": "b"}, "right": {"col": "a"}}},
            },
        ],
        lambda df, h: (
            df.withColumn("a", F.col("age") * 10)
            .withColumn("b", F.col("a") - 1)
            .withColumn("a", F.col("b") - F.col("a"))
        ),
    ),
    # ---- withColumnRenamed, drop, distinct
    Case(
        "with_column_renamed",
        [{"op": "withColumnRenamed", "payload": {"old": "name", "new": "full_name"}}],
        lambda df, h: df.withColumnRenamed("name", "full_name"),
    ),
    Case(
        "with_column_renamed_chain",
        [
            {"op": "withColumnRenamed", "payload": {"old": "name", "new": "n1"}},
            {"op": "withColumnRenamed", "payload": {"old": "n1", "new": "n2"}},
            {"op": "withColumnRenamed", "payload": {"old": "age", "new": "years"}},
        ],
        lambda df, h: (
            df.withColumnRenamed("name", "n1").withColumnRenamed("n1", "n2").withColumnRenamed("age", "years")
        ),
    ),
    Case(
        "drop_strings_and_objects",
        [{"op": "drop", "payload": {"columns": ["hired", {"col": "active"}, {"column": "salary"}]}}],
        lambda df, h: df.drop("hired", "active", "salary"),
    ),
    Case(
        "distinct",
        [{"op": "select", "payload": ["dept"]}, {"op": "distinct", "payload": {}}],
        lambda df, h: df.select("dept").distinct(),
    ),
    Case(
        "distinct_no_payload",
        [{"op": "select", "payload": ["age"]}, {"op": "distinct"}],
        lambda df, h: df.select("age").distinct(),
    ),
    # ---- limit, offset, orderBy
    Case(
        "order_limit",
        [{"op": "orderBy", "payload": {"columns": ["id"], "ascending": [True]}}, {"op": "limit", "payload": {"n": 3}}],
        lambda df, h: df.orderBy(F.col("id").asc()).limit(3),
        ordered=True,
    ),
    Case("limit_zero", [{"op": "limit", "payload": {"n": 0}}], lambda df, h: df.limit(0)),
    Case(
        "order_offset",
        [{"op": "orderBy", "payload": {"columns": ["id"]}}, {"op": "offset", "payload": {"n": 4}}],
        lambda df, h: df.orderBy("id").offset(4),
        ordered=True,
    ),
    Case(
        "order_offset_limit",
        [
            {"op": "orderBy", "payload": {"columns": ["id"]}},
            {"op": "offset", "payload": {"n": 2}},
            {"op": "limit", "payload": {"n": 2}},
        ],
        lambda df, h: df.orderBy("id").offset(2).limit(2),
        ordered=True,
    ),
    Case(
        "order_ascending_list",
        [{"op": "orderBy", "payload": {"columns": ["dept", "salary"], "ascending": [True, False]}}],
        lambda df, h: df.orderBy(F.col("dept").asc(), F.col("salary").desc()),
        ordered=True,
    ),
    Case(
        "order_desc_suffix",
        [{"op": "orderBy", "payload": {"columns": ["age DESC", "id asc"]}}],
        lambda df, h: df.orderBy(F.col("age").desc(), F.col("id").asc()),
        ordered=True,
    ),
    Case(
        "order_nulls_first_list",
        [
            {
                "op": "orderBy",
                "payload": {"columns": ["salary", "id"], "ascending": [False, True], "nulls_first": [True, False]},
            }
        ],
        lambda df, h: df.orderBy(F.col("salary").desc_nulls_first(), F.col("id").asc_nulls_last()),
        ordered=True,
    ),
    Case(
        "order_nulls_last_list",
        [{"op": "orderBy", "payload": {"columns": ["age", "id"], "nulls_last": [True, True]}}],
        lambda df, h: df.orderBy(F.col("age").asc_nulls_last(), F.col("id").asc_nulls_last()),
        ordered=True,
    ),
    Case(
        "order_object_items",
        [
            {
                "op": "orderBy",
                "payload": {
                    "columns": [{"col": "dept", "asc": False, "nulls_last": True}, {"name": "id", "desc": True}]
                },
            }
        ],
        lambda df, h: df.orderBy(F.col("dept").desc_nulls_last(), F.col("id").desc()),
        ordered=True,
    ),
    Case(
        "order_list_repr_string",
        [{"op": "orderBy", "payload": {"columns": ["['dept', 'id']"]}}],
        lambda df, h: df.orderBy("dept", "id"),
        ordered=True,
    ),
    Case(
        "order_ascending_scalar",
        [{"op": "orderBy", "payload": {"columns": ["age", "id"], "ascending": False}}],
        lambda df, h: df.orderBy(F.col("age").desc(), F.col("id").desc()),
        ordered=True,
    ),
    Case(
        "order_expression_item",
        [{"op": "orderBy", "payload": {"columns": [{"expr": {"fn": "length", "args": ["name"]}, "desc": True}, "id"]}}],
        lambda df, h: df.orderBy(F.length("name").desc(), "id"),
        ordered=True,
    ),
    # ---- groupBy / agg / rollup / cube
    Case(
        "group_by_all_aggs",
        [
            {
                "op": "groupBy",
                "payload": {
                    "group_by": ["dept"],
                    "aggs": [
                        {"agg": "count"},
                        {"agg": "count", "column": "age"},
                        {"agg": "sum", "column": "salary"},
                        {"agg": "avg", "column": "age"},
                        {"agg": "min", "column": "hired"},
                        {"agg": "max", "column": "name"},
                    ],
                },
            }
        ],
        lambda df, h: df.groupBy("dept").agg(
            F.count(F.lit(1)), F.count("age"), F.sum("salary"), F.avg("age"), F.min("hired"), F.max("name")
        ),
    ),
    Case(
        "group_by_alias_name_func_aggregations",
        [
            {
                "op": "groupBy",
                "payload": {
                    "group_by": [{"col": "dept"}],
                    "aggregations": [
                        {"func": "sum", "column": "age", "alias": "total"},
                        {"agg": "max", "column": "salary", "name": "top"},
                    ],
                },
            }
        ],
        lambda df, h: df.groupBy("dept").agg(F.sum("age").alias("total"), F.max("salary").alias("top")),
    ),
    Case(
        "group_by_sum_int_is_bigint",
        [
            {
                "op": "groupBy",
                "payload": {"group_by": ["active"], "aggs": [{"agg": "sum", "column": "age", "alias": "sum(age)"}]},
            }
        ],
        lambda df, h: df.groupBy("active").agg(F.sum("age").alias("sum(age)")),
    ),
    Case(
        "group_by_cast",
        [
            {
                "op": "groupBy",
                "payload": {
                    "group_by": ["dept"],
                    "aggs": [
                        {"agg": "avg", "column": "salary", "cast": "int"},
                        {"agg": "sum", "column": "age", "cast_type": "string", "alias": "s"},
                    ],
                },
            }
        ],
        lambda df, h: df.groupBy("dept").agg(F.avg("salary").cast("int"), F.sum("age").cast("string").alias("s")),
    ),
    Case(
        "group_by_first_last_ignorenulls",
        [
            {
                "op": "groupBy",
                "payload": {
                    "group_by": ["id"],
                    "aggs": [{"agg": "first", "column": "age", "ignorenulls": True}, {"agg": "last", "column": "dept"}],
                },
            }
        ],
        lambda df, h: df.groupBy("id").agg(F.first("age", True), F.last("dept")),
    ),
    Case(
        "group_by_expr_entry_and_expr_key",
        [
            {
                "op": "groupBy",
                "payload": {
                    "group_by": [{"expr": {"fn": "upper", "args": ["dept"]}}],
                    "aggs": [{"expr": {"fn": "count", "args": [{"col": "id"}]}, "alias": "n"}],
                },
            }
        ],
        lambda df, h: df.groupBy(F.upper("dept")).agg(F.count("id").alias("n")),
    ),
    Case(
        "group_by_global",
        [
            {
                "op": "groupBy",
                "payload": {"group_by": [], "aggs": [{"agg": "count"}, {"agg": "avg", "column": "salary"}]},
            }
        ],
        lambda df, h: df.groupBy().agg(F.count(F.lit(1)), F.avg("salary")),
    ),
    Case(
        "group_by_then_agg_op",
        [
            {"op": "groupBy", "payload": {"group_by": ["dept"]}},
            {"op": "agg", "payload": {"aggs": [{"agg": "max", "column": "age"}]}},
        ],
        lambda df, h: df.groupBy("dept").agg(F.max("age")),
    ),
    Case(
        "agg_op_alone_is_global",
        [{"op": "agg", "payload": {"aggs": [{"agg": "min", "column": "id"}, {"agg": "count", "column": "dept"}]}}],
        lambda df, h: df.agg(F.min("id"), F.count("dept")),
    ),
    Case(
        "rollup",
        [{"op": "rollup", "payload": {"group_by": ["dept", "active"], "aggs": [{"agg": "count", "alias": "n"}]}}],
        lambda df, h: df.rollup("dept", "active").agg(F.count(F.lit(1)).alias("n")),
    ),
    Case(
        "cube_columns_key",
        [{"op": "cube", "payload": {"columns": ["dept"], "aggregations": [{"agg": "sum", "column": "salary"}]}}],
        lambda df, h: df.cube("dept").agg(F.sum("salary")),
    ),
    # ---- join
    *(
        _join_case(how, spark_how, renamed=True)
        for how, spark_how in [
            ("inner", "inner"),
            ("left", "left"),
            ("right", "right"),
            ("outer", "outer"),
            ("full", "full"),
            ("full_outer", "full_outer"),
            ("fullouter", "fullouter"),
            ("left_outer", "left_outer"),
        ]
    ),
    *(
        _join_case(how, how, renamed=False)
        for how in ["left_semi", "semi", "leftsemi", "left_anti", "anti", "leftanti"]
    ),
    Case(
        "join_default_inner_on_string",
        [{"op": "join", "payload": {**JOIN_PAYLOAD, "on": "dept"}}],
        lambda df, h: _join_renamed(h, df, "inner", "dept"),
    ),
    Case(
        "join_on_col_objects",
        [{"op": "join", "payload": {**JOIN_PAYLOAD, "on": [{"col": "dept"}], "how": "left"}}],
        lambda df, h: _join_renamed(h, df, "left", ["dept"]),
    ),
    Case(
        "join_on_same_name_equality",
        [
            {
                "op": "join",
                "payload": {**JOIN_PAYLOAD, "on": [{"op": "==", "left": {"col": "dept"}, "right": {"col": "dept"}}]},
            }
        ],
        lambda df, h: _join_renamed(h, df, "inner", ["dept"]),
    ),
    Case(
        "join_on_condition_expression",
        [
            {
                "op": "join",
                "payload": {
                    **JOIN_PAYLOAD,
                    "how": "inner",
                    "on": {
                        "op": "and",
                        "left": {"op": "eq", "left": {"col": "dept"}, "right": {"col": "dept"}},
                        "right": {"op": "gt", "left": {"col": "age"}, "right": {"col": "floor"}},
                    },
                },
            }
        ],
        lambda df, h: (lambda r: df.join(r, (df["dept"] == r["dept_right"]) & (df["age"] > r["floor"]), "inner"))(
            _depts(h).withColumnRenamed("dept", "dept_right").withColumnRenamed("name", "name_right")
        ),
    ),
    Case(
        "join_dict_rows_camel_case",
        [
            {
                "op": "join",
                "payload": {
                    "otherData": [{"dept": "IT", "floor": 3, "name": "Eng"}, {"dept": "HR", "floor": 1}],
                    "otherSchema": DEPTS_SCHEMA,
                    "on": ["dept"],
                },
            }
        ],
        lambda df, h: df.join(
            h.df([["IT", "Eng", 3], ["HR", None, 1]], DEPTS_SCHEMA).withColumnRenamed("name", "name_right"), ["dept"]
        ),
    ),
    Case(
        "join_op_level_keys",
        [{"op": "join", "other_data": DEPTS, "other_schema": DEPTS_SCHEMA, "on": ["dept"], "payload": {"how": "left"}}],
        lambda df, h: _join_renamed(h, df, "left", ["dept"]),
    ),
    Case(
        "join_field_name_data_type_schema",
        [
            {
                "op": "join",
                "payload": {
                    "other_data": [["IT", 3]],
                    "other_schema": [
                        {"fieldName": "dept", "dataType": "string"},
                        {"fieldName": "floor", "dataType": {"typeName": "int"}},
                    ],
                    "on": ["dept"],
                },
            }
        ],
        lambda df, h: df.join(h.df([["IT", 3]], [("dept", "string"), ("floor", "int")]), ["dept"]),
    ),
    Case(
        "join_cross_how_with_condition",
        [
            {
                "op": "join",
                "payload": {
                    **JOIN_PAYLOAD,
                    "how": "cross",
                    "on": [{"op": "lt", "left": {"col": "age"}, "right": {"col": "floor"}}],
                },
            }
        ],
        lambda df, h: (lambda r: df.join(r, df["age"] < r["floor"], "cross"))(
            _depts(h).withColumnRenamed("dept", "dept_right").withColumnRenamed("name", "name_right")
        ),
    ),
    # ---- union, unionByName, crossJoin, stop
    Case(
        "union",
        [
            {"op": "select", "payload": ["id", "name"]},
            {
                "op": "union",
                "payload": {
                    "other_data": [[10, "Zed"], [1, "Alice"]],
                    "other_schema": [{"name": "id", "type": "bigint"}, {"name": "name", "type": "string"}],
                },
            },
        ],
        lambda df, h: df.select("id", "name").union(
            h.df([[10, "Zed"], [1, "Alice"]], [("id", "bigint"), ("name", "string")])
        ),
    ),
    Case(
        "union_by_position_widens_types",
        [
            {"op": "select", "payload": ["age", "name"]},
            {
                "op": "union",
                "payload": {
                    "other_data": [[1.5, "x"]],
                    "other_schema": [{"name": "n", "type": "double"}, {"name": "s", "type": "string"}],
                },
            },
        ],
        lambda df, h: df.select("age", "name").union(h.df([[1.5, "x"]], [("n", "double"), ("s", "string")])),
    ),
    Case(
        "union_by_name_camel_case_missing_columns",
        [
            {"op": "select", "payload": ["id", "name"]},
            {
                "op": "unionByName",
                "payload": {
                    "otherData": [["Zed", 99, "extra"]],
                    "otherSchema": [
                        {"name": "name", "type": "string"},
                        {"name": "id", "type": "bigint"},
                        {"name": "note", "type": "string"},
                    ],
                },
            },
        ],
        lambda df, h: df.select("id", "name").unionByName(
            h.df([["Zed", 99, "extra"]], [("name", "string"), ("id", "bigint"), ("note", "string")]),
            allowMissingColumns=True,
        ),
    ),
    Case(
        "union_by_name_allow_missing_false",
        [
            {"op": "select", "payload": ["id", "name"]},
            {
                "op": "unionByName",
                "payload": {
                    "other_data": [["Zed", 99]],
                    "other_schema": [{"name": "name", "type": "string"}, {"name": "id", "type": "bigint"}],
                    "allowMissingColumns": False,
                },
            },
        ],
        lambda df, h: df.select("id", "name").unionByName(
            h.df([["Zed", 99]], [("name", "string"), ("id", "bigint")]), allowMissingColumns=False
        ),
    ),
    Case(
        "union_op_level_keys",
        [
            {"op": "select", "payload": ["dept"]},
            {"op": "union", "other_data": [["X"]], "other_schema": [{"name": "dept", "type": "string"}], "payload": {}},
        ],
        lambda df, h: df.select("dept").union(h.df([["X"]], [("dept", "string")])),
    ),
    Case(
        "cross_join_renames_duplicates",
        [
            {"op": "select", "payload": ["id", "name"]},
            {
                "op": "crossJoin",
                "payload": {
                    "other_data": [["a", 1], ["b", 2]],
                    "other_schema": [{"name": "name", "type": "string"}, {"name": "k", "type": "int"}],
                },
            },
        ],
        lambda df, h: df.select("id", "name").crossJoin(
            h.df([["a", 1], ["b", 2]], [("name", "string"), ("k", "int")]).withColumnRenamed("name", "name_right")
        ),
    ),
    Case(
        "cross_join_snake_spelling",
        [
            {"op": "select", "payload": ["id"]},
            {"op": "cross_join", "payload": {"other_data": [[1], [2]], "other_schema": [{"name": "k", "type": "int"}]}},
        ],
        lambda df, h: df.select("id").crossJoin(h.df([[1], [2]], [("k", "int")])),
    ),
    Case(
        "stop_is_no_op",
        [{"op": "filter", "payload": {"op": "gt", "left": "id", "right": 5}}, {"op": "stop"}],
        lambda df, h: df.filter(F.col("id") > 5),
    ),
    Case(
        "stop_between_group_by_and_agg",
        [
            {"op": "stop"},
            {"op": "groupBy", "payload": {"group_by": ["dept"]}},
            {"op": "stop"},
            {"op": "stop"},
            {"op": "agg", "payload": {"aggs": [{"agg": "sum", "column": "salary"}]}},
            {"op": "stop"},
        ],
        lambda df, h: df.groupBy("dept").agg(F.sum("salary")),
    ),
    # ---- a longer pipeline through several ops
    Case(
        "pipeline",
        [
            {"op": "filter", "payload": {"op": "is_not_null", "arg": {"col": "dept"}}},
            {
                "op": "withColumn",
                "payload": {"name": "bonus", "expr": {"op": "*", "left": {"col": "salary"}, "right": {"lit": 0.1}}},
            },
            {"op": "join", "payload": {**JOIN_PAYLOAD, "on": "dept", "how": "left"}},
            {
                "op": "groupBy",
                "payload": {
                    "group_by": ["dept", "floor"],
                    "aggs": [{"agg": "sum", "column": "bonus", "alias": "bonus"}, {"agg": "count", "alias": "n"}],
                },
            },
            {"op": "orderBy", "payload": {"columns": ["bonus"], "ascending": [False], "nulls_last": [True]}},
        ],
        lambda df, h: (
            _join_renamed(
                h, df.filter(F.col("dept").isNotNull()).withColumn("bonus", F.col("salary") * 0.1), "left", "dept"
            )
            .groupBy("dept", "floor")
            .agg(F.sum("bonus").alias("bonus"), F.count(F.lit(1)).alias("n"))
            .orderBy(F.col("bonus").desc_nulls_last())
        ),
        ordered=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(diff: Any, case: Case) -> None:
    rows = case.rows if case.rows is not None else PEOPLE
    schema = case.schema if case.schema is not None else PEOPLE_SCHEMA
    diff.check(rows, schema, case.plan, lambda df: case.oracle(df, diff), ordered=case.ordered)


def test_every_op_is_covered() -> None:
    """The cases above (and those of test_sources_differential) exercise every op name
    connect_plan accepts."""
    import connect_plan
    from tests.integration.test_sources_differential import OPS_USED

    used = {step["op"] for case in CASES for step in case.plan} | OPS_USED
    assert set(connect_plan.supported_plan_operations()) <= used


def test_union_by_name_without_missing_columns_fails_as_pyspark_does(client: Any, diff: Any) -> None:
    """allowMissingColumns: false really forbids them (a JSON boolean; "false" is refused).
    The input columns are known, so it is refused before the network (issue 13), as PySpark's
    NUM_COLUMNS_MISMATCH."""
    from connect_plan.errors import PlanError

    right = [["Zed", 99, "extra"]], [("name", "string"), ("id", "bigint"), ("note", "string")]
    plan = [
        {"op": "select", "payload": ["id", "name"]},
        {
            "op": "unionByName",
            "payload": {
                "other_data": right[0],
                "other_schema": [list(f) for f in right[1]],
                "allowMissingColumns": False,
            },
        },
    ]
    with pytest.raises(PlanError) as ours:
        client.execute(plan, data=PEOPLE, schema=PEOPLE_SCHEMA)
    assert [(d.code, d.loc) for d in ours.value.details] == [("column_count", "/plan/1/payload")]
    assert "['note']" in ours.value.details[0].message
    with pytest.raises(Exception, match="NUM_COLUMNS_MISMATCH"):
        diff.df(PEOPLE, PEOPLE_SCHEMA).select("id", "name").unionByName(
            diff.df(*right), allowMissingColumns=False
        ).toArrow()
