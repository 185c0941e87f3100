"""The differential harness: our plan vs. the same query built with PySpark's own
Connect DataFrame API, on the same server, compared as Arrow tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
import pytest

from tests.support.proxies import GrpcTlsProxy, proxy_in_front_of
from tests.support.tables import arrow_input, assert_same


class Differential:
    """``check(rows, schema, plan, oracle)`` runs the plan through connect_plan and
    ``oracle(df)`` through PySpark (``df`` built from the same Arrow input) and compares."""

    def __init__(self, client: Any, spark: Any) -> None:
        self.client = client
        self.spark = spark
        self.cases = 0

    def df(self, rows: Any, schema: Any) -> Any:
        # The oracle's input is the identical Arrow table in a LocalRelation, so both sides
        # start from the same Spark types (createDataFrame would re-infer some of them).
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.plan import LocalRelation

        return DataFrame(LocalRelation(arrow_input(rows, schema)), self.spark)

    def check(
        self, rows: Any, schema: Any, plan: Sequence[Any], oracle: Callable[[Any], Any], *, ordered: bool = False
    ) -> pa.Table:
        ours = self.client.execute(list(plan), data=rows, schema=schema)
        theirs = oracle(self.df(rows, schema)).toArrow()
        assert_same(ours, theirs, ordered=ordered)
        self.cases += 1
        return ours


@pytest.fixture(scope="session")
def diff(client: Any, spark: Any) -> Differential:
    return Differential(client, spark)


@pytest.fixture(scope="module")
def proxy(spark_url: str) -> Iterator[GrpcTlsProxy]:
    """A plaintext gRPC proxy in front of the test server that records every call."""
    yield from proxy_in_front_of(spark_url)


@pytest.fixture
def counted(proxy: GrpcTlsProxy) -> Iterator[Any]:
    """A client whose every RPC the proxy records."""
    import connect_plan

    with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}") as c:
        yield c
