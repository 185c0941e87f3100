"""The result of one ExecutePlan, checked: :class:`ResultChecker` and the result stream's constants.

The transport (:class:`~connect_plan.grpc_transport.ExecutionStream`) reads an execution's
``ExecutePlanResponse`` messages, reattached as needed; :class:`ResultChecker` checks and
decodes them on the client's side (:func:`connect_plan.client.execute.decoded`), whatever
transport read them (no I/O here: recorded responses are checked the same way). What the
result path does that PySpark's does not:

* ReleaseExecute of consumed responses every :data:`RELEASE_EVERY_BYTES` of Arrow data
  instead of after every response. PySpark sends one RPC per response (~0.3 MiB batches),
  from a thread pool: ~6 extra RPCs for a 3-row query and ~1,000 for 1e7 rows, which
  measured 35-40% of the client's CPU time on both. The server drops sent responses beyond
  its retry buffer by itself, so its memory stays bounded either way.
* the Arrow decoding loop (:class:`ResultChecker`: chunked-batch assembly, and every check
  listed there) yielding plain ``RecordBatch`` objects, zero-copy over the response bytes,
  instead of wrapping each in a ``Table``; PySpark's ``to_table_as_iterator`` checks neither
  ``ResultComplete`` nor row offsets.
* a bound on the graceful-reattach loop: a server that keeps ending reattached streams at
  once with neither a response nor ``ResultComplete`` would make it spin forever; after
  :data:`MAX_EMPTY_REATTACHES` such streams in a row it is an error.
* ``timeout=`` and Ctrl-C: the operation is released and interrupted on the server (with a
  short deadline of its own, :data:`INTERRUPT_GRACE_SECONDS`) before the error is raised
  (:func:`timed_out`).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, NamedTuple

from .arrow_types import AnnouncedSchema, cast_batch, spark_arrow_schema
from .arrow_types import announced as announced_schema
from .errors import QueryTimeoutError, ResultIntegrityError

__all__ = [
    "CANCEL_WAIT_SECONDS",
    "EMPTY_STREAM_SECONDS",
    "INTERRUPT_GRACE_SECONDS",
    "MAX_EMPTY_REATTACHES",
    "RELEASE_EVERY_BYTES",
    "ResultChecker",
    "SparkBatch",
    "timed_out",
]

#: consumed responses are released on the server after this many bytes of Arrow data (and
#: always at the end); PySpark releases after every response
RELEASE_EVERY_BYTES = 16 * 1024 * 1024
#: reattached streams in a row that may end within :data:`EMPTY_STREAM_SECONDS` with no
#: response at all (a server that ends them for a reason — its per-stream time or size
#: limit — holds each open for minutes, so a long query never comes near this)
MAX_EMPTY_REATTACHES = 20
EMPTY_STREAM_SECONDS = 1.0
#: how long the ReleaseExecute and Interrupt sent after a timeout or Ctrl-C may take in all
#: (they go on in the background past :data:`CANCEL_WAIT_SECONDS`)
INTERRUPT_GRACE_SECONDS = 5.0
#: how long the call that timed out (or met Ctrl-C) waits for them before it raises: a server
#: that answers does so in milliseconds; one that does not would add the whole grace
CANCEL_WAIT_SECONDS = 0.5


def timed_out(message: str, interrupted: bool | None) -> QueryTimeoutError:
    """The error of an operation that ran past its deadline, saying whether the server
    confirmed the interrupt (``unanswered`` when it did not)."""
    if interrupted:
        note = "interrupted on the server"
    elif interrupted is None:
        note = (
            f"the server could not be told to interrupt it within {CANCEL_WAIT_SECONDS:g} s "
            "(still being told in the background)"
        )
    else:
        note = "the server could not be told to interrupt it"
    err = QueryTimeoutError(f"{message}; {note}", grpc_status="DEADLINE_EXCEEDED")
    err.unanswered = not interrupted
    return err


class SparkBatch(NamedTuple):
    """One record batch of a result and, when it is the batch Spark sent (not cast), its Arrow
    IPC message: the flatbuffer metadata and the body, zero-copy over the response's bytes
    (what ``connect-plan serve`` forwards as ``FlightData`` without encoding the batch again)."""

    batch: Any  # pyarrow.RecordBatch
    message: Any  # pyarrow.ipc.Message | None


class ResultChecker:
    """Checks and decodes the ``ExecutePlanResponse`` messages of one result, in order
    (no I/O: what arrives over the network is fed in, so recorded responses can be too).

    ``feed`` yields the announced schema (an :class:`~connect_plan.arrow_types.AnnouncedSchema`:
    names, nullability, Arrow types, read without PySpark) and each Arrow ``RecordBatch`` (a :class:`SparkBatch`
    with its IPC message when asked: ``messages``); it
    raises :class:`~connect_plan.errors.ResultIntegrityError` when

    * an Arrow batch's ``start_offset`` is not the number of rows before it, or its
      ``row_count`` is not the number of rows it holds;
    * the chunks of a chunked batch do not arrive as 0, 1, ... ``num_chunks_in_batch``-1;
    * a batch's schema differs from the first batch's, or from the schema the server
      announced (names, nullability and Arrow types; a timestamp's zone is the session's
      and is not compared, nor types without an Arrow mapping);
    * the server announces a different schema a second time, or anything arrives after
      ``ResultComplete``;

    and ``finish`` raises if the stream ended inside a chunked batch or without
    ``ResultComplete`` (a truncated result is never returned as whole).
    """

    def __init__(self, *, messages: bool = False) -> None:
        #: yield each batch as a :class:`SparkBatch` (with its IPC message) instead of plain
        self.messages = messages
        self.rows_seen = 0
        self.batches = 0
        self.announced: AnnouncedSchema | None = None
        self.schema: Any = None  # of the first batch
        self.complete = False
        self._chunks: list[bytes | memoryview] = []
        self._announced_proto: Any = None
        self._arrow_schema: Any = None  # the first batch's, as the server sent it
        self._target: Any = None  # what batches are cast to (None: they already are)
        self._schema_message: Any = None  # the first batch's schema message (flatbuffer bytes)
        self._dictionaries = False  # does that schema have a dictionary-encoded field

    def feed(self, resp: Any, arrow_data: bytes | memoryview | None = None) -> Generator[Any, None, None]:
        """Check ``resp`` (``arrow_data``: its Arrow batch's bytes, when already read; see
        :class:`~connect_plan.responses.Received`)."""
        if self.complete:
            raise ResultIntegrityError("the server sent more responses after ResultComplete")
        if resp.HasField("schema"):
            if self._announced_proto is None:
                self._announced_proto = resp.schema
                try:
                    self.announced = announced_schema(resp.schema)
                except ValueError as exc:
                    raise ResultIntegrityError(
                        f"the server announced a result schema that is not a table: {exc}"
                    ) from None
                if self.schema is not None:
                    _check_announced(self.announced, self.schema)
                yield self.announced
            elif resp.schema != self._announced_proto:
                raise ResultIntegrityError("the server announced a second, different result schema")
        if resp.HasField("arrow_batch"):
            ab = resp.arrow_batch
            chunked = "chunk_index" in ab.DESCRIPTOR.fields_by_name  # PySpark 4.0's protos: no chunks
            chunk_index = ab.chunk_index if chunked else 0
            chunks = self._chunks
            if chunks:
                if chunk_index != len(chunks):
                    raise ResultIntegrityError(
                        f"expected chunk {len(chunks)} of an Arrow batch, got chunk {chunk_index}"
                    )
            else:
                if ab.HasField("start_offset") and ab.start_offset != self.rows_seen:
                    raise ResultIntegrityError(
                        f"an Arrow batch starts at row {ab.start_offset}, expected {self.rows_seen}"
                    )
                if chunk_index != 0:
                    raise ResultIntegrityError(f"expected chunk 0 of a new Arrow batch, got chunk {chunk_index}")
            chunks.append(ab.data if arrow_data is None else arrow_data)
            if chunked and ab.HasField("num_chunks_in_batch") and ab.num_chunks_in_batch > len(chunks):
                return  # more chunks of this batch to come
            payload = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            self._chunks = []
            batch_rows = 0
            for batch, message in self._read(payload):  # the first batch's schema checked before it comes
                batch_rows += batch.num_rows
                target = self._target
                if target is not None:
                    batch, message = cast_batch(batch, target), None
                yield SparkBatch(batch, message) if self.messages else batch
            if batch_rows != ab.row_count:
                raise ResultIntegrityError(f"an Arrow batch announced {ab.row_count} rows and held {batch_rows}")
            self.rows_seen += batch_rows
            self.batches += 1
        if resp.HasField("result_complete"):
            if self._chunks:
                raise ResultIntegrityError("ResultComplete arrived inside a chunked Arrow batch")
            self.complete = True

    def _read(self, payload: bytes | memoryview) -> Iterator[tuple[Any, Any]]:
        """Each record batch of one Arrow IPC stream (a schema message, then record batch
        messages) with its IPC message: both zero-copy over ``payload``. A stream holding any
        other message (a dictionary batch: Spark sends none) is read whole by pyarrow's stream
        reader instead, its batches without a message."""
        import pyarrow as pa

        try:
            messages = pa.ipc.MessageReader.open_stream(payload)
            first = messages.read_next_message()
            if first.type != "schema":
                raise pa.ArrowInvalid(f"the stream starts with a {first.type} message, not a schema")
            if self._schema_message is not None and first.metadata.equals(self._schema_message):
                schema = self._arrow_schema  # the same bytes as the first batch's schema: checked then
            else:
                schema = pa.ipc.read_schema(first)
                self._check_schema(schema)
                if self._schema_message is None:
                    self._schema_message = pa.py_buffer(first.metadata.to_pybytes())
                    self._dictionaries = any(_has_dictionary(field.type) for field in schema)
        except StopIteration:
            raise ResultIntegrityError("an Arrow batch could not be read: it holds no schema") from None
        except (pa.ArrowException, OSError) as exc:
            raise ResultIntegrityError(f"an Arrow batch could not be read: {exc}") from None
        try:
            if self._dictionaries:
                with pa.ipc.open_stream(payload) as reader:  # its dictionaries come in messages of their own
                    for batch in reader:
                        yield batch, None
                return
            for message in messages:
                if message.type != "record batch":
                    raise pa.ArrowInvalid(f"a {message.type} message in a result stream")
                yield pa.ipc.read_record_batch(message, schema), message
        except (pa.ArrowException, OSError) as exc:
            raise ResultIntegrityError(f"an Arrow batch could not be read: {exc}") from None

    def _check_schema(self, schema: Any) -> None:
        if self.schema is None:
            self._arrow_schema = schema
            canonical = spark_arrow_schema(schema)
            self._target = None if canonical.equals(schema) else canonical
            schema = canonical
            if self.announced is not None:
                _check_announced(self.announced, schema)
            self.schema = schema
            return
        if self._target is not None:
            if not schema.equals(self._arrow_schema):
                raise ResultIntegrityError(
                    f"the server changed the result schema mid-stream: {self._arrow_schema} then {schema}"
                )
            return
        elif not schema.equals(self.schema):
            raise ResultIntegrityError(f"the server changed the result schema mid-stream: {self.schema} then {schema}")

    def finish(self) -> None:
        if self._chunks:
            raise ResultIntegrityError(
                f"the stream ended inside a chunked Arrow batch ({len(self._chunks)} chunks read)"
            )
        if not self.complete:
            raise ResultIntegrityError(
                f"the result stream ended without ResultComplete after {self.rows_seen} rows; "
                "the result may be truncated, so none is returned"
            )


def _check_announced(announced: AnnouncedSchema, schema: Any) -> None:
    """The first batch's Arrow schema against the schema the server announced."""
    names = announced.names
    if names != schema.names:
        raise ResultIntegrityError(f"the Arrow batches have columns {schema.names}, the server announced {names}")
    for field, arrow in zip(announced.fields, schema):
        if field.nullable != arrow.nullable:
            raise ResultIntegrityError(
                f"column {field.name!r} is {'nullable' if arrow.nullable else 'not nullable'} in the Arrow batches, "
                f"the server announced the opposite"
            )
        expected = field.arrow
        if expected is None:  # no Arrow mapping in PySpark's either (e.g. year-month intervals)
            continue
        if not _same_type(expected, arrow.type):
            raise ResultIntegrityError(
                f"column {field.name!r} is {arrow.type} in the Arrow batches, the server announced "
                f"{field.type_string} ({expected})"
            )


def _has_dictionary(t: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_dictionary(t) or any(_has_dictionary(t.field(i).type) for i in range(t.num_fields)))


def _same_type(a: Any, b: Any) -> bool:
    import pyarrow as pa

    if a.equals(b):
        return True
    if pa.types.is_timestamp(a) and pa.types.is_timestamp(b):
        return a.unit == b.unit and (a.tz is None) == (b.tz is None)
    if type(a) is not type(b) or a.num_fields != b.num_fields or a.num_fields == 0:
        return False
    return all(_same_type(a.field(i).type, b.field(i).type) for i in range(a.num_fields))
