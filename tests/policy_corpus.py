"""Plans that try to get around a policy (:data:`ADVERSARIAL`), and plans a strict service still
runs (:data:`LEGITIMATE`), for tests/unit/test_policy.py and tests/integration/test_policy.py.

Each adversarial case tries *one* way around one rule: an alternative spelling of an op or a
key, a nested plan, a ``with`` definition, a join or union right side, casing, quoting,
whitespace and comments inside a name (Spark's parser accepts them), path normalisation
(``..``, ``//``, ``file:``, percent escapes, brace globs), a data source named as a table...
Every case must be refused under :meth:`Policy.strict` and under :data:`OPENED` (strict with a
few tables and paths allowed: the harder test, since a spelling must then not pass *as* an
allowed name), with ``rule`` among the violations' rules under :data:`OPENED`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connect_plan.policy import Policy

#: strict, opened as a service would: two table patterns, two path prefixes
OPENED = Policy.strict().replace(
    tables=("sales.*", "spark_catalog.shared.lookup"),
    paths=("/srv/shared", "s3a://team-bucket/data"),
    path_schemes=("", "s3a"),
    formats=("parquet", "csv", "json"),
)

SCHEMA = [{"name": "k", "type": "int"}, {"name": "v", "type": "string"}]
INLINE = {"schema": SCHEMA, "rows": [[1, "a"], [2, "b"]]}


@dataclass(frozen=True)
class Case:
    name: str
    doc: dict[str, Any]
    rule: str  # a rule OPENED must name among the violations


def doc(steps: list[Any] | None = None, input: Any = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"input": INLINE if input is None else input, "plan": steps or []}
    out.update(extra)
    return out


def with_col(expr: Any, name: str = "x") -> dict[str, Any]:
    return {"op": "withColumn", "payload": {"name": name, "expr": expr}}


def fn(name: str, *args: Any) -> dict[str, Any]:
    return {"fn": name, "args": list(args)}


def lit(v: Any) -> dict[str, Any]:
    return {"lit": v}


def join(right: Any, on: Any = ("k",), how: str = "inner", key: str = "other") -> dict[str, Any]:
    return {"op": "join", "payload": {key: right, "on": list(on), "how": how}}


def files(path: Any, fmt: str = "parquet", **extra: Any) -> dict[str, Any]:
    return {"files": path, "format": fmt, **extra}


CASES: list[Case] = []


def case(name: str, d: dict[str, Any], rule: str) -> None:
    CASES.append(Case(name, d, rule))


# ---------------------------------------------------------------- tables: spellings of a name

for i, name in enumerate(
    [
        "secret.t",
        "SECRET.T",
        "`secret`.`t`",
        "spark_catalog.secret.t",
        "SPARK_CATALOG.SECRET.T",
        "`spark_catalog`.`secret`.`t`",
        "t",  # default.t
        "default.t",
        "sales . t",  # whitespace between parts: Spark reads sales.t
        "sales/**/.t",  # a comment between parts: Spark reads sales.t
        "sales.t /* x */",
        " sales.t",
        "sales.t\n",
        "parquet.`/etc/passwd`",  # Spark reads these as files
        "PARQUET.`/srv/shared/x`",
        "csv.`/etc/shadow`",
        "json.`s3a://other-team/x`",
        "`org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat`.`/etc`",
        "sales.`../secret`",
        "sales.`t``x`",
        "other_catalog.sales.t",
        "global_temp.v",
        "sales.t.extra",
        "\uff53ales.t",  # fullwidth s
        "sales\u200b.t",  # zero-width space
        "spark_catalog.t",
        "sales.",
        ".t",
        "sales..t",
        "`sales.t`",  # one part holding a dot
        "shared.lookup2",
        "shared.`lookup`.x",
        "sales.t -- comment",
    ]
):
    case(f"table_name_{i:02d}", doc(input={"table": name}), "tables")

case("table_join_other_table", doc([join({"table": "secret.t"}, key="other")]), "tables")
case("table_join_other_table_key", doc([{"op": "join", "payload": {"other_table": "secret.t", "on": ["k"]}}]), "tables")
case("table_join_otherTable_camel", doc([{"op": "join", "payload": {"otherTable": "secret.t", "on": ["k"]}}]), "tables")
case(
    "table_join_other_beside_payload",
    doc([{"op": "join", "other_table": "secret.t", "on": ["k"], "payload": {}}]),
    "tables",
)
case(
    "table_join_nested_document",
    doc([join({"input": {"table": "secret.t"}, "plan": [{"op": "limit", "payload": {"n": 1}}]}, key="other")]),
    "tables",
)
case(
    "table_join_other_plan_read_step",
    doc([join({"input": {"table": "secret.t"}, "plan": []}, key="other_plan")]),
    "tables",
)
case("table_union_right", doc([{"op": "union", "payload": {"other_table": "secret.t"}}]), "tables")
case("table_unionByName_right", doc([{"op": "unionByName", "payload": {"other": {"table": "secret.t"}}}]), "tables")
case("table_intersect_right", doc([{"op": "intersect", "payload": {"other_table": "secret.t"}}]), "tables")
case("table_except_right", doc([{"op": "exceptAll", "payload": {"other_table": "secret.t"}}]), "tables")
case(
    "table_with_definition",
    doc([join({"ref": "s"})], with_={"s": {"input": {"table": "secret.t"}, "plan": []}}),
    "tables",
)
case(
    "table_with_definition_used_twice",
    doc(
        [join({"ref": "s"}), {"op": "union", "payload": {"other": {"ref": "s"}}}],
        with_={"s": {"input": {"table": "secret.t"}, "plan": []}},
    ),
    "tables",
)
case("table_input_ref", doc(input={"ref": "s"}, with_={"s": {"input": {"table": "secret.t"}, "plan": []}}), "tables")
case("table_read_step", {"plan": [{"op": "read", "payload": {"table": "secret.t"}}]}, "tables")
case(
    "table_deep_right_side",
    doc([join({"input": INLINE, "plan": [join({"input": {"table": "secret.t"}, "plan": []})]})]),
    "tables",
)
case(
    "table_in_with_of_with_ref_chain",
    doc(
        [join({"ref": "a"})],
        with_={"b": {"input": {"table": "secret.t"}, "plan": []}, "a": {"input": {"ref": "b"}, "plan": []}},
    ),
    "tables",
)
case("table_option_path", doc(input={"table": "sales.t", "options": {"path": "/etc"}}), "source_options")
case("table_option_PATH_casing", doc(input={"table": "sales.t", "options": {"PATH": "/etc"}}), "source_options")

# ---------------------------------------------------------------- files: spellings of a path

for i, path in enumerate(
    [
        "/etc/passwd",
        "/srv/shared/../../etc/passwd",
        "/srv/shared/%2e%2e/%2e%2e/etc/passwd",
        "/srv/shared/%2Fetc",
        "file:/etc/passwd",
        "file:///etc/passwd",
        "file://localhost/srv/shared/x",  # a file: path (the policy allows bare paths only)
        "file:/srv/shared/x",
        "//srv/shared/x",
        "/srv/shared-other/x",
        "/srv/sharedx",
        "/srv/shared/{a,../../etc}",
        "/srv/shar{ed,ed-other}/x",
        "s3a://other-team/data/x",
        "S3A://TEAM-BUCKET/data/../x",
        "s3a://team-bucket/datax/y",
        "s3a://team-bucket/data/../../other",
        "s3://team-bucket/data/x",
        "s3n://team-bucket/data/x",
        "hdfs://nn/srv/shared/x",
        "srv/shared/x",
        "./srv/shared/x",
        "../srv/shared/x",
        "/srv/shared/x\\..\\..\\etc",
        "/srv/shared/a,/etc/passwd",
        "/srv/shared/x\x00/../../etc",
        "/srv//shared/../../etc",
        "/SRV/shared/x",
        "/srv/shared/./../x",
        "/srv/shared/..",
        "/srv/./shared/../../etc",
        "/srv/shared/x:y",
        "s3a://team-bucket@evil/data/x",
    ]
):
    case(
        f"path_{i:02d}",
        doc(input=files(path)),
        "path_schemes" if path.lower().startswith(("file:", "s3:", "s3n:", "hdfs:")) else "paths",
    )

case("path_list_one_bad", doc(input=files(["/srv/shared/ok", "/etc/passwd"])), "paths")
case("path_key_paths", doc(input={"paths": ["/etc/passwd"], "format": "csv"}), "paths")
case("path_key_path", doc(input={"path": "/etc/passwd", "format": "csv"}), "paths")
case("path_option_path", doc(input=files("/srv/shared/ok", options={"path": "/etc"})), "source_options")
case("path_option_paths", doc(input=files("/srv/shared/ok", options={"paths": '["/etc"]'})), "source_options")
case("path_option_basePath", doc(input=files("/srv/shared/ok", options={"basePath": "/etc"})), "source_options")
case(
    "format_jdbc",
    doc(input={"format": "jdbc", "options": {"url": "jdbc:postgresql://db/x", "dbtable": "t"}}),
    "formats",
)
case(
    "format_JDBC_casing",
    doc(input={"format": "JDBC", "options": {"url": "jdbc:h2:mem:x", "query": "select 1"}}),
    "formats",
)
case(
    "format_class_name",
    doc(input=files("/srv/shared/x", fmt="org.apache.spark.sql.execution.datasources.jdbc.JdbcRelationProvider")),
    "formats",
)
case("format_text_not_listed", doc(input=files("/srv/shared/x", fmt="text")), "formats")
case("files_join_right", doc([join(files("/etc/passwd"))]), "paths")
case("files_with_definition", doc([join({"ref": "f"})], with_={"f": {"input": files("/etc"), "plan": []}}), "paths")
case("files_read_step", {"plan": [{"op": "read", "payload": files("/etc/passwd")}]}, "paths")
case("files_union_nested", doc([{"op": "union", "payload": {"other": {"input": files("/etc"), "plan": []}}}]), "paths")

# ---------------------------------------------------------------- SQL

case("sql_input", doc(input={"sql": "SELECT * FROM secret.t"}), "sql")
case("sql_with_args", doc(input={"sql": "SELECT * FROM IDENTIFIER(:t)", "args": {"t": "secret.t"}}), "sql")
case("sql_join_right", doc([join({"sql": "SELECT 1 AS k"})]), "sql")
case(
    "sql_with_definition",
    doc([join({"ref": "q"})], with_={"q": {"input": {"sql": "SELECT 1 AS k"}, "plan": []}}),
    "sql",
)
case("sql_read_step", {"plan": [{"op": "read", "payload": {"sql": "SELECT 1"}}]}, "sql")
case("sql_union_right", doc([{"op": "union", "payload": {"other": {"sql": "SELECT 1, 'x'"}}}]), "sql")

# ---------------------------------------------------------------- writes, views

case("write_path", doc([{"op": "write", "payload": {"path": "/tmp/x", "format": "parquet"}}]), "write_tables")
case("write_table", doc([{"op": "write", "payload": {"table": "sales.t"}}]), "write_tables")
case(
    "write_saveAsTable",
    doc([{"op": "write", "payload": {"saveAsTable": "sales.t", "mode": "overwrite"}}]),
    "write_tables",
)
case("write_insertInto", doc([{"op": "write", "payload": {"insertInto": "sales.t"}}]), "write_tables")
case("write_document_output", doc(output={"path": "/srv/shared/out", "format": "parquet"}), "write_tables")
case("write_document_output_table", doc(output={"table": "shared.lookup", "mode": "overwrite"}), "write_tables")
case("view_replace", doc([{"op": "createOrReplaceTempView", "payload": {"name": "sales"}}]), "temp_views")
case("view_create", doc([{"op": "createTempView", "payload": {"viewName": "lookup"}}]), "temp_views")
case("view_global_replace", doc([{"op": "createOrReplaceGlobalTempView", "payload": {"name": "v"}}]), "temp_views")
case("view_global_create", doc([{"op": "createGlobalTempView", "payload": {"view": "v"}}]), "temp_views")

# ---------------------------------------------------------------- conf

for i, key in enumerate(
    ["spark.sql.caseSensitive", "spark.sql.runSQLOnFiles", "spark.sql.defaultCatalog", "SPARK.SQL.ANSI.ENABLED", "x"]
):
    case(f"conf_{i}", doc(conf={key: "true"}), "conf_keys")

# ---------------------------------------------------------------- UDFs and server functions

case("udf_expr", doc([with_col({"udf": "evil", "args": [{"col": "k"}]})]), "udfs")
case("udf_call_udf", doc([with_col(fn("call_udf", lit("evil"), {"col": "k"}))]), "udfs")
case("udf_op_form", doc([with_col({"op": "udf", "udf": "evil", "args": [{"col": "k"}]})]), "udfs")
case("udf_in_filter", doc([{"op": "filter", "payload": {"udf": "evil", "args": [{"col": "k"}]}}]), "udfs")
case(
    "udf_in_join_condition",
    doc([join({"input": INLINE, "plan": []}, on=[{"udf": "evil", "args": [{"col": "k"}]}])]),
    "udfs",
)
case(
    "udf_grouped_agg",
    doc(
        [
            {
                "op": "groupBy",
                "payload": {
                    "group_by": ["v"],
                    "aggs": [{"agg": "python_grouped_udf", "udf": "evil", "args": ["k"], "alias": "u"}],
                },
            }
        ]
    ),
    "udfs",
)
case("call_function_qualified", doc([with_col(fn("call_function", lit("db.evil_fn"), {"col": "k"}))]), "udfs")
case("call_function_unknown", doc([with_col(fn("call_function", lit("evil_fn"), {"col": "k"}))]), "udfs")
case("call_function_backticked", doc([with_col(fn("call_function", lit("`upper`"), {"col": "v"}))]), "udfs")
case(
    "udf_in_orderBy",
    doc([{"op": "orderBy", "payload": {"columns": [{"udf": "evil", "args": [{"col": "k"}]}]}}]),
    "udfs",
)

# ---------------------------------------------------------------- denied functions

for fname, args in [
    ("reflect", [lit("java.lang.System"), lit("getenv"), lit("HOME")]),
    ("java_method", [lit("java.lang.System"), lit("getenv"), lit("HOME")]),
    ("try_reflect", [lit("java.lang.System"), lit("getenv"), lit("HOME")]),
    ("input_file_name", []),
    ("input_file_block_start", []),
    ("current_user", []),
    ("user", []),
    ("session_user", []),
    ("current_database", []),
    ("current_catalog", []),
    ("version", []),
]:
    case(f"fn_{fname}", doc([with_col(fn(fname, *args))]), "denied_functions")

REFLECT = fn("reflect", lit("java.lang.System"), lit("getenv"), lit("HOME"))
case(
    "fn_call_function_reflect",
    doc([with_col(fn("call_function", lit("reflect"), lit("java.lang.System"), lit("getenv")))]),
    "denied_functions",
)
case(
    "fn_call_function_REFLECT",
    doc([with_col(fn("call_function", lit("REFLECT"), lit("java.lang.System"), lit("getenv")))]),
    "denied_functions",
)
case(
    "fn_call_function_java_method",
    doc([with_col(fn("call_function", lit("java_method"), lit("a"), lit("b")))]),
    "denied_functions",
)
case(
    "fn_call_function_input_file_name", doc([with_col(fn("call_function", lit("input_file_name")))]), "denied_functions"
)
case(
    "fn_reflect_in_filter",
    doc([{"op": "filter", "payload": {"fn": "isnotnull", "args": [REFLECT]}}]),
    "denied_functions",
)
case(
    "fn_reflect_in_when",
    doc([with_col({"fn": "when", "args": [{"op": "gt", "left": {"col": "k"}, "right": lit(0)}, REFLECT]})]),
    "denied_functions",
)
case(
    "fn_reflect_in_lambda",
    doc(
        [
            with_col(
                fn(
                    "transform",
                    fn("array", {"col": "v"}),
                    {"lambda": {"params": ["e"], "body": fn("concat", {"var": "e"}, REFLECT)}},
                )
            )
        ]
    ),
    "denied_functions",
)
case(
    "fn_reflect_in_agg",
    doc([{"op": "groupBy", "payload": {"group_by": ["k"], "aggs": [{"agg": "max", "expr": REFLECT, "alias": "m"}]}}]),
    "denied_functions",
)
case(
    "fn_reflect_in_groupBy_key",
    doc(
        [
            {
                "op": "groupBy",
                "payload": {"group_by": [{"expr": REFLECT, "alias": "g"}], "aggs": [{"agg": "count", "alias": "n"}]},
            }
        ]
    ),
    "denied_functions",
)
case("fn_reflect_in_orderBy", doc([{"op": "orderBy", "payload": {"columns": [REFLECT]}}]), "denied_functions")
case("fn_reflect_in_select", doc([{"op": "select", "payload": [{"name": "r", "expr": REFLECT}]}]), "denied_functions")
case(
    "fn_reflect_in_join_condition",
    doc(
        [join({"input": INLINE, "plan": []}, on=[{"op": "eq", "left": {"col": "k", "side": "left"}, "right": REFLECT}])]
    ),
    "denied_functions",
)
case(
    "fn_reflect_in_with_definition",
    doc([join({"ref": "r"})], with_={"r": {"input": INLINE, "plan": [with_col(REFLECT)]}}),
    "denied_functions",
)
case(
    "fn_reflect_in_window_partition",
    doc([with_col({"fn": "row_number", "window": {"partition_by": [REFLECT], "order_by": ["k"]}})]),
    "denied_functions",
)
case(
    "fn_reflect_in_sort_within",
    doc([{"op": "sortWithinPartitions", "payload": {"columns": [REFLECT]}}]),
    "denied_functions",
)
case(
    "fn_input_file_name_in_right",
    doc([join({"input": INLINE, "plan": [with_col(fn("input_file_name"), "f")]})]),
    "denied_functions",
)

# ---------------------------------------------------------------- Sparkless shapes

SPARKLESS_RIGHT = {
    "other_data": [[1, "x"]],
    "other_schema": [{"name": "k", "type": "int"}, {"name": "w", "type": "string"}],
}
case(
    "sparkless_other_plan_steps_join_table",
    doc(
        [
            {
                "op": "join",
                **SPARKLESS_RIGHT,
                "payload": {"on": ["k"], "other_plan": [join("secret.t", key="other_table")]},
            }
        ]
    ),
    "tables",
)
case(
    "sparkless_other_plan_steps_function",
    doc(
        [
            {
                "op": "join",
                **SPARKLESS_RIGHT,
                "payload": {"on": ["k"], "other_plan": [with_col({"function": "java_method", "args": ["a", "b"]})]},
            }
        ]
    ),
    "denied_functions",
)
case(
    "sparkless_typed_function_item",
    doc(
        [
            {
                "op": "select",
                "payload": {
                    "columns": [{"type": "column", "name": "k"}, {"fn": "current_user", "args": [], "alias": "u"}]
                },
            }
        ]
    ),
    "denied_functions",
)
case(
    "sparkless_agg_func_key",
    doc([{"op": "groupBy", "payload": {"cols": ["v"], "aggs": [{"func": "max", "expr": REFLECT, "alias": "m"}]}}]),
    "denied_functions",
)

# ---------------------------------------------------------------- sizes

case("range_huge", doc(input={"range": 10**18}), "max_range_rows")
case("range_huge_object", doc(input={"range": {"start": -(2**62), "end": 2**62}}), "max_range_rows")
case("range_partitions", doc(input={"range": {"end": 10, "numPartitions": 100000}}), "max_partitions")
case("range_in_join_right", doc([join({"range": 10**15})]), "max_range_rows")
case("repartition_huge", doc([{"op": "repartition", "payload": {"n": 100000}}]), "max_partitions")
case("coalesce_huge", doc([{"op": "coalesce", "payload": {"n": 100000}}]), "max_partitions")
case("hint_repartition", doc([{"op": "hint", "payload": {"name": "repartition", "parameters": [100000]}}]), "hints")
case("hint_REPARTITION", doc([{"op": "hint", "payload": {"name": "REPARTITION", "params": [100000]}}]), "hints")
case("hint_rebalance", doc([{"op": "hint", "payload": {"name": "rebalance"}}]), "hints")
case("hint_unknown", doc([{"op": "hint", "payload": {"name": "skew"}}]), "hints")
case("steps_too_many", doc([{"op": "limit", "payload": {"n": 10}}] * 201), "max_steps")
case(
    "inline_rows_too_many", doc(input={"schema": SCHEMA, "rows": [[i, "x"] for i in range(100_001)]}), "max_inline_rows"
)
case("tail_huge", doc([{"op": "tail", "payload": {"n": 10**9}}]), "max_rows")
case("cross_join_op", doc([{"op": "crossJoin", "payload": {"other": {"input": INLINE, "plan": []}}}]), "cross_joins")
case(
    "cross_join_snake", doc([{"op": "cross_join", "payload": {"other": {"input": INLINE, "plan": []}}}]), "cross_joins"
)
case(
    "cross_join_how",
    doc([{"op": "join", "payload": {"other": {"input": INLINE, "plan": []}, "how": "cross"}}]),
    "cross_joins",
)
case(
    "cross_join_how_casing",
    doc([{"op": "join", "payload": {"other": {"input": INLINE, "plan": []}, "how": "CROSS"}}]),
    "cross_joins",
)
case("join_condition_literal_true", doc([join({"input": INLINE, "plan": []}, on=[lit(True)])]), "cross_joins")
case(
    "join_condition_constant",
    doc([join({"input": INLINE, "plan": []}, on=[{"op": "eq", "left": lit(1), "right": lit(1)}])]),
    "cross_joins",
)


def _nested(depth: int) -> dict[str, Any]:
    d: dict[str, Any] = {"input": INLINE, "plan": []}
    for _ in range(depth):
        d = {"input": INLINE, "plan": [join(d)]}
    return d


case("nesting_too_deep", _nested(10), "max_nesting")


def _fix_with(d: dict[str, Any]) -> dict[str, Any]:
    if "with_" in d:
        d["with"] = d.pop("with_")
    return d


ADVERSARIAL: list[Case] = [Case(c.name, _fix_with(dict(c.doc)), c.rule) for c in CASES]

# ---------------------------------------------------------------- legitimate plans

#: plans a strict service runs: inline rows, bounded ranges, every kind of step; and the
#: tables/paths OPENED allows (tests/integration/test_policy.py creates them)
LEGITIMATE: list[tuple[str, dict[str, Any]]] = [
    (
        "filter_select",
        doc(
            [
                {"op": "filter", "payload": {"op": "gt", "left": {"col": "k"}, "right": lit(1)}},
                {"op": "select", "payload": ["v"]},
            ]
        ),
    ),
    (
        "with_column_functions",
        doc([with_col(fn("upper", {"col": "v"}), "u"), with_col(fn("concat", {"col": "v"}, lit("!")), "c")]),
    ),
    (
        "group_by",
        doc(
            [
                {
                    "op": "groupBy",
                    "payload": {"group_by": ["v"], "aggs": [{"agg": "sum", "column": "k", "alias": "s"}]},
                }
            ]
        ),
    ),
    ("join_inline", doc([join({"input": INLINE, "plan": []}), {"op": "orderBy", "payload": {"columns": ["k"]}}])),
    (
        "join_broadcast",
        doc([{"op": "join", "payload": {"other": {"input": INLINE, "plan": []}, "on": ["k"], "broadcast": True}}]),
    ),
    (
        "union_with",
        doc([{"op": "union", "payload": {"other": {"ref": "x"}}}], with_={"x": {"input": INLINE, "plan": []}}),
    ),
    ("window", doc([with_col({"fn": "row_number", "window": {"partition_by": ["v"], "order_by": ["k"]}}, "rn")])),
    (
        "range_bounded",
        doc(
            input={"range": 1000},
            steps=[
                {"op": "repartition", "payload": {"n": 4}},
                {"op": "agg", "payload": [{"agg": "count", "alias": "n"}]},
            ],
        ),
    ),
    (
        "lambda",
        doc(
            [
                with_col(
                    fn(
                        "transform",
                        fn("array", {"col": "k"}),
                        {"lambda": {"params": ["e"], "body": {"op": "+", "left": {"var": "e"}, "right": lit(1)}}},
                    ),
                    "t",
                )
            ]
        ),
    ),
    ("call_function_builtin", doc([with_col(fn("call_function", lit("upper"), {"col": "v"}), "u")])),
    ("hint_broadcast", doc([{"op": "hint", "payload": {"name": "broadcast"}}])),
    ("limit", doc([{"op": "orderBy", "payload": {"columns": ["k"]}}, {"op": "limit", "payload": {"n": 1}}])),
]
LEGITIMATE = [(n, _fix_with(d)) for n, d in LEGITIMATE]
