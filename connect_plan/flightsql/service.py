"""The Flight service: Arrow Flight's RPCs answered with Flight SQL's commands, on gRPC.

==================  ==============================================================================
RPC                 answers
==================  ==============================================================================
GetFlightInfo       a statement (``CommandStatementQuery``, ``CommandStatementSubstraitPlan``,
                    ``CommandPreparedStatementQuery``): its result schema, from Spark's analysis
                    (AnalyzePlan; nothing runs) or the prepared statement's, and a one-use ticket;
                    a metadata command: its fixed schema, the command itself as the ticket
GetSchema           the same schemas, without a ticket
DoGet               a ticket: the statement run (``Client.stream``'s checks), Spark's own Arrow IPC
                    messages forwarded as they came, after the announced schema; a metadata
                    command's table
DoAction            ``CreatePreparedStatement``, ``CreatePreparedSubstraitPlan``,
                    ``ClosePreparedStatement``, ``CancelFlightInfo``
ListActions         those four; Handshake: accepted (the token travels in every call's header)
DoPut, DoExchange,  UNIMPLEMENTED: this server reads; it takes no data, no parameters, no
PollFlightInfo      transactions
==================  ==============================================================================

Every call is authenticated first (:class:`~connect_plan.flightsql.callers.Callers`): a call without
a known token ends UNAUTHENTICATED before anything else is read. Every failure ends the call with
a status chosen by the error's type (:func:`~connect_plan.flightsql.status.status_of`); no traceback
leaves the process.

Why gRPC and not ``pyarrow.flight.FlightServerBase``: its Python server sends a Python traceback
(file paths, code lines) in the status message and trailers of every error raised as anything but
its own seven ``FlightError`` kinds, none of which is INVALID_ARGUMENT or NOT_FOUND, and of every
error of ``get_schema`` (pyarrow 26, measured); and it has no callback when a client goes away.
Here the statuses and trailers are this module's, and a stream dropped by its client is closed at
once (its Spark execution released). pyarrow still does the Arrow side: schemas and batches are
written with its IPC writer and framed as ``FlightData`` (:func:`~.messages.flight_data`).

A result batch is not decoded and encoded again on its way: Spark's ``ArrowBatch.data`` is an IPC
stream (a schema message, then record batch messages), and each record batch message is sent as
it came (its flatbuffer metadata as ``data_header``, its body as ``data_body``;
:func:`connect_plan.client.spark_batches`), after the schema message of the schema the FlightInfo
announced. That is valid when the batch's columns have the announced types (the buffers are laid
out by type; names, nullability and metadata are the schema message's), and it is the same batch
the in-process client returns: every check still runs on the decoded batch first (the result
contract, the policy's bounds, a NULL in a column announced not null). A batch compressed by Spark
(``--compression zstd``) goes out compressed, as Arrow IPC body compression, which Flight clients
decode. A batch that was cast (a plan's declared types) or cut (``max_bytes``), or one larger than
:data:`MAX_BATCH_BYTES`, is written again as before. Forwarding saves the encoding and a copy of
each batch; most of the process's CPU per MiB is gRPC's (receiving from Spark, sending on).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..client import spark_batches
from ..errors import ErrorDetail, ResultContractError, ServerError
from .catalog import Catalog, sql_info
from .messages import FLIGHT, SQL, CommandError, flight_data, ipc_schema, message, pack, parse, schemas, unpack
from .statements import Handles, Loaded, Statement
from .status import Status, status_of

if TYPE_CHECKING:
    import grpc
    import pyarrow as pa

    from ..client import Client
    from .callers import Caller, Callers

__all__ = ["ACTIONS", "MAX_BATCH_BYTES", "SERVICE", "Execution", "FlightSqlService"]

log = logging.getLogger("connect_plan.serve")

SERVICE = "arrow.flight.protocol.FlightService"
#: the actions of DoAction, with their descriptions (ListActions)
ACTIONS = {
    "CreatePreparedStatement": "Prepare a Flight SQL statement (Spark SQL text, or a JSON or Substrait plan "
    "as JSON text); its result schema comes from Spark's analysis",
    "CreatePreparedSubstraitPlan": "Prepare a Substrait plan; its result schema comes from Spark's analysis",
    "ClosePreparedStatement": "Close a prepared statement",
    "CancelFlightInfo": "Cancel the execution of a FlightInfo's tickets (its Spark execution is released)",
}
#: how long a stopped DoGet's Interrupt is sent again while Spark has not seen its execution yet
INTERRUPT_SECONDS = 10.0
INTERRUPT_RETRY_SECONDS = 0.05
#: how long a stopped DoGet that is streaming has to end (and release its execution) before
#: its execution is interrupted (see :class:`Execution`)
RELEASE_FIRST_SECONDS = 1.0
#: a result batch larger than this is sent in several messages (ADBC's Go driver receives at
#: most 16 MiB per message by default)
MAX_BATCH_BYTES = 8 * 1024 * 1024

_STATEMENTS = frozenset({"CommandStatementQuery", "CommandStatementSubstraitPlan", "CommandPreparedStatementQuery"})
_METADATA = frozenset(
    {"CommandGetSqlInfo", "CommandGetCatalogs", "CommandGetDbSchemas", "CommandGetTables", "CommandGetTableTypes"}
)
_TICKETS = frozenset({"TicketStatementQuery"}) | _METADATA
_UNSUPPORTED = frozenset(
    {
        "CommandStatementUpdate",
        "CommandPreparedStatementUpdate",
        "CommandStatementIngest",
        "CommandGetPrimaryKeys",
        "CommandGetExportedKeys",
        "CommandGetImportedKeys",
        "CommandGetCrossReference",
        "CommandGetXdbcTypeInfo",
    }
)


class _Abort(Exception):
    """End the call with this status (raised inside a handler, turned into context.abort)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


