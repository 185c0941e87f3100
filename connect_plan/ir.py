"""The intermediate representation: immutable relation and expression nodes.

The JSON-plan parser (:mod:`connect_plan.formats.json_plan`) is the only package that knows
the plan format's many spellings; it produces these nodes, each of which remembers where it came from
(``loc``, a JSON pointer such as ``/plan/2/payload/expr/args/0``). The translator
(:mod:`connect_plan.translator`) turns them into Spark Connect protos.

Expressions
    :class:`Col`, :class:`Lit`, :class:`Call`, :class:`Cast`, :class:`When`,
    :class:`ExtractValue`, :class:`Star`, :class:`Window` (+ :class:`SortKey`,
    :class:`Frame`), :class:`Lambda`, :class:`LambdaVar`, :class:`UdfCall`, :class:`Subquery`
Relations (plan steps)
    :class:`Filter`, :class:`Select`, :class:`WithColumn`, :class:`WithColumnRenamed`,
    :class:`Drop`, :class:`Distinct`, :class:`Limit`, :class:`Offset`, :class:`OrderBy`,
    :class:`GroupBy`, :class:`Agg`, :class:`Join`, :class:`SetOp`, :class:`CrossJoin`,
    :class:`Stop`
Sources
    :class:`InlineData`, :class:`TableSource`, :class:`FileSource`, :class:`RangeSource`,
    :class:`SqlSource`, :class:`SharedPlan` (a sub-plan used more than once)
Outputs
    :class:`Write` (files or a table), :class:`TempView`
The declared result
    :class:`Contract` of :class:`ContractColumn` (a Substrait plan's; checked when it runs)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from .records import Record, Value, frozen

if TYPE_CHECKING:
    import pyarrow as pa

    from .types import DataType

# --------------------------------------------------------------------------- expressions


@frozen
class Col(Value):
    """A column reference. ``name`` is as written; dots are resolved by the translator
    (a column literally named ``a.b`` wins over struct access ``a`` → ``b``).
    ``side`` pins the reference to one input of a join condition (``left``/``right``)."""

    name: str
    loc: str
    side: str | None = None


@frozen
class Lit(Value):
    """A literal. ``value`` is a JSON scalar (None, bool, int, float, str); ``type``
    forces a Spark type (typed literals), else PySpark's literal typing applies."""

    value: Any
    loc: str
    type: DataType | None = None


@frozen
class Call(Value):
    """A call of catalog function ``fn`` (its canonical plan name) on ``args``."""

    fn: str
    args: tuple[Expr, ...]
    loc: str
    distinct: bool = False


@frozen
class Cast(Value):
    """``cast(expr AS to)``; ``mode`` "try" is ``try_cast`` (null where the value does not convert)."""

    expr: Expr
    to: DataType
    loc: str
    mode: str = "cast"  # "cast" | "try"


@frozen
class When(Value):
    """``CASE WHEN c1 THEN v1 [WHEN ...] [ELSE otherwise] END``; no else means null."""

    branches: tuple[tuple[Expr, Expr], ...]
    otherwise: Expr | None
    loc: str


@frozen
class ExtractValue(Value):
    """``child[key]``: array element (0-based), map value or struct field."""

    child: Expr
    key: Expr
    loc: str


@frozen
class Star(Value):
    """``*``: every column of the input; ``s.*`` (``target`` ``s``, as written): every field
    of the struct column ``s``, or every column of the input qualified ``s``."""

    loc: str
    target: str | None = None


@frozen
class SortKey(Value):
    """One ordering key: an expression, its direction and where its nulls go."""

    expr: Expr
    ascending: bool
    nulls_first: bool | None  # None = Spark's default for the direction
    loc: str


@frozen
class Frame(Value):
    """A window frame. Bounds: ``None`` = unbounded, ``0`` = current row, else an offset."""

    kind: str  # "rows" | "range"
    lower: int | None
    upper: int | None
    loc: str


@frozen
class Window(Value):
    """``func OVER (PARTITION BY ... ORDER BY ... frame)``."""

    func: Expr
    partition_by: tuple[Expr, ...]
    order_by: tuple[SortKey, ...]
    frame: Frame | None
    loc: str


