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
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from . import ir
from .data import Field, rows_to_arrow
from .errors import _MISSING, ErrorDetail, PlanError
from .functions import CATALOG, PARSER_SPECIALS, SORT_FUNCTIONS, FunctionSpec, Param, parse_signature, suggest
from .limits import CHEAP_WALK_NODES, MAX_EXPR_DEPTH, MAX_JSON_CHARS, MAX_PLAN_NESTING, MAX_STEPS
from .shapes import cycle_location, encodable, plain_tree_encodable, shape, shape_problem
from .types import TypeParseError, incomplete, parse_type

__all__ = [
    "MAX_EXPR_DEPTH",
    "MAX_STEPS",
    "OPS",
    "load_json",
    "parse_document",
    "parse_plan",
]

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
    set(_BINARY_OPS)
    | set(_UNARY_OPS)
    | set(_ARGS_OPS)
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
        #: lambda parameters in scope while parsing a lambda body (innermost last)
        self._lambda_scopes: list[dict[str, str]] = []
        #: ``with`` definitions by name; nested documents by their canonical JSON
        self._named: dict[str, ir.SharedPlan] = {}
        self._nested_cache: dict[str, ir.SharedPlan] = {}
        self._nesting = 0
        #: > 0 while parsing a join condition, the only place a column may name its 'side'
        self._join_condition = 0

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
        if _is_extended_document(doc):
            checked = {k: v for k, v in doc.items() if k != "input"}
            inp = doc.get("input")
            if isinstance(inp, Mapping):  # inline rows are checked value by value when converted
                checked["input"] = {k: v for k, v in inp.items() if k not in ("rows", "data")}
            if not self.valid_unicode(checked, loc):
                return None
            return self.extended_document(doc, loc)
        inp = doc.get("input")
        steps_raw = doc.get("plan", _MISSING)
        if steps_raw is _MISSING:
            self.err("missing_key", f"{loc}/plan", "a plan document needs a 'plan' array")
            steps_raw = []
        if not isinstance(inp, _MAP):
            self.err(
                "missing_key",
                f"{loc}/input",
                "a plan document needs an 'input' object with 'schema' and 'rows'",
                inp if inp is not None else _MISSING,
            )
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
        if raw_starts_with_read(steps_raw) and not rows and schema in (None, [], _MISSING):
            steps = self.steps(steps_raw, plan_loc)
            read = _first_step(steps)
            if not isinstance(read, ir.Read):
                return None
            return self.finish(read.source, steps, plan_loc, allow_read_first=True)
        source = self.inline(rows, schema, rows_loc, schema_loc)
        steps = self.steps(steps_raw, plan_loc)
        if source is None:
            return None
        return self.finish(source, steps, plan_loc)

    def valid_unicode(self, raw: Any, loc: str) -> bool:
        """Every string (and object key) must be encodable as UTF-8: protobuf and Arrow
        reject lone surrogates, so they are located here instead of failing later. Plans
        given as Python objects must also be trees of bounded size (see :func:`~connect_plan.shapes.shape`)."""
        if plain_tree_encodable(raw, CHEAP_WALK_NODES):  # the usual case: one cheap walk
            return True
        all_encodable, expanded, distinct = shape(raw)
        problem = shape_problem(expanded, distinct, "a plan", "this part of the plan")
        if problem is not None:
            code, message = problem
            self.err(code, cycle_location(raw, loc) if code == "cyclic_plan" else loc, message)
            return False
        if all_encodable:  # the usual case, checked without building locations
            return True
        ok = True
        stack: list[tuple[Any, str]] = [(raw, loc)]
        seen = 0
        while stack and seen < 1_000_000:
            node, at = stack.pop()
            seen += 1
            if isinstance(node, str):
                if not node.isascii() and not encodable(node):
                    self.err(
                        "invalid_unicode",
                        at,
                        "text contains characters that are not valid Unicode (lone surrogates)",
                        node,
                    )
                    ok = False
            elif isinstance(node, Mapping):
                for k, v in node.items():
                    if isinstance(k, str) and not k.isascii() and not encodable(k):
                        self.err("invalid_unicode", at, "an object key is not valid Unicode (lone surrogates)", k)
                        ok = False
                    stack.append((v, f"{at}/{k}"))
            elif isinstance(node, (list, tuple)):
                stack.extend((v, f"{at}/{i}") for i, v in enumerate(node))
        return ok

    def schema(self, raw: Any, loc: str, *, bare_array: bool = False) -> list[Field] | None:
        """Schema fields; ``bare_array``: a top-level bare ``array`` column is allowed (inline
        rows infer its element type)."""
        if isinstance(raw, _MAP) and isinstance(raw.get("fields"), list):
            raw, loc = raw["fields"], f"{loc}/fields"  # Spark's StructType JSON
        if not isinstance(raw, (list, tuple)):
            self.err(
                "schema_type", loc, 'a schema must be a list of {"name", "type"} objects or [name, type] pairs', raw
            )
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
                self.err("schema_field", at, 'a schema field must be {"name", "type"} or a [name, type] pair', item)
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
            problem = incomplete(t, bare_array=bare_array)
            if problem is not None:
                self.err("incomplete_type", f"{at}/type", f"field {name!r}: {problem}", tval)
                ok = False
                continue
            if name.lower() in seen:
                self.err(
                    "duplicate_column",
                    at,
                    f"column name {name!r} appears twice in the schema (names are case-insensitive)",
                    name,
                )
                ok = False
                continue
            seen[name.lower()] = i
            fields.append(Field(name, t, at))
        return fields if ok else None

    def inline(self, rows: Any, schema: Any, rows_loc: str, schema_loc: str) -> ir.InlineData | None:
        if is_table_input(rows):
            table = self.arrow_input(rows, rows_loc)
            if table is None:
                return None
            return self._arrow_source(table, schema, rows_loc, schema_loc)
        fields = self.schema(schema, schema_loc, bare_array=True)
        if fields is None:
            return None
        if not isinstance(rows, (list, tuple)):
            self.err(
                "rows_type",
                rows_loc,
                "rows must be a list of lists (schema order) or of objects keyed by column name",
                rows,
            )
            return None
        table = rows_to_arrow(rows, fields, rows_loc, self.errors)
        return ir.InlineData(table, rows_loc)

    def arrow_input(self, rows: Any, rows_loc: str) -> Any:
        """A pyarrow Table/RecordBatch or pandas DataFrame given as data → a pyarrow Table,
        or None after recording located errors (``{rows_loc}/columns/{i}``). Column names
        follow the inline schema's rules: non-empty and unique case-insensitively."""
        import pyarrow as pa

        if isinstance(rows, pa.RecordBatch):
            table = pa.Table.from_batches([rows])
        elif isinstance(rows, pa.Table):
            table = rows
        else:
            table = self._from_pandas(rows, rows_loc)
            if table is None:
                return None
        seen: dict[str, int] = {}
        ok = True
        for i, name in enumerate(table.column_names):
            at = f"{rows_loc}/columns/{i}"
            if not name:
                self.err("column_name", at, "an input column needs a non-empty name", name)
                ok = False
            elif name.lower() in seen:
                self.err(
                    "duplicate_column",
                    at,
                    f"column name {name!r} appears twice in the input (names are case-insensitive; the first is column {seen[name.lower()]})",
                    name,
                )
                ok = False
            else:
                seen[name.lower()] = i
        return table if ok else None

    def _from_pandas(self, df: Any, rows_loc: str) -> Any:
        """pandas → Arrow, each column that pyarrow cannot convert located by name (mixed
        object columns, complex numbers, sparse data ...)."""
        import pyarrow as pa

        names = [str(c) for c in df.columns]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            for i, n in enumerate(names):
                if n in dupes and names.index(n) != i:
                    self.err(
                        "duplicate_column",
                        f"{rows_loc}/columns/{i}",
                        f"column name {n!r} appears twice in the DataFrame",
                        n,
                    )
            return None
        try:
            return pa.Table.from_pandas(df, preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            pass  # find the column(s) at fault
        found = False
        for i, name in enumerate(names):
            try:
                pa.Table.from_pandas(df.iloc[:, [i]], preserve_index=False)
            except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
                found = True
                dtype = str(df.dtypes.iloc[i])
                self.err(
                    "unsupported_column",
                    f"{rows_loc}/columns/{i}",
                    f"column {name!r} ({dtype}) cannot be converted to Arrow: {_arrow_reason(exc)}",
                    dtype,
                )
        if not found:
            self.err("unsupported_column", rows_loc, "the DataFrame cannot be converted to Arrow")
        return None

    def _arrow_source(self, table: Any, schema: Any, rows_loc: str, schema_loc: str) -> ir.InlineData | None:
        if schema is not None and schema != [] and schema is not _MISSING:
            fields = self.schema(schema, schema_loc)
            if fields is None:
                return None
            if [f.name for f in fields] != table.column_names:
                self.err(
                    "schema_mismatch",
                    schema_loc,
                    f"the schema names {[f.name for f in fields]} differ from the Arrow columns {table.column_names}",
                )
                return None
            import pyarrow as pa

            from .types import arrow_type

            try:
                target = pa.schema([pa.field(f.name, arrow_type(f.type)) for f in fields])
                if table.schema.types != target.types:  # casting to the same types still costs ~5 µs a column
                    table = table.cast(target)
            except (pa.ArrowException, TypeParseError, ValueError, TypeError) as exc:
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
            except (pa.ArrowException, ValueError, TypeError) as exc:
                self.err(
                    "unsupported_type", rows_loc, f"the Arrow data cannot be converted to Spark's types {target}: {exc}"
                )
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
            self.err("step_type", loc, 'each plan step must be a JSON object {"op": ..., "payload": ...}', raw)
            return None
        op = raw.get("op")
        if not isinstance(op, str):
            self.err("step_op", f"{loc}/op", "each plan step needs an 'op' string", op if "op" in raw else _MISSING)
            return None
        handler = OPS.get(op)
        if handler is None:
            close = difflib.get_close_matches(op, list(OPS), n=1, cutoff=0.6)
            hint = _NOT_OPS_HINTS.get(op) or (close[0] if close else None)
            extra = f"; did you mean {hint!r}?" if hint else ""
            self.err(
                "unknown_op", f"{loc}/op", f"unsupported op {op!r}{extra} (supported: {', '.join(sorted(OPS))})", op
            )
            return None
        payload = raw.get("payload")
        return handler(self, op, index, loc, payload, raw)

    # ---------------------------------------------------------------- op parsers

    def _filter(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        cond = self.expr(payload, f"{loc}/payload")
        if cond is None:
            return None
        for node in ir.walk(cond):
            if isinstance(node, ir.Window):
                self.err(
                    "window_in_filter",
                    node.loc,
                    "window functions are not allowed in a filter (Spark evaluates them after WHERE); compute them with withColumn first, then filter on that column",
                )
                return None
        return ir.Filter(index, op, loc, cond)

    def _select(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        items_raw = payload
        if isinstance(payload, _MAP) and "columns" in payload:
            items_raw, ploc = payload["columns"], f"{ploc}/columns"
        elif isinstance(payload, str):
            items_raw = [payload]
        if not isinstance(items_raw, (list, tuple)):
            self.err(
                "payload_type", ploc, 'select needs a list of columns or expressions (or {"columns": [...]})', payload
            )
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
            self.err(
                "select_item",
                loc,
                'a select item must be a column name, {"name", "expr"}, a column object or an expression',
                item,
            )
            return None
        alias = self._alias(item, loc, keys=("alias",))
        if "expr" in item:
            expr = self.expr(item["expr"], f"{loc}/expr")
            name = self._alias(item, loc, keys=("name", "alias"), multi=True)
            return ir.SelectItem(expr, name, loc) if expr is not None else None
        if any(k in item for k in ("fn", "function", "op", "lit", "udf")) or item.get("type") == "window":
            expr = self.expr(item, loc)
            name = self._alias(item, loc, keys=("alias", "name"), multi=True)
            return ir.SelectItem(expr, name, loc) if expr is not None else None
        self._no_side(item, loc)
        key, name = _first(item, "col", "column", "name")
        if key is None:
            self.err(
                "select_item",
                loc,
                "a select item object needs 'expr', 'col', 'column', 'name' or an expression key ('fn', 'op', 'lit')",
                item,
            )
            return None
        if not isinstance(name, str) or not name:
            self.err("column_name", f"{loc}/{key}", "a column name must be a non-empty string", name)
            return None
        if name == "*":
            return ir.SelectItem(ir.Star(f"{loc}/{key}"), None, loc)
        return ir.SelectItem(ir.Col(name, f"{loc}/{key}"), alias, loc)

    def _alias(self, item: Mapping[str, Any], loc: str, keys: tuple[str, ...], multi: bool = False) -> Any:
        """The output name; with ``multi`` a list of names is allowed too (a generator with
        several output columns, e.g. posexplode → ``["pos", "value"]``)."""
        key, name = _first(item, *keys)
        if key is None or name is None:
            return None
        if multi and isinstance(name, (list, tuple)):
            if not name or not all(isinstance(n, str) and n for n in name):
                self.err("alias", f"{loc}/{key}", "a list of output names must hold non-empty strings", name)
                return None
            return name[0] if len(name) == 1 else tuple(name)
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
            self.err("payload_type", ploc, 'withColumn needs {"name": ..., "expr": ...}', payload)
            return None
        key, name = _first(payload, "name", "alias", "colName")
        if key is None or not isinstance(name, str) or not name:
            self.err(
                "missing_key" if key is None else "column_name",
                f"{ploc}/{key or 'name'}",
                "withColumn needs a non-empty string 'name' (or 'alias')",
                name,
            )
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
            self.err("payload_type", ploc, 'withColumnRenamed needs {"old": ..., "new": ...}', payload)
            return None
        okey, old = _first(payload, "old", "existing")
        nkey, new = _first(payload, "new", "newName")
        ok = True
        for key, val, default in ((okey, old, "old"), (nkey, new, "new")):
            if key is None or not isinstance(val, str) or not val:
                self.err(
                    "missing_key" if key is None else "column_name",
                    f"{ploc}/{key or default}",
                    f"withColumnRenamed needs a non-empty string '{default}'",
                    val,
                )
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
            self.err("payload_type", ploc, 'drop needs {"columns": [names]}', payload)
            return None
        names = [self.column_name(it, f"{ploc}/{i}") for i, it in enumerate(items)]
        if any(n is None for n in names):
            return None
        return ir.Drop(index, op, loc, tuple(n for n in names if n is not None))

    def column_name(self, item: Any, loc: str, keys: tuple[str, ...] = ("col", "column", "name")) -> str | None:
        """A plain column name: a string or ``{"col"|"column"|"name": ...}``."""
        if isinstance(item, _MAP):
            self._no_side(item, loc)
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
            self.err("payload_type", ploc, f'{op} needs {{"columns": [...], "ascending"?: [...]}}', payload)
            return None
        ckey, cols = _first(payload, "columns", "cols")
        if ckey is None:
            self.err("missing_key", f"{ploc}/columns", f"{op} needs a 'columns' list")
            return None
        if isinstance(cols, str):
            cols = [cols]
        if not isinstance(cols, (list, tuple)) or not cols:
            self.err("payload_type", f"{ploc}/{ckey}", f"{op} 'columns' must be a non-empty list", cols)
            return None
        keys = self.sort_keys(cols, payload, f"{ploc}/{ckey}", ploc)
        if keys is None:
            return None
        if not keys:
            self.err("empty", f"{ploc}/{ckey}", f"{op} found no columns to sort by")
            return None
        return ir.OrderBy(index, op, loc, tuple(keys), is_global=op != "sortWithinPartitions")

    def sort_keys(
        self, items: Any, spec: Mapping[str, Any], items_loc: str, spec_loc: str, single: bool = False
    ) -> list[ir.SortKey] | None:
        """Sort items of an orderBy or a window's order_by: names (``"col DESC"``, list
        reprs), objects with direction / null keys, sort functions (``{"fn": "desc"}``),
        with ``ascending`` / ``nulls_first`` / ``nulls_last`` lists beside them in ``spec``."""
        n_errors = len(self.errors)
        # expand items into (expr, explicit ascending, explicit nulls_first, loc)
        entries: list[list[Any]] = []
        for i, item in enumerate(items):
            iloc = items_loc if single else f"{items_loc}/{i}"
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
            self.err("sort_item", iloc, "a sort item must be a column name ('col', 'col DESC') or an object", item)
        ascending = self._bool_list(spec, ("ascending", "asc"), len(entries), spec_loc)
        nulls_first = self._bool_list(spec, ("nulls_first", "nullsFirst"), len(entries), spec_loc)
        nulls_last = self._bool_list(spec, ("nulls_last", "nullsLast"), len(entries), spec_loc)
        keys: list[ir.SortKey] = []
        for i, (expr, asc, nf, iloc) in enumerate(entries):
            if asc is None:
                asc = ascending[i] if ascending and ascending[i] is not None else True
            if nf is None:
                a, b = (nulls_first[i] if nulls_first else None), (nulls_last[i] if nulls_last else None)
                if a is not None and b is not None and a == b:
                    self.err("conflict", spec_loc, f"column {i}: nulls_first and nulls_last disagree")
                nf = a if a is not None else (not b if b is not None else None)
            keys.append(ir.SortKey(expr, asc, nf, iloc))
        if len(self.errors) > n_errors:
            return None
        return keys

    def sort_key(self, item: Mapping[str, Any], loc: str) -> tuple[ir.Expr, bool | None, bool | None, str] | None:
        """An object sort item: a column or expression plus direction / null placement keys."""
        sort_fn = item.get("fn", item.get("function"))
        if isinstance(sort_fn, str) and sort_fn in SORT_FUNCTIONS:
            args = item.get("args")
            if not isinstance(args, (list, tuple)) or len(args) != 1:
                self.err(
                    "arity",
                    f"{loc}/args",
                    f"sort order {sort_fn!r} takes exactly one argument (the column or expression)",
                    args,
                )
                return None
            key_expr = self.expr(args[0], f"{loc}/args/0")
            direction, nulls = SORT_FUNCTIONS[sort_fn]
            return (key_expr, direction, nulls, loc) if key_expr is not None else None
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

    def _bool_list(
        self, payload: Mapping[str, Any], keys: tuple[str, ...], n: int, loc: str
    ) -> list[bool | None] | None:
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
            self.err("payload_type", ploc, f'{op} needs {{"group_by": [...], "aggs": [...]}}', payload)
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
            elif (
                isinstance(g, _MAP)
                and any(k in g for k in ("col", "column", "name"))
                and not any(k in g for k in ("fn", "function", "op"))
            ):
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
            self.err("payload_type", ploc, 'agg needs {"aggs": [...]}', payload)
            return None
        return ir.Agg(index, op, loc, aggs) if aggs is not None else None

    def aggs(self, raw: Any, loc: str) -> tuple[ir.AggItem, ...] | None:
        if not isinstance(raw, (list, tuple)):
            self.err("payload_type", loc, 'aggregations must be a list of {"agg", "column", "alias"} objects', raw)
            return None
        out = []
        for i, entry in enumerate(raw):
            item = self.agg_entry(entry, f"{loc}/{i}")
            if item is not None and isinstance(entry, Mapping) and ("filter" in entry or "where" in entry):
                item = self.filtered_agg(item, entry, f"{loc}/{i}")
            if item is not None:
                out.append(item)
        return tuple(out) if len(out) == len(raw) else None

    def agg_entry(self, entry: Any, loc: str) -> ir.AggItem | None:
        if not isinstance(entry, _MAP):
            self.err("agg_entry", loc, "each aggregation must be an object", entry)
            return None
        alias = self._alias(entry, loc, keys=("alias", "name"))
        if "expr" in entry:
            entry_expr = self.expr(entry["expr"], f"{loc}/expr")
            return ir.AggItem(entry_expr, alias, loc) if entry_expr is not None else None
        fkey, func = _first(entry, "agg", "func", "function", "fn")
        if fkey is None or not isinstance(func, str):
            self.err(
                "agg_entry", f"{loc}/{fkey or 'agg'}", "an aggregation needs 'agg' (a function name) or 'expr'", func
            )
            return None
        floc = f"{loc}/{fkey}"
        if func == "python_grouped_udf":
            return self._grouped_udf_entry(entry, loc, alias)
        spec = CATALOG.get(func)
        if spec is None or spec.kind != "aggregate":
            near = [n for n in suggest(func) if CATALOG[n].kind == "aggregate"]
            hint = f"; did you mean {near[0]!r}?" if near else ""
            what = "is not an aggregate function" if spec is not None else "is not a known aggregate function"
            self.err("unknown_aggregate", floc, f"{func!r} {what}{hint}", func)
            return None
        # arguments: the column(s), then any further 'args', all checked against the row
        raw_args: list[tuple[Any, str]] = []
        ckey, column = _first(entry, "column", "col", "columns", "cols")
        if ckey is not None and column is not None:
            if isinstance(column, (list, tuple)) and ckey in ("columns", "cols"):
                raw_args += [(c, f"{loc}/{ckey}/{i}") for i, c in enumerate(column)]
            elif isinstance(column, (str, Mapping)):
                raw_args.append((column, f"{loc}/{ckey}"))
            else:
                self.err("column_name", f"{loc}/{ckey}", "'column' must be a column name or an expression", column)
                return None
        if "args" in entry:
            extra = entry["args"]
            if not isinstance(extra, (list, tuple)):
                self.err("args_type", f"{loc}/args", "'args' must be a list", extra)
                return None
            raw_args += [(a, f"{loc}/args/{i}") for i, a in enumerate(extra)]
        if not raw_args and spec.name == "count":
            raw_args.append(("*", f"{loc}/column"))  # count of rows: count(1), as Spark names it
        nkey = "ignorenulls" if "ignorenulls" in entry else "ignoreNulls" if "ignoreNulls" in entry else None
        if nkey is not None:
            v = entry[nkey]
            slot = next((i for i, p in enumerate(spec.params) if p.name in ("ignorenulls", "ignore_nulls")), None)
            if not isinstance(v, bool):
                self.err("bool_expected", f"{loc}/{nkey}", f"'{nkey}' must be true or false", v)
                return None
            if slot is None:
                if v:
                    self.err(
                        "not_applicable",
                        f"{loc}/{nkey}",
                        f"'{nkey}' applies to first, last, first_value, last_value and any_value, not {func!r}",
                    )
                    return None
            elif len(raw_args) == slot:
                raw_args.append((v, f"{loc}/{nkey}"))
            else:
                self.err(
                    "conflict",
                    f"{loc}/{nkey}",
                    f"'{nkey}' and the arguments of {func!r} both give the ignore-nulls flag",
                )
                return None
        if not raw_args and spec.min_args > 0:
            self.err("missing_key", f"{loc}/column", f"aggregate {func!r} needs a 'column' ({spec.arity_text()})")
            return None
        args = self.arguments(spec, raw_args, f"{loc}/args" if "args" in entry else f"{loc}/{ckey or 'column'}", 0)
        if args is None:
            return None
        if spec.name in ("count", "count_distinct") and len(args) == 1 and isinstance(args[0], ir.Star):
            args = [ir.Lit(1, args[0].loc)]
        distinct = spec.distinct or entry.get("distinct") is True
        expr: ir.Expr = ir.Call(spec.name, tuple(args), floc, distinct=distinct)
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
            self.err(
                "missing_key",
                f"{loc}/udf",
                "a python_grouped_udf aggregation needs a 'udf' name",
                name if "udf" in entry else _MISSING,
            )
            return None
        rkey, rtype = _first(entry, "return_type", "returnType")
        declared = None
        if rkey is not None and rtype is not None:
            declared = self.type_arg(rtype, f"{loc}/{rkey}")
            if declared is None:
                return None
        args = self.expr_list(entry.get("args", []), f"{loc}/args")
        if args is None:
            return None
        return ir.AggItem(ir.UdfCall(name, tuple(args), loc, aggregate=True, return_type=declared), alias, loc)

    # ---- join / union / crossJoin

    _OTHER_KEYS = (
        "other_data",
        "otherData",
        "other_schema",
        "otherSchema",
        "on",
        "how",
        "other",
        "other_plan",
        "otherPlan",
        "other_table",
        "otherTable",
        "broadcast",
        "distinct",
    )

    def _binary_payload(
        self, loc: str, payload: Any, raw: Mapping[str, Any], op: str
    ) -> tuple[dict[str, Any], dict[str, str]] | None:
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
        nested = self.nested_right(merged, where, loc, op)
        if nested is not _MISSING:
            return nested
        dkey, rows = _first(merged, "other_data", "otherData")
        skey, schema = _first(merged, "other_schema", "otherSchema")
        if dkey is None:
            self.err("missing_key", f"{loc}/payload/other_data", f"{op} needs 'other_data' (the right side's rows)")
        if skey is None:
            self.err(
                "missing_key", f"{loc}/payload/other_schema", f"{op} needs 'other_schema' (the right side's schema)"
            )
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
        if how is None and isinstance(how_raw, str) and how_raw.lower().replace(" ", "") in _SINGLE_JOIN:
            self.err("unsupported_join_type", where.get("how", f"{loc}/payload/how"), _SINGLE_JOIN_MESSAGE, how_raw)
        elif how is None:
            self.err(
                "join_type",
                where.get("how", f"{loc}/payload/how"),
                f"unknown join type {how_raw!r} (expected one of {', '.join(sorted(_JOIN_TYPES))})",
                how_raw,
            )
        on_key = "on" if "on" in merged else None
        keys: list[str] = []
        conds: list[ir.Expr] = []
        if on_key is None or merged["on"] is None:
            if how != "cross":
                self.err(
                    "missing_key",
                    f"{loc}/payload/on",
                    "join needs 'on' (key names or a condition); use crossJoin for a Cartesian product",
                )
        else:
            self._join_on(merged["on"], where["on"], keys, conds)
        if right is None or how is None or (len(self.errors) and self._has_errors_under(loc)):
            return None
        cond: ir.Expr | None = None
        if conds:
            cond = conds[0] if len(conds) == 1 else ir.Call("and", tuple(conds), where["on"])
        return ir.Join(index, op, loc, right, how, tuple(keys), cond, right_hint=self._hint_flag(merged, where))

    def _has_errors_under(self, loc: str) -> bool:
        return any(d.loc == loc or d.loc.startswith(loc + "/") for d in self.errors)

    def _join_on(self, on: Any, loc: str, keys: list[str], conds: list[ir.Expr]) -> None:
        if isinstance(on, str):
            if "(" in on or "=" in on:
                self.err(
                    "join_on",
                    loc,
                    "'on' strings are column names; write a condition as an expression object (SQL text is never parsed)",
                    on,
                )
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
                self._join_condition += 1
                try:
                    e = self.expr(_normalise_eq(item), iloc)
                finally:
                    self._join_condition -= 1
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
        allow = merged.get("allowMissingColumns", True) if by_name else True
        if not isinstance(allow, bool):  # "false" is not false (bool("false") is True)
            self.err(
                "bool_expected", where["allowMissingColumns"], "'allowMissingColumns' must be true or false", allow
            )
        distinct = merged.get("distinct", False)
        if not isinstance(distinct, bool):
            self.err("bool_expected", where["distinct"], "'distinct' must be true or false", distinct)
        if not isinstance(allow, bool) or not isinstance(distinct, bool):
            return None
        return ir.SetOp(index, op, loc, right, "union", by_name, by_name and allow, distinct)

    def _cross_join(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        got = self._binary_payload(loc, payload, raw, op)
        if got is None:
            return None
        merged, where = got
        right = self._right_side(merged, where, loc, op)
        return ir.CrossJoin(index, op, loc, right) if right is not None else None

    # ---------------------------------------------------------------- sources, plan trees, outputs
    # (PLAN_FORMAT extensions; docs/plan-format.md §Sources, §Plan trees, §Outputs)

    def extended_document(self, doc: Mapping[str, Any], loc: str) -> ir.Plan | None:
        """A plan document using an extension: a non-inline ``input``, no ``input`` (the
        plan starts with ``read``), ``with`` definitions, ``conf`` or ``output``."""
        top = self._nesting == 0
        conf = self.conf(doc["conf"], f"{loc}/conf") if "conf" in doc else ()
        if "conf" in doc and not top:
            self.err(
                "nested_conf", f"{loc}/conf", "'conf' applies to a whole execution; put it on the outermost document"
            )
        if "with" in doc:
            self.definitions(doc["with"], f"{loc}/with", top)
        steps_raw = doc.get("plan", _MISSING)
        if steps_raw is _MISSING:
            self.err("missing_key", f"{loc}/plan", "a plan document needs a 'plan' array")
            steps_raw = []
        inp = doc.get("input", _MISSING)
        starts_with_read = raw_starts_with_read(steps_raw)
        source: ir.Source | None
        if inp is _MISSING or inp is None:
            if not starts_with_read:
                self.err(
                    "missing_key",
                    f"{loc}/input",
                    "a plan document needs an 'input' (rows and schema, a table, files, a range, SQL or a ref) or a first 'read' step",
                )
                self.steps(steps_raw, f"{loc}/plan")
                return None
            source = None
        else:
            if starts_with_read:
                self.err(
                    "conflicting_input",
                    f"{loc}/plan/{_raw_first_index(steps_raw)}",
                    "the plan has both an 'input' and a first 'read' step; keep one",
                )
            source = self.source(inp, f"{loc}/input")
        steps = self.steps(steps_raw, f"{loc}/plan")
        first = _first_step(steps)
        if source is None and starts_with_read and isinstance(first, ir.Read):
            source = first.source
        if source is None:
            return None
        plan = self.finish(source, steps, f"{loc}/plan", allow_read_first=starts_with_read)
        if plan is None:
            return None
        if "output" in doc:
            if plan.output is not None:
                self.err(
                    "conflicting_output",
                    f"{loc}/output",
                    "the plan ends with an output step and the document has 'output'; keep one",
                )
            else:
                out = self.output(doc["output"], f"{loc}/output", len(plan.steps), "output")
                if out is not None:
                    plan = replace(plan, output=out)
            if not top:
                self.err(
                    "nested_output",
                    f"{loc}/output",
                    "a nested plan cannot write; only the outermost plan has an output",
                )
        return replace(plan, conf=conf) if conf else plan

    def finish(
        self, source: ir.Source, steps: tuple[ir.Step, ...], plan_loc: str, *, allow_read_first: bool = False
    ) -> ir.Plan | None:
        """Take a leading ``read`` and a trailing output step out of the step list.
        ``stop`` steps are transparent: a read after them is still first, an output before
        them still last."""
        body = list(steps)
        first = next((i for i, s in enumerate(body) if not isinstance(s, ir.Stop)), None)
        if allow_read_first and first is not None and isinstance(body[first], ir.Read):
            del body[first]
        last = max((i for i, s in enumerate(body) if not isinstance(s, ir.Stop)), default=-1)
        output: ir.Output | None = None
        for i, step in enumerate(body):
            if isinstance(step, ir.Read):
                self.err(
                    "read_not_first", step.loc, "a 'read' step can only be the first step of a plan that has no 'input'"
                )
            elif isinstance(step, (ir.Write, ir.TempView)):
                if i != last:
                    self.err(
                        "output_not_last",
                        step.loc,
                        f"{step.op!r} must be the last step (it writes the result, nothing follows it)",
                    )
                elif self._nesting > 0:
                    self.err(
                        "nested_output",
                        step.loc,
                        f"a nested plan cannot end with {step.op!r}; only the outermost plan writes",
                    )
                else:
                    output = step
        body = [s for s in body if not isinstance(s, (ir.Read, ir.Write, ir.TempView))]
        return ir.Plan(source, tuple(body), plan_loc, output=output)

    def conf(self, raw: Any, loc: str) -> tuple[tuple[str, str], ...]:
        if not isinstance(raw, Mapping):
            self.err("conf_type", loc, "'conf' must be an object of Spark configuration keys and values", raw)
            return ()
        out: list[tuple[str, str]] = []
        for k, v in raw.items():
            if not isinstance(k, str) or not k:
                self.err("conf_key", loc, "configuration keys must be non-empty strings", k)
            elif isinstance(v, bool):
                out.append((k, "true" if v else "false"))
            elif isinstance(v, (int, float, str)) and v is not None:
                out.append((k, str(v)))
            else:
                self.err("conf_value", f"{loc}/{k}", "a configuration value must be a string, number or boolean", v)
        return tuple(out)

    def options(self, raw: Any, loc: str) -> tuple[tuple[str, str], ...] | None:
        if raw is None:
            return ()
        if not isinstance(raw, Mapping):
            self.err("options_type", loc, "'options' must be an object of string keys and scalar values", raw)
            return None
        out: list[tuple[str, str]] = []
        ok = True
        for k, v in raw.items():
            if not isinstance(k, str) or not k:
                self.err("option_key", loc, "option names must be non-empty strings", k)
                ok = False
            elif isinstance(v, bool):
                out.append((k, "true" if v else "false"))
            elif isinstance(v, (int, float, str)):
                out.append((k, str(v)))
            else:
                self.err("option_value", f"{loc}/{k}", "an option value must be a string, number or boolean", v)
                ok = False
        return tuple(out) if ok else None

    def definitions(self, raw: Any, loc: str, top: bool) -> None:
        """``"with": {"name": <plan document>, ...}``: named sub-plans, each usable through
        ``{"ref": "name"}`` by later definitions and by the plan (shared, not copied)."""
        if not top:
            self.err("nested_with", loc, "'with' definitions belong on the outermost document")
            return
        if not isinstance(raw, Mapping):
            self.err("with_type", loc, "'with' must be an object mapping names to plan documents", raw)
            return
        for name, sub in raw.items():
            at = f"{loc}/{name}"
            if not isinstance(name, str) or not name:
                self.err("ref_name", loc, "a definition name must be a non-empty string", name)
                continue
            if name in self._named:
                self.err("duplicate_definition", at, f"{name!r} is defined twice", name)
                continue
            shared = self.nested_document(sub, at, name=name)
            if shared is not None:
                self._named[name] = shared

    def nested_document(self, raw: Any, loc: str, name: str | None = None) -> ir.SharedPlan | None:
        """A plan document inside another one (a join/union right side, a definition).
        Identical documents written twice become one shared sub-plan."""
        if not isinstance(raw, Mapping):
            self.err(
                "document_type", loc, 'a nested plan must be a plan document object {"input": ..., "plan": [...]}', raw
            )
            return None
        if self._nesting >= MAX_PLAN_NESTING:
            self.err("too_deep", loc, f"plans nested more than {MAX_PLAN_NESTING} levels deep")
            return None
        key: str | None
        try:
            key = json.dumps(raw, sort_keys=True, default=repr)
        except (TypeError, ValueError, RecursionError):
            key = None
        if name is None and key is not None and key in self._nested_cache:
            return self._nested_cache[key]
        self._nesting += 1
        try:
            plan = self.document(raw, loc)
        finally:
            self._nesting -= 1
        if plan is None:
            return None
        shared = ir.SharedPlan(name or loc, plan, loc)
        if key is not None:
            self._nested_cache.setdefault(key, shared)
        return shared

    _SOURCE_KEYS = ("rows", "data", "table", "files", "path", "paths", "range", "sql", "ref", "plan", "format")

    def source(self, raw: Any, loc: str) -> ir.Source | None:
        """An input: inline rows, a table, files, a range, SQL, a ref or a nested document."""
        if not isinstance(raw, Mapping):
            self.err(
                "input_type",
                loc,
                'an input must be an object: {"schema", "rows"}, {"table"}, {"files", "format"}, {"range"}, {"sql"}, {"ref"} or a plan document',
                raw,
            )
            return None
        if "plan" in raw:
            return self.nested_document(raw, loc)
        kinds = [k for k in ("table", "range", "sql", "ref") if k in raw]
        if any(k in raw for k in ("files", "path", "paths")) or ("format" in raw and "schema" not in raw and not kinds):
            kinds.append("files")
        if "rows" in raw or "data" in raw or ("schema" in raw and not kinds):
            kinds.append("inline")
        if not kinds:
            self.err(
                "input_kind",
                loc,
                "an input needs one of 'rows'+'schema', 'table', 'files' (+ 'format'), 'range', 'sql', 'ref' or 'input'+'plan'",
                raw,
            )
            return None
        if len(kinds) > 1:
            self.err("input_kind", loc, f"an input must be one kind of source, this one mixes {kinds}", raw)
            return None
        kind = kinds[0]
        if kind == "inline":
            rows_key, rows = _first(raw, "rows", "data")
            if rows_key is None:
                rows, rows_key = [], "rows"
            if "schema" not in raw:
                self.err("missing_key", f"{loc}/schema", "input needs a 'schema' list")
                return None
            return self.inline(rows, raw["schema"], f"{loc}/{rows_key}", f"{loc}/schema")
        return _SOURCE_PARSERS[kind](self, raw, loc)

    def _table_source(self, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
        name = raw["table"]
        if not isinstance(name, str) or not name.strip():
            self.err("table_name", f"{loc}/table", "'table' must be a non-empty table or view name", name)
            return None
        opts = self.options(raw.get("options"), f"{loc}/options")
        return ir.TableSource(name, opts, loc) if opts is not None else None

    def _file_source(self, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
        pkey, paths = _first(raw, "files", "paths", "path")
        if pkey is None:
            paths, pkey = [], "files"
        if isinstance(paths, str):
            paths = [paths]
        ok = True
        if not isinstance(paths, (list, tuple)) or not all(isinstance(p, str) and p for p in paths):
            self.err("paths", f"{loc}/{pkey}", "'files' must be a path (glob) string or a list of them", paths)
            ok = False
        fmt = raw.get("format")
        if fmt is not None and (not isinstance(fmt, str) or not fmt):
            self.err(
                "format",
                f"{loc}/format",
                "'format' must be a data source name such as 'parquet', 'csv', 'json', 'orc' or 'text'",
                fmt,
            )
            ok = False
        if fmt is None and not paths:
            self.err("missing_key", f"{loc}/format", "a data source read needs 'files' or a 'format'")
            ok = False
        opts = self.options(raw.get("options"), f"{loc}/options")
        ddl, columns = None, None
        if raw.get("schema") is not None:
            got = self.read_schema(raw["schema"], f"{loc}/schema")
            if got is None:
                ok = False
            else:
                ddl, columns = got
        if not ok or opts is None:
            return None
        return ir.FileSource(tuple(paths), fmt, opts, ddl, columns, loc)

    def read_schema(self, raw: Any, loc: str) -> tuple[str, tuple[str, ...] | None] | None:
        """A read schema: a DDL string (passed to Spark as is) or schema fields."""
        if isinstance(raw, str):
            if not raw.strip():
                self.err("schema_type", loc, "a schema string must not be empty", raw)
                return None
            return raw, None
        fields = self.schema(raw, loc)
        if fields is None:
            return None
        from .types import type_string

        ddl = ", ".join(f"{_quote_name(f.name)} {type_string(f.type)}" for f in fields)
        return ddl, tuple(f.name for f in fields)

    def _range_source(self, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
        spec = raw["range"]
        rloc = f"{loc}/range"
        if isinstance(spec, int) and not isinstance(spec, bool):
            spec = {"end": spec}
        elif isinstance(spec, (list, tuple)) and 1 <= len(spec) <= 3:
            spec = dict(zip(("start", "end", "step"), spec if len(spec) > 1 else [0, *spec]))
        if not isinstance(spec, Mapping):
            self.err(
                "range",
                rloc,
                '\'range\' must be {"start"?, "end", "step"?, "num_partitions"?}, [start, end, step?] or an end',
                spec,
            )
            return None
        values: dict[str, int | None] = {}
        for key, default in (("start", 0), ("end", None), ("step", 1), ("num_partitions", None)):
            k, v = _first(spec, key, {"num_partitions": "numPartitions"}.get(key, key))
            if k is None:
                if key == "end":
                    self.err("missing_key", f"{rloc}/end", "'range' needs an 'end'")
                    return None
                values[key] = default
                continue
            if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
                self.err("range", f"{rloc}/{k}", f"range '{key}' must be a 64-bit integer", v)
                return None
            values[key] = v
        if values["step"] == 0:
            self.err("range", f"{rloc}/step", "range 'step' must not be 0", 0)
            return None
        np = values["num_partitions"]
        if np is not None and not 1 <= np <= 2**31 - 1:
            self.err("range", f"{rloc}/num_partitions", "'num_partitions' must be a positive 32-bit integer", np)
            return None
        assert values["start"] is not None and values["end"] is not None and values["step"] is not None
        return ir.RangeSource(values["start"], values["end"], values["step"], np, loc)

    def _sql_source(self, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
        query = raw["sql"]
        if not isinstance(query, str) or not query.strip():
            self.err("sql", f"{loc}/sql", "'sql' must be a non-empty SQL query string", query)
            return None
        akey, args = _first(raw, "args", "params", "parameters")
        named: list[tuple[str, ir.Expr]] = []
        positional: list[ir.Expr] = []
        ok = True
        if akey is not None and args is not None:
            aloc = f"{loc}/{akey}"
            if isinstance(args, Mapping):
                for name, v in args.items():
                    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                        self.err(
                            "sql_parameter",
                            aloc,
                            "SQL parameter names must be identifiers (used as :name in the query)",
                            name,
                        )
                        ok = False
                        continue
                    e = self._sql_arg(v, f"{aloc}/{name}")
                    if e is None:
                        ok = False
                    else:
                        named.append((name, e))
            elif isinstance(args, (list, tuple)):
                for i, v in enumerate(args):
                    e = self._sql_arg(v, f"{aloc}/{i}")
                    if e is None:
                        ok = False
                    else:
                        positional.append(e)
            else:
                self.err(
                    "sql_parameter",
                    aloc,
                    "'args' must be an object (named :parameters) or a list (positional ? parameters)",
                    args,
                )
                ok = False
        return ir.SqlSource(query, tuple(named), tuple(positional), loc) if ok else None

    def _sql_arg(self, raw: Any, loc: str) -> ir.Expr | None:
        """A SQL parameter: a bare value or ``{"lit", "type"?}`` is a literal (a string is
        the string, never SQL). Spark binds nothing else but calls of array/map/struct
        constructors over literals (``INVALID_SQL_ARG`` otherwise, found only by the
        server), so anything else is rejected here, where the plan is."""
        e = self._literal_or_expr(raw, loc, 0)
        if e is None:
            return None
        ok = True
        for node in ir.walk(e):
            nloc = re.sub(r"/(lit|col)$", "", node.loc or loc)  # the object, not its key
            if isinstance(node, ir.Lit):
                if node.type is not None and node.value is not None:
                    from .data import CoerceError, coerce_value

                    try:
                        coerce_value(node.value, node.type)
                    except CoerceError as exc:
                        self.err("literal_type", nloc, f"the parameter does not fit its type: {exc}", node.value)
                        ok = False
                continue
            if isinstance(node, ir.Call) and CATALOG[node.fn].spark in _SQL_ARG_CONSTRUCTORS and not node.distinct:
                continue
            self.err(
                "sql_parameter",
                nloc,
                f"a SQL parameter must be a literal, or array/map/struct constructors over literals "
                f"({', '.join(sorted(_SQL_ARG_CONSTRUCTORS))}); Spark rejects anything else (INVALID_SQL_ARG). "
                f"This is {_sql_arg_kind(node)}",
            )
            ok = False
            break
        return e if ok else None

    def _ref_source(self, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
        name = raw["ref"]
        shared = self._named.get(name) if isinstance(name, str) else None
        if shared is None:
            known = ", ".join(sorted(self._named)) or "none"
            self.err(
                "unknown_ref", f"{loc}/ref", f"no sub-plan named {name!r} in 'with' (defined so far: {known})", name
            )
            return None
        return shared

    def _read(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        source = self.source(payload, f"{loc}/payload")
        return ir.Read(index, op, loc, source) if source is not None else None

    # ---- right sides given as plans or tables

    _RIGHT_PLAN_KEYS = ("other", "other_plan", "otherPlan", "other_table", "otherTable")

    def nested_right(
        self, merged: Mapping[str, Any], where: Mapping[str, str], loc: str, op: str
    ) -> ir.Plan | Any | None:
        """The right side of a binary op given as a nested plan, a table or a source;
        ``_MISSING`` when the payload uses the inline ``other_data``/``other_schema`` form."""
        present = [k for k in self._RIGHT_PLAN_KEYS if k in merged]
        if not present:
            return _MISSING
        has_data = any(k in merged for k in ("other_data", "otherData"))
        if len(present) > 1:
            self.err("conflicting_input", where[present[1]], f"{op} takes one right side; got {present}")
            return None
        key = present[0]
        val, vloc = merged[key], where[key]
        if key in ("other_plan", "otherPlan") and isinstance(val, (list, tuple, str)):
            # Sparkless style: other_data/other_schema are the right input, other_plan its steps
            if not has_data:
                self.err(
                    "missing_key",
                    f"{loc}/payload/other_data",
                    f"{op}: a step list in {key!r} applies to 'other_data'/'other_schema', which are missing",
                )
                return None
            dkey, rows = _first(merged, "other_data", "otherData")
            skey, schema = _first(merged, "other_schema", "otherSchema")
            if skey is None:
                self.err(
                    "missing_key", f"{loc}/payload/other_schema", f"{op} needs 'other_schema' (the right side's schema)"
                )
                return None
            assert dkey is not None
            self._nesting += 1
            try:
                inline = self.inline(rows, schema, where[dkey], where[skey])
                steps = self.steps(val, vloc)
            finally:
                self._nesting -= 1
            if inline is None:
                return None
            sub = self.finish(inline, steps, vloc)
            return sub
        if has_data:
            self.err(
                "conflicting_input", vloc, f"{op} takes one right side: either 'other_data'/'other_schema' or {key!r}"
            )
            return None
        if key in ("other_table", "otherTable"):
            if not isinstance(val, str) or not val.strip():
                self.err("table_name", vloc, f"{key!r} must be a table or view name", val)
                return None
            return ir.Plan(ir.TableSource(val, (), vloc), (), vloc)
        if isinstance(val, str):  # "other": "db.table"
            if not val.strip():
                self.err("table_name", vloc, "a table name must not be empty", val)
                return None
            return ir.Plan(ir.TableSource(val, (), vloc), (), vloc)
        source = self.source(val, vloc)
        if source is None:
            return None
        return ir.Plan(source, (), vloc)

    def _hint_flag(self, merged: Mapping[str, Any], where: Mapping[str, str]) -> str | None:
        val = merged.get("broadcast")
        if val is None or val is False:
            return None
        if val is True:
            return "broadcast"
        self.err("bool_expected", where.get("broadcast", ""), "'broadcast' must be true or false", val)
        return None

    # ---- set operations beyond union

    _SET_OPS: ClassVar[dict[str, Any]] = {
        "intersect": ("intersect", True),
        "intersectAll": ("intersect", False),
        "except": ("except", True),
        "subtract": ("except", True),
        "exceptAll": ("except", False),
        "unionAll": ("union", False),
        # Substrait Minus (Primary) / Intersection (Primary) as the seed spec words them: the
        # primary input's rows, duplicates kept, without / with a matching secondary row
        "minusPrimary": ("minus_primary", False),
        "intersectPrimary": ("intersect_primary", False),
    }

    def _set_op(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        got = self._binary_payload(loc, payload, raw, op)
        if got is None:
            return None
        merged, where = got
        right = self._right_side(merged, where, loc, op)
        kind, distinct = self._SET_OPS[op]
        if "distinct" in merged and merged["distinct"] is not distinct:
            if kind.endswith("_primary"):
                other_op = "except" if kind == "minus_primary" else "intersect"
                self.err(
                    "conflict",
                    where["distinct"],
                    f"{op!r} keeps the primary input's duplicates; use {other_op!r} for distinct rows",
                    merged["distinct"],
                )
            else:
                self.err(
                    "conflict",
                    where["distinct"],
                    f"{op!r} is always {'DISTINCT' if distinct else 'ALL'}; use the op of the other kind",
                    merged["distinct"],
                )
            return None
        if right is None:
            return None
        return ir.SetOp(index, op, loc, right, kind, False, False, distinct)

    # ---- fetch, grouping sets, sample, repartition, hint, tail

    def _fetch(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if not isinstance(payload, Mapping):
            self.err("payload_type", ploc, 'fetch needs {"offset"?: n, "count"?: n}', payload)
            return None
        offset, count = 0, None
        ok = True
        for names, target in ((("offset", "skip"), "offset"), (("count", "n", "limit"), "count")):
            k, v = _first(payload, *names)
            if k is None or (v is None and target == "count"):
                continue
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 2**31 - 1:
                self.err("bad_count", f"{ploc}/{k}", f"fetch {target!r} must be a non-negative 32-bit integer", v)
                ok = False
            elif target == "offset":
                offset = v
            else:
                count = v
        return ir.Fetch(index, op, loc, offset, count) if ok else None

    def group_item(self, g: Any, gloc: str) -> ir.Expr | None:
        if isinstance(g, str):
            return ir.Col(g, gloc)
        if isinstance(g, Mapping) and "expr" in g:
            return self.expr(g["expr"], f"{gloc}/expr")
        if (
            isinstance(g, Mapping)
            and any(k in g for k in ("col", "column", "name"))
            and not any(k in g for k in ("fn", "function", "op"))
        ):
            name = self.column_name(g, gloc)
            return ir.Col(name, gloc) if name is not None else None
        if isinstance(g, Mapping):
            return self.expr(g, gloc)
        self.err("group_item", gloc, "a grouping item must be a column name or an object", g)
        return None

    def _grouping_sets(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if not isinstance(payload, Mapping):
            self.err("payload_type", ploc, 'groupingSets needs {"sets": [[...], ...], "aggs": [...]}', payload)
            return None
        skey, sets_raw = _first(payload, "sets", "grouping_sets", "groupingSets")
        if skey is None or not isinstance(sets_raw, (list, tuple)) or not sets_raw:
            self.err(
                "missing_key" if skey is None else "payload_type",
                f"{ploc}/{skey or 'sets'}",
                "groupingSets needs 'sets': a non-empty list of lists of grouping columns",
                sets_raw,
            )
            return None
        keys: list[ir.Expr] = []
        index_of: dict[str, int] = {}
        explicit = False
        gkey, groups = _first(payload, "group_by", "groupBy", "columns", "cols")
        if gkey is not None:
            if not isinstance(groups, (list, tuple)):
                self.err("payload_type", f"{ploc}/{gkey}", "'group_by' must be a list", groups)
                return None
            explicit = True
            for i, g in enumerate(groups):
                e = self.group_item(g, f"{ploc}/{gkey}/{i}")
                if e is not None:
                    index_of.setdefault(_group_key(g), len(keys))
                    keys.append(e)
        sets: list[tuple[int, ...]] = []
        for i, s in enumerate(sets_raw):
            sloc = f"{ploc}/{skey}/{i}"
            if isinstance(s, str):
                s = [s]
            if not isinstance(s, (list, tuple)):
                self.err(
                    "payload_type",
                    sloc,
                    "each grouping set must be a list of grouping columns (empty for the grand total)",
                    s,
                )
                continue
            members: list[int] = []
            for j, g in enumerate(s):
                gk = _group_key(g)
                if gk not in index_of:
                    if explicit:
                        self.err("unknown_column", f"{sloc}/{j}", "a grouping set member must be one of 'group_by'", g)
                        continue
                    e = self.group_item(g, f"{sloc}/{j}")
                    if e is None:
                        continue
                    index_of[gk] = len(keys)
                    keys.append(e)
                members.append(index_of[gk])
            sets.append(tuple(members))
        akey, aggs_raw = _first(payload, "aggs", "aggregations", "agg")
        if akey is None:
            self.err("missing_key", f"{ploc}/aggs", "groupingSets needs an 'aggs' list")
            return None
        aggs = self.aggs(aggs_raw, f"{ploc}/{akey}")
        if aggs is None or self._has_errors_under(ploc):
            return None
        return ir.GroupBy(index, op, loc, "grouping_sets", tuple(keys), aggs, tuple(sets))

    def _sample(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if isinstance(payload, (int, float)) and not isinstance(payload, bool):
            payload = {"fraction": payload}
        if not isinstance(payload, Mapping):
            self.err("payload_type", ploc, 'sample needs {"fraction", "withReplacement"?, "seed"?}', payload)
            return None
        wkey, repl = _first(payload, "withReplacement", "with_replacement", "replace")
        if repl is None or wkey is None:
            repl = False
        if not isinstance(repl, bool):
            self.err("bool_expected", f"{ploc}/{wkey}", "'withReplacement' must be true or false", repl)
            return None
        lower, upper = 0.0, None
        ukey: str | None
        if "fraction" in payload:
            upper = payload["fraction"]
            ukey = "fraction"
        else:
            ukey, upper = _first(payload, "upper_bound", "upperBound")
            _, lower = _first(payload, "lower_bound", "lowerBound")
            lower = 0.0 if lower is _MISSING or lower is None else lower
        if ukey is None:
            self.err("missing_key", f"{ploc}/fraction", "sample needs a 'fraction'")
            return None
        for v, k in ((lower, "lower_bound"), (upper, ukey)):
            if (
                isinstance(v, bool)
                or not isinstance(v, (int, float))
                or not _finite_number(v)
                or v < 0
                or (v > 1 and not repl)
            ):
                self.err(
                    "fraction",
                    f"{ploc}/{k}",
                    "a sampling fraction must be a number in [0, 1] (≥ 0 with replacement)",
                    v,
                )
                return None
        if lower > upper:
            self.err("fraction", f"{ploc}/lower_bound", "'lower_bound' must not exceed the upper bound", lower)
            return None
        seed = payload.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63):
            self.err("seed", f"{ploc}/seed", "'seed' must be a 64-bit integer", seed)
            return None
        return ir.Sample(index, op, loc, float(lower), float(upper), repl, seed)

    def _repartition(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if isinstance(payload, int) and not isinstance(payload, bool):
            payload = {"n": payload}
        elif isinstance(payload, (list, tuple)):
            payload = {"columns": payload}
        if not isinstance(payload, Mapping):
            self.err("payload_type", ploc, f'{op} needs {{"n"?: partitions, "columns"?: [...]}}', payload)
            return None
        nkey, n = _first(payload, "n", "num_partitions", "numPartitions")
        if nkey is None:
            n = None
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 2**31 - 1):
            self.err("bad_count", f"{ploc}/{nkey}", "the number of partitions must be a positive 32-bit integer", n)
            return None
        ckey, cols = _first(payload, "columns", "cols", "partition_by", "partitionBy")
        keys: list[ir.Expr] = []
        if ckey is not None and cols is not None:
            if op == "coalesce":
                self.err(
                    "not_applicable",
                    f"{ploc}/{ckey}",
                    "coalesce only reduces the number of partitions; use repartition to partition by columns",
                )
                return None
            if isinstance(cols, str):
                cols = [cols]
            if not isinstance(cols, (list, tuple)):
                self.err("payload_type", f"{ploc}/{ckey}", "'columns' must be a list", cols)
                return None
            for i, c in enumerate(cols):
                e = self.group_item(c, f"{ploc}/{ckey}/{i}")
                if e is None:
                    return None
                keys.append(e)
        if n is None and not keys:
            self.err("missing_key", f"{ploc}/n", f"{op} needs 'n' (the number of partitions) or 'columns'")
            return None
        return ir.Repartition(index, op, loc, n, tuple(keys), op != "coalesce")

    def _hint(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        if isinstance(payload, str):
            payload = {"name": payload}
        if not isinstance(payload, Mapping) or not isinstance(payload.get("name"), str) or not payload["name"]:
            self.err("payload_type", ploc, 'hint needs {"name": "broadcast" | ..., "parameters"?: [...]}', payload)
            return None
        params_raw = payload.get("parameters", payload.get("params", []))
        if not isinstance(params_raw, (list, tuple)):
            self.err("payload_type", f"{ploc}/parameters", "'parameters' must be a list", params_raw)
            return None
        params = [self._literal_or_expr(p, f"{ploc}/parameters/{i}", 0) for i, p in enumerate(params_raw)]
        if any(p is None for p in params):
            return None
        return ir.Hint(index, op, loc, payload["name"], tuple(p for p in params if p is not None))

    def _tail(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        n = self._count_arg(op, loc, payload, None)
        return ir.Tail(index, op, loc, n) if n is not None else None

    # ---- outputs: write, temp views

    _MODES: ClassVar[dict[str, Any]] = {
        "error": "error",
        "errorifexists": "error",
        "default": "error",
        "append": "append",
        "overwrite": "overwrite",
        "ignore": "ignore",
    }

    def _write(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        return self.output(payload, f"{loc}/payload", index, op, step_loc=loc)

    def output(self, raw: Any, loc: str, index: int, op: str, step_loc: str | None = None) -> ir.Write | None:
        """A write: ``{"path", "format"?, "mode"?, "partition_by"?, "options"?}`` or a table
        ``{"table" | "saveAsTable" | "insertInto": name, ...}``."""
        if not isinstance(raw, Mapping):
            self.err("payload_type", loc, 'a write needs {"path", "format", "mode"?} or {"table", "mode"?}', raw)
            return None
        ok = True
        targets = [k for k in ("path", "table", "saveAsTable", "insertInto") if k in raw]
        if len(targets) != 1:
            self.err(
                "write_target",
                loc,
                "a write needs exactly one of 'path' (files), 'table'/'saveAsTable' or 'insertInto'",
                raw,
            )
            return None
        tkey = targets[0]
        target = raw[tkey]
        if not isinstance(target, str) or not target.strip():
            self.err("write_target", f"{loc}/{tkey}", f"{tkey!r} must be a non-empty string", target)
            return None
        method = None if tkey == "path" else "insert_into" if tkey == "insertInto" else "save_as_table"
        mkey = raw.get("method")
        if mkey is not None:
            m = {
                "saveastable": "save_as_table",
                "save_as_table": "save_as_table",
                "insertinto": "insert_into",
                "insert_into": "insert_into",
            }.get(str(mkey).lower())
            if m is None or tkey == "path":
                self.err(
                    "write_method",
                    f"{loc}/method",
                    "'method' is 'saveAsTable' or 'insertInto' and needs a 'table'",
                    mkey,
                )
                ok = False
            else:
                method = m
        mode_raw = raw.get("mode", "error")
        mode = self._MODES.get(mode_raw.lower()) if isinstance(mode_raw, str) else None
        if raw.get("overwrite") is True and method == "insert_into":
            mode = "overwrite" if "mode" not in raw else mode
        if mode is None:
            self.err(
                "write_mode",
                f"{loc}/mode",
                "'mode' must be one of error, errorifexists, append, overwrite, ignore",
                mode_raw,
            )
            ok = False
        elif method == "insert_into" and mode not in ("append", "overwrite", "error"):
            self.err(
                "write_mode",
                f"{loc}/mode",
                "insertInto appends or overwrites; use mode 'append' or 'overwrite'",
                mode_raw,
            )
            ok = False
        if method == "insert_into" and "mode" not in raw and raw.get("overwrite") is not True:
            mode = "append"
        fmt = raw.get("format")
        if fmt is not None and (not isinstance(fmt, str) or not fmt):
            self.err("format", f"{loc}/format", "'format' must be a data source name such as 'parquet'", fmt)
            ok = False
        if tkey == "path" and fmt is None:
            self.err(
                "missing_key", f"{loc}/format", "a file write needs a 'format' (parquet, csv, json, orc, text ...)"
            )
            ok = False
        pkey, parts = _first(raw, "partition_by", "partitionBy")
        cols: list[str] = []
        if pkey is not None and parts is not None:
            if isinstance(parts, str):
                parts = [parts]
            if not isinstance(parts, (list, tuple)):
                self.err("payload_type", f"{loc}/{pkey}", "'partition_by' must be a list of column names", parts)
                ok = False
            else:
                for i, p in enumerate(parts):
                    name = self.column_name(p, f"{loc}/{pkey}/{i}")
                    if name is None:
                        ok = False
                    else:
                        cols.append(name)
            if method == "insert_into" and cols:
                self.err(
                    "not_applicable",
                    f"{loc}/{pkey}",
                    "insertInto uses the table's own partitioning; drop 'partition_by'",
                )
                ok = False
        opts = self.options(raw.get("options"), f"{loc}/options")
        if not ok or opts is None or mode is None:
            return None
        return ir.Write(
            index,
            op,
            step_loc or loc,
            fmt,
            target if tkey == "path" else None,
            None if tkey == "path" else target,
            method,
            mode,
            tuple(cols),
            opts,
        )

    _VIEW_OPS: ClassVar[dict[str, Any]] = {
        "createOrReplaceTempView": (True, False),
        "createTempView": (False, False),
        "createOrReplaceGlobalTempView": (True, True),
        "createGlobalTempView": (False, True),
    }

    def _temp_view(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any]) -> ir.Step | None:
        ploc = f"{loc}/payload"
        name = payload
        if isinstance(payload, Mapping):
            key, name = _first(payload, "name", "viewName", "view")
            ploc = f"{ploc}/{key or 'name'}"
        if not isinstance(name, str) or not name.strip():
            self.err("view_name", ploc, f"{op} needs a view 'name'", name)
            return None
        replace_, is_global = self._VIEW_OPS[op]
        return ir.TempView(index, op, loc, name, replace_, is_global)

    def filtered_agg(self, item: ir.AggItem, entry: Mapping[str, Any], loc: str) -> ir.AggItem | None:
        """``{"agg": ..., "filter": <condition>}`` = SQL ``agg(x) FILTER (WHERE condition)``.

        Spark Connect's function call has no filter slot (and we never send SQL text), so
        the measure becomes ``agg(CASE WHEN condition THEN x END)``: identical for aggregates
        that skip nulls, which are the only ones accepted here."""
        fkey = "filter" if "filter" in entry else "where"
        cond = self.expr(entry[fkey], f"{loc}/{fkey}")
        if cond is None:
            return None
        expr = item.expr
        cast: ir.Cast | None = None
        if isinstance(expr, ir.Cast):
            cast, expr = expr, expr.expr
        spec = CATALOG.get(expr.fn) if isinstance(expr, ir.Call) else None
        if not isinstance(expr, ir.Call) or spec is None or spec.kind != "aggregate":
            self.err("agg_filter", f"{loc}/{fkey}", "a filter applies to an aggregate function call")
            return None
        null_flag = spec.name in ("first", "last") and not (
            len(expr.args) > 1 and isinstance(expr.args[1], ir.Lit) and expr.args[1].value is True
        )
        if spec.spark not in NULL_SKIPPING_AGGREGATES and not (spec.name in ("first", "last") and not null_flag):
            what = f"{spec.name!r} without ignorenulls" if null_flag else repr(spec.name)
            self.err(
                "agg_filter",
                f"{loc}/{fkey}",
                f"a filter is supported for aggregates that skip nulls ({', '.join(sorted(NULL_SKIPPING_AGGREGATES))}, first/last with ignorenulls); {what} does not",
            )
            return None
        slots: Sequence[Param | None] = spec.slots(len(expr.args)) or [None] * len(expr.args)
        args = tuple(
            ir.When(((cond, a),), None, a.loc) if slot is not None and slot.code == "e" else a
            for slot, a in zip(slots, expr.args)
        )
        new: ir.Expr = replace(expr, args=args)
        if cast is not None:
            new = replace(cast, expr=new)
        return replace(item, expr=new)

    # ---------------------------------------------------------------- expressions

    def type_arg(self, raw: Any, loc: str) -> Any:
        if isinstance(raw, _MAP) and "lit" in raw:
            raw, loc = raw["lit"], f"{loc}/lit"
        if not isinstance(raw, str):
            self.err("type_expected", loc, "expected a type name string such as 'int' or 'decimal(10,2)'", raw)
            return None
        try:
            t = parse_type(raw)
        except TypeParseError as exc:
            self.err("unknown_type", loc, str(exc), raw)
            return None
        problem = incomplete(t)
        if problem is not None:
            self.err("incomplete_type", loc, problem, raw)
            return None
        return t

    def expr_list(self, raw: Any, loc: str, depth: int = 0) -> list[ir.Expr] | None:
        if not isinstance(raw, (list, tuple)):
            self.err("args_type", loc, "'args' must be a list", raw)
            return None
        out = [self.expr(a, f"{loc}/{i}", depth + 1) for i, a in enumerate(raw)]
        if any(e is None for e in out):
            return None
        return [e for e in out if e is not None]

    def expr(self, raw: Any, loc: str, depth: int = 0, *, in_window: bool = False) -> ir.Expr | None:
        """Parse one expression (PLAN_FORMAT.md §3.1 order); None after recording errors.
        ``in_window``: the expression is the function of a window (window functions allowed)."""
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
                if (
                    type(name) is str
                    and "udf" not in raw
                    and "window" not in raw
                    and "over" not in raw
                    and "type" not in raw
                ):
                    return self.call(raw, name, loc, depth, in_window=in_window)
        if isinstance(raw, str):
            return self.column_ref(raw, loc)
        if raw is None or isinstance(raw, (bool, int, float)):
            return self.literal(raw, loc)
        if not isinstance(raw, _MAP):
            what = (
                'arrays are not expressions (use {"fn": "array", "args": [...]})'
                if isinstance(raw, (list, tuple))
                else "expected an expression object"
            )
            self.err("expr_type", loc, what, raw)
            return None
        for key in ("col", "column"):
            if isinstance(raw.get(key), str):
                if len(raw) > 1 and any(k in raw for k in ("fn", "function", "op", "lit")):
                    break
                return self.column_ref(raw[key], f"{loc}/{key}", side=self._side(raw, loc))
        if "lit" in raw:
            return self.literal(
                raw["lit"],
                f"{loc}/lit",
                type_raw=raw.get("type") if "type" in raw and raw.get("type") not in ("literal", "lit") else None,
                type_loc=f"{loc}/type",
            )
        if isinstance(raw.get("op"), str):
            return self.op_expr(raw, loc, depth)
        if isinstance(raw.get("udf"), str):
            return self.udf_expr(raw, raw["udf"], loc, depth)
        fkey, name = _first(raw, "fn", "function")
        if fkey is not None:
            if "window" in raw or "over" in raw or raw.get("type") == "window":
                return self.window_expr(raw, name, loc, depth)
            if not isinstance(name, str):
                self.err("fn_name", f"{loc}/{fkey}", "a function name must be a string", name)
                return None
            return self.call(raw, name, loc, depth, in_window=in_window)
        if "var" in raw:
            return self.lambda_var_ref(raw["var"], f"{loc}/var")
        if "lambda" in raw:
            self.err(
                "lambda_not_allowed",
                loc,
                "a lambda is only allowed as the function argument of a higher-order function (transform, filter, aggregate, ...)",
            )
            return None
        t = raw.get("type")
        if t == "column" and isinstance(raw.get("name"), str):
            return self.column_ref(raw["name"], f"{loc}/name")
        if t in ("literal", "lit") and "value" in raw:
            return self.literal(raw["value"], f"{loc}/value")
        if "col" in raw or "column" in raw:
            key = "col" if "col" in raw else "column"
            self.err("column_name", f"{loc}/{key}", "a column name must be a string", raw[key])
            return None
        self.err(
            "expr_form",
            loc,
            "an expression object needs one of 'col', 'lit', 'op', 'fn', 'udf' (or a window 'type')",
            raw,
        )
        return None

    def _no_side(self, item: Mapping[str, Any], loc: str) -> None:
        """Where a column object is read as a plain name, a 'side' key would be dropped."""
        if "side" in item and self._side(item, loc) is not None:
            self.err(
                "column_side",
                f"{loc}/side",
                "'side' is not read here: only a column reference in a join condition's expression picks a join input",
                item["side"],
            )

    def _side(self, raw: Mapping[str, Any], loc: str) -> str | None:
        side = raw.get("side")
        if side is None:
            return None
        if side not in ("left", "right"):
            self.err("column_side", f"{loc}/side", "'side' must be 'left' or 'right'", side)
            return None
        if not self._join_condition:
            self.err(
                "column_side",
                f"{loc}/side",
                "'side' picks a join input, so it only applies inside a join condition ('on'); elsewhere a column has one input",
                side,
            )
            return None
        return str(side)

    def column_ref(self, name: str, loc: str, side: str | None = None) -> ir.Expr | None:
        if not name:
            self.err("column_name", loc, "a column name must not be empty", name)
            return None
        if name == "*":
            return ir.Star(loc)
        if self._lambda_scopes and side is None:
            var = self._lambda_var(name)
            if var is not None:
                return ir.LambdaVar(var, loc)
        return ir.Col(name, loc, side)

    def lambda_var_ref(self, name: Any, loc: str) -> ir.Expr | None:
        """``{"var": "x"}``: a lambda parameter, which must be in scope."""
        if not isinstance(name, str) or not name:
            self.err("lambda_var", loc, "'var' must name a lambda parameter", name)
            return None
        var = self._lambda_var(name)
        if var is None:
            where = (
                "no lambda is in scope here"
                if not self._lambda_scopes
                else f"parameters in scope: {sorted({v for sc in self._lambda_scopes for v in sc.values()})}"
            )
            self.err("lambda_var", loc, f"{name!r} is not a lambda parameter ({where})", name)
            return None
        return ir.LambdaVar(var, loc)

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
        self.err(
            "literal_type",
            loc,
            "a literal must be null, a boolean, a number or a string (build arrays with the 'array' function)",
            value,
        )
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
            item_key = self._literal_or_expr(rraw, f"{loc}/{rkey}", depth)
            if left is None or item_key is None:
                return None
            return ir.ExtractValue(left, item_key, loc)
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
            hint = f'; {op!r} is a function: write {{"fn": {op!r}, "args": [...]}}'
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
            return (
                self.expr(raw["args"][0], f"{loc}/args/0", depth + 1),
                self.expr(raw["args"][1], f"{loc}/args/1", depth + 1),
            )
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

    def call(
        self,
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
        fkey = fn_key if fn_key in raw else "function"
        if spec is None:
            if name in SORT_FUNCTIONS:
                self.err(
                    "sort_order",
                    f"{loc}/{fkey}",
                    f"{name!r} is a sort order: use it as an orderBy or window order_by item, not as a value",
                    name,
                )
                return None
            near = suggest(name)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            self.err("unknown_function", f"{loc}/{fkey}", f"unknown function {name!r}{hint}", name)
            return None
        if spec.kind == "window" and not in_window:
            self.err(
                "window_required",
                loc,
                f'{name!r} is a window function: give it a \'window\' spec ({{"fn": {name!r}, "args": [...], "window": {{"partition_by": [...], "order_by": [...]}}}})',
            )
            return None
        akey = args_key
        raw_args = raw.get(akey, _MISSING)
        if raw_args is _MISSING:
            if spec.min_args == 0:
                raw_args = []
            else:
                self.err(
                    "missing_key", f"{loc}/{akey}", f"function {name!r} needs an 'args' list ({spec.arity_text()})"
                )
                return None
        if not isinstance(raw_args, (list, tuple)):
            self.err("args_type", f"{loc}/{akey}", f"'args' of {name!r} must be a list", raw_args)
            return None
        hook = _RAW_HOOKS.get(spec.special or "")
        if hook is not None:
            return hook(self, spec, list(raw_args), f"{loc}/{akey}", loc, depth)
        parsed = self.arguments(
            spec, [(a, f"{loc}/{akey}/{i}") for i, a in enumerate(raw_args)], f"{loc}/{akey}", depth
        )
        if parsed is None:
            return None
        args = parsed
        if spec.name in ("count", "count_distinct") and len(args) == 1 and isinstance(args[0], ir.Star):
            args = [ir.Lit(1, args[0].loc)]  # count(*) counts rows: count(1), as PySpark sends it
        distinct = spec.distinct or raw.get("distinct") is True or raw.get("isDistinct") is True
        desugar = _DESUGAR.get(spec.special or "")
        if desugar is not None:
            out = desugar(self, spec, args, loc)
        else:
            out = ir.Call(spec.name, tuple(args), loc, distinct=distinct)
        if "otherwise" in raw and out is not None:
            out = self._otherwise_key(out, raw["otherwise"], f"{loc}/otherwise", depth)
        return out

    def arguments(
        self, spec: FunctionSpec, raw_args: list[tuple[Any, str]], loc: str, depth: int
    ) -> list[ir.Expr] | None:
        """Parse call arguments against the row's slots: arity, literal slots, lambdas,
        then the literals PySpark sends for omitted optional slots (``fill``)."""
        n = len(raw_args)
        indices = spec.slot_indices(n)
        if indices is None:
            self.err(
                "arity", loc, f"function {spec.name!r} takes {spec.arity_text()}, got {n}", [a for a, _ in raw_args]
            )
            return None
        args: list[ir.Expr] = []
        ok = True
        for (a, aloc), j in zip(raw_args, indices):
            e = self.argument(a, spec.params[j], aloc, depth, spec)
            if e is None:
                ok = False
            else:
                args.append(e)
        if not ok:
            return None
        if spec.fill and not spec.cycle:
            args = self._fill_defaults(spec, args, indices, loc)
        return args

    @staticmethod
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

    def argument(self, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
        if param.code == "e":
            return self.expr(raw, loc, depth + 1)
        if param.code == "X":
            return self.lambda_arg(raw, param, loc, depth, spec)
        if param.code == "T":
            t = self.type_arg(raw, loc)
            return ir.Lit(raw["lit"] if isinstance(raw, Mapping) else raw, loc, t) if t is not None else None
        if param.code == "M":
            return self.options_arg(raw, loc, depth, spec)
        # literal slot: bare values (and {"lit"}) are checked against the slot's kind;
        # other expression objects pass through for Spark to type-check
        value, vloc = raw, loc
        if isinstance(raw, _MAP):
            if "lit" not in raw:
                if "lambda" in raw:
                    self.err(
                        "lambda_not_allowed",
                        loc,
                        f"argument ({param.name or 'value'}) of {spec.name!r} is not a function slot",
                    )
                    return None
                return self.expr(raw, loc, depth + 1)
            value, vloc = raw["lit"], f"{loc}/lit"
        if isinstance(value, (list, tuple)) and param.code in ("F", "I", "N", "S", "B", "L"):
            # a JSON array in a literal slot is an array literal (PySpark's lit([...]))
            items: list[ir.Expr] = []
            for i, v in enumerate(value):
                e = self._slot_literal(v, param, f"{vloc}/{i}", spec, in_array=True)
                if e is None:
                    return None
                items.append(e)
            return ir.Call("array", tuple(items), vloc)
        return self._slot_literal(value, param, vloc, spec)

    def _slot_literal(
        self, value: Any, param: Param, loc: str, spec: FunctionSpec, in_array: bool = False
    ) -> ir.Expr | None:
        if value is None:
            return ir.Lit(None, loc)
        problem = _check_literal(param.code, value)
        if problem:
            what = f" ({param.name})" if param.name else ""
            each = "each element of " if in_array else ""
            self.err("literal_expected", loc, f"{each}argument{what} of {spec.name!r} must be {problem}", value)
            return None
        return self.literal(value, loc)

    def options_arg(self, raw: Any, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
        """An options map: a JSON object of scalars → ``map('k', 'v', ...)`` of strings, as
        PySpark sends ``options={...}`` (values are stringified)."""
        if not isinstance(raw, Mapping):
            self.err(
                "options_expected",
                loc,
                f"the options of {spec.name!r} must be a JSON object of option names to values",
                raw,
            )
            return None
        items: list[ir.Expr] = []
        for k, v in raw.items():
            if v is not None and not isinstance(v, (str, bool, int, float)):
                self.err("options_expected", f"{loc}/{k}", "an option value must be a string, number or boolean", v)
                return None
            text = "true" if v is True else "false" if v is False else str(v) if v is not None else None
            if text is None:
                self.err("options_expected", f"{loc}/{k}", "an option value must not be null")
                return None
            items += [ir.Lit(str(k), f"{loc}/{k}"), ir.Lit(text, f"{loc}/{k}")]
        return ir.Call("create_map", tuple(items), loc)

    # ---- lambdas

    def lambda_arg(self, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
        """``{"lambda": {"params": ["x", "y"], "body": <expr>}}`` (also ``{"params", "body"}``
        directly). Inside the body ``{"col": "x"}``, ``{"var": "x"}`` and the bare string
        ``"x"`` name the parameter; other names are columns."""
        inner, iloc = raw, loc
        if isinstance(raw, Mapping) and "lambda" in raw:
            inner, iloc = raw["lambda"], f"{loc}/lambda"
        if not isinstance(inner, Mapping) or "body" not in inner:
            self.err(
                "lambda_expected",
                loc,
                f'argument ({param.name or "function"}) of {spec.name!r} must be a lambda: {{"lambda": {{"params": ["x"], "body": ...}}}}',
                raw,
            )
            return None
        pkey, params = _first(inner, "params", "args", "parameters")
        if pkey is None:
            self.err("lambda_expected", f"{iloc}/params", "a lambda needs 'params', a list of parameter names")
            return None
        ploc = f"{iloc}/{pkey}"
        if isinstance(params, str):
            params = [params]
        if not isinstance(params, (list, tuple)) or not params:
            self.err("lambda_params", ploc, "a lambda's 'params' must be a non-empty list of names", params)
            return None
        names: list[str] = []
        for i, p in enumerate(params):
            if not isinstance(p, str) or not _IDENT.match(p):
                self.err(
                    "lambda_params", f"{ploc}/{i}", "a lambda parameter must be a simple name (letters, digits, _)", p
                )
                return None
            if p.lower() in (n.lower() for n in names):
                self.err("lambda_params", f"{ploc}/{i}", f"lambda parameter {p!r} appears twice", p)
                return None
            names.append(p)
        if param.arities and len(names) not in param.arities:
            want = " or ".join(str(a) for a in param.arities)
            self.err(
                "lambda_arity",
                ploc,
                f"the lambda of {spec.name!r} ({param.name or 'function'}) takes {want} parameter{'s' if param.arities != (1,) else ''}, got {len(names)}",
                list(params),
            )
            return None
        self._lambda_scopes.append({n.lower(): n for n in names})
        try:
            body = self.expr(inner["body"], f"{iloc}/body", depth + 1)
        finally:
            self._lambda_scopes.pop()
        if body is None:
            return None
        return ir.Lambda(tuple(names), body, iloc)

    def _lambda_var(self, name: str) -> str | None:
        key = name.lower()
        for scope in reversed(self._lambda_scopes):
            if key in scope:
                return scope[key]
        return None

    # ---- conditionals

    def _otherwise_key(self, expr: ir.Expr, raw: Any, loc: str, depth: int) -> ir.Expr | None:
        value = self.expr(raw, loc, depth + 1)
        if value is None:
            return None
        return _with_otherwise(self, expr, value, loc)

    # ---- UDFs

    def udf_expr(self, raw: Mapping[str, Any], name: str, loc: str, depth: int) -> ir.Expr | None:
        raw_args = raw.get("args", [])
        args = self.expr_list(raw_args, f"{loc}/args", depth)
        if args is None:
            return None
        return ir.UdfCall(name, tuple(args), loc)

    # ---- windows

    def window_expr(self, raw: Mapping[str, Any], name: Any, loc: str, depth: int) -> ir.Expr | None:
        """``{"fn": f, "args": [...], "window": {...}}`` and the Sparkless
        ``{"type": "window", "function": f | <expr>, "window": {...}}``."""
        wkey, spec_raw = _first(raw, "window", "over")
        if wkey is None:
            # Sparkless may put the spec keys on the node itself
            spec_raw, wloc = {k: v for k, v in raw.items() if k in _WINDOW_SPEC_KEYS}, loc
        else:
            wloc = f"{loc}/{wkey}"
        if not isinstance(spec_raw, Mapping):
            self.err(
                "window_spec",
                wloc,
                'a window spec must be an object {"partition_by": [...], "order_by": [...], "rows_between": [start, end]}',
                spec_raw,
            )
            return None
        fkey = "fn" if "fn" in raw else "function"
        func: ir.Expr | None
        fname: str | None = None
        if isinstance(name, str):
            fname = name
            spec = CATALOG.get(name)
            if spec is not None and spec.kind not in ("window", "aggregate"):
                self.err(
                    "not_window_function",
                    f"{loc}/{fkey}",
                    f"{name!r} is not a window or aggregate function, so it cannot have a window",
                    name,
                )
                return None
            func = self.call(raw, name, loc, depth, in_window=True)
        elif isinstance(name, Mapping):
            func = self.expr(name, f"{loc}/{fkey}", depth + 1, in_window=True)
            if isinstance(func, ir.Call):
                fname = func.fn
        else:
            self.err(
                "fn_name", f"{loc}/{fkey}", "a window function must be a function name or a function expression", name
            )
            return None
        spec_ir = self.window_spec(spec_raw, wloc, depth)
        if func is None or spec_ir is None:
            return None
        partition, order, frame = spec_ir
        if not order and fname is not None and fname in _NEEDS_ORDER:
            # robin: a ranking function without order_by is ordered by the partition
            # columns; with neither, the order is a constant (ties everywhere)
            if partition:
                order = tuple(ir.SortKey(p, True, None, wloc) for p in partition)
            else:
                order = (ir.SortKey(ir.Lit(1, wloc), True, None, wloc),)
        return ir.Window(func, partition, order, frame, loc)

    def window_spec(
        self, raw: Mapping[str, Any], loc: str, depth: int
    ) -> tuple[tuple[ir.Expr, ...], tuple[ir.SortKey, ...], ir.Frame | None] | None:
        unknown = [k for k in raw if k not in _WINDOW_SPEC_KEYS]
        if unknown:
            self.err(
                "window_spec",
                f"{loc}/{unknown[0]}",
                f"unknown window spec key {unknown[0]!r} (expected partition_by, order_by, rows_between, range_between, frame)",
                unknown[0],
            )
            return None
        ok = True
        partition: list[ir.Expr] = []
        pkey, praw = _first(raw, "partition_by", "partitionBy", "partition")
        if pkey is not None and praw is not None:
            items = [praw] if isinstance(praw, (str, Mapping)) else praw
            if not isinstance(items, (list, tuple)):
                self.err(
                    "window_spec", f"{loc}/{pkey}", "'partition_by' must be a list of columns or expressions", praw
                )
                return None
            for i, item in enumerate(items):
                iloc = f"{loc}/{pkey}/{i}" if items is praw else f"{loc}/{pkey}"
                e = self._partition_item(item, iloc, depth)
                if e is None:
                    ok = False
                else:
                    partition.append(e)
        order: list[ir.SortKey] = []
        okey, oraw = _first(raw, "order_by", "orderBy", "order")
        if okey is not None and oraw is not None:
            items = [oraw] if isinstance(oraw, (str, Mapping)) else oraw
            if not isinstance(items, (list, tuple)):
                self.err("window_spec", f"{loc}/{okey}", "'order_by' must be a list of columns or sort items", oraw)
                return None
            keys = self.sort_keys(items, raw, f"{loc}/{okey}", loc, single=items is not oraw)
            if keys is None:
                ok = False
            else:
                order = keys
        frame = self.frame(raw, loc)
        if frame is _FAILED or not ok:
            return None
        return tuple(partition), tuple(order), frame  # type: ignore[return-value]

    def _partition_item(self, item: Any, loc: str, depth: int) -> ir.Expr | None:
        if isinstance(item, Mapping) and not any(k in item for k in ("fn", "function", "op", "lit", "udf", "expr")):
            name = self.column_name(item, loc)
            return ir.Col(name, loc) if name is not None else None
        if isinstance(item, Mapping) and "expr" in item:
            return self.expr(item["expr"], f"{loc}/expr", depth + 1)
        return self.expr(item, loc, depth + 1)

    _FRAME_KEYS = (
        ("rows_between", "rows"),
        ("rowsBetween", "rows"),
        ("range_between", "range"),
        ("rangeBetween", "range"),
    )

    def frame(self, raw: Mapping[str, Any], loc: str) -> ir.Frame | object | None:
        found = [(k, kind) for k, kind in self._FRAME_KEYS if k in raw and raw[k] is not None]
        if "frame" in raw and raw["frame"] is not None:
            f = raw["frame"]
            floc = f"{loc}/frame"
            if not isinstance(f, Mapping):
                self.err(
                    "window_frame", floc, '\'frame\' must be {"type": "rows"|"range", "start": ..., "end": ...}', f
                )
                return _FAILED
            tkey, kind = _first(f, "type", "kind", "frame_type")
            inner = [(k, fk) for k, fk in (("rows", "rows"), ("range", "range")) if k in f]
            if tkey is None and len(inner) == 1:
                return self._bounds(f[inner[0][0]], inner[0][1], f"{floc}/{inner[0][0]}")
            if not isinstance(kind, str) or kind.lower() not in ("rows", "range", "row"):
                self.err("window_frame", f"{floc}/{tkey or 'type'}", "a frame's 'type' must be 'rows' or 'range'", kind)
                return _FAILED
            found.append(("frame", "range" if kind.lower() == "range" else "rows"))
        if not found:
            return None
        if len(found) > 1:
            self.err("window_frame", loc, f"a window has one frame; found {[k for k, _ in found]}")
            return _FAILED
        key, kind = found[0]
        return self._bounds(raw[key], kind, f"{loc}/{key}")

    def _bounds(self, raw: Any, kind: str, loc: str) -> ir.Frame | object:
        if isinstance(raw, (list, tuple)) and len(raw) == 2:
            (lo, lo_loc), (hi, hi_loc) = (raw[0], f"{loc}/0"), (raw[1], f"{loc}/1")
        elif isinstance(raw, Mapping):
            lk, lo = _first(raw, "start", "lower", "from")
            hk, hi = _first(raw, "end", "upper", "to")
            if lk is None or hk is None:
                self.err("window_frame", loc, "a frame needs 'start' and 'end'", raw)
                return _FAILED
            lo_loc, hi_loc = f"{loc}/{lk}", f"{loc}/{hk}"
        else:
            self.err("window_frame", loc, 'a frame is [start, end] or {"start": ..., "end": ...}', raw)
            return _FAILED
        lower = self._boundary(lo, lo_loc, "start")
        upper = self._boundary(hi, hi_loc, "end")
        if lower is _FAILED or upper is _FAILED:
            return _FAILED
        if isinstance(lower, int) and isinstance(upper, int) and lower > upper:
            self.err("window_frame", loc, f"the frame starts after it ends ({lower} > {upper})", raw)
            return _FAILED
        return ir.Frame(kind, lower, upper, loc)  # type: ignore[arg-type]

    def _boundary(self, v: Any, loc: str, side: str) -> int | object | None:
        """A frame boundary: None = unbounded on that side, 0 = current row, else an offset
        (negative = preceding). Markers in any spelling; PySpark's huge sentinel values too."""
        if isinstance(v, Mapping) and "lit" in v:
            v = v["lit"]
        if v is None:
            return None
        if isinstance(v, str):
            word = re.sub(r"[\s_-]", "", v).lower()
            if word in ("currentrow", "current"):
                return 0
            if word == "unbounded" or word == f"unbounded{'preceding' if side == 'start' else 'following'}":
                return None
            if word in ("unboundedpreceding", "unboundedfollowing"):
                self.err("window_frame", loc, f"a frame cannot {side} at {v!r}", v)
                return _FAILED
            self.err(
                "window_frame",
                loc,
                "a frame boundary is an integer offset, 'currentRow', 'unboundedPreceding' or 'unboundedFollowing'",
                v,
            )
            return _FAILED
        if isinstance(v, bool) or not isinstance(v, int):
            self.err("window_frame", loc, "a frame boundary offset must be an integer", v)
            return _FAILED
        if v <= -(2**31) or v >= 2**31 - 1:
            # PySpark's Window.unboundedPreceding / unboundedFollowing are ±sys.maxsize-ish
            if (v < 0) != (side == "start"):
                self.err("window_frame", loc, f"a frame cannot {side} unbounded on that side", v)
                return _FAILED
            return None
        return v


_SORT_KEYS = {
    "asc",
    "ascending",
    "desc",
    "descending",
    "nulls_first",
    "nulls_last",
    "nullsFirst",
    "nullsLast",
    "direction",
}


#: the only calls Spark binds as SQL parameters (its parameter check allows Literal,
#: CreateArray, CreateNamedStruct, CreateMap, MapFromArrays, MapFromEntries and aliases)
_SQL_ARG_CONSTRUCTORS = frozenset({"array", "struct", "named_struct", "map", "map_from_arrays", "map_from_entries"})


def _sql_arg_kind(node: ir.Expr) -> str:
    if isinstance(node, ir.Col):
        return f'a column reference {node.name!r} (inside a function call a bare string is a column: write {{"lit": {json.dumps(node.name)}}} for the string)'
    if isinstance(node, ir.Call):
        distinct = " with distinct" if node.distinct else ""
        return f"a call of {node.fn!r}{distinct}"
    if isinstance(node, ir.Cast):
        return 'a cast (write a typed literal {"lit": value, "type": ...} instead)'
    return {
        "When": "a when/otherwise expression",
        "Window": "a window function",
        "UdfCall": "a UDF call",
        "Lambda": "a lambda",
        "Star": "a star",
        "ExtractValue": "a field or element access",
    }.get(type(node).__name__, type(node).__name__)


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


def _finite_number(v: int | float) -> bool:
    """True for numbers a double holds finitely (10**400 or NaN are not)."""
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


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


def _arrow_reason(exc: BaseException) -> str:
    """pyarrow's message without its repetition of the column (it wraps both in a tuple)."""
    first = next(iter(exc.args), None)
    return first if isinstance(first, str) else str(exc)


#: Spark aggregates that ignore null inputs: ``agg(x) FILTER (WHERE c)`` equals
#: ``agg(CASE WHEN c THEN x END)`` for exactly these
NULL_SKIPPING_AGGREGATES = frozenset(
    {
        "count",
        "sum",
        "avg",
        "mean",
        "min",
        "max",
        "count_distinct",
        "approx_count_distinct",
        "collect_list",
        "collect_set",
        "array_agg",
        "stddev",
        "stddev_samp",
        "stddev_pop",
        "std",
        "variance",
        "var_samp",
        "var_pop",
        "skewness",
        "kurtosis",
        "corr",
        "covar_samp",
        "covar_pop",
        "bool_and",
        "bool_or",
        "every",
        "some",
        "any",
        "bit_and",
        "bit_or",
        "bit_xor",
        "median",
        "percentile",
        "percentile_approx",
        "approx_percentile",
        "count_if",
        "product",
        "sum_distinct",
    }
)

_SINGLE_JOIN = {"single", "leftsingle", "left_single"}
_SINGLE_JOIN_MESSAGE = (
    "Spark has no single join (Substrait 'single': at most one right match per left row, "
    "null when none); write a 'left' join, after making the right side unique on the join "
    "keys (distinct, or groupBy on the keys) when more than one match is possible"
)

_EXTENSION_KEYS = ("conf", "with", "output")


def _is_extended_document(doc: Mapping[str, Any]) -> bool:
    """Does the document use anything beyond ``{"input": {"schema", "rows"}, "plan"}``?"""
    if any(k in doc for k in _EXTENSION_KEYS):
        return True
    inp = doc.get("input")
    if not isinstance(inp, Mapping):
        return inp is None and raw_starts_with_read(doc.get("plan"))
    return any(k in inp for k in ("table", "files", "path", "paths", "range", "sql", "ref", "plan")) or (
        "format" in inp and "schema" not in inp
    )


def _raw_first_index(steps: Any) -> int:
    """Index of the first raw step other than ``stop`` (a no-op), or 0."""
    if isinstance(steps, (list, tuple)):
        for i, step in enumerate(steps):
            if not (isinstance(step, Mapping) and step.get("op") == "stop"):
                return i
    return 0


def raw_starts_with_read(steps: Any) -> bool:
    """The first step other than ``stop`` is ``read``."""
    if not isinstance(steps, (list, tuple)) or not steps:
        return False
    step = steps[_raw_first_index(steps)]
    return isinstance(step, Mapping) and step.get("op") == "read"


def _first_step(steps: tuple[ir.Step, ...]) -> ir.Step | None:
    """The first parsed step other than ``stop``."""
    return next((s for s in steps if not isinstance(s, ir.Stop)), None)


def _quote_name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _group_key(g: Any) -> str:
    """How grouping-set members are matched to grouping columns: by (case-insensitive)
    column name, else by the expression's JSON."""
    if isinstance(g, str):
        return "col:" + g.lower()
    if isinstance(g, Mapping) and not any(k in g for k in ("fn", "function", "op", "expr")):
        for k in ("col", "column", "name"):
            name = g.get(k)
            if isinstance(name, str):
                return "col:" + name.lower()
    try:
        return "expr:" + json.dumps(g, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return "expr:" + repr(g)


_SOURCE_PARSERS: dict[str, Callable[[Parser, Mapping[str, Any], str], ir.Source | None]] = {
    "table": Parser._table_source,
    "files": Parser._file_source,
    "range": Parser._range_source,
    "sql": Parser._sql_source,
    "ref": Parser._ref_source,
}


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


def _with_otherwise(p: Parser, expr: ir.Expr, value: ir.Expr, loc: str) -> ir.Expr | None:
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


def _desugar_otherwise(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    return _with_otherwise(p, args[0], args[1], loc)


def _string_lit(p: Parser, e: ir.Expr, what: str) -> str | None:
    if isinstance(e, ir.Lit) and isinstance(e.value, str) and e.value and e.type is None:
        return e.value
    p.err("literal_expected", e.loc, f"{what} must be a non-empty string literal")
    return None


def _desugar_udf(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    name = _string_lit(p, args[0], "the UDF name (first argument of call_udf)")
    return ir.UdfCall(name, tuple(args[1:]), loc) if name is not None else None


def _desugar_call_function(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    if _string_lit(p, args[0], "the function name (first argument of call_function)") is None:
        return None
    return ir.Call(spec.name, tuple(args), loc)


def _desugar_extract(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    return ir.ExtractValue(args[0], args[1], loc)


def _desugar_get(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """An integer literal index: Spark's get (0-based, null out of range); else x[key]."""
    key = args[1]
    if isinstance(key, ir.Lit) and isinstance(key.value, int) and not isinstance(key.value, bool):
        return ir.Call(spec.name, tuple(args), loc)
    return ir.ExtractValue(args[0], key, loc)


def _desugar_log(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """Canonical order (value, base): robin's log(value, base), or PySpark's log(base, value)
    when only the first argument is a number literal."""
    if len(args) == 2:
        first, second = args

        def number(e: ir.Expr) -> bool:
            return isinstance(e, ir.Lit) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool)

        if number(first) and not number(second):
            args = [second, first]
    return ir.Call(spec.name, tuple(args), loc)


def _desugar_interval(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """robin's durations days(n), hours(n) ... → make_dt_interval / make_ym_interval, with
    the other parts zero (as PySpark's make_dt_interval(days=n) sends them)."""
    target, position = {
        "days": ("make_dt_interval", 0),
        "hours": ("make_dt_interval", 1),
        "minutes": ("make_dt_interval", 2),
        "months": ("make_ym_interval", 1),
        "years": ("make_ym_interval", 0),
    }[spec.name]
    row = CATALOG[target]
    parts = [args[0] if i == position else ir.Lit(row.fill[i], loc) for i in range(len(row.params))]
    return ir.Call(target, tuple(parts), loc)


def _desugar_to_char(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    if len(args) == 1:  # robin: no format = cast to string
        return ir.Cast(args[0], parse_type("string"), loc)
    return ir.Call(spec.name, tuple(args), loc)


def _desugar_to_number(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    if len(args) == 1:  # robin: no format = cast to double
        return ir.Cast(args[0], parse_type("double"), loc, "try" if spec.name == "try_to_number" else "cast")
    return ir.Call(spec.name, tuple(args), loc)


def _desugar_array_sum(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """aggregate(a, zero, (acc, x) -> acc + coalesce(x, 0)); zero has the element type."""
    arr = args[0]
    zero_lit = ir.Lit(0, loc)
    first = ir.Call("try_element_at", (arr, ir.Lit(1, loc)), loc)
    zero = ir.Call("coalesce", (ir.Call("*", (first, zero_lit), loc), zero_lit), loc)
    acc, x = ir.LambdaVar("acc", loc), ir.LambdaVar("x", loc)
    body = ir.Call("+", (acc, ir.Call("coalesce", (x, zero_lit), loc)), loc)
    return ir.Call("aggregate", (arr, zero, ir.Lambda(("acc", "x"), body, loc)), loc)


_DESUGAR: dict[str, Callable[[Parser, FunctionSpec, list[ir.Expr], str], ir.Expr | None]] = {
    "cast": _desugar_cast,
    "when": _desugar_when,
    "otherwise": _desugar_otherwise,
    "not_equal": _desugar_not_equal,
    "udf": _desugar_udf,
    "call_function": _desugar_call_function,
    "extract": _desugar_extract,
    "get": _desugar_get,
    "log": _desugar_log,
    "interval": _desugar_interval,
    "to_char": _desugar_to_char,
    "to_number": _desugar_to_number,
    "array_sum": _desugar_array_sum,
}


def _is_string_arg(raw: Any) -> bool:
    return isinstance(raw, str) or (isinstance(raw, Mapping) and isinstance(raw.get("lit"), str) and len(raw) == 1)


def _string_value(raw: Any) -> str:
    return raw if isinstance(raw, str) else str(raw["lit"])


#: field names of Spark's extract / date_part (case-insensitive)
_DATE_FIELDS = frozenset(
    """
YEAR Y YEARS YR YRS YEAROFWEEK QUARTER QTR MONTH MON MONS MONTHS WEEK W WEEKS DAY D DAYS
DAYOFWEEK DOW DAYOFWEEK_ISO DOW_ISO DOY HOUR H HOURS HR HRS MINUTE M MIN MINS MINUTES SECOND S
SEC SECONDS SECS
""".split()
)


def _hook_date_part(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """robin's extract(source, field) or PySpark's extract(field, source): the field is the
    string literal (a bare string in the second position is the field, as in robin)."""
    if len(raw_args) != 2:
        p.err(
            "arity",
            args_loc,
            f"function {spec.name!r} takes exactly 2 arguments (source, field), got {len(raw_args)}",
            raw_args,
        )
        return None
    # the field is the string literal naming a field; prefer robin's order when unsure
    fields = [_is_string_arg(a) and _string_value(a).upper() in _DATE_FIELDS for a in raw_args]
    if fields[1] or (not fields[0] and _is_string_arg(raw_args[1])):
        field_i, source_i = 1, 0
    elif fields[0] or (isinstance(raw_args[0], Mapping) and _is_string_arg(raw_args[0])):
        field_i, source_i = 0, 1
    else:
        p.err(
            "literal_expected",
            args_loc,
            f"{spec.name}(source, field) needs the field ('year', 'month', ...) as a string literal",
            raw_args,
        )
        return None
    field = p.argument(raw_args[field_i], Param("S", "field"), f"{args_loc}/{field_i}", depth, spec)
    source = p.expr(raw_args[source_i], f"{args_loc}/{source_i}", depth + 1)
    if field is None or source is None:
        return None
    return ir.Call(spec.name, (field, source), loc)


def _hook_array_sort(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """array_sort(a) / array_sort(a, asc) → sort_array (robin's null placement);
    array_sort(a, lambda) → Spark's array_sort with a comparator."""
    if len(raw_args) not in (1, 2):
        p.err("arity", args_loc, f"function 'array_sort' takes 1 or 2 arguments, got {len(raw_args)}", raw_args)
        return None
    arr = p.expr(raw_args[0], f"{args_loc}/0", depth + 1)
    if len(raw_args) == 1:
        return ir.Call("sort_array", (arr, ir.Lit(True, loc)), loc) if arr is not None else None
    second = raw_args[1]
    if isinstance(second, Mapping) and ("lambda" in second or "body" in second):
        fn_arg = p.lambda_arg(second, spec.params[1], f"{args_loc}/1", depth, spec)
        if arr is None or fn_arg is None:
            return None
        return ir.Call("array_sort", (arr, fn_arg), loc)
    asc = p.argument(second, Param("B", "ascending"), f"{args_loc}/1", depth, spec)
    if arr is None or asc is None:
        return None
    return ir.Call("sort_array", (arr, asc), loc)


def _hook_isin(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """isin(x, v1, v2, ...); a single list of values is spread, as PySpark's isin([...])."""
    pairs = [(a, f"{args_loc}/{i}") for i, a in enumerate(raw_args)]
    if len(raw_args) == 2:
        values, vloc = raw_args[1], f"{args_loc}/1"
        if isinstance(values, Mapping) and set(values) == {"lit"} and isinstance(values["lit"], (list, tuple)):
            values, vloc = values["lit"], f"{vloc}/lit"
        if isinstance(values, (list, tuple)):
            pairs = [pairs[0], *((v, f"{vloc}/{i}") for i, v in enumerate(values))]
    args = p.arguments(spec, pairs, args_loc, depth)
    return ir.Call(spec.name, tuple(args), loc) if args is not None else None


#: make_timestamp's two forms (PySpark's keyword arguments), by argument count; the time
#: zone slot exists where the catalog row has one
_TIMESTAMP_PARTS = "e years, e months, e days, e hours, e mins, e secs"
_MAKE_TIMESTAMP_FORMS: dict[int, tuple[Param, ...]] = {
    2: parse_signature("e date, e time"),
    3: parse_signature("e date, e time, S timezone"),
    6: parse_signature(_TIMESTAMP_PARTS),
    7: parse_signature(_TIMESTAMP_PARTS + ", S timezone"),
}


def _hook_make_timestamp(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """(years, months, days, hours, mins, secs[, timezone]) or (date, time[, timezone]): the
    time zone is the last argument of either form, a string literal slot."""
    zoned = spec.params[-1].code == "S"
    counts = (2, 3, 6, 7) if zoned else (2, 6)
    form = _MAKE_TIMESTAMP_FORMS.get(len(raw_args)) if len(raw_args) in counts else None
    if form is None:
        tz = "[, timezone]" if zoned else ""
        p.err(
            "arity",
            args_loc,
            f"function {spec.name!r} takes (years, months, days, hours, mins, secs{tz}) or (date, time{tz}): "
            f"{' or '.join(map(str, counts))} arguments, got {len(raw_args)}",
            raw_args,
        )
        return None
    args = [p.argument(a, param, f"{args_loc}/{i}", depth, spec) for i, (a, param) in enumerate(zip(raw_args, form))]
    if any(a is None for a in args):
        return None
    return ir.Call(spec.name, tuple(a for a in args if a is not None), loc)


_RAW_HOOKS: dict[str, Callable[[Parser, FunctionSpec, list[Any], str, str, int], ir.Expr | None]] = {
    "make_timestamp": _hook_make_timestamp,
    "date_part": _hook_date_part,
    "array_sort": _hook_array_sort,
    "isin": _hook_isin,
}

_unhandled = PARSER_SPECIALS - set(_DESUGAR) - set(_RAW_HOOKS)
if _unhandled:  # pragma: no cover - a developer error caught by importing the module
    raise RuntimeError(f"special forms the parser should handle but does not: {sorted(_unhandled)}")

#: functions Spark needs an ordered window for (robin orders them by the partition columns)
_NEEDS_ORDER = frozenset(
    {"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "nth_value"}
)
_WINDOW_SPEC_KEYS = frozenset(
    {
        "partition_by",
        "partitionBy",
        "partition",
        "order_by",
        "orderBy",
        "order",
        "rows_between",
        "rowsBetween",
        "range_between",
        "rangeBetween",
        "frame",
        "ascending",
        "asc",
        "nulls_first",
        "nullsFirst",
        "nulls_last",
        "nullsLast",
    }
)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FAILED = object()

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
    "sort": Parser._order_by,  # extension: Substrait's Sort, DataFrame.sort (= orderBy)
    "sortWithinPartitions": Parser._order_by,
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
    # extensions (docs/plan-format.md)
    "read": Parser._read,
    "intersect": Parser._set_op,
    "intersectAll": Parser._set_op,
    "except": Parser._set_op,
    "exceptAll": Parser._set_op,
    "subtract": Parser._set_op,
    "unionAll": Parser._set_op,
    "minusPrimary": Parser._set_op,
    "intersectPrimary": Parser._set_op,
    "fetch": Parser._fetch,
    "groupingSets": Parser._grouping_sets,
    "sample": Parser._sample,
    "repartition": Parser._repartition,
    "coalesce": Parser._repartition,
    "hint": Parser._hint,
    "tail": Parser._tail,
    "write": Parser._write,
    "createOrReplaceTempView": Parser._temp_view,
    "createTempView": Parser._temp_view,
    "createOrReplaceGlobalTempView": Parser._temp_view,
    "createGlobalTempView": Parser._temp_view,
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
        raise PlanError.single(
            "json_syntax", "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
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


__all__ += ["Parser", "is_table_input", "raw_starts_with_read"]
