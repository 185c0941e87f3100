"""Substrait expressions other than literals and function calls → IR: field references (with
nested segments), nested constructors, subqueries, IF/SWITCH, IN lists and casts; and the sort
keys of a sort relation or a window. Literals are in :mod:`.literals`, function calls in
:mod:`.functions`."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from ... import ir
from ...types import Primitive
from . import spellings as sp
from .lambdas import lambda_parameter
from .literals import literal, literal_value, named_struct, untyped_null
from .state import Converter, Rel, Shape, enum_name, expression, json_name
from .subqueries import scalar_subquery_plan
from .types import spark_type

__all__ = ["simple_case_operand", "sort_keys"]


def sort_keys(c: Converter, sorts: Any, loc: str, names: list[str]) -> tuple[ir.SortKey, ...]:
    """A sort relation's or a window's ``sorts`` (at ``loc``/sorts) over the columns ``names``; a
    sort by a comparison function reference, or with no direction, is a located error."""
    keys = []
    for k, s in enumerate(sorts):
        kloc = f"{loc}/sorts/{k}"
        expr = c.expr(s.expr, f"{kloc}/expr", names)
        direction = sp.SORT_DIRECTIONS.get(enum_name(s, "direction"))
        if s.WhichOneof("sort_kind") != "direction" or direction is None:
            c.err(
                "substrait_unsupported",
                kloc,
                "a sort needs a direction (comparison function references are not supported)",
            )
            continue
        asc, nulls_first = direction
        keys.append(ir.SortKey(expr, asc, nulls_first, kloc))
    return tuple(keys)


@expression("selection")
def selection(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    """A field reference: a column of the input (root), of an enclosing relation's input
    (outer, ``steps_out`` levels up), a lambda's parameter (:mod:`.lambdas`) or a part of an
    expression's value; then nested segments: struct fields (by the Spark names the converter
    knows), list elements, map keys."""
    ref_kind = msg.WhichOneof("root_type")
    scope = names
    if ref_kind == "outer_reference":
        steps = msg.outer_reference.steps_out or 1
        if steps > len(c.outer):
            c.err(
                "substrait_field_index",
                f"{loc}/outerReference",
                f"an outer reference {steps} levels out, the plan has {len(c.outer)}",
            )
            return ir.Lit(None, loc)
        scope = c.outer[-steps]
    if msg.WhichOneof("reference_type") != "direct_reference":
        c.err(
            "substrait_unsupported",
            f"{loc}/{json_name(msg, msg.WhichOneof('reference_type') or 'direct_reference')}",
            "masked references (a selection of several fields at once) are not supported; only direct ones",
        )
        return ir.Lit(None, loc)
    seg = msg.direct_reference
    seg_loc = f"{loc}/directReference"
    if ref_kind == "lambda_parameter_reference":
        var = lambda_parameter(c, msg, loc)
        if var is None:
            return ir.Lit(None, loc)
        if seg.struct_field.HasField("child"):  # into a parameter's value (no struct names known)
            return _segments(c, seg.struct_field.child, var, None, f"{seg_loc}/structField/child")
        return var
    if ref_kind == "expression":
        value = c.expr(msg.expression, f"{loc}/expression", names)
        return _segments(c, seg, value, c.shape_of(value), seg_loc)
    if seg.WhichOneof("reference_type") != "struct_field":
        kind = seg.WhichOneof("reference_type")
        c.err(
            "substrait_invalid",
            f"{seg_loc}/{json_name(seg, kind) if kind else 'referenceType'}",
            "a reference into a relation's row starts with a struct field (the column)",
        )
        return ir.Lit(None, loc)
    field_ref = seg.struct_field
    if not 0 <= field_ref.field < len(scope):
        c.err(
            "substrait_field_index",
            f"{seg_loc}/structField/field",
            f"field {field_ref.field} of an input of {len(scope)} columns",
        )
        return ir.Lit(None, loc)
    col = scope[field_ref.field]
    if field_ref.HasField("child"):
        return _segments(c, field_ref.child, ir.Col(col, loc), c.shapes.get(col), f"{seg_loc}/structField/child")
    return ir.Col(col, loc)


def _segments(c: Converter, seg: Message, value: ir.Expr, shape: Shape | None, loc: str) -> ir.Expr:
    """Nested reference segments applied to ``value`` (whose layout is ``shape``)."""
    while True:
        kind = seg.WhichOneof("reference_type")
        if kind is None:
            c.err("substrait_invalid", loc, "a reference segment with no kind set")
            return ir.Lit(None, loc)
        sub = getattr(seg, kind)
        sloc = f"{loc}/{json_name(seg, kind)}"
        if kind == "struct_field":
            if shape is None or shape.fields is None:
                c.err(
                    "substrait_unsupported",
                    sloc,
                    "a struct field reference into a value whose field names are not known here: Spark "
                    "names struct fields, Substrait numbers them (known: structs of a read's base schema, "
                    "struct literals and constructors, casts to a struct type)",
                )
                return ir.Lit(None, loc)
            if not 0 <= sub.field < len(shape.fields):
                c.err(
                    "substrait_field_index",
                    f"{sloc}/field",
                    f"field {sub.field} of a struct of {len(shape.fields)} fields",
                )
                return ir.Lit(None, loc)
            name, shape = shape.fields[sub.field]
            value = ir.ExtractValue(value, ir.Lit(name, sloc), sloc)
        elif kind == "list_element":
            # 0-based (negative: from the end); Spark's element_at is 1-based (-1: the last);
            # out of range is null, as in Substrait
            index = sub.offset + 1 if sub.offset >= 0 else sub.offset
            value = ir.Call("try_element_at", (value, ir.Lit(index, sloc)), sloc)
            shape = shape.element if shape is not None else None
        else:  # map_key
            key = literal(c, sub.map_key, f"{sloc}/mapKey", [])
            value = ir.Call("try_element_at", (value, key), sloc)
            shape = shape.element if shape is not None else None
        if not sub.HasField("child"):
            return value
        seg, loc = sub.child, f"{sloc}/child"


@expression("nested")
def nested(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    """Expression.Nested: a struct, list or map built from expressions."""
    kind = msg.WhichOneof("nested_type")
    if kind is None:
        c.err("substrait_invalid", loc, "a nested constructor with no kind set")
        return ir.Lit(None, loc)
    sub = getattr(msg, kind)
    sloc = f"{loc}/{json_name(msg, kind)}"
    if kind == "struct":
        return named_struct([c.expr(e, f"{sloc}/fields/{k}", names) for k, e in enumerate(sub.fields)], sloc)
    if kind == "list":
        if not len(sub.values):
            c.err("substrait_invalid", f"{sloc}/values", "an empty list constructor (write an empty_list literal)")
            return ir.Lit(None, loc)
        values = tuple(c.expr(e, f"{sloc}/values/{k}", names) for k, e in enumerate(sub.values))
        return ir.Call("array", values, sloc)
    if not len(sub.key_values):
        c.err("substrait_invalid", f"{sloc}/keyValues", "an empty map constructor (write an empty_map literal)")
        return ir.Lit(None, loc)
    keys = tuple(c.expr(kv.key, f"{sloc}/keyValues/{k}/key", names) for k, kv in enumerate(sub.key_values))
    vals = tuple(c.expr(kv.value, f"{sloc}/keyValues/{k}/value", names) for k, kv in enumerate(sub.key_values))
    return ir.Call("map_from_arrays", (ir.Call("array", keys, sloc), ir.Call("array", vals, sloc)), sloc)


@expression("subquery")
def subquery(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    """Scalar, IN and EXISTS subqueries. Inside, an outer reference (``steps_out`` n) names
    a column of the n-th enclosing relation's input: the names are unique in the plan, so
    Spark resolves them outside the subquery (correlation)."""
    kind = msg.WhichOneof("subquery_type")
    sub_loc = f"{loc}/{json_name(msg, kind) if kind else 'subqueryType'}"
    left = c.expr(msg.set_comparison.left, f"{sub_loc}/left", names) if kind == "set_comparison" else None
    c.outer.append(names)
    try:
        if kind == "scalar":
            rel = c.rel(msg.scalar.input, f"{sub_loc}/input")
            if rel is None:
                return ir.Lit(None, loc)
            if len(rel.names) != 1:
                c.err(
                    "substrait_invalid",
                    sub_loc,
                    f"a scalar subquery must output one column, this one has {len(rel.names)}",
                )
                return ir.Lit(None, loc)
            return ir.Subquery("scalar", scalar_subquery_plan(c, rel, sub_loc), (), loc)
        if kind == "in_predicate":
            pred = msg.in_predicate
            rel = c.rel(pred.haystack, f"{sub_loc}/haystack")
            needles = tuple(c.expr(n, f"{sub_loc}/needles/{k}", names) for k, n in enumerate(pred.needles))
            if rel is None:
                return ir.Lit(None, loc)
            if len(rel.names) != len(needles):
                c.err(
                    "substrait_invalid",
                    sub_loc,
                    f"{len(needles)} needles for a haystack of {len(rel.names)} columns",
                )
                return ir.Lit(None, loc)
            return ir.Subquery("in", c.materialize(rel, sub_loc, "subquery").plan(), needles, loc)
        if kind == "set_predicate":
            exists = sp.SET_PREDICATES.get(enum_name(msg.set_predicate, "predicate_op"))
            if exists is None:
                c.err("substrait_invalid", f"{sub_loc}/predicateOp", "a set predicate is EXISTS or UNIQUE")
                return ir.Lit(None, loc)
            rel = c.rel(msg.set_predicate.tuples, f"{sub_loc}/tuples")
            if rel is None:
                return ir.Lit(None, loc)
            if exists:
                return ir.Subquery("exists", rel.plan(), (), loc)
            return _unique(c, rel, sub_loc)
        if kind == "set_comparison":
            assert left is not None
            return _set_comparison(c, msg.set_comparison, left, sub_loc)
        c.err("substrait_invalid", sub_loc, "a subquery with no kind set")
        return ir.Lit(None, loc)
    finally:
        c.outer.pop()


def _unique(c: Converter, rel: Rel, loc: str) -> ir.Expr:
    """UNIQUE (SQL's): true unless two rows without nulls are equal. Spark has no UNIQUE;
    NOT EXISTS over the null-free rows grouped by every column, kept where a group has more
    than one row, says exactly that."""
    rel = c.materialize(rel, loc, "subquery")
    cols = [ir.Col(n, loc) for n in rel.names]
    if cols:
        not_null = [ir.Call("isnotnull", (col,), loc) for col in cols]
        rel.steps.append(
            ir.Filter(
                c.step_index(),
                "unique",
                loc,
                not_null[0] if len(not_null) == 1 else ir.Call("and", tuple(not_null), loc),
            )
        )
    n = c.fresh()
    count = (ir.AggItem(ir.Call("count", (ir.Lit(1, loc),), loc), n, loc),)
    if cols:
        rel.steps.append(ir.GroupBy(c.step_index(), "unique", loc, "groupby", tuple(cols), count))
    else:
        rel.steps.append(ir.Agg(c.step_index(), "unique", loc, count))
    rel.steps.append(ir.Filter(c.step_index(), "unique", loc, ir.Call(">", (ir.Col(n, loc), ir.Lit(1, loc)), loc)))
    return ir.Call("not", (ir.Subquery("exists", rel.plan(), (), loc),), loc)


def _set_comparison(c: Converter, msg: Message, left: ir.Expr, loc: str) -> ir.Expr:
    """``left op ANY|ALL (subquery)`` with SQL's three-valued logic, as two EXISTS
    subqueries (Spark has no quantified comparison): ANY is true if a row compares true,
    else null if one compares null, else false; ALL is false if a row compares false, else
    null if one compares null, else true (also over no rows)."""
    op = sp.SET_COMPARISONS.get(enum_name(msg, "comparison_op"))
    if op is None:
        c.err("substrait_invalid", f"{loc}/comparisonOp", "a set comparison needs its comparison (EQ...GE)")
    any_row = sp.REDUCTIONS.get(enum_name(msg, "reduction_op"))
    if any_row is None:
        c.err("substrait_invalid", f"{loc}/reductionOp", "a set comparison needs its reduction (ANY or ALL)")
    rel = c.rel(msg.right, f"{loc}/right")
    if rel is None or op is None or any_row is None:
        return ir.Lit(None, loc)
    if len(rel.names) != 1:
        c.err(
            "substrait_invalid",
            f"{loc}/right",
            f"a set comparison's subquery outputs one column, this one has {len(rel.names)}",
        )
        return ir.Lit(None, loc)
    base = c.materialize(rel, loc, "subquery").plan()
    right = ir.Col(base.steps[-1].items[0].alias, loc)  # type: ignore[attr-defined]
    cmp: ir.Expr = (
        ir.Call("not", (ir.Call("==", (left, right), loc),), loc) if op == "!=" else ir.Call(op, (left, right), loc)
    )

    def exists(predicate: ir.Expr) -> ir.Subquery:
        step = ir.Filter(c.step_index(), "subquery.set_comparison", loc, predicate)
        return ir.Subquery("exists", ir.Plan(base.source, (*base.steps, step), base.loc), (), loc)

    boolean = Primitive("boolean")
    unknown = (exists(ir.Call("isnull", (cmp,), loc)), ir.Lit(None, loc, boolean))
    if any_row:
        return ir.When(((exists(cmp), ir.Lit(True, loc, boolean)), unknown), ir.Lit(False, loc, boolean), loc)
    refuted = exists(ir.Call("not", (cmp,), loc))
    return ir.When(((refuted, ir.Lit(False, loc, boolean)), unknown), ir.Lit(True, loc, boolean), loc)


@expression("cast")
def cast(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    to = spark_type(c, msg.type, f"{loc}/type")
    if untyped_null(msg.input):
        # CAST(NULL AS t) whose NULL has no type (DuckDB 1.1 writes every NULL so: CASE ... ELSE
        # NULL, NULLIF): a NULL of type t, whatever the NULL's own type would have been
        return ir.Lit(None, f"{loc}/input/literal", to)
    inner = c.expr(msg.input, f"{loc}/input", names)
    if to is None:
        return ir.Lit(None, loc)
    # RETURN_NULL: try_cast; THROW_EXCEPTION and unspecified: a cast
    mode = "try" if enum_name(msg, "failure_behavior") == "FAILURE_BEHAVIOR_RETURN_NULL" else "cast"
    return ir.Cast(inner, to, loc, mode)


@expression("if_then")
def if_then(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    clauses = list(enumerate(msg.ifs))
    operand = None
    if "simple_case_operand_first" in c.quirks and len(clauses) > 1 and simple_case_operand(msg):
        # DataFusion 55's CASE x WHEN v THEN r: the first clause holds x and no then; each later
        # clause compares x = v (NULL never matches, as in both engines)
        operand = c.expr(getattr(msg.ifs[0], "if"), f"{loc}/ifs/0/if", names)
        clauses = clauses[1:]
    branches = []
    for k, clause in clauses:
        cond = c.expr(getattr(clause, "if"), f"{loc}/ifs/{k}/if", names)
        if operand is not None:
            cond = ir.Call("==", (operand, cond), f"{loc}/ifs/{k}/if")
        branches.append((cond, c.expr(clause.then, f"{loc}/ifs/{k}/then", names)))
    otherwise = c.expr(getattr(msg, "else"), f"{loc}/else", names) if msg.HasField("else") else None
    return ir.When(tuple(branches), otherwise, loc)


def simple_case_operand(msg: Message) -> bool:
    """Whether an IfThen's first clause is DataFusion 55's simple-CASE operand: an ``if`` and no
    ``then`` (an unset or empty expression)."""
    first = msg.ifs[0]
    return first.HasField("if") and first.then.WhichOneof("rex_type") is None


@expression("switch_expression")
def switch(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    match = c.expr(msg.match, f"{loc}/match", names)
    branches = []
    for k, clause in enumerate(msg.ifs):
        value, typ = literal_value(c, getattr(clause, "if"), f"{loc}/ifs/{k}/if")
        cond = ir.Call("==", (match, ir.Lit(value, f"{loc}/ifs/{k}/if", typ)), f"{loc}/ifs/{k}")
        branches.append((cond, c.expr(clause.then, f"{loc}/ifs/{k}/then", names)))
    otherwise = c.expr(getattr(msg, "else"), f"{loc}/else", names) if msg.HasField("else") else None
    return ir.When(tuple(branches), otherwise, loc)


@expression("singular_or_list")
def singular_or_list(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    value = c.expr(msg.value, f"{loc}/value", names)
    options = tuple(c.expr(o, f"{loc}/options/{k}", names) for k, o in enumerate(msg.options))
    return ir.Call("in", (value, *options), loc)


@expression("multi_or_list")
def multi_or_list(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    """``(a, b) IN ((1, 'x'), (2, 'y'))`` as SQL defines a row-value IN: an OR over the
    options of the AND of the field equalities, so a null field gives null (three-valued
    logic), not Spark's struct equality, under which two nulls are equal."""
    values = [c.expr(v, f"{loc}/value/{k}", names) for k, v in enumerate(msg.value)]
    if not values:
        c.err("substrait_invalid", f"{loc}/value", "a multi_or_list with no values to compare")
        return ir.Lit(None, loc)
    boolean = Primitive("boolean")
    if not msg.options:
        return ir.Lit(False, loc, boolean)  # x IN () is false, even for a null x
    disjuncts: list[ir.Expr] = []
    for k, record in enumerate(msg.options):
        rec_loc = f"{loc}/options/{k}"
        if len(record.fields) != len(values):
            c.err(
                "substrait_invalid",
                f"{rec_loc}/fields",
                f"an option of {len(record.fields)} fields compared with {len(values)} values",
            )
            continue
        conj: ir.Expr | None = None
        for j, (option, value) in enumerate(zip(record.fields, values, strict=True)):
            eq = ir.Call("==", (value, c.expr(option, f"{rec_loc}/fields/{j}", names)), f"{rec_loc}/fields/{j}")
            conj = eq if conj is None else ir.Call("and", (conj, eq), rec_loc)
        assert conj is not None
        disjuncts.append(conj)
    if not disjuncts:
        return ir.Lit(None, loc)
    out = disjuncts[0]
    for d in disjuncts[1:]:
        out = ir.Call("or", (out, d), loc)
    return out
