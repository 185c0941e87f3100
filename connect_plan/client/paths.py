"""Relative file paths of a plan, made absolute against the client's working directory when
the server is the local one connect_plan started (the same machine and file system).

A relative path sent as it is resolves in the *server's* working directory (for the local
server, its state directory: ``~/.cache/connect_plan/server/weather.parquet``), which no user
means. For any other server the paths are the server's, and are sent unchanged.

Rewritten: ``Read.DataSource`` paths and its ``path`` option, ``WriteOperation``'s path and
its ``path`` option. A path is relative when it neither starts with ``/`` nor names a URI
scheme (``file:``, ``s3a://``, ``hdfs://``...).
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

__all__ = ["absolute_paths", "is_relative"]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

_SOURCE = "spark.connect.Read.DataSource"
_WRITE = "spark.connect.WriteOperation"


def is_relative(path: str) -> bool:
    return bool(path) and not path.startswith("/") and not _SCHEME.match(path) and not path.startswith("~")


def _absolute(path: str, base: str) -> str:
    return os.path.normpath(os.path.join(base, path)) if is_relative(path) else path


def absolute_paths(message: Any, base: str) -> None:
    """Rewrite, in place, every relative file path in ``message`` (a Spark Connect proto)
    against the directory ``base``.

    The walk enters only the fields whose message type can hold a ``Read.DataSource`` or a
    ``WriteOperation`` (:func:`_path_fields`): a plan's expressions, literals and inline
    data, which cannot, are never visited."""
    fields = _path_fields(message.DESCRIPTOR)
    stack = [message]
    while stack:
        msg = stack.pop()
        name = msg.DESCRIPTOR.full_name
        if name == _SOURCE:
            paths = [_absolute(p, base) for p in msg.paths]
            del msg.paths[:]
            msg.paths.extend(paths)
        if name == _WRITE and msg.HasField("path"):
            msg.path = _absolute(msg.path, base)
        if name in (_SOURCE, _WRITE) and "path" in msg.options:
            msg.options["path"] = _absolute(msg.options["path"], base)
        for which, kind in fields.get(name, ()):
            if kind == _ONEOF:  # which: the oneof's name → its fields that lead to a path
                chosen = msg.WhichOneof(which[0])
                if chosen is None or chosen not in which[1]:
                    continue
                which, kind = chosen, which[1][chosen]
            elif kind == _SINGLE and not msg.HasField(which):
                continue
            value = getattr(msg, which)
            if kind == _MAP:
                stack.extend(value.values())
            elif kind == _REPEATED:
                stack.extend(value)
            else:
                stack.append(value)


_SINGLE, _REPEATED, _MAP, _ONEOF = 0, 1, 2, 3


def _is_repeated(field: Any) -> bool:
    return bool(field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED)


@functools.lru_cache(maxsize=8)
def _path_fields(root: Any) -> dict[str, tuple[tuple[Any, int], ...]]:
    """For each message type reachable from ``root`` (a message descriptor) that can hold a
    ``Read.DataSource`` or a ``WriteOperation`` (itself, or through any chain of fields):
    its fields that lead to one, each as ``(name, how it holds messages: one, a list, a
    map's values)``, and the fields of a oneof as one entry ``((oneof name, {field name:
    how}), _ONEOF)`` (a relation has some sixty, of which one is set). Computed once per
    root type from the descriptors."""
    edges: dict[str, list[tuple[Any, int, str]]] = {}  # type → (field, how, field's message type)
    todo = [root]
    while todo:
        desc = todo.pop()
        if desc.full_name in edges:
            continue
        out = edges[desc.full_name] = []
        for field in desc.fields:
            target = field.message_type
            if target is None:
                continue
            kind = _REPEATED if _is_repeated(field) else _SINGLE
            if target.GetOptions().map_entry:
                target = target.fields_by_name["value"].message_type
                if target is None:  # a map of scalars (options)
                    continue
                kind = _MAP
            out.append((field, kind, target.full_name))
            todo.append(target)
    holds = {_SOURCE, _WRITE} & set(edges)
    changed = True
    while changed:  # a fixpoint: message types contain one another (relations, expressions)
        changed = False
        for name, links in edges.items():
            if name not in holds and any(target in holds for _, _, target in links):
                holds.add(name)
                changed = True
    plans: dict[str, tuple[tuple[Any, int], ...]] = {}
    for name, links in edges.items():
        if name not in holds:
            continue
        entries: list[tuple[Any, int]] = []
        oneofs: dict[str, dict[str, int]] = {}
        for field, kind, target in links:
            if target not in holds:
                continue
            oneof = field.containing_oneof
            if oneof is not None and kind == _SINGLE:
                if oneof.name not in oneofs:
                    oneofs[oneof.name] = {}
                    entries.append(((oneof.name, oneofs[oneof.name]), _ONEOF))
                oneofs[oneof.name][field.name] = kind
            else:
                entries.append((field.name, kind))
        plans[name] = tuple(entries)
    return plans
