"""The Substrait specification's own function test cases (the ``testcases/`` folder of the
installed ``substrait-extensions`` package), read with the spec's own grammar (``substrait-antlr``'s
FuncTestCase parser) and turned into Substrait plans connect_plan runs:

- a scalar case ``add(120::i8, 5::i8) [overflow:ERROR] = 125::i8`` → a project over a one-row
  virtual table calling ``add:i8_i8`` with its arguments as literals, its options as
  ``FunctionOption``\\ s and its declared ``output_type`` (``i8``);
- a lambda argument ``(x -> gt(x, 0::i32))::func<i32 -> bool?>`` → an ``Expression.Lambda`` of the
  declared parameter types whose body calls its function (declared from the file's include or
  ``SUBSTRAIT_DEPENDENCY`` extensions) on lambda parameter references and literals, its output
  type the func's return type; ``null::func<...>`` → a NULL literal of that function type;
- an aggregate case ``sum((1, 2, 3)::i8) = 6::i64?`` → an aggregate over an n-row virtual table
  of the column(s), the measure calling the function on them.

A case is one of (:data:`OUTCOMES`): *right* (the expected value, in the declared type), *refused*
(a located :class:`~connect_plan.errors.PlanError` naming the function or the option), *error as
expected* (the spec expects an error, Spark raises one), *Spark error* (Spark refused a plan the
spec says has a value), *wrong* (a value other than the spec's), or *not expressible* (a case no
standard plan can write: user-defined unsigned literals, a ``time`` literal the superset
schema has no Spark type for are refused by the front-end as any plan with them is).

The grammar parses; turning a parse tree into literals and plans is written here (the spec's own
coverage tool, tests/coverage/visitor.py in substrait-io/substrait, is not packaged)."""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import math
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

OUTCOMES = ("right", "refused", "error as expected", "spark error", "wrong", "not expressible", "unread")

_CTX = decimal.Context(prec=80)


# ---------------------------------------------------------------- reading the files


@dataclasses.dataclass
class Lit:
    """A literal of a case: its value (Python; None for null), its type text (``dec<38,0>``)."""

    value: Any
    type: str
    kind: str = "value"  # "value", "enum", "lambda", "udt", "column"


#: the spec's cases whose expected value is wrong (spec errata), with the right value and the
#: evidence; the harness holds connect_plan to the right value and reports them apart
ERRATA: dict[str, tuple[str, str]] = {
    "string/regexp_replace:54": (
        "'addddaddddadddd'",
        "functions_string.yaml: the arguments are (input, pattern, replacement, position, occurrence) and "
        '"Specifying `0` means all occurrences will be replaced"; the case expects the first one only',
    ),
    "arithmetic/shift_left:8": (
        "77309411328",
        "301989888 << 8 = 77309411328; the spec's 19791209299968 is 301989888 << 16",
    ),
    **{
        f"logarithmic/logb:{line}": (
            value,
            "the cases pass (base, x) where functions_logarithmic.yaml's logb takes (x, base): "
            f"the spec's value is log base {base} of {x}",
        )
        for line, value, x, base in (
            (5, "0.2", "10", "100000"),
            (6, "inf", "7", "1"),
            (7, "0.35620718710802218", "2", "7"),
            (10, "0.0", "2.34", "inf"),
        )
    },
    **{
        f"arithmetic/{fn}:{line}": (
            value,
            f"{data}: {'sample' if sample else 'population'} {'variance' if fn == 'variance' else 'std_dev'} "
            f"is {value} (mean {mean}, sum of squared deviations {ss} over n{'-1' if sample else ''})",
        )
        for fn, line, value, data, mean, ss, sample in (
            ("variance", 19, "14.0", "(-5, -3, -1, 1, 3, 5)", 0, 70, True),
            ("variance", 20, "14.0", "(-5, -3, -1, 1, 3, 5)", 0, 70, True),
            ("variance", 52, "1562.5", "(0, 100, 50, 25, 75)", 50, 6250, True),
            ("variance", 53, "1250.0", "(0, 100, 50, 25, 75)", 50, 6250, False),
            ("std_dev", 19, "3.7416573867739413", "(-5, -3, -1, 1, 3, 5)", 0, 70, True),
            ("std_dev", 20, "3.7416573867739413", "(-5, -3, -1, 1, 3, 5)", 0, 70, True),
            ("std_dev", 52, "39.528470752104745", "(0, 100, 50, 25, 75)", 50, 6250, True),
            ("std_dev", 53, "35.35533905932738", "(0, 100, 50, 25, 75)", 50, 6250, False),
        )
    },
    **{
        f"logarithmic/{fn}:{line}": (
            "nan",
            "on_log_zero:NAN asks for NaN (functions_logarithmic.yaml), the case expects null",
        )
        for fn, line in (("ln", 17), ("log10", 17), ("log2", 18))
    },
}


