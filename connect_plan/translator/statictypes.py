"""What the translator knows of an expression's type without asking the server.

Only a little, on purpose: the columns of an inline input (their declared types, carried
by :class:`~connect_plan.translator.scope.Scope` through the steps that keep them), casts,
typed literals and the functions that always build a map, an array or a struct. It
decides the few things whose Spark form depends on a type:

* ``get(x, <integer literal>)`` is robin's map lookup when ``x`` is a map, else Spark's
  ``get`` (0-based array access);
* a generator in ``withColumn`` (or under one output name) that outputs several columns
  (``posexplode``, ``inline`` of a struct with several fields, ``explode`` of a map...) is
  refused before the query is sent, as Spark refuses it.

Anything not known is ``None`` and keeps Spark's own behaviour.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ir
from ..types import ArrayType, DataType, MapType, Primitive, StructType
from .scope import Scope

__all__ = ["STATIC_TYPES", "generator_width", "static_type"]

#: functions whose result is always a map
_MAP_BUILDERS = frozenset(
    {
        "create_map",
        "map_from_arrays",
        "map_from_entries",
        "map_concat",
        "str_to_map",
        "map_filter",
        "transform_keys",
        "transform_values",
        "map_zip_with",
    }
)
_UNKNOWN = Primitive("?")  # a field of a struct whose type is not known


def static_type(expr: ir.Expr, scope: Scope) -> DataType | None:
    """The type of ``expr`` where it is known without the server, else None. Containers
    may hold ``None`` (bare) element, key or value types."""
    typed = STATIC_TYPES.get(type(expr))
    return None if typed is None else typed(expr, scope)


def _column_type(expr: ir.Col, scope: Scope) -> DataType | None:
    return scope.type_of(expr.name) if expr.side is None else None


def _call_type(expr: ir.Call, scope: Scope) -> DataType | None:
    if expr.fn in _MAP_BUILDERS:
        return MapType(None, None)
    if expr.fn == "array":
        return ArrayType(static_type(expr.args[0], scope) if expr.args else None)
    if expr.fn == "struct":
        return StructType(
            tuple(
                (a.name if isinstance(a, ir.Col) else f"col{i + 1}", static_type(a, scope) or _UNKNOWN)
                for i, a in enumerate(expr.args)
            )
        )
    if expr.fn == "named_struct":
        pairs = zip(expr.args[0::2], expr.args[1::2])
        return StructType(
            tuple(
                (n.value if isinstance(n, ir.Lit) else f"col{i + 1}", static_type(v, scope) or _UNKNOWN)
                for i, (n, v) in enumerate(pairs)
            )
        )
    return None


#: expression class → what is known of its type; the classes left out never have a known one
STATIC_TYPES: dict[type, Callable[[Any, Scope], DataType | None]] = ir.covering(
    {
        ir.Col: _column_type,
        ir.Cast: lambda expr, scope: expr.to,
        ir.Lit: lambda expr, scope: expr.type,
        ir.Call: _call_type,
    },
    ir.EXPR_CLASSES,
    "translator.statictypes.STATIC_TYPES",
    absent=(ir.When, ir.ExtractValue, ir.Star, ir.Window, ir.Lambda, ir.LambdaVar, ir.UdfCall, ir.Subquery),
)


def generator_width(call: ir.Call, scope: Scope) -> int | None:
    """How many columns the generator ``call`` outputs, where that is known."""
    args = call.args
    arg = static_type(args[0], scope) if args else None
    if call.fn in ("explode", "explode_outer"):
        return 2 if isinstance(arg, MapType) else 1 if isinstance(arg, ArrayType) else None
    if call.fn in ("posexplode", "posexplode_outer"):
        return 3 if isinstance(arg, MapType) else 2  # (pos, col) or (pos, key, value)
    if call.fn in ("inline", "inline_outer"):
        if isinstance(arg, ArrayType) and isinstance(arg.element, StructType):
            return len(arg.element.fields)
        return None
    if call.fn == "stack" and args:
        n = args[0]
        if isinstance(n, ir.Lit) and isinstance(n.value, int) and not isinstance(n.value, bool) and n.value > 0:
            return -(-(len(args) - 1) // n.value)
        return None
    if call.fn == "json_tuple":
        return len(args) - 1
    return None