def _ser(msg: Any) -> bytes:
    return bytes(msg.SerializeToString())


def _raw(data: bytes) -> bytes:
    return data


class FlightSqlService:
    """The Flight SQL service of one server (see module doc)."""

    def __init__(self, callers: Callers, tables: Mapping[str, Any] | None) -> None:
        self.callers = callers
        self.tables = dict(tables or {})
        self.catalog = Catalog(self.tables)
        self.loaded = Loaded(self.tables)
        self.prepared: Handles[Statement] = Handles()
        self.tickets: Handles[Statement] = Handles()
        #: running DoGets by (caller, ticket handle): stop one to end it (CancelFlightInfo)
        self._running: dict[tuple[str, bytes], Execution] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------ gRPC

    def handler(self) -> grpc.GenericRpcHandler:
        import grpc

        u_u, u_s, s_s = (
            grpc.unary_unary_rpc_method_handler,
            grpc.unary_stream_rpc_method_handler,
            grpc.stream_stream_rpc_method_handler,
        )
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Handshake": s_s(self._streams("Handshake", self.handshake), _raw, _ser),
                "ListFlights": u_s(self._streams("ListFlights", lambda c, r, x: iter(())), _raw, _ser),
                "GetFlightInfo": u_u(self._unary("GetFlightInfo", self.get_flight_info), _raw, _ser),
                "PollFlightInfo": u_u(self._unary("PollFlightInfo", self._unimplemented), _raw, _ser),
                "GetSchema": u_u(self._unary("GetSchema", self.get_schema), _raw, _ser),
                "DoGet": u_s(self._streams("DoGet", self.do_get), _raw, _raw),
                "DoPut": s_s(self._streams("DoPut", self._unimplemented_stream), _raw, _ser),
                "DoExchange": s_s(self._streams("DoExchange", self._unimplemented_stream), _raw, _ser),
                "DoAction": u_s(self._streams("DoAction", self.do_action), _raw, _ser),
                "ListActions": u_s(self._streams("ListActions", self.list_actions), _raw, _ser),
            },
        )

    def _caller(self, context: grpc.ServicerContext) -> Caller:
        import grpc

        caller = self.callers.authenticate(context.invocation_metadata())
        if caller is None:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "no known bearer token: send the header 'authorization: Bearer <token>' with a token of this "
                "server's tokens file",
            )
        assert caller is not None
        return caller

    @staticmethod
    def _end(context: grpc.ServicerContext, status: Status) -> None:
        import grpc

        if status.trailers:
            context.set_trailing_metadata(status.trailers)
        context.abort(getattr(grpc.StatusCode, status.code), status.message)

    def _unary(self, what: str, fn: Callable[[Caller, bytes, Any], Any]) -> Callable[[bytes, Any], Any]:
        def call(request: bytes, context: grpc.ServicerContext) -> Any:
            caller = self._caller(context)
            try:
                return fn(caller, request, context)
            except _Abort as stop:
                status = stop.status
            except Exception as exc:
                status = status_of(exc, what)
            self._end(context, status)

        return call

    def _streams(
        self, what: str, fn: Callable[[Caller, Any, Any], Iterator[Any]]
    ) -> Callable[[Any, Any], Iterator[Any]]:
        def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            caller = self._caller(context)
            try:
                yield from fn(caller, request, context)
                return
            except _Abort as stop:
                status = stop.status
            except Exception as exc:
                status = status_of(exc, what)
            self._end(context, status)

        return call

    @staticmethod
    def _unimplemented(caller: Caller, request: Any, context: Any) -> Any:
        raise _Abort(Status("UNIMPLEMENTED", "this Flight SQL server does not implement this call"))

    @staticmethod
    def _unimplemented_stream(caller: Caller, request: Any, context: Any) -> Iterator[Any]:
        raise _Abort(
            Status(
                "UNIMPLEMENTED", "this Flight SQL server runs queries and plans: it takes no data (DoPut, DoExchange)"
            )
        )
        yield  # pragma: no cover - a generator

    # ------------------------------------------------------------ Flight calls

    def handshake(self, caller: Caller, requests: Iterator[bytes], context: Any) -> Iterator[Any]:
        response = message(f"{FLIGHT}.HandshakeResponse")
        for raw in requests:
            request = parse(f"{FLIGHT}.HandshakeRequest", raw)
            yield response(protocol_version=request.protocol_version)

    def list_actions(self, caller: Caller, request: bytes, context: Any) -> Iterator[Any]:
        action_type = message(f"{FLIGHT}.ActionType")
        for name, description in ACTIONS.items():
            yield action_type(type=name, description=description)

    def _command(self, descriptor_bytes: bytes) -> tuple[Any, str, Any]:
        descriptor = parse(f"{FLIGHT}.FlightDescriptor", descriptor_bytes)
        if descriptor.type != descriptor.DescriptorType.Value("CMD"):
            raise CommandError("a FlightDescriptor of this server is a command (CMD), not a path")
        try:
            name, command = unpack(descriptor.cmd, _STATEMENTS | _METADATA)
        except CommandError:
            self._refuse_unsupported(descriptor.cmd)
            raise
        return descriptor, name, command

    @staticmethod
    def _refuse_unsupported(cmd: bytes) -> None:
        try:
            unpack(cmd, _UNSUPPORTED)
        except CommandError:
            return
        raise _Abort(
            Status(
                "UNIMPLEMENTED",
                "this Flight SQL server runs queries and plans and lists tables: no updates, ingestion, "
                "keys or XDBC type info",
            )
        )

    def get_flight_info(self, caller: Caller, request: bytes, context: Any) -> Any:
        descriptor, name, command = self._command(request)
        if name in _METADATA:
            schema = self._metadata_schema(name, command)
            ticket_bytes = pack(command)
        else:
            statement = self._statement(caller, name, command, describe=True)
            handle = self.tickets.add(caller.name, statement)
            schema = statement.schema
            ticket_bytes = pack(message(f"{SQL}.TicketStatementQuery")(statement_handle=handle))
        info = message(f"{FLIGHT}.FlightInfo")(
            schema=ipc_schema(schema), flight_descriptor=descriptor, total_records=-1, total_bytes=-1
        )
        endpoint = info.endpoint.add()
        endpoint.ticket.ticket = ticket_bytes
        return info

    def get_schema(self, caller: Caller, request: bytes, context: Any) -> Any:
        _, name, command = self._command(request)
        if name in _METADATA:
            schema = self._metadata_schema(name, command)
        else:
            schema = self._statement(caller, name, command, describe=True).schema
        return message(f"{FLIGHT}.SchemaResult")(schema=ipc_schema(schema))

    @staticmethod
    def _metadata_schema(name: str, command: Any) -> pa.Schema:
        if name == "CommandGetTables" and command.include_schema:
            return schemas()["CommandGetTables+schema"]
        return schemas()[name]

    def _statement(self, caller: Caller, name: str, command: Any, *, describe: bool) -> Statement:
        """The statement of a command, with its result schema when ``describe``."""
        if name == "CommandPreparedStatementQuery":
            found = self.prepared.get(caller.name, command.prepared_statement_handle)
            if found is None:
                raise _Abort(Status("NOT_FOUND", "no such prepared statement (closed, expired, or another caller's)"))
            return found
        if command.HasField("transaction_id"):
            raise _Abort(Status("UNIMPLEMENTED", "this server has no transactions"))
        if name == "CommandStatementSubstraitPlan":
            statement = self.loaded.load(caller.name, "substrait", command.plan.plan, caller.policy)
        else:
            statement = self.loaded.load(caller.name, "query", command.query, caller.policy)
        if not describe:
            return statement
        return self._described(caller, statement)

    def _described(self, caller: Caller, statement: Statement) -> Statement:
        from dataclasses import replace

        if statement.plan.output is not None:  # a write or a view: its one-row report, known without Spark
            return replace(statement, schema=write_report())
        schema = self.callers.client(caller, statement=True).schema(statement.plan)
        return replace(statement, schema=schema)

    # ------------------------------------------------------------ actions

    def do_action(self, caller: Caller, request: bytes, context: Any) -> Iterator[Any]:
        action = parse(f"{FLIGHT}.Action", request)
        result = message(f"{FLIGHT}.Result")
        kind, body = action.type, action.body
        if kind in ("CreatePreparedStatement", "CreatePreparedSubstraitPlan"):
            wanted = (
                "ActionCreatePreparedStatementRequest"
                if kind == "CreatePreparedStatement"
                else "ActionCreatePreparedSubstraitPlanRequest"
            )
            _, req = unpack(body, frozenset({wanted}))
            if req.HasField("transaction_id"):
                raise _Abort(Status("UNIMPLEMENTED", "this server has no transactions"))
            if kind == "CreatePreparedStatement":
                statement = self.loaded.load(caller.name, "query", req.query, caller.policy)
            else:
                statement = self.loaded.load(caller.name, "substrait", req.plan.plan, caller.policy)
            statement = self._described(caller, statement)
            assert statement.schema is not None
            handle = self.prepared.add(caller.name, statement)
            answer = message(f"{SQL}.ActionCreatePreparedStatementResult")(
                prepared_statement_handle=handle, dataset_schema=ipc_schema(statement.schema), is_update=False
            )
            yield result(body=pack(answer))
        elif kind == "ClosePreparedStatement":
            _, req = unpack(body, frozenset({"ActionClosePreparedStatementRequest"}))
            self.prepared.get(caller.name, req.prepared_statement_handle, remove=True)
        elif kind == "CancelFlightInfo":
            req = parse(f"{FLIGHT}.CancelFlightInfoRequest", body)
            cancelled = self._cancel(caller, req.info)
            status = "CANCEL_STATUS_CANCELLED" if cancelled else "CANCEL_STATUS_NOT_CANCELLABLE"
            answer = message(f"{FLIGHT}.CancelFlightInfoResult")()
            answer.status = answer.DESCRIPTOR.fields_by_name["status"].enum_type.values_by_name[status].number
            yield result(body=answer.SerializeToString())
        else:
            known = ", ".join(ACTIONS)
            shown = kind if len(kind) <= 80 else kind[:80] + "..."
            raise _Abort(Status("UNIMPLEMENTED", f"no action {shown!r} here (this server's actions: {known})"))

    def interrupt_running(self, seconds: float = INTERRUPT_SECONDS) -> int:
        """The server is stopping: interrupt the Spark execution of every running DoGet by its
        operation tag, at once and all together (a DoGet still waiting for its first batch
        would otherwise hold its execution until the session is released), each DoGet ending
        CANCELLED; wait at most ``seconds`` for Spark's answers. The number interrupted."""
        with self._lock:
            running = list(self._running.values())
        threads = [
            threading.Thread(target=e.interrupt_now, name=f"connect-plan-serve-stop-{e.tag[-8:]}", daemon=True)
            for e in running
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds)
        return len(running)

    def _cancel(self, caller: Caller, info: Any) -> bool:
        """Stop every running (or waiting) ticket of ``info`` that ``caller`` holds."""
        done = False
        for endpoint in info.endpoint:
            try:
                _, ticket = unpack(endpoint.ticket.ticket, frozenset({"TicketStatementQuery"}))
            except CommandError:
                continue
            handle = ticket.statement_handle
            if self.tickets.get(caller.name, handle, remove=True) is not None:
                done = True
            with self._lock:
                running = self._running.get((caller.name, handle))
            if running is not None:
                running.stop()
                done = True
        return done

    # ------------------------------------------------------------ results

    def do_get(self, caller: Caller, request: bytes, context: Any) -> Iterator[bytes]:
        ticket = parse(f"{FLIGHT}.Ticket", request)
        name, command = unpack(ticket.ticket, _TICKETS)
        if name != "TicketStatementQuery":
            yield from _table_stream(self._metadata(caller, name, command))
            return
        handle = command.statement_handle
        statement = self.tickets.get(caller.name, handle, remove=True)
        if statement is None:
            raise _Abort(Status("NOT_FOUND", "no such ticket (used already, cancelled, expired, or another caller's)"))
        execution = Execution(self.callers.client(caller, statement=True))
        key = (caller.name, handle)
        with self._lock:
            self._running[key] = execution
        try:
            # the call ended (done, cancelled, or the client went away): registered before the
            # statement runs (gRPC runs no callback added after the call ended), so that a client
            # gone while Spark computes the first batch ends the execution at once
            context.add_callback(execution.stop)
            yield from self._results(statement, execution)
        finally:
            execution.finish()
            with self._lock:
                self._running.pop(key, None)

    def _results(self, statement: Statement, execution: Execution) -> Iterator[bytes]:
        """The statement run, its Spark execution tagged as ``execution``'s, its batches framed as
        FlightData in the schema its FlightInfo announced; the execution is released when the
        stream ends, however it ends, and interrupted at once when ``execution`` is stopped."""
        import pyarrow as pa

        announced = statement.schema
        assert announced is not None
        client, tag = execution.client, execution.tag
        try:
            if statement.plan.output is not None:
                yield from _table_stream(client.execute(statement.plan, tag=tag), announced)
                return
            result = spark_batches(client, statement.plan, tag=tag)
            execution.opened.set()
        except ServerError:
            if execution.stopped.is_set():
                raise _Abort(Status("CANCELLED", "the query was cancelled, or its client went away")) from None
            raise
        try:
            if execution.stopped.is_set():
                raise _Abort(Status("CANCELLED", "the query was cancelled, or its client went away"))
            conform = _conformer(announced, result.schema)
            # Spark's own IPC messages go out as they came when the batch is laid out as announced
            # (the same types: the announced schema message says the rest) and not cast or cut
            forward = _same_types(announced, result.schema)
            yield flight_data(pa.ipc.read_message(announced.serialize()).metadata)
            for batch, spark_message in result:
                if execution.stopped.is_set():
                    raise _Abort(Status("CANCELLED", "the query was cancelled (CancelFlightInfo)"))
                conformed = conform(batch)  # checked (a NULL where none was announced) in every case
                if forward and spark_message is not None and spark_message.body.size <= MAX_BATCH_BYTES:
                    yield flight_data(spark_message.metadata, spark_message.body)
                    continue
                for piece in _pieces(conformed):
                    msg = pa.ipc.read_message(piece.serialize())
                    yield flight_data(msg.metadata, msg.body)
        except ServerError:
            if execution.stopped.is_set():
                raise _Abort(Status("CANCELLED", "the query was cancelled, or its client went away")) from None
            raise
        finally:
            result.close()  # releases the Spark execution if it did not end

    def _metadata(self, caller: Caller, name: str, command: Any) -> pa.Table:
        policy = caller.policy
        if name == "CommandGetSqlInfo":
            return sql_info(policy, command.info)
        if name == "CommandGetTableTypes":
            return self.catalog.table_types()
        client = self.callers.client(caller)
        if name == "CommandGetCatalogs":
            return self.catalog.catalogs(client, policy)
        catalog = command.catalog if command.HasField("catalog") else None
        db_pattern = command.db_schema_filter_pattern if command.HasField("db_schema_filter_pattern") else None
        if name == "CommandGetDbSchemas":
            return self.catalog.db_schemas(client, policy, catalog, db_pattern)
        table_pattern = command.table_name_filter_pattern if command.HasField("table_name_filter_pattern") else None
        return self.catalog.table_list(
            client, policy, catalog, db_pattern, table_pattern, command.table_types, command.include_schema
        )


