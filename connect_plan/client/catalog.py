"""The server's catalog, read through Spark Connect's catalog relations (no SQL text): the
catalogs, the databases of the current catalog, the tables and views of a database (with the
session's temporary views), the current catalog and database, each as a ``pyarrow.Table`` of
Spark's own columns.

A name given here travels as a field of the relation, never inside SQL text; patterns are not
passed to Spark at all (a caller filters what comes back), so nothing a caller writes is read
as Spark's pattern syntax.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

    from . import Client

__all__ = ["LISTINGS", "catalog_listing"]

#: what :func:`catalog_listing` lists, and Spark's columns for it
LISTINGS = {
    "catalogs": ("name", "description"),
    "databases": ("name", "catalog", "description", "locationUri"),
    "tables": ("name", "catalog", "namespace", "description", "tableType", "isTemporary"),
    "current_catalog": ("value",),
    "current_database": ("value",),
}


def catalog_listing(
    client: Client, what: str, database: str | None = None, *, timeout: float | None = None
) -> pa.Table:
    """``what`` (one of :data:`LISTINGS`) of ``client``'s Spark session: ``tables`` needs the
    ``database`` (``db`` or ``catalog.db``). Runs as the client's calls do: under ``timeout``
    (else the client's default), once more on a new session if the server lost this one, every
    batch checked (:meth:`~connect_plan.client.execute.Executor.results`)."""
    import pyarrow as pa

    from ..spark_proto import pb

    if what not in LISTINGS:
        raise ValueError(f"what must be one of {', '.join(LISTINGS)}, got {what!r}")
    if what == "tables" and not database:
        raise ValueError("listing tables needs the database")
    plan = pb.Plan()
    catalog = plan.root.catalog
    if what == "catalogs":
        catalog.list_catalogs.SetInParent()
    elif what == "databases":
        catalog.list_databases.SetInParent()
    elif what == "current_catalog":
        catalog.current_catalog.SetInParent()
    elif what == "current_database":
        catalog.current_database.SetInParent()
    else:
        catalog.list_tables.db_name = str(database)
    parts = client.internals
    session, executor = parts.session, parts.executor

    def run() -> pa.Table:
        session.check_server()
        results = executor.results(plan, None)
        schema = next(results)
        return pa.Table.from_batches(list(results), schema)

    with session.operation(timeout):
        return session.retrying(run)
