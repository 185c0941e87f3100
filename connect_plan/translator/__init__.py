"""IR → Spark Connect ``Plan``: pure, deterministic, no I/O.

:func:`translate_ir` lowers the steps (names tracked, runs merged), checks the nesting
depth, and emits the protos top-down. Plan ids come from a per-call counter, so the same
plan always gives the same proto (golden files stay stable).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import _pyspark_import  # noqa: F401  (before PySpark: its import-time check of __main__)

# isort: split
from pyspark.sql.connect import proto as pb

from .. import ir
from ..errors import PlanError
from .bounds import check_depth, check_plan_size
from .expressions import InlineUdf, udf_registry
from .relations import Emitter, Lowerer, Resolver
from .rels import JoinRel, LimitRel, LocalData, Rel, SetOpRel, SharedUseRel

__all__ = ["LocalData", "Translation", "translate_ir"]


@dataclass(frozen=True)
class Translation:
    """A translated plan plus what the executor needs to explain errors."""

    plan: pb.Plan
    #: plan id → indices of the plan steps merged into that relation
    steps_by_plan_id: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: output column names when known statically (None entries: named by Spark)
    columns: tuple[str | None, ...] | None = None
    #: op name of each top-level step, by index
    op_names: dict[int, str] = field(default_factory=dict)
    #: every inline table and the relation carrying it, in emission order
    local_data: tuple[LocalData, ...] = ()


def _index(chain: list[Rel], out: dict[int, tuple[int, ...]]) -> None:
    for rel in chain:
        out[rel.plan_id] = tuple(rel.steps)
        if isinstance(rel, (JoinRel, SetOpRel)):
            _index(rel.right, out)
        elif isinstance(rel, SharedUseRel) and rel.shared.chain[-1].plan_id not in out:
            _index(rel.shared.chain, out)


def translate_ir(
    plan: ir.Plan,
    *,
    case_sensitive: bool = False,
    resolver: Resolver | None = None,
    udfs: Mapping[str, InlineUdf] | None = None,
    inline_data: bool = True,
    limit: int | None = None,
    check_only: bool = False,
) -> Translation:
    """Lower and emit ``plan``.

    ``udfs``: Python UDFs registered with the client, sent inline where the plan calls
    them by name (other names are called on the server). ``inline_data=False`` leaves each
    ``local_relation`` empty and lists it in ``Translation.local_data`` for the executor to
    fill (inline, or as a cached artifact). ``limit`` adds a ``Limit`` relation on top (a
    bounded preview; not a plan step). ``check_only=True`` validates without a server: what
    only a server can tell (the column names of a table joined without a schema) is not
    reported as ``needs_schema``, and the returned proto is not meant to be sent.
    """
    check_plan_size(plan)
    with udf_registry(udfs):
        lowerer = Lowerer(
            case_sensitive=case_sensitive, resolver=resolver, inline_data=inline_data, check_only=check_only
        )
        chain, scope = lowerer.plan(plan)
        if lowerer.errors:
            raise PlanError(lowerer.errors)
        if limit is not None and plan.output is None:
            chain.append(LimitRel(lowerer.new_id(), [], limit))
        check_depth(chain, plan.loc)
        out = pb.Plan()
        em = Emitter(inline_data)
        if plan.output is not None:
            from .outputs import emit_output

            emit_output(plan.output, chain, lowerer.new_id(), out, em)
        else:
            em.chain(chain, out.root)
    by_id: dict[int, tuple[int, ...]] = {}
    _index(chain, by_id)
    return Translation(out, by_id, scope.names, {s.index: s.op for s in plan.steps}, tuple(em.local))
