"""The team's Substrait corpus on Spark through connect_plan: every recorded plan of the suites
below (tests/data/substrait/<suite>/<producer>/<id>.json, recorded by
scripts/record_substrait_corpus.py from real producers) must give Spark SQL's answer to the suite's
SQL text on the same data (tests/substrait_corpus.difference), on the suite's server.

No producer runs here: the plans are recorded, the data is generated (pyarrow), Spark SQL is the
oracle. What connect_plan does not run right today is a strict xfail naming the cause (from
tests/data/substrait/<suite>/expected.json, written by ``scripts/substrait_corpus.py --expected``),
so each turns into a failure the day it starts passing; a plan that does not mean its SQL (a
producer's bug, tests/substrait_corpus.PRODUCER_BUGS, each with its proof) is a strict xfail of a
test of its own.

TPC-DS runs here only when asked (``SUITES`` below: its data and 224 plans take minutes); it and TPC-H
are measured by scripts/substrait_corpus.py (tests/data/substrait/CENSUS.md).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests import substrait_corpus as sc

pytestmark = [
    pytest.mark.slow,
    pytest.mark.spark_only(reason="the expected outcomes are measured on Apache Spark; Sail's are its own"),
]

#: the suites this module runs: ``features`` in the test suite; CONNECT_PLAN_CORPUS_SUITES=features,tpcds
#: adds TPC-DS (its data is made by DuckDB's dsdgen at run time; about 8 minutes more on 2 cores)
SUITES = tuple(s for s in os.environ.get("CONNECT_PLAN_CORPUS_SUITES", "features").split(",") if s)


def _expected(suite: str) -> dict[str, dict[str, dict[str, str]]]:
    path = sc.CORPUS / suite / "expected.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _cases(bugs: bool) -> list[Any]:
    out = []
    for suite in SUITES:
        corpus = sc.read_suite(suite)
        expected = _expected(suite)
        for producer, plans in corpus.plans.items():
            for qid in plans:
                bug = sc.PRODUCER_BUGS.get((suite, producer, qid))
                if bool(bug) != bugs:
                    continue
                marks = []
                if bug:
                    marks.append(pytest.mark.xfail(reason=f"producer bug: {bug}", strict=True))
                elif qid in expected.get(producer, {}):
                    e = expected[producer][qid]
                    marks.append(pytest.mark.xfail(reason=f"{e['outcome']}: {e['cause']}", strict=True))
                out.append(pytest.param(suite, producer, qid, marks=marks, id=f"{suite}-{producer}-{qid}"))
    return out


class Oracle:
    """Spark SQL's answers on a session of its own (the suite's settings, tests/substrait_corpus
    .SPARK_CONF, stay out of the shared ``spark`` fixture), and the tables connect_plan reads."""

    def __init__(self, spark_url: str, root: Any) -> None:
        from pyspark.sql import SparkSession

        self.session = SparkSession.builder.remote(spark_url).create()
        for k, v in sc.SPARK_CONF.items():
            self.session.conf.set(k, v)
        self.tables: dict[str, dict[str, Any]] = {}
        self.suites = {suite: sc.read_suite(suite) for suite in SUITES}
        self.answers: dict[tuple[str, str], Any] = {}
        self.root = root

    def sources(self, suite: str) -> dict[str, Any]:
        if suite not in self.tables:
            files = sc.suite_tables(suite, self.root / suite)
            for name, path in files.items():  # every suite's table names are its own
                self.session.read.parquet(path).createOrReplaceTempView(name)
            self.tables[suite] = sc.sources(files)
        return self.tables[suite]

    def answer(self, suite: str, sql: str) -> Any:
        self.sources(suite)
        if (suite, sql) not in self.answers:
            self.answers[(suite, sql)] = self.session.sql(sql).toArrow()
        return self.answers[(suite, sql)]


@pytest.fixture(scope="module")
def oracle(spark_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)  # PySpark logs every SQL error
    o = Oracle(spark_url, tmp_path_factory.mktemp("substrait-corpus"))
    try:
        yield o
    finally:
        o.session.stop()


def _check(suite: str, producer: str, qid: str, client: Any, oracle: Oracle) -> None:
    corpus = oracle.suites[suite]
    ours = client.execute(corpus.plans[producer][qid], tables=oracle.sources(suite))
    # the text's ORDER BY items that leave NULL placement to the engine get the plan's placement
    sql = sc.with_plan_null_order(corpus.sql(producer, qid), corpus.plans[producer][qid])
    diff = sc.difference(ours, oracle.answer(suite, sql), ordered=sc.is_ordered(sql))
    assert diff is None, diff


@pytest.mark.parametrize(("suite", "producer", "qid"), _cases(bugs=False))
def test_corpus_plan_gives_spark_sqls_answer(suite: str, producer: str, qid: str, client: Any, oracle: Oracle) -> None:
    _check(suite, producer, qid, client, oracle)


@pytest.mark.parametrize(("suite", "producer", "qid"), _cases(bugs=True))
def test_producer_bug_plan(suite: str, producer: str, qid: str, client: Any, oracle: Oracle) -> None:
    """A plan that does not mean its SQL cannot give Spark SQL's answer: a strict xfail each, so a
    plan wrongly listed as a producer's bug fails here."""
    _check(suite, producer, qid, client, oracle)


def test_every_query_has_its_comment_and_the_layout_holds() -> None:
    """Each features query says what it checks; every plan and error belongs to a query of its
    suite; every expected failure and every producer bug names a recorded plan."""
    for suite in SUITES:
        corpus = sc.read_suite(suite)
        assert corpus.queries, suite
        if suite == "features":
            assert len(corpus.queries) >= 150
            missing = [q for q, sql in corpus.queries.items() if not sc.query_comment(sql)]
            assert not missing, missing
        for producer, plans in corpus.plans.items():
            assert set(plans) <= set(corpus.queries), (producer, set(plans) - set(corpus.queries))
            assert not set(plans) & set(corpus.errors[producer]), producer
            assert set(plans) | set(corpus.errors[producer]) == set(corpus.queries), producer
        for producer, rows in _expected(suite).items():
            assert set(rows) <= set(corpus.plans.get(producer, {})), (producer, set(rows) - set(corpus.plans[producer]))
    for suite, producer, qid in sc.PRODUCER_BUGS:  # TPC-H is recorded elsewhere (the census reads it from there)
        if (sc.CORPUS / suite / producer).is_dir():
            assert qid in sc.read_suite(suite).plans[producer], (suite, producer, qid)
