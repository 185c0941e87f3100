"""Analysis, the translator's first pass: the names every step sees and outputs, and every
check that needs them.

Walking the steps forward, it tracks the columns of each intermediate result (a
:class:`~.scope.Scope`: names where known, Spark types of inline columns), reports what
is wrong with them (an unknown or duplicate column, a join input whose names only a server
knows, a generator under one name, a struct field name that is not a literal, a UDF called
as what it is not) and, like the parser, collects every problem instead of stopping at the
first. What it decided is left for lowering in :class:`~.facts.PlanFacts`: the columns each
step's expressions see, what each filter or ``withColumn`` expression references, a join's
resolved inputs and its renames of colliding right-hand columns (``name_right``), so that
lowering has no name logic of its own.

It is the translator's only I/O: when static tracking has lost the names a join needs (a
table read, a computed column Spark names), it asks ``resolver`` (a client's AnalyzePlan)
for the names of the input so far, lowered and emitted by ``relation_of``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .. import ir
from ..arrow_types import from_arrow
from ..errors import ErrorDetail
from ..functions import CATALOG
from ..types import StructType, TypeParseError, type_string
from . import binary
from .expressions import InlineUdf, find_udf
from .facts import (
    AggregateFacts,
    FilterFacts,
    PlanFacts,
    RelationOf,
    Resolver,
    StepFacts,
    WithColumnFacts,
)
from .naming import col_output_name, default_agg_name, generator_names, is_generator
from .references import root_name, unresolved, unresolved_refs
from .scope import Scope
from .statictypes import generator_width, static_type

if TYPE_CHECKING:
    import pyarrow as pa

    from ..types import DataType

__all__ = ["ANALYSES", "Analyzer", "ExprChecker"]


#: expressions with nothing in them to check
_LEAVES = frozenset({ir.Col, ir.Lit})
#: functions whose arguments name struct fields (catalog name → those arguments)
_FIELD_NAME_ARGS = {"with_field": slice(1, 2), "drop_fields": slice(1, None)}
#: the expressions of the steps that keep their input's columns (checked, never merged)
_EXPRESSIONS: dict[type, Callable[[Any], tuple[ir.Expr, ...]]] = ir.partial(
    {
        ir.OrderBy: lambda s: tuple(k.expr for k in s.keys),
        ir.Repartition: lambda s: s.keys,
        ir.Hint: lambda s: s.parameters,
    },
    ir.STEP_CLASSES,
    "translator.analyze._EXPRESSIONS",
)


# ------------------------------------------------------------------ the pass


class Analyzer:
    """Forward pass over the steps: names tracked, problems collected (see module doc)."""

    def __init__(
        self,
        *,
        case_sensitive: bool = False,
        resolver: Resolver | None = None,
        relation_of: RelationOf | None = None,
        udfs: Mapping[str, InlineUdf] | None = None,
        check_only: bool = False,
    ) -> None:
        self.case_sensitive = case_sensitive
        self.resolver = resolver
        self.relation_of = relation_of
        self.udfs: Mapping[str, InlineUdf] = udfs or {}
        #: validating without a server: what only the server can tell (a join input's column
        #: names) is not an error; the checks that need those names are skipped
        self.check_only = check_only
        self.errors: list[ErrorDetail] = []
        self.exprs = ExprChecker(self.udfs, self.err)
        #: shared sub-plans: uses counted first, analysed once (by identity)
        self._uses: dict[int, int] | None = None
        self._shared: dict[int, PlanFacts] = {}
        #: the input scopes of the steps analysed so far in the plan being walked (for
        #: filter/orderBy, which Spark lets name a column an earlier projection dropped)
        self._earlier: list[Scope] = []
        #: the output column names of every source and step, by its location (as far as
        #: they are known statically: None entries are named by Spark, None is unknown)
        self.columns: dict[str, tuple[str | None, ...] | None] = {}

    def err(self, code: str, loc: str, message: str, input: Any = None) -> None:
        self.errors.append(
            ErrorDetail(code, loc, message, input) if input is not None else ErrorDetail(code, loc, message)
        )

    # -------------------------------------------------------------- plans

    def plan(self, plan: ir.Plan) -> PlanFacts:
        if self._uses is None:  # the whole plan's, counted on entering it
            self._uses = count_uses(plan)
        facts = SOURCE_ANALYSES[type(plan.source)](self, plan.source)
        scope = facts.scope
        columns = self.columns
        columns[plan.source.loc] = scope.names
        analyses = ANALYSES
        outer, self._earlier = self._earlier, []
        try:
            for step in plan.steps:
                self._earlier.append(scope)
                scope = analyses[type(step)](self, step, facts, scope)
                columns[step.loc] = scope.names
        finally:
            self._earlier = outer
        facts.scope = scope
        return facts

    def check_refs(
        self, exprs: tuple[ir.Expr, ...], scope: Scope, *, earlier: bool = False, also: tuple[str, ...] = ()
    ) -> None:
        """Every column ``exprs`` reference must resolve in ``scope`` (with ``earlier``, in
        any scope of the plan so far), where the columns are known: ``unknown_column``."""
        scopes = self._earlier if earlier and self._earlier else [scope]
        for col, message in unresolved(exprs, scopes, also):
            self.err("unknown_column", col.loc, message, col.name)

    def check_found_refs(self, refs: list[ir.Col], scope: Scope, found: int, *, earlier: bool = False) -> None:
        """:meth:`check_refs` for the references :meth:`ExprChecker.facts` found: their
        problems are placed before those the walk reported (from error ``found`` on), where
        a check before the walk would have put them."""
        scopes = self._earlier if earlier and self._earlier else [scope]
        unknown = [
            ErrorDetail("unknown_column", col.loc, message, col.name) for col, message in unresolved_refs(refs, scopes)
        ]
        if unknown:
            self.errors[found:found] = unknown

    def resolve(self, facts: PlanFacts, scope: Scope) -> Scope:
        """Ask the server for the names when static tracking lost them (rare); ``facts``
        holds the steps analysed so far, whose output ``scope`` describes."""
        if scope.complete or self.resolver is None:
            return scope
        inner = facts.inner
        if facts.shared and not facts.steps:  # a shared sub-plan as it is: asked once, for every use
            assert inner is not None
            if inner.resolved is None:
                inner.resolved = self.resolve(inner, inner.scope)
            return inner.resolved
        assert self.relation_of is not None
        rel, local = self.relation_of(facts)
        names = self.resolver(rel, local)
        return Scope(tuple(names), self.case_sensitive)

    # -------------------------------------------------------------- sources

    def inline_source(self, source: ir.InlineData) -> PlanFacts:
        schema = source.table.schema  # its names: 0.3 µs; Table.column_names: 2 µs
        names = tuple(schema.names)
        # the scope of those names with their types (every key is one of its names: what
        # with_names would keep, without building the scope twice)
        return PlanFacts(source, Scope(names, self.case_sensitive, types=_arrow_types(schema, self.case_sensitive)))

    def table_source(self, source: ir.TableSource | ir.SqlSource) -> PlanFacts:
        return PlanFacts(source, Scope(None, self.case_sensitive))

    def file_source(self, source: ir.FileSource) -> PlanFacts:
        return PlanFacts(source, Scope(source.columns, self.case_sensitive))

    def range_source(self, source: ir.RangeSource) -> PlanFacts:
        return PlanFacts(source, Scope(("id",), self.case_sensitive))

    def shared_source(self, source: ir.SharedPlan) -> PlanFacts:
        key = id(source)
        assert self._uses is not None
        if self._uses.get(key, 0) <= 1:
            once = self.plan(source.plan)
            return PlanFacts(source, once.scope, inner=once)
        inner = self._shared.get(key)
        if inner is None:
            inner = self._shared[key] = self.plan(source.plan)
        # a use after the names were asked for starts from them
        return PlanFacts(source, inner.resolved or inner.scope, inner=inner, shared=True)

    def _check_generator_width(self, expr: ir.Expr, scope: Scope, loc: str, why: str) -> None:
        """A generator that outputs several columns cannot go under one name: Spark's
        UDTF_ALIAS_NUMBER_MISMATCH, refused here before anything is sent."""
        if not is_generator(expr):
            return
        assert isinstance(expr, ir.Call)
        width = generator_width(expr, scope)
        if width is None or width < 2:
            return
        many = "at least 2" if expr.fn.startswith("posexplode") and width == 2 else str(width)
        self.err(
            "generator_columns",
            loc,
            f"{expr.fn!r} outputs {many} columns here and {why} (Spark refuses it: UDTF_ALIAS_NUMBER_MISMATCH); "
            'use a select item with one name per column ({"expr": ..., "name": ["pos", "col"]}) or no name',
        )

    # -------------------------------------------------------------- single-input steps

    def keep(self, step: ir.Step, facts: PlanFacts, scope: Scope) -> Scope:
        """Steps that keep their input's columns and hold no expression."""
        facts.steps.append(StepFacts(step, scope))
        return scope

    def keep_checked(self, step: ir.Step, facts: PlanFacts, scope: Scope) -> Scope:
        """Steps that keep their input's columns: their expressions checked."""
        self.exprs.check(*_EXPRESSIONS[type(step)](step))
        return self.keep(step, facts, scope)

    def order_by(self, step: ir.OrderBy, facts: PlanFacts, scope: Scope) -> Scope:
        """A sort: its keys may name a column an earlier projection dropped (Spark adds it back)."""
        self.check_refs(tuple(k.expr for k in step.keys), scope, earlier=True)
        return self.keep_checked(step, facts, scope)

    def maybe_no_op(self, step: ir.Stop | ir.Offset | ir.Fetch, facts: PlanFacts, scope: Scope) -> Scope:
        """Steps that keep their input's columns and may do nothing at all: ``stop``,
        ``offset(0)``, a Fetch of every row (then left out: nothing to lower)."""
        if not _does_nothing(step):
            facts.steps.append(StepFacts(step, scope))
        return scope

    def filter(self, step: ir.Filter, facts: PlanFacts, scope: Scope) -> Scope:
        found = len(self.errors)
        _, refs, _, nondet, _ = self.exprs.facts(step.condition)
        self.check_found_refs(refs, scope, found, earlier=True)
        facts.steps.append(FilterFacts(step, scope, nondet))
        return scope

    def select(self, step: ir.Select, facts: PlanFacts, scope: Scope) -> Scope:
        out: list[str | None] = []
        unknown = False
        types: dict[str, Any] = {}
        aliases: list[str] = []
        for item in step.items:
            col = item.expr
            if type(col) is ir.Col and item.alias is None and col.side is None and scope.has(col.name):
                # a column of the input as it is (the usual item): resolved, named and typed
                # by the input; the same outcome as the general rules below, sooner
                out.append(col.name)
                known = scope.type_of(col.name)
                if known is not None:
                    types[scope.norm(col.name)] = known
                continue
            self.check_refs((item.expr,), scope, also=tuple(aliases))
            if isinstance(item.alias, str):
                aliases.append(item.alias)
            if type(item.expr) not in _LEAVES:
                self.exprs.facts(item.expr)
            if isinstance(item.alias, str):
                self._check_generator_width(item.expr, scope, item.expr.loc, "the item names one column")
            known = static_type(item.expr, scope)
            if known is not None and (
                isinstance(item.alias, str) or (item.alias is None and isinstance(item.expr, ir.Col))
            ):
                types[scope.norm(item.alias or item.expr.name)] = known  # type: ignore[union-attr]
            if isinstance(item.alias, tuple):
                out.extend(item.alias)
            elif item.alias is not None:
                out.append(item.alias)
            elif is_generator(item.expr):
                generated = generator_names(item.expr)
                if generated is None:
                    unknown = True  # posexplode, inline ...: the column count depends on types
                else:
                    out.extend(generated)
            elif isinstance(item.expr, ir.Star) and item.expr.target is not None:
                # ``s.*``: the fields of struct ``s`` when its type is known, else the server's to say
                self.check_refs((ir.Col(f"{item.expr.target}.*", item.expr.loc),), scope)
                struct = scope.type_of(item.expr.target)
                if isinstance(struct, StructType):
                    out.extend(name for name, _ in struct.fields)
                    types.update((scope.norm(name), t) for name, t in struct.fields)
                else:
                    unknown = True
            elif isinstance(item.expr, ir.Star):
                if scope.names is None:
                    unknown = True
                else:
                    out.extend(scope.names)
            elif isinstance(item.expr, ir.Col):
                name = item.expr.name
                out.append(name if scope.has(name) is not False or "." not in name else name.rsplit(".", 1)[-1])
            else:
                out.append(None)
        seen: dict[str, int] = {}
        for i, out_name in enumerate(out):
            if out_name is None:
                continue
            key = scope.norm(out_name)
            if key in seen:
                self.err(
                    "duplicate_column",
                    step.loc,
                    f"select outputs column {out_name!r} twice; output names must be unique (add an alias)",
                    out_name,
                )
            seen[key] = i
        facts.steps.append(StepFacts(step, scope))
        return scope.with_names(None if unknown else out, types)

    def with_column(self, step: ir.WithColumn, facts: PlanFacts, scope: Scope) -> Scope:
        found = len(self.errors)
        names, refs, star, _, generator = self.exprs.facts(step.expr)
        self.check_found_refs(refs, scope, found)
        key = scope.norm(step.name)
        facts.steps.append(WithColumnFacts(step, scope, key, names, star, generator))
        if generator:  # somewhere in the expression; the check looks at the top
            self._check_generator_width(step.expr, scope, step.expr.loc, "withColumn names one column")
        if scope.names is None:
            return scope
        return scope.with_column(step.name, static_type(step.expr, scope))

    def rename(self, step: ir.WithColumnRenamed, facts: PlanFacts, scope: Scope) -> Scope:
        idx = scope.index_of(step.old)
        if idx is None and scope.complete:
            self.err(
                "unknown_column",
                f"{step.loc}/payload/old",
                f"withColumnRenamed: no column {step.old!r} (columns: {scope.known()})",
                step.old,
            )
            return scope
        clash = scope.index_of(step.new)
        if clash is not None and clash != idx:
            self.err(
                "duplicate_column",
                f"{step.loc}/payload/new",
                f"withColumnRenamed: a column {step.new!r} already exists; output names must be unique",
                step.new,
            )
            return scope
        facts.steps.append(StepFacts(step, scope))
        if scope.names is None or idx is None:
            return scope
        names = list(scope.names)
        names[idx] = step.new
        types = {k: t for k, t in scope.types.items() if k != scope.norm(step.old)}
        moved = scope.type_of(step.old)
        if moved is not None:
            types[scope.norm(step.new)] = moved
        return scope.with_names(names, types)

    def drop(self, step: ir.Drop, facts: PlanFacts, scope: Scope) -> Scope:
        names = list(scope.names) if scope.names is not None else None
        for i, name in enumerate(step.names):
            idx = scope.index_of(name)
            if idx is None and scope.complete:
                self.err(
                    "unknown_column",
                    f"{step.loc}/payload/columns/{i}",
                    f"drop: no column {name!r} (columns: {scope.known()})",
                    name,
                )
            elif idx is not None and names is not None:
                names[idx] = "\0dropped"
        if names is not None:
            names = [n for n in names if n != "\0dropped"]
        facts.steps.append(StepFacts(step, scope))
        return scope.with_names(names, scope.types)

    def group_by(self, step: ir.GroupBy, facts: PlanFacts, scope: Scope) -> Scope:
        assert step.aggs is not None  # the parser paired a groupBy without aggs with its agg step
        return self.aggregate(step, step.aggs, facts, scope, agg_index=step.agg_index)

    def agg(self, step: ir.Agg, facts: PlanFacts, scope: Scope) -> Scope:
        # a standalone agg not preceded by a groupBy aggregates all rows (DataFrame.agg)
        whole = ir.GroupBy(step.index, step.op, step.loc, "groupby", (), None)
        return self.aggregate(whole, step.aggs, facts, scope)

    def aggregate(
        self,
        step: ir.GroupBy,
        aggs: tuple[ir.AggItem, ...],
        facts: PlanFacts,
        scope: Scope,
        agg_index: int | None = None,
    ) -> Scope:
        self.check_refs((*step.keys, *(a.expr for a in aggs)), scope)
        self.exprs.check(*step.keys, *(a.expr for a in aggs))
        facts.steps.append(AggregateFacts(step, scope, aggs, agg_index))
        names: list[str | None] = []
        for k in step.keys:
            names.append(col_output_name(k, scope))
        seen = {scope.norm(n) for n in names if n is not None}
        for a in aggs:
            name = a.alias if a.alias is not None else default_agg_name(a.expr)
            if name is not None and scope.norm(name) in seen:
                self.err(
                    "duplicate_column",
                    a.loc,
                    f"{step.op} outputs column {name!r} twice; output names must be unique (add an alias)",
                    name,
                )
            elif name is not None:
                seen.add(scope.norm(name))
            names.append(name)
        return scope.with_names(names)


