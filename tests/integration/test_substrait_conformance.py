"""The Substrait spec's own function test cases (substrait-extensions' ``testcases/``), every
scalar and aggregate case as a plan run through connect_plan on Spark
(tests/substrait_testcases.py): no wrong value, no Spark error, every outcome the recorded one
(tests/golden/substrait_conformance.json, written with docs/substrait.md's table by
scripts/gen_substrait_conformance.py). One run of every case (about 40 s alone)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import substrait_testcases as st

pytest.importorskip("substrait_antlr")
pytest.importorskip("substrait_extensions")

pytestmark = pytest.mark.slow

RECORD = Path(__file__).resolve().parents[1] / "golden" / "substrait_conformance.json"


#: the compiled evaluation users get by default: these answers are held to the spec's values,
#: not to another query on the same server, so they must not come from the interpreter the
#: session server is set to for speed (tests/conftest.py SESSION_SERVER_CONF)
COMPILED = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.codegen.factoryMode": "FALLBACK",
    "spark.sql.codegen.wholeStage": "true",
}


@pytest.fixture(scope="module")
def compiled(spark_url: str) -> Iterator[Any]:
    import connect_plan

    with connect_plan.connect(spark_url, conf=COMPILED) as c:
        assert c.get_conf("spark.sql.codegen.factoryMode") == {"spark.sql.codegen.factoryMode": "FALLBACK"}
        yield c


@pytest.fixture(scope="module")
def run(compiled: Any) -> tuple[list[st.Case], dict[str, st.Outcome]]:
    cases = st.read_cases()
    return cases, st.run_cases(compiled, cases)


def test_no_wrong_value_and_no_spark_error(run: Any) -> None:
    cases, outcomes = run
    bad = {c.id: (c.text, outcomes[c.id]) for c in cases if outcomes[c.id].outcome in ("wrong", "spark error")}
    assert not bad


def test_every_refusal_is_located_and_names_the_function_or_option(run: Any) -> None:
    cases, outcomes = run
    for c in cases:
        o = outcomes[c.id]
        if o.outcome != "refused":
            continue
        if o.detail.startswith("result contract: "):
            # Spark's result type differs from the one the call declares: located at its outputType
            assert "/outputType: " in o.detail, o.detail
            continue
        assert o.detail.startswith("/relations/0/root/input/"), o.detail
        named = [c.name, *(k for k, _ in c.options), "time of day"]
        assert any(n in o.detail for n in named), (c.text, o.detail)


def test_outcomes_are_the_recorded_ones(run: Any) -> None:
    """A changed outcome (a function added, a refusal lifted, a regression) fails here until it
    is recorded again with scripts/gen_substrait_conformance.py (which also rewrites the docs)."""
    cases, outcomes = run
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    now = {c.id: outcomes[c.id].outcome for c in cases}
    was = {k: v["outcome"] for k, v in recorded.items()}
    assert now == was


def test_the_issue_floor(run: Any) -> None:
    cases, outcomes = run
    right = sum(1 for c in cases if c.kind == "scalar" and outcomes[c.id].outcome == "right")
    assert right >= 790


def test_errata_are_held_to_the_right_value(run: Any) -> None:
    cases, outcomes = run
    errata = [c for c in cases if c.erratum]
    assert len(errata) == len(st.ERRATA)
    assert all(outcomes[c.id].outcome == "right" for c in errata)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("negate", "1234567890123456789012345678901234567", "-1234567890123456789012345678901234567"),
        ("abs", "-1234567890123456789012345678901234567", "1234567890123456789012345678901234567"),
        ("negate", "-12345678901234567890123456789012.345678", "12345678901234567890123456789012.345678"),
    ],
)
def test_decimal_negate_and_abs_keep_every_digit(name: str, value: str, expected: str, compiled: Any) -> None:
    """Spark 4.3's negative and abs of a decimal round it to 34 digits (-x of the 37-digit value
    above comes back ...901235000): connect_plan computes 0 - x, every digit kept."""
    import decimal

    digits = len(value.lstrip("-").replace(".", ""))
    scale = len(value.partition(".")[2])
    t = f"dec<{digits},{scale}>"
    case = st.Case("own", "", 0, "", "scalar", name, [st.Lit(decimal.Decimal(value), t)], [], st.Lit(None, t))
    table = compiled.execute(st.plan_of([case]))
    assert table.column(0).to_pylist() == [decimal.Decimal(expected)]


# ---------------------------------------------------------------- lambdas, against PySpark


def _pyspark_lambdas(spark: Any) -> Any:
    """The queries of tests/substrait_lambda_plans.py written with PySpark's own higher-order
    functions, over the same rows."""
    from pyspark.sql import functions as F

    from tests import substrait_lambda_plans as lp

    df = spark.createDataFrame(lp.ROWS, "k int, arr array<int>, nested array<array<int>>")
    return df.select(
        F.transform("arr", lambda x: x * 2).alias("c0"),
        F.filter("arr", lambda x: x > F.col("k")).alias("c1"),
        F.exists("arr", lambda x: x > 2).alias("c2"),
        F.forall("arr", lambda x: x > 0).alias("c3"),
        F.transform("nested", lambda x: F.filter(x, lambda y: F.exists(x, lambda z: z > y))).alias("c4"),
    )


def test_lambda_plans_give_pysparks_answer(client: Any, spark: Any) -> None:
    """transform, filter (reading a column of the row), any_match, all_match and three nested
    lambdas (each reading an enclosing one's parameter), with null lists, null elements and
    empty lists: connect_plan's Substrait plan and PySpark's F.transform / F.filter / F.exists /
    F.forall on the same server, the same names, types and rows."""
    from tests import substrait_lambda_plans as lp
    from tests.support.tables import assert_same

    ours = client.execute(lp.plan(lp.doubled(), lp.above_k(), lp.any_above(2), lp.all_above(0), lp.nested_three_deep()))
    theirs = _pyspark_lambdas(spark).toArrow()
    assert_same(ours, theirs, ordered=True)
    assert ours.column("c2").to_pylist() == [True, True, False, None, None]  # Kleene OR: [None] is NULL


def test_any_match_stays_kleene_when_exists_is_not(spark_url: str, spark: Any) -> None:
    """With spark.sql.legacy.followThreeValuedLogicInArrayExists off, Spark's exists answers false
    where no element matches and one is NULL; any_match (the spec's Kleene OR) still answers NULL:
    connect_plan writes it as not(forall(not p)), which no setting changes."""
    from pyspark.sql import functions as F

    import connect_plan
    from tests import substrait_lambda_plans as lp

    key = "spark.sql.legacy.followThreeValuedLogicInArrayExists"
    with connect_plan.connect(spark_url, conf={key: "false"}) as c:
        ours = c.execute(lp.plan(lp.any_above(7))).column(0).to_pylist()
    spark.conf.set(key, "false")
    try:
        df = spark.createDataFrame(lp.ROWS, "k int, arr array<int>, nested array<array<int>>")
        legacy = [r[0] for r in df.select(F.exists("arr", lambda x: x > 7)).collect()]
    finally:
        spark.conf.unset(key)
    # row 2 ([5, NULL, 0]) and row 5 ([NULL]): no element above 7, one NULL
    assert ours == [False, None, False, None, None]
    assert legacy == [False, False, False, None, False]
