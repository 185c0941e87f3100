"""No avoidable round trips (issue 5): every RPC a query makes, counted by a recording gRPC
proxy between connect_plan and the real server (``tests/netparts.GrpcTlsProxy`` in
plaintext). After a session's first query, a small query is one ``ExecutePlan`` and the
``ReleaseExecute`` of reattachable execution: no ``AnalyzePlan`` (schema, version) and no
``Config`` read. A plan document's ``conf`` makes only the ``Config`` calls it needs."""

from __future__ import annotations

from typing import Any

import pytest

import connect_plan
from tests.support.proxies import GrpcTlsProxy, settle

SERVICE = "/spark.connect.SparkConnectService/"
SCHEMA = [{"name": "id", "type": "bigint"}, {"name": "x", "type": "double"}, {"name": "s", "type": "string"}]
PLAN = [
    {"op": "filter", "payload": {"op": "gt", "left": {"col": "x"}, "right": {"lit": 1.0}}},
    {"op": "select", "payload": ["id", "s", "x"]},
    {"op": "orderBy", "payload": {"columns": ["x"], "ascending": [False]}},
    {"op": "limit", "payload": {"n": 2}},
]
#: a session setting no launcher sets (the suite's server sets spark.sql.shuffle.partitions
#: in its Spark conf, which every new session lists as set)
KEY = "spark.sql.files.maxRecordsPerFile"


def rows(seed: int) -> list[list[Any]]:
    return [[seed, 3.5, "a"], [seed + 1, 1.25, "b"], [seed + 2, 7.0, "c"]]


def calls_of(proxy: GrpcTlsProxy, c: Any, run: Any) -> list[str]:
    """The RPC method names ``run()`` made (after its releases have been sent)."""
    settle(c)
    before = len(proxy.calls)
    run()
    settle(c)
    return [m.removeprefix(SERVICE) for m, _ in proxy.calls[before:]]


def config_ops(proxy: GrpcTlsProxy, since: int) -> list[str]:
    """The operation of each Config request recorded since index ``since`` of ``proxy.requests``."""
    from pyspark.sql.connect import proto as pb

    return [
        pb.ConfigRequest.FromString(body).operation.WhichOneof("op_type")
        for m, body in proxy.requests[since:]
        if m == SERVICE + "Config"
    ]


def test_a_small_query_is_one_execute_plan_after_the_first(counted: Any, proxy: GrpcTlsProxy) -> None:
    first = calls_of(proxy, counted, lambda: counted.execute(PLAN, rows(0), SCHEMA))
    # the session's first plan with inline data reads the input cache settings (one Config)
    # and, on servers with chunked cached relations, the server version (one AnalyzePlan)
    assert first.count("ExecutePlan") == 1 and first.count("Config") <= 1 and first.count("AnalyzePlan") <= 1, first
    for k in range(1, 6):  # new data every time: nothing is skipped by hash
        expected = [[k + 2, "c", 7.0], [k, "a", 3.5]]
        got: list[Any] = []
        calls = calls_of(proxy, counted, lambda k=k, got=got: got.append(counted.execute(PLAN, rows(k), SCHEMA)))
        assert [list(r.values()) for r in got[0].to_pylist()] == expected
        assert calls == ["ExecutePlan", "ReleaseExecute"], calls
    streamed = calls_of(proxy, counted, lambda: counted.stream(PLAN, rows(9), SCHEMA).read_all())
    assert streamed == ["ExecutePlan", "ReleaseExecute"], streamed


def test_a_plan_documents_conf_makes_only_the_config_calls_it_needs(counted: Any, proxy: GrpcTlsProxy) -> None:
    counted.execute(PLAN, rows(0), SCHEMA)  # the session's first query
    assert KEY not in counted.get_conf(), (
        f"the server sets {KEY} for every session; this test needs a key it does not set"
    )
    doc = {"input": {"schema": SCHEMA, "rows": rows(1)}, "plan": PLAN, "conf": {KEY: "3"}}
    # the key is not set in the session: read what is set, set it, unset it after
    at = len(proxy.requests)
    calls = calls_of(proxy, counted, lambda: counted.execute(doc))
    # the ReleaseExecute goes from a thread pool: it may arrive after the restoring Config
    assert sorted(calls) == ["Config", "Config", "Config", "ExecutePlan", "ReleaseExecute"], calls
    assert config_ops(proxy, at) == ["get_all", "set", "unset"]
    assert counted.get_conf(KEY)[KEY] != "3"
    # set in the session to another value: read, set, set the old value back
    counted.set_conf({KEY: "5"})
    at = len(proxy.requests)
    calls = calls_of(proxy, counted, lambda: counted.execute(doc))
    assert config_ops(proxy, at) == ["get_all", "set", "set"] and calls.count("ExecutePlan") == 1, calls
    assert counted.get_conf(KEY)[KEY] == "5"
    # already set to the document's value: nothing to set or restore
    counted.set_conf({KEY: "3"})
    at = len(proxy.requests)
    calls = calls_of(proxy, counted, lambda: counted.execute(doc))
    assert config_ops(proxy, at) == ["get_all"] and sorted(calls) == ["Config", "ExecutePlan", "ReleaseExecute"], calls
    assert counted.get_conf(KEY)[KEY] == "3"