class ExprChecker:
    """One walk per expression: what it references (for lowering's merge rules) and the
    checks that need no column names (struct field names, calls of the client's UDFs)."""

    def __init__(self, udfs: Mapping[str, InlineUdf], err: Callable[[str, str, str], None]) -> None:
        self.udfs = udfs
        self.err = err

    def facts(self, expr: ir.Expr) -> tuple[set[str], list[ir.Col], bool, bool, bool]:
        """Names referenced (lower-cased, with struct roots); the column references a
        reference check looks up (as :func:`~.references.unresolved` finds them: in written
        order, none a join condition pins to one input, none rooted at a lambda parameter); and whether
        the expression has a star, a non-deterministic call, or a generator. Checks struct
        field names and calls of registered UDFs on the way (one walk)."""
        names: set[str] = set()
        refs: list[ir.Col] = []  # right to left: this walk takes a node's children last first
        star = nondet = generator = False
        stack: list[ir.Expr] = [expr]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ir.Lit:
                continue
            if kind is ir.Col:
                name = node.name.lower()  # type: ignore[union-attr]
                names.add(name)
                if "." in name:
                    names.add(name.split(".", 1)[0])
                if node.side is None:  # type: ignore[union-attr]
                    refs.append(node)  # type: ignore[arg-type]
            elif kind is ir.Call:
                spec = CATALOG[node.fn]  # type: ignore[union-attr]
                nondet = nondet or spec.nondeterministic
                generator = generator or spec.kind == "generator"
                if spec.name in _FIELD_NAME_ARGS:
                    self._check_field_names(node)  # type: ignore[arg-type]
                stack.extend(node.args)  # type: ignore[union-attr]
            elif kind is ir.Star:
                star = True
            elif kind is ir.Lambda:
                # its body, walked now (as the stack would take it next); its references
                # rooted at the lambda's parameters are the lambda's own, not columns
                body_names, body_refs, body_star, body_nondet, body_generator = self.facts(node.body)  # type: ignore[union-attr]
                names |= body_names
                params = {n.lower() for n in node.params}  # type: ignore[union-attr]
                refs.extend(col for col in reversed(body_refs) if root_name(col.name).lower() not in params)
                star, nondet, generator = star or body_star, nondet or body_nondet, generator or body_generator
            else:
                if kind is ir.UdfCall:
                    nondet = True  # UDFs may be non-deterministic; never merged
                    self._check_udf(node)  # type: ignore[arg-type]
                elif kind is ir.Subquery:
                    # its plan may name columns of this step's input (correlation): they count as
                    # read, so a merge never defines them in the same relation (Spark could not
                    # see them there)
                    names |= plan_column_names(node.plan)  # type: ignore[union-attr]
                stack.extend(ir.children(node))
        refs.reverse()
        return names, refs, star, nondet, generator

    def check(self, *exprs: ir.Expr) -> None:
        """The checks of :meth:`facts`, for expressions that merge with nothing."""
        for e in exprs:
            if type(e) not in _LEAVES:
                self.facts(e)

    def _check_field_names(self, call: ir.Call) -> None:
        for e in call.args[_FIELD_NAME_ARGS[CATALOG[call.fn].name]]:
            if not (isinstance(e, ir.Lit) and isinstance(e.value, str)):
                self.err("literal_expected", e.loc, "a struct field name must be a string literal")

    def _check_udf(self, node: ir.UdfCall) -> None:
        """A call of a UDF registered with the client must match how it was registered."""
        udf = find_udf(self.udfs, node.name) if self.udfs else None
        if udf is None:
            return  # called on the server by name
        if node.aggregate and not udf.aggregate:
            self.err(
                "udf_kind",
                node.loc,
                f"UDF {node.name!r} is a scalar UDF; a python_grouped_udf aggregation needs a grouped-aggregate "
                "UDF (register it with kind='grouped_agg')",
            )
        if node.return_type is not None and udf.return_type is not None and node.return_type != udf.return_type:
            self.err(
                "udf_return_type",
                node.loc,
                f"the plan declares return_type {type_string(node.return_type)!r} but UDF {node.name!r} was "
                f"registered returning {type_string(udf.return_type)!r}",
            )


