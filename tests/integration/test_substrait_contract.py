"""The result contract on the real server (docs/substrait.md, "The result contract").

1. It never fires on a correct plan: every TPC-H plan DataFusion, DuckDB and Isthmus write (and
   DataFusion's feature plans) declares the column count and types Spark returns for its
   translation, up to the documented tolerances; and what Spark SQL returns for the query's own
   text (an oracle that owes nothing to connect_plan's translation).
2. It fires on each kind of mis-translation issue 31 names, re-introduced into the translated
   IR (a column dropped or added, measures shifted by one, columns reordered, an extra
   grouping-set id column, a measure of another type class), and on hand-made plans whose
   declarations Spark's answer contradicts: the same IR without the contract returns a table
   (the wrong one), so it is the check that refuses it.
3. The CLI reports it without a traceback, exit 5.

A set operation that loses its distinctness (UNION DISTINCT run as UNION ALL) returns the same
columns of the same types: no check of the result's shape can see it.
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from connect_plan import ir
from connect_plan.contract import arrow_class, check_schema, declared_class
from connect_plan.errors import ResultContractError
from connect_plan.formats.substrait import parse_substrait_plan
from tests import substrait_producers as sp
from tests.integration.test_substrait_features import CASES, T, U
from tests.support import processes as cliproc

pytest.importorskip("duckdb", reason="DuckDB makes the TPC-H data and query texts")

pytestmark = pytest.mark.slow

PRODUCERS = ("datafusion", "duckdb", "isthmus")


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> sp.Tpch:
    return sp.make_tpch(tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="module")
def plans(tpch: sp.Tpch) -> dict[str, dict[int, bytes | str] | None]:
    """Each producer's TPC-H plans (a str: the producer's error), None when it is not installed."""
    out: dict[str, dict[int, bytes | str] | None] = {}
    for name, make in (("datafusion", sp.datafusion_plans), ("duckdb", sp.duckdb_plans)):
        try:
            out[name] = make(tpch)
        except ImportError:
            out[name] = None
    jar = sp.isthmus_jar()
    out["isthmus"] = sp.isthmus_plans(tpch, jar) if jar else None
    return out


@pytest.fixture(scope="module")
def sql_schema(spark: Any, tpch: sp.Tpch) -> Any:
    """Spark SQL's own result schema for a TPC-H query's text."""
    for name, path in tpch.files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    return lambda q: spark.sql(tpch.queries[q]).limit(0).toArrow().schema


@pytest.fixture(scope="module")
def feature_tables(tmp_path_factory: pytest.TempPathFactory, spark: Any) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("contract-features")
    out = {}
    for name, table in (("t", T), ("u", U)):
        path = str(root / f"{name}.parquet")
        pq.write_table(table, path)
        out[name] = {"files": [path], "format": "parquet"}
        spark.read.parquet(path).createOrReplaceTempView(name)
    return out


def _spark_schema(client: Any, plan: ir.Plan) -> pa.Schema:
    """What Spark returns for the translated plan, as it sends it (no contract applied)."""
    return client.schema(dataclasses.replace(plan, contract=None))


def _unnamed(contract: ir.Contract) -> ir.Contract:
    return dataclasses.replace(contract, columns=tuple(dataclasses.replace(c, name=None) for c in contract.columns))


# ---------------------------------------------------------------- never a false alarm


@pytest.mark.parametrize("producer", PRODUCERS)
def test_every_tpch_plan_declares_what_spark_returns(
    producer: str, plans: dict[str, Any], tpch: sp.Tpch, client: Any, sql_schema: Any
) -> None:
    """All 22 queries of a producer (those it can plan): the check passes on Spark's schema of
    the translation, and on Spark SQL's own schema for the query text (names aside: Isthmus
    upper-cases them); DuckDB and Isthmus declare every column's type, so the types are checked."""
    produced = plans[producer]
    if produced is None:
        pytest.skip(f"{producer} is not installed")
    checked = 0
    undeclared = 0
    for q, plan in sorted(produced.items()):
        if isinstance(plan, str) and not plan.startswith("{"):
            continue  # the producer cannot plan it
        ir_plan = parse_substrait_plan(plan, tpch.tables())
        contract = ir_plan.contract
        assert contract is not None
        check_schema(contract, _spark_schema(client, ir_plan))
        check_schema(_unnamed(contract), sql_schema(q))
        checked += 1
        undeclared += sum(c.type is None for c in contract.columns)
    assert checked >= 15
    if producer != "datafusion":  # DataFusion 55 writes no output_type on its aggregate calls
        assert undeclared == 0


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_datafusion_feature_plan_declares_what_spark_returns(
    name: str, feature_tables: Any, client: Any, spark: Any
) -> None:
    datafusion = pytest.importorskip("datafusion")
    from datafusion.substrait import Serde

    context = datafusion.SessionContext()
    for table, src in feature_tables.items():
        context.register_parquet(table, src["files"][0])
    sql, spark_sql = CASES[name]
    try:
        ir_plan = parse_substrait_plan(Serde.serialize_to_plan(sql, context).encode(), feature_tables)
    except Exception as e:  # refused before the network (a producer bug the feature tests xfail)
        pytest.skip(f"not translated: {str(e)[:200]}")
    assert ir_plan.contract is not None
    check_schema(ir_plan.contract, _spark_schema(client, ir_plan))
    oracle = spark.sql(spark_sql or sql).schema
    assert len(oracle.fields) == len(ir_plan.contract.columns)