@dataclasses.dataclass
class Case:
    file: str  # "arithmetic/add"
    group: str  # the group description's name ("basic")
    line: int
    text: str
    kind: str  # "scalar" or "aggregate"
    name: str
    args: list[Lit]
    options: list[tuple[str, str]]
    result: Lit | None  # None: an error expected
    undefined: bool = False  # <!UNDEFINED>: any value or an error
    #: a spec erratum: the evidence (``result`` then holds the right value)
    erratum: str = ""
    #: the URNs of the extensions the file depends on (``SUBSTRAIT_DEPENDENCY``: a lambda's body
    #: calls their functions)
    dependencies: list[str] = dataclasses.field(default_factory=list)
    #: an aggregate's table: rows of column values, and the column types
    rows: list[list[Any]] = dataclasses.field(default_factory=list)
    columns: list[str] = dataclasses.field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def testcases_root() -> str:
    import substrait_extensions.testcases as t

    return os.path.dirname(t.__file__)


def read_cases() -> list[Case]:
    """Every scalar and aggregate case of every file (window cases are not read)."""
    out: list[Case] = []
    root = testcases_root()
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path) or folder.startswith("_"):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith(".test"):
                out.extend(_read_file(os.path.join(path, name), f"{folder}/{name[:-5]}"))
    return out


def _read_file(path: str, file: str) -> Iterator[Case]:
    from antlr4 import CommonTokenStream, InputStream
    from substrait_antlr.func_test_case.FuncTestCaseLexer import FuncTestCaseLexer
    from substrait_antlr.func_test_case.FuncTestCaseParser import FuncTestCaseParser

    with open(path, encoding="utf-8") as f:
        text = f.read()
    parser = FuncTestCaseParser(CommonTokenStream(FuncTestCaseLexer(InputStream(text))))
    parser.removeErrorListeners()
    doc = parser.doc()
    if parser.getNumberOfSyntaxErrors():
        raise ValueError(f"{path}: {parser.getNumberOfSyntaxErrors()} syntax errors")
    dependencies = re.findall(r"^### SUBSTRAIT_DEPENDENCY:\s*(\S+)", text, re.M)
    for group in doc.testGroup():
        desc = group.testGroupDescription()
        gname = desc.getText().strip("#").split(":")[0].strip() if desc is not None else ""
        for tc in getattr(group, "testCase", lambda: [])():
            args = [_argument(a) for a in tc.arguments().argument()]
            case = _case(file, gname, tc, "scalar", tc.identifier().getText(), args)
            case.dependencies = dependencies
            yield case
        for tc in getattr(group, "aggFuncTestCase", lambda: [])():
            case = _aggregate(file, gname, tc)
            case.dependencies = dependencies
            yield case


def _case(file: str, group: str, tc: Any, kind: str, name: str, args: list[Lit]) -> Case:
    result, undefined = _result(tc.result())
    options = []
    if tc.funcOptions() is not None:
        for opt in tc.funcOptions().funcOption():
            options.append((opt.optionName().getText(), opt.optionValue().getText()))
    line = tc.start.line
    case = Case(file, group, line, _source_line(tc), kind, name, args, options, result, undefined)
    if case.id in ERRATA and result is not None:
        value, case.erratum = ERRATA[case.id]
        case.result = Lit(literal_value(value, result.type), result.type)
    return case


def _source_line(tc: Any) -> str:
    stream = tc.start.getInputStream()
    return str(stream.getText(tc.start.start, tc.stop.stop))


