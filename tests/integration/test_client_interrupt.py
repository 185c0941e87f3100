"""``Client.interrupt(tag)`` against the real server: a call tagged with ``tag=`` ends on Spark
at once when another thread interrupts it, also while Spark still computes its first batch
(the call raises Spark's OPERATION_CANCELED); the Interrupt names the operations it ended, and
Spark's GetStatus shows them cancelled."""

from __future__ import annotations

import threading
import time

import pytest

import connect_plan
from connect_plan.errors import ServerError
from tests.support.serving import wait_until

#: 4·10^10 pairs counted: tens of seconds before the one-row result's first batch, little memory
#: (and no more: see test_serve_load.NO_FIRST_BATCH)
NO_FIRST_BATCH = {
    "input": {
        "sql": "SELECT count(*) AS n FROM range(200000) a CROSS JOIN range(200000) b WHERE (a.id + b.id) % 7 = 3"
    },
    "plan": [],
}
RUNNING = {"OPERATION_STATE_RUNNING", "OPERATION_STATE_TERMINATING"}


def _states(client: connect_plan.Client) -> dict[str, str]:
    """Every operation of the client's session and its state (Spark's GetStatus)."""
    resp = client.internals.transport.operation_statuses()  # type: ignore[attr-defined]
    return {
        s.operation_id: s.DESCRIPTOR.fields_by_name["state"].enum_type.values_by_number[s.state].name
        for s in resp.operation_statuses
    }


@pytest.mark.parametrize("verb", ["execute", "stream"])
def test_interrupt_by_tag_ends_a_call_still_computing_its_first_batch(spark_url: str, verb: str) -> None:
    with connect_plan.Client(spark_url) as client:
        if client.server_version().startswith(("3.", "4.0", "4.1", "4.2")):
            pytest.skip("GetStatus (the check of Spark's side) is Spark 4.3's")
        outcome: list[BaseException] = []

        def run() -> None:
            try:
                getattr(client, verb)(NO_FIRST_BATCH, tag="long-count")
            except BaseException as exc:
                outcome.append(exc)

        caller = threading.Thread(target=run, daemon=True)
        caller.start()
        wait_until(lambda: set(_states(client).values()) & RUNNING, 60, "the execution to run on Spark")
        time.sleep(1.0)
        assert caller.is_alive(), "no first batch yet"
        assert client.interrupt("another-tag") == ()
        sent = time.monotonic()
        interrupted = client.interrupt("long-count")
        wait_until(lambda: not set(_states(client).values()) & RUNNING, 60, "the execution to end on Spark")
        ended = time.monotonic() - sent
        caller.join(30)
        assert not caller.is_alive()
        print(f"\n[interrupt by tag, {verb}] ended on Spark {ended:.2f} s after Client.interrupt")
        assert ended < 2.0, ended
        [operation] = interrupted
        assert _states(client)[operation] == "OPERATION_STATE_CANCELLED"
        [error] = outcome
        assert isinstance(error, ServerError) and error.error_class == "OPERATION_CANCELED", error
        assert client.interrupt("long-count") == ()  # nothing of it runs any more
        # the session serves on, the tag free again
        assert client.execute({"input": {"range": 3}, "plan": []}, tag="long-count").num_rows == 3


def test_interrupt_ends_only_the_executions_of_its_tag(spark_url: str) -> None:
    with connect_plan.Client(spark_url) as client:
        if client.server_version().startswith(("3.", "4.0", "4.1", "4.2")):
            pytest.skip("GetStatus (the check of Spark's side) is Spark 4.3's")
        outcomes: dict[str, BaseException] = {}

        def run(tag: str) -> None:
            try:
                client.execute(NO_FIRST_BATCH, tag=tag)
            except BaseException as exc:
                outcomes[tag] = exc

        callers = [threading.Thread(target=run, args=(tag,), daemon=True) for tag in ("mine", "theirs")]
        for caller in callers:
            caller.start()
        wait_until(lambda: len([s for s in _states(client).values() if s in RUNNING]) == 2, 60, "both to run on Spark")
        [mine] = client.interrupt("mine")
        wait_until(lambda: _states(client)[mine] not in RUNNING, 60, "the execution to end on Spark")
        states = _states(client)
        assert states[mine] == "OPERATION_STATE_CANCELLED"
        [theirs] = set(states) - {mine}
        assert states[theirs] == "OPERATION_STATE_RUNNING", states
        assert client.interrupt("theirs") == (theirs,)
        for caller in callers:
            caller.join(30)
        assert sorted(outcomes) == ["mine", "theirs"]
        assert all(getattr(e, "error_class", None) == "OPERATION_CANCELED" for e in outcomes.values()), outcomes