# ---------------------------------------------------------------- mis-translations refused

G = pa.table(
    {
        "k": pa.array([1, 2, 2, 3], pa.int64()),
        "s": ["a", "b", "b", None],
        "d": pa.array([Decimal("1.50"), Decimal("2.25"), None, Decimal("4.00")], pa.decimal128(15, 2)),
        "x": [0.5, 1.5, 2.5, 3.5],
    }
)

NULLABLE = "NULLABILITY_NULLABLE"


def _t(kind: str, nullable: bool = True, **params: Any) -> dict[str, Any]:
    return {kind: {"nullability": NULLABLE if nullable else "NULLABILITY_REQUIRED", **params}}


def _field(i: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


FUNCTIONS = ["count:", "sum:dec", "avg:fp64", "concat:str_str"]


def _measure(name: str, *args: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    return {
        "measure": {
            "functionReference": FUNCTIONS.index(name) + 1,
            "arguments": [{"value": a} for a in args],
            "outputType": out,
        }
    }


def _plan(rel: dict[str, Any], names: list[str]) -> dict[str, Any]:
    return {
        "extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions_aggregate.yaml"}],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": i + 1, "name": n}}
            for i, n in enumerate(FUNCTIONS)
        ],
        "relations": [{"root": {"input": rel, "names": names}}],
    }


READ_G = {
    "read": {
        "baseSchema": {
            "names": ["k", "s", "d", "x"],
            "struct": {
                "types": [_t("i64"), _t("string"), _t("decimal", precision=15, scale=2), _t("fp64")],
                "nullability": "NULLABILITY_REQUIRED",
            },
        },
        "namedTable": {"names": ["g"]},
    }
}

#: GROUPING SETS ((s), ()): s, count(*) (i64), sum(d) (decimal(38,2)), the set index (i32)
GROUPING_SETS = _plan(
    {
        "aggregate": {
            "input": READ_G,
            "groupingExpressions": [_field(1)],
            "groupings": [{"expressionReferences": [0]}, {}],
            "measures": [
                _measure("count:", out=_t("i64", False)),
                _measure("sum:dec", _field(2), out=_t("decimal", precision=38, scale=2)),
            ],
        }
    },
    ["s", "n", "total", "set"],
)


@pytest.fixture(scope="module")
def g_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("contract") / "g.parquet"
    pq.write_table(G, path)
    return {"g": {"files": [str(path)], "format": "parquet"}}


def _root_items(plan: ir.Plan) -> tuple[ir.SelectItem, ...]:
    root = plan.steps[-1]
    assert isinstance(root, ir.Select) and root.op == "root"
    return root.items


def _with_root(plan: ir.Plan, items: list[ir.SelectItem]) -> ir.Plan:
    """``plan`` whose root outputs ``items``: a mis-translation put back into the IR."""
    root = plan.steps[-1]
    return dataclasses.replace(plan, steps=(*plan.steps[:-1], dataclasses.replace(root, items=tuple(items))))


def _renamed(item: ir.SelectItem, alias: str) -> ir.SelectItem:
    return dataclasses.replace(item, alias=alias)