@frozen
class LambdaVar(Value):
    """A lambda's parameter, referenced in its body by name."""

    name: str
    loc: str


@frozen
class Lambda(Value):
    """A lambda (``x -> body``) passed to a higher-order function."""

    params: tuple[str, ...]
    body: Expr
    loc: str


@frozen
class UdfCall(Value):
    """A call of a user-defined function by name: one registered with the client is sent
    inline (its pickled Python function), any other name is called on the server.
    ``aggregate``: the ``python_grouped_udf`` aggregation entry (a grouped-aggregate UDF),
    whose declared ``return_type`` (if any) must match the registered one."""

    name: str
    args: tuple[Expr, ...]
    loc: str
    aggregate: bool = False
    return_type: DataType | None = None


@frozen
class Subquery(Record):
    """A subquery used as an expression (Spark Connect's ``SubqueryExpression`` over
    ``WithRelations``, Spark 4.0+): ``scalar`` (one row, one column), ``exists`` (any row),
    ``in`` (``values`` — one per column — among its rows). Columns of the enclosing plans are
    referenced by name (correlation): Spark resolves a name the subquery lacks outside it.
    Compared by identity: the translator gives each one its relation's plan id."""

    kind: str  # "scalar" | "exists" | "in"
    plan: Plan
    values: tuple[Expr, ...]
    loc: str

    def __post_init__(self) -> None:
        _SUBQUERIES_MADE[0] = True


#: whether any :class:`Subquery` was made in this process (see :func:`subqueries_made`)
_SUBQUERIES_MADE = [False]


def subqueries_made() -> bool:
    """False while no :class:`Subquery` was made in this process, so no plan can hold one:
    the translator then skips looking for them (a walk of every step of every plan; only the
    Substrait front-end makes them)."""
    return _SUBQUERIES_MADE[0]


Expr = Col | Lit | Call | Cast | When | ExtractValue | Star | Window | Lambda | LambdaVar | UdfCall | Subquery

# --------------------------------------------------------------------------- sources


@frozen
class InlineData(Value):
    """Rows carried in the plan, already converted to Arrow."""

    table: pa.Table = field(repr=False)
    loc: str


@frozen
class TableSource(Value):
    """A named table or view (Spark Connect ``Read.named_table``); columns unknown statically."""

    name: str
    options: tuple[tuple[str, str], ...]
    loc: str


@frozen
class FileSource(Value):
    """Files read by a data source (``Read.data_source``). ``schema`` is a DDL string or
    None (inferred by Spark); ``columns`` are its names when given as fields."""

    paths: tuple[str, ...]
    format: str | None
    options: tuple[tuple[str, str], ...]
    schema: str | None
    columns: tuple[str, ...] | None
    loc: str


@frozen
class RangeSource(Value):
    """``id`` from ``start`` (inclusive) to ``end`` (exclusive) by ``step`` (Spark ``Range``)."""

    start: int
    end: int
    step: int
    num_partitions: int | None
    loc: str


@frozen
class SqlSource(Value):
    """The user's own SQL query; parameters travel as literal expressions, never as text."""

    query: str
    named_args: tuple[tuple[str, Expr], ...]
    pos_args: tuple[Expr, ...]
    loc: str


@frozen
class SharedPlan(Record):
    """A sub-plan referenced from more than one place (``"with"`` definitions, or the same
    nested document written twice). Compared by identity: one object per definition."""

    name: str
    plan: Plan
    loc: str


Source = InlineData | TableSource | FileSource | RangeSource | SqlSource | SharedPlan

# --------------------------------------------------------------------------- steps

#: the canonical join types: every spelling a plan format accepts maps to one of these, and
#: the translator has a Spark join type for each (both tables are checked against this one)
JoinKind = Literal["inner", "left", "right", "full", "left_semi", "left_anti", "cross"]
JOIN_KINDS: tuple[JoinKind, ...] = get_args(JoinKind)


@frozen
class Step(Value):
    """Fields every plan step has: its index in the plan, its op name as written, where."""

    index: int
    op: str
    loc: str


@frozen
class Filter(Step):
    """``filter``/``where``: keep the rows where ``condition`` is true."""

    condition: Expr