def waves_of(proxy: GrpcTlsProxy, c: Any, run: Any, hold: float = 0.3) -> list[list[str]]:
    """The RPCs ``run()`` made, grouped in round trips: each call is held ``hold`` seconds
    at the proxy, and a call that starts after every earlier call has ended starts a new
    round trip (calls in flight together share one). ReleaseExecute, sent in the
    background after the result was read, is left out."""
    import threading
    import time

    spans: list[tuple[float, float, str]] = []
    lock = threading.Lock()

    def held(method: str) -> None:
        start = time.monotonic()
        time.sleep(hold)
        with lock:
            spans.append((start, time.monotonic(), method.removeprefix(SERVICE)))

    settle(c)
    proxy.fault = held
    try:
        run()
        settle(c)
    finally:
        proxy.fault = None
    waves: list[list[str]] = []
    end = float("-inf")
    for start, stop, method in sorted(spans):
        if method == "ReleaseExecute":
            continue
        if start >= end:
            waves.append([])
        waves[-1].append(method)
        end = max(end, stop)
    return waves


def test_the_first_query_of_a_session_costs_one_round_trip_more_than_a_warm_one(proxy: GrpcTlsProxy) -> None:
    # the version probe and the input settings read go out together, then the plan
    with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}") as c:
        first = waves_of(proxy, c, lambda: c.execute(PLAN, rows(0), SCHEMA))
        warm = waves_of(proxy, c, lambda: c.execute(PLAN, rows(1), SCHEMA))
    assert [sorted(w) for w in first] == [["AnalyzePlan", "Config"], ["ExecutePlan"]], first
    assert warm == [["ExecutePlan"]], warm
    # a plan without inline data needs no settings: the probe, then the plan
    with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}") as c:
        doc = {"input": {"range": {"end": 5}}, "plan": [{"op": "limit", "payload": {"n": 2}}]}
        first = waves_of(proxy, c, lambda: c.execute(doc))
        assert first == [["AnalyzePlan"], ["ExecutePlan"]], first
        assert c.execute(doc).num_rows == 2


def test_asking_for_compressed_results_adds_no_round_trip(proxy: GrpcTlsProxy) -> None:
    with connect_plan.connect(f"sc://127.0.0.1:{proxy.port}", compression="zstd") as c:
        first = waves_of(proxy, c, lambda: c.execute(PLAN, rows(0), SCHEMA))
        warm = waves_of(proxy, c, lambda: c.execute(PLAN, rows(1), SCHEMA))
        assert c.get_conf("spark.sql.execution.arrow.compression.codec") == {
            "spark.sql.execution.arrow.compression.codec": "zstd"
        }
    assert [sorted(w) for w in first] == [["AnalyzePlan", "Config", "Config"], ["ExecutePlan"]], first
    assert warm == [["ExecutePlan"]], warm


def test_closing_a_client_right_after_a_query_releases_the_query_before_the_session(
    spark_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A query's ReleaseExecute goes in the background; closing the client at once (as the
    CLI does) must not send ReleaseSession first, or the server refuses the late release
    (INVALID_HANDLE.SESSION_CLOSED, logged by Spark as an error: 2 of 3 CLI runs before)."""
    import logging
    import re

    for k in range(5):
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="connect_plan"):
            with connect_plan.connect(spark_url) as c:
                c.execute(PLAN, rows(k), SCHEMA)
        lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("rpc ")]
        methods = [line.split()[1] for line in lines]
        # an RPC is logged when it ends. The release is asked for once the stream has ended (a
        # release sent on ResultComplete could reach the server first and end the stream
        # INTERNAL, seen in CI); it ended, and well, before ReleaseSession was sent, the last call
        assert methods[-3:] == ["ExecutePlan", "ReleaseExecute", "ReleaseSession"], lines
        assert methods.count("ReleaseExecute") == 1, lines
        assert all(re.match(r"rpc \w+ OK ", line) for line in lines), lines