def _shifted(items: tuple[ir.SelectItem, ...]) -> list[ir.SelectItem]:
    """Each measure read from the next column (the index where the last one should be)."""
    s, n, total, index = items
    return [s, _renamed(total, "n"), _renamed(index, "total"), _renamed(n, "set")]


MISTRANSLATIONS = {
    "a column dropped": lambda items: list(items[:-1]),
    "a column added": lambda items: [*items, _renamed(items[1], "extra")],
    "measures shifted by one": _shifted,
    "columns reordered": lambda items: [_renamed(items[1], "s"), _renamed(items[0], "n"), *items[2:]],
    "an extra grouping-set id column": lambda items: [items[0], _renamed(items[3], "gid"), *items[1:]],
}

#: what each error says
REFUSALS = {
    "a column dropped": "the plan declares 4 columns ('s', 'n', 'total', 'set'), Spark returned 3",
    "a column added": "Spark returned 5",
    "measures shifted by one": "column 1 ('n') is declared i64, Spark returned decimal(25,2): a decimal where the plan "
    "declares an integer",
    "columns reordered": "column 0 ('s') is declared string?, Spark returned bigint: an integer where the plan "
    "declares a string",
    "an extra grouping-set id column": "they first differ at column 1 ('n', Spark 'gid')",
}


@pytest.mark.parametrize("kind", list(MISTRANSLATIONS))
def test_each_mistranslation_is_refused_by_the_check(kind: str, g_tables: Any, client: Any) -> None:
    good = parse_substrait_plan(GROUPING_SETS, g_tables)
    assert client.execute(good).num_rows == 4  # s in a, b, null; and the grand total
    bad = _with_root(good, MISTRANSLATIONS[kind](_root_items(good)))
    wrong = client.execute(dataclasses.replace(bad, contract=None))  # without the check: a table
    assert wrong.num_rows > 0
    with pytest.raises(ResultContractError) as e:
        client.execute(bad)
    assert REFUSALS[kind] in str(e.value)
    assert e.value.loc == "/relations/0/root" and set(e.value.codes) == {"result_contract"}
    with pytest.raises(ResultContractError):
        client.stream(bad)
    client.execute(good)  # the session is fine afterwards (the refused execution was released)


def _datafusion_order(producer: str) -> dict[str, Any]:
    """GROUPING SETS ((s), ()) as DataFusion 55 orders its output (s, grouping id, count, sum; no
    set index) under a projection that reads s, count, sum and the grouping id by those positions,
    with the measures' types declared (DataFusion itself declares none)."""
    aggregate = GROUPING_SETS["relations"][0]["root"]["input"]
    project = {
        "project": {
            "common": {"emit": {"outputMapping": [4, 5, 6, 7]}},
            "input": aggregate,
            "expressions": [_field(0), _field(2), _field(3), _field(1)],
        }
    }
    return {**_plan(project, ["s", "n", "total", "gid"]), "version": {"producer": producer, "minorNumber": 85}}


def test_datafusions_order_is_read_as_its_own_and_a_layout_read_wrong_is_refused(
    g_tables: Any, client: Any, spark: Any
) -> None:
    """DataFusion's plan gives Spark SQL's answer (its grouping id is grouping_id()). A converter
    that reads it in the spec's order while the plan declares DataFusion's (or the converse, a
    plan of another producer read in DataFusion's order) returns a table (the wrong one) without
    the check, and is refused with it: the measures' declared classes are not where Spark put them."""
    from connect_plan.formats.substrait import parse_substrait
    from connect_plan.formats.substrait.declared import result_contract

    spark.read.parquet(g_tables["g"]["files"][0]).createOrReplaceTempView("g")
    theirs = spark.sql(
        "select s, count(*) n, cast(sum(d) as decimal(38,2)) total, grouping_id() gid from g group by grouping sets ((s), ())"
    ).toArrow()
    ours = client.execute(_datafusion_order("datafusion"), tables=g_tables)
    assert sorted(map(str, ours.to_pylist())) == sorted(map(str, theirs.to_pylist()))
    for read_as, declared_as in (("acme", "datafusion"), ("datafusion", "acme")):
        converted = parse_substrait_plan(_datafusion_order(read_as), g_tables)
        contract = result_contract(parse_substrait(_datafusion_order(declared_as)))
        assert contract is not None
        bad = dataclasses.replace(converted, contract=contract)
        assert client.execute(dataclasses.replace(bad, contract=None)).num_rows == 4  # a table, the wrong one
        with pytest.raises(ResultContractError, match=r"column \d \('(n|total)'\) is declared"):
            client.execute(bad)


