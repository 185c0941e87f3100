"""Names with backticks, dots, quotes, spaces and SQL keywords stay inside their identifier:
every op that takes a name reaches exactly that column, and nothing is interpreted as SQL."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

HOSTILE = ["a`b", "x.y", "select", "'q'", '"dq"', "n; DROP TABLE t; --", "sp ace", "`wrapped`", "a.`b`.c", "ünï"]


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@pytest.mark.parametrize("name", HOSTILE)
def test_name_round_trips_through_every_op(diff: Any, name: str) -> None:
    schema = [("id", "int"), (name, "string")]
    rows = [[1, "v1"], [2, "v2"], [3, None]]
    plan = [
        {"op": "filter", "payload": {"op": "is_not_null", "arg": {"col": name}}},
        {"op": "withColumn", "payload": {"name": name + "!", "expr": {"fn": "upper", "args": [{"col": name}]}}},
        {"op": "withColumnRenamed", "payload": {"old": name + "!", "new": name + "?"}},
        {
            "op": "groupBy",
            "payload": {"group_by": [name, name + "?"], "aggs": [{"agg": "max", "column": "id", "alias": name + "#"}]},
        },
        {
            "op": "join",
            "payload": {
                "other_data": [["v1", 10]],
                "other_schema": [(name, "string"), ("k", "int")],
                "on": [name],
                "how": "left",
            },
        },
        {"op": "orderBy", "payload": {"columns": [name]}},
        {"op": "select", "payload": [name, name + "#", "k"]},
        {"op": "drop", "payload": {"columns": [name + "#"]}},
    ]

    def oracle(df: Any) -> Any:
        right = diff.df([["v1", 10]], [(name, "string"), ("k", "int")])
        c = F.col(quoted(name))
        return (
            df.filter(c.isNotNull())
            .withColumn(name + "!", F.upper(c))
            .withColumnRenamed(name + "!", name + "?")
            .groupBy(c, F.col(quoted(name + "?")))
            .agg(F.max("id").alias(name + "#"))
            .join(right, [name], "left")
            .orderBy(F.col(quoted(name)))
            .select(F.col(quoted(name)), F.col(quoted(name + "#")), "k")
            .drop(name + "#")
        )

    result = diff.check(rows, schema, plan, oracle, ordered=True)
    assert result.column_names == [name, "k"]
    assert result.column(name).to_pylist() == ["v1", "v2"]


def test_injection_text_is_only_ever_a_value(client: Any) -> None:
    """SQL-looking strings in literals and names come back verbatim."""
    evil = "x'); DROP TABLE users; --"
    out = client.execute(
        [
            {"op": "withColumn", "payload": {"name": evil, "expr": {"lit": evil}}},
            {"op": "filter", "payload": {"op": "eq", "left": {"col": evil}, "right": {"lit": evil}}},
        ],
        data=[[1]],
        schema=[("id", "int")],
    )
    assert out.to_pylist() == [{"id": 1, evil: evil}]


def test_hostile_names_of_a_table_whose_columns_are_not_known(client: Any, spark: Any, diff: Any) -> None:
    """A table's columns are the server's to tell, so references are not quoted from a known
    list: a name means what it means to PySpark (dots separate struct fields, backticks
    quote) and each part is re-quoted, so nothing can break out of its identifier. Text
    PySpark refuses (a stray backtick) is the literal name."""
    import uuid

    view = f"hostile_{uuid.uuid4().hex[:8]}"
    schema = [("id", "int"), *((n, "string") for n in HOSTILE), ("s", "struct<f:string,`g.h`:string>")]
    rows = [[1, *(f"v{i}" for i in range(len(HOSTILE))), {"f": "sf", "g.h": "sg"}], [2, *([None] * len(HOSTILE)), None]]
    diff.df(rows, schema).createOrReplaceGlobalTempView(view)
    try:
        source = {"table": f"global_temp.{view}"}
        theirs_df = spark.table(f"global_temp.{view}")
        for name in HOSTILE:
            # the plan writes the name as a PySpark user would (quoted where it has dots or
            # backticks); the stray-backtick name also works written as it is
            refs = [quoted(name) if ("." in name or "`" in name) else name]
            if name == "a`b":
                refs.append(name)
            for ref in refs:
                plan = [
                    {"op": "filter", "payload": {"op": "is_not_null", "arg": {"col": ref}}},
                    {
                        "op": "withColumn",
                        "payload": {"name": name + "!", "expr": {"fn": "upper", "args": [{"col": ref}]}},
                    },
                    {
                        "op": "select",
                        "payload": [
                            "id",
                            {"col": ref},
                            name + "!" if "." not in name and "`" not in name else quoted(name + "!"),
                        ],
                    },
                ]
                ours = client.execute({"input": source, "plan": plan})
                c = F.col(quoted(name))
                theirs = (
                    theirs_df.filter(c.isNotNull())
                    .withColumn(name + "!", F.upper(c))
                    .select("id", c, F.col(quoted(name + "!")))
                    .toArrow()
                )
                assert ours.equals(theirs), (name, ref, ours, theirs)
                assert ours.column_names == ["id", name, name + "!"]
        # dotted names stay paths: struct fields, a field named with a dot quoted in the path
        paths = client.execute(
            {
                "input": source,
                "plan": [
                    {"op": "select", "payload": ["id", "s.f", "s.`g.h`", {"name": "f2", "expr": {"col": "`s`.f"}}]}
                ],
            }
        )
        assert paths.equals(theirs_df.select("id", "s.f", "s.`g.h`", F.col("`s`.f").alias("f2")).toArrow())
    finally:
        spark.catalog.dropGlobalTempView(view)
