"""IR expressions → Spark Connect ``Expression`` protos, filled in place.

One builder per IR class (``BUILDERS``), one per special catalog form
(``SPECIAL_BUILDERS``); everything else in the catalog is a plain ``unresolved_function``
named after the catalog row's Spark function. Builders write into the proto message they
are given instead of returning a new one, so nothing is ever copied.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable, Mapping
from dataclasses import field, replace
from typing import Any

from .. import ir
from ..functions import BUILDER_FORMS, CATALOG, FunctionSpec
from ..records import Value, frozen
from ..spark_proto import pb
from ..types import ArrayType, DataType, MapType, Primitive, spark_type_proto
from .scope import Scope
from .statictypes import static_type

__all__ = ["BUILDERS", "ExprContext", "InlineUdf", "emit", "find_udf"]

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


@frozen
class InlineUdf(Value):
    """A Python UDF registered with a client, ready to travel inline in a plan as a
    ``CommonInlineUserDefinedFunction`` (its ``PythonUDF`` proto holds the pickled function)."""

    name: str
    python_udf: pb.PythonUDF
    deterministic: bool
    aggregate: bool  # a grouped-aggregate pandas UDF
    return_type: DataType | None = None


@frozen
class ExprContext(Value):
    """What a builder needs besides the node: the columns in scope and, inside a join
    condition, which input a bare column prefers (left operand → left, right → right)."""

    scope: Scope
    prefer: str | None = None
    lambda_vars: frozenset[str] = frozenset()
    #: typed literals as typed ``Literal`` protos, not casts (SQL parameters must be literals)
    literal_protos: bool = False
    #: the UDFs of the client translating the plan (sent inline where the plan calls them)
    udfs: Mapping[str, InlineUdf] = field(default_factory=dict)
    #: ``id()`` of each subquery node → the plan id of its relation (in the enclosing WithRelations)
    subquery_ids: Mapping[int, int] = field(default_factory=dict)


def find_udf(udfs: Mapping[str, InlineUdf], name: str) -> InlineUdf | None:
    """The registered UDF a plan calls by ``name`` (exact, then lower-cased), if any."""
    return udfs.get(name) or udfs.get(name.lower())


def emit(expr: ir.Expr, out: pb.Expression, ctx: ExprContext) -> None:
    BUILDERS[type(expr)](expr, out, ctx)


# ------------------------------------------------------------------ leaves


def build_column(col: ir.Col, out: pb.Expression, ctx: ExprContext) -> None:
    scope = ctx.scope
    name = col.name
    if ctx.lambda_vars and name in ctx.lambda_vars:
        out.unresolved_named_lambda_variable.name_parts.append(name)
        return
    if scope.sides is None and col.side is None:  # the common case: a plain reference
        out.unresolved_attribute.unparsed_identifier = (
            name if "." not in name and "`" not in name else scope.identifier(name)
        )
        return
    side = col.side
    target = scope
    if scope.sides is not None:
        side = side or scope.side_of(name, ctx.prefer)
        if side is not None:
            target = scope.sides[side]
            name = target.output_name(name)
    attr = out.unresolved_attribute
    attr.unparsed_identifier = target.identifier(name)
    if side is not None and target.plan_id is not None:
        attr.plan_id = target.plan_id


def _typed_literal_proto(lit: ir.Lit, out: pb.Expression) -> None:
    """A typed literal as a ``Literal`` of that type, as PySpark's ``LiteralExpression``
    writes one (tests/unit/test_translator.py compares the two type by type), built here:
    PySpark's builder imports pandas, which the ``connect-plan`` process has not."""
    from ..data import coerce_value

    assert lit.type is not None
    typed_literal(coerce_value(lit.value, lit.type), lit.type, out.literal)


_EPOCH_DAY = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MICROSECOND = datetime.timedelta(microseconds=1)

