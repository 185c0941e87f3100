"""Spark names, one owner: quoting a name part, reading a name's parts, a table's key.

Every front-end, the translator, the types and the policy spell and read Spark's names
through these, so that one rule has one home:

* :func:`quote` — one name part in backticks, a backtick inside doubled: the part stays one
  part whatever it holds (a DDL column, an attribute Spark reads back with
  ``parseAttributeName``);
* :func:`attribute_parts` — the parts Spark's ``parseAttributeName`` reads from an
  unparsed identifier (``a.b``, ```a.b`.c``), and :func:`attribute_part` — one part
  written back so that Spark reads it the same way;
* :func:`field_text` — a struct field's name in a Spark type string (``struct<a:int,`a b`:int>``);
* :func:`parse_table_name`, :func:`table_key`, :func:`pattern_key` — a table name read the
  strict way a policy reads it (only ``a.b.c`` and backtick-quoted parts of plain
  characters: what Spark's parser accepts beyond this is refused rather than guessed),
  and the ``(catalog, database, table)`` key Spark resolves it to.

Base layer: imports nothing of connect_plan's.
"""

from __future__ import annotations

import re

__all__ = [
    "SESSION_CATALOG",
    "attribute_part",
    "attribute_parts",
    "field_text",
    "parse_table_name",
    "pattern_key",
    "quote",
    "table_key",
]

#: Spark's session catalog: names of one or two parts resolve in it
SESSION_CATALOG = "spark_catalog"

#: one table name part: backtick-quoted (doubled backticks inside) or plain
_PART = re.compile(r"`((?:[^`]|``)*)`|([A-Za-z0-9_]+)")
#: what a table name part may hold once unquoted (ASCII, no separators, no quotes)
_PLAIN_PART = re.compile(r"[A-Za-z0-9_\-$ ]+")
#: a name a Spark type string needs no quotes for
_PLAIN_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote(name: str) -> str:
    """``name`` as one backtick-quoted part (a backtick inside doubled)."""
    return "`" + name.replace("`", "``") + "`"


def attribute_part(text: str) -> str:
    """One name part as Spark reads it back: plain when nothing in it can be misread (no dot,
    no backtick), else :func:`quote`'d."""
    return text if text and "." not in text and "`" not in text else quote(text)


def field_text(name: str) -> str:
    """A struct field's name in a Spark type string: plain when it is a simple identifier,
    else :func:`quote`'d."""
    return name if _PLAIN_FIELD.fullmatch(name) else quote(name)


def attribute_parts(name: str) -> list[str] | None:
    """The name parts Spark reads from an unparsed identifier (its ``parseAttributeName``:
    dots separate parts, backticks quote, a doubled backtick is one), or None where Spark
    would refuse the text (a stray backtick, an empty part)."""
    if name and "." not in name and "`" not in name:
        return [name]  # a plain name, the usual case
    parts: list[str] = []
    cur: list[str] = []
    quoted = False  # inside backticks
    closed = False  # the current part was a closed quote: only a dot may follow
    i, n = 0, len(name)
    while i < n:
        c = name[i]
        if quoted:
            if c == "`":
                if i + 1 < n and name[i + 1] == "`":
                    cur.append("`")
                    i += 1
                else:
                    quoted, closed = False, True
            else:
                cur.append(c)
        elif c == ".":
            if (not cur and not closed) or i == n - 1:
                return None
            parts.append("".join(cur))
            cur, closed = [], False
        elif closed or (c == "`" and cur):
            return None
        elif c == "`":
            quoted = True
        else:
            cur.append(c)
        i += 1
    if quoted or (not cur and not closed):
        return None
    parts.append("".join(cur))
    return parts


def parse_table_name(text: str) -> tuple[str, ...] | None:
    """The parts of a table name written ``a.b.c`` or with backticks (```a`.`b```, doubled
    backticks inside), or None if it is in any other form (whitespace, comments, an empty
    part, a part holding '.', '/', ':', non-ASCII...): Spark's parser accepts more, and what
    it accepts beyond this is refused rather than guessed."""
    parts: list[str] = []
    i = 0
    while True:
        m = _PART.match(text, i)
        if m is None:
            return None
        part = m.group(1).replace("``", "`") if m.group(1) is not None else m.group(2)
        if not _PLAIN_PART.fullmatch(part) or part != part.strip():
            return None
        parts.append(part)
        i = m.end()
        if i == len(text):
            return tuple(parts)
        if text[i] != ".":
            return None
        i += 1


def table_key(parts: tuple[str, ...], current_database: str) -> tuple[str, str, str] | None:
    """``(catalog, database, table)`` as Spark resolves a name's parts, lower-cased (the
    session catalog is case-insensitive); None for a form this check does not resolve
    (four parts or more, ``spark_catalog.t``)."""
    low = tuple(p.lower() for p in parts)
    if len(low) == 1:
        return (SESSION_CATALOG, current_database.lower(), low[0])
    if len(low) == 2:
        if low[0] == SESSION_CATALOG:
            return None
        return (SESSION_CATALOG, low[0], low[1])
    if len(low) == 3:
        return (low[0], low[1], low[2])
    return None


def pattern_key(pattern: str, current_database: str) -> tuple[str, str, str] | None:
    """The key of a table pattern (``db.t``, ``db.*``, ```db`.t``; parts may hold wildcards),
    as :func:`table_key` resolves a name; None for a pattern of no such form."""
    parts = tuple(p.strip("`").lower() for p in pattern.split("."))
    if not all(parts) or len(parts) > 3:
        return None
    if len(parts) == 1:
        return (SESSION_CATALOG, current_database.lower(), parts[0])
    if len(parts) == 2:
        return (SESSION_CATALOG, parts[0], parts[1])
    return (parts[0], parts[1], parts[2])
