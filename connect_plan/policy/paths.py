"""Paths as a policy compares them: normalised as Hadoop resolves them (:func:`parse_path`),
the scheme and host case-insensitively, ``//`` and ``.`` segments collapsed; ``..``
segments, percent escapes, brace globs, backslashes and commas refused."""

from __future__ import annotations

import re

from ..records import Value, frozen

__all__ = ["PathLocation", "parse_path"]

#: characters a path may not contain: percent escapes (decoded or not depending on the file
#: system), brace globs (expanded across '/'), backslashes, commas (lists in some readers)
_BAD_PATH_CHARS = re.compile(r"[%{}\\,\x00-\x1f\x7f]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$", re.S)


@frozen
class PathLocation(Value):
    """A normalised path: scheme ('' for a bare path, resolved by the server's default file
    system), authority (host, bucket) and segments."""

    scheme: str
    authority: str
    segments: tuple[str, ...]

    def __str__(self) -> str:
        head = f"{self.scheme}://{self.authority}" if self.scheme else ""
        return head + "/" + "/".join(self.segments)

    def under(self, prefix: PathLocation) -> bool:
        return (
            self.scheme == prefix.scheme
            and self.authority == prefix.authority
            and self.segments[: len(prefix.segments)] == prefix.segments
        )


def parse_path(text: str) -> PathLocation | str:
    """A path (``/a/b``, ``file:/a``, ``file:///a``, ``s3a://bucket/a``) normalised as Hadoop
    resolves it, or the reason it is refused (a string)."""
    if not text or _BAD_PATH_CHARS.search(text):
        return "has a character paths may not hold here (%, {, }, \\, ',' or a control character)"
    scheme = ""
    rest = text
    m = _SCHEME.match(text)
    if m is not None and "/" not in m.group(1):
        scheme, rest = m.group(1).lower(), m.group(2)
    authority = ""
    if rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        authority = authority.lower()
        rest = slash + tail
        if scheme == "file" and authority not in ("", "localhost"):
            return "a file: path with a host"
        if scheme == "file":
            authority = ""
        if not scheme:
            return "a path starting with '//' (a host without a scheme)"
    if not rest.startswith("/"):
        return "not an absolute path"
    if ":" in rest:
        return "':' inside a path"
    segments = tuple(s for s in rest.split("/") if s not in ("", "."))
    if ".." in segments:
        return "a '..' segment"
    return PathLocation(scheme, authority, segments)
