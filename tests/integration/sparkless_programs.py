"""PySpark-API programs for the differential Sparkless suite (``test_sparkless.py``).

Each program is a function of ``(F, W, people, depts)``: the ``functions`` module, the
``Window`` class and two DataFrames, all from one library. The suite runs it once with
PySpark's Connect API and once with Sparkless, whose ``to_logical_plan`` output is then run
by connect_plan on the same server; the Arrow results must be identical.

Sparkless 3.31 writes a plain Python string operand as a column reference, so string
literals are written ``F.lit("IT")`` here (``OPAQUE``/``STRING_OPERANDS`` below are the
programs whose Sparkless plan connect_plan must refuse, with the error it must give). It
also drops the alias of a computed select item, so computed columns are named with
``withColumn``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PEOPLE_SCHEMA = [
    ("id", "bigint"),
    ("name", "string"),
    ("age", "bigint"),
    ("dept", "string"),
    ("salary", "double"),
    ("active", "boolean"),
]
PEOPLE = [
    (1, "Alice", 34, "IT", 5200.0, True),
    (2, "Bob", 45, "HR", 4100.5, False),
    (3, "Carol", 29, "IT", 6100.0, True),
    (4, "Dan", None, "Sales", 3900.0, True),
    (5, "Eve", 52, "HR", None, None),
    (6, "Frank", 38, None, 4500.0, False),
    (7, "Grace", 29, "Sales", 4800.0, True),
]
DEPTS_SCHEMA = [("dept", "string"), ("floor", "bigint")]
DEPTS = [("IT", 3), ("HR", 1), ("Ops", 2)]

Program = Callable[[Any, Any, Any, Any], Any]


@dataclass(frozen=True)
class Refused:
    """A program whose Sparkless plan connect_plan must refuse before any network call."""

    id: str
    program: Program
    code: str
    loc: str


@dataclass(frozen=True)
class Case:
    id: str
    program: Program
    ordered: bool = False


def _cases(**programs: Program) -> list[Case]:
    return [Case(k, v) for k, v in programs.items()]


def _ordered(**programs: Program) -> list[Case]:
    return [Case(k, v, ordered=True) for k, v in programs.items()]


PROGRAMS: list[Case] = [
    # ---- filters: every comparison, logic, null tests, like/rlike
    *_cases(
        filter_gt=lambda F, W, df, d: df.filter(F.col("age") > 30),
        filter_ge=lambda F, W, df, d: df.filter(F.col("age") >= 34),
        filter_lt=lambda F, W, df, d: df.filter(F.col("age") < 34),
        filter_le=lambda F, W, df, d: df.filter(F.col("age") <= 34),
        filter_eq_int=lambda F, W, df, d: df.filter(F.col("age") == 29),
        filter_ne_int=lambda F, W, df, d: df.filter(F.col("age") != 29),
        filter_eq_lit_string=lambda F, W, df, d: df.filter(F.col("dept") == F.lit("IT")),
        filter_ne_lit_string=lambda F, W, df, d: df.filter(F.col("dept") != F.lit("IT")),
        filter_and=lambda F, W, df, d: df.filter((F.col("age") > 30) & (F.col("salary") > 4500)),
        filter_or=lambda F, W, df, d: df.filter((F.col("age") < 30) | (F.col("salary") > 5000)),
        filter_not=lambda F, W, df, d: df.filter(~(F.col("age") > 30)),
        filter_nested_logic=lambda F, W, df, d: df.filter(
            ((F.col("age") > 30) & (F.col("salary") < 5000)) | ~(F.col("active") == True)  # noqa: E712
        ),
        filter_isnull=lambda F, W, df, d: df.filter(F.col("salary").isNull()),
        filter_isnotnull=lambda F, W, df, d: df.filter(F.col("age").isNotNull()),
        filter_like=lambda F, W, df, d: df.filter(F.col("name").like(F.lit("%a%"))),
        filter_rlike=lambda F, W, df, d: df.filter(F.col("name").rlike(F.lit("^[A-D]"))),
        filter_eq_null_safe=lambda F, W, df, d: df.filter(F.col("dept").eqNullSafe(F.lit("HR"))),
        filter_eq_null_safe_columns=lambda F, W, df, d: df.filter(F.col("age").eqNullSafe(F.col("id") * 10)),
        filter_boolean_column=lambda F, W, df, d: df.filter(F.col("active")),
        filter_column_vs_column=lambda F, W, df, d: df.filter(F.col("age") > F.col("id") * 8),
        filter_arithmetic=lambda F, W, df, d: df.filter((F.col("salary") / 100) % 7 < 3),
        filter_twice=lambda F, W, df, d: df.filter(F.col("age") > 25).filter(F.col("salary") > 4000),
        where_alias=lambda F, W, df, d: df.where(F.col("age") > 30),
    ),
    # ---- projections
    *_cases(
        select_names=lambda F, W, df, d: df.select("name", "age"),
        select_columns=lambda F, W, df, d: df.select(F.col("name"), F.col("salary")),
        select_star=lambda F, W, df, d: df.select("*"),
        filter_then_select=lambda F, W, df, d: df.filter(F.col("age") > 26).select("name", "age"),
        select_then_filter=lambda F, W, df, d: df.select("name", "age").filter(F.col("age") > 30),
    ),
    # ---- withColumn: arithmetic, casts, functions, conditions
    *_cases(
        with_add=lambda F, W, df, d: df.withColumn("next", F.col("age") + 1),
        with_sub=lambda F, W, df, d: df.withColumn("x", F.col("salary") - F.col("age")),
        with_mul=lambda F, W, df, d: df.withColumn("x", F.col("salary") * 1.1),
        with_div=lambda F, W, df, d: df.withColumn("x", F.col("salary") / F.col("age")),
        with_mod=lambda F, W, df, d: df.withColumn("x", F.col("age") % 7),
        with_pow=lambda F, W, df, d: df.withColumn("x", F.col("age") ** 2),
        with_neg=lambda F, W, df, d: df.withColumn("x", -F.col("age")),
        with_nested_arith=lambda F, W, df, d: df.withColumn("x", (F.col("age") + F.col("id")) * 2 - 1),
        with_literal=lambda F, W, df, d: df.withColumn("one", F.lit(1)),
        with_string_literal=lambda F, W, df, d: df.withColumn("tag", F.lit("x")),
        with_replace=lambda F, W, df, d: df.withColumn("age", F.col("age") * 2),
        with_comparison=lambda F, W, df, d: df.withColumn("old", F.col("age") > 35),
        with_isnull=lambda F, W, df, d: df.withColumn("no_salary", F.col("salary").isNull()),
        cast_string=lambda F, W, df, d: df.withColumn("s", F.col("age").cast("string")),
        cast_double=lambda F, W, df, d: df.withColumn("s", F.col("age").cast("double")),
        cast_int=lambda F, W, df, d: df.withColumn("s", F.col("salary").cast("int")),
        upper=lambda F, W, df, d: df.withColumn("u", F.upper(F.col("name"))),
        lower=lambda F, W, df, d: df.withColumn("u", F.lower(F.col("name"))),
        length=lambda F, W, df, d: df.withColumn("n", F.length(F.col("name"))),
        trim=lambda F, W, df, d: df.withColumn("t", F.trim(F.col("name"))),
        abs_=lambda F, W, df, d: df.withColumn("a", F.abs(F.col("age") - 40)),
        sqrt=lambda F, W, df, d: df.withColumn("r", F.sqrt(F.col("salary"))),
        round_=lambda F, W, df, d: df.withColumn("r", F.round(F.col("salary") / 3, 1)),
        with_two=lambda F, W, df, d: df.withColumn("a", F.col("age") + 1).withColumn("b", F.col("a") * 2),
    ),
    # ---- renames, drops, distinct, limits
    *_cases(
        rename=lambda F, W, df, d: df.withColumnRenamed("age", "years"),
        rename_then_filter=lambda F, W, df, d: df.withColumnRenamed("age", "years").filter(F.col("years") > 30),
        drop_one=lambda F, W, df, d: df.drop("salary"),
        drop_two=lambda F, W, df, d: df.drop("salary", "active"),
        distinct=lambda F, W, df, d: df.select("dept").distinct(),
        distinct_two=lambda F, W, df, d: df.select("dept", "active").distinct(),
        drop_then_distinct=lambda F, W, df, d: df.drop("id", "name", "salary", "age").distinct(),
    ),
    # ---- sorts, with limits
    *_ordered(
        order_name=lambda F, W, df, d: df.orderBy("name"),
        order_desc=lambda F, W, df, d: df.orderBy(F.col("salary").desc()),
        order_asc=lambda F, W, df, d: df.orderBy(F.col("salary").asc(), F.col("id").asc()),
        order_desc_nulls_last=lambda F, W, df, d: df.orderBy(F.col("salary").desc_nulls_last()),
        order_desc_nulls_first=lambda F, W, df, d: df.orderBy(F.col("salary").desc_nulls_first()),
        order_asc_nulls_last=lambda F, W, df, d: df.orderBy(F.col("age").asc_nulls_last(), F.col("id").desc()),
        order_asc_nulls_first=lambda F, W, df, d: df.orderBy(F.col("age").asc_nulls_first(), "id"),
        order_ascending_flag=lambda F, W, df, d: df.orderBy("age", "id", ascending=False),
        order_limit=lambda F, W, df, d: df.orderBy(F.col("id").desc()).limit(3),
        sort_expression=lambda F, W, df, d: df.orderBy((F.col("id") % 3).asc(), F.col("id").desc()),
        filter_order_limit=lambda F, W, df, d: df.filter(F.col("salary") > 4000).orderBy("salary").limit(2),
    ),
    # ---- aggregates
    *_cases(
        group_sum=lambda F, W, df, d: df.groupBy("dept").agg(F.sum("salary").alias("total")),
        group_many=lambda F, W, df, d: df.groupBy("dept").agg(
            F.count("*").alias("n"), F.avg("age").alias("avg_age"), F.max("salary").alias("top")
        ),
        # not count("age"): Sparkless 3.31 evaluates the aggregate eagerly and counts nulls
        group_min_count=lambda F, W, df, d: df.groupBy("active").agg(F.min("age").alias("m"), F.count("*").alias("c")),
        group_two_keys=lambda F, W, df, d: df.groupBy("dept", "active").agg(F.sum("age").alias("s")),
        group_dict=lambda F, W, df, d: df.groupBy("dept").agg({"salary": "max"}),
        filter_then_group=lambda F, W, df, d: (
            df.filter(F.col("age") > 30).groupBy("dept").agg(F.sum("salary").alias("t"))
        ),
        group_then_filter=lambda F, W, df, d: df.groupBy("dept").agg(F.count("*").alias("n")).filter(F.col("n") > 1),
    ),
    # ---- windows
    *_cases(
        window_row_number=lambda F, W, df, d: df.withColumn(
            "rn", F.row_number().over(W.partitionBy("dept").orderBy(F.col("salary").desc()))
        ),
        window_rank=lambda F, W, df, d: df.withColumn("r", F.rank().over(W.partitionBy("dept").orderBy("age"))),
        window_dense_rank=lambda F, W, df, d: df.withColumn(
            "r", F.dense_rank().over(W.partitionBy("active").orderBy("age"))
        ),
        window_sum=lambda F, W, df, d: df.withColumn("t", F.sum("salary").over(W.partitionBy("dept"))),
        window_max=lambda F, W, df, d: df.withColumn("t", F.max("age").over(W.partitionBy("dept"))),
    ),
    # ---- joins and unions
    *_cases(
        join_inner=lambda F, W, df, d: df.join(d, on="dept", how="inner"),
        join_left=lambda F, W, df, d: df.join(d, on="dept", how="left"),
        join_right=lambda F, W, df, d: df.join(d, on="dept", how="right"),
        join_outer=lambda F, W, df, d: df.join(d, on="dept", how="outer"),
        join_full=lambda F, W, df, d: df.join(d, on="dept", how="full"),
        join_left_semi=lambda F, W, df, d: df.join(d, on="dept", how="left_semi"),
        join_left_anti=lambda F, W, df, d: df.join(d, on="dept", how="left_anti"),
        join_list_on=lambda F, W, df, d: df.join(d, on=["dept"], how="inner"),
        join_then_filter=lambda F, W, df, d: df.join(d, on="dept").filter(F.col("floor") > 1),
        union_self=lambda F, W, df, d: df.union(df),
        union_then_distinct=lambda F, W, df, d: df.select("dept").union(df.select("dept")).distinct(),
    ),
]

#: programs Sparkless 3.31 cannot serialize (it writes {"type": "opaque", "repr": ...})
OPAQUE: list[Refused] = [
    Refused(
        "when_otherwise",
        lambda F, W, df, d: df.withColumn("w", F.when(F.col("age") > 30, F.lit(1)).otherwise(F.lit(0))),
        "opaque_expression",
        "/plan/0/payload/expression",
    ),
    Refused(
        "concat",
        lambda F, W, df, d: df.withColumn("c", F.concat(F.col("name"), F.col("dept"))),
        "opaque_expression",
        "/plan/0/payload/expression",
    ),
    Refused(
        "isin",
        lambda F, W, df, d: df.filter(F.col("age").isin(29, 45)),
        "opaque_expression",
        "/plan/0/payload/condition",
    ),
    Refused(
        "between",
        lambda F, W, df, d: df.filter(F.col("age").between(30, 40)),
        "opaque_expression",
        "/plan/0/payload/condition",
    ),
]

#: programs whose Sparkless 3.31 plan names a column that does not exist: a string operand
#: written as a column reference is never read as a literal
STRING_OPERANDS: list[Refused] = [
    Refused(
        "string_operand_eq",
        lambda F, W, df, d: df.filter(F.col("dept") == "IT"),
        "unknown_column",
        "/plan/0/payload/condition/right/name",
    ),
    Refused(
        "string_operand_like",
        lambda F, W, df, d: df.filter(F.col("name").like("A%")),
        "unknown_column",
        "/plan/0/payload/condition/right/name",
    ),
]
