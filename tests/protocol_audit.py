"""Which parts of a request an older Spark Connect server would not understand.

``tests/data/spark_connect_protos/<version>.fds.gz`` hold the Spark Connect protocol
(``spark/connect/*.proto``) as released with PySpark 3.5.9, 4.0.4, 4.1.3 and 4.2.0 — the
descriptors compiled into each release's ``pyspark/sql/connect/proto/*_pb2.py``, extracted
without importing them. A request connect_plan builds with the installed PySpark's protos is
parsed with an older release's descriptors, in a pool of its own: every field that release
does not have comes back as an unknown field, and every enum value it does not have as an
unknown number. A server of that release parses requests the same way (protobuf keeps
unknown fields and never looks at them), so what this finds is exactly what such a server
would silently ignore.
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2
from google.protobuf.message import Message

DATA = Path(__file__).resolve().parent / "data" / "spark_connect_protos"
#: releases whose protocol is on file, oldest first
VERSIONS: tuple[tuple[int, int], ...] = tuple(
    sorted(tuple(int(x) for x in p.name.split(".")[:2]) for p in DATA.glob("*.fds.gz"))
)  # type: ignore[misc]


@functools.cache
def pool(version: tuple[int, int]) -> descriptor_pool.DescriptorPool:
    p = descriptor_pool.DescriptorPool()
    added = set()
    for module in (any_pb2, timestamp_pb2):  # the only imports outside spark/connect
        well_known = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(well_known)
        p.Add(well_known)
        added.add(well_known.name)
    fds = descriptor_pb2.FileDescriptorSet.FromString(
        gzip.decompress((DATA / f"{version[0]}.{version[1]}.fds.gz").read_bytes())
    )
    pending = {f.name: f for f in fds.file}
    while pending:  # dependencies first
        ready = [f for f in pending.values() if all(d in added for d in f.dependency)]
        assert ready, f"unresolvable imports in {version}: {sorted(pending)}"
        for f in ready:
            p.Add(f)
            added.add(f.name)
            del pending[f.name]
    return p


def has_field(version: tuple[int, int], message: str, field: str) -> bool:
    """Whether ``spark.connect.<message>`` has ``field`` in that release."""
    try:
        desc = pool(version).FindMessageTypeByName(f"spark.connect.{message}")
    except KeyError:
        return False
    return field in desc.fields_by_name


def not_understood(request: Message, version: tuple[int, int]) -> list[str]:
    """Paths of the fields (``Relation.with_columns_renamed.renames``) and enum values that a
    server of ``version`` would not know in ``request`` (a message of the installed PySpark)."""
    name = request.DESCRIPTOR.full_name
    old_class = message_factory.GetMessageClass(pool(version).FindMessageTypeByName(name))
    old = old_class.FromString(request.SerializeToString())
    return sorted(set(_walk(request, old, request.DESCRIPTOR.name)))


def _walk(new: Any, old: Any, path: str) -> Iterator[str]:
    from google.protobuf.unknown_fields import UnknownFieldSet

    by_number = new.DESCRIPTOR.fields_by_number
    for f in UnknownFieldSet(old):
        known = by_number.get(f.field_number)
        yield f"{new.DESCRIPTOR.name}.{known.name if known else '#' + str(f.field_number)}"
    for fd, value in old.ListFields():
        new_fd = by_number[fd.number]
        new_value = getattr(new, new_fd.name)
        where = f"{path}.{fd.name}"
        if fd.type == fd.TYPE_MESSAGE:
            if fd.message_type.GetOptions().map_entry:
                value_fd = fd.message_type.fields_by_name["value"]
                if value_fd.type == value_fd.TYPE_MESSAGE:
                    for k in value:
                        yield from _walk(new_value[k], value[k], f"{where}[]")
            elif fd.is_repeated:
                for n, o in zip(new_value, value):
                    yield from _walk(n, o, where)
            else:
                yield from _walk(new_value, value, where)
        elif fd.type == fd.TYPE_ENUM:
            for v in value if fd.is_repeated else [value]:
                if fd.enum_type.values_by_number.get(v) is None:
                    yield f"{new.DESCRIPTOR.name}.{fd.name}={new_fd.enum_type.values_by_number[v].name}"
