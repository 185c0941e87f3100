"""JSON plan → IR: the front-end for the robin-sparkless / Sparkless plan format.

Accepts the union of what robin-sparkless (0.11 and HEAD) and the seed document accept
(PLAN_FORMAT.md, Policy 1): camelCase and op-level keys, ``fn``/``function``,
``col``/``column``, Sparkless ``{"type": ...}`` items, bare strings as column names, bare
scalars as literals, and so on. Every problem is recorded with its location and the parse
goes on, so one :class:`~connect_plan.errors.PlanError` lists all of them.

Where the format is ambiguous or robin silently dropped input, we raise (Policy 5); the
choices are documented in ``docs/plan-format.md``.

Modules, in import order (each imports only the ones before it):

``spellings``   every spelling of the format: op names, expression words, join types, keys
``core``        :class:`Parser` state, :class:`RawStep`, the ``@step`` registry, shared helpers
``expressions`` expressions (:func:`parse_expr`), and the registries of the forms parsed below
``calls``       ``{"fn": ...}`` calls checked against the catalog row, lambdas, UDF calls
``operators``   ``{"op": ...}`` forms
``windows``     window expressions, frames, sort items
``sparkless``   the expression shapes Sparkless' plan emitters write (symbolic ops, when, opaque nodes)
``specials``    desugaring of catalog special forms (the catalog row's ``desugar``)
``inline``      inline rows, Arrow and pandas inputs, schemas
``outputs``     write and temp views
``documents``   documents, sources, the step list and its dispatch, ``read``
``steps``       single-input steps
``aggregates``  groupBy / agg / groupingSets, and the pairing of a groupBy with its agg
``binary``      join, union, crossJoin, set operations and their right sides
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import ir
from . import aggregates, binary, calls, operators, sparkless, specials, steps, windows
from .aggregates import pair_aggregations
from .core import STEP_PARSERS, Parser, RawStep
from .documents import document, load_json, plan_from_rows, raw_starts_with_read
from .expressions import FORMS, parse_expr
from .inline import is_table_input
from .spellings import KEY_ALIASES, STEP_OPS

__all__ = [
    "OPS",
    "Parser",
    "is_table_input",
    "load_json",
    "parse_document",
    "parse_expr",
    "parse_plan",
    "raw_starts_with_read",
]

# the modules that register step parsers, expression forms and desugarings (imported for that)
_REGISTERING = (aggregates, binary, calls, operators, sparkless, specials, steps, windows)

if not all(hasattr(FORMS, form) for form in ("op", "call", "udf")):  # pragma: no cover
    raise RuntimeError("an expression form is not registered (operators.py, calls.py)")
if set(STEP_PARSERS) != set(STEP_OPS):  # pragma: no cover - a developer error caught on import
    raise RuntimeError(f"step ops and parsers differ: {sorted(set(STEP_PARSERS) ^ set(STEP_OPS))}")
_no_keys = {kind for _, kind in STEP_PARSERS.values()} - set(KEY_ALIASES)
if _no_keys:  # pragma: no cover
    raise RuntimeError(f"step parsers without a KEY_ALIASES entry: {sorted(_no_keys)}")

#: op name → its step parser, in the order of :data:`~.spellings.STEP_OPS`
OPS: dict[str, Callable[[Parser, RawStep], ir.Step | None]] = {op: STEP_PARSERS[op][0] for op in STEP_OPS}


def _finished(p: Parser, result: ir.Plan | None) -> ir.Plan:
    """Raise the errors of a parse; pair groupBy steps with their agg steps (the errors
    of that stage come only after a clean parse, as the translator reported them)."""
    p.raise_if_errors()
    assert result is not None
    if p.unpaired_groups:
        result = pair_aggregations(p, result)
        p.raise_if_errors()
    return result


def parse_plan(rows: Any, schema: Any, plan: Any) -> ir.Plan:
    """Parse robin-sparkless-style arguments (rows, schema, plan) into IR.

    Locations are reported as in a plan document: ``/input/rows/...``, ``/input/schema/...``,
    ``/plan/...``.
    """
    p = Parser()
    return _finished(p, plan_from_rows(p, rows, schema, plan, "/input/rows", "/input/schema", "/plan"))


def parse_document(doc: Any) -> ir.Plan:
    """Parse a plan document (``{"input": ..., "plan": [...]}``, a dict or JSON text)."""
    if isinstance(doc, (str, bytes)):
        doc = load_json(doc)
    p = Parser()
    return _finished(p, document(p, doc))
