"""Where each inline input table goes: into the plan, or into the server's artifact cache.

Translation is pure, so it leaves every ``local_relation`` empty and lists the tables
(``translate_ir(inline_data=False)`` → ``Translation.local_data``). Before a plan is sent,
:meth:`InputPlacer.fill` decides per table, as PySpark's ``createDataFrame`` does, except
that a table used several times in one plan (a ``with`` definition referenced k times, whose
relation Spark Connect can only copy into each use) weighs k times its size:

* below the server's ``spark.sql.session.localRelationCacheThreshold`` → inline Arrow IPC
  in ``LocalRelation.data`` (serialised once, the same bytes in every use);
* at or above it → uploaded once as cache artifacts (named by SHA-256) with the transport's
  ``cache_artifacts`` (PySpark's own call), and every use references them as ``ChunkedCachedLocalRelation``
  (servers with ``spark.sql.session.localRelationChunkSizeRows``, i.e. Spark ≥ 4.1) or
  ``CachedLocalRelation`` (one artifact; Spark 4.0);
* servers without the cache (no threshold setting, or AddArtifacts unimplemented) get
  inline data, or :class:`~connect_plan.errors.InputTooLargeError` naming the size and the
  gRPC message limit when the plan cannot fit.

The settings are read from the server in one ``Config`` RPC, the first time a plan with
inline data is sent in a session (so a session's first such query pays one round trip, and
no later query does), and read again only after the session sets one of them
(:meth:`InputPlacer.conf_changed`). No threshold is assumed on the client: a server whose
threshold is 1 KiB gets its 2 KiB tables as artifacts. Chunks already uploaded in this
session are not uploaded again, and re-running a plan over the same ``pyarrow.Table``
object reuses its hashes without serialising or hashing it again.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .data import fill_local_relation, ipc_chunks, nbytes_bound, serialize_ipc
from .errors import InputTooLargeError, ServerError
from .records import Value, frozen

if TYPE_CHECKING:
    import pyarrow as pa
    from google.protobuf.message import Message

    from .translator import LocalData
    from .transport import Transport

__all__ = ["CacheSettings", "InputPlacer"]

log = logging.getLogger("connect_plan")

#: most bytes of chunks held in memory for one upload call (PySpark holds up to the
#: server's localRelationBatchOfChunksSizeBytes, 1 GiB by default)
UPLOAD_BATCH_BYTES = 64 * 1024 * 1024
_KEYS = (
    "spark.sql.session.localRelationCacheThreshold",
    "spark.sql.session.localRelationChunkSizeRows",
    "spark.sql.session.localRelationChunkSizeBytes",
    "spark.sql.session.localRelationBatchOfChunksSizeBytes",
    "spark.connect.grpc.maxInboundMessageSize",
)
#: gRPC statuses of a settings read that say nothing about the server's settings (it was not
#: reached, or the session is gone): those errors propagate instead of meaning "no cache"
_NOT_AN_ANSWER = (
    "UNAVAILABLE",
    "DEADLINE_EXCEEDED",
    "CANCELLED",
    "UNAUTHENTICATED",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "ABORTED",
)
_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
}
_BYTES_RE = re.compile(r"\s*(\d+)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_bytes(text: str | None) -> int | None:
    """Spark's byte-size strings (``1048576``, ``134217728b``, ``64m``) → bytes."""
    if text is None:
        return None
    m = _BYTES_RE.fullmatch(text)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


@frozen
class CacheSettings(Value):
    """What the server says about local relations (None threshold: no artifact cache)."""

    threshold: int | None
    chunked: bool
    chunk_rows: int
    chunk_bytes: int
    batch_bytes: int
    max_message: int

    @classmethod
    def from_conf(cls, conf: dict[str, str | None], client_limit: int) -> CacheSettings:
        threshold, rows, chunk, batch, inbound = (conf.get(k) for k in _KEYS)
        server_limit = parse_bytes(inbound)
        return cls(
            threshold=parse_bytes(threshold),
            chunked=parse_bytes(rows) is not None,
            chunk_rows=parse_bytes(rows) or 10_000,
            chunk_bytes=parse_bytes(chunk) or 16 << 20,
            batch_bytes=min(parse_bytes(batch) or UPLOAD_BATCH_BYTES, UPLOAD_BATCH_BYTES),
            max_message=min(client_limit, server_limit) if server_limit else client_limit,
        )


def _refused(exc: ServerError) -> bool:
    """Did the server refuse the artifact RPCs themselves (no artifact support)? Spark
    before 3.5 answers UNIMPLEMENTED; Sail fails ArtifactStatus with a bare INTERNAL
    status ("handle artifact statuses"). A Spark error (with an error class), an
    unreachable server or a refused credential is not a refusal: those propagate."""
    if exc.error_class is not None:
        return False
    status = exc.grpc_status or ""
    return status in ("UNIMPLEMENTED", "INTERNAL", "UNKNOWN") or "UNIMPLEMENTED" in str(exc)[:200]


