"""Sources, plan trees, every join and set type, the Substrait relations beyond the core,
writes and per-plan conf — each checked against PySpark's own Connect DataFrame API on the
same server. Files are written by the tests into a temporary directory the (local) server
reads; tables get unique ``issue4_*`` names and are dropped at the end."""

from __future__ import annotations

import datetime as dt
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import connect_plan
from tests.conftest import engine
from tests.support.tables import assert_same, rows_of

SALES_SCHEMA = [
    {"name": "id", "type": "bigint"},
    {"name": "store", "type": "string"},
    {"name": "amount", "type": "double"},
    {"name": "day", "type": "date"},
]
SALES = [
    [1, "berlin", 10.0, "2024-03-01"],
    [2, "paris", 5.5, "2024-03-01"],
    [3, "berlin", 1.0, "2024-03-02"],
    [4, "lyon", None, "2024-03-02"],
    [5, "paris", 7.25, "2024-03-03"],
    [6, None, 3.0, "2024-03-03"],
]
STORES_SCHEMA = [
    {"name": "store", "type": "string"},
    {"name": "region", "type": "string"},
    {"name": "id", "type": "bigint"},
]
STORES = [["berlin", "DE", 100], ["paris", "FR", 200], ["oslo", "NO", 300]]
# duplicates on purpose: distinct and ALL set operations must differ
BAG_SCHEMA = [{"name": "k", "type": "int"}, {"name": "v", "type": "string"}]
BAG_A = [[1, "a"], [1, "a"], [1, "a"], [2, "b"], [3, None], [3, None], [4, "d"]]
BAG_B = [[1, "a"], [3, None], [3, None], [5, "e"], [2, "x"]]

# Minus/Intersection (Primary): the primary has duplicates that survive and null rows that a
# null-safe match removes; the secondary pairs by position under other names and a wider type
PRIMARY = [*BAG_A, [2, "b"]]
OTHER_SCHEMA = [{"name": "key", "type": "bigint"}, {"name": "val", "type": "string"}]
SECONDARY = [[1, "a"], [3, None], [9, "z"]]

SQL_CONSTRUCTORS = "SELECT array_sort(:a) AS a, :m AS m, :m['k'] AS k, :s AS s, :s.y[0] AS u, :t AS t"


def _inline(rows: Any, schema: Any) -> dict[str, Any]:
    return {"schema": schema, "rows": rows}


@dataclass
class Env:
    """Paths and names the cases use, plus the two sessions."""

    client: Any
    spark: Any
    diff: Any
    root: Path
    sales_parquet: str
    sales_csv: str
    sales_json: str
    stores_table: str
    tables: list[str]
    sales_orc: str = ""
    sales_text: str = ""

    def df(self, rows: Any, schema: Any) -> Any:
        return self.diff.df(rows, schema)

    def sales(self) -> Any:
        return self.df(SALES, SALES_SCHEMA)

    def stores(self) -> Any:
        return self.df(STORES, STORES_SCHEMA)

    def table_name(self, stem: str) -> str:
        name = f"issue4_{stem}_{uuid.uuid4().hex[:8]}"
        self.tables.append(name)
        return name

    def path(self, stem: str) -> str:
        return str(self.root / f"{stem}_{uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="module")
def env(client: Any, spark: Any, diff: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    root = tmp_path_factory.mktemp("issue4-sources")
    e = Env(client, spark, diff, root, "", "", "", "", [])
    sales = e.sales()
    e.sales_parquet = str(root / "sales_parquet")
    sales.write.parquet(e.sales_parquet)
    e.sales_csv = str(root / "sales_csv")
    sales.write.option("header", "true").csv(e.sales_csv)
    e.sales_json = str(root / "sales_json")
    sales.write.json(e.sales_json)
    e.sales_orc = str(root / "sales_orc")
    if engine() != "sail":  # Sail has no ORC data source (tests/engines.py)
        sales.write.orc(e.sales_orc)
    e.sales_text = str(root / "sales_text")
    sales.select(F.concat_ws("|", *sales.columns).alias("value")).coalesce(1).write.text(e.sales_text)
    e.stores_table = e.table_name("stores")
    e.stores().write.option("path", str(root / "stores_table")).saveAsTable(e.stores_table)
    if engine() == "sail":
        # Sail's catalog is per session (Spark's is shared): the client's session needs the
        # table as well as the oracle's
        client.execute(
            {
                "input": {"schema": STORES_SCHEMA, "rows": STORES},
                "plan": [],
                "output": {
                    "table": e.stores_table,
                    "mode": "overwrite",
                    "options": {"path": str(root / "stores_table_client")},
                },
            }
        )
    try:
        yield e
    finally:
        for name in e.tables:
            # dropped with a parameter marker: table names never go into SQL text
            try:
                spark.sql("DROP TABLE IF EXISTS IDENTIFIER(:t)", args={"t": name}).collect()
            except Exception:
                if engine() != "sail":  # Sail has no named parameters; its tables end with the session
                    raise


def run(env: Env, doc: dict[str, Any]) -> pa.Table:
    return env.client.execute(doc)


def same(ours: pa.Table, theirs: Any, *, ordered: bool = False) -> None:
    assert_same(ours, theirs.toArrow(), ordered=ordered)
    assert ours.num_rows > 0 or theirs.count() == 0


@dataclass(frozen=True)
class Case:
    id: str
    doc: Callable[[Env], dict[str, Any]]
    oracle: Callable[[Env], Any]
    ordered: bool = False


def _renamed_stores(e: Env) -> Any:
    return e.stores().withColumnRenamed("id", "id_right")


def _join_case(how: str, spark_how: str) -> Case:
    """Every join type with a nested plan (filter on the right) as the other side."""
    nested = {
        "input": _inline(STORES, STORES_SCHEMA),
        "plan": [{"op": "filter", "payload": {"op": "ne", "left": "store", "right": {"lit": "oslo"}}}],
    }

    def oracle(e: Env) -> Any:
        right = e.stores().filter(F.col("store") != "oslo")
        if spark_how in ("left_semi", "left_anti"):
            return e.sales().join(right, ["store"], spark_how)
        return e.sales().join(right.withColumnRenamed("id", "id_right"), ["store"], spark_how)

    return Case(
        f"join_{how}_nested_plan",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "join", "payload": {"other": nested, "on": ["store"], "how": how}}],
        },
        oracle,
    )


def _condition_join_case(how: str) -> Case:
    """A join on an arbitrary condition with side-qualified references, right side a table."""
    cond = {
        "op": "and",
        "left": {"op": "eq", "left": {"col": "store", "side": "left"}, "right": {"col": "store", "side": "right"}},
        "right": {
            "op": "lt",
            "left": {"col": "id", "side": "left"},
            "right": {"op": "div", "left": {"col": "id", "side": "right"}, "right": 40},
        },
    }

    def oracle(e: Env) -> Any:
        left, right = e.sales(), e.spark.table(e.stores_table)
        joined = left.join(right, (left["store"] == right["store"]) & (left["id"] < right["id"] / 40), how)
        if how in ("left_semi", "left_anti"):
            return joined
        return joined.select(
            *[left[c] for c in left.columns],
            right["store"].alias("store_right"),
            right["region"],
            right["id"].alias("id_right"),
        )

    return Case(
        f"join_{how}_condition_table",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "join", "payload": {"other_table": e.stores_table, "on": cond, "how": how}}],
        },
        oracle,
    )