def _result(ctx: Any) -> tuple[Lit | None, bool]:
    if ctx.substraitError() is not None:
        return None, "UNDEFINED" in ctx.getText()
    return _argument(ctx.argument()), False


def _argument(ctx: Any) -> Lit:
    sub = ctx.getChild(0)
    kind = type(sub).__name__[: -len("Context")]
    if kind == "EnumArg":
        return Lit(sub.getChild(0).getText(), "enum", "enum")
    type_text = sub.getChild(sub.getChildCount() - 1).getText()
    value_ctx = sub.getChild(0)
    if kind == "LambdaArg":
        return Lit(_lambda(value_ctx, type_text), type_text, "lambda")
    if kind == "UserDefinedArg":
        return Lit(value_ctx.getText(), type_text, "udt")
    if kind == "ListArg":
        return Lit(_list_value(value_ctx, type_text), type_text)
    return Lit(literal_value(value_ctx.getText(), type_text), type_text)


@dataclasses.dataclass
class Lambda:
    """A case's lambda ``(x -> gt(x, 0::i32))::func<i32 -> bool?>``: its parameters (names and
    declared types), its body's function, arguments (a parameter: a ``Lit`` of kind ``param``
    whose value is its index) and declared return type."""

    params: list[str]
    types: list[str]
    function: str
    args: list[Lit]
    returns: str


def func_type(text: str) -> tuple[list[str], str]:
    """``func<i32 -> bool?>`` / ``func?<(i32, str) -> i64>`` → the parameter types and the
    return type."""
    inner = text[text.index("<") + 1 : text.rindex(">")].replace(" ", "")
    params, _, returns = inner.partition("->")
    if params.startswith("(") and params.endswith(")"):
        params = params[1:-1]
    return _split(params), returns


def _lambda(ctx: Any, type_text: str) -> Lambda:
    params_ctx = ctx.lambdaParameters()
    names = [t.getText() for t in params_ctx.getChildren() if t.getText() not in ("(", ")", ",")]
    types, returns = func_type(type_text)
    body = ctx.lambdaBody()
    args: list[Lit] = []
    for a in body.arguments().argument():
        text = a.getText()
        if text in names:
            args.append(Lit(names.index(text), types[names.index(text)], "param"))
        else:
            args.append(_argument(a))
    return Lambda(names, types, body.identifier().getText(), args, returns)


def _list_value(ctx: Any, type_text: str) -> list[Any]:
    element = parse_type(type_text).params[0] if parse_type(type_text).params else "i32"
    out = []
    for child in ctx.getChildren():
        t = child.getText()
        if t in ("[", "]", ","):
            continue
        out.append(literal_value(t, element))
    return out


def _aggregate(file: str, group: str, tc: Any) -> Case:
    call = tc.aggFuncCall()
    kind = type(call).__name__
    name = call.identifier().getText()
    rows: list[list[Any]] = []
    columns: list[str] = []
    args: list[Lit] = []
    if kind == "SingleArgAggregateFuncCallContext":
        col = call.dataColumn()
        t = col.dataType().getText()
        columns = [t]
        rows = [[literal_value(v.getText(), t)] for v in col.columnValues().literal()]
        args = [Lit(0, t, "column")]
    else:  # compact: ((r0c0, r0c1), (r1c0, ...)) f(args with col<i>::type)
        # a row of no values (``(())``) is no row: the empty table
        raw = [r for r in ([v.getText() for v in row.literal()] for row in call.tableRows().columnValues()) if r]
        fargs = call.aggregateFuncArgs()
        types: dict[int, str] = {}
        for a in fargs.aggregateFuncArg() if fargs is not None else []:
            if a.argument() is not None:
                args.append(_argument(a.argument()))
            else:
                i = int(a.ColumnName().getText()[3:])
                t = a.dataType().getText()
                types[i] = t
                args.append(Lit(i, t, "column"))
        width = max([len(r) for r in raw] + [len(types)])
        columns = [types.get(i, "i32?") for i in range(width)]
        rows = [[literal_value(v, columns[i]) for i, v in enumerate(r)] for r in raw]
    c = _case(file, group, tc, "aggregate", name, args)
    c.rows, c.columns = rows, columns
    return c


# ---------------------------------------------------------------- types and literal values


