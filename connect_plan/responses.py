"""One ``ExecutePlanResponse`` as the result path reads it: the message and its Arrow bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from pyspark.sql.connect import proto as pb

__all__ = ["ArrowData", "Received", "from_wire", "message_of", "received"]

#: the bytes of one Arrow batch: a copy read from the message, or a view of the response's
#: bytes as gRPC received them (:func:`from_wire`)
ArrowData: TypeAlias = bytes | memoryview


class Received(NamedTuple):
    """One ``ExecutePlanResponse`` of a result stream and the bytes of its Arrow batch (None
    when it has none), read from the message once: protobuf's runtime (upb) makes a new copy
    of a ``bytes`` field on every read, and the stream's release accounting, the query's
    statistics and the result checker each need them. Reading them once instead of three
    times took 1.5% off a 1e7-row table's client CPU (docs/performance.md)."""

    message: pb.ExecutePlanResponse
    arrow_data: ArrowData | None


def received(message: pb.ExecutePlanResponse) -> Received:
    """``message`` as a :class:`Received` item."""
    return Received(message, message.arrow_batch.data if message.HasField("arrow_batch") else None)


def message_of(item: Received | pb.ExecutePlanResponse) -> pb.ExecutePlanResponse:
    """The whole response of ``item`` (a :class:`Received` of :func:`from_wire`: its message
    with the Arrow bytes put back), for tools and tests that read the raw responses."""
    if not isinstance(item, Received):
        return item
    message = item.message
    if item.arrow_data is not None and message.HasField("arrow_batch") and not message.arrow_batch.data:
        message.arrow_batch.data = bytes(item.arrow_data)
    return message


#: ExecutePlanResponse.arrow_batch and ArrowBatch.data: field 2, length-delimited, both
_ARROW_BATCH = _DATA = (2 << 3) | 2


def from_wire(raw: bytes) -> Received:
    """The response serialized in ``raw`` (as gRPC received it), its Arrow bytes a view of
    ``raw`` instead of copies: protobuf's runtime copies a ``bytes`` field when it parses the
    message and again when it is read (0.26 and 0.16 ms per MiB measured, of ~1.6 ms per MiB
    the whole client spends on a large result). The message is parsed without the Arrow
    bytes (its ``arrow_batch.data`` is empty: the bytes are :attr:`Received.arrow_data`).

    Only where the one field is found: a response with no Arrow batch, or whose encoding is
    anything but one ``arrow_batch`` holding one ``data`` (protobuf would merge repeated
    ones), or that does not parse here, is parsed whole by protobuf, as before."""
    from .spark_proto import pb

    found = _arrow_data(raw)
    if found is None:
        return received(pb.ExecutePlanResponse.FromString(raw))
    batch_tag, batch_start, batch_end, data_tag, data_start, data_end = found
    rest = raw[batch_start:data_tag] + raw[data_end:batch_end]  # the batch's other fields (a few bytes)
    message = pb.ExecutePlanResponse.FromString(
        raw[:batch_tag] + bytes([_ARROW_BATCH]) + _varint(len(rest)) + rest + raw[batch_end:]
    )
    return Received(message, memoryview(raw)[data_start:data_end])


def _arrow_data(raw: bytes) -> tuple[int, int, int, int, int, int] | None:
    """Where ``raw``'s one ``arrow_batch`` field (its tag, its content's start and end) and
    that batch's one ``data`` field are; None when there is not exactly one of each, or the
    bytes are not protobuf's wire format as this reads it (protobuf then decides)."""
    batch = _only_field(raw, 0, len(raw), _ARROW_BATCH)
    if batch is None:
        return None
    data = _only_field(raw, batch[1], batch[2], _DATA)
    if data is None:
        return None
    return (*batch, *data)


def _only_field(raw: bytes, pos: int, end: int, key: int) -> tuple[int, int, int] | None:
    """The tag position, content start and content end of the one length-delimited field
    ``key`` (a one-byte tag) in ``raw[pos:end]``; None if it is absent, repeated, or the
    fields cannot be walked (a group, a truncated field)."""
    found = None
    while pos < end:
        tag_at = pos
        tag, pos = _read_varint(raw, pos, end)
        wire = tag & 7
        if pos < 0 or tag >> 3 == 0:
            return None
        if wire == 0:
            _, pos = _read_varint(raw, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            size, pos = _read_varint(raw, pos, end)
            if pos < 0:
                return None
            if tag == key:
                if found is not None:
                    return None
                found = (tag_at, pos, pos + size)
            pos += size
        else:
            return None
        if pos < 0 or pos > end:
            return None
    return found


def _read_varint(raw: bytes, pos: int, end: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it; (0, -1) when it runs past ``end``."""
    value = shift = 0
    while pos < end and shift < 64:
        byte = raw[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    return 0, -1


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)