def _set_case(op: str, oracle: Callable[[Any, Any], Any], payload_extra: dict[str, Any] | None = None) -> Case:
    other = {"input": _inline(BAG_B, BAG_SCHEMA), "plan": []}
    return Case(
        f"set_{op}" + ("_distinct" if payload_extra else ""),
        lambda e: {
            "input": _inline(BAG_A, BAG_SCHEMA),
            "plan": [{"op": op, "payload": {"other": other, **(payload_extra or {})}}],
        },
        lambda e: oracle(e.df(BAG_A, BAG_SCHEMA), e.df(BAG_B, BAG_SCHEMA)),
    )


CASES: list[Case] = [
    # ---- sources
    Case(
        "files_parquet",
        lambda e: {
            "input": {"files": e.sales_parquet, "format": "parquet"},
            "plan": [{"op": "filter", "payload": {"op": "gt", "left": "amount", "right": 2}}],
        },
        lambda e: e.spark.read.parquet(e.sales_parquet).filter(F.col("amount") > 2),
    ),
    Case(
        "files_csv_options_inferred",
        lambda e: {
            "input": {"files": [e.sales_csv], "format": "csv", "options": {"header": True, "inferSchema": True}},
            "plan": [],
        },
        lambda e: e.spark.read.options(header="true", inferSchema="true").csv(e.sales_csv),
    ),
    Case(
        "files_csv_schema_fields",
        lambda e: {
            "input": {
                "files": e.sales_csv + "/*.csv",
                "format": "csv",
                "options": {"header": "true"},
                "schema": SALES_SCHEMA,
            },
            "plan": [{"op": "select", "payload": ["day", "id"]}],
        },
        lambda e: (
            e.spark.read.option("header", "true")
            .schema("id bigint, store string, amount double, day date")
            .csv(e.sales_csv + "/*.csv")
            .select("day", "id")
        ),
    ),
    Case(
        "files_json_ddl_schema",
        lambda e: {"input": {"path": e.sales_json, "format": "json", "schema": "id BIGINT, amount DOUBLE"}, "plan": []},
        lambda e: e.spark.read.schema("id BIGINT, amount DOUBLE").json(e.sales_json),
    ),
    Case(
        "files_orc",
        lambda e: {
            "input": {"files": e.sales_orc, "format": "orc"},
            "plan": [{"op": "filter", "payload": {"op": "is_not_null", "arg": "store"}}],
        },
        lambda e: e.spark.read.orc(e.sales_orc).filter(F.col("store").isNotNull()),
    ),
    Case(
        "files_orc_ddl_schema",
        lambda e: {"input": {"files": [e.sales_orc], "format": "orc", "schema": "day DATE, id BIGINT"}, "plan": []},
        lambda e: e.spark.read.schema("day DATE, id BIGINT").orc(e.sales_orc),
    ),
    Case(
        "files_text",
        lambda e: {
            "input": {"files": e.sales_text, "format": "text"},
            "plan": [
                {
                    "op": "withColumn",
                    "payload": {"name": "parts", "expr": {"fn": "split", "args": ["value", {"lit": "[|]"}]}},
                }
            ],
        },
        lambda e: e.spark.read.text(e.sales_text).withColumn("parts", F.split("value", "[|]")),
    ),
    Case(
        "files_text_wholetext_option",
        lambda e: {"input": {"files": e.sales_text, "format": "text", "options": {"wholetext": True}}, "plan": []},
        lambda e: e.spark.read.text(e.sales_text, wholetext=True),
    ),
    Case(
        "table",
        lambda e: {"input": {"table": e.stores_table}, "plan": [{"op": "orderBy", "payload": {"columns": ["id"]}}]},
        lambda e: e.spark.table(e.stores_table).orderBy("id"),
        ordered=True,
    ),
    Case(
        "read_first_step",
        lambda e: {
            "plan": [
                {"op": "read", "payload": {"files": e.sales_parquet, "format": "parquet"}},
                {"op": "groupBy", "payload": {"group_by": ["store"], "aggs": [{"agg": "count"}]}},
            ]
        },
        lambda e: e.spark.read.parquet(e.sales_parquet).groupBy("store").agg(F.count(F.lit(1))),
    ),
    Case(
        "range",
        lambda e: {"input": {"range": {"start": 3, "end": 40, "step": 7, "num_partitions": 2}}, "plan": []},
        lambda e: e.spark.range(3, 40, 7, 2),
    ),
    Case(
        "range_short_forms",
        lambda e: {
            "input": {"range": 5},
            "plan": [{"op": "withColumn", "payload": {"name": "sq", "expr": {"op": "*", "left": "id", "right": "id"}}}],
        },
        lambda e: e.spark.range(5).withColumn("sq", F.col("id") * F.col("id")),
    ),
    Case(
        "sql_named_args",
        lambda e: {
            "input": {
                "sql": "SELECT * FROM range(10) WHERE id > :lo AND id <> :skip",
                "args": {"lo": 2, "skip": {"lit": 5}},
            },
            "plan": [{"op": "withColumn", "payload": {"name": "s", "expr": {"lit": "x"}}}],
        },
        lambda e: e.spark.sql(
            "SELECT * FROM range(10) WHERE id > :lo AND id <> :skip", args={"lo": 2, "skip": 5}
        ).withColumn("s", F.lit("x")),
    ),
    Case(
        "sql_string_param_is_a_value",
        lambda e: {
            "input": {
                "sql": "SELECT :s AS s, :d AS d",
                "args": {"s": "x' OR '1'='1", "d": {"lit": "2024-01-02", "type": "date"}},
            },
            "plan": [],
        },
        lambda e: e.spark.sql("SELECT :s AS s, :d AS d", args={"s": "x' OR '1'='1", "d": dt.date(2024, 1, 2)}),
    ),
    Case(
        "sql_positional_args",
        lambda e: {"input": {"sql": "SELECT ? AS a, ? + 1 AS b", "args": [7, 1.5]}, "plan": []},
        lambda e: e.spark.sql("SELECT ? AS a, ? + 1 AS b", args=[7, 1.5]),
    ),
    Case(
        "sql_constructor_args",
        lambda e: {
            "input": {
                "sql": SQL_CONSTRUCTORS,
                "args": {
                    "a": {"fn": "array", "args": [3, 1, 2]},
                    "m": {
                        "fn": "create_map",
                        "args": [
                            {"lit": "k"},
                            {"lit": "2024-01-02", "type": "date"},
                            {"lit": "j"},
                            {"lit": "2024-02-03", "type": "date"},
                        ],
                    },
                    "s": {
                        "fn": "named_struct",
                        "args": [{"lit": "x"}, 1, {"lit": "y"}, {"fn": "array", "args": [{"lit": "u"}]}],
                    },
                    "t": {"fn": "struct", "args": [{"lit": 1.5}, {"lit": "12.34", "type": "decimal(5,2)"}]},
                },
            },
            "plan": [],
        },
        lambda e: e.spark.sql(
            SQL_CONSTRUCTORS,
            args={
                "a": F.array(F.lit(3), F.lit(1), F.lit(2)),
                "m": F.create_map(F.lit("k"), F.lit(dt.date(2024, 1, 2)), F.lit("j"), F.lit(dt.date(2024, 2, 3))),
                "s": F.named_struct(F.lit("x"), F.lit(1), F.lit("y"), F.array(F.lit("u"))),
                "t": F.struct(F.lit(1.5), F.lit(Decimal("12.34"))),
            },
        ),
    ),
    Case(
        "sql_positional_constructor_args",
        lambda e: {
            "input": {
                "sql": "SELECT ? AS a, ? AS b",
                "args": [
                    {
                        "fn": "map_from_arrays",
                        "args": [
                            {"fn": "array", "args": [1, 2]},
                            {"fn": "array", "args": [{"lit": "p"}, {"lit": "q"}]},
                        ],
                    },
                    {
                        "fn": "map_from_entries",
                        "args": [{"fn": "array", "args": [{"fn": "struct", "args": [1, {"lit": "r"}]}]}],
                    },
                ],
            },
            "plan": [],
        },
        lambda e: e.spark.sql(
            "SELECT ? AS a, ? AS b",
            args=[
                F.map_from_arrays(F.array(F.lit(1), F.lit(2)), F.array(F.lit("p"), F.lit("q"))),
                F.map_from_entries(F.array(F.struct(F.lit(1), F.lit("r")))),
            ],
        ),
    ),
    Case(
        # typed map/struct/array parameters: Literal protos of their type (PySpark builds no
        # map or struct literal; the oracle is Spark SQL's own literal of the same value)
        "sql_typed_nested_args",
        lambda e: {
            "input": {
                "sql": "SELECT ? AS m, ? AS s, ? AS a",
                "args": [
                    {"lit": '{"k": [1, null], "j": null}', "type": "map<string,array<int>>"},
                    {"lit": '{"x": 1.5, "d": "2024-02-28"}', "type": "struct<x:double,d:date,n:string>"},
                    {"lit": '["2024-01-01 10:00:00"]', "type": "array<timestamp_ntz>"},
                ],
            },
            "plan": [],
        },
        lambda e: e.spark.sql(
            "SELECT map('k', array(1, NULL), 'j', CAST(NULL AS ARRAY<INT>)) AS m, "
            "named_struct('x', 1.5D, 'd', DATE'2024-02-28', 'n', CAST(NULL AS STRING)) AS s, "
            "array(TIMESTAMP_NTZ'2024-01-01 10:00:00') AS a"
        ),
    ),
    # ---- plan trees
    Case(
        "join_table_right_side_renames",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "join", "payload": {"other": {"table": e.stores_table}, "on": "store", "how": "inner"}}],
        },
        lambda e: e.sales().join(e.spark.table(e.stores_table).withColumnRenamed("id", "id_right"), ["store"], "inner"),
    ),
    Case(
        "join_other_string_is_a_table",
        lambda e: {
            "input": {"table": e.stores_table},
            "plan": [{"op": "join", "payload": {"other": e.stores_table, "on": ["store", "region", "id"]}}],
        },
        lambda e: e.spark.table(e.stores_table).join(e.spark.table(e.stores_table), ["store", "region", "id"]),
    ),
    Case(
        "other_plan_steps_over_other_data",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "join",
                    "payload": {
                        "other_data": STORES,
                        "other_schema": STORES_SCHEMA,
                        "on": ["store"],
                        "how": "left",
                        "other_plan": [{"op": "drop", "payload": {"columns": ["id"]}}],
                    },
                }
            ],
        },
        lambda e: e.sales().join(e.stores().drop("id"), ["store"], "left"),
    ),
    Case(
        "nested_plan_reads_files_and_nests_again",
        lambda e: {
            "input": {"table": e.stores_table},
            "plan": [
                {
                    "op": "join",
                    "how": "inner",
                    "on": ["store"],
                    "payload": {
                        "other": {
                            "input": {"files": e.sales_parquet, "format": "parquet"},
                            "plan": [
                                {
                                    "op": "join",
                                    "payload": {
                                        "other": {"input": {"range": 4}, "plan": []},
                                        "on": ["id"],
                                        "how": "left_semi",
                                    },
                                },
                                {
                                    "op": "groupBy",
                                    "payload": {
                                        "group_by": ["store"],
                                        "aggs": [{"agg": "sum", "column": "amount", "alias": "total"}],
                                    },
                                },
                            ],
                        }
                    },
                }
            ],
        },
        lambda e: e.spark.table(e.stores_table).join(
            e.spark.read.parquet(e.sales_parquet)
            .join(e.spark.range(4), ["id"], "left_semi")
            .groupBy("store")
            .agg(F.sum("amount").alias("total")),
            ["store"],
        ),
    ),
    Case(
        "shared_with_ref_used_twice",
        lambda e: {
            "with": {
                "big": {
                    "input": _inline(SALES, SALES_SCHEMA),
                    "plan": [{"op": "filter", "payload": {"op": "gt", "left": "amount", "right": 4}}],
                }
            },
            "input": {"ref": "big"},
            "plan": [
                {
                    "op": "join",
                    "payload": {
                        "other": {"ref": "big"},
                        "on": {
                            "op": "lt",
                            "left": {"col": "id", "side": "left"},
                            "right": {"col": "id", "side": "right"},
                        },
                        "how": "inner",
                    },
                }
            ],
        },
        lambda e: _self_join_big(e),
    ),
    Case(
        "identical_nested_documents_shared",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "join",
                    "payload": {
                        "other": {
                            "input": _inline(STORES, STORES_SCHEMA),
                            "plan": [{"op": "select", "payload": ["store", "region"]}],
                        },
                        "on": ["store"],
                        "how": "left_semi",
                    },
                },
                {
                    "op": "join",
                    "payload": {
                        "other": {
                            "input": _inline(STORES, STORES_SCHEMA),
                            "plan": [{"op": "select", "payload": ["store", "region"]}],
                        },
                        "on": ["store"],
                    },
                },
            ],
        },
        lambda e: (
            e.sales()
            .join(e.stores().select("store", "region"), ["store"], "left_semi")
            .join(e.stores().select("store", "region"), ["store"])
        ),
    ),
    # ---- every join type (Substrait inner/outer/left/right/semi/anti; cross)
    _join_case("inner", "inner"),
    _join_case("left", "left"),
    _join_case("right", "right"),
    _join_case("outer", "full"),
    _join_case("left_semi", "left_semi"),
    _join_case("left_anti", "left_anti"),
    _condition_join_case("inner"),
    _condition_join_case("left"),
    _condition_join_case("right"),
    _condition_join_case("full"),
    _condition_join_case("left_semi"),
    _condition_join_case("left_anti"),
    # Substrait: the join expression "can be the literal True"
    *[
        Case(
            f"join_{how}_on_literal_{str(value).lower()}",
            lambda e, how=how, value=value: {
                "input": _inline(BAG_B, BAG_SCHEMA),
                "plan": [
                    {
                        "op": "join",
                        "payload": {
                            "other": {"input": _inline(STORES, STORES_SCHEMA), "plan": []},
                            "on": {"lit": value},
                            "how": how,
                        },
                    }
                ],
            },
            lambda e, how=how, value=value: e.df(BAG_B, BAG_SCHEMA).join(e.stores(), F.lit(value), how),
        )
        for how, value in (
            ("inner", True),
            ("left", True),
            ("full", True),
            ("left_anti", True),
            ("left", False),
            ("left_semi", False),
        )
    ],
    Case(
        "cross_join_nested",
        lambda e: {
            "input": _inline(BAG_A, BAG_SCHEMA),
            "plan": [{"op": "crossJoin", "payload": {"other": {"input": {"range": 3}, "plan": []}}}],
        },
        lambda e: e.df(BAG_A, BAG_SCHEMA).crossJoin(e.spark.range(3)),
    ),
    Case(
        "join_how_cross_with_table",
        lambda e: {
            "input": _inline(BAG_B, BAG_SCHEMA),
            "plan": [{"op": "join", "payload": {"other": {"table": e.stores_table}, "how": "cross"}}],
        },
        lambda e: e.df(BAG_B, BAG_SCHEMA).crossJoin(e.spark.table(e.stores_table)),
    ),
    Case(
        "join_broadcast_flag",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "join",
                    "payload": {"other": {"table": e.stores_table}, "on": ["store"], "how": "left", "broadcast": True},
                }
            ],
        },
        lambda e: e.sales().join(
            F.broadcast(e.spark.table(e.stores_table).withColumnRenamed("id", "id_right")), ["store"], "left"
        ),
    ),
    # ---- set operations, distinct and ALL
    _set_case("union", lambda a, b: a.union(b)),
    _set_case("union", lambda a, b: a.union(b).distinct(), {"distinct": True}),
    _set_case("unionAll", lambda a, b: a.unionAll(b)),
    _set_case("intersect", lambda a, b: a.intersect(b)),
    _set_case("intersectAll", lambda a, b: a.intersectAll(b)),
    _set_case("except", lambda a, b: a.subtract(b)),
    _set_case("subtract", lambda a, b: a.subtract(b)),
    _set_case("exceptAll", lambda a, b: a.exceptAll(b)),
    Case(
        "intersection_primary_three_inputs",
        lambda e: {
            "input": _inline(BAG_A, BAG_SCHEMA),
            "plan": [
                {
                    "op": "intersect",
                    "payload": {
                        "other": {
                            "input": _inline(BAG_B, BAG_SCHEMA),
                            "plan": [
                                {
                                    "op": "union",
                                    "payload": {"other": {"input": _inline([[4, "d"]], BAG_SCHEMA), "plan": []}},
                                }
                            ],
                        }
                    },
                }
            ],
        },
        lambda e: e.df(BAG_A, BAG_SCHEMA).intersect(e.df(BAG_B, BAG_SCHEMA).union(e.df([[4, "d"]], BAG_SCHEMA))),
    ),
    Case(
        "minus_primary_chained",
        lambda e: {
            "input": _inline(BAG_A, BAG_SCHEMA),
            "plan": [
                {"op": "except", "payload": {"other": {"input": _inline(BAG_B, BAG_SCHEMA), "plan": []}}},
                {"op": "except", "payload": {"other": {"input": _inline([[4, "d"]], BAG_SCHEMA), "plan": []}}},
            ],
        },
        lambda e: e.df(BAG_A, BAG_SCHEMA).subtract(e.df(BAG_B, BAG_SCHEMA)).subtract(e.df([[4, "d"]], BAG_SCHEMA)),
    ),
    # Substrait Minus (Primary) / Intersection (Primary): the primary's rows, duplicates kept
    Case(
        "set_minusPrimary",
        lambda e: {
            "input": _inline(PRIMARY, BAG_SCHEMA),
            "plan": [
                {"op": "minusPrimary", "payload": {"other": {"input": _inline(SECONDARY, OTHER_SCHEMA), "plan": []}}}
            ],
        },
        lambda e: _primary_join(e.df(PRIMARY, BAG_SCHEMA), e.df(SECONDARY, OTHER_SCHEMA), "left_anti"),
    ),
    Case(
        "set_intersectPrimary",
        lambda e: {
            "input": _inline(PRIMARY, BAG_SCHEMA),
            "plan": [
                {
                    "op": "intersectPrimary",
                    "payload": {"other": {"input": _inline(SECONDARY, OTHER_SCHEMA), "plan": []}},
                }
            ],
        },
        lambda e: _primary_join(e.df(PRIMARY, BAG_SCHEMA), e.df(SECONDARY, OTHER_SCHEMA), "left_semi"),
    ),
    Case(
        "minus_primary_table_columns_from_the_server",
        lambda e: {
            "input": {"table": e.stores_table},
            "plan": [
                {
                    "op": "minusPrimary",
                    "payload": {"other": {"input": {"sql": "SELECT 'paris' AS a, 'FR' AS b, 200L AS c"}, "plan": []}},
                }
            ],
        },
        lambda e: _primary_join(
            e.spark.table(e.stores_table), e.spark.sql("SELECT 'paris' AS a, 'FR' AS b, 200L AS c"), "left_anti"
        ),
    ),
    Case(
        "union_by_name_with_table",
        lambda e: {
            "input": {"table": e.stores_table},
            "plan": [
                {
                    "op": "unionByName",
                    "payload": {
                        "other": {
                            "input": _inline(
                                [["DE", "x", 1]],
                                [
                                    {"name": "region", "type": "string"},
                                    {"name": "store", "type": "string"},
                                    {"name": "id", "type": "bigint"},
                                ],
                            ),
                            "plan": [],
                        }
                    },
                }
            ],
        },
        lambda e: e.spark.table(e.stores_table).unionByName(
            e.df(
                [["DE", "x", 1]],
                [
                    {"name": "region", "type": "string"},
                    {"name": "store", "type": "string"},
                    {"name": "id", "type": "bigint"},
                ],
            )
        ),
    ),
    # ---- fetch, sort, grouping sets, filtered measures, sample, repartition, hint, tail
    Case(
        "fetch_offset_and_count",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "orderBy",
                    "payload": {"columns": [{"col": "amount", "asc": False, "nulls_first": True}, {"col": "id"}]},
                },
                {"op": "fetch", "payload": {"offset": 1, "count": 3}},
            ],
        },
        lambda e: e.sales().orderBy(F.col("amount").desc_nulls_first(), "id").offset(1).limit(3),
        ordered=True,
    ),
    Case(
        "fetch_offset_only",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "orderBy", "payload": {"columns": ["id"]}}, {"op": "fetch", "payload": {"offset": 4}}],
        },
        lambda e: e.sales().orderBy("id").offset(4),
        ordered=True,
    ),
    Case(
        "sort_per_key_direction_and_nulls",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "orderBy",
                    "payload": {
                        "columns": [
                            {"col": "store", "asc": True, "nulls_last": True},
                            {"col": "amount", "desc": True, "nulls_last": False},
                        ]
                    },
                }
            ],
        },
        lambda e: e.sales().orderBy(F.col("store").asc_nulls_last(), F.col("amount").desc_nulls_first()),
        ordered=True,
    ),
    Case(
        "sort_alias_per_key_direction_and_nulls",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "sort",
                    "payload": {
                        "columns": [
                            {"col": "day", "desc": True},
                            {"col": "amount", "asc": True, "nulls_first": False},
                            "id",
                        ]
                    },
                }
            ],
        },
        lambda e: e.sales().sort(F.col("day").desc(), F.col("amount").asc_nulls_last(), "id"),
        ordered=True,
    ),
    Case(
        "sort_within_partitions",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {"op": "repartition", "payload": {"n": 2, "columns": ["store"]}},
                {
                    "op": "sortWithinPartitions",
                    "payload": {"columns": [{"col": "store", "nulls_last": True}, {"col": "amount", "desc": True}]},
                },
            ],
        },
        lambda e: (
            e.sales()
            .repartition(2, "store")
            .sortWithinPartitions(F.col("store").asc_nulls_last(), F.col("amount").desc())
        ),
    ),
    Case(
        "grouping_sets",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "groupingSets",
                    "payload": {
                        "sets": [["store", "day"], ["store"], []],
                        "aggs": [{"agg": "sum", "column": "amount", "alias": "total"}, {"agg": "count"}],
                    },
                }
            ],
        },
        lambda e: (
            e.sales()
            .groupingSets([["store", "day"], ["store"], []], "store", "day")
            .agg(F.sum("amount").alias("total"), F.count(F.lit(1)))
        ),
    ),
    Case(
        "grouping_sets_explicit_keys",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "groupingSets",
                    "payload": {
                        "group_by": ["day", "store"],
                        "sets": [["day"], ["store"]],
                        "aggs": [{"agg": "max", "column": "amount"}],
                    },
                }
            ],
        },
        lambda e: e.sales().groupingSets([["day"], ["store"]], "day", "store").agg(F.max("amount")),
    ),
    Case(
        "aggregate_filters",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {
                    "op": "groupBy",
                    "payload": {
                        "group_by": ["day"],
                        "aggs": [
                            {
                                "agg": "sum",
                                "column": "amount",
                                "alias": "big",
                                "filter": {"op": "gt", "left": "amount", "right": 5},
                            },
                            {
                                "agg": "count",
                                "alias": "n_paris",
                                "filter": {"op": "eq", "left": "store", "right": {"lit": "paris"}},
                            },
                            {
                                "agg": "avg",
                                "column": "amount",
                                "alias": "a",
                                "where": {"op": "is_not_null", "arg": "store"},
                            },
                            {
                                "agg": "first",
                                "column": "store",
                                "ignorenulls": True,
                                "alias": "f",
                                "filter": {"op": "lt", "left": "id", "right": 6},
                            },
                        ],
                    },
                }
            ],
        },
        lambda e: (
            e.sales()
            .groupBy("day")
            .agg(
                F.expr("sum(amount) FILTER (WHERE amount > 5)").alias("big"),
                F.expr("count(1) FILTER (WHERE store = 'paris')").alias("n_paris"),
                F.expr("avg(amount) FILTER (WHERE store IS NOT NULL)").alias("a"),
                F.expr("first(store, true) FILTER (WHERE id < 6)").alias("f"),
            )
        ),
    ),
    Case(
        "sample_seeded",
        lambda e: {"input": {"range": 200}, "plan": [{"op": "sample", "payload": {"fraction": 0.3, "seed": 7}}]},
        lambda e: e.spark.range(200).sample(False, 0.3, seed=7),
    ),
    Case(
        "sample_with_replacement",
        lambda e: {
            "input": {"range": 50},
            "plan": [{"op": "sample", "payload": {"withReplacement": True, "fraction": 1.5, "seed": 3}}],
        },
        lambda e: e.spark.range(50).sample(True, 1.5, seed=3),
    ),
    Case(
        "repartition_n",
        lambda e: {"input": {"range": 40}, "plan": [{"op": "repartition", "payload": {"n": 3}}]},
        lambda e: e.spark.range(40).repartition(3),
    ),
    Case(
        "repartition_by_column",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "repartition", "payload": {"n": 4, "columns": ["store"]}}],
        },
        lambda e: e.sales().repartition(4, "store"),
    ),
    Case(
        "coalesce",
        lambda e: {
            "input": {"range": {"end": 30, "num_partitions": 4}},
            "plan": [{"op": "coalesce", "payload": {"n": 1}}],
        },
        lambda e: e.spark.range(0, 30, 1, 4).coalesce(1),
    ),
    Case(
        "hint_broadcast_step",
        lambda e: {
            "input": _inline(STORES, STORES_SCHEMA),
            "plan": [
                {"op": "hint", "payload": {"name": "broadcast"}},
                {
                    "op": "join",
                    "payload": {
                        "other": {
                            "input": {"files": e.sales_parquet, "format": "parquet"},
                            "plan": [{"op": "drop", "payload": ["id"]}],
                        },
                        "on": ["store"],
                    },
                },
            ],
        },
        lambda e: e.stores().hint("broadcast").join(e.spark.read.parquet(e.sales_parquet).drop("id"), ["store"]),
    ),
    Case(
        "hint_with_parameters",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "hint", "payload": {"name": "repartition", "parameters": [3]}}],
        },
        lambda e: e.sales().hint("repartition", 3),
    ),
    Case(
        "tail",
        lambda e: {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "orderBy", "payload": {"columns": ["id"]}}, {"op": "tail", "payload": {"n": 2}}],
        },
        lambda e: e.spark.createDataFrame(e.sales().orderBy("id").tail(2), e.sales().schema),
        ordered=True,
    ),
]