@dataclasses.dataclass
class SType:
    name: str  # i8 ... dec, vchar, list, pts...
    nullable: bool
    params: list[str]


_TYPE = re.compile(r"^([A-Za-z0-9_!]+)(\?)?(?:<(.*)>)?(\?)?$")
_ALIASES = {
    "boolean": "bool",
    "string": "str",
    "decimal": "dec",
    "varchar": "vchar",
    "fixedchar": "fchar",
    "interval_day": "iday",
    "interval_year": "iyear",
    "precision_timestamp": "pts",
    "precision_timestamp_tz": "ptstz",
}


def parse_type(text: str) -> SType:
    m = _TYPE.match(text.replace(" ", ""))
    if m is None:
        raise ValueError(f"a type I cannot read: {text!r}")
    name = m.group(1).lower()
    name = _ALIASES.get(name, name)
    params = _split(m.group(3)) if m.group(3) else []
    return SType(name, bool(m.group(2) or m.group(4)), params)


def _split(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "<"
        depth -= ch == ">"
        cur += ch
    return [*out, cur]


def literal_value(text: str, type_text: str) -> Any:
    """A literal's text (``120``, ``'abc'``, ``2020-12-31``, ``P5D``...) as a Python value of
    the case's type."""
    if text.lower() == "null":
        return None
    t = parse_type(type_text)
    n = t.name
    if n in ("i8", "i16", "i32", "i64"):
        return int(text)
    if n in ("fp32", "fp64"):
        low = text.lower()
        if low in ("nan", "+nan", "-nan"):
            return math.nan
        if low in ("inf", "+inf", "infinity"):
            return math.inf
        if low in ("-inf", "-infinity"):
            return -math.inf
        return float(decimal.Decimal(text))
    if n == "dec":
        return decimal.Decimal(text)
    if n == "bool":
        return text.lower() == "true"
    if n in ("str", "vchar", "fchar"):
        if not (text.startswith("'") and text.endswith("'")):
            raise ValueError(f"a string literal {text!r}")
        return text[1:-1].replace("''", "'")
    if n == "date":
        return datetime.date.fromisoformat(text)
    if n in ("pts", "timestamp"):
        return datetime.datetime.fromisoformat(text)
    if n in ("ptstz", "timestamp_tz"):
        return datetime.datetime.fromisoformat(text).astimezone(datetime.timezone.utc)
    if n in ("pt", "time"):
        return datetime.time.fromisoformat(text)
    if n == "iday":
        return _iso_duration(text)
    if n == "iyear":
        years, months, *_ = _iso_period(text)
        return years * 12 + months
    raise ValueError(f"a literal of type {type_text!r}: {text!r}")


_PERIOD = re.compile(
    r"^(-)?P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)D)?(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?)?$"
)


def _iso_period(text: str) -> tuple[int, int, int, int, int, decimal.Decimal]:
    m = _PERIOD.match(text)
    if m is None:
        raise ValueError(f"an interval {text!r}")
    sign = -1 if m.group(1) else 1
    y, mo, d, h, mi = (sign * int(g or 0) for g in m.groups()[1:6])
    s = sign * decimal.Decimal(m.group(7) or 0)
    return y, mo, d, h, mi, s


def _iso_duration(text: str) -> datetime.timedelta:
    _y, _mo, d, h, mi, s = _iso_period(text)
    return datetime.timedelta(days=d, hours=h, minutes=mi, microseconds=int(s * 1_000_000))


# ---------------------------------------------------------------- Substrait JSON


def type_json(text: str) -> dict[str, Any]:
    t = parse_type(text)
    null = {"nullability": "NULLABILITY_NULLABLE" if t.nullable else "NULLABILITY_REQUIRED"}
    n = t.name
    simple = {
        "i8": "i8",
        "i16": "i16",
        "i32": "i32",
        "i64": "i64",
        "fp32": "fp32",
        "fp64": "fp64",
        "bool": "bool",
        "str": "string",
        "date": "date",
        "iyear": "intervalYear",
    }
    if n in simple:
        return {simple[n]: null}
    if n == "dec":
        p, s = (int(x) for x in t.params) if t.params else (38, 0)
        return {"decimal": {"precision": p, "scale": s, **null}}
    if n == "vchar":
        return {"varchar": {"length": int(t.params[0]), **null}}
    if n == "fchar":
        return {"fixedChar": {"length": int(t.params[0]), **null}}
    if n in ("pts", "ptstz"):
        key = "precisionTimestamp" if n == "pts" else "precisionTimestampTz"
        return {key: {"precision": int(t.params[0]) if t.params else 6, **null}}
    if n == "pt":
        return {"precisionTime": {"precision": int(t.params[0]) if t.params else 6, **null}}
    if n == "iday":
        return {"intervalDay": {"precision": int(t.params[0]) if t.params else 6, **null}}
    if n == "list":
        return {"list": {"type": type_json(t.params[0]), **null}}
    if n == "func":
        params, returns = func_type(text)
        return {"func": {"parameterTypes": [type_json(x) for x in params], "returnType": type_json(returns), **null}}
    raise NotExpressible(f"the type {text!r}")


class NotExpressible(Exception):
    """A case no standard Substrait plan can write."""


def literal_json(value: Any, text: str) -> dict[str, Any]:
    t = parse_type(text)
    n = t.name
    out: dict[str, Any]
    if value is None:
        return {"null": type_json(text)}
    if n in ("i8", "i16", "i32"):
        out = {n: value}
    elif n == "i64":
        out = {"i64": str(value)}
    elif n in ("fp32", "fp64"):
        out = {
            n: value
            if math.isfinite(value)
            else ("NaN" if math.isnan(value) else repr(value).replace("inf", "Infinity"))
        }
    elif n == "bool":
        out = {"boolean": value}
    elif n == "str":
        out = {"string": value}
    elif n == "vchar":
        out = {"varChar": {"value": value, "length": int(t.params[0])}}
    elif n == "fchar":
        out = {"fixedChar": value}
    elif n == "dec":
        p, s = (int(x) for x in t.params) if t.params else (38, 0)
        unscaled = int(value.scaleb(s, _CTX).to_integral_value())
        if unscaled != value.scaleb(s, _CTX):
            raise ValueError(f"{value} has more than {s} decimals")
        raw = unscaled.to_bytes(16, "little", signed=True)
        out = {"decimal": {"value": base64.b64encode(raw).decode(), "precision": p, "scale": s}}
    elif n == "date":
        out = {"date": (value - datetime.date(1970, 1, 1)).days}
    elif n in ("pts", "ptstz"):
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc if n == "ptstz" else None)
        micros = (value - epoch) // datetime.timedelta(microseconds=1)
        key = "precisionTimestamp" if n == "pts" else "precisionTimestampTz"
        out = {key: {"precision": 6, "value": str(micros)}}
    elif n == "pt":
        micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        out = {"precisionTime": {"precision": 6, "value": str(micros)}}
    elif n == "iday":
        total = value // datetime.timedelta(microseconds=1)
        sign, rest = (-1 if total < 0 else 1), abs(total)
        days, rest = divmod(rest, 86_400_000_000)
        secs, micros = divmod(rest, 1_000_000)
        out = {
            "intervalDayToSecond": {
                "days": sign * days,
                "seconds": sign * secs,
                "subseconds": str(sign * micros),
                "precision": 6,
            }
        }
    elif n == "iyear":
        out = {"intervalYearToMonth": {"years": int(value / 12), "months": value - 12 * int(value / 12)}}
    elif n == "list":
        if not value:
            return {"emptyList": {"type": type_json(t.params[0])}, "nullable": t.nullable}
        out = {"list": {"values": [literal_json(v, t.params[0]) for v in value]}}
    else:
        raise NotExpressible(f"a literal of type {text!r}")
    if t.nullable:
        out["nullable"] = True
    return out