class InputPlacer:
    """Fills the empty local relations of translated plans for one client session."""

    def __init__(
        self, transport: Transport, call: Callable[[Callable[[], Any]], Any], version: Callable[[], str] | None = None
    ) -> None:
        self._transport = transport
        self._call = call  # runs server calls, mapping their failures to ServerError
        self._version = version  # the server's Spark version, probed once per session
        self._lock = threading.Lock()
        self._settings: CacheSettings | None = None
        self._raw: CacheSettings | None = None  # read ahead by prefetch(), not yet checked against the version
        self._artifacts = True  # False once the server refused AddArtifacts
        self._refusal = ""  # the server's answer when it did
        self._cached: set[str] = set()  # artifact hashes uploaded in this session
        self._by_table: dict[int, tuple[weakref.ref[pa.Table], bool, tuple[str, ...]]] = {}

    # ---------------------------------------------------------------- settings

    def settings(self) -> CacheSettings:
        if self._settings is None:
            with self._lock:
                if self._settings is None:
                    self._settings = self._for_version(self._raw_settings())
        return self._settings

    def prefetch(self) -> Callable[[], None]:
        """Start reading the settings in another thread (under this thread's operation
        deadline), so that a session's first query sends this ``Config`` together with
        its version probe: one round trip for both. Returns the function that waits for it.
        Best effort: a failed read is made again, in the caller's thread, when needed."""
        from .deadlines import deadline

        if self._settings is not None or self._raw is not None:
            return lambda: None
        with deadline() as at:
            pass

        def read() -> None:
            with contextlib.suppress(Exception), deadline(at=at):
                raw = self._read_settings()  # not under the lock: a caller that stops waiting is not blocked
                with self._lock:
                    if self._raw is None and self._settings is None:
                        self._raw = raw

        helper = threading.Thread(target=read, name="connect-plan-settings", daemon=True)
        helper.start()
        return helper.join

    def _raw_settings(self) -> CacheSettings:
        """The settings as the server's configuration says (read once, or prefetched)."""
        raw, self._raw = self._raw, None
        return raw if raw is not None else self._read_settings()

    def _read_settings(self) -> CacheSettings:
        from .spark_proto import pb

        op = pb.ConfigRequest.Operation(get_option=pb.ConfigRequest.GetOption(keys=list(_KEYS)))
        try:
            conf = dict(self._call(lambda: self._transport.config(op)))
        except ServerError as exc:
            if (exc.grpc_status or "") in _NOT_AN_ANSWER or (exc.error_class or "").startswith("INVALID_HANDLE"):
                raise  # not the server's answer: the query fails (or its session is renewed) as it would anyway
            # servers without these settings (or without GetOption) get inline data only
            log.debug("no local relation cache settings from the server: %s", exc)
            conf = {}
        return CacheSettings.from_conf(conf, self._client_limit())

    def _for_version(self, settings: CacheSettings) -> CacheSettings:
        """Chunked cached relations only where the server's version has them."""
        if settings.chunked and self._version is not None:
            from dataclasses import replace

            from .versions import supports

            try:
                version = self._version()
            except ServerError:
                version = ""
            if not supports(version, "chunked_cached_local_relation"):
                settings = replace(settings, chunked=False)
        return settings

    def conf_changed(self, keys: Iterable[str]) -> None:
        """The session set or unset ``keys``: settings among them are read again when next
        needed (a plan document's ``conf`` may lower the threshold for its execution)."""
        if (self._settings is not None or self._raw is not None) and not set(keys).isdisjoint(_KEYS):
            with self._lock:
                self._settings = self._raw = None

    def _client_limit(self) -> int:
        return self._transport.max_message_size

    # ---------------------------------------------------------------- placement

    def fill(self, message: Message, local: Sequence[LocalData]) -> None:
        """Put every table of ``local`` into its relation (inside ``message``, a plan or a
        relation), inline or as a cached relation; relations already filled are left alone.

        Uses of one table (the same object, or equal data) are decided together: k uses of
        a table of s bytes are k·s bytes inline, or one upload referenced k times."""
        groups = _group_uses(local)
        if not groups:
            return
        s = self.settings()
        inline_bytes = 0
        for table, relations in groups:
            if self._worth_caching(table, len(relations)) and self._place_cached(relations, table):
                continue
            data = serialize_ipc(table)
            for rel in relations:
                fill_local_relation(rel.local_relation, table, data)
            inline_bytes += len(data) * len(relations)
        limit = s.max_message
        if inline_bytes > limit // 2:  # only then is measuring the whole plan worth it
            size = message.ByteSize()
            if size > limit:
                if self._can_cache():
                    why = (
                        f"each table (times its uses) is under the server's localRelationCacheThreshold "
                        f"({s.threshold:,} bytes), so all went inline; lower that threshold"
                    )
                else:
                    why = "the server has no local relation cache (no artifact support"
                    if self._refusal:
                        why += f"; it refused the upload: {self._refusal[:200]}"
                    why += "); send less data inline"
                raise InputTooLargeError(
                    f"the plan with its inline input data is {size:,} bytes, over the gRPC message limit of "
                    f"{limit:,} bytes: {why}, or read the data on the server (e.g. from files)",
                    size=size,
                    limit=limit,
                )

    def _can_cache(self) -> bool:
        return self._artifacts and self.settings().threshold is not None

    def _worth_caching(self, table: pa.Table, uses: int) -> bool:
        """``_should_cache(table.nbytes * uses)``, without counting ``nbytes`` (~2 µs a
        column) where it cannot matter: a server without the cache, or a table whose cheap
        bound (:func:`~connect_plan.data.nbytes_bound`) is already under both limits."""
        s = self.settings()
        if s.threshold is None or not self._artifacts:
            return False
        bound = nbytes_bound(table)
        if bound is not None and bound * uses < s.threshold and bound * uses <= s.max_message // 2:
            return False  # nbytes × uses ≤ bound × uses: under the threshold and inline-able
        return self._should_cache(table.nbytes * uses)

    def _should_cache(self, size: int) -> bool:
        s = self.settings()
        if s.threshold is None or not self._artifacts:
            return False
        # also cache what could not travel inline, whatever the threshold says
        return size >= s.threshold or size > s.max_message // 2

    def _place_cached(self, relations: Sequence[Any], table: pa.Table) -> bool:
        """Upload ``table`` once (unless this session already did) and point every relation
        of ``relations`` at it; False when the server refuses artifacts."""
        s = self.settings()
        key = id(table)
        hit = self._by_table.get(key)
        if hit is not None and hit[0]() is table and hit[1] == s.chunked and set(hit[2]) <= self._cached:
            hashes = hit[2]
        else:
            try:
                hashes = self._upload(table, s)
            except ServerError as exc:
                if not _refused(exc):
                    raise
                log.info("the server does not support artifacts (%s); sending input data inline", exc)
                self._artifacts = False
                self._refusal = str(exc)
                return False

            def forget(_: object, key: int = key) -> None:
                self._by_table.pop(key, None)

            with self._lock:
                self._by_table[key] = (weakref.ref(table, forget), s.chunked, hashes)
        for rel in relations:
            if s.chunked:
                rel.chunked_cached_local_relation.dataHashes.extend(hashes)
            else:
                rel.cached_local_relation.hash = hashes[0]
        return True

    def _upload(self, table: pa.Table, s: CacheSettings) -> tuple[str, ...]:
        import hashlib  # only for uploads (~3 ms of every import otherwise)

        if s.chunked:
            chunks = ipc_chunks(table, s.chunk_rows, s.chunk_bytes)
        else:
            # a CachedLocalRelation's artifact is a serialised LocalRelation message
            from .spark_proto import pb

            chunks = iter([pb.LocalRelation(data=serialize_ipc(table)).SerializeToString()])
        hashes: list[str] = []
        pending: list[bytes] = []
        pending_bytes = 0
        for blob in chunks:
            digest = hashlib.sha256(blob).hexdigest()
            hashes.append(digest)
            if digest in self._cached:
                continue
            if pending and pending_bytes + len(blob) > s.batch_bytes:
                self._send(pending)
                pending, pending_bytes = [], 0
            pending.append(blob)
            pending_bytes += len(blob)
        if pending:
            self._send(pending)
        return tuple(hashes)

    def _send(self, blobs: list[bytes]) -> None:
        """One ArtifactStatus + one AddArtifacts RPC (the transport skips blobs the server
        already holds and retries transient failures)."""
        transport = self._transport
        hashes = self._call(lambda: transport.cache_artifacts(blobs))
        with self._lock:
            self._cached.update(hashes)


def _group_uses(local: Sequence[LocalData]) -> list[tuple[pa.Table, list[Any]]]:
    """The empty relations of ``local`` grouped by table, in first-use order: uses of the
    same table object (a shared sub-plan emitted into each use), and of tables with equal
    data (the same rows written twice), form one group. Equality is checked only between
    tables of the same row count and schema (``Table.equals``, in C++, which stops at the
    first difference; ``nbytes`` is not used here: it costs ~10 µs a table)."""
    groups: list[tuple[pa.Table, list[Any]]] = []
    by_id: dict[int, int] = {}
    by_shape: dict[int, list[int]] = {}
    for item in local:
        rel = item.relation
        if rel.WhichOneof("rel_type") is not None:
            continue
        table = item.table
        at = by_id.get(id(table))
        if at is None:
            shape = table.num_rows
            for candidate in by_shape.get(shape, ()):
                other = groups[candidate][0]
                if other.schema.equals(table.schema, check_metadata=True) and other.equals(table):
                    at = candidate
                    break
            if at is None:
                at = len(groups)
                groups.append((table, []))
                by_shape.setdefault(shape, []).append(at)
            by_id[id(table)] = at
        groups[at][1].append(rel)
    return groups
