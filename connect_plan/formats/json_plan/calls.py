"""``{"fn": ...}`` calls, their arguments checked against the catalog row (arity, literal
slots, options, defaults, desugaring), lambdas and UDF calls (PLAN_FORMAT.md §3.3-3.5);
registered as :data:`~.expressions.FORMS` ``.call`` and ``.udf``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ... import ir
from ...functions import CATALOG, SORT_FUNCTIONS, FunctionSpec, Param, suggest
from .core import MAP, MISSING, Parser, check_keys, key
from .expressions import DESUGARS, FORMS, RAW_HOOKS, expr_list, literal, parse_expr, type_arg
from .spellings import CALL_KEYS, WINDOW_SPEC_KEYS

__all__ = ["argument", "arguments", "call", "lambda_arg", "udf_expr", "with_otherwise"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# ---------------------------------------------------------------- {"fn": ...}


def call(
    p: Parser,
    raw: Mapping[str, Any],
    name: str,
    loc: str,
    depth: int,
    args_key: str = "args",
    fn_key: str = "fn",
    *,
    in_window: bool = False,
) -> ir.Expr | None:
    spec = CATALOG.get(name)
    if fn_key == "fn" and args_key == "args":
        allowed = CALL_KEYS | WINDOW_SPEC_KEYS if raw.get("type") == "window" else CALL_KEYS
        check_keys(p, raw, loc, allowed, "a call of {!r}", name)
    if spec is None:
        fkey = fn_key if fn_key in raw else "function"
        if name in SORT_FUNCTIONS:
            p.err(
                "sort_order",
                f"{loc}/{fkey}",
                f"{name!r} is a sort order: use it as an orderBy or window order_by item, not as a value",
                name,
            )
            return None
        near = suggest(name)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        p.err("unknown_function", f"{loc}/{fkey}", f"unknown function {name!r}{hint}", name)
        return None
    if spec.kind == "window" and not in_window:
        p.err(
            "window_required",
            loc,
            f'{name!r} is a window function: give it a \'window\' spec ({{"fn": {name!r}, "args": [...], "window": {{"partition_by": [...], "order_by": [...]}}}})',
        )
        return None
    raw_args = raw.get(args_key, MISSING)
    if raw_args is MISSING:
        if spec.min_args == 0:
            raw_args = []
        else:
            p.err("missing_key", f"{loc}/{args_key}", f"function {name!r} needs an 'args' list ({spec.arity_text()})")
            return None
    if not isinstance(raw_args, (list, tuple)):
        p.err("args_type", f"{loc}/{args_key}", f"'args' of {name!r} must be a list", raw_args)
        return None
    hook = RAW_HOOKS.get(spec.desugar) if spec.desugar is not None else None
    if hook is not None:
        return hook(p, spec, list(raw_args), f"{loc}/{args_key}", loc, depth)
    args_loc = f"{loc}/{args_key}"
    args = arguments(p, spec, [(a, f"{args_loc}/{i}") for i, a in enumerate(raw_args)], args_loc, depth)
    if args is None:
        return None
    desugar = DESUGARS.get(spec.desugar) if spec.desugar is not None else None
    out: ir.Expr | None
    if desugar is not None:
        out = desugar(p, spec, args, loc)
    else:
        distinct = spec.distinct or raw.get("distinct") is True or raw.get("isDistinct") is True
        out = ir.Call(spec.name, tuple(args), loc, distinct=distinct)
    if "otherwise" in raw and out is not None:
        value = parse_expr(p, raw["otherwise"], f"{loc}/otherwise", depth + 1)
        out = with_otherwise(p, out, value, f"{loc}/otherwise") if value is not None else None
    return out


def with_otherwise(p: Parser, expr: ir.Expr, value: ir.Expr, loc: str) -> ir.Expr | None:
    """``expr`` (a when) with ``value`` as its else branch."""
    if not isinstance(expr, ir.When):
        p.err(
            "otherwise_target",
            loc,
            "'otherwise' gives the else branch of a when: its first argument (or the object carrying the key) must be a when expression",
        )
        return None
    if expr.otherwise is not None:
        p.err("otherwise_twice", loc, "this when already has an else branch")
        return None
    return ir.When(expr.branches, value, expr.loc)


def arguments(
    p: Parser, spec: FunctionSpec, raw_args: list[tuple[Any, str]], loc: str, depth: int
) -> list[ir.Expr] | None:
    """Parse call arguments against the row's slots: arity, literal slots, lambdas,
    then the literals PySpark sends for omitted optional slots (``fill``), and a lone ``*``
    of a row that counts rows as ``1`` (``count(*)`` is ``count(1)``, as PySpark sends it)."""
    n = len(raw_args)
    if spec.expressions_only and n == len(spec.params):  # the usual row: each argument an expression
        parsed = [parse_expr(p, a, aloc, depth + 1) for a, aloc in raw_args]
        exprs = [e for e in parsed if e is not None]
        if len(exprs) != n:
            return None
        if spec.counts_rows and n == 1 and isinstance(exprs[0], ir.Star):
            return [ir.Lit(1, exprs[0].loc)]
        return exprs
    indices = spec.slot_indices(n)
    if indices is None:
        p.err("arity", loc, f"function {spec.name!r} takes {spec.arity_text()}, got {n}", [a for a, _ in raw_args])
        return None
    args: list[ir.Expr] = []
    ok = True
    for (a, aloc), j in zip(raw_args, indices):
        e = argument(p, a, spec.params[j], aloc, depth, spec)
        if e is None:
            ok = False
        else:
            args.append(e)
    if not ok:
        return None
    if spec.fill and not spec.cycle:
        args = _fill_defaults(spec, args, indices, loc)
    if spec.counts_rows and len(args) == 1 and isinstance(args[0], ir.Star):
        args = [ir.Lit(1, args[0].loc)]
    return args


def _fill_defaults(spec: FunctionSpec, args: list[ir.Expr], indices: list[int], loc: str) -> list[ir.Expr]:
    have = dict(zip(indices, args))
    out: list[ir.Expr] = []
    for j in range(len(spec.params)):
        if j in have:
            out.append(have[j])
        elif j in spec.fill:
            out.append(ir.Lit(spec.fill[j], loc))
        else:
            break
    return out if len(out) >= len(args) else args


def argument(p: Parser, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
    if param.code == "e":
        return parse_expr(p, raw, loc, depth + 1)
    if param.code == "X":
        return lambda_arg(p, raw, param, loc, depth, spec)
    if param.code == "T":
        t = type_arg(p, raw, loc)
        return ir.Lit(raw["lit"] if isinstance(raw, Mapping) else raw, loc, t) if t is not None else None
    if param.code == "M":
        return _options_arg(p, raw, loc, spec)
    # literal slot: bare values (and {"lit"}) are checked against the slot's kind;
    # other expression objects pass through for Spark to type-check
    value, vloc = raw, loc
    if isinstance(raw, MAP):
        if "lit" not in raw:
            if "lambda" in raw:
                p.err(
                    "lambda_not_allowed",
                    loc,
                    f"argument ({param.name or 'value'}) of {spec.name!r} is not a function slot",
                )
                return None
            return parse_expr(p, raw, loc, depth + 1)
        value, vloc = raw["lit"], f"{loc}/lit"
    if isinstance(value, (list, tuple)) and param.code in ("F", "I", "N", "S", "B", "L"):
        # a JSON array in a literal slot is an array literal (PySpark's lit([...]))
        items: list[ir.Expr] = []
        for i, v in enumerate(value):
            e = _slot_literal(p, v, param, f"{vloc}/{i}", spec, in_array=True)
            if e is None:
                return None
            items.append(e)
        return ir.Call("array", tuple(items), vloc)
    return _slot_literal(p, value, param, vloc, spec)


def _slot_literal(
    p: Parser, value: Any, param: Param, loc: str, spec: FunctionSpec, in_array: bool = False
) -> ir.Expr | None:
    if value is None:
        return ir.Lit(None, loc)
    problem = _check_literal(param.code, value)
    if problem:
        what = f" ({param.name})" if param.name else ""
        each = "each element of " if in_array else ""
        p.err("literal_expected", loc, f"{each}argument{what} of {spec.name!r} must be {problem}", value)
        return None
    return literal(p, value, loc)


def _check_literal(code: str, value: Any) -> str | None:
    """None if ``value`` fits a literal slot of kind ``code``, else what was expected."""
    if code in ("I", "N"):
        if isinstance(value, bool) or not isinstance(value, int):
            return "an integer"
        if code == "N" and value < 0:
            return "a non-negative integer"
        return None
    if code == "F":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "a number"
        return None
    if code == "S":
        return None if isinstance(value, str) else "a string"
    if code == "B":
        return None if isinstance(value, bool) else "true or false"
    if code == "L":
        return None if isinstance(value, (bool, int, float, str)) else "a literal value"
    return None


def _options_arg(p: Parser, raw: Any, loc: str, spec: FunctionSpec) -> ir.Expr | None:
    """An options map: a JSON object of scalars → ``map('k', 'v', ...)`` of strings, as
    PySpark sends ``options={...}`` (values are stringified)."""
    if not isinstance(raw, Mapping):
        p.err(
            "options_expected",
            loc,
            f"the options of {spec.name!r} must be a JSON object of option names to values",
            raw,
        )
        return None
    items: list[ir.Expr] = []
    for k, v in raw.items():
        if v is not None and not isinstance(v, (str, bool, int, float)):
            p.err("options_expected", f"{loc}/{k}", "an option value must be a string, number or boolean", v)
            return None
        text = "true" if v is True else "false" if v is False else str(v) if v is not None else None
        if text is None:
            p.err("options_expected", f"{loc}/{k}", "an option value must not be null")
            return None
        items += [ir.Lit(str(k), f"{loc}/{k}"), ir.Lit(text, f"{loc}/{k}")]
    return ir.Call("create_map", tuple(items), loc)


# ---------------------------------------------------------------- lambdas, UDFs


def lambda_arg(p: Parser, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
    """``{"lambda": {"params": ["x", "y"], "body": <expr>}}`` (also ``{"params", "body"}``
    directly). Inside the body ``{"col": "x"}``, ``{"var": "x"}`` and the bare string
    ``"x"`` name the parameter; other names are columns."""
    inner, iloc = raw, loc
    if isinstance(raw, Mapping) and "lambda" in raw:
        inner, iloc = raw["lambda"], f"{loc}/lambda"
    if not isinstance(inner, Mapping) or "body" not in inner:
        p.err(
            "lambda_expected",
            loc,
            f'argument ({param.name or "function"}) of {spec.name!r} must be a lambda: {{"lambda": {{"params": ["x"], "body": ...}}}}',
            raw,
        )
        return None
    pkey, params = key(inner, "lambda", "params")
    if pkey is None:
        p.err("lambda_expected", f"{iloc}/params", "a lambda needs 'params', a list of parameter names")
        return None
    ploc = f"{iloc}/{pkey}"
    if isinstance(params, str):
        params = [params]
    if not isinstance(params, (list, tuple)) or not params:
        p.err("lambda_params", ploc, "a lambda's 'params' must be a non-empty list of names", params)
        return None
    names: list[str] = []
    for i, name in enumerate(params):
        if not isinstance(name, str) or not _IDENT.match(name):
            p.err("lambda_params", f"{ploc}/{i}", "a lambda parameter must be a simple name (letters, digits, _)", name)
            return None
        if name.lower() in (n.lower() for n in names):
            p.err("lambda_params", f"{ploc}/{i}", f"lambda parameter {name!r} appears twice", name)
            return None
        names.append(name)
    if param.arities and len(names) not in param.arities:
        want = " or ".join(str(a) for a in param.arities)
        p.err(
            "lambda_arity",
            ploc,
            f"the lambda of {spec.name!r} ({param.name or 'function'}) takes {want} parameter{'s' if param.arities != (1,) else ''}, got {len(names)}",
            list(params),
        )
        return None
    p.lambda_scopes.append({n.lower(): n for n in names})
    try:
        body = parse_expr(p, inner["body"], f"{iloc}/body", depth + 1)
    finally:
        p.lambda_scopes.pop()
    if body is None:
        return None
    return ir.Lambda(tuple(names), body, iloc)


def udf_expr(p: Parser, raw: Mapping[str, Any], name: str, loc: str, depth: int) -> ir.Expr | None:
    raw_args = raw.get("args", [])
    args = expr_list(p, raw_args, f"{loc}/args", depth)
    if args is None:
        return None
    return ir.UdfCall(name, tuple(args), loc)


FORMS.call = call
FORMS.udf = udf_expr