#: plan-format primitive → how a coerced value fills the ``Literal`` (PySpark's ``to_plan``)
_PRIMITIVE_LITERALS: dict[str, Callable[[Any, pb.Expression.Literal, Primitive], None]] = {
    "boolean": lambda v, out, t: setattr(out, "boolean", bool(v)),
    "tinyint": lambda v, out, t: setattr(out, "byte", int(v)),
    "smallint": lambda v, out, t: setattr(out, "short", int(v)),
    "int": lambda v, out, t: setattr(out, "integer", int(v)),
    "bigint": lambda v, out, t: setattr(out, "long", int(v)),
    "float": lambda v, out, t: setattr(out, "float", float(v)),
    "double": lambda v, out, t: setattr(out, "double", float(v)),
    "string": lambda v, out, t: setattr(out, "string", str(v)),
    "binary": lambda v, out, t: setattr(out, "binary", bytes(v)),
    "date": lambda v, out, t: setattr(out, "date", (v - _EPOCH_DAY).days),
    "timestamp": lambda v, out, t: setattr(out, "timestamp", (v - _EPOCH) // _MICROSECOND),
    "timestamp_ntz": lambda v, out, t: setattr(out, "timestamp_ntz", (v - _EPOCH.replace(tzinfo=None)) // _MICROSECOND),
    "decimal": lambda v, out, t: out.decimal.MergeFrom(
        pb.Expression.Literal.Decimal(value=str(v), precision=t.precision, scale=t.scale)
    ),
}


def typed_literal(value: Any, t: DataType, out: pb.Expression.Literal) -> None:
    """``value`` (coerced to ``t`` by :func:`connect_plan.data.coerce_value`) as a ``Literal``
    of type ``t``: primitives and arrays as PySpark writes them, maps and structs as Spark's
    ``LiteralValueProtoConverter`` reads them (PySpark has no builder for those)."""
    if value is None:
        out.null.CopyFrom(spark_type_proto(t))
    elif isinstance(t, Primitive):
        fill = _PRIMITIVE_LITERALS.get(t.name)
        if fill is None:  # variant, void: the parser lets no such parameter through
            raise TypeError(f"no literal of type {t.name}")
        fill(value, out, t)
    elif isinstance(t, ArrayType):
        assert t.element is not None
        out.array.element_type.CopyFrom(spark_type_proto(t.element))
        for v in value:
            typed_literal(v, t.element, out.array.elements.add())
    elif isinstance(t, MapType):
        assert t.key is not None and t.value is not None
        out.map.key_type.CopyFrom(spark_type_proto(t.key))
        out.map.value_type.CopyFrom(spark_type_proto(t.value))
        for k, v in value:
            typed_literal(k, t.key, out.map.keys.add())
            typed_literal(v, t.value, out.map.values.add())
    else:
        out.struct.struct_type.CopyFrom(spark_type_proto(t))
        for name, field_type in t.fields:
            typed_literal(value.get(name), field_type, out.struct.elements.add())


def build_literal(lit: ir.Lit, out: pb.Expression, ctx: ExprContext) -> None:
    if lit.type is None:  # the usual literal: typed as PySpark types it
        fill_literal(lit.value, out.literal)
        return
    if lit.value is not None and ctx.literal_protos:
        _typed_literal_proto(lit, out)
        return
    if lit.value is not None:
        # typed literal: the JSON value cast to the requested type (Spark folds it)
        fill_literal(lit.value, out.cast.expr.literal)
        out.cast.type.CopyFrom(spark_type_proto(lit.type))
        return
    out.literal.null.CopyFrom(spark_type_proto(lit.type))


def fill_literal(value: Any, out: pb.Expression.Literal) -> None:
    """PySpark's literal typing: int32 if it fits, else int64, else decimal(38,0)."""
    if value is None:
        out.null.null.SetInParent()
    elif isinstance(value, bool):
        out.boolean = value
    elif isinstance(value, int):
        if _INT32[0] <= value <= _INT32[1]:
            out.integer = value
        elif _INT64[0] <= value <= _INT64[1]:
            out.long = value
        else:
            out.decimal.value = str(value)
            out.decimal.precision = 38
            out.decimal.scale = 0
    elif isinstance(value, float):
        out.double = value
    elif isinstance(value, str):
        out.string = value
    elif isinstance(value, decimal.Decimal):
        # only catalog fill values (PySpark's lit(Decimal(0)) is a DecimalType() literal)
        out.decimal.value = str(value)
        out.decimal.precision = 10
        out.decimal.scale = 0
    else:  # the parser only lets JSON scalars through
        raise TypeError(f"unsupported literal {value!r}")


def build_star(star: ir.Star, out: pb.Expression, ctx: ExprContext) -> None:
    out.unresolved_star.SetInParent()
    if star.target is not None:
        out.unresolved_star.unparsed_target = f"{star.target}.*"  # as PySpark's col("s.*") sends it


# ------------------------------------------------------------------ calls


def build_call(call: ir.Call, out: pb.Expression, ctx: ExprContext) -> None:
    spec = CATALOG[call.fn]
    if spec.builder is not None:
        SPECIAL_BUILDERS[spec.builder](call, spec, out, ctx)
        return
    function(
        spec.spark, call.args if spec.order is None else _ordered(call.args, spec), out, ctx, distinct=call.distinct
    )


def function(
    name: str,
    args: list[ir.Expr] | tuple[ir.Expr, ...],
    out: pb.Expression,
    ctx: ExprContext,
    *,
    distinct: bool = False,
) -> None:
    fn = out.unresolved_function
    fn.function_name = name
    if distinct:
        fn.is_distinct = True
    arguments = fn.arguments
    if ctx.scope.sides is not None and name in _COMPARISONS and len(args) == 2:
        # in a join condition, a bare column on the left of a comparison prefers the left input
        emit(args[0], arguments.add(), replace(ctx, prefer="left"))
        emit(args[1], arguments.add(), replace(ctx, prefer="right"))
        return
    builders = BUILDERS
    for a in args:
        builders[type(a)](a, arguments.add(), ctx)


_COMPARISONS = frozenset({"==", "<=>", ">", ">=", "<", "<=", "!="})


def _ordered(args: tuple[ir.Expr, ...], spec: FunctionSpec) -> list[ir.Expr]:
    assert spec.order is not None
    return [args[i] for i in spec.order if i < len(args)]


def _build_logical_chain(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    """n-ary and/or as a balanced binary tree: depth log2(n) instead of n."""
    _balanced(call.args, 0, len(call.args), spec.spark, out, ctx)


def _balanced(args: tuple[ir.Expr, ...], lo: int, hi: int, name: str, out: pb.Expression, ctx: ExprContext) -> None:
    """``args[lo:hi]`` joined by ``name`` into ``out``, halves first (no slices copied)."""
    if hi - lo == 1:
        node = args[lo]
        BUILDERS[type(node)](node, out, ctx)
        return
    mid = lo + (hi - lo) // 2
    fn = out.unresolved_function
    fn.function_name = name
    arguments = fn.arguments
    _balanced(args, lo, mid, name, arguments.add(), ctx)
    _balanced(args, mid, hi, name, arguments.add(), ctx)


def _build_between(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    x, lo, hi = call.args
    fn = out.unresolved_function
    fn.function_name = "and"
    function(">=", [x, lo], fn.arguments.add(), ctx)
    function("<=", [x, hi], fn.arguments.add(), ctx)


def _build_isin(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    function("in", call.args, out, ctx)


def _build_single_passthrough(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    if len(call.args) == 1:
        emit(call.args[0], out, ctx)
    else:
        function(spec.spark, call.args, out, ctx)


def _build_log(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    if len(call.args) == 1:
        function("ln", call.args, out, ctx)
    else:
        value, base = call.args
        function("log", [base, value], out, ctx)


def _build_call_function(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    """call_function(name, args...): Spark Connect's CallFunction (a server function by name)."""
    name, *args = call.args
    assert isinstance(name, ir.Lit) and isinstance(name.value, str)
    cf = out.call_function
    cf.function_name = name.value
    for a in args:
        emit(a, cf.arguments.add(), ctx)


def _build_update_fields(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    """with_field(struct, name, value) / drop_fields(struct, names...): UpdateFields, as
    PySpark's Column.withField / Column.dropFields build it (one level per dropped field)."""
    struct, *rest = call.args
    if spec.name == "with_field":
        name, value = rest
        uf = out.update_fields
        emit(struct, uf.struct_expression, ctx)
        uf.field_name = _field_name(name)
        emit(value, uf.value_expression, ctx)
        return
    # drop_fields: the last field dropped is the outermost UpdateFields
    target = out
    for name in reversed(rest):
        uf = target.update_fields
        uf.field_name = _field_name(name)
        target = uf.struct_expression
    emit(struct, target, ctx)


def _field_name(e: ir.Expr) -> str:
    # analysis refused any other field name (literal_expected)
    assert isinstance(e, ir.Lit) and isinstance(e.value, str)
    return e.value


def _build_get(call: ir.Call, spec: FunctionSpec, out: pb.Expression, ctx: ExprContext) -> None:
    """get(x, <integer literal>): robin's map lookup x[key] when x is known to be a map (an
    int-keyed map); otherwise Spark's get, 0-based array access that is null out of range.
    (The parser already made every other key a map lookup.)"""
    if isinstance(static_type(call.args[0], ctx.scope), MapType):
        build_extract_value(ir.ExtractValue(call.args[0], call.args[1], call.loc), out, ctx)
    else:
        function(spec.spark, call.args, out, ctx)


SPECIAL_BUILDERS: dict[str, Callable[[ir.Call, FunctionSpec, pb.Expression, ExprContext], None]] = {
    "get": _build_get,
    "logical_chain": _build_logical_chain,
    "between": _build_between,
    "isin": _build_isin,
    "single_passthrough": _build_single_passthrough,
    "log": _build_log,
    "call_function": _build_call_function,
    "update_fields": _build_update_fields,
}


# ------------------------------------------------------------------ other nodes


def build_cast(node: ir.Cast, out: pb.Expression, ctx: ExprContext) -> None:
    cast = out.cast
    emit(node.expr, cast.expr, ctx)
    cast.type.CopyFrom(spark_type_proto(node.to))
    if node.mode == "try":
        cast.eval_mode = pb.Expression.Cast.EVAL_MODE_TRY


def build_when(node: ir.When, out: pb.Expression, ctx: ExprContext) -> None:
    fn = out.unresolved_function
    fn.function_name = "when"
    for cond, value in node.branches:
        emit(cond, fn.arguments.add(), ctx)
        emit(value, fn.arguments.add(), ctx)
    if node.otherwise is not None:
        emit(node.otherwise, fn.arguments.add(), ctx)


def build_extract_value(node: ir.ExtractValue, out: pb.Expression, ctx: ExprContext) -> None:
    emit(node.child, out.unresolved_extract_value.child, ctx)
    emit(node.key, out.unresolved_extract_value.extraction, ctx)


def build_udf_call(node: ir.UdfCall, out: pb.Expression, ctx: ExprContext) -> None:
    """A UDF registered with the client goes inline (CommonInlineUserDefinedFunction, as
    PySpark sends it); any other name is a call of a function registered on the server.
    (Analysis checked the UDF's kind and return type against the call.)"""
    udf = find_udf(ctx.udfs, node.name)
    if udf is None:
        call = out.call_function
        call.function_name = node.name
        for a in node.args:
            emit(a, call.arguments.add(), ctx)
        return
    fn = out.common_inline_user_defined_function
    fn.function_name = udf.name
    fn.deterministic = udf.deterministic
    for a in node.args:
        emit(a, fn.arguments.add(), ctx)
    fn.python_udf.CopyFrom(udf.python_udf)


def build_lambda_var(node: ir.LambdaVar, out: pb.Expression, ctx: ExprContext) -> None:
    out.unresolved_named_lambda_variable.name_parts.append(node.name)


def build_lambda(node: ir.Lambda, out: pb.Expression, ctx: ExprContext) -> None:
    lam = out.lambda_function
    inner = replace(ctx, lambda_vars=ctx.lambda_vars | frozenset(node.params))
    emit(node.body, lam.function, inner)
    for p in node.params:
        lam.arguments.add().name_parts.append(p)


def build_window(node: ir.Window, out: pb.Expression, ctx: ExprContext) -> None:
    win = out.window
    emit(node.func, win.window_function, ctx)
    for p in node.partition_by:
        emit(p, win.partition_spec.add(), ctx)
    for key in node.order_by:
        fill_sort_order(key, win.order_spec.add(), ctx)
    if node.frame is not None:
        frame = win.frame_spec
        frame.frame_type = (
            pb.Expression.Window.WindowFrame.FRAME_TYPE_ROW
            if node.frame.kind == "rows"
            else pb.Expression.Window.WindowFrame.FRAME_TYPE_RANGE
        )
        _fill_boundary(node.frame.lower, frame.lower, node.frame.kind)
        _fill_boundary(node.frame.upper, frame.upper, node.frame.kind)


def _fill_boundary(bound: int | None, out: pb.Expression.Window.WindowFrame.FrameBoundary, kind: str) -> None:
    """As PySpark sends them: unbounded / current row markers, else an int (rows) or a
    long (range) literal offset."""
    if bound is None:
        out.unbounded = True
    elif bound == 0:
        out.current_row = True
    elif kind == "rows":
        out.value.literal.integer = bound
    else:
        out.value.literal.long = bound


def fill_sort_order(key: ir.SortKey, out: pb.Expression.SortOrder, ctx: ExprContext) -> None:
    emit(key.expr, out.child, ctx)
    so = pb.Expression.SortOrder
    out.direction = so.SORT_DIRECTION_ASCENDING if key.ascending else so.SORT_DIRECTION_DESCENDING
    nulls_first = key.ascending if key.nulls_first is None else key.nulls_first
    out.null_ordering = so.SORT_NULLS_FIRST if nulls_first else so.SORT_NULLS_LAST


_SUBQUERY_TYPES = {
    "scalar": pb.SubqueryExpression.SUBQUERY_TYPE_SCALAR,
    "exists": pb.SubqueryExpression.SUBQUERY_TYPE_EXISTS,
    "in": pb.SubqueryExpression.SUBQUERY_TYPE_IN,
}


def build_subquery(node: ir.Subquery, out: pb.Expression, ctx: ExprContext) -> None:
    """As PySpark's DataFrame subqueries: the relation travels in the enclosing relation's
    ``WithRelations`` (the emitter puts it there), the expression names it by plan id."""
    sub = out.subquery_expression
    sub.plan_id = ctx.subquery_ids[id(node)]
    sub.subquery_type = _SUBQUERY_TYPES[node.kind]
    for v in node.values:
        emit(v, sub.in_subquery_values.add(), ctx)


BUILDERS: dict[type, Callable[[Any, pb.Expression, ExprContext], None]] = ir.covering(
    {
        ir.Col: build_column,
        ir.Lit: build_literal,
        ir.Call: build_call,
        ir.Cast: build_cast,
        ir.When: build_when,
        ir.ExtractValue: build_extract_value,
        ir.Star: build_star,
        ir.Window: build_window,
        ir.Lambda: build_lambda,
        ir.LambdaVar: build_lambda_var,
        ir.UdfCall: build_udf_call,
        ir.Subquery: build_subquery,
    },
    ir.EXPR_CLASSES,
    "translator.expressions.BUILDERS",
)

# import-time completeness check: every special form
if set(SPECIAL_BUILDERS) != BUILDER_FORMS:  # pragma: no cover
    raise RuntimeError(f"catalog builders and SPECIAL_BUILDERS differ: {sorted(BUILDER_FORMS ^ set(SPECIAL_BUILDERS))}")
