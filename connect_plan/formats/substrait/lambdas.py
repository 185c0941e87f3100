"""Substrait lambdas → IR lambdas: ``Expression.Lambda`` (spec 0.106+) as a higher-order
function's argument, and the references to its parameters in its body
(``FieldReference.lambda_parameter_reference``, ``steps_out`` lambdas out).

Substrait numbers a lambda's parameters (a struct of their types, referenced by field); Spark
names them. Every parameter gets a name unique in the plan (``_l<n>``), so a nested lambda's body
can name an enclosing lambda's parameter with no shadowing. A lambda stands only where a
higher-order function takes one (:data:`~.spellings.LAMBDA_ARGUMENTS`, whose locations
:func:`~.functions.scalar_function` announces in :attr:`~.state.Converter.lambda_slots`):
anywhere else Spark would refuse it after the plan was sent, so it is refused here, located.
An immediately invoked lambda (``LambdaInvocation``) and a named one (``NamedLambdaReference``,
spec 0.108) have no Spark form: they are refused by their kind (no converter is registered); a
subquery in a lambda's body is refused too (Spark evaluates none within a higher-order function).
"""

from __future__ import annotations

from google.protobuf.message import Message

from ... import ir
from .state import Converter, enum_name, expression, json_name
from .types import spark_type

__all__ = ["lambda_parameter", "null_function"]


@expression("lambda")
def lambda_expression(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    """A lambda: its parameters named afresh, its body converted with them in scope (the
    columns ``names`` stay in scope too: Spark's lambdas see the row's columns)."""
    slot = loc.rsplit("/", 1)[0]
    if slot not in c.lambda_slots:
        c.err(
            "substrait_unsupported",
            loc,
            "a lambda stands only as the function argument of a function that takes one "
            "(transform, filter, any_match, all_match): Spark has no lambda value",
        )
        return ir.Lit(None, loc)
    params = msg.parameters
    ploc = f"{loc}/parameters"
    ok = True
    if not len(params.types):
        c.err("substrait_invalid", f"{ploc}/types", "a lambda with no parameters")
        ok = False
    if enum_name(params, "nullability") == "NULLABILITY_NULLABLE":
        c.err("substrait_invalid", f"{ploc}/nullability", "a lambda's parameter struct must be NULLABILITY_REQUIRED")
        ok = False
    for k, t in enumerate(params.types):
        # each declared type must have a Spark type (Spark infers the parameters' types from the
        # higher-order function's arguments: the declared ones are checked, not sent)
        if spark_type(c, t, f"{ploc}/types/{k}") is None:
            ok = False
    if not msg.HasField("body"):
        c.err("substrait_invalid", f"{loc}/body", "a lambda with no body")
        ok = False
    fresh = tuple(f"_l{c.fresh()[2:]}" for _ in params.types)
    c.lambdas.append(fresh)
    try:
        body = c.expr(msg.body, f"{loc}/body", names) if msg.HasField("body") else None
    finally:
        c.lambdas.pop()
    if body is not None:
        for sub in _subqueries(body):
            c.err(
                "substrait_unsupported",
                sub.loc,
                "a subquery inside a lambda: Spark evaluates no subquery within a higher-order function "
                "(UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.HIGHER_ORDER_FUNCTION)",
            )
            ok = False
    if not ok or body is None:
        return ir.Lit(None, loc)
    return ir.Lambda(fresh, body, loc)


def _subqueries(body: ir.Expr) -> list[ir.Subquery]:
    """The subqueries of a lambda's body, outside any lambda nested in it (which reports its own)."""
    out: list[ir.Subquery] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Subquery):
            out.append(node)
        if not isinstance(node, ir.Lambda):
            stack.extend(reversed(ir.children(node)))
    return out


def lambda_parameter(c: Converter, msg: Message, loc: str) -> ir.LambdaVar | None:
    """The parameter a ``FieldReference`` rooted at ``lambda_parameter_reference`` (at ``loc``)
    names: ``steps_out`` lambdas out from the innermost enclosing one, the parameter its first
    struct-field segment numbers. None after a located error: a reference outside any lambda,
    one more lambdas out than enclose it, a parameter index out of range, or a first segment
    other than a struct field."""
    steps = msg.lambda_parameter_reference.steps_out
    rloc = f"{loc}/lambdaParameterReference"
    if not c.lambdas:
        c.err("substrait_field_index", rloc, "a lambda parameter reference outside any lambda")
        return None
    if steps >= len(c.lambdas):
        c.err(
            "substrait_field_index",
            f"{rloc}/stepsOut",
            f"a lambda parameter reference {steps} lambdas out, inside {len(c.lambdas)} "
            f"lambda{'s' if len(c.lambdas) > 1 else ''} (0 is the innermost)",
        )
        return None
    params = c.lambdas[-1 - steps]
    kind = msg.WhichOneof("reference_type")
    if kind != "direct_reference":
        c.err(
            "substrait_unsupported",
            f"{loc}/{json_name(msg, kind) if kind else 'referenceType'}",
            "a lambda parameter is referenced by a direct reference (a struct field: the parameter)",
        )
        return None
    seg = msg.direct_reference
    if seg.WhichOneof("reference_type") != "struct_field":
        seg_kind = seg.WhichOneof("reference_type")
        c.err(
            "substrait_invalid",
            f"{loc}/directReference/{json_name(seg, seg_kind) if seg_kind else 'referenceType'}",
            "a lambda parameter reference starts with a struct field (the parameter's index)",
        )
        return None
    index = seg.struct_field.field
    if not 0 <= index < len(params):
        c.err(
            "substrait_field_index",
            f"{loc}/directReference/structField/field",
            f"parameter {index} of a lambda of {len(params)} parameter{'s' if len(params) > 1 else ''}",
        )
        return None
    return ir.LambdaVar(params[index], loc)


def null_function(msg: Message) -> bool:
    """Whether an expression is a NULL literal of a function type (``null::func<i32 -> bool>``:
    the spec's null predicate)."""
    return bool(
        msg.WhichOneof("rex_type") == "literal"
        and msg.literal.WhichOneof("literal_type") == "null"
        and msg.literal.null.WhichOneof("kind") == "func"
    )