def _primary_join(primary: Any, secondary: Any, how: str) -> Any:
    """PySpark's own spelling of Minus/Intersection (Primary): an anti/semi join on
    null-safe equality of every column, paired by position."""
    cond = None
    for a, b in zip(primary.columns, secondary.columns):
        eq = primary[a].eqNullSafe(secondary[b])
        cond = eq if cond is None else cond & eq
    return primary.join(secondary, cond, how)


def _self_join_big(e: Env) -> Any:
    big = e.sales().filter(F.col("amount") > 4)
    other = big.alias("r")
    joined = big.alias("l").join(other, F.col("l.id") < F.col("r.id"), "inner")
    return joined.select(
        *[F.col(f"l.{c}") for c in big.columns], *[F.col(f"r.{c}").alias(f"{c}_right") for c in big.columns]
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_source_case(env: Env, case: Case) -> None:
    ours = run(env, case.doc(env))
    same(ours, case.oracle(env), ordered=case.ordered)


# ------------------------------------------------------------------ Substrait set types, 3 inputs

P3 = [[1, "a"], [1, "a"], [1, "a"], [2, "b"], [2, "b"], [3, None], [3, None], [4, "d"], [5, "e"], [8, "h"], [8, "h"]]
S1 = [[1, "a"], [2, "b"], [3, None], [3, None], [6, "f"]]
S2 = [[1, "a"], [1, "a"], [3, None], [4, "d"], [7, "g"]]


def _nested(rows: Any, plan: list[Any] | None = None) -> dict[str, Any]:
    return {"input": _inline(rows, BAG_SCHEMA), "plan": plan or []}


def _step(op: str, other: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"op": op, "payload": {"other": other, **extra}}


def _count(rows: Any) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(r) for r in rows)


