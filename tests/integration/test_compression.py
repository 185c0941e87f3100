"""Compressed Arrow results (issue 17): connect_plan asks Spark (4.1+) for zstd-compressed
result batches (``compression=``; ``auto`` for a server that is not on this machine) and
decodes them as they stream. Proven on the wire: the bytes that reach the client through a
counting TCP proxy (benchmarks/netproxy.py), and the same values as uncompressed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

import connect_plan
from benchmarks.netproxy import LinkProxy
from connect_plan.client.session import COMPRESSION_KEY, check_compression
from connect_plan.versions import parse_version

#: 200,000 rows of repetitive values: zstd makes them several times smaller
DOC = {
    "input": {"range": {"end": 200_000}},
    "plan": [
        {"op": "withColumn", "payload": {"name": "k", "expr": {"fn": "%", "args": [{"col": "id"}, {"lit": 7}]}}},
        {"op": "withColumn", "payload": {"name": "s", "expr": {"lit": "constant text, again and again"}}},
    ],
}


@pytest.fixture(scope="module")
def link(spark_url: str) -> Iterator[LinkProxy]:
    if not spark_url.startswith("sc://"):
        pytest.skip("needs a network Spark Connect server")
    target = urlparse("http" + spark_url[2:].split("/;")[0])
    with LinkProxy(target.hostname or "127.0.0.1", target.port or 15002) as p:
        yield p


def fetch(link: LinkProxy, compression: str, how: str = "execute") -> tuple[Any, int]:
    """The result of DOC and the bytes that came down the link for it."""
    with connect_plan.connect(link.url, compression=compression) as c:
        version = parse_version(c.server_version())
        if version is not None and version < (4, 1):
            pytest.skip("compressed Arrow results need Spark 4.1")
        c.execute({"input": {"range": {"end": 1}}, "plan": []})  # the session's first calls
        before = link.stats.down
        if how == "stream":
            table = c.stream(DOC).read_all()
        else:
            table = c.execute(DOC)
        return table, link.stats.down - before


def test_zstd_results_are_smaller_on_the_wire_and_decode_to_the_same_values(link: LinkProxy) -> None:
    plain, plain_bytes = fetch(link, "none")
    packed, packed_bytes = fetch(link, "zstd")
    streamed, streamed_bytes = fetch(link, "zstd", "stream")
    assert plain.num_rows == packed.num_rows == streamed.num_rows == 200_000
    # the rows of a multi-partition range may come in another order from one run to the next
    plain, packed, streamed = (t.sort_by("id") for t in (plain, packed, streamed))
    assert packed.equals(plain) and streamed.equals(plain)
    assert packed_bytes < plain_bytes / 3, (packed_bytes, plain_bytes)
    assert streamed_bytes < plain_bytes / 3, (streamed_bytes, plain_bytes)


def test_auto_compresses_only_away_from_this_machine() -> None:
    assert check_compression("auto", "sc://127.0.0.1:15002") is None
    assert check_compression("auto", "sc://localhost:15002/;token=x") is None
    assert check_compression("auto", "sc://[::1]:15002") is None
    assert check_compression("auto", "sc://spark.example.com:443/;use_ssl=true") == "zstd"
    assert check_compression("zstd", "sc://127.0.0.1:15002") == "zstd"
    assert check_compression("none", "sc://spark.example.com:443") is None
    with pytest.raises(ValueError, match="lz4"):
        check_compression("lz4", "sc://spark.example.com:443")


def test_a_codec_the_user_chose_wins(link: LinkProxy) -> None:
    with connect_plan.connect(link.url, compression="zstd", conf={COMPRESSION_KEY: "none"}) as c:
        c.execute({"input": {"range": {"end": 1}}, "plan": []})
        assert c.get_conf(COMPRESSION_KEY)[COMPRESSION_KEY] == "none"
    with connect_plan.connect(link.url, compression="zstd") as c:
        doc = {**DOC, "conf": {COMPRESSION_KEY: "none"}}
        before = link.stats.down
        assert c.execute(doc).num_rows == 200_000
        assert link.stats.down - before > 3_000_000  # uncompressed, as the plan asked
        assert c.get_conf(COMPRESSION_KEY)[COMPRESSION_KEY] != "zstd"
