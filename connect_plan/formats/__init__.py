"""Plan formats: one front-end per plan language, each parsing into the IR (:mod:`connect_plan.ir`).

:func:`load_plan` is the one entry every verb uses (``translate``, ``validate``, the
``Client`` methods, the CLI): it takes whatever the caller passed and returns an
``ir.Plan``, choosing the front-end by the input's shape from the registry
(:mod:`.registry`: a new plan language is a front-end folder and one entry there).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import ir
from .registry import FRONT_ENDS, JSON_PLAN, FrontEnd, decoded, front_end_of, title_of

__all__ = ["FRONT_ENDS", "FrontEnd", "front_end_of", "load_plan", "title_of"]


def load_plan(plan: Any, data: Any = None, schema: Any = None, *, tables: Mapping[str, Any] | None = None) -> ir.Plan:
    """Any accepted plan input → IR: a Substrait ``Plan`` (binary, JSON text or dict, message;
    ``tables`` maps its table names to sources), a plan document (dict or JSON text), a list of
    steps (with ``data``/``schema``), or JSON text of a list of steps."""
    if type(plan) is list:  # a step list, the usual call, is the JSON plan format's at once
        return JSON_PLAN.parse(plan, data, schema, tables)
    if isinstance(plan, ir.Plan):
        return plan
    plan = decoded(plan)
    return front_end_of(plan).parse(plan, data, schema, tables)