def test_a_measure_of_another_type_class_is_refused(g_tables: Any, client: Any) -> None:
    """count(*) translated as avg(d): a decimal where the plan declares an i64."""
    good = parse_substrait_plan(GROUPING_SETS, g_tables)
    group = next(s for s in good.steps if isinstance(s, ir.GroupBy))
    n, total = group.aggs[0], group.aggs[1]
    assert isinstance(total.expr, ir.Call)
    avg = dataclasses.replace(n, expr=ir.Call("avg", total.expr.args, n.loc))  # avg(d): a decimal
    wrong_measure = dataclasses.replace(group, aggs=(avg, *group.aggs[1:]))
    bad = dataclasses.replace(good, steps=tuple(wrong_measure if s is group else s for s in good.steps))
    with pytest.raises(ResultContractError, match=r"column 1 \('n'\) is declared i64, Spark returned decimal\(19,6\)"):
        client.execute(bad)


def test_plans_whose_declarations_spark_contradicts_are_refused(g_tables: Any, client: Any) -> None:
    """Hand-made plans: a string function declared to return an i64; an average of doubles
    declared an i64; a sum declared i16 that overflows it."""
    concat = {
        "project": {
            "common": {"emit": {"outputMapping": [4]}},
            "input": READ_G,
            "expressions": [
                {
                    "scalarFunction": {
                        "functionReference": 4,
                        "arguments": [{"value": _field(1)}, {"value": _field(1)}],
                        "outputType": _t("i64"),
                    }
                }
            ],
        }
    }
    with pytest.raises(ResultContractError, match=r"column 0 \('c'\) is declared i64\?, Spark returned string"):
        client.execute(_plan(concat, ["c"]), tables=g_tables)
    avg = {"aggregate": {"input": READ_G, "measures": [_measure("avg:fp64", _field(3), out=_t("i64"))]}}
    with pytest.raises(ResultContractError, match="a floating point where the plan declares an integer"):
        client.execute(_plan(avg, ["a"]), tables=g_tables)
    big = {
        "project": {
            "common": {"emit": {"outputMapping": [4]}},
            "input": READ_G,
            "expressions": [{"literal": {"i64": "100000"}}],
        }
    }
    small_sum = {"aggregate": {"input": big, "measures": [_measure("sum:dec", _field(0), out=_t("i16"))]}}
    with pytest.raises(ResultContractError, match=r"does not fit the declared type i16\? exactly"):
        client.execute(_plan(small_sum, ["total"]), tables=g_tables)


def test_the_declared_types_are_what_the_caller_gets(g_tables: Any, client: Any) -> None:
    """sum(d) declared decimal(38,2) (Spark's is decimal(25,2)), the set index i32: the table
    and Client.schema say the declared types."""
    table = client.execute(GROUPING_SETS, tables=g_tables)
    assert table.schema.field("total").type == pa.decimal128(38, 2)
    assert client.schema(GROUPING_SETS, tables=g_tables).field("total").type == pa.decimal128(38, 2)
    raw = _spark_schema(client, parse_substrait_plan(GROUPING_SETS, g_tables))
    assert raw.field("total").type == pa.decimal128(25, 2)
    assert sorted(table.column("total").to_pylist()) == [
        Decimal("1.50"),
        Decimal("2.25"),
        Decimal("4.00"),
        Decimal("7.75"),
    ]
    assert arrow_class(raw.field("total").type) == declared_class(ir_type("decimal(38,2)"))


def ir_type(text: str) -> Any:
    from connect_plan.types import parse_type

    return parse_type(text)


def test_the_cli_reports_a_refused_result_without_a_traceback(g_tables: Any, spark_url: str, tmp_path: Path) -> None:
    avg = {"aggregate": {"input": READ_G, "measures": [_measure("avg:fp64", _field(3), out=_t("i64"))]}}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(_plan(avg, ["a"])))
    out = cliproc.connect_plan("run", str(path), "--table", f"g={g_tables['g']['files'][0]}", remote=spark_url)
    cliproc.no_traceback(out)
    assert out.returncode == 5, out.stderr
    assert "the result differs from what the plan declares at /relations/0/root" in out.stderr
    assert "[result_contract]" in out.stderr and not out.stdout.strip()
