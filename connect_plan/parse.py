"""JSON plan → IR. The only module that knows the plan format's spellings.

Accepts the union of what robin-sparkless (0.11 and HEAD) and the seed document accept
(PLAN_FORMAT.md, Policy 1): camelCase and op-level keys, ``fn``/``function``,
``col``/``column``, Sparkless ``{"type": ...}`` items, bare strings as column names, bare
scalars as literals, and so on. Every problem is recorded with its location and the parse
goes on, so one :class:`~connect_plan.errors.PlanError` lists all of them.

Where the format is ambiguous or robin silently dropped input, we raise (Policy 5); the
choices are documented in ``docs/plan-format.md``.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from . import ir
from .data import Field, rows_to_arrow
from .errors import _MISSING, ErrorDetail, PlanError
from .functions import CATALOG, FunctionSpec, Param, suggest
from .types import TypeParseError, parse_type

__all__ = [
    "MAX_EXPR_DEPTH",
    "MAX_STEPS",
    "OPS",
    "load_json",
    "parse_document",
    "parse_plan",
]

#: deepest expression nesting accepted (Spark Connect servers reject protos nested
#: ~1024 messages deep; each expression level costs two)
MAX_EXPR_DEPTH = 100
#: most steps one plan may have (after merging, the translator also bounds relation depth)
MAX_STEPS = 5_000
#: most characters of plan JSON text accepted by load_json
MAX_JSON_CHARS = 512 * 1024 * 1024

_JOIN_TYPES: dict[str, str] = {
    "inner": "inner",
    "cross": "cross",
    "outer": "full",
    "full": "full",
    "fullouter": "full",
    "full_outer": "full",
    "left": "left",
    "leftouter": "left",
    "left_outer": "left",
    "right": "right",
    "rightouter": "right",
    "right_outer": "right",
    "semi": "left_semi",
    "leftsemi": "left_semi",
    "left_semi": "left_semi",
    "anti": "left_anti",
    "leftanti": "left_anti",
    "left_anti": "left_anti",
}

_NOT_OPS_HINTS = {
    "where": "filter",
    "sort": "orderBy",
    "orderby": "orderBy",
    "order_by": "orderBy",
    "groupby": "groupBy",
    "group_by": "groupBy",
    "unionAll": "union",
    "withColumns": "withColumn",
    "dropDuplicates": "distinct",
}

# {"op": name} forms of expressions (§3.3) → catalog names. Ops not here have own parsers.
_BINARY_OPS: dict[str, str] = {
    "eq": "==",
    "==": "==",
    "ne": "!=",
    "!=": "!=",
    "gt": ">",
    "ge": ">=",
    "lt": "<",
    "le": "<=",
    "eq_null_safe": "<=>",
    "add": "+",
    "+": "+",
    "sub": "-",
    "minus": "-",
    "-": "-",
    "mul": "*",
    "*": "*",
    "div": "/",
    "divide": "/",
    "/": "/",
    "**": "power",
    "pow": "power",
}
_UNARY_OPS: dict[str, str] = {
    "not": "not",
    "bitwise_not": "~",
    "is_null": "isnull",
    "is_not_null": "isnotnull",
}
# {"op": name, "args": [...]} forms routed to the function of that name (camelCase aliases
# are op-only spellings in robin HEAD)
_ARGS_OPS: dict[str, str] = {
    "translate": "translate",
    "substring_index": "substring_index",
    "substringIndex": "substring_index",
    "levenshtein": "levenshtein",
    "soundex": "soundex",
    "crc32": "crc32",
    "xxhash64": "xxhash64",
    "get_json_object": "get_json_object",
    "getJsonObject": "get_json_object",
    "json_tuple": "json_tuple",
    "jsonTuple": "json_tuple",
    "regexp_extract_all": "regexp_extract_all",
    "regexpExtractAll": "regexp_extract_all",
    "date_trunc": "date_trunc",
    "dateTrunc": "date_trunc",
    "to_date": "to_date",
    "toDate": "to_date",
    "format_string": "format_string",
    "formatString": "format_string",
    "log": "log",
    "explode": "explode",
    "explode_outer": "explode_outer",
    "explodeOuter": "explode_outer",
    "concat": "concat",
    "contains": "contains",
    "coalesce": "coalesce",
    "nvl": "nvl",
    "create_map": "create_map",
    "createMap": "create_map",
    "regexp_extract": "regexp_extract",
    "regexp_replace": "regexp_replace",
}
_EXPR_OPS = (
    set(_BINARY_OPS) | set(_UNARY_OPS) | set(_ARGS_OPS)
    | {"and", "or", "between", "isin", "getItem", "startswith", "udf"}
)

_SIMPLE_NAME = re.compile(r"^[^\s()]+$")


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, _MAP):
        return "object"
    return type(v).__name__


#: isinstance(x, _MAP) accepts any Mapping but decides dicts without the slow ABC check
_MAP = (dict, Mapping)


def _first(d: Mapping[str, Any], *keys: str) -> tuple[str | None, Any]:
    for k in keys:
        if k in d:
            return k, d[k]
    return None, _MISSING


class Parser:
    """Collects errors while building IR; see :func:`parse_plan`."""

    def __init__(self) -> None:
        self.errors: list[ErrorDetail] = []

    # ---------------------------------------------------------------- error helpers

    def err(self, code: str, loc: str, message: str, input: Any = _MISSING) -> None:
        self.errors.append(ErrorDetail(code, loc, message, input))

    def raise_if_errors(self) -> None:
        if self.errors:
            raise PlanError(self.errors)

    # ---------------------------------------------------------------- documents, inputs

    def document(self, doc: Any, loc: str = "") -> ir.Plan | None:
        """A plan document ``{"input": {"schema", "rows"}, "plan": [...]}``."""
        if not isinstance(doc, _MAP):
            self.err("document_type", loc or "/", "a plan document must be a JSON object with 'input' and 'plan'", doc)
            return None
        inp = doc.get("input")
        steps_raw = doc.get("plan", _MISSING)
        if steps_raw is _MISSING:
            self.err("missing_key", f"{loc}/plan", "a plan document needs a 'plan' array")
            steps_raw = []
        if not isinstance(inp, _MAP):
            self.err("missing_key", f"{loc}/input", "a plan document needs an 'input' object with 'schema' and 'rows'", inp if inp is not None else _MISSING)
            return None
        rows_key, rows = _first(inp, "rows", "data")
        schema_key, schema = _first(inp, "schema")
        if schema_key is None:
            self.err("missing_key", f"{loc}/input/schema", "input needs a 'schema' list")
            return None
        if rows_key is None:
            rows, rows_key = [], "rows"
        return self.plan(rows, schema, steps_raw, f"{loc}/input/{rows_key}", f"{loc}/input/schema", f"{loc}/plan")

    def plan(
        self, rows: Any, schema: Any, steps_raw: Any, rows_loc: str, schema_loc: str, plan_loc: str
    ) -> ir.Plan | None:
        if not (self.valid_unicode(schema, schema_loc) & self.valid_unicode(steps_raw, plan_loc)):
            return None
        source = self.inline(rows, schema, rows_loc, schema_loc)
        steps = self.steps(steps_raw, plan_loc)
        if source is None:
            return None
        return ir.Plan(source, steps, plan_loc)

    def valid_unicode(self, raw: Any, loc: str) -> bool:
        """Every string (and object key) must be encodable as UTF-8: protobuf and Arrow
        reject lone surrogates, so they are located here instead of failing later."""
        if _all_encodable(raw):  # the usual case, checked without building locations
            return True
        ok = True
        stack: list[tuple[Any, str]] = [(raw, loc)]
        seen = 0
        while stack and seen < 1_000_000:
            node, at = stack.pop()
            seen += 1
            if isinstance(node, str):
                if not node.isascii() and not _encodable(node):
                    self.err("invalid_unicode", at, "text contains characters that are not valid Unicode (lone surrogates)", node)
                    ok = False
            elif isinstance(node, Mapping):
                for k, v in node.items():
                    if isinstance(k, str) and not k.isascii() and not _encodable(k):
                        self.err("invalid_unicode", at, "an object key is not valid Unicode (lone surrogates)", k)
                        ok = False
                    stack.append((v, f"{at}/{k}"))
            elif isinstance(node, (list, tuple)):
                stack.extend((v, f"{at}/{i}") for i, v in enumerate(node))
        return ok

    def schema(self, raw: Any, loc: str) -> list[Field] | None:
        if isinstance(raw, _MAP) and isinstance(raw.get("fields"), list):
            raw, loc = raw["fields"], f"{loc}/fields"  # Spark's StructType JSON
        if not isinstance(raw, (list, tuple)):
            self.err("schema_type", loc, "a schema must be a list of {\"name\", \"type\"} objects or [name, type] pairs", raw)
            return None
        fields: list[Field] = []
        seen: dict[str, int] = {}
        ok = True
        for i, item in enumerate(raw):
            at = f"{loc}/{i}"
            name: Any
            tval: Any
            if isinstance(item, _MAP):
                _, name = _first(item, "name", "fieldName")
                _, tval = _first(item, "type", "dataType")
                if isinstance(tval, _MAP):
                    tval = tval.get("typeName", tval.get("type", _MISSING))
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                name, tval = item
            else:
                self.err("schema_field", at, "a schema field must be {\"name\", \"type\"} or a [name, type] pair", item)
                ok = False
                continue
            if not isinstance(name, str) or not name:
                self.err("schema_field", f"{at}/name", "a schema field needs a non-empty string 'name'", name)
                ok = False
                continue
            if not isinstance(tval, str):
                self.err("schema_field", f"{at}/type", f"field {name!r} needs a type string", tval)
                ok = False
                continue
            try:
                t = parse_type(tval)
            except TypeParseError as exc:
                self.err("unknown_type", f"{at}/type", f"field {name!r}: {exc}", tval)
                ok = False
                continue
            if name.lower() in seen:
                self.err("duplicate_column", at, f"column name {name!r} appears twice in the schema (names are case-insensitive)", name)
                ok = False
                continue
            seen[name.lower()] = i
            fields.append(Field(name, t, at))
        return fields if ok else None

    def inline(self, rows: Any, schema: Any, rows_loc: str, schema_loc: str) -> ir.InlineData | None:
        table = _arrow_input(rows)
        if table is not None:
            return self._arrow_source(table, schema, rows_loc, schema_loc)
        fields = self.schema(schema, schema_loc)
        if fields is None:
            return None
        if not isinstance(rows, (list, tuple)):
            self.err("rows_type", rows_loc, "rows must be a list of lists (schema order) or of objects keyed by column name", rows)
            return None
        table = rows_to_arrow(rows, fields, rows_loc, self.errors)
        return ir.InlineData(table, rows_loc)

    def _arrow_source(self, table: Any, schema: Any, rows_loc: str, schema_loc: str) -> ir.InlineData | None:
        if schema is not None and schema != [] and schema is not _MISSING:
            fields = self.schema(schema, schema_loc)
            if fields is None:
                return None
            if [f.name for f in fields] != table.column_names:
                self.err("schema_mismatch", schema_loc, f"the schema names {[f.name for f in fields]} differ from the Arrow columns {table.column_names}")
                return None
            import pyarrow as pa

            from .types import arrow_type

            try:
                target = pa.schema([pa.field(f.name, arrow_type(f.type)) for f in fields])
                if table.schema.types != target.types:  # casting to the same types still costs ~5 µs a column
                    table = table.cast(target)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeParseError) as exc:
                self.err("schema_mismatch", schema_loc, f"the Arrow data cannot be cast to the schema: {exc}")
                return None
            return ir.InlineData(table, rows_loc)
        return self._spark_readable(table, rows_loc)

    def _spark_readable(self, table: Any, rows_loc: str) -> ir.InlineData | None:
        """Arrow data without a declared schema, with each column cast to the Arrow type
        Spark reads for its Spark type: unsigned ints widen, nanosecond timestamps become
        microseconds, dictionaries (pandas categoricals) are decoded, large/view strings
        become plain strings. Spark rejects the original types (or, for dictionaries, reads
        the indices)."""
        import pyarrow as pa

        try:
            target = _spark_readable_schema(table.schema)
        except TypeParseError:
            from .types import from_arrow

            for i, f in enumerate(table.schema):
                try:
                    from_arrow(f.type)
                except TypeParseError as exc:
                    self.err("unsupported_type", f"{rows_loc}/columns/{i}", f"column {f.name!r}: {exc}", str(f.type))
            return None
        if target is not None:
            try:
                table = table.cast(target)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                self.err("unsupported_type", rows_loc, f"the Arrow data cannot be converted to Spark's types {target}: {exc}")
                return None
        return ir.InlineData(table, rows_loc)

    # ---------------------------------------------------------------- steps

    def steps(self, raw: Any, loc: str) -> tuple[ir.Step, ...]:
        if isinstance(raw, str):
            raw = self.json_text(raw, loc)
            if raw is None:
                return ()
        if not isinstance(raw, (list, tuple)):
            self.err("plan_type", loc, "a plan must be a JSON array of steps", raw)
            return ()
        if len(raw) > MAX_STEPS:
            self.err("plan_too_long", loc, f"a plan may have at most {MAX_STEPS} steps, this one has {len(raw)}")
            return ()
        out: list[ir.Step] = []
        for i, item in enumerate(raw):
            step = self.step(item, i, f"{loc}/{i}")
            if step is not None:
                out.append(step)
        return tuple(out)

    def json_text(self, text: str, loc: str) -> Any:
        try:
            return load_json(text)
        except PlanError as exc:
            for d in exc.details:
                self.err(d.code, loc + d.loc, d.message)
            return None

    def step(self, raw: Any, index: int, loc: str) -> ir.Step | None:
        if not isinstance(raw, _MAP):
            self.err("step_type", loc, "each plan step must be a JSON object {\"op\": ..., \"payload\": ...}", raw)
            return None
        op = raw.get("op")
        if not isinstance(op, str):
            self.err("step_op", f"{loc}/op", "each plan step needs an 'op' string", op if "op" in raw else _MISSING)
            return None
        handler = OPS.get(op)
        if handler is None:
            hint = _NOT_OPS_HINTS.get(op) or (difflib.get_close_matches(op, list(OPS), n=1, cutoff=0.6) or [None])[0]
            extra = f"; did you mean {hint!r}?" if hint else ""
            self.err("unknown_op", f"{loc}/op", f"unsupported op {op!r}{extra} (supported: {', '.join(sorted(OPS))})", op)
            return None
        payload = raw.get("payload")
        return handler(self, op, index, loc, payload, raw)

    # ---------------------------------------------------------------- op parsers

    def _filter(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        cond = self.expr(payload, f"{loc}/payload")
        return ir.Filter(index, op, loc, cond) if cond is not None else None

    def _select(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        items_raw = payload
        if isinstance(payload, _MAP) and "columns" in payload:
            items_raw, ploc = payload["columns"], f"{ploc}/columns"
        elif isinstance(payload, str):
            items_raw = [payload]
        if not isinstance(items_raw, (list, tuple)):
            self.err("payload_type", ploc, "select needs a list of columns or expressions (or {\"columns\": [...]})", payload)
            return None
        if not items_raw:
            self.err("empty", ploc, "select needs at least one column")
            return None
        items: list[ir.SelectItem] = []
        for i, item in enumerate(items_raw):
            parsed = self.select_item(item, f"{ploc}/{i}")
            if parsed is not None:
                items.append(parsed)
        if len(items) != len(items_raw):
            return None
        return ir.Select(index, op, loc, tuple(items))

    def select_item(self, item: Any, loc: str) -> ir.SelectItem | None:
        if isinstance(item, str):
            return self._select_string(item, loc)
        if not isinstance(item, _MAP):
            if isinstance(item, (bool, int, float)) or item is None:
                lit = self.expr(item, loc)
                return ir.SelectItem(lit, None, loc) if lit is not None else None
            self.err("select_item", loc, "a select item must be a column name, {\"name\", \"expr\"}, a column object or an expression", item)
            return None
        alias = self._alias(item, loc, keys=("alias",))
        if "expr" in item:
            expr = self.expr(item["expr"], f"{loc}/expr")
            name = self._alias(item, loc, keys=("name", "alias"))
            return ir.SelectItem(expr, name, loc) if expr is not None else None
        if any(k in item for k in ("fn", "function", "op", "lit", "udf")) or item.get("type") == "window":
            expr = self.expr(item, loc)
            name = self._alias(item, loc, keys=("alias", "name"))
            return ir.SelectItem(expr, name, loc) if expr is not None else None
        key, name = _first(item, "col", "column", "name")
        if key is None:
            self.err("select_item", loc, "a select item object needs 'expr', 'col', 'column', 'name' or an expression key ('fn', 'op', 'lit')", item)
            return None
        if not isinstance(name, str) or not name:
            self.err("column_name", f"{loc}/{key}", "a column name must be a non-empty string", name)
            return None
        if name == "*":
            return ir.SelectItem(ir.Star(f"{loc}/{key}"), None, loc)
        return ir.SelectItem(ir.Col(name, f"{loc}/{key}"), alias, loc)

    def _alias(self, item: Mapping[str, Any], loc: str, keys: tuple[str, ...]) -> str | None:
        key, name = _first(item, *keys)
        if key is None or name is None:
            return None
        if not isinstance(name, str) or not name:
            self.err("alias", f"{loc}/{key}", "an output name must be a non-empty string", name)
            return None
        return name

    _CONCAT = re.compile(r"^\s*(concat_ws|concat)\s*\((.*)\)\s*(?:\s[aA][sS]\s+(.+?))?\s*$", re.S)
    _AS = re.compile(r"^(.+?)\s+[aA][sS]\s+(.+)$", re.S)

    def _select_string(self, s: str, loc: str) -> ir.SelectItem | None:
        if not s:
            self.err("column_name", loc, "a column name must not be empty", s)
            return None
        if s == "*":
            return ir.SelectItem(ir.Star(loc), None, loc)
        m = self._CONCAT.match(s)
        if m:
            fn_name, inner, alias = m.groups()
            parts = _split_args(inner)
            args: list[ir.Expr] = []
            for p in parts:
                p = p.strip()
                if len(p) >= 2 and p[0] == p[-1] and p[0] in "'\"":
                    args.append(ir.Lit(p[1:-1], loc))
                elif not p:
                    args.append(ir.Lit("", loc))
                else:
                    args.append(ir.Col(p, loc))
            if fn_name == "concat_ws" and not args:
                self.err("arity", loc, "concat_ws(...) needs a separator", s)
                return None
            call = ir.Call(fn_name, tuple(args), loc)
            return ir.SelectItem(call, alias.strip() if alias else s if not alias else None, loc)
        m = self._AS.match(s)
        if m and _SIMPLE_NAME.match(m.group(1).strip()) and _SIMPLE_NAME.match(m.group(2).strip()):
            return ir.SelectItem(ir.Col(m.group(1).strip(), loc), m.group(2).strip(), loc)
        return ir.SelectItem(ir.Col(s, loc), None, loc)

    def _with_column(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if not isinstance(payload, _MAP):
            self.err("payload_type", ploc, "withColumn needs {\"name\": ..., \"expr\": ...}", payload)
            return None
        key, name = _first(payload, "name", "alias", "colName")
        if key is None or not isinstance(name, str) or not name:
            self.err("missing_key" if key is None else "column_name", f"{ploc}/{key or 'name'}", "withColumn needs a non-empty string 'name' (or 'alias')", name)
            name = None
        if "expr" not in payload and "col" not in payload:
            self.err("missing_key", f"{ploc}/expr", "withColumn needs an 'expr'")
            return None
        ekey = "expr" if "expr" in payload else "col"
        expr = self.expr(payload[ekey], f"{ploc}/{ekey}")
        if expr is None or name is None:
            return None
        return ir.WithColumn(index, op, loc, name, expr)

    def _rename(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if not isinstance(payload, _MAP):
            self.err("payload_type", ploc, "withColumnRenamed needs {\"old\": ..., \"new\": ...}", payload)
            return None
        okey, old = _first(payload, "old", "existing")
        nkey, new = _first(payload, "new", "newName")
        ok = True
        for key, val, default in ((okey, old, "old"), (nkey, new, "new")):
            if key is None or not isinstance(val, str) or not val:
                self.err("missing_key" if key is None else "column_name", f"{ploc}/{key or default}", f"withColumnRenamed needs a non-empty string '{default}'", val)
                ok = False
        return ir.WithColumnRenamed(index, op, loc, old, new) if ok else None

    def _drop(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        items = payload
        if isinstance(payload, _MAP):
            key, items = _first(payload, "columns", "cols")
            if key is None:
                self.err("missing_key", f"{ploc}/columns", "drop needs a 'columns' list")
                return None
            ploc = f"{ploc}/{key}"
        elif isinstance(payload, str):
            items = [payload]
        if not isinstance(items, (list, tuple)):
            self.err("payload_type", ploc, "drop needs {\"columns\": [names]}", payload)
            return None
        names = [self.column_name(it, f"{ploc}/{i}") for i, it in enumerate(items)]
        if any(n is None for n in names):
            return None
        return ir.Drop(index, op, loc, tuple(n for n in names if n is not None))

    def column_name(self, item: Any, loc: str, keys: tuple[str, ...] = ("col", "column", "name")) -> str | None:
        """A plain column name: a string or ``{"col"|"column"|"name": ...}``."""
        if isinstance(item, _MAP):
            key, item = _first(item, *keys)
            if key is None:
                self.err("column_name", loc, f"expected a column name or an object with one of {list(keys)}", item)
                return None
            loc = f"{loc}/{key}"
        if not isinstance(item, str) or not item:
            self.err("column_name", loc, "expected a non-empty column name string", item)
            return None
        return item

    def _distinct(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        return ir.Distinct(index, op, loc)

    def _stop(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        return ir.Stop(index, op, loc)

    def _count_arg(self, op: str, loc: str, payload: Any, default: int | None) -> int | None:
        ploc = f"{loc}/payload"
        n: Any = payload
        nloc = ploc
        if isinstance(payload, _MAP):
            if "n" not in payload and default is not None:
                return default
            n, nloc = payload.get("n", _MISSING), f"{ploc}/n"
        elif payload is None and default is not None:
            return default
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            self.err("bad_count", nloc, f"{op} needs 'n', a non-negative integer", n)
            return None
        if n > 2**31 - 1:
            self.err("bad_count", nloc, f"{op} 'n' must fit in 32 bits (Spark's limit)", n)
            return None
        return n

    def _limit(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        n = self._count_arg(op, loc, payload, None)
        return ir.Limit(index, op, loc, n) if n is not None else None

    def _offset(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        n = self._count_arg(op, loc, payload, 0)
        return ir.Offset(index, op, loc, n) if n is not None else None

    # ---- orderBy

    _DIRECTION = re.compile(r"^(.*?)\s+(asc|desc)$", re.I | re.S)
    _LIST_REPR = re.compile(r"^\[(.*)\]$", re.S)

    def _order_by(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if isinstance(payload, (list, tuple, str)):
            payload = {"columns": payload if not isinstance(payload, str) else [payload]}
        if not isinstance(payload, _MAP):
            self.err("payload_type", ploc, "orderBy needs {\"columns\": [...], \"ascending\"?: [...]}", payload)
            return None
        ckey, cols = _first(payload, "columns", "cols")
        if ckey is None:
            self.err("missing_key", f"{ploc}/columns", "orderBy needs a 'columns' list")
            return None
        if isinstance(cols, str):
            cols = [cols]
        if not isinstance(cols, (list, tuple)) or not cols:
            self.err("payload_type", f"{ploc}/{ckey}", "orderBy 'columns' must be a non-empty list", cols)
            return None
        # expand items into (expr, explicit ascending, explicit nulls_first, loc)
        entries: list[list[Any]] = []
        for i, item in enumerate(cols):
            iloc = f"{ploc}/{ckey}/{i}"
            if isinstance(item, str):
                word = item.strip().lower()
                if word in ("asc", "desc") and entries:
                    entries[-1][1] = word == "asc"  # a lone direction word modifies the previous column
                    continue
                m = self._LIST_REPR.match(item.strip())
                if m:
                    for part in _split_args(m.group(1)):
                        name = part.strip().strip("'\"")
                        if name:
                            entries.append([ir.Col(name, iloc), None, None, iloc])
                    continue
                m = self._DIRECTION.match(item)
                if m:
                    entries.append([ir.Col(m.group(1).strip(), iloc), m.group(2).lower() == "asc", None, iloc])
                else:
                    entries.append([ir.Col(item, iloc), None, None, iloc])
                continue
            if isinstance(item, _MAP):
                key = self.sort_key(item, iloc)
                if key is not None:
                    entries.append(list(key))
                continue
            self.err("sort_item", iloc, "an orderBy item must be a column name ('col', 'col DESC') or an object", item)
        ascending = self._bool_list(payload, ("ascending", "asc"), len(entries), ploc)
        nulls_first = self._bool_list(payload, ("nulls_first", "nullsFirst"), len(entries), ploc)
        nulls_last = self._bool_list(payload, ("nulls_last", "nullsLast"), len(entries), ploc)
        keys: list[ir.SortKey] = []
        for i, (expr, asc, nf, iloc) in enumerate(entries):
            if asc is None:
                asc = ascending[i] if ascending and ascending[i] is not None else True
            if nf is None:
                a, b = (nulls_first[i] if nulls_first else None), (nulls_last[i] if nulls_last else None)
                if a is not None and b is not None and a == b:
                    self.err("conflict", ploc, f"column {i}: nulls_first and nulls_last disagree")
                nf = a if a is not None else (not b if b is not None else None)
            keys.append(ir.SortKey(expr, asc, nf, iloc))
        if not keys:
            self.err("empty", f"{ploc}/{ckey}", "orderBy found no columns to sort by")
            return None
        return ir.OrderBy(index, op, loc, tuple(keys))

    def sort_key(self, item: Mapping[str, Any], loc: str) -> tuple[ir.Expr, bool | None, bool | None, str] | None:
        """An object sort item: a column or expression plus direction / null placement keys."""
        if "expr" in item:
            expr = self.expr(item["expr"], f"{loc}/expr")
        elif any(k in item for k in ("fn", "function", "op", "lit", "udf")):
            expr = self.expr({k: v for k, v in item.items() if k not in _SORT_KEYS}, loc)
        else:
            name = self.column_name(item, loc)
            expr = ir.Col(name, loc) if name is not None else None
        asc: bool | None = None
        for k in ("asc", "ascending"):
            if k in item:
                if not isinstance(item[k], bool):
                    self.err("bool_expected", f"{loc}/{k}", f"'{k}' must be true or false", item[k])
                else:
                    asc = item[k]
        for k in ("desc", "descending"):
            if k in item:
                if not isinstance(item[k], bool):
                    self.err("bool_expected", f"{loc}/{k}", f"'{k}' must be true or false", item[k])
                else:
                    if asc is not None and asc == item[k]:
                        self.err("conflict", f"{loc}/{k}", "the item is both ascending and descending")
                    asc = not item[k]
        if isinstance(item.get("direction"), str):
            d = item["direction"].lower()
            if d in ("asc", "ascending", "desc", "descending"):
                asc = d.startswith("asc")
            else:
                self.err("sort_direction", f"{loc}/direction", "direction must be 'asc' or 'desc'", item["direction"])
        nf: bool | None = None
        if "nulls_first" in item or "nullsFirst" in item:
            v = item.get("nulls_first", item.get("nullsFirst"))
            if isinstance(v, bool):
                nf = v
            else:
                self.err("bool_expected", f"{loc}/nulls_first", "'nulls_first' must be true or false", v)
        if "nulls_last" in item or "nullsLast" in item:
            v = item.get("nulls_last", item.get("nullsLast"))
            if isinstance(v, bool):
                if nf is not None and nf == v:
                    self.err("conflict", f"{loc}/nulls_last", "nulls_first and nulls_last disagree")
                nf = not v
            else:
                self.err("bool_expected", f"{loc}/nulls_last", "'nulls_last' must be true or false", v)
        if expr is None:
            return None
        return (expr, asc, nf, loc)

    def _bool_list(self, payload: Mapping[str, Any], keys: tuple[str, ...], n: int, loc: str) -> list[bool | None] | None:
        key, val = _first(payload, *keys)
        if key is None or val is None:
            return None
        if isinstance(val, bool):
            return [val] * n
        if not isinstance(val, (list, tuple)) or not all(isinstance(v, bool) or v is None for v in val):
            self.err("bool_list", f"{loc}/{key}", f"'{key}' must be true/false or a list of them", val)
            return None
        if len(val) > n:
            self.err("length_mismatch", f"{loc}/{key}", f"'{key}' has {len(val)} entries for {n} sort columns", val)
            return None
        return list(val) + [None] * (n - len(val))

    # ---- groupBy / rollup / cube / agg

    def _group(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        kind = {"groupBy": "groupby", "rollup": "rollup", "cube": "cube"}[op]
        if isinstance(payload, (list, tuple)):
            payload = {"group_by": payload}
        if not isinstance(payload, _MAP):
            self.err("payload_type", ploc, f"{op} needs {{\"group_by\": [...], \"aggs\": [...]}}", payload)
            return None
        gkey, groups = _first(payload, "group_by", "groupBy", "columns", "cols")
        if gkey is None:
            self.err("missing_key", f"{ploc}/group_by", f"{op} needs a 'group_by' list (empty for a global aggregate)")
            return None
        if isinstance(groups, str):
            groups = [groups]
        if not isinstance(groups, (list, tuple)):
            self.err("payload_type", f"{ploc}/{gkey}", "'group_by' must be a list", groups)
            return None
        keys: list[ir.Expr] = []
        for i, g in enumerate(groups):
            gloc = f"{ploc}/{gkey}/{i}"
            if isinstance(g, str):
                keys.append(ir.Col(g, gloc))
            elif isinstance(g, _MAP) and "expr" in g:
                e = self.expr(g["expr"], f"{gloc}/expr")
                if e is not None:
                    keys.append(e)
            elif isinstance(g, _MAP) and any(k in g for k in ("col", "column", "name")) and not any(k in g for k in ("fn", "function", "op")):
                name = self.column_name(g, gloc)
                if name is not None:
                    keys.append(ir.Col(name, gloc))
            elif isinstance(g, _MAP):
                e = self.expr(g, gloc)
                if e is not None:
                    keys.append(e)
            else:
                self.err("group_item", gloc, "a grouping item must be a column name or an object", g)
        akey, aggs_raw = _first(payload, "aggs", "aggregations", "agg")
        aggs = None
        if akey is not None:
            aggs = self.aggs(aggs_raw, f"{ploc}/{akey}")
            if aggs is None:
                return None
        return ir.GroupBy(index, op, loc, kind, tuple(keys), aggs)

    def _agg(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if isinstance(payload, (list, tuple)):
            aggs = self.aggs(payload, ploc)
        elif isinstance(payload, _MAP):
            key, val = _first(payload, "aggs", "aggregations")
            if key is None:
                self.err("missing_key", f"{ploc}/aggs", "agg needs an 'aggs' list")
                return None
            aggs = self.aggs(val, f"{ploc}/{key}")
        else:
            self.err("payload_type", ploc, "agg needs {\"aggs\": [...]}", payload)
            return None
        return ir.Agg(index, op, loc, aggs) if aggs is not None else None

    def aggs(self, raw: Any, loc: str) -> tuple[ir.AggItem, ...] | None:
        if not isinstance(raw, (list, tuple)):
            self.err("payload_type", loc, "aggregations must be a list of {\"agg\", \"column\", \"alias\"} objects", raw)
            return None
        out = []
        for i, entry in enumerate(raw):
            item = self.agg_entry(entry, f"{loc}/{i}")
            if item is not None:
                out.append(item)
        return tuple(out) if len(out) == len(raw) else None

    def agg_entry(self, entry: Any, loc: str) -> ir.AggItem | None:
        if not isinstance(entry, _MAP):
            self.err("agg_entry", loc, "each aggregation must be an object", entry)
            return None
        alias = self._alias(entry, loc, keys=("alias", "name"))
        if "expr" in entry:
            expr = self.expr(entry["expr"], f"{loc}/expr")
            return ir.AggItem(expr, alias, loc) if expr is not None else None
        fkey, func = _first(entry, "agg", "func", "function", "fn")
        if fkey is None or not isinstance(func, str):
            self.err("agg_entry", f"{loc}/{fkey or 'agg'}", "an aggregation needs 'agg' (a function name) or 'expr'", func)
            return None
        floc = f"{loc}/{fkey}"
        if func == "python_grouped_udf":
            return self._grouped_udf_entry(entry, loc, alias)
        spec = CATALOG.get(func)
        if spec is None or spec.kind != "aggregate":
            near = [n for n in suggest(func) if CATALOG[n].kind == "aggregate"]
            hint = f"; did you mean {near[0]!r}?" if near else ""
            self.err("unknown_aggregate", floc, f"unknown aggregate function {func!r}{hint}", func)
            return None
        ckey, column = _first(entry, "column", "col", "columns")
        args: list[ir.Expr] = []
        cloc = f"{loc}/{ckey or 'column'}"
        if ckey is None or column is None:
            if spec.name != "count":
                self.err("missing_key", cloc, f"aggregate {func!r} needs a 'column'")
                return None
            args.append(ir.Lit(1, cloc))  # count of rows: count(1), as Spark names it
        elif isinstance(column, str):
            args.append(ir.Lit(1, cloc) if (column == "*" and spec.name == "count") else ir.Col(column, cloc))
        elif isinstance(column, _MAP):
            e = self.expr(column, cloc)
            if e is None:
                return None
            args.append(e)
        else:
            self.err("column_name", cloc, "'column' must be a column name", column)
            return None
        if "ignorenulls" in entry or "ignoreNulls" in entry:
            v = entry.get("ignorenulls", entry.get("ignoreNulls"))
            if not isinstance(v, bool):
                self.err("bool_expected", f"{loc}/ignorenulls", "'ignorenulls' must be true or false", v)
                return None
            if spec.name not in ("first", "last") and v:
                self.err("not_applicable", f"{loc}/ignorenulls", f"'ignorenulls' applies to first/last, not {func!r}")
                return None
            if spec.name in ("first", "last"):
                args.append(ir.Lit(v, f"{loc}/ignorenulls"))
        if entry.get("distinct") is True:
            expr: ir.Expr = ir.Call(spec.name, tuple(args), floc, distinct=True)
        else:
            expr = ir.Call(spec.name, tuple(args), floc)
        ckey2, cast_to = _first(entry, "cast", "cast_type")
        if ckey2 is not None and cast_to is not None:
            t = self.type_arg(cast_to, f"{loc}/{ckey2}")
            if t is None:
                return None
            expr = ir.Cast(expr, t, f"{loc}/{ckey2}")
        return ir.AggItem(expr, alias, loc)

    def _grouped_udf_entry(self, entry: Mapping[str, Any], loc: str, alias: str | None) -> ir.AggItem | None:
        name = entry.get("udf")
        if not isinstance(name, str) or not name:
            self.err("missing_key", f"{loc}/udf", "a python_grouped_udf aggregation needs a 'udf' name", name if "udf" in entry else _MISSING)
            return None
        args = self.expr_list(entry.get("args", []), f"{loc}/args")
        if args is None:
            return None
        return ir.AggItem(ir.UdfCall(name, tuple(args), loc), alias, loc)

    # ---- join / union / crossJoin

    _OTHER_KEYS = ("other_data", "otherData", "other_schema", "otherSchema", "on", "how")

    def _binary_payload(self, loc: str, payload: Any, raw: Mapping[str, Any], op: str) -> tuple[dict[str, Any], dict[str, str]] | None:
        """The payload with op-level keys merged in, and where each key came from."""
        merged: dict[str, Any] = {}
        where: dict[str, str] = {}
        if payload is not None and not isinstance(payload, _MAP):
            self.err("payload_type", f"{loc}/payload", f"{op} needs an object payload", payload)
            return None
        for k in self._OTHER_KEYS:
            if k in raw:
                merged[k], where[k] = raw[k], f"{loc}/{k}"
        for k, v in (payload or {}).items():
            merged[k], where[k] = v, f"{loc}/payload/{k}"
        return merged, where

    def _right_side(self, merged: Mapping[str, Any], where: Mapping[str, str], loc: str, op: str) -> ir.Plan | None:
        dkey, rows = _first(merged, "other_data", "otherData")
        skey, schema = _first(merged, "other_schema", "otherSchema")
        if dkey is None:
            self.err("missing_key", f"{loc}/payload/other_data", f"{op} needs 'other_data' (the right side's rows)")
        if skey is None:
            self.err("missing_key", f"{loc}/payload/other_schema", f"{op} needs 'other_schema' (the right side's schema)")
        if dkey is None or skey is None:
            return None
        assert dkey is not None and skey is not None
        source = self.inline(rows, schema, where[dkey], where[skey])
        if source is None:
            return None
        return ir.Plan(source, (), where[dkey])

    def _join(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        got = self._binary_payload(loc, payload, raw, op)
        if got is None:
            return None
        merged, where = got
        right = self._right_side(merged, where, loc, op)
        how_raw = merged.get("how", "inner")
        how = _JOIN_TYPES.get(how_raw.lower().replace(" ", "")) if isinstance(how_raw, str) else None
        if how is None:
            self.err("join_type", where.get("how", f"{loc}/payload/how"), f"unknown join type {how_raw!r} (expected one of {', '.join(sorted(_JOIN_TYPES))})", how_raw)
        on_key = "on" if "on" in merged else None
        keys: list[str] = []
        conds: list[ir.Expr] = []
        if on_key is None or merged["on"] is None:
            if how != "cross":
                self.err("missing_key", f"{loc}/payload/on", "join needs 'on' (key names or a condition); use crossJoin for a Cartesian product")
        else:
            self._join_on(merged["on"], where["on"], keys, conds)
        if right is None or how is None or (len(self.errors) and self._has_errors_under(loc)):
            return None
        cond: ir.Expr | None = None
        if conds:
            cond = conds[0] if len(conds) == 1 else ir.Call("and", tuple(conds), where["on"])
        return ir.Join(index, op, loc, right, how, tuple(keys), cond)

    def _has_errors_under(self, loc: str) -> bool:
        return any(d.loc == loc or d.loc.startswith(loc + "/") for d in self.errors)

    def _join_on(self, on: Any, loc: str, keys: list[str], conds: list[ir.Expr]) -> None:
        if isinstance(on, str):
            if "(" in on or "=" in on:
                self.err("join_on", loc, "'on' strings are column names; write a condition as an expression object (SQL text is never parsed)", on)
                return
            keys.append(on)
            return
        items = on if isinstance(on, (list, tuple)) else [on]
        if isinstance(on, (list, tuple)) and not on:
            self.err("empty", loc, "join needs at least one key column in 'on'")
            return
        for i, item in enumerate(items):
            iloc = f"{loc}/{i}" if isinstance(on, (list, tuple)) else loc
            if isinstance(item, str):
                keys.append(item)
                continue
            if isinstance(item, _MAP):
                same = _same_name_equality(item)
                if same is not None:
                    keys.append(same)
                    continue
                if set(item) <= {"col", "column", "type", "name"} and any(k in item for k in ("col", "column")):
                    name = self.column_name(item, iloc, keys=("col", "column"))
                    if name is not None:
                        keys.append(name)
                    continue
                e = self.expr(_normalise_eq(item), iloc)
                if e is not None:
                    conds.append(e)
                continue
            self.err("join_on", iloc, "join 'on' items must be column names or condition objects", item)

    def _union(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        got = self._binary_payload(loc, payload, raw, op)
        if got is None:
            return None
        merged, where = got
        right = self._right_side(merged, where, loc, op)
        if right is None:
            return None
        by_name = op == "unionByName"
        allow = True
        if by_name and "allowMissingColumns" in merged:
            allow = bool(merged["allowMissingColumns"])
        return ir.SetOp(index, op, loc, right, "union", by_name, by_name and allow)

    def _cross_join(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        got = self._binary_payload(loc, payload, raw, op)
        if got is None:
            return None
        merged, where = got
        right = self._right_side(merged, where, loc, op)
        return ir.CrossJoin(index, op, loc, right) if right is not None else None

    # ---------------------------------------------------------------- expressions

    def type_arg(self, raw: Any, loc: str) -> Any:
        if isinstance(raw, _MAP) and "lit" in raw:
            raw, loc = raw["lit"], f"{loc}/lit"
        if not isinstance(raw, str):
            self.err("type_expected", loc, "expected a type name string such as 'int' or 'decimal(10,2)'", raw)
            return None
        try:
            return parse_type(raw)
        except TypeParseError as exc:
            self.err("unknown_type", loc, str(exc), raw)
            return None

    def expr_list(self, raw: Any, loc: str, depth: int = 0) -> list[ir.Expr] | None:
        if not isinstance(raw, (list, tuple)):
            self.err("args_type", loc, "'args' must be a list", raw)
            return None
        out = [self.expr(a, f"{loc}/{i}", depth + 1) for i, a in enumerate(raw)]
        if any(e is None for e in out):
            return None
        return [e for e in out if e is not None]

    def expr(self, raw: Any, loc: str, depth: int = 0) -> ir.Expr | None:
        """Parse one expression (PLAN_FORMAT.md §3.1 order); None after recording errors."""
        if depth > MAX_EXPR_DEPTH:
            self.err("too_deep", loc, f"expression nested more than {MAX_EXPR_DEPTH} levels deep")
            return None
        if type(raw) is dict:
            # fast paths for the commonest shapes; same results as the general rules below
            if len(raw) == 1:
                if "lit" in raw:
                    return self.literal(raw["lit"], f"{loc}/lit")
                name = raw.get("col")
                if type(name) is str:
                    return self.column_ref(name, f"{loc}/col")
            elif "col" not in raw and "column" not in raw and "lit" not in raw:
                if type(raw.get("op")) is str:
                    return self.op_expr(raw, loc, depth)
                name = raw.get("fn")
                if type(name) is str and "udf" not in raw and "window" not in raw:
                    return self.call(raw, name, loc, depth)
        if isinstance(raw, str):
            return self.column_ref(raw, loc)
        if raw is None or isinstance(raw, (bool, int, float)):
            return self.literal(raw, loc)
        if not isinstance(raw, _MAP):
            what = "arrays are not expressions (use {\"fn\": \"array\", \"args\": [...]})" if isinstance(raw, (list, tuple)) else "expected an expression object"
            self.err("expr_type", loc, what, raw)
            return None
        for key in ("col", "column"):
            if isinstance(raw.get(key), str):
                if len(raw) > 1 and any(k in raw for k in ("fn", "function", "op", "lit")):
                    break
                return self.column_ref(raw[key], f"{loc}/{key}", side=self._side(raw, loc))
        if "lit" in raw:
            return self.literal(raw["lit"], f"{loc}/lit", type_raw=raw.get("type") if "type" in raw and raw.get("type") not in ("literal", "lit") else None, type_loc=f"{loc}/type")
        if isinstance(raw.get("op"), str):
            return self.op_expr(raw, loc, depth)
        if isinstance(raw.get("udf"), str):
            return self.udf_expr(raw, raw["udf"], loc, depth)
        fkey, name = _first(raw, "fn", "function")
        if fkey is not None:
            if not isinstance(name, str):
                self.err("fn_name", f"{loc}/{fkey}", "a function name must be a string", name)
                return None
            if "window" in raw:
                return self.window_expr(raw, name, loc, depth)
            return self.call(raw, name, loc, depth)
        t = raw.get("type")
        if t == "column" and isinstance(raw.get("name"), str):
            return self.column_ref(raw["name"], f"{loc}/name")
        if t in ("literal", "lit") and "value" in raw:
            return self.literal(raw["value"], f"{loc}/value")
        if "col" in raw or "column" in raw:
            key = "col" if "col" in raw else "column"
            self.err("column_name", f"{loc}/{key}", "a column name must be a string", raw[key])
            return None
        self.err("expr_form", loc, "an expression object needs one of 'col', 'lit', 'op', 'fn', 'udf' (or a window 'type')", raw)
        return None

    def _side(self, raw: Mapping[str, Any], loc: str) -> str | None:
        side = raw.get("side")
        if side is None:
            return None
        if side not in ("left", "right"):
            self.err("column_side", f"{loc}/side", "'side' must be 'left' or 'right'", side)
            return None
        return str(side)

    def column_ref(self, name: str, loc: str, side: str | None = None) -> ir.Expr | None:
        if not name:
            self.err("column_name", loc, "a column name must not be empty", name)
            return None
        if name == "*":
            return ir.Star(loc)
        return ir.Col(name, loc, side)

    def literal(self, value: Any, loc: str, type_raw: Any = None, type_loc: str = "") -> ir.Expr | None:
        t = None
        if type_raw is not None:
            t = self.type_arg(type_raw, type_loc)
            if t is None:
                return None
        if value is None or isinstance(value, (bool, str)):
            return ir.Lit(value, loc, t)
        if isinstance(value, int):
            if not -(10**38) < value < 10**38:
                self.err("literal_range", loc, "integer literal too large (more than 38 digits)", value)
                return None
            return ir.Lit(value, loc, t)
        if isinstance(value, float):
            return ir.Lit(value, loc, t)
        self.err("literal_type", loc, "a literal must be null, a boolean, a number or a string (build arrays with the 'array' function)", value)
        return None

    # ---- {"op": ...}

    def op_expr(self, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
        op = raw["op"]
        if op in ("and", "or"):
            return self._logical_chain(raw, loc, depth)
        if "args" in raw and op in _ARGS_OPS:
            return self.call(raw, _ARGS_OPS[op], loc, depth, args_key="args", fn_key="op")
        if op in _BINARY_OPS:
            left, right = self._operands(raw, loc, depth, op)
            if left is None or right is None:
                return None
            fn_name = _BINARY_OPS[op]
            if fn_name == "!=":
                return ir.Call("not", (ir.Call("==", (left, right), loc),), loc)
            return ir.Call(fn_name, (left, right), loc)
        if op in _UNARY_OPS:
            key, arg = _first(raw, "arg", "expr", "left")
            if key is None:
                if isinstance(raw.get("args"), list) and len(raw["args"]) == 1:
                    key, arg = "args/0", raw["args"][0]
                else:
                    self.err("missing_key", f"{loc}/arg", f"op {op!r} needs 'arg'")
                    return None
            a = self.expr(arg, f"{loc}/{key}", depth + 1)
            return ir.Call(_UNARY_OPS[op], (a,), loc) if a is not None else None
        if op == "between":
            left = self._operand(raw, ("left", "expr", "arg"), loc, depth, op)
            lo = self._operand(raw, ("lower", "lowerBound", "low"), loc, depth, op)
            hi = self._operand(raw, ("upper", "upperBound", "high"), loc, depth, op)
            if left is None or lo is None or hi is None:
                return None
            return ir.Call("between", (left, lo, hi), loc)
        if op == "isin":
            return self._isin_op(raw, loc, depth)
        if op == "getItem":
            left = self._operand(raw, ("left",), loc, depth, op)
            rkey, rraw = _first(raw, "right", "key", "index")
            if rkey is None:
                self.err("missing_key", f"{loc}/right", "getItem needs 'right' (the index or key)")
                return None
            key = self._literal_or_expr(rraw, f"{loc}/{rkey}", depth)
            if left is None or key is None:
                return None
            return ir.ExtractValue(left, key, loc)
        if op == "startswith":
            left = self._operand(raw, ("left",), loc, depth, op)
            rkey, rraw = _first(raw, "right", "prefix")
            if rkey is None:
                self.err("missing_key", f"{loc}/right", "startswith needs 'right' (the prefix)")
                return None
            prefix = self._literal_or_expr(rraw, f"{loc}/{rkey}", depth)
            if left is None or prefix is None:
                return None
            return ir.Call("startswith", (left, prefix), loc)
        if op in ("regexp_extract", "regexp_replace"):
            return self._regexp_op(raw, op, loc, depth)
        if op == "udf":
            key, name = _first(raw, "udf", "name")
            if not isinstance(name, str) or not name:
                self.err("missing_key", f"{loc}/udf", "a udf op needs a 'udf' (or 'name') string", name)
                return None
            return self.udf_expr(raw, name, loc, depth)
        if op in _ARGS_OPS:
            self.err("missing_key", f"{loc}/args", f"op {op!r} needs an 'args' list")
            return None
        hint = ""
        if op in CATALOG:
            hint = f"; {op!r} is a function: write {{\"fn\": {op!r}, \"args\": [...]}}"
        else:
            near = difflib.get_close_matches(op, sorted(_EXPR_OPS), n=1, cutoff=0.6)
            if near:
                hint = f"; did you mean {near[0]!r}?"
        self.err("unknown_expr_op", f"{loc}/op", f"unsupported expression op {op!r}{hint}", op)
        return None

    def _logical_chain(self, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
        """``and``/``or`` with the left spine walked iteratively, flattened to one n-ary call."""
        op = raw["op"]
        operands: list[ir.Expr | None] = []
        pending: list[tuple[Any, str]] = []
        node, nloc = raw, loc
        spine = 0
        while True:
            if "args" in node and isinstance(node["args"], list) and "left" not in node:
                if len(node["args"]) < 2:
                    self.err("arity", f"{nloc}/args", f"op {op!r} needs at least two operands")
                    return None
                for i, a in reversed(list(enumerate(node["args"]))):
                    pending.append((a, f"{nloc}/args/{i}"))
                break
            if "left" not in node or "right" not in node:
                self.err("missing_key", nloc, f"op {op!r} needs 'left' and 'right'")
                return None
            pending.append((node["right"], f"{nloc}/right"))
            left = node["left"]
            if isinstance(left, _MAP) and left.get("op") == op and spine < MAX_STEPS:
                node, nloc = left, f"{nloc}/left"
                spine += 1
                continue
            pending.append((left, f"{nloc}/left"))
            break
        for item, iloc in reversed(pending):
            operands.append(self.expr(item, iloc, depth + 1))
        if any(o is None for o in operands):
            return None
        flat: list[ir.Expr] = []
        for o in operands:
            assert o is not None
            if isinstance(o, ir.Call) and o.fn == op:
                flat.extend(o.args)
            else:
                flat.append(o)
        return ir.Call(op, tuple(flat), loc)

    def _operand(self, raw: Mapping[str, Any], keys: tuple[str, ...], loc: str, depth: int, op: str) -> ir.Expr | None:
        key, val = _first(raw, *keys)
        if key is None:
            self.err("missing_key", f"{loc}/{keys[0]}", f"op {op!r} needs '{keys[0]}'")
            return None
        return self.expr(val, f"{loc}/{key}", depth + 1)

    def _operands(self, raw: Mapping[str, Any], loc: str, depth: int, op: str) -> tuple[ir.Expr | None, ir.Expr | None]:
        if "left" not in raw and isinstance(raw.get("args"), list) and len(raw["args"]) == 2:
            return (self.expr(raw["args"][0], f"{loc}/args/0", depth + 1), self.expr(raw["args"][1], f"{loc}/args/1", depth + 1))
        left = self._operand(raw, ("left",), loc, depth, op)
        right = self._operand(raw, ("right",), loc, depth, op)
        return left, right

    def _literal_or_expr(self, raw: Any, loc: str, depth: int) -> ir.Expr | None:
        """A literal slot: bare scalars (strings included) are literals; objects are expressions."""
        if raw is None or isinstance(raw, (bool, int, float, str)):
            return self.literal(raw, loc)
        return self.expr(raw, loc, depth + 1)

    def _isin_op(self, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
        left = self._operand(raw, ("left", "expr", "arg"), loc, depth, "isin")
        vkey, values = _first(raw, "values", "right")
        if vkey is None:
            self.err("missing_key", f"{loc}/values", "isin needs 'values' (a list)")
            return None
        vloc = f"{loc}/{vkey}"
        if isinstance(values, _MAP) and "lit" in values:
            values, vloc = values["lit"], f"{vloc}/lit"
        if not isinstance(values, (list, tuple)):
            values = [values]
            single = True
        else:
            single = False
        items: list[ir.Expr] = []
        for i, v in enumerate(values):
            e = self._literal_or_expr(v, vloc if single else f"{vloc}/{i}", depth)
            if e is None:
                return None
            items.append(e)
        if left is None:
            return None
        return ir.Call("in", (left, *items), loc)

    def _regexp_op(self, raw: Mapping[str, Any], op: str, loc: str, depth: int) -> ir.Expr | None:
        left = self._operand(raw, ("left", "expr"), loc, depth, op)
        pkey, pattern = _first(raw, "pattern", "right")
        if pkey is None:
            self.err("missing_key", f"{loc}/pattern", f"{op} needs 'pattern'")
            return None
        pat = self._literal_or_expr(pattern, f"{loc}/{pkey}", depth)
        if op == "regexp_extract":
            gkey, group = _first(raw, "group", "idx")
            g = self._literal_or_expr(group if gkey else 0, f"{loc}/{gkey or 'group'}", depth)
            if left is None or pat is None or g is None:
                return None
            return ir.Call("regexp_extract", (left, pat, g), loc)
        rkey, repl = _first(raw, "replacement", "replace")
        if rkey is None:
            self.err("missing_key", f"{loc}/replacement", "regexp_replace needs 'replacement'")
            return None
        r = self._literal_or_expr(repl, f"{loc}/{rkey}", depth)
        if left is None or pat is None or r is None:
            return None
        return ir.Call("regexp_replace", (left, pat, r), loc)

    # ---- {"fn": ...}

    def call(self, raw: Mapping[str, Any], name: str, loc: str, depth: int, args_key: str = "args", fn_key: str = "fn") -> ir.Expr | None:
        spec = CATALOG.get(name)
        if spec is None:
            near = suggest(name)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            fkey = fn_key if fn_key in raw else "function"
            self.err("unknown_function", f"{loc}/{fkey}", f"unknown function {name!r}{hint}", name)
            return None
        if spec.kind == "window":
            self.err("window_required", loc, f"{name!r} is a window function: give it a 'window' spec")
            return None
        akey = args_key
        raw_args = raw.get(akey, _MISSING)
        if raw_args is _MISSING:
            if spec.min_args == 0:
                raw_args = []
            else:
                self.err("missing_key", f"{loc}/{akey}", f"function {name!r} needs an 'args' list ({spec.arity_text()})")
                return None
        if not isinstance(raw_args, (list, tuple)):
            self.err("args_type", f"{loc}/{akey}", f"'args' of {name!r} must be a list", raw_args)
            return None
        n = len(raw_args)
        if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
            self.err("arity", f"{loc}/{akey}", f"function {name!r} takes {spec.arity_text()}, got {n}", list(raw_args))
            return None
        args: list[ir.Expr] = []
        ok = True
        params = spec.params if spec.max_args is not None else None  # fixed slots: argument i fills slot i
        for i, a in enumerate(raw_args):
            param = params[i] if params is not None else spec.param_for(i, n)
            if param.code == "e":
                e = self.expr(a, f"{loc}/{akey}/{i}", depth + 1)
            else:
                e = self.argument(a, param, f"{loc}/{akey}/{i}", depth, spec)
            if e is None:
                ok = False
            else:
                args.append(e)
        if not ok:
            return None
        distinct = raw.get("distinct") is True or raw.get("isDistinct") is True
        desugar = _DESUGAR.get(spec.special or "")
        if desugar is not None:
            return desugar(self, spec, args, loc)
        return ir.Call(spec.name, tuple(args), loc, distinct=distinct)

    def argument(self, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
        if param.code == "e":
            return self.expr(raw, loc, depth + 1)
        if param.code == "T":
            t = self.type_arg(raw, loc)
            return ir.Lit(raw["lit"] if isinstance(raw, _MAP) else raw, loc, t) if t is not None else None
        # literal slot: bare values (and {"lit"}) are checked against the slot's kind;
        # other expression objects pass through for Spark to type-check
        value, vloc = raw, loc
        if isinstance(raw, _MAP):
            if "lit" not in raw:
                return self.expr(raw, loc, depth + 1)
            value, vloc = raw["lit"], f"{loc}/lit"
        if value is None:
            return ir.Lit(None, vloc)
        problem = _check_literal(param.code, value)
        if problem:
            what = f" ({param.name})" if param.name else ""
            self.err("literal_expected", vloc, f"argument{what} of {spec.name!r} must be {problem}", value)
            return None
        return self.literal(value, vloc)

    def udf_expr(self, raw: Mapping[str, Any], name: str, loc: str, depth: int) -> ir.Expr | None:
        args = self.expr_list(raw.get("args", []), f"{loc}/args", depth)
        if args is None:
            return None
        return ir.UdfCall(name, tuple(args), loc)

    def window_expr(self, raw: Mapping[str, Any], name: str, loc: str, depth: int) -> ir.Expr | None:
        self.err("unsupported", f"{loc}/window", "window expressions are not supported yet")
        return None


_SORT_KEYS = {"asc", "ascending", "desc", "descending", "nulls_first", "nulls_last", "nullsFirst", "nullsLast", "direction"}


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


def _all_encodable(raw: Any) -> bool:
    """True when every string and key in ``raw`` (plain JSON containers) is valid UTF-8;
    False also for anything else, which then gets the located walk."""
    stack = [raw]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is str:
            if not node.isascii() and not _encodable(node):
                return False
        elif kind is dict:
            for key in node:
                if type(key) is str and not key.isascii() and not _encodable(key):
                    return False
            extend(node.values())
        elif kind is list or kind is tuple:
            extend(node)
        elif isinstance(node, (str, Mapping, list, tuple)):  # subclasses: the located walk decides
            return False
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _split_args(inner: str) -> list[str]:
    """Split ``a, 'x, y', b`` on top-level commas, respecting quotes."""
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    for ch in inner:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch == ",":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    if len(parts) == 1 and not parts[0].strip():
        return []
    return parts


def _same_name_equality(item: Mapping[str, Any]) -> str | None:
    """``{"op": "eq"|"==", "left": {"col": x}, "right": {"col": x}}`` → x (a key join)."""
    op = item.get("op", item.get("operator"))
    if op not in ("eq", "=="):
        return None
    left, right = item.get("left"), item.get("right")

    def name(v: Any) -> str | None:
        if isinstance(v, _MAP) and "side" not in v:
            n = v.get("col", v.get("column"))
            return n if isinstance(n, str) else None
        return None

    ln, rn = name(left), name(right)
    if ln is not None and rn is not None and ln.lower() == rn.lower():
        return ln
    return None


def _normalise_eq(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """Join conditions may spell equality ``"=="`` and use ``operator``; normalise to ``op``."""
    if "operator" in item and "op" not in item:
        item = {**{k: v for k, v in item.items() if k != "operator"}, "op": item["operator"]}
    return item


@functools.lru_cache(maxsize=256)
def _spark_readable_schema(schema: Any) -> Any:
    """``schema`` with each type replaced by the Arrow type Spark reads for its Spark type,
    or None when nothing changes; cached, as inputs repeat their schemas."""
    import pyarrow as pa

    from .types import arrow_type, from_arrow

    target = pa.schema([pa.field(f.name, arrow_type(from_arrow(f.type))) for f in schema])
    return None if target.types == schema.types else target


def is_table_input(rows: Any) -> bool:
    """Whether ``rows`` is a pyarrow Table/RecordBatch or a pandas DataFrame (no conversion)."""
    mod = type(rows).__module__
    if mod.startswith("pyarrow"):
        import pyarrow as pa

        return isinstance(rows, (pa.Table, pa.RecordBatch))
    return mod.startswith("pandas") and type(rows).__name__ == "DataFrame"


def _arrow_input(rows: Any) -> Any:
    """A pyarrow Table/RecordBatch (or pandas DataFrame) given as data, else None."""
    mod = type(rows).__module__
    if mod.startswith("pyarrow"):
        import pyarrow as pa

        if isinstance(rows, pa.RecordBatch):
            return pa.Table.from_batches([rows])
        if isinstance(rows, pa.Table):
            return rows
    if mod.startswith("pandas") and type(rows).__name__ == "DataFrame":
        import pyarrow as pa

        return pa.Table.from_pandas(rows, preserve_index=False)
    return None


# ---------------------------------------------------------------- desugaring of special forms


def _desugar_cast(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    target = args[1]
    assert isinstance(target, ir.Lit) and target.type is not None
    mode = "try" if spec.name == "try_cast" else "cast"
    return ir.Cast(args[0], target.type, loc, mode)


def _desugar_when(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    pairs = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
    otherwise = args[-1] if len(args) % 2 == 1 else None
    return ir.When(tuple(pairs), otherwise, loc)


def _desugar_not_equal(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    return ir.Call("not", (ir.Call("==", tuple(args), loc),), loc)


_DESUGAR: dict[str, Callable[[Parser, FunctionSpec, list[ir.Expr], str], ir.Expr | None]] = {
    "cast": _desugar_cast,
    "when": _desugar_when,
    "not_equal": _desugar_not_equal,
}

OPS: dict[str, Callable[..., ir.Step | None]] = {
    "filter": Parser._filter,
    "select": Parser._select,
    "withColumn": Parser._with_column,
    "withColumnRenamed": Parser._rename,
    "drop": Parser._drop,
    "distinct": Parser._distinct,
    "limit": Parser._limit,
    "offset": Parser._offset,
    "orderBy": Parser._order_by,
    "groupBy": Parser._group,
    "rollup": Parser._group,
    "cube": Parser._group,
    "agg": Parser._agg,
    "join": Parser._join,
    "union": Parser._union,
    "unionByName": Parser._union,
    "crossJoin": Parser._cross_join,
    "cross_join": Parser._cross_join,
    "stop": Parser._stop,
}

# ---------------------------------------------------------------- public entry points


def load_json(text: str | bytes) -> Any:
    """Parse plan JSON text; invalid or absurdly nested JSON is a PlanError, never a crash."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PlanError.single("json_encoding", "", f"plan JSON is not valid UTF-8: {exc}") from None
    if len(text) > MAX_JSON_CHARS:
        raise PlanError.single("json_too_large", "", f"plan JSON longer than {MAX_JSON_CHARS} characters")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise PlanError.single("json_too_deep", "", "plan JSON is nested too deeply to parse") from None
    except json.JSONDecodeError as exc:
        raise PlanError.single("json_syntax", "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:
        raise PlanError.single("json_syntax", "", f"invalid JSON: {exc}") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (use null or a string)")


def parse_plan(rows: Any, schema: Any, plan: Any) -> ir.Plan:
    """Parse robin-sparkless-style arguments (rows, schema, plan) into IR.

    Locations are reported as in a plan document: ``/input/rows/...``, ``/input/schema/...``,
    ``/plan/...``.
    """
    p = Parser()
    result = p.plan(rows, schema, plan, "/input/rows", "/input/schema", "/plan")
    p.raise_if_errors()
    assert result is not None
    return result


def parse_document(doc: Any) -> ir.Plan:
    """Parse a plan document (``{"input": ..., "plan": [...]}``, a dict or JSON text)."""
    if isinstance(doc, (str, bytes)):
        doc = load_json(doc)
    p = Parser()
    result = p.document(doc)
    p.raise_if_errors()
    assert result is not None
    return result


__all__ += ["Parser", "is_table_input"]