def _model(counts: Callable[[int, int, int], int]) -> list[tuple[Any, ...]]:
    """Rows as a Substrait set type defines them from each row's multiplicity m in the
    primary and n1, n2 in the secondaries (Python's None == None: nulls match nulls)."""
    p, a, b = _count(P3), _count(S1), _count(S2)
    return sorted((r for r in {**p, **a, **b} for _ in range(counts(p[r], a[r], b[r]))), key=repr)


# (id, plan steps over P3, PySpark oracle over (p, s1, s2), multiplicity of a row in the result)
SET_TYPES: list[tuple[str, list[Any], Callable[[Any, Any, Any], Any], Callable[[int, int, int], int]]] = [
    (
        "minus_primary_seed",
        [_step("minusPrimary", _nested(S1)), _step("minusPrimary", _nested(S2))],
        lambda p, a, b: _primary_join(_primary_join(p, a, "left_anti"), b, "left_anti"),
        lambda m, n1, n2: m if n1 == n2 == 0 else 0,
    ),
    (
        "minus_primary_distinct",
        [_step("except", _nested(S1)), _step("except", _nested(S2))],
        lambda p, a, b: p.subtract(a).subtract(b),
        lambda m, n1, n2: int(m > 0 and n1 == n2 == 0),
    ),
    (
        "minus_primary_all",
        [_step("exceptAll", _nested(S1)), _step("exceptAll", _nested(S2))],
        lambda p, a, b: p.exceptAll(a).exceptAll(b),
        lambda m, n1, n2: max(m - n1 - n2, 0),
    ),
    (
        "minus_multiset_seed",
        [_step("minusPrimary", _nested(S1, [_step("intersect", _nested(S2))]))],
        lambda p, a, b: _primary_join(p, a.intersect(b), "left_anti"),
        lambda m, n1, n2: 0 if n1 and n2 else m,
    ),
    (
        "minus_multiset_counts",
        [_step("exceptAll", _nested(S1, [_step("intersectAll", _nested(S2))]))],
        lambda p, a, b: p.exceptAll(a.intersectAll(b)),
        lambda m, n1, n2: max(m - min(n1, n2), 0),
    ),
    (
        "intersection_primary_seed",
        [_step("intersectPrimary", _nested(S1, [_step("unionAll", _nested(S2))]))],
        lambda p, a, b: _primary_join(p, a.unionAll(b), "left_semi"),
        lambda m, n1, n2: m if n1 or n2 else 0,
    ),
    (
        "intersection_primary_distinct",
        [_step("intersect", _nested(S1, [_step("unionAll", _nested(S2))]))],
        lambda p, a, b: p.intersect(a.unionAll(b)),
        lambda m, n1, n2: int(m > 0 and (n1 > 0 or n2 > 0)),
    ),
    (
        "intersection_multiset",
        [_step("intersect", _nested(S1)), _step("intersect", _nested(S2))],
        lambda p, a, b: p.intersect(a).intersect(b),
        lambda m, n1, n2: int(m > 0 and n1 > 0 and n2 > 0),
    ),
    (
        "intersection_multiset_all",
        [_step("intersectAll", _nested(S1)), _step("intersectAll", _nested(S2))],
        lambda p, a, b: p.intersectAll(a).intersectAll(b),
        lambda m, n1, n2: min(m, n1, n2),
    ),
    (
        "union_distinct",
        [_step("union", _nested(S1), distinct=True), _step("union", _nested(S2), distinct=True)],
        lambda p, a, b: p.union(a).union(b).distinct(),
        lambda m, n1, n2: int(m + n1 + n2 > 0),
    ),
    (
        "union_all",
        [_step("union", _nested(S1)), _step("union", _nested(S2))],
        lambda p, a, b: p.union(a).union(b),
        lambda m, n1, n2: m + n1 + n2,
    ),
]


