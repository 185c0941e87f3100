"""The metadata commands: ``CommandGetSqlInfo``, ``GetCatalogs``, ``GetDbSchemas``, ``GetTables``
(with schemas) and ``GetTableTypes``, from Spark's catalog (Spark Connect's catalog relations:
:func:`~connect_plan.client.catalog.catalog_listing`) and the server's ``--table`` names,
filtered by the caller's policy: a caller sees a table only if its policy lets it read that
table (the same check a plan reading it meets), a database or catalog only if it sees a table
there (a trusted caller sees everything).

Flight SQL's filter patterns (``%`` any run, ``_`` one character) are applied here, to what
Spark listed, case-insensitively as Spark compares names: nothing a caller writes reaches Spark
as a pattern or as SQL text. Table types are those of Spark's Thrift server: ``TABLE`` (managed,
external, and the ``--table`` names) and ``VIEW`` (views and temporary views).

With ``include_schema``, a table whose schema Spark cannot give (its files are gone, a view is
broken) is left out of the answer, and the server's log says why.

Spark lists the databases of the session's current catalog only (``spark_catalog`` unless the
session changed it); another catalog is listed, with no databases under it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import PlanError, ServerError
from .messages import enum_value, schemas

if TYPE_CHECKING:
    import pyarrow as pa

    from ..client import Client
    from ..policy import Policy

__all__ = ["TABLE_TYPES", "Catalog", "TableEntry", "like", "sql_info"]

log = logging.getLogger("connect_plan.serve")

#: the table types listed (GetTableTypes), as Spark's Thrift server names them
TABLE_TYPES = ("TABLE", "VIEW")
_SPARK_TYPES = {"MANAGED": "TABLE", "EXTERNAL": "TABLE", "VIEW": "VIEW", "TEMPORARY": "VIEW"}

TableEntry = tuple[str | None, str | None, str, str, Any]  # catalog, db, table, type, source to read it


def like(pattern: str | None) -> Callable[[str | None], bool]:
    """A test of names against a Flight SQL filter pattern (``%`` any run, ``_`` one character, a
    backslash before either: itself, as JDBC's search string escape; None: anything)."""
    if pattern is None:
        return lambda name: True
    parts: list[str] = []
    escaped = False
    for c in pattern:
        if escaped or c not in "%_\\":
            parts.append(re.escape(c))
            escaped = False
        elif c == "\\":  # JDBC's search string escape: a literal % or _ follows
            escaped = True
        else:
            parts.append(".*" if c == "%" else ".")
    if escaped:
        parts.append(re.escape("\\"))
    rx = re.compile("".join(parts), re.IGNORECASE | re.DOTALL)
    return lambda name: name is not None and rx.fullmatch(name) is not None


def _quoted(*parts: str) -> str:
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


class Catalog:
    """The metadata of one server: its ``--table`` names (``tables``: name → source, as
    ``run --table`` makes them) and, per call, the caller's client and policy."""

    def __init__(self, tables: Mapping[str, Any] | None) -> None:
        self.tables = dict(tables or {})

    # ------------------------------------------------------------ what a caller may read

    @staticmethod
    def readable(policy: Policy | None, source: Any) -> bool:
        """Would ``policy`` let a plan read ``source`` (a JSON plan source)?"""
        if policy is None:
            return True
        from ..formats import load_plan

        try:
            policy.check(load_plan({"input": source, "plan": []}))
        except PlanError:
            return False
        return True

    def entries(
        self, client: Client, policy: Policy | None, catalog: str | None, db_pattern: str | None
    ) -> list[TableEntry]:
        """Every table the caller may read: the ``--table`` names, then Spark's catalog (of the
        databases matching ``catalog``/``db_pattern``), in Flight SQL's order."""
        from ..client.catalog import catalog_listing

        db_ok = like(db_pattern)
        out: list[TableEntry] = []
        for name, source in self.tables.items():
            parts = name.split(".")
            cat, db = (parts[-3] if len(parts) > 2 else None), (parts[-2] if len(parts) > 1 else None)
            if (catalog is None or (cat or "") == catalog) and (db_pattern is None or db_ok(db)):
                if self.readable(policy, source):
                    out.append((cat, db, parts[-1], "TABLE", source))
        if policy is not None and policy.tables == ():  # no table of Spark's catalog is readable: none asked
            out.sort(key=lambda e: (e[0] or "", e[1] or "", e[2], e[3]))
            return out
        databases = catalog_listing(client, "databases").to_pylist()
        # a temporary view resolves as a table of the current database would: it is listed there
        current = (
            catalog_listing(client, "current_catalog").column(0)[0].as_py(),
            catalog_listing(client, "current_database").column(0)[0].as_py(),
        )
        for row in databases:
            cat, db = row["catalog"], row["name"]
            if (catalog is not None and cat != catalog) or not db_ok(db):
                continue
            for t in catalog_listing(client, "tables", _quoted(cat, db) if cat else _quoted(db)).to_pylist():
                if t["isTemporary"]:
                    # the session's temporary views come with every database's listing: listed
                    # under the current database, where their names resolve
                    if (cat, db) != current:
                        continue
                    entry: TableEntry = (cat, db, t["name"], "VIEW", {"table": _quoted(t["name"])})
                else:
                    namespace = t["namespace"] or [db]
                    source = {"table": _quoted(t["catalog"] or cat, *namespace, t["name"])}
                    entry = (
                        t["catalog"] or cat,
                        ".".join(namespace),
                        t["name"],
                        _SPARK_TYPES.get(t["tableType"], "TABLE"),
                        source,
                    )
                if self.readable(policy, entry[4]):
                    out.append(entry)
        out.sort(key=lambda e: (e[0] or "", e[1] or "", e[2], e[3]))
        return out

    # ------------------------------------------------------------ the commands

    def catalogs(self, client: Client, policy: Policy | None) -> pa.Table:
        import pyarrow as pa

        from ..client.catalog import catalog_listing

        if policy is None:
            names = {row["name"] for row in catalog_listing(client, "catalogs").to_pylist()}
            names |= {e[0] for e in self.entries(client, policy, None, None) if e[0]}
        else:
            names = {e[0] for e in self.entries(client, policy, None, None) if e[0]}
        return pa.Table.from_pydict({"catalog_name": sorted(names)}, schema=schemas()["CommandGetCatalogs"])

    def db_schemas(self, client: Client, policy: Policy | None, catalog: str | None, pattern: str | None) -> pa.Table:
        import pyarrow as pa

        from ..client.catalog import catalog_listing

        pairs = {(e[0], e[1]) for e in self.entries(client, policy, catalog, pattern) if e[1] is not None}
        if policy is None:  # a trusted caller sees empty databases too
            ok = like(pattern)
            for row in catalog_listing(client, "databases").to_pylist():
                if (catalog is None or row["catalog"] == catalog) and ok(row["name"]):
                    pairs.add((row["catalog"], row["name"]))
        ordered = sorted(pairs, key=lambda p: (p[0] or "", p[1] or ""))
        return pa.Table.from_pylist(
            [{"catalog_name": c, "db_schema_name": d} for c, d in ordered], schema=schemas()["CommandGetDbSchemas"]
        )

    def table_list(
        self,
        client: Client,
        policy: Policy | None,
        catalog: str | None,
        db_pattern: str | None,
        table_pattern: str | None,
        types: Iterable[str],
        include_schema: bool,
    ) -> pa.Table:
        """``GetTables``; with ``include_schema``, each table's Arrow schema as a query reading
        it returns it (from Spark's analysis of that read, one AnalyzePlan per table)."""
        import pyarrow as pa

        wanted = {t.upper() for t in types}
        ok = like(table_pattern)
        rows: list[dict[str, Any]] = []
        for cat, db, name, kind, source in self.entries(client, policy, catalog, db_pattern):
            if not ok(name) or (wanted and kind not in wanted):
                continue
            row: dict[str, Any] = {"catalog_name": cat, "db_schema_name": db, "table_name": name, "table_type": kind}
            if include_schema:
                try:
                    schema = client.schema({"input": source, "plan": []}, policy=policy)
                except ServerError as err:
                    # a table Spark cannot read now (its files are gone, its view is broken) has no
                    # schema to give: the listing goes on without it, and the log says why
                    log.warning("GetTables: %s.%s.%s left out, Spark cannot read it: %s", cat, db, name, err)
                    continue
                row["table_schema"] = bytes(schema.serialize())
            rows.append(row)
        key = "CommandGetTables+schema" if include_schema else "CommandGetTables"
        return pa.Table.from_pylist(rows, schema=schemas()[key])

    @staticmethod
    def table_types() -> pa.Table:
        import pyarrow as pa

        return pa.Table.from_pydict({"table_type": list(TABLE_TYPES)}, schema=schemas()["CommandGetTableTypes"])


# ---------------------------------------------------------------------------- SqlInfo

_SQL_INFO = "arrow.flight.protocol.sql.SqlInfo"
_TRANSACTIONS = "arrow.flight.protocol.sql.SqlSupportedTransaction"
#: the union member of each kind of value (CommandGetSqlInfo's dense union, in order)
_MEMBERS = {str: 0, bool: 1, int: 3}


def _facts(policy: Policy | None) -> dict[str, str | bool | int]:
    from importlib.metadata import version

    import pyarrow

    writes = policy is None or bool(
        policy.write_tables != () or policy.write_paths != () or policy.temp_views or policy.global_temp_views
    )
    return {
        "FLIGHT_SQL_SERVER_NAME": "connect_plan serve (Spark Connect)",
        "FLIGHT_SQL_SERVER_VERSION": version("connect-plan"),  # the package's own (no import of it back)
        "FLIGHT_SQL_SERVER_ARROW_VERSION": pyarrow.__version__,
        "FLIGHT_SQL_SERVER_READ_ONLY": not writes,
        "FLIGHT_SQL_SERVER_SQL": policy is None or policy.sql,
        "FLIGHT_SQL_SERVER_SUBSTRAIT": True,
        "FLIGHT_SQL_SERVER_TRANSACTION": enum_value(_TRANSACTIONS, "SQL_SUPPORTED_TRANSACTION_NONE"),
        "FLIGHT_SQL_SERVER_CANCEL": True,
        "FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT": 0 if policy is None or policy.timeout is None else int(policy.timeout),
        "SQL_IDENTIFIER_QUOTE_CHAR": "`",
        "SQL_IDENTIFIER_CASE": enum_value(
            "arrow.flight.protocol.sql.SqlSupportedCaseSensitivity", "SQL_CASE_SENSITIVITY_CASE_INSENSITIVE"
        ),
    }


def sql_info(policy: Policy | None, wanted: Iterable[int]) -> pa.Table:
    """``CommandGetSqlInfo``'s answer for a caller: what this server says of itself (what the
    caller's policy lets it do: SQL, writes, its timeout), for the ``wanted`` ids (all when
    none); ids it has no answer for are left out, as the protocol lets a server do."""
    import pyarrow as pa

    wanted = set(wanted)
    facts = {enum_value(_SQL_INFO, name): value for name, value in _facts(policy).items()}
    ids = sorted(i for i in facts if not wanted or i in wanted)
    children: list[list[Any]] = [[], [], [], [], [], []]
    types, offsets = [], []
    for i in ids:
        value = facts[i]
        member = _MEMBERS[type(value)]
        types.append(member)
        offsets.append(len(children[member]))
        children[member].append(value)
    schema = schemas()["CommandGetSqlInfo"]
    union = schema.field("value").type
    arrays = [pa.array(values, union.field(k).type) for k, values in enumerate(children)]
    value_array = pa.Array.from_buffers(
        union,
        len(ids),
        [None, pa.array(types, pa.int8()).buffers()[1], pa.array(offsets, pa.int32()).buffers()[1]],
        children=arrays,
    )
    return pa.Table.from_arrays([pa.array(ids, pa.uint32()), value_array], schema=schema)
