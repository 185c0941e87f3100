"""Plan formats: one front-end per plan language, each parsing into the IR (:mod:`connect_plan.ir`).

:func:`load_plan` is the one entry every verb uses (``translate``, ``validate``, the
``Client`` methods, the CLI): it takes whatever the caller passed and returns an
``ir.Plan``, choosing the front-end by the input's shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import ir
from ..errors import PlanError

__all__ = ["load_plan"]


def load_plan(plan: Any, data: Any = None, schema: Any = None, *, tables: Mapping[str, Any] | None = None) -> ir.Plan:
    """Any accepted plan input → IR: a Substrait ``Plan`` (binary, JSON text or dict, message;
    ``tables`` maps its table names to sources), a plan document (dict or JSON text), a list of
    steps (with ``data``/``schema``), or JSON text of a list of steps."""
    from .json_plan import is_table_input, load_json, parse_document, parse_plan

    if type(plan) is not list:  # a step list, the usual call, is neither of these
        from .substrait import is_substrait, parse_substrait_plan

        if isinstance(plan, ir.Plan):
            return plan
        if not is_substrait(plan) and isinstance(plan, (str, bytes)):
            plan = load_json(plan)
        if is_substrait(plan):
            if data is not None or schema is not None:
                raise PlanError.single(
                    "conflicting_input",
                    "/input",
                    "a Substrait plan reads its own tables; do not also pass data or schema",
                )
            return parse_substrait_plan(plan, tables)
    if tables:
        raise PlanError.single(
            "substrait_tables", "/tables", "tables= maps the table names of a Substrait plan; this plan is not one"
        )
    if type(plan) is not list and isinstance(plan, Mapping):  # a document: its keys are checked
        if data is not None or schema is not None:
            raise PlanError.single(
                "conflicting_input",
                "/input",
                "the plan document has its own 'input'; do not also pass data or schema",
            )
        return parse_document(plan)
    if schema is None:
        if is_table_input(data):
            schema = []  # Arrow/pandas data carries its own schema
        elif not _starts_with_read(plan):
            raise PlanError.single("missing_key", "/input/schema", "a schema is needed for the data (pass schema=...)")
    return parse_plan([] if data is None else data, schema, plan)


def _starts_with_read(plan: Any) -> bool:
    """A step list whose first step is ``read`` brings its own source (no data/schema)."""
    from .json_plan import raw_starts_with_read

    return raw_starts_with_read(plan)
