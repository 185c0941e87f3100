"""A call's operation tag (``execute(..., tag=)``, ``stream(..., tag=)``, ``interrupt(tag)``) is
checked as Spark checks it (a non-empty string without a comma) before anything is sent."""

from __future__ import annotations

import pytest

from connect_plan.client import Client
from tests.support.transport import CountingConnector

PLAN = {"input": {"range": 10}, "plan": []}


@pytest.mark.parametrize("tag", ["", "a,b", 7])
def test_a_bad_tag_is_refused_before_anything_is_sent(tag: object) -> None:
    connector = CountingConnector()
    client = Client._over(connector, "sc://127.0.0.1:1")
    for call in (
        lambda: client.stream(PLAN, tag=tag),  # type: ignore[arg-type]
        lambda: client.execute(PLAN, tag=tag),  # type: ignore[arg-type]
        lambda: client.interrupt(tag),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError, match="non-empty string without a comma"):
            call()
    assert connector.transport.calls == []