@pytest.mark.parametrize(("plan", "oracle", "counts"), [t[1:] for t in SET_TYPES], ids=[t[0] for t in SET_TYPES])
def test_substrait_set_types_over_three_inputs(
    env: Env, plan: list[Any], oracle: Callable[..., Any], counts: Callable[[int, int, int], int]
) -> None:
    """Each Substrait set type over a primary and two secondaries (docs/plan-format.md §6):
    the plan gives what PySpark's own spelling gives, and both are the multiset the type's
    definition describes."""
    ours = run(env, {"input": _inline(P3, BAG_SCHEMA), "plan": plan})
    same(ours, oracle(*(env.df(rows, BAG_SCHEMA) for rows in (P3, S1, S2))))
    assert sorted((tuple(r) for r in rows_of(ours)), key=repr) == _model(counts)


def test_clustered_sort_is_repartition_then_sort_within_partitions(env: Env) -> None:
    """Substrait Sort 'clustered' (equal values coalesced, no order between them): hash
    partitioning by the keys puts equal values in one partition and sortWithinPartitions
    makes them adjacent there; a repartition alone does not (checked on the same rows)."""
    keyed = [{"op": "withColumn", "payload": {"name": "k", "expr": {"fn": "%", "args": ["id", 7]}}}]
    ours = run(
        env,
        {
            "input": {"range": {"end": 200, "num_partitions": 4}},
            "plan": [
                *keyed,
                {"op": "repartition", "payload": {"n": 3, "columns": ["k"]}},
                {"op": "sortWithinPartitions", "payload": {"columns": ["k"]}},
            ],
        },
    )
    theirs = (
        env.spark.range(0, 200, 1, 4).withColumn("k", F.col("id") % 7).repartition(3, "k").sortWithinPartitions("k")
    )
    theirs_table = theirs.toArrow()
    same(ours, theirs)

    def runs(keys: list[Any]) -> list[Any]:
        return [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]

    # each value is one contiguous run, in our result and in PySpark's (partition order may differ)
    assert sorted(runs(ours.column("k").to_pylist())) == list(range(7))
    assert sorted(runs(theirs_table.column("k").to_pylist())) == list(range(7))
    only_repartitioned = (
        run(
            env,
            {
                "input": {"range": {"end": 200, "num_partitions": 4}},
                "plan": [*keyed, {"op": "repartition", "payload": {"n": 3, "columns": ["k"]}}],
            },
        )
        .column("k")
        .to_pylist()
    )
    assert len(runs(only_repartitioned)) > 7


