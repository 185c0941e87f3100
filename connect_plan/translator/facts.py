"""What analysis decided, for lowering: the contract between the translator's first two passes.

:class:`~.analyze.Analyzer` makes one :class:`PlanFacts` per plan (and per nested or shared
sub-plan) and one :class:`StepFacts` per step; :mod:`.lower` reads them and nothing else of
names: the columns each step's expressions see, what each filter or ``withColumn``
expression references, a join's inputs as the server named them and its renames.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .. import ir
from ..records import Record
from ..spark_proto import pb
from .scope import Scope

if TYPE_CHECKING:
    from .rels import LocalData

__all__ = [
    "AggregateFacts",
    "FilterFacts",
    "JoinFacts",
    "PlanFacts",
    "PrimarySetOpFacts",
    "RelationOf",
    "Resolver",
    "SetOpFacts",
    "StepFacts",
    "WithColumnFacts",
]

#: a resolver asks a server for the column names of a relation (None: not available); it
#: gets the relation and its inline tables (unfilled when translating with inline_data=False)
Resolver = Callable[[pb.Relation, "list[LocalData]"], "list[str]"]
#: lowers and emits an analysed plan (a prefix of one), for the resolver: the relation and
#: the inline tables in it
RelationOf = Callable[["PlanFacts"], "tuple[pb.Relation, list[LocalData]]"]

S = TypeVar("S", bound=ir.Step)


# slots: one of these is made per step, and lowering reads them once each
@dataclass(slots=True, eq=False, repr=False)
class StepFacts(Record, Generic[S]):
    """One analysed step: the step (a ``crossJoin`` is analysed as a join, a standalone
    ``agg`` as a ``groupBy`` of no keys) and the columns its expressions see."""

    step: S
    scope: Scope


@dataclass(slots=True, eq=False, repr=False)
class FilterFacts(StepFacts[ir.Filter]):
    """A ``filter``: whether its condition is deterministic."""

    #: the condition calls something non-deterministic (rand, a UDF...)
    nondet: bool


@dataclass(slots=True, eq=False, repr=False)
class WithColumnFacts(StepFacts[ir.WithColumn]):
    """A ``withColumn``: the column it defines and the names it reads."""

    #: the column's name, normalised (lower-cased unless case-sensitive)
    key: str
    #: the names the expression reads (lower-cased, with the roots of struct paths)
    refs: set[str]
    star: bool
    generator: bool


@dataclass(slots=True, eq=False, repr=False)
class AggregateFacts(StepFacts[ir.GroupBy]):
    """A ``groupBy`` with its aggregates (from the ``agg`` step after it, if any)."""

    aggs: tuple[ir.AggItem, ...]
    #: the index of the ``agg`` step that completes a ``groupBy`` without aggregates
    agg_index: int | None = None


@dataclass(slots=True, eq=False, repr=False)
class JoinFacts(StepFacts[ir.Join]):
    """A join: the right plan's facts and both inputs' columns."""

    right: PlanFacts
    #: both inputs' columns, from the server where tracking had lost them
    left_names: Scope
    right_names: Scope
    #: the keys that are USING columns (none when a condition is given: keys become equalities)
    using: tuple[str, ...]
    #: right-hand columns renamed because the left has them (normalised old → new name)
    renames: dict[str, str]
    rename_pairs: list[tuple[str, str]]


@dataclass(slots=True, eq=False, repr=False)
class SetOpFacts(StepFacts[ir.SetOp]):
    """A set operation: the right plan's facts."""

    right: PlanFacts


@dataclass(slots=True, eq=False, repr=False)
class PrimarySetOpFacts(StepFacts[ir.SetOp]):
    """A set operation done as a join on every column, paired by position (names known),
    or with no condition (``check_only``: the names are the server's)."""

    right: PlanFacts
    how: ir.JoinKind
    left_names: Scope
    right_names: Scope


@dataclass(eq=False, repr=False)
class PlanFacts(Record):
    """An analysed plan: its source, its steps in order and the columns it outputs."""

    source: ir.Source
    scope: Scope
    steps: list[StepFacts[Any]] = field(default_factory=list)
    #: a ``SharedPlan`` source: the analysed sub-plan, and whether it is used more than once
    #: (then lowered once and emitted at every use)
    inner: PlanFacts | None = None
    shared: bool = False
    #: the names a server gave for this plan's output (a shared sub-plan: asked once)
    resolved: Scope | None = None