def plan_column_names(plan: ir.Plan) -> set[str]:
    """Every column name (lower-cased) an expression anywhere in ``plan`` or its nested plans
    names: what a subquery may read of the query around it. Steps and expressions are walked
    by their fields (a class added later is walked without a change here); what each source
    holds is :data:`_SOURCE_PARTS`'."""
    out: set[str] = set()
    stack: list[Any] = [plan]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is ir.Col:
            out.add(value.name.lower())
        elif kind is ir.Plan:
            stack.append(value.source)
            stack.extend(value.steps)
        elif kind in _SOURCE_PARTS:
            stack.extend(_SOURCE_PARTS[kind](value))
        elif kind is list or kind is tuple:
            stack.extend(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            stack.extend(getattr(value, f.name) for f in dataclasses.fields(value))
    return out


#: what of each source may name columns (its expressions, its plan): plan_column_names' walk
_SOURCE_PARTS: dict[type, Callable[[Any], tuple[Any, ...]]] = ir.covering(
    {
        ir.InlineData: lambda src: (),  # rows, no expressions
        ir.TableSource: lambda src: (),
        ir.FileSource: lambda src: (),
        ir.RangeSource: lambda src: (),
        ir.SqlSource: lambda src: (*(e for _, e in src.named_args), *src.pos_args),
        ir.SharedPlan: lambda src: (src.plan,),
    },
    ir.SOURCE_CLASSES,
    "translator.analyze._SOURCE_PARTS",
)


def count_uses(plan: ir.Plan) -> dict[int, int]:
    """How often each shared sub-plan is used, by identity (iteratively: plans nest
    without limit)."""
    uses: dict[int, int] = {}
    stack = [plan]
    seen: set[int] = set()
    while stack:
        p = stack.pop()
        if isinstance(p.source, ir.SharedPlan):
            key = id(p.source)
            uses[key] = uses.get(key, 0) + 1
            if key not in seen:
                seen.add(key)
                stack.append(p.source.plan)
        stack.extend(ir.right_plans(p.steps))
    return uses


def _does_nothing(step: ir.Stop | ir.Offset | ir.Fetch) -> bool:
    if isinstance(step, ir.Offset):
        return step.n == 0
    if isinstance(step, ir.Fetch):
        return step.offset == 0 and step.count is None
    return True


def _arrow_types(schema: pa.Schema, case_sensitive: bool) -> dict[str, DataType]:
    """The plan-format types of an inline table's columns (names normalised as a scope of
    that case sensitivity normalises them)."""
    out: dict[str, DataType] = {}
    for name, arrow in zip(schema.names, schema.types):
        try:
            out[name if case_sensitive else name.lower()] = from_arrow(arrow)
        except TypeParseError:
            continue
    return out


ANALYSES: dict[type, Callable[[Analyzer, Any, PlanFacts, Scope], Scope]] = ir.covering(
    {
        ir.Filter: Analyzer.filter,
        ir.Select: Analyzer.select,
        ir.WithColumn: Analyzer.with_column,
        ir.WithColumnRenamed: Analyzer.rename,
        ir.Drop: Analyzer.drop,
        ir.Distinct: Analyzer.keep,
        ir.Limit: Analyzer.keep,
        ir.Offset: Analyzer.maybe_no_op,
        ir.OrderBy: Analyzer.order_by,
        ir.GroupBy: Analyzer.group_by,
        ir.Agg: Analyzer.agg,
        ir.Join: binary.join,
        ir.SetOp: binary.set_op,
        ir.CrossJoin: binary.cross_join,
        ir.Stop: Analyzer.maybe_no_op,
        ir.Fetch: Analyzer.maybe_no_op,
        ir.Sample: Analyzer.keep,
        ir.Repartition: Analyzer.keep_checked,
        ir.Hint: Analyzer.keep_checked,
        ir.Tail: Analyzer.keep,
    },
    ir.STEP_CLASSES,
    "translator.analyze.ANALYSES",
)

SOURCE_ANALYSES: dict[type, Callable[[Analyzer, Any], PlanFacts]] = ir.covering(
    {
        ir.InlineData: Analyzer.inline_source,
        ir.TableSource: Analyzer.table_source,
        ir.FileSource: Analyzer.file_source,
        ir.RangeSource: Analyzer.range_source,
        ir.SqlSource: Analyzer.table_source,
        ir.SharedPlan: Analyzer.shared_source,
    },
    ir.SOURCE_CLASSES,
    "translator.analyze.SOURCE_ANALYSES",
)
