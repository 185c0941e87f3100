"""The result stream of one ExecutePlan: PySpark's reattachable iterator, decoded to Arrow.

Two halves, on either side of the transport seam: :class:`ReattachableStream` is how
:class:`~connect_plan.transport.PySparkTransport` reads an execution's responses (it yields
``ExecutePlanResponse`` protos); :class:`ResultChecker` checks and decodes them on the
client's side (:func:`connect_plan.client.execute.decoded`), whatever transport read them.

What is PySpark's and what is ours:

* **PySpark's** (reused as is): the request (``_execute_plan_request_with_metadata``:
  session, user context, tags, result-chunking options), session hooks, the retry policy,
  and ``ExecutePlanResponseReattachableIterator`` — retries of transient failures,
  ReattachExecute after a broken stream or one the server ended without
  ``ResultComplete``, a fresh ExecutePlan if the first never reached the server, and the
  final ReleaseExecute; its error mapping (``_handle_error``, which fetches Spark's error
  details) and its session-integrity check.
* **Ours** (about 60 lines below, in place of PySpark's ``to_table_as_iterator``, which
  checks neither ``ResultComplete`` nor row offsets and is never used):

  - ReleaseExecute of consumed responses every :data:`RELEASE_EVERY_BYTES` of Arrow data
    instead of after every response. PySpark sends one RPC per response (~0.3 MiB batches),
    from a thread pool: ~6 extra RPCs for a 3-row query and ~1,000 for 1e7 rows, which
    measured 35-40% of the client's CPU time on both. The server drops sent responses
    beyond its retry buffer by itself, so its memory stays bounded either way.
  - the Arrow decoding loop (:class:`ResultChecker`: chunked-batch assembly, and every
    check listed there) yielding plain ``RecordBatch`` objects, zero-copy over the
    response bytes, instead of wrapping each in a ``Table``.
  - a bound on PySpark's graceful-reattach loop: a server that keeps ending reattached
    streams at once with neither a response nor ``ResultComplete`` would make it spin
    forever; after :data:`MAX_EMPTY_REATTACHES` such streams in a row it is an error.
  - ``timeout=`` and Ctrl-C: the operation is released and interrupted on the server
    (:meth:`ReattachableStream.cancel`: ``Interrupt`` with a short deadline of its own)
    before the error is raised (:func:`timed_out`).

Every result goes this way (PySpark 4.0 to 4.3; see :data:`REQUIRED_INTERNALS`); there is
no unchecked fallback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from .arrow_types import AnnouncedSchema
from .arrow_types import announced as announced_schema
from .channel import start_call
from .deadlines import grace, timeout_error
from .deadlines import remaining as deadlines_remaining
from .errors import ConnectPlanError, QueryTimeoutError, ResultIntegrityError
from .responses import Received, received

if TYPE_CHECKING:
    from pyspark.sql.connect import proto as pb

__all__ = [
    "MAX_EMPTY_REATTACHES",
    "RELEASE_EVERY_BYTES",
    "ReattachableStream",
    "ResultChecker",
    "reattachable_stream",
    "release_pool",
    "release_then_interrupt",
    "timed_out",
]

log = logging.getLogger("connect_plan")

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

_ITERATOR_CLASS: Any = None
_RELEASE_POOL: Any = None
_RELEASE_POOL_LOCK = threading.Lock()


def release_pool() -> Any:
    """The process's thread pool for ReleaseExecute calls (started on first use; threads are
    started only when all are busy, and end with the process). Up to 16, so that releases
    stuck retrying a server that went away do not hold up the releases of other clients."""
    global _RELEASE_POOL
    if _RELEASE_POOL is None:
        with _RELEASE_POOL_LOCK:
            if _RELEASE_POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _RELEASE_POOL = ThreadPoolExecutor(max_workers=16, thread_name_prefix="connect-plan-release")
    return _RELEASE_POOL


def _throttled_iterator_class() -> Any:
    global _ITERATOR_CLASS
    if _ITERATOR_CLASS is None:
        from pyspark.sql.connect.client.reattach import ExecutePlanResponseReattachableIterator

        class ThrottledReleaseIterator(ExecutePlanResponseReattachableIterator):
            """PySpark's reattachable iterator; ``_release_until`` waits until
            :data:`RELEASE_EVERY_BYTES` of Arrow data were consumed, and ``_call_iter``
            counts streams that end at once and empty (see module doc)."""

            unreleased_bytes = 0
            empty_streams = 0
            reattaches = 0
            _stream_opened = 0.0
            _stream_responses = 0

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self._stream_opened = time.monotonic()

            @property
            def _release_thread_pool(self) -> Any:
                # PySpark means one pool per process, but assigns it to the instance
                # (``self._release_thread_pool_instance = ...``), so every query made a pool
                # and started a thread for its ReleaseExecute: ~1 ms of a 4 ms query on Sail
                return release_pool()

            def _release_until(self, until_response_id: str) -> None:
                if self.unreleased_bytes >= RELEASE_EVERY_BYTES:
                    self.unreleased_bytes = 0
                    super()._release_until(until_response_id)

            def send(self, value: Any) -> Any:
                response = super().send(value)
                self._stream_responses += 1
                self.empty_streams = 0
                return response

            def _call_iter(self, iter_fun: Any) -> Any:
                if self._iterator is None:  # a ReattachExecute is opened now
                    self.reattaches += 1
                    self._stream_opened = time.monotonic()
                    self._stream_responses = 0
                try:
                    return super()._call_iter(iter_fun)
                except StopIteration:
                    quick = time.monotonic() - self._stream_opened < EMPTY_STREAM_SECONDS
                    if quick and not self._stream_responses:
                        self.empty_streams += 1
                        if self.empty_streams > MAX_EMPTY_REATTACHES:
                            raise ResultIntegrityError(
                                f"the server ended {self.empty_streams} result streams in a row at once, with no "
                                "response and without ResultComplete; giving up instead of reattaching forever"
                            ) from None
                    else:
                        self.empty_streams = 0
                    raise

        _ITERATOR_CLASS = ThrottledReleaseIterator
    return _ITERATOR_CLASS


#: what :class:`ReattachableStream` uses of PySpark's ``SparkConnectClient`` (PySpark 4.0
#: through 4.3 have them all; ``_session_hooks``, ``_release_futures`` and ``_rpc_deadlines``,
#: which 4.0 lacks, are used when present)
REQUIRED_INTERNALS = (
    "_execute_plan_request_with_metadata",
    "_stub",
    "_retrying",
    "_builder",
    "_verify_response_integrity",
    "_handle_error",
)


def reattachable_stream(sc: Any, plan: pb.Plan) -> ReattachableStream:
    """The responses of one ExecutePlan of ``plan`` on PySpark client ``sc``: a
    :class:`ReattachableStream`.

    Always reattachable, whatever PySpark's own ``disable_reattachable_execute()`` switch
    says: without reattachable execution the server sends no ``ResultComplete``, and a
    stream cut short could not be told from a whole one by the :class:`ResultChecker`.
    There is no unchecked path: a PySpark without the internals this needs is an error
    that names them, not a silent fallback."""
    missing = [name for name in REQUIRED_INTERNALS if not hasattr(sc, name)]
    if missing:
        import pyspark

        raise ConnectPlanError(
            f"this PySpark ({getattr(pyspark, '__version__', '?')}) lacks the Connect client internals connect_plan "
            f"reads results with ({', '.join(missing)}); install pyspark or pyspark-client 4.0 to 4.3"
        )
    return ReattachableStream(sc, plan)


class ReattachableStream:
    """The ``ExecutePlanResponse`` messages of one execution, through PySpark's reattachable
    iterator (a :class:`~connect_plan.transport.ResultStream`: each a
    :class:`~connect_plan.responses.Received`).

    The request is made on the first ``next()``. A failure is raised as PySpark reports it
    (``_handle_error``, which fetches Spark's error details), except that one past the
    operation's deadline is a :class:`~connect_plan.errors.QueryTimeoutError`. The reader
    calls :meth:`cancel` on a timeout or Ctrl-C, and :meth:`close` in every case (it
    releases whatever the server still holds)."""

    def __init__(self, sc: Any, plan: pb.Plan) -> None:
        self._sc = sc
        self._plan = plan
        self._iterator: Any = None  # PySpark's iterator, made with the request
        self.operation_id = ""
        self._responses = self._run()

    def __iter__(self) -> ReattachableStream:
        return self

    def __next__(self) -> Received:
        return next(self._responses)

    def _run(self) -> Generator[Received, None, None]:
        sc = self._sc
        req = sc._execute_plan_request_with_metadata()
        req.plan.CopyFrom(self._plan)
        operation_id = req.operation_id
        for hook in getattr(sc, "_session_hooks", ()):  # PySpark 4.1+
            req = hook.on_execute_plan(req)
            req.operation_id = operation_id
        self.operation_id = operation_id
        deadlines = getattr(sc, "_rpc_deadlines", None)
        timeouts = (
            {}
            if deadlines is None
            else {
                "reattachable_execute_plan_timeout": deadlines.reattachable_execute_plan,
                "reattach_execute_timeout": deadlines.reattach_execute,
            }
        )
        try:
            self._iterator = _throttled_iterator_class()(
                req, sc._stub, sc._retrying, sc._builder.metadata(), **timeouts
            )
            for resp in self._iterator:
                sc._verify_response_integrity(resp)
                item = received(resp)
                if item.arrow_data is not None:
                    self._iterator.unreleased_bytes += len(item.arrow_data)
                yield item
        except ConnectPlanError:
            raise
        except Exception as error:
            left = deadlines_remaining()
            if left is not None and left <= 0:
                # the deadline passed inside PySpark's own handling (a gRPC DEADLINE_EXCEEDED)
                raise timeout_error() from error
            sc._handle_error(error)

    def cancel(self) -> bool | None:
        """Release the execution, then interrupt it (see :func:`_cancel`); False when no
        request was made yet (there is nothing to stop)."""
        if not self.operation_id:
            return False
        return _cancel(self._sc, self._iterator, self.operation_id)

    def close(self) -> None:
        """ReleaseExecute of everything (also when the reader stopped early)."""
        self._responses.close()
        responses, self._iterator = self._iterator, None
        if responses is not None:
            responses.close()
            if hasattr(self._sc, "_release_futures"):  # PySpark 4.1+: awaited before the channel closes
                self._sc._release_futures.update(responses.release_futures)


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


def _cancel(sc: Any, responses: Any, operation_id: str) -> bool | None:
    """Stop an operation of PySpark's client ``sc`` the caller gave up on (timeout, Ctrl-C):
    :func:`release_then_interrupt` with the requests PySpark's client makes."""
    pending: list[Any] = []
    release: Any = None
    if responses is not None:
        pending = list(getattr(responses, "release_futures", ()))  # PySpark's own release-all, on errors
        if not responses._result_complete:
            try:
                release = responses._create_release_execute_request(None)
            except Exception as exc:
                log.info("could not release operation %s: %s", operation_id, exc)
            # set here, not in the helper: PySpark's own close() must not release it again
            # after the Interrupt (see release_then_interrupt)
            responses._result_complete = True
    # everything taken from the PySpark client now: the client may be closed meanwhile
    return release_then_interrupt(
        sc._stub,
        sc._channel,
        sc._builder.metadata(),
        release,
        sc._interrupt_request("operation", operation_id),
        pending,
        operation_id,
    )


def release_then_interrupt(
    stub: Any,
    channel: Any,
    metadata: Any,
    release: Any,
    interrupt: Any,
    pending: list[Any],
    operation_id: str,
) -> bool | None:
    """Stop an operation the caller gave up on (timeout, Ctrl-C), for either transport: send
    ``release`` (a ReleaseExecute request, or None when nothing is left to release), then
    ``interrupt``, after the ``pending`` releases. True if the server answered the Interrupt,
    False if it could not be reached, None if it had not answered within
    :data:`CANCEL_WAIT_SECONDS`.

    Both RPCs run in a helper thread within :data:`INTERRUPT_GRACE_SECONDS` of their own;
    the caller waits for them at most :data:`CANCEL_WAIT_SECONDS`, so that ``timeout=`` bounds
    the call even when the server does not answer at all (a hung server, a black-holed
    network: the RPCs would only wait for their deadline). A server that is slow to answer
    still gets them, unless the client is closed first (closing releases the whole session).

    The order matters: a ReleaseExecute that reaches the server while an interrupted
    execution is still winding down is refused (Spark 4 reports an illegal state
    transition) and the operation then lingers as RUNNING until the server's own timeout;
    a release first ends the execution (release-all interrupts a running one) and the
    Interrupt after it is a no-op, or stops it if the release was lost.
    """
    import concurrent.futures

    outcome: list[bool] = []
    calls = [("release", stub.ReleaseExecute, release)] if release is not None else []
    calls.append(("interrupt", stub.Interrupt, interrupt))

    def tell_the_server() -> None:
        # each call is started under the channel's guard (the client may close the channel
        # meanwhile: a call started after that would crash gRPC) and awaited outside it
        with grace(INTERRUPT_GRACE_SECONDS):
            if pending:
                concurrent.futures.wait(pending, timeout=max(0.0, deadlines_remaining() or 0.0))
            for what, method, request in calls:
                try:
                    call = start_call(channel, method, request, metadata=metadata)
                    if call is None:
                        log.info("could not %s operation %s: the client was closed", what, operation_id)
                        outcome.append(False)
                        return
                    call.result()
                except Exception as exc:
                    log.info("could not %s operation %s: %s", what, operation_id, exc)
                    if what == "interrupt":
                        outcome.append(False)
                        return
        log.debug("interrupted operation %s", operation_id)
        outcome.append(True)

    helper = threading.Thread(target=tell_the_server, name=f"connect_plan-interrupt-{operation_id[:8]}", daemon=True)
    helper.start()
    helper.join(CANCEL_WAIT_SECONDS)
    return outcome[0] if outcome else None


class ResultChecker:
    """Checks and decodes the ``ExecutePlanResponse`` messages of one result, in order
    (no I/O: what arrives over the network is fed in, so recorded responses can be too).

    ``feed`` yields the announced schema (an :class:`~connect_plan.arrow_types.AnnouncedSchema`:
    names, nullability, Arrow types, read without PySpark) and each Arrow ``RecordBatch``; it
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

    def __init__(self) -> None:
        self.rows_seen = 0
        self.batches = 0
        self.announced: AnnouncedSchema | None = None
        self.schema: Any = None  # of the first batch
        self.complete = False
        self._chunks: list[bytes] = []
        self._announced_proto: Any = None
        self._arrow_schema: Any = None  # the first batch's, as the server sent it
        self._target: Any = None  # what batches are cast to (None: they already are)

    def feed(self, resp: Any, arrow_data: bytes | None = None) -> Generator[Any, None, None]:
        """Check ``resp`` (``arrow_data``: its Arrow batch's bytes, when already read; see
        :class:`~connect_plan.responses.Received`)."""
        import pyarrow as pa

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
            try:
                reader = pa.ipc.open_stream(payload)
            except (pa.ArrowException, OSError) as exc:
                raise ResultIntegrityError(f"an Arrow batch could not be read: {exc}") from None
            with reader:
                self._check_schema(reader.schema)
                target = self._target
                while True:
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        break
                    except (pa.ArrowException, OSError) as exc:
                        raise ResultIntegrityError(f"an Arrow batch could not be read: {exc}") from None
                    batch_rows += batch.num_rows
                    yield batch if target is None else _cast_batch(batch, target)
            if batch_rows != ab.row_count:
                raise ResultIntegrityError(f"an Arrow batch announced {ab.row_count} rows and held {batch_rows}")
            self.rows_seen += batch_rows
            self.batches += 1
        if resp.HasField("result_complete"):
            if self._chunks:
                raise ResultIntegrityError("ResultComplete arrived inside a chunked Arrow batch")
            self.complete = True

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


def _spark_arrow_type(t: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return pa.binary()
    if pa.types.is_decimal256(t) and t.precision <= 38:
        return pa.decimal128(t.precision, t.scale)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        f = t.value_field
        return pa.list_(pa.field("element", _spark_arrow_type(f.type), f.nullable))
    if pa.types.is_map(t):
        k, v = t.key_field, t.item_field
        key, value = _spark_arrow_type(k.type), _spark_arrow_type(v.type)
        if (k.name, v.name) == ("key", "value") and key.equals(k.type) and value.equals(v.type):
            return t
        return pa.map_(pa.field("key", key, k.nullable), pa.field("value", value, v.nullable))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_spark_arrow_type(f.type)) for f in t])
    return t


def spark_arrow_schema(schema: Any) -> Any:
    """``schema`` with Spark's Arrow conventions (what Spark itself sends and PySpark's
    ``toArrow`` gives): ``string``/``binary``/``list`` rather than their large or view
    forms, ``decimal128`` up to precision 38, list items named ``element``, map entries
    ``key``/``value``. Spark's results
    already are so; other engines' (Sail sends ``large_string``, ``list<item>``) are cast."""
    import pyarrow as pa

    return pa.schema([f.with_type(_spark_arrow_type(f.type)) for f in schema], metadata=schema.metadata)


def _cast_batch(batch: Any, target: Any) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_arrays([c.cast(f.type) for c, f in zip(batch.columns, target)], schema=target)


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


def _same_type(a: Any, b: Any) -> bool:
    import pyarrow as pa

    if a.equals(b):
        return True
    if pa.types.is_timestamp(a) and pa.types.is_timestamp(b):
        return a.unit == b.unit and (a.tz is None) == (b.tz is None)
    if type(a) is not type(b) or a.num_fields != b.num_fields or a.num_fields == 0:
        return False
    return all(_same_type(a.field(i).type, b.field(i).type) for i in range(a.num_fields))