def test_single_join_is_rejected_before_any_network_call() -> None:
    doc = {
        "input": _inline(SALES, SALES_SCHEMA),
        "plan": [{"op": "join", "payload": {"other": {"table": "t"}, "on": ["store"], "how": "single"}}],
    }
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(None, None, doc)
    assert info.value.codes == ("unsupported_join_type",)
    assert info.value.locs == ("/plan/0/payload/how",)
    assert "left" in str(info.value)


@pytest.mark.parametrize(
    ("payload", "op", "expected"),
    [
        ({"n": 3}, "repartition", "RoundRobinPartitioning(3)"),
        ({"n": 4, "columns": ["store"]}, "repartition", "hashpartitioning(store#"),
        ({"columns": [{"col": "store"}]}, "repartition", "hashpartitioning(store#"),
        ({"n": 1}, "coalesce", "Coalesce 1"),
    ],
)
@pytest.mark.spark_only(reason="reads Spark's physical plan text (Exchange, BroadcastHashJoin)")
def test_repartition_reaches_the_physical_plan(env: Env, payload: Any, op: str, expected: str) -> None:
    doc = {"input": _inline(SALES, SALES_SCHEMA), "plan": [{"op": op, "payload": payload}]}
    plan = env.client.explain(doc, mode="extended")
    theirs = getattr(env.sales(), op)(
        *([payload["n"]] if "n" in payload else []),
        *[c if isinstance(c, str) else c["col"] for c in payload.get("columns", [])],
    )
    assert expected in plan
    assert expected.split("#")[0] in theirs._explain_string(extended=True)


@pytest.mark.spark_only(reason="reads Spark's physical plan text (Exchange, BroadcastHashJoin)")
def test_broadcast_hint_reaches_the_physical_plan(env: Env) -> None:
    doc = {
        "input": _inline(SALES, SALES_SCHEMA),
        "plan": [
            {
                "op": "join",
                "payload": {"other": {"table": env.stores_table}, "on": ["store"], "how": "inner", "broadcast": True},
            }
        ],
    }
    assert "BroadcastHashJoin" in env.client.explain(doc, mode="formatted")


@pytest.mark.spark_only(reason="reads Spark's physical plan text (PushedFilters, ReadSchema)")
def test_read_filter_and_projection_properties_reach_the_scan(env: Env) -> None:
    """Substrait Read's filter and projection properties are a read followed by filter and
    select steps (docs/plan-format.md §10): Spark pushes both into the file scan."""
    doc = {
        "input": {"files": env.sales_parquet, "format": "parquet"},
        "plan": [
            {"op": "filter", "payload": {"op": "gt", "left": "amount", "right": 2}},
            {"op": "select", "payload": ["id"]},
        ],
    }
    plan = env.client.explain(doc, mode="formatted")
    assert "PushedFilters: [IsNotNull(amount), GreaterThan(amount,2.0)]" in plan, plan
    assert "ReadSchema: struct<id:bigint,amount:double>" in plan, plan
    same(run(env, doc), env.spark.read.parquet(env.sales_parquet).filter(F.col("amount") > 2).select("id"))