@frozen
class SelectItem(Value):
    """One select output; ``alias`` is a tuple of names for a generator with several
    output columns (``posexplode`` → ``("pos", "value")``)."""

    expr: Expr
    alias: str | tuple[str, ...] | None
    loc: str


@frozen
class Select(Step):
    """``select``: the output columns, in order."""

    items: tuple[SelectItem, ...]


@frozen
class WithColumn(Step):
    """``withColumn``: add column ``name``, or replace it where it exists."""

    name: str
    expr: Expr


@frozen
class WithColumnRenamed(Step):
    """``withColumnRenamed``: column ``old`` renamed ``new``."""

    old: str
    new: str


@frozen
class Drop(Step):
    """``drop``: every column but ``names``."""

    names: tuple[str, ...]


@frozen
class Distinct(Step):
    """``distinct``: one row of each set of equal rows."""


@frozen
class Limit(Step):
    """``limit``: the first ``n`` rows."""

    n: int


@frozen
class Offset(Step):
    """``offset``: every row after the first ``n``."""

    n: int


@frozen
class OrderBy(Step):
    """``orderBy``/``sort``/``sortWithinPartitions``."""

    keys: tuple[SortKey, ...]
    #: False for sortWithinPartitions (each partition sorted, no global order)
    is_global: bool = True


@frozen
class AggItem(Value):
    """One aggregate output of a ``groupBy``/``agg``, with its alias."""

    expr: Expr
    alias: str | None
    loc: str


@frozen
class GroupBy(Step):
    """``groupBy``/``rollup``/``cube``/``groupingSets``. A ``groupBy`` written without
    ``aggs`` and the ``agg`` step after it are one step once parsed: ``aggs`` comes from the
    ``agg`` and ``agg_index`` is its index (``aggs`` is None only inside the parser)."""

    kind: str  # "groupby" | "rollup" | "cube" | "grouping_sets"
    keys: tuple[Expr, ...]
    aggs: tuple[AggItem, ...] | None
    #: for ``grouping_sets``: each set as indices into ``keys``
    sets: tuple[tuple[int, ...], ...] | None = None
    #: the index of the separate ``agg`` step that gave ``aggs`` (None: ``aggs`` in the payload)
    agg_index: int | None = None


@frozen
class Agg(Step):
    """A standalone ``agg`` step: completes the preceding ``groupBy``, else aggregates all rows."""

    aggs: tuple[AggItem, ...]


@frozen
class Write(Step):
    """Where a plan's result goes (Substrait Write): files (``path`` + ``format``) or a table
    (``table`` with ``method`` ``save_as_table``/``insert_into``)."""

    format: str | None
    path: str | None
    table: str | None
    method: str | None  # "save_as_table" | "insert_into" | None (files)
    mode: str  # "error" | "append" | "overwrite" | "ignore"
    partition_by: tuple[str, ...]
    options: tuple[tuple[str, str], ...]


@frozen
class TempView(Step):
    """``createOrReplaceTempView`` (and friends): register the result under ``name``."""

    name: str
    replace: bool
    is_global: bool


@frozen
class Read(Step):
    """A first ``read`` step: the plan's source given as a step (the parser moves it to
    :attr:`Plan.source`; it never reaches the translator)."""

    source: Source


Output = Write | TempView


@frozen
class ContractColumn(Value):
    """One column of a plan's declared result: its name, the Spark type its declared type maps
    to (None: not declared, or a type Spark has not; a struct field named ``""``: not named by
    the plan), the declared type as the plan writes it, where the plan declares that type
    (``loc``) and where it names the column (``name_loc``)."""

    name: str | None
    type: DataType | None
    declared: str
    loc: str
    name_loc: str
    nullable: bool | None = None


@frozen
class Contract(Value):
    """What a plan declares its result to be (a Substrait plan's ``RelRoot.names`` and the types
    it states), in Spark's terms: the result is held to it before its first row is returned
    (:mod:`connect_plan.contract`). ``loc`` is the relation whose output it is."""

    loc: str
    columns: tuple[ContractColumn, ...]


@frozen
class Plan(Value):
    """A source and the steps applied to it, in order; optionally an output (the result is
    written instead of returned), session configuration for the execution, and the result
    the plan declares (:class:`Contract`; a Substrait plan's), checked when it runs."""

    source: Source
    steps: tuple[Step, ...]
    loc: str
    output: Output | None = None
    conf: tuple[tuple[str, str], ...] = ()
    contract: Contract | None = None