#: a short type name in a function signature
_SIG = {"vchar": "vchar", "fchar": "fchar", "str": "str", "dec": "dec", "bool": "bool"}


def _short(type_text: str) -> str:
    n = parse_type(type_text).name
    return _SIG.get(n, n)


def signature(case: Case) -> str:
    parts = ["req" if a.kind == "enum" else "func" if a.kind == "lambda" else _short(a.type) for a in case.args]
    return f"{case.name}:{'_'.join(parts)}" if parts else case.name


def _urn_declaring(name: str, urns: tuple[str, ...]) -> str:
    """The first of ``urns`` (a case file's include and dependencies) whose extension file
    declares the scalar function ``name``."""
    for urn in urns:
        if name in _declared_functions(urn):
            return urn
    raise NotExpressible(f"{name!r}, declared in none of {list(urns)}")


_DECLARED: dict[str, set[str]] = {}


def _declared_functions(urn: str) -> set[str]:
    if urn not in _DECLARED:
        import yaml

        folder = os.path.join(os.path.dirname(testcases_root()), "extensions")
        path = os.path.join(folder, urn.rsplit(":", 1)[-1] + ".yaml")
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        _DECLARED[urn] = {fn["name"] for fn in doc.get("scalar_functions") or []}
    return _DECLARED[urn]


