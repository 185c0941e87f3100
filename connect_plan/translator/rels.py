"""The lowered relations: small records, innermost first in a chain, each with its plan id.

Lowering (:mod:`.lower`) builds them from the analysed steps; emission (:mod:`.relations`)
turns each into one Spark Connect ``Relation``. A record holds what its builder needs and
nothing else: the expressions to emit and the :class:`~.scope.Scope` they are read in, and
``steps``, the indices of the plan steps merged into it (error locations).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import ir
from ..records import Record, Value, frozen
from ..spark_proto import pb
from .scope import Scope

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "AggregateRel",
    "DedupRel",
    "DropRel",
    "FilterRel",
    "HintRel",
    "JoinRel",
    "LimitRel",
    "LocalData",
    "LocalRel",
    "OffsetRel",
    "ProjectRel",
    "RangeRel",
    "ReadFilesRel",
    "ReadTableRel",
    "Rel",
    "RenameRel",
    "RepartitionRel",
    "SampleRel",
    "SetOpRel",
    "SharedRelation",
    "SharedUseRel",
    "SortRel",
    "SqlRel",
    "TailRel",
    "WithColumnsRel",
]


@dataclass(eq=False, repr=False)
class Rel(Record):
    """A lowered relation: its plan id and the plan steps merged into it."""

    plan_id: int
    steps: list[int]


@dataclass(eq=False, repr=False)
class LocalRel(Rel):
    """Inline rows: a ``LocalRelation``."""

    table: pa.Table


@dataclass(eq=False, repr=False)
class FilterRel(Rel):
    """Consecutive filters merged: one ``Filter`` of their conjunction."""

    conditions: list[ir.Expr]
    scope: Scope
    #: a condition is non-deterministic (then nothing more is merged in)
    nondet: bool = False


@dataclass(eq=False, repr=False)
class ProjectRel(Rel):
    """A ``Project``."""

    items: list[ir.SelectItem]
    scope: Scope


@dataclass(eq=False, repr=False)
class WithColumnsRel(Rel):
    """Consecutive ``withColumn``s merged: one ``WithColumns``."""

    items: list[tuple[str, ir.Expr]]
    scope: Scope
    defined: set[str] = field(default_factory=set)
    #: ``defined`` lower-cased (expression references are compared lower-cased)
    defined_lower: set[str] = field(default_factory=set)
    #: an item holds a generator (then nothing more is merged in)
    generator: bool = False


@dataclass(eq=False, repr=False)
class RenameRel(Rel):
    """Renames: a ``WithColumnsRenamed``."""

    pairs: list[tuple[str, str]]


@dataclass(eq=False, repr=False)
class DropRel(Rel):
    """A ``Drop``."""

    names: list[str]
    scope: Scope


@dataclass(eq=False, repr=False)
class DedupRel(Rel):
    """A ``Deduplicate`` of every column (``distinct``)."""


@dataclass(eq=False, repr=False)
class LimitRel(Rel):
    """A ``Limit``."""

    n: int


@dataclass(eq=False, repr=False)
class OffsetRel(Rel):
    """An ``Offset``."""

    n: int


@dataclass(eq=False, repr=False)
class SortRel(Rel):
    """A ``Sort`` (global or within partitions)."""

    keys: list[ir.SortKey]
    scope: Scope
    is_global: bool = True


@dataclass(eq=False, repr=False)
class AggregateRel(Rel):
    """An ``Aggregate``: group by, rollup, cube or grouping sets."""

    kind: str
    keys: list[ir.Expr]
    aggs: list[ir.AggItem]
    scope: Scope
    sets: tuple[tuple[int, ...], ...] | None = None


@dataclass(eq=False, repr=False)
class JoinRel(Rel):
    """A ``Join``; ``right`` is the other input's chain."""

    right: list[Rel]
    how: ir.JoinKind
    using: list[str]
    condition: ir.Expr | None
    cond_scope: Scope | None


@dataclass(eq=False, repr=False)
class SetOpRel(Rel):
    """A ``SetOperation``; ``right`` is the other input's chain."""

    right: list[Rel]
    by_name: bool
    allow_missing: bool
    is_all: bool
    kind: str = "union"


@dataclass(eq=False, repr=False)
class ReadTableRel(Rel):
    """A ``Read`` of a named table."""

    name: str
    options: tuple[tuple[str, str], ...]


@dataclass(eq=False, repr=False)
class ReadFilesRel(Rel):
    """A ``Read`` of files (a data source)."""

    source: ir.FileSource


@dataclass(eq=False, repr=False)
class RangeRel(Rel):
    """A ``Range`` of ids."""

    source: ir.RangeSource


@dataclass(eq=False, repr=False)
class SqlRel(Rel):
    """A ``SQL`` relation: a query the user gave as SQL text, with its arguments."""

    source: ir.SqlSource


@dataclass(eq=False, repr=False)
class SharedRelation(Record):
    """A sub-plan used more than once: lowered (and its names resolved) once, emitted at
    each use."""

    chain: list[Rel]


@dataclass(eq=False, repr=False)
class SharedUseRel(Rel):
    """One use of a shared sub-plan: a ``Project(*)`` with its own plan id (so join
    conditions can tell two uses apart) over the shared relation."""

    shared: SharedRelation


@dataclass(eq=False, repr=False)
class SampleRel(Rel):
    """A ``Sample``."""

    step: ir.Sample


@dataclass(eq=False, repr=False)
class RepartitionRel(Rel):
    """A ``Repartition`` or ``RepartitionByExpression``."""

    n: int | None
    keys: list[ir.Expr]
    shuffle: bool
    scope: Scope


@dataclass(eq=False, repr=False)
class HintRel(Rel):
    """A ``Hint``."""

    name: str
    parameters: list[ir.Expr]
    scope: Scope


@dataclass(eq=False, repr=False)
class TailRel(Rel):
    """A ``Tail``."""

    n: int


@frozen
class LocalData(Value):
    """An inline table and the relation that carries it.

    With ``inline_data=False`` the relation is left as an empty ``local_relation`` for the
    executor to fill: inline Arrow IPC, or a reference to a cached artifact when the table
    is large (the swap needs the server, so it is no part of translation).
    """

    relation: pb.Relation
    table: pa.Table
