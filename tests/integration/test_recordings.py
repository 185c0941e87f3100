"""The recorded Spark Connect answers the unit tests replay (tests/support/transport.py) are what
the server sends: each is recorded again here and compared with the stored one by what it
means (the decoded table and how it was cut into batches and chunks, the error's class,
SQLSTATE, parameters and message, the version).

``CONNECT_PLAN_RECORD=1`` writes the fresh recordings to tests/golden/transport instead
(after a server upgrade, or for a new entry of ``fakes.RECORDINGS``).
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from tests.support import transport as fakes

pytestmark = pytest.mark.spark_only(reason="the recordings are Apache Spark's answers")

RECORD = bool(os.environ.get("CONNECT_PLAN_RECORD"))


def meaning(name: str, messages: list[Any]) -> Any:
    """What a recording says, without what changes from one run to the next (ids, timings)."""
    kind, _ = fakes.RECORDINGS[name]
    if kind == "execute":
        batches = [r.arrow_batch for r in messages if r.HasField("arrow_batch")]
        shape = [(b.row_count, b.num_chunks_in_batch > 1) for b in batches]
        return fakes.decode(messages), shape
    if kind == "version":
        return messages[0].spark_version.version
    if not fakes.is_error(messages):
        return messages[0].schema.schema
    error = fakes.replayed_error(messages)
    return (
        type(error).__name__,
        error.getCondition(),  # type: ignore[attr-defined]
        error.getSqlState(),  # type: ignore[attr-defined]
        error.getMessageParameters(),  # type: ignore[attr-defined]
        re.sub(r"#\d+", "#", error.getMessage()),  # type: ignore[attr-defined]  (expression ids vary)
    )


@pytest.mark.parametrize("name", sorted(fakes.RECORDINGS))
def test_the_recordings_are_what_the_server_sends(spark_url: str, name: str) -> None:
    fresh = fakes.record(spark_url, name)
    if RECORD:
        fakes.save(name, fresh)
    assert meaning(name, fresh) == meaning(name, fakes.load(name))


def test_the_recordings_have_what_the_unit_tests_need() -> None:
    """Enough batches to tamper with, chunks, an empty result, the errors' classes."""
    small = fakes.load("small")
    assert sum(r.HasField("arrow_batch") for r in small) >= 5
    chunked = [r.arrow_batch for r in fakes.load("chunked") if r.HasField("arrow_batch")]
    assert any(b.num_chunks_in_batch > 2 for b in chunked)
    assert fakes.decode(fakes.load("empty")).num_rows == 0
    assert meaning("unresolved", fakes.load("unresolved"))[1].startswith("UNRESOLVED_COLUMN")
    assert fakes.SECRET in str(meaning("secret_table", fakes.load("secret_table")))