def _include_urn(file: str) -> str:
    return "extension:io.substrait:functions_" + file.split("/")[0]


def _options(case: Case) -> list[dict[str, Any]]:
    return [{"name": k, "preference": [v]} for k, v in case.options]


def _expressible(case: Case) -> None:
    for a in case.args:
        if a.kind == "udt":
            raise NotExpressible(f"a user-defined argument {a.value!r}")
    if case.result is not None and case.result.kind == "udt":
        raise NotExpressible(f"a user-defined result {case.result.value!r}")


#: declares a function (its extension URN and compound name) in the plan being built → its anchor
Declare = Callable[[str, str], int]


def _value_arg(a: Lit, declare: Declare | None = None, urns: tuple[str, ...] = ()) -> dict[str, Any]:
    if a.kind == "enum":
        return {"enum": a.value}
    if a.kind == "param":  # a parameter of the innermost lambda
        ref = {"structField": {"field": a.value}}
        return {"value": {"selection": {"directReference": ref, "lambdaParameterReference": {"stepsOut": 0}}}}
    if a.kind == "lambda":
        assert declare is not None
        lam: Lambda = a.value
        sig = "_".join(_short(x.type) for x in lam.args)
        body = {
            "scalarFunction": {
                "functionReference": declare(_urn_declaring(lam.function, urns), f"{lam.function}:{sig}"),
                "arguments": [_value_arg(x, declare, urns) for x in lam.args],
                "outputType": type_json(lam.returns),
            }
        }
        params = {"types": [type_json(t) for t in lam.types], "nullability": "NULLABILITY_REQUIRED"}
        return {"value": {"lambda": {"parameters": params, "body": body}}}
    if a.kind == "column":
        return {"value": {"selection": {"directReference": {"structField": {"field": a.value}}, "rootReference": {}}}}
    return {"value": {"literal": literal_json(a.value, a.type)}}


def scalar_expression(case: Case, declare: Declare | None = None) -> dict[str, Any]:
    _expressible(case)
    urns = (_include_urn(case.file), *case.dependencies)
    fn: dict[str, Any] = {
        "functionReference": 1,
        "arguments": [_value_arg(a, declare, urns) for a in case.args],
        "options": _options(case),
    }
    if case.result is not None:
        fn["outputType"] = type_json(case.result.type)
    return {"scalarFunction": fn}