def test_shared_sub_plan_is_resolved_once(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 'with' definition used three times is lowered once: its column names are asked of
    the server once, and every use carries the identical relation."""
    calls: list[Any] = []
    real = env.client.internals.executor.resolve_names

    def counting(rel: Any, *local: Any) -> list[str]:
        calls.append(rel)
        return list(real(rel, *local))

    monkeypatch.setattr(env.client.internals.executor, "resolve_names", counting)
    env.client.internals.session.schema_cache.clear()
    doc = {
        "with": {
            "t": {
                "input": {"table": env.stores_table},
                "plan": [{"op": "filter", "payload": {"op": "gt", "left": "id", "right": 100}}],
            }
        },
        "input": {"ref": "t"},
        "plan": [
            {"op": "join", "payload": {"other": {"ref": "t"}, "on": ["store"]}},
            {"op": "join", "payload": {"other": {"ref": "t"}, "on": ["store"]}},
        ],
    }
    proto = env.client.translate(doc)
    uses = []

    def walk(rel: Any) -> None:
        kind = rel.WhichOneof("rel_type")
        if kind == "project" and rel.project.input.WhichOneof("rel_type") == "filter":
            uses.append(rel.project.input.SerializeToString(deterministic=True))
        for _field, value in rel.ListFields():
            sub = getattr(value, "ListFields", None)
            if sub is None:
                continue
            for f2, v2 in value.ListFields():
                if f2.message_type is not None and f2.message_type.name == "Relation":
                    walk(v2)

    walk(proto.root)
    assert len(uses) == 3 and len(set(uses)) == 1
    assert len(calls) == 1 and calls[0].WhichOneof("rel_type") == "filter", calls
    ours = env.client.execute(doc)
    t = env.spark.table(env.stores_table).filter(F.col("id") > 100)
    oracle = t.join(t.withColumnRenamed("region", "region_right").withColumnRenamed("id", "id_right"), ["store"]).join(
        t.withColumnRenamed("region", "region_right_1").withColumnRenamed("id", "id_right_1"), ["store"]
    )
    same(ours, oracle)


# ------------------------------------------------------------------ writes


def _read_back(env: Env, fmt: str, path: str) -> Any:
    reader = env.spark.read.format(fmt)
    if fmt == "csv":
        reader = reader.option("header", "true").schema("id bigint, store string, amount double, day date")
    return reader.load(path)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "orc"])
def test_write_every_mode_matches_pyspark(env: Env, fmt: str) -> None:
    """error (fresh target), append, ignore (existing: nothing written), overwrite, then
    error on the existing target — ours and PySpark's writers side by side."""
    ours, theirs = env.path(f"ours_{fmt}"), env.path(f"theirs_{fmt}")
    options = {"header": "true"} if fmt == "csv" else {}
    half = [r for r in SALES if r[0] % 2]

    def write(rows: Any, mode: str) -> pa.Table:
        return env.client.execute(
            {
                "input": _inline(rows, SALES_SCHEMA),
                "plan": [{"op": "write", "payload": {"format": fmt, "path": ours, "mode": mode, "options": options}}],
            }
        )

    def pyspark_write(rows: Any, mode: str) -> None:
        env.df(rows, SALES_SCHEMA).write.format(fmt).options(**options).mode(mode).save(theirs)

    report = write(SALES, "error")
    pyspark_write(SALES, "error")
    assert report.to_pylist() == [
        {"operation": "write", "target": ours, "format": fmt, "mode": "error", "partition_by": [], "rows": 6}
    ]
    assert write(half, "append").column("rows").to_pylist() == [len(half)]
    pyspark_write(half, "append")
    same(_read_back(env, fmt, ours).toArrow(), _read_back(env, fmt, theirs))
    assert _read_back(env, fmt, ours).count() == 6 + len(half)
    assert write(half, "ignore").column("rows").to_pylist() == [0]  # the target exists: nothing written
    pyspark_write(half, "ignore")
    same(_read_back(env, fmt, ours).toArrow(), _read_back(env, fmt, theirs))
    assert write(half, "overwrite").column("rows").to_pylist() == [len(half)]
    pyspark_write(half, "overwrite")
    same(_read_back(env, fmt, ours).toArrow(), _read_back(env, fmt, theirs))
    with pytest.raises(connect_plan.ServerError) as info:
        write(SALES, "errorifexists")
    assert info.value.op_index == 0 and info.value.op_name == "write"
    assert "already exists" in str(info.value).lower()


def test_write_partitioned_parquet_from_document_output(env: Env) -> None:
    ours, theirs = env.path("ours_part"), env.path("theirs_part")
    report = env.client.execute(
        {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [{"op": "filter", "payload": {"op": "is_not_null", "arg": "store"}}],
            "output": {"format": "parquet", "path": ours, "mode": "overwrite", "partition_by": ["store"]},
        }
    )
    env.sales().filter(F.col("store").isNotNull()).write.partitionBy("store").mode("overwrite").parquet(theirs)
    assert report.column("rows").to_pylist() == [5] and report.column("partition_by").to_pylist() == [["store"]]
    assert sorted(p.name for p in Path(ours).iterdir() if p.is_dir()) == ["store=berlin", "store=lyon", "store=paris"]
    same(env.spark.read.parquet(ours).toArrow(), env.spark.read.parquet(theirs))


def test_save_as_table_and_insert_into_match_pyspark(env: Env) -> None:
    ours, theirs = env.table_name("ours"), env.table_name("theirs")
    opts = {"path": env.path("ours_tbl")}
    first = env.client.execute(
        {
            "input": _inline(SALES, SALES_SCHEMA),
            "plan": [
                {"op": "write", "payload": {"saveAsTable": ours, "format": "parquet", "mode": "error", "options": opts}}
            ],
        }
    )
    env.sales().write.format("parquet").option("path", env.path("theirs_tbl")).saveAsTable(theirs)
    assert first.to_pylist() == [
        {
            "operation": "saveAsTable",
            "target": ours,
            "format": "parquet",
            "mode": "error",
            "partition_by": [],
            "rows": 6,
        }
    ]
    more = [[7, "oslo", 2.0, "2024-03-04"]]
    env.client.execute(
        {"input": _inline(more, SALES_SCHEMA), "plan": [{"op": "write", "payload": {"insertInto": ours}}]}
    )
    env.df(more, SALES_SCHEMA).write.insertInto(theirs)
    same(env.client.execute({"input": {"table": ours}, "plan": []}), env.spark.table(theirs))
    env.client.execute(
        {
            "input": _inline(more, SALES_SCHEMA),
            "plan": [],
            "output": {"table": ours, "method": "insertInto", "mode": "overwrite"},
        }
    )
    env.df(more, SALES_SCHEMA).write.insertInto(theirs, overwrite=True)
    same(env.client.execute({"input": {"table": ours}, "plan": []}), env.spark.table(theirs))
    env.client.execute(
        {
            "input": _inline(SALES[:2], SALES_SCHEMA),
            "plan": [{"op": "write", "payload": {"table": ours, "mode": "append"}}],
        }
    )
    env.df(SALES[:2], SALES_SCHEMA).write.mode("append").saveAsTable(theirs)
    ignored = env.client.execute(
        {"input": _inline(SALES, SALES_SCHEMA), "plan": [{"op": "write", "payload": {"table": ours, "mode": "ignore"}}]}
    )
    env.sales().write.mode("ignore").saveAsTable(theirs)
    assert ignored.column("rows").to_pylist() == [None]  # Spark did not run the query at all
    same(env.client.execute({"input": {"table": ours}, "plan": []}), env.spark.table(theirs))
    env.client.execute(
        {
            "input": _inline(SALES[3:], SALES_SCHEMA),
            "plan": [{"op": "write", "payload": {"table": ours, "mode": "overwrite", "format": "parquet"}}],
        }
    )
    env.df(SALES[3:], SALES_SCHEMA).write.mode("overwrite").format("parquet").saveAsTable(theirs)
    same(env.client.execute({"input": {"table": ours}, "plan": []}), env.spark.table(theirs))
    with pytest.raises(connect_plan.ServerError):
        env.client.execute(
            {"input": _inline(SALES, SALES_SCHEMA), "plan": [{"op": "write", "payload": {"table": ours}}]}
        )


def test_temp_views_share_results_between_plans(env: Env) -> None:
    view = f"issue4_view_{uuid.uuid4().hex[:8]}"
    report = env.client.execute(
        {
            "input": {"files": env.sales_parquet, "format": "parquet"},
            "plan": [
                {
                    "op": "groupBy",
                    "payload": {"group_by": ["store"], "aggs": [{"agg": "sum", "column": "amount", "alias": "total"}]},
                },
                {"op": "createOrReplaceTempView", "payload": {"name": view}},
            ],
        }
    )
    assert report.to_pylist()[0]["operation"] == "createOrReplaceTempView" and report.to_pylist()[0]["rows"] is None
    ours = env.client.execute(
        {
            "input": _inline(STORES, STORES_SCHEMA),
            "plan": [{"op": "join", "payload": {"other": {"table": view}, "on": ["store"]}}],
        }
    )
    totals = env.spark.read.parquet(env.sales_parquet).groupBy("store").agg(F.sum("amount").alias("total"))
    same(ours, env.stores().join(totals, ["store"]))
    with pytest.raises(connect_plan.ServerError):  # createTempView refuses an existing name
        env.client.execute({"input": {"range": 1}, "plan": [{"op": "createTempView", "payload": view}]})
    env.client.execute({"input": {"range": 3}, "plan": [{"op": "createOrReplaceTempView", "payload": view}]})
    same(env.client.execute({"input": {"table": view}, "plan": []}), env.spark.range(3))
    gview = f"issue4_gview_{uuid.uuid4().hex[:8]}"
    env.client.execute(
        {"input": {"range": 4}, "plan": [{"op": "createOrReplaceGlobalTempView", "payload": {"name": gview}}]}
    )
    same(env.client.execute({"input": {"table": f"global_temp.{gview}"}, "plan": []}), env.spark.range(4))
    with pytest.raises(connect_plan.ServerError):
        env.client.execute({"input": {"range": 1}, "plan": [{"op": "createGlobalTempView", "payload": gview}]})
    env.spark.catalog.dropGlobalTempView(gview)
    env.client.execute({"input": {"range": 2}, "plan": [{"op": "createGlobalTempView", "payload": gview}]})
    same(env.client.execute({"input": {"table": f"global_temp.{gview}"}, "plan": []}), env.spark.range(2))
    env.spark.catalog.dropGlobalTempView(gview)


# ------------------------------------------------------------------ conf


def test_document_conf_applies_for_one_execution_and_is_restored(env: Env) -> None:
    before = env.client.get_conf("spark.sql.session.timeZone", "spark.sql.ansi.enabled")
    doc = {
        "conf": {"spark.sql.session.timeZone": "America/New_York", "spark.sql.ansi.enabled": False},
        "input": _inline([["2024-03-01T12:00:00"]], [{"name": "ts", "type": "timestamp"}]),
        "plan": [
            {
                "op": "select",
                "payload": [
                    {"name": "h", "expr": {"fn": "cast", "args": ["ts", "string"]}},
                    {"name": "q", "expr": {"op": "/", "left": 1, "right": 0}},
                ],
            }
        ],
    }
    ours = env.client.execute(doc)
    assert env.client.get_conf("spark.sql.session.timeZone", "spark.sql.ansi.enabled") == before
    env.spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    env.spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        theirs = env.df([["2024-03-01T12:00:00"]], [{"name": "ts", "type": "timestamp"}]).select(
            F.col("ts").cast("string").alias("h"), (F.lit(1) / F.lit(0)).alias("q")
        )
        same(ours, theirs)
    finally:
        env.spark.conf.set("spark.sql.session.timeZone", "UTC")
        env.spark.conf.unset("spark.sql.ansi.enabled")
    assert ours.to_pylist() == [{"h": "2024-03-01 07:00:00", "q": None}]
    with pytest.raises(connect_plan.ServerError):  # ANSI (the default) again: 1/0 fails
        env.client.execute({**doc, "conf": {}})


def test_unset_keys_are_unset_again(env: Env) -> None:
    # a registered key reads as its default whether set or not: only the session's list of
    # explicitly set keys shows that it was unset rather than pinned to the default
    key = "spark.sql.files.maxRecordsPerFile"
    assert key not in env.client.get_conf()
    env.client.execute({"conf": {key: 5}, "input": {"range": 1}, "plan": []})
    assert key not in env.client.get_conf()
    assert env.client.get_conf(key) == {key: "0"}


def test_document_conf_holds_for_stream_explain_and_schema(env: Env, spark_url: str) -> None:
    # the time zone changes what casting a timestamp to string gives
    doc = {
        "conf": {"spark.sql.session.timeZone": "America/New_York"},
        "input": _inline([["2024-03-01T12:00:00"]], [{"name": "ts", "type": "timestamp"}]),
        "plan": [{"op": "select", "payload": [{"name": "h", "expr": {"fn": "cast", "args": ["ts", "string"]}}]}],
    }
    before = env.client.get_conf()
    want = [{"h": "2024-03-01 07:00:00"}]
    assert env.client.stream(doc).read_all().to_pylist() == want
    assert env.client.get_conf() == before
    assert connect_plan.execute_plan(None, None, doc, spark_url, stream=True).read_all().to_pylist() == want
    # ANSI off only in the document: '1' + 1 is then double (string promotion), else bigint
    typed = {
        "conf": {"spark.sql.ansi.enabled": False},
        "input": {"range": 1},
        "plan": [{"op": "select", "payload": [{"name": "s", "expr": {"op": "+", "left": {"lit": "1"}, "right": 1}}]}],
    }
    assert env.client.schema(typed).field("s").type == pa.float64()
    assert env.client.schema({**typed, "conf": {}}).field("s").type == pa.int64()
    assert "2.0 AS s#" in env.client.explain(typed, mode="simple")
    assert "2.0 AS s#" not in env.client.explain({**typed, "conf": {}}, mode="simple")
    assert env.client.get_conf() == before


def test_case_sensitivity_default_document_and_connect_conf(env: Env, spark_url: str) -> None:
    plan = [{"op": "select", "payload": ["ID"]}, {"op": "join", "payload": {"other": {"range": 3}, "on": ["id"]}}]
    assert env.client.execute({"input": {"range": 2}, "plan": plan}).column_names == ["ID"]
    with pytest.raises((connect_plan.ServerError, connect_plan.PlanError)):
        env.client.execute({"input": {"range": 2}, "conf": {"spark.sql.caseSensitive": True}, "plan": plan})
    assert env.client.execute({"input": {"range": 2}, "plan": plan}).num_rows == 2  # restored
    with connect_plan.connect(spark_url, conf={"spark.sql.caseSensitive": "true"}) as strict:
        with pytest.raises((connect_plan.ServerError, connect_plan.PlanError)):
            strict.execute({"input": {"range": 2}, "plan": plan})
        assert (
            strict.execute({"input": {"range": 2}, "conf": {"spark.sql.caseSensitive": False}, "plan": plan}).num_rows
            == 2
        )


def _ops_of(doc: dict[str, Any]) -> set[str]:
    ops: set[str] = set()
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("op"), str) and "payload" in node:
                ops.add(node["op"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return ops


class _Names:
    """Stand-in Env for collecting the op names of the cases without a server."""

    sales_parquet = sales_csv = sales_json = sales_orc = sales_text = stores_table = "x"


OPS_USED = set().union(*(_ops_of(c.doc(_Names())) for c in CASES)) | {  # type: ignore[arg-type]
    "write",
    "createOrReplaceTempView",
    "createTempView",
    "createOrReplaceGlobalTempView",
    "createGlobalTempView",
}
