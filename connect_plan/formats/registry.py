"""The front-end registry: every plan language connect_plan reads, with a cheap test of its
shape and its parser (sqlglot's dialect registry, in small).

A front-end is a :class:`FrontEnd`: its ``name``, ``detect(obj)`` (cheap: by the input's
shape, loading no schema), ``parse(obj, data, schema, tables)`` → ``ir.Plan``, and whether
its documents may be *staged* (``${tmp}``/``${run}`` placeholders, ``setup`` and
``cleanup`` documents: :mod:`connect_plan.fixtures`). :func:`front_end_of` picks the one
for an input; :func:`connect_plan.formats.load_plan` and the CLI both ask it, so a new plan
language is a front-end folder and one entry in :data:`FRONT_ENDS`, no more.

JSON text is decoded (with the JSON plan format's limits) before the shapes are told apart:
a Substrait plan's JSON and a plan document are both JSON objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import ir
from ..errors import PlanError
from ..records import Value, frozen

__all__ = ["FRONT_ENDS", "JSON_PLAN", "SUBSTRAIT", "FrontEnd", "decoded", "front_end_of", "title_of"]


@frozen
class FrontEnd(Value):
    """One plan language's front-end (see module doc)."""

    name: str
    #: does ``obj`` (a message, bytes, or decoded JSON) have this language's shape? Cheap.
    detect: Callable[[Any], bool]
    #: ``parse(obj, data, schema, tables)``: the plan as IR, or a PlanError naming every problem
    parse: Callable[[Any, Any, Any, Mapping[str, Any] | None], ir.Plan]
    #: may its documents carry placeholders and setup/cleanup documents (connect_plan.fixtures)?
    staged: bool = False
    #: what a drawing of one of its plans is titled
    title: str = "plan"


# ------------------------------------------------------------------ Substrait


def _is_substrait(obj: Any) -> bool:
    from .substrait import is_substrait

    return is_substrait(obj)


def _parse_substrait(plan: Any, data: Any, schema: Any, tables: Mapping[str, Any] | None) -> ir.Plan:
    from .substrait import parse_substrait_plan

    if data is not None or schema is not None:
        raise PlanError.single(
            "conflicting_input", "/input", "a Substrait plan reads its own tables; do not also pass data or schema"
        )
    return parse_substrait_plan(plan, tables)


#: Substrait plans (binary, JSON, dict, message) from DataFusion, DuckDB, Isthmus, ibis...
SUBSTRAIT = FrontEnd("substrait", _is_substrait, _parse_substrait, title="Substrait plan")


# ------------------------------------------------------------------ JSON plans


def _is_json_plan(obj: Any) -> bool:
    return isinstance(obj, (list, Mapping))


def _parse_json_plan(plan: Any, data: Any, schema: Any, tables: Mapping[str, Any] | None) -> ir.Plan:
    from .json_plan import is_table_input, parse_document, parse_plan, raw_starts_with_read

    if tables:
        raise PlanError.single(
            "substrait_tables", "/tables", "tables= maps the table names of a Substrait plan; this plan is not one"
        )
    if type(plan) is not list and isinstance(plan, Mapping):  # a document: its keys are checked
        if data is not None or schema is not None:
            raise PlanError.single(
                "conflicting_input", "/input", "the plan document has its own 'input'; do not also pass data or schema"
            )
        return parse_document(plan)
    if schema is None:
        if is_table_input(data):
            schema = []  # Arrow/pandas data carries its own schema
        elif not raw_starts_with_read(plan):  # a step list starting with ``read`` brings its own source
            raise PlanError.single("missing_key", "/input/schema", "a schema is needed for the data (pass schema=...)")
    return parse_plan([] if data is None else data, schema, plan)


#: plan documents and step lists (robin-sparkless / Sparkless shapes): the fallback, whose
#: parser names whatever else is wrong with an input
JSON_PLAN = FrontEnd("json-plan", _is_json_plan, _parse_json_plan, staged=True, title="JSON plan")

#: every front-end, asked in order (the most particular shape first; the last is the fallback)
FRONT_ENDS: tuple[FrontEnd, ...] = (SUBSTRAIT, JSON_PLAN)


def _detected(obj: Any) -> FrontEnd | None:
    for front in FRONT_ENDS:
        if front.detect(obj):
            return front
    return None


def front_end_of(obj: Any) -> FrontEnd:
    """The front-end for ``obj`` as given (JSON text is not decoded here: see :func:`decoded`);
    the last of :data:`FRONT_ENDS` when no front-end claims it."""
    return _detected(obj) or FRONT_ENDS[-1]


def decoded(raw: Any) -> Any:
    """``raw`` ready for :func:`front_end_of`: text or bytes that no front-end claims as they
    are (a binary Substrait plan is claimed) decoded as JSON, with the JSON plan format's limits."""
    if isinstance(raw, (str, bytes)) and _detected(raw) is None:
        from .json_plan import load_json

        return load_json(raw)
    return raw


def title_of(obj: Any) -> str:
    """What a drawing of ``obj`` is titled: its language's plan ("Substrait plan", "JSON
    plan"), or "plan" for a plan already read (IR)."""
    if isinstance(obj, ir.Plan):
        return "plan"
    if type(obj) is list:
        return JSON_PLAN.title
    return front_end_of(decoded(obj)).title