class Execution:
    """The Spark execution of one DoGet, known by an operation tag of its own (the Spark
    session is the caller's): :meth:`stop` (CancelFlightInfo, or gRPC's callback when the call
    ends: its client went away) interrupts it on Spark at once, from a thread of its own,
    whatever the DoGet is doing: still waiting for the first batch (Spark computing it, the
    stream not yet open), or streaming.

    * Before the first batch, the Interrupt is sent again every :data:`INTERRUPT_RETRY_SECONDS`
      while Spark answers that no execution carries the tag (the ExecutePlan had not reached
      it yet), until the DoGet ends (:meth:`finish`) or for at most :data:`INTERRUPT_SECONDS`.
    * Once streaming (:attr:`opened`), the DoGet's own end comes first: a client gone has
      its generator closed by gRPC, a cancelled one ends at its next batch, and either way the
      stream releases the execution whole, which Spark interrupts. Only a DoGet still running
      :data:`RELEASE_FIRST_SECONDS` later (blocked on Spark's next batch, or on a client that
      neither reads nor leaves) gets the Interrupt. The order matters: a release that reaches
      Spark while an interrupted execution winds down is refused, and the execution then
      lingers as running (seen: 1 run in 3 of the CancelFlightInfo test when both were sent
      at once). An execution that has sent Spark's whole result is not interrupted, and need
      not be: the release ends it."""

    def __init__(self, client: Client) -> None:
        import secrets

        self.client = client
        #: the execution's operation tag (unique, and in the caller's own Spark session)
        self.tag = f"connect-plan-serve-{secrets.token_hex(8)}"
        #: set by :meth:`stop`: the DoGet ends CANCELLED
        self.stopped = threading.Event()
        #: set once the stream is open (Spark answered the ExecutePlan)
        self.opened = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()

    def stop(self) -> None:
        with self._lock:
            if self.stopped.is_set() or self._done.is_set():
                return
            self.stopped.set()
        threading.Thread(
            target=self._interrupt, name=f"connect-plan-serve-interrupt-{self.tag[-8:]}", daemon=True
        ).start()

    def interrupt_now(self) -> None:
        """Stop the DoGet and interrupt its execution now, in this thread (the server stopping:
        no release of the stream comes first, the stream is ended by the server's stop)."""
        with self._lock:
            if self._done.is_set():
                return
            self.stopped.set()
        try:
            interrupted = self.client.interrupt(self.tag, timeout=INTERRUPT_SECONDS)
        except Exception as exc:  # Spark gone: the session's release at the end is all there is
            log.info("could not interrupt the execution %s: %s", self.tag, exc)
            return
        log.info("interrupted the execution %s (operation %s)", self.tag, ", ".join(interrupted) or "none yet")

    def finish(self) -> None:
        """The DoGet ended: nothing is left to interrupt (a stop after this is a no-op)."""
        with self._lock:
            self._done.set()

    def _interrupt(self) -> None:
        import time

        if self.opened.is_set() and self._done.wait(RELEASE_FIRST_SECONDS):
            return  # the DoGet ended, its stream released: Spark ends a released execution itself
        until = time.monotonic() + INTERRUPT_SECONDS
        while not self._done.is_set():
            try:
                interrupted = self.client.interrupt(self.tag, timeout=INTERRUPT_SECONDS)
            except Exception as exc:  # the server shutting down, Spark gone: its own timeouts end it
                log.info("could not interrupt the execution %s: %s", self.tag, exc)
                return
            if interrupted:
                log.info("interrupted the execution %s (operation %s)", self.tag, ", ".join(interrupted))
                return
            if self.opened.is_set() or time.monotonic() > until:
                return
            self._done.wait(INTERRUPT_RETRY_SECONDS)