def plan_of(cases: list[Case]) -> dict[str, Any]:
    """One plan running ``cases`` (all scalar, or one aggregate): a project of one column per
    case over a one-row virtual table, or an aggregate over the case's table."""
    first = cases[0]
    extensions = []
    urns = []
    for k, c in enumerate(cases):
        urn = _include_urn(c.file)
        if urn not in urns:
            urns.append(urn)
        extensions.append(
            {
                "extensionFunction": {
                    "extensionUrnReference": urns.index(urn) + 1,
                    "functionAnchor": k + 1,
                    "name": signature(c),
                }
            }
        )

    def declare(urn: str, name: str) -> int:
        # a function a lambda's body calls: anchors after the cases' own
        if urn not in urns:
            urns.append(urn)
        anchor = len(extensions) + 1
        extensions.append(
            {
                "extensionFunction": {
                    "extensionUrnReference": urns.index(urn) + 1,
                    "functionAnchor": anchor,
                    "name": name,
                }
            }
        )
        return anchor

    if first.kind == "scalar":
        exprs = []
        for k, c in enumerate(cases):
            e = scalar_expression(c, declare)
            e["scalarFunction"]["functionReference"] = k + 1
            exprs.append(e)
        one_row = {
            "read": {
                "baseSchema": {
                    "names": ["one"],
                    "struct": {"types": [{"i32": {"nullability": "NULLABILITY_REQUIRED"}}]},
                },
                "virtualTable": {"values": [{"fields": [{"i32": 1}]}]},
            }
        }
        rel: dict[str, Any] = {
            "project": {
                "common": {"emit": {"outputMapping": [k + 1 for k in range(len(exprs))]}},
                "input": one_row,
                "expressions": exprs,
            }
        }
        names = [f"c{k}" for k in range(len(cases))]
    else:
        (c,) = cases
        _expressible(c)
        names_in = [f"col{i}" for i in range(len(c.columns))]
        types = [type_json(_nullable(t)) for t in c.columns]
        table = {
            "read": {
                "baseSchema": {"names": names_in, "struct": {"types": types}},
                "virtualTable": {
                    "values": [
                        {"fields": [literal_json(v, _nullable(t)) for v, t in zip(row, c.columns)]} for row in c.rows
                    ]
                },
            }
        }
        measure: dict[str, Any] = {
            "functionReference": 1,
            "arguments": [_value_arg(a) for a in c.args],
            "options": _options(c),
            "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT",
            "invocation": "AGGREGATION_INVOCATION_ALL",
        }
        if c.result is not None:
            measure["outputType"] = type_json(c.result.type)
        rel = {"aggregate": {"input": table, "groupings": [], "measures": [{"measure": measure}]}}
        names = ["c0"]
    return {
        "extensionUrns": [{"extensionUrnAnchor": i + 1, "urn": u} for i, u in enumerate(urns)],
        "extensions": extensions,
        "relations": [{"root": {"input": rel, "names": names}}],
    }


def _nullable(t: str) -> str:
    """A table column's type made nullable (a column of the spec's tables may hold nulls)."""
    p = parse_type(t)
    if p.nullable:
        return t
    base, sep, rest = t.partition("<")
    return f"{base}?{sep}{rest}"


# ---------------------------------------------------------------- comparing


def same_value(expected: Any, actual: Any, type_text: str) -> bool:
    """Whether Spark's value is the spec's: exact, except floating point (fp64 to 1e-15 relative,
    fp32 as the float32 nearest the spec's value, NaN equal to NaN)."""
    if expected is None or actual is None:
        return expected is None and actual is None
    n = parse_type(type_text).name
    if n in ("fp32", "fp64"):
        if isinstance(actual, decimal.Decimal):
            actual = float(actual)
        if not isinstance(actual, (int, float)) or isinstance(actual, bool):
            return False
        if math.isnan(expected) or math.isnan(actual):
            return math.isnan(expected) and math.isnan(actual)
        if n == "fp32":
            import numpy as np

            return bool(np.float32(expected) == np.float32(actual)) or math.isclose(expected, actual, rel_tol=1e-6)
        return expected == actual or math.isclose(expected, actual, rel_tol=1e-15, abs_tol=0.0)
    if n == "list":
        el = parse_type(type_text).params[0]
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same_value(e, a, el) for e, a in zip(expected, actual))
        )
    if n == "dec":
        return isinstance(actual, decimal.Decimal) and actual == expected
    if n == "iyear" and isinstance(actual, tuple):
        # Arrow's month_day_nano interval (months, days, nanoseconds): a year-month interval is
        # its months alone
        return bool(actual[0] == expected and not any(actual[1:]))
    if n == "iday" and isinstance(actual, tuple) and len(actual) == 3:
        # a month_day_nano interval (another consumer's day-second interval): no months, and
        # its days and nanoseconds the spec's duration
        months, days, nanos = actual
        want = expected // datetime.timedelta(microseconds=1) * 1000
        return bool(months == 0 and days * 86_400_000_000_000 + nanos == want)
    if isinstance(expected, bool) != isinstance(actual, bool):
        return False
    return bool(expected == actual)


# ---------------------------------------------------------------- running


