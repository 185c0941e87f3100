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
    against the directory ``base``."""
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
        for desc, value in msg.ListFields():
            if desc.message_type is None:
                continue
            if desc.message_type.GetOptions().map_entry:
                if desc.message_type.fields_by_name["value"].message_type is not None:
                    stack.extend(value.values())
            elif desc.is_repeated if hasattr(desc, "is_repeated") else desc.label == desc.LABEL_REPEATED:
                stack.extend(value)
            else:
                stack.append(value)