@frozen
class Join(Step):
    """``how`` is canonical (:data:`JoinKind`). ``keys`` (USING columns) or ``condition``
    — or both when keys are mixed with conditions."""

    right: Plan
    how: JoinKind
    keys: tuple[str, ...]
    condition: Expr | None
    #: a hint for the right input (``"broadcast"``), from the payload's ``broadcast: true``
    right_hint: str | None = None


@frozen
class SetOp(Step):
    """``union`` (by position) / ``unionByName`` (by name, missing columns allowed)."""

    right: Plan
    kind: str  # "union" | "intersect" | "except" | "minus_primary" | "intersect_primary"
    by_name: bool
    allow_missing: bool
    distinct: bool = False


@frozen
class CrossJoin(Step):
    """``crossJoin``: every pair of rows of this plan and ``right``."""

    right: Plan


@frozen
class Stop(Step):
    """``stop``: a no-op here (robin stopped its session)."""


@frozen
class Fetch(Step):
    """Substrait Fetch: skip ``offset`` rows, then keep ``count`` (None: all the rest)."""

    offset: int
    count: int | None


@frozen
class Sample(Step):
    """Bernoulli (or Poisson, with replacement) sample of the rows in [lower, upper)."""

    lower: float
    upper: float
    with_replacement: bool
    seed: int | None


@frozen
class Repartition(Step):
    """``repartition(n)``, ``repartition(n?, *keys)`` or ``coalesce(n)`` (``shuffle`` False)."""

    n: int | None
    keys: tuple[Expr, ...]
    shuffle: bool


@frozen
class Hint(Step):
    """``hint``: a named hint for the server's optimizer, with its parameters."""

    name: str
    parameters: tuple[Expr, ...]


@frozen
class Tail(Step):
    """``tail``: the last ``n`` rows."""

    n: int


# --------------------------------------------------------------------------- the class lists
# derived, not written: a class left out of a list escapes every completeness check below

#: every expression class (the :data:`Expr` union), in its order
EXPR_CLASSES: tuple[type, ...] = get_args(Expr)
#: every source class (the :data:`Source` union)
SOURCE_CLASSES: tuple[type, ...] = get_args(Source)
#: every output class (the :data:`Output` union)
OUTPUT_CLASSES: tuple[type, ...] = get_args(Output)
#: every plan step class: the subclasses of :class:`Step` in definition order, but the outputs
#: and :class:`Read` (a source given as a step, moved to :attr:`Plan.source` by the parser)
STEP_CLASSES: tuple[type[Step], ...] = tuple(
    c for c in Step.__subclasses__() if c not in OUTPUT_CLASSES and c is not Read
)
#: the steps with a right-hand input plan (``right``)
BINARY_STEPS: tuple[type[Step], ...] = (Join, SetOp, CrossJoin)
_ONE_INPUT_STEPS = frozenset(STEP_CLASSES) - set(BINARY_STEPS)

M = TypeVar("M", bound=Mapping[Any, Any])

#: every table keyed by IR classes, as :func:`covering` and :func:`partial` checked it at
#: import: its name → (the table, the classes it is keyed by, the classes without an entry)
TABLES: dict[str, tuple[Mapping[Any, Any], tuple[type, ...], frozenset[type]]] = {}


def covering(table: M, classes: tuple[type, ...], name: str, *, absent: tuple[type, ...] | frozenset[type] = ()) -> M:
    """``table`` (keyed by IR classes), once it is known to have an entry for every class of
    ``classes`` but the ``absent`` ones, and for nothing else: a new class makes every table
    that lacks it fail at import, not at the first plan that uses it. Recorded in :data:`TABLES`
    (tests/unit/test_ir_tables.py finds every such table and asserts it is there)."""
    keys, kinds, left_out = set(table), set(classes), set(absent)
    wanted = kinds - left_out
    if keys != wanted or not left_out <= kinds:  # pragma: no cover - developer error at import
        raise RuntimeError(
            f"{name} is keyed by IR classes: it lacks {_names(wanted - keys)} and has {_names(keys - wanted)} "
            f"(absent by design: {_names(left_out)})"
        )
    TABLES[name] = (table, tuple(classes), frozenset(left_out))
    return table


