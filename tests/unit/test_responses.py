"""``responses.from_wire``: a serialized ExecutePlanResponse read with its Arrow bytes as a view
of the received bytes gives what protobuf's own parse gives (the message, its Arrow bytes), for
every shape of response, and protobuf decides wherever the one field is not plainly there."""

from __future__ import annotations

import pytest
from google.protobuf.message import DecodeError

from connect_plan.responses import Received, from_wire, received
from connect_plan.spark_proto import pb


def _same(raw: bytes) -> Received:
    """``from_wire(raw)`` against protobuf's parse of ``raw``: equal messages once the Arrow
    bytes are put back, equal Arrow bytes."""
    got = from_wire(raw)
    expected = received(pb.ExecutePlanResponse.FromString(raw))
    message = pb.ExecutePlanResponse()
    message.CopyFrom(got.message)
    if got.arrow_data is not None and got.message.HasField("arrow_batch"):
        message.arrow_batch.data = bytes(got.arrow_data)
    assert message == expected.message
    assert (None if got.arrow_data is None else bytes(got.arrow_data)) == expected.arrow_data
    return got


def _response(**batch: object) -> pb.ExecutePlanResponse:
    resp = pb.ExecutePlanResponse(session_id="s" * 36, operation_id="o" * 36, response_id="r" * 36)
    resp.server_side_session_id = "x" * 36
    if batch:
        for key, value in batch.items():
            setattr(resp.arrow_batch, key, value)
    return resp


@pytest.mark.parametrize(
    "batch",
    [
        {"row_count": 3, "data": b"\x01\x02\x03" * 1000},
        {"row_count": 10_000, "data": bytes(range(256)) * 4096, "start_offset": 123_456_789},
        {"row_count": 7, "data": b"abc", "chunk_index": 1, "num_chunks_in_batch": 3},
    ],
)
def test_an_arrow_batchs_bytes_are_a_view_of_the_received_bytes(batch: dict[str, object]) -> None:
    raw = _response(**batch).SerializeToString()
    got = _same(raw)
    data = batch["data"]
    assert isinstance(got.arrow_data, memoryview) and got.arrow_data.obj is raw and bytes(got.arrow_data) == data
    assert got.message.arrow_batch.data == b"" and got.message.arrow_batch.row_count == batch["row_count"]


def test_responses_without_an_arrow_batch_are_protobufs_parse() -> None:
    schema = _response()
    schema.schema.struct.fields.add(name="a").data_type.long.SetInParent()
    complete = _response()
    complete.result_complete.SetInParent()
    for resp in (schema, complete, _response()):
        got = _same(resp.SerializeToString())
        assert got.arrow_data is None if not resp.HasField("arrow_batch") else got.arrow_data is not None


def test_a_repeated_field_or_bytes_that_do_not_walk_are_left_to_protobuf() -> None:
    one = _response(row_count=1, data=b"first").SerializeToString()
    two = pb.ExecutePlanResponse()
    two.arrow_batch.data = b"second"
    two.arrow_batch.row_count = 2
    merged = one + two.SerializeToString()  # two arrow_batch fields: protobuf merges them
    got = _same(merged)
    assert isinstance(got.arrow_data, bytes) and got.arrow_data == b"second"
    empty = _same(_response(row_count=0, data=b"").SerializeToString())  # proto3 writes no empty field
    assert empty.arrow_data == b"" and empty.message.HasField("arrow_batch")
    with pytest.raises(DecodeError):
        from_wire(one[:-3])  # truncated: protobuf's own error, as before
