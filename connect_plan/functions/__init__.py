"""The function catalog: one row per function, as data, and every fact about a function.

Rows are in :mod:`.rows` (one line each); what a row says (the signature's slot language and
the row options) is documented in :mod:`.spec`. This module assembles :data:`CATALOG` (plan
name or alias → row), checks it on import, and derives the sets other layers read.

PySpark functions that have no row are listed in :data:`EXCLUDED` with the reason; a
unit test fails when ``pyspark.sql.functions`` has a function in neither.
"""

from __future__ import annotations

from .rows import LISTING
from .spec import KINDS, OP_FORMS, FunctionSpec, Param, agg, fn, parse_signature

__all__ = [
    "BUILDER_FORMS",
    "CATALOG",
    "DESUGAR_FORMS",
    "EXCLUDED",
    "KINDS",
    "NULL_SKIPPING_NAMES",
    "OP_FORMS",
    "SORT_FUNCTIONS",
    "FunctionSpec",
    "Param",
    "agg",
    "fn",
    "lookup",
    "parse_signature",
    "rows",
    "suggest",
]


def _grouped(listing: list[FunctionSpec | str]) -> list[FunctionSpec]:
    """The rows, each told its group (the string before it). The rows were made a moment ago
    by the listing and nothing else holds them yet, so the group is set in place, as a frozen
    dataclass sets its own fields in ``__init__``: copying ~570 rows with ``replace`` was ~5 ms
    of every import (issue 17's cold start)."""
    out: list[FunctionSpec] = []
    group = ""
    for item in listing:
        if isinstance(item, str):
            group = item
        else:
            object.__setattr__(item, "group", group)
            out.append(item)
    return out


_ROWS: list[FunctionSpec] = _grouped(LISTING)

#: sort-order functions: accepted as ``orderBy`` and window ``order_by`` items
#: (``{"fn": "desc", "args": ["x"]}``), never as values
SORT_FUNCTIONS: dict[str, tuple[bool, bool | None]] = {
    "asc": (True, None),
    "desc": (False, None),
    "asc_nulls_first": (True, True),
    "asc_nulls_last": (True, False),
    "desc_nulls_first": (False, True),
    "desc_nulls_last": (False, False),
}

#: PySpark functions (``pyspark.sql.functions``) without a catalog row, and why
EXCLUDED: dict[str, str] = {
    **{
        n: "a class exported by pyspark.sql.functions, not a function"
        for n in (
            "AnalyzeArgument",
            "AnalyzeResult",
            "ArrowUDFType",
            "OrderingColumn",
            "PandasUDFType",
            "PartitioningColumn",
            "SelectedColumn",
            "SkipRestOfInputTableException",
            "UserDefinedFunction",
            "UserDefinedTableFunction",
        )
    },
    **{
        n: "builds a UDF object: register Python functions with Client.register_udf (or the "
        'Client.udf decorator) and call them by name ({"udf": name, "args": [...]})'
        for n in ("udf", "pandas_udf", "arrow_udf")
    },
    "udtf": "a table function produces a relation; no plan op reads one",
    "arrow_udtf": "a table function produces a relation; no plan op reads one",
    "col": 'an expression form: {"col": name} or a bare string',
    "column": 'an expression form: {"col": name} or a bare string',
    "lit": 'an expression form: {"lit": value} or a bare scalar',
    "expr": "parses SQL text; connect_plan never builds SQL from plan input (no injection surface)",
    "broadcast": "a join hint on a DataFrame, not a column function",
    "bucket": "a partition transform, only valid in DataFrameWriterV2.partitionedBy",
    **{
        n: "a sort order, not a value: accepted as an orderBy / window order_by item "
        '({"fn": "' + n + '", "args": [col]})'
        for n in SORT_FUNCTIONS
    },
}

CATALOG: dict[str, FunctionSpec] = {}
for _spec in _ROWS:
    for _name in _spec.names:
        if _name in CATALOG:
            raise RuntimeError(f"function name {_name!r} is in the catalog twice")
        CATALOG[_name] = _spec
for _spec in _ROWS:
    for _i in _spec.fill:
        if not 0 <= _i < len(_spec.params) or not _spec.params[_i].optional:
            raise RuntimeError(f"{_spec.name}: fill index {_i} is not an optional slot")
_clash = set(CATALOG) & set(EXCLUDED)
if _clash:
    raise RuntimeError(f"names both in the catalog and excluded: {sorted(_clash)}")


def rows() -> list[FunctionSpec]:
    """Every catalog row once, in catalog order."""
    return list(_ROWS)


def lookup(name: str) -> FunctionSpec | None:
    """The catalog row for a plan function name (exact, case-sensitive), or None."""
    return CATALOG.get(name)


def suggest(name: str, limit: int = 3) -> list[str]:
    """Close catalog names for an unknown one (for error messages)."""
    import difflib

    lowered = name.lower()
    if lowered != name and lowered in CATALOG:
        return [lowered]
    return difflib.get_close_matches(name, list(CATALOG), n=limit, cutoff=0.75)


#: the parse-stage rewrites rows name (``formats/json_plan/specials.py`` has one function each)
DESUGAR_FORMS: frozenset[str] = frozenset(s.desugar for s in _ROWS if s.desugar)
#: the emit-stage builders rows name (``translator/expressions.py`` ``SPECIAL_BUILDERS``)
BUILDER_FORMS: frozenset[str] = frozenset(s.builder for s in _ROWS if s.builder)

#: the names of the aggregates that skip nulls (rows and their lower-case aliases), for messages
NULL_SKIPPING_NAMES: tuple[str, ...] = tuple(
    sorted({n for s in _ROWS if s.null_skipping for n in s.names if n == n.lower()})
)

for _spec in _ROWS:
    if _spec.op_form is not None:
        _count = {"binary": 2, "unary": 1}.get(_spec.op_form)
        if _count is not None and _spec.slot_indices(_count) is None:
            raise RuntimeError(f"{_spec.name}: an op_form {_spec.op_form!r} row must take {_count} argument(s)")
    if (_spec.null_skipping or _spec.counts_rows) and _spec.kind != "aggregate":
        raise RuntimeError(f"{_spec.name}: null_skipping/counts_rows apply to aggregates")
    if _spec.needs_order and _spec.kind != "window":
        raise RuntimeError(f"{_spec.name}: needs_order applies to window functions")