def write_report() -> pa.Schema:
    """The schema of the one-row report a plan that writes (or makes a view) returns
    (:meth:`connect_plan.Client.execute`)."""
    import pyarrow as pa

    return pa.schema(
        [
            ("operation", pa.string()),
            ("target", pa.string()),
            ("format", pa.string()),
            ("mode", pa.string()),
            ("partition_by", pa.list_(pa.string())),
            ("rows", pa.int64()),
        ]
    )


def _table_stream(table: pa.Table, announced: pa.Schema | None = None) -> Iterator[bytes]:
    """A whole table as FlightData (in the ``announced`` schema, when given)."""
    import pyarrow as pa

    schema = announced or table.schema
    conform = _conformer(schema, table.schema)
    yield flight_data(pa.ipc.read_message(schema.serialize()).metadata)
    for batch in map(conform, table.to_batches()):
        msg = pa.ipc.read_message(batch.serialize())
        yield flight_data(msg.metadata, msg.body)


def _pieces(batch: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
    """``batch`` in slices of at most :data:`MAX_BATCH_BYTES` (a batch of one larger row whole)."""
    size = batch.nbytes
    if size <= MAX_BATCH_BYTES or batch.num_rows <= 1:
        yield batch
        return
    step = max(1, batch.num_rows * MAX_BATCH_BYTES // size)
    for start in range(0, batch.num_rows, step):
        yield batch.slice(start, step)


def _same_types(announced: pa.Schema, actual: pa.Schema) -> bool:
    """Are a batch of ``actual`` schema's buffers those of one of ``announced``: the same
    number of columns, each of the same type (names, nullability and metadata are the schema
    message's, not the batch's)?"""
    return len(actual) == len(announced) and all(a.type.equals(b.type) for a, b in zip(actual, announced))


def _conformer(announced: pa.Schema, actual: pa.Schema) -> Callable[[pa.RecordBatch], pa.RecordBatch]:
    """How each batch of ``actual`` schema is sent in the ``announced`` one (the FlightInfo's:
    a client checks that they are equal). The same names and types: the batches are labelled with
    the announced schema (its nullability and metadata), a column announced not null checked for
    nulls; anything else is an error, never a silent change."""
    import pyarrow as pa

    if actual.equals(announced):
        return lambda batch: batch
    same = _same_types(announced, actual) and all(a.name == b.name for a, b in zip(actual, announced))
    if not same:
        hint = " (the tables changed since the statement was prepared: prepare it again)"
        raise ResultContractError(
            [
                ErrorDetail(
                    "result_contract",
                    "",
                    f"the result's schema is not the one announced for this statement{hint}: announced "
                    f"{announced.to_string(show_schema_metadata=False)!r}, got {actual.to_string(show_schema_metadata=False)!r}",
                )
            ],
            "/",
        )
    required = [i for i, f in enumerate(announced) if not f.nullable]

    def conform(batch: pa.RecordBatch) -> pa.RecordBatch:
        for i in required:
            if batch.column(i).null_count:
                raise ResultContractError(
                    [
                        ErrorDetail(
                            "result_contract",
                            "",
                            f"column {announced.field(i).name!r} was announced not null, and Spark returned a NULL in it",
                        )
                    ],
                    "/",
                )
        return pa.RecordBatch.from_arrays(batch.columns, schema=announced)

    return conform