def partial(table: M, classes: tuple[type, ...], name: str) -> M:
    """``table``, a table of extra behaviour for some of ``classes`` (the others take a
    default), once it is known to be keyed by those classes only; recorded in :data:`TABLES`."""
    stray = set(table) - set(classes)
    if stray:  # pragma: no cover - developer error at import
        raise RuntimeError(f"{name} is keyed by {_names(stray)}, which are not of its IR classes")
    TABLES[name] = (table, tuple(classes), frozenset(set(classes) - set(table)))
    return table


def _names(classes: set[type]) -> list[str]:
    return sorted(c.__name__ for c in classes)


def _keeps_order(step: Step, ordered: bool) -> bool:
    return ordered


def _loses_order(step: Step, ordered: bool) -> bool:
    return False


#: each step's effect on whether the rows are in a defined order: a global sort orders them; a
#: join, an aggregation, a set operation, a distinct or a repartition makes the order
#: undefined again; the other steps keep what was (a filter, a projection, a limit...)
ORDER_AFTER: dict[type, Callable[[Any, bool], bool]] = covering(
    {
        Filter: _keeps_order,
        Select: _keeps_order,
        WithColumn: _keeps_order,
        WithColumnRenamed: _keeps_order,
        Drop: _keeps_order,
        Distinct: _loses_order,
        Limit: _keeps_order,
        Offset: _keeps_order,
        OrderBy: lambda step, ordered: step.is_global,  # sortWithinPartitions: no global order
        GroupBy: _loses_order,
        Agg: _loses_order,
        Join: _loses_order,
        SetOp: _loses_order,
        CrossJoin: _loses_order,
        Stop: _keeps_order,
        Fetch: _keeps_order,
        Sample: _keeps_order,
        Repartition: _loses_order,
        Hint: _keeps_order,
        Tail: _keeps_order,
    },
    STEP_CLASSES,
    "ir.ORDER_AFTER",
)


def ends_ordered(plan: Plan) -> bool:
    """Whether ``plan``'s result rows come in a defined order: the last of its steps that
    defines the order is a global sort (:data:`ORDER_AFTER`)."""
    ordered = False
    for step in plan.steps:
        ordered = ORDER_AFTER[type(step)](step, ordered)
    return ordered


def right_plans(steps: tuple[Step, ...]) -> list[Plan]:
    """The right-hand input plans of ``steps`` (joins, set operations), in step order."""
    if _ONE_INPUT_STEPS.issuperset(map(type, steps)):  # none (the usual plan), decided at C speed
        return []
    return [step.right for step in steps if isinstance(step, (Join, SetOp, CrossJoin))]


def walk(expr: Expr) -> list[Expr]:
    """Every node of an expression tree, pre-order, iteratively (no recursion limit)."""
    out: list[Expr] = []
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(children(node)))
    return out


def children(node: Expr) -> list[Expr]:
    """The sub-expressions of ``node`` in written order (none for a leaf)."""
    get = _CHILDREN.get(type(node))
    return [] if get is None else get(node)


def _when_children(node: When) -> list[Expr]:
    kids = [e for pair in node.branches for e in pair]
    if node.otherwise is not None:
        kids.append(node.otherwise)
    return kids


#: each expression class with sub-expressions → its children (a table: every walk over an
#: expression asks it once per node); the other classes are leaves
_LEAF_CLASSES = (Col, Lit, Star, LambdaVar)
_CHILDREN: dict[type, Callable[[Any], list[Expr]]] = {
    Call: lambda n: list(n.args),
    UdfCall: lambda n: list(n.args),
    Cast: lambda n: [n.expr],
    When: _when_children,
    ExtractValue: lambda n: [n.child, n.key],
    Window: lambda n: [n.func, *n.partition_by, *(k.expr for k in n.order_by)],
    Lambda: lambda n: [n.body],
    Subquery: lambda n: list(n.values),  # its plan is a plan, not part of this expression tree
}
covering(_CHILDREN, EXPR_CLASSES, "ir._CHILDREN", absent=_LEAF_CLASSES)
