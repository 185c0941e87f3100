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
        {"op": "groupBy", "payload": {"group_by": [name, name + "?"], "aggs": [{"agg": "max", "column": "id", "alias": name + "#"}]}},
        {"op": "join", "payload": {"other_data": [["v1", 10]], "other_schema": [(name, "string"), ("k", "int")], "on": [name], "how": "left"}},
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
            .groupBy(c, F.col(quoted(name + "?"))).agg(F.max("id").alias(name + "#"))
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
        [{"op": "withColumn", "payload": {"name": evil, "expr": {"lit": evil}}},
         {"op": "filter", "payload": {"op": "eq", "left": {"col": evil}, "right": {"lit": evil}}}],
        data=[[1]], schema=[("id", "int")],
    )
    assert out.to_pylist() == [{"id": 1, evil: evil}]