@dataclasses.dataclass
class Outcome:
    outcome: str
    detail: str = ""
    #: a right value returned in another type than the declared one (Arrow's type name)
    other_type: str = ""


def arrow_type_of(text: str) -> Any:
    """The Arrow type connect_plan returns for a declared Substrait type (None: not checked)."""
    import pyarrow as pa

    t = parse_type(text)
    simple = {
        "i8": pa.int8(),
        "i16": pa.int16(),
        "i32": pa.int32(),
        "i64": pa.int64(),
        "fp32": pa.float32(),
        "fp64": pa.float64(),
        "bool": pa.bool_(),
        "str": pa.string(),
        "vchar": pa.string(),
        "fchar": pa.string(),
        "date": pa.date32(),
        "pts": pa.timestamp("us"),
        "iday": pa.duration("us"),
    }
    if t.name in simple:
        return simple[t.name]
    if t.name == "dec":
        p, s = (int(x) for x in t.params) if t.params else (38, 0)
        return pa.decimal128(p, s)
    if t.name == "list":
        inner = arrow_type_of(t.params[0])
        return pa.list_(inner) if inner is not None else None
    return None


class Unreadable(Exception):
    """A result pyarrow cannot read back (its ``month_interval`` arrays: pyarrow 21 has no
    Python class for them)."""


def _first(column: Any) -> Any:
    if not len(column):
        return None
    if str(column.type) == "month_interval":
        raise Unreadable("pyarrow reads no month_interval values")
    return column.to_pylist()[0]


def _judge(case: Case, column: Any) -> Outcome:
    try:
        value = _first(column)
    except Unreadable as e:
        return Outcome("unread", str(e))
    if case.result is None:
        if case.undefined:
            return Outcome("right", "undefined: a value")
        return Outcome("wrong", f"an error expected, got {value!r}")
    if not same_value(case.result.value, value, case.result.type):
        return Outcome("wrong", f"expected {case.result.value!r}, got {value!r} ({column.type})")
    want = arrow_type_of(case.result.type)
    other = ""
    if (
        want is not None
        and not column.type.equals(want)
        and not (str(column.type) in ("large_string",) and want.equals(__import__("pyarrow").string()))
    ):
        other = str(column.type)
    return Outcome("right", other_type=other)


def _error_outcome(case: Case, e: Exception) -> Outcome:
    from connect_plan.errors import PlanError, ResultContractError

    details = getattr(e, "details", None)
    if details:
        text = "; ".join(f"{d.loc}: {d.message}" for d in details)[:400]
    else:
        text = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
    if isinstance(e, PlanError) and not isinstance(e, ResultContractError):
        return Outcome("refused", text)
    if case.result is None:
        return Outcome("error as expected", text)
    if isinstance(e, ResultContractError):
        return Outcome("refused", "result contract: " + text)
    return Outcome("spark error", text)


def run_cases(client: Any, cases: list[Case]) -> dict[str, Outcome]:
    """Every case's outcome: translated alone first (a refusal is located before any network
    call), then the scalar cases with a value expected run together, a plan per file (a failing
    batch runs its cases one at a time), and every other case alone."""
    from connect_plan.errors import PlanError
    from connect_plan.formats.substrait import parse_substrait_plan

    out: dict[str, Outcome] = {}
    batches: dict[str, list[Case]] = {}
    alone: list[Case] = []
    for case in cases:
        try:
            plan = plan_of([case])
        except NotExpressible as e:
            out[case.id] = Outcome("not expressible", str(e))
            continue
        try:
            parse_substrait_plan(plan)
        except PlanError as e:
            out[case.id] = _error_outcome(case, e)
            continue
        if case.kind == "scalar" and case.result is not None:
            batches.setdefault(case.file, []).append(case)
        else:
            alone.append(case)
    for batch in batches.values():
        try:
            table = client.execute(plan_of(batch))
        except Exception:
            alone.extend(batch)
            continue
        for k, case in enumerate(batch):
            out[case.id] = _judge(case, table.column(k))
    for case in alone:
        try:
            table = client.execute(plan_of([case]))
        except Exception as e:
            out[case.id] = _error_outcome(case, e)
            continue
        out[case.id] = _judge(case, table.column(0))
    return out
