"""Plan documents and their inputs: ``{"input", "plan"}``, the extended document (``conf``,
``with`` definitions, ``output``, a non-inline ``input`` or a first ``read`` step), nested
documents, sources (tables, files, ranges, SQL, refs), the step list and the dispatch of
each step to its registered parser, and :func:`finish`, which takes a leading ``read`` and
a trailing output out of the step list.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ... import ir
from ...data import CoerceError, coerce_value
from ...errors import PlanError
from ...functions import CATALOG
from ...limits import CHEAP_WALK_NODES, MAX_JSON_CHARS, MAX_PLAN_NESTING, MAX_STEPS
from ...names import quote
from ...shapes import cycle_location, encodable, plain_tree_encodable, shape, shape_problem
from ...types import ArrayType, DataType, MapType, Primitive, StructType, type_string
from .core import MAP, MISSING, STEP_PARSERS, Parser, RawStep, check_keys, key, options, step
from .expressions import literal_or_expr
from .inline import inline, parse_schema
from .outputs import output
from .spellings import (
    DOCUMENT_EXTENSION_KEYS,
    DOCUMENT_KEYS,
    NOT_OPS_HINTS,
    PAYLOAD_KEYS,
    RANGE_KEYS,
    ROWS_INPUT_KEYS,
    SOURCE_KEYS,
    SOURCE_KINDS,
    STEP_KEYS,
)

__all__ = [
    "document",
    "finish",
    "load_json",
    "parse_steps",
    "plan_from_rows",
    "raw_starts_with_read",
    "source",
]

#: the only calls Spark binds as SQL parameters (its parameter check allows Literal,
#: CreateArray, CreateNamedStruct, CreateMap, MapFromArrays, MapFromEntries and aliases)
_SQL_ARG_CONSTRUCTORS = frozenset({"array", "struct", "named_struct", "map", "map_from_arrays", "map_from_entries"})
_SQL_PARAMETER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


# ---------------------------------------------------------------- documents


def document(p: Parser, doc: Any, loc: str = "") -> ir.Plan | None:
    """A plan document ``{"input": {"schema", "rows"}, "plan": [...]}``."""
    if not isinstance(doc, MAP):
        p.err("document_type", loc or "/", "a plan document must be a JSON object with 'input' and 'plan'", doc)
        return None
    check_keys(p, doc, loc, DOCUMENT_KEYS, "a plan document")
    if _is_extended_document(doc):
        checked = {k: v for k, v in doc.items() if k != "input"}
        inp = doc.get("input")
        if isinstance(inp, Mapping):  # inline rows are checked value by value when converted
            checked["input"] = {k: v for k, v in inp.items() if k not in ("rows", "data")}
        if not _valid_unicode(p, checked, loc):
            return None
        return _extended_document(p, doc, loc)
    inp = doc.get("input")
    steps_raw = doc.get("plan", MISSING)
    if steps_raw is MISSING:
        p.err("missing_key", f"{loc}/plan", "a plan document needs a 'plan' array")
        steps_raw = []
    if not isinstance(inp, MAP):
        p.err(
            "missing_key",
            f"{loc}/input",
            "a plan document needs an 'input' object with 'schema' and 'rows'",
            inp if inp is not None else MISSING,
        )
        return None
    check_keys(p, inp, f"{loc}/input", ROWS_INPUT_KEYS, "a rows input")
    rows_key, rows = key(inp, "input", "rows")
    schema_key, schema = key(inp, "input", "schema")
    if schema_key is None:
        p.err("missing_key", f"{loc}/input/schema", "input needs a 'schema' list")
        return None
    if rows_key is None:
        rows, rows_key = [], "rows"
    return plan_from_rows(p, rows, schema, steps_raw, f"{loc}/input/{rows_key}", f"{loc}/input/schema", f"{loc}/plan")


def plan_from_rows(
    p: Parser, rows: Any, schema: Any, steps_raw: Any, rows_loc: str, schema_loc: str, plan_loc: str
) -> ir.Plan | None:
    """The robin-style pieces: rows, their schema and the step list (or a first ``read``)."""
    if not (_valid_unicode(p, schema, schema_loc) & _valid_unicode(p, steps_raw, plan_loc)):
        return None
    if raw_starts_with_read(steps_raw) and not rows and schema in (None, [], MISSING):
        steps = parse_steps(p, steps_raw, plan_loc)
        read = _first_step(steps)
        if not isinstance(read, ir.Read):
            return None
        return finish(p, read.source, steps, plan_loc, allow_read_first=True)
    src = inline(p, rows, schema, rows_loc, schema_loc)
    steps = parse_steps(p, steps_raw, plan_loc)
    if src is None:
        return None
    return finish(p, src, steps, plan_loc)


def _valid_unicode(p: Parser, raw: Any, loc: str) -> bool:
    """Every string (and object key) must be encodable as UTF-8: protobuf and Arrow
    reject lone surrogates, so they are located here instead of failing later. Plans
    given as Python objects must also be trees of bounded size (see :func:`~connect_plan.shapes.shape`)."""
    if plain_tree_encodable(raw, CHEAP_WALK_NODES):  # the usual case: one cheap walk
        return True
    all_encodable, expanded, distinct = shape(raw)
    problem = shape_problem(expanded, distinct, "a plan", "this part of the plan")
    if problem is not None:
        code, message = problem
        p.err(code, cycle_location(raw, loc) if code == "cyclic_plan" else loc, message)
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
                p.err(
                    "invalid_unicode",
                    at,
                    "text contains characters that are not valid Unicode (lone surrogates)",
                    node,
                )
                ok = False
        elif isinstance(node, Mapping):
            for k, v in node.items():
                if isinstance(k, str) and not k.isascii() and not encodable(k):
                    p.err("invalid_unicode", at, "an object key is not valid Unicode (lone surrogates)", k)
                    ok = False
                stack.append((v, f"{at}/{k}"))
        elif isinstance(node, (list, tuple)):
            stack.extend((v, f"{at}/{i}") for i, v in enumerate(node))
    return ok


def _extended_document(p: Parser, doc: Mapping[str, Any], loc: str) -> ir.Plan | None:
    """A plan document using an extension: a non-inline ``input``, no ``input`` (the
    plan starts with ``read``), ``with`` definitions, ``conf`` or ``output``."""
    top = p.nesting == 0
    conf = _conf(p, doc["conf"], f"{loc}/conf") if "conf" in doc else ()
    if "conf" in doc and not top:
        p.err("nested_conf", f"{loc}/conf", "'conf' applies to a whole execution; put it on the outermost document")
    elif top:
        p.case_sensitive = dict(conf).get("spark.sql.caseSensitive", "false").lower() == "true"
    if "with" in doc:
        _definitions(p, doc["with"], f"{loc}/with", top)
    steps_raw = doc.get("plan", MISSING)
    if steps_raw is MISSING:
        p.err("missing_key", f"{loc}/plan", "a plan document needs a 'plan' array")
        steps_raw = []
    inp = doc.get("input", MISSING)
    starts_with_read = raw_starts_with_read(steps_raw)
    src: ir.Source | None
    if inp is MISSING or inp is None:
        if not starts_with_read:
            p.err(
                "missing_key",
                f"{loc}/input",
                "a plan document needs an 'input' (rows and schema, a table, files, a range, SQL or a ref) or a first 'read' step",
            )
            parse_steps(p, steps_raw, f"{loc}/plan")
            return None
        src = None
    else:
        if starts_with_read:
            p.err(
                "conflicting_input",
                f"{loc}/plan/{_raw_first_index(steps_raw)}",
                "the plan has both an 'input' and a first 'read' step; keep one",
            )
        src = source(p, inp, f"{loc}/input")
    steps = parse_steps(p, steps_raw, f"{loc}/plan")
    first_step = _first_step(steps)
    if src is None and starts_with_read and isinstance(first_step, ir.Read):
        src = first_step.source
    if src is None:
        return None
    plan = finish(p, src, steps, f"{loc}/plan", allow_read_first=starts_with_read)
    if plan is None:
        return None
    if "output" in doc:
        if plan.output is not None:
            p.err(
                "conflicting_output",
                f"{loc}/output",
                "the plan ends with an output step and the document has 'output'; keep one",
            )
        else:
            out = output(p, doc["output"], f"{loc}/output", len(plan.steps), "output")
            if out is not None:
                plan = replace(plan, output=out)
        if not top:
            p.err("nested_output", f"{loc}/output", "a nested plan cannot write; only the outermost plan has an output")
    return replace(plan, conf=conf) if conf else plan


#: the steps :func:`finish` moves out of the step list (a first read, a last output)
_PLACED_STEPS = frozenset({ir.Read, ir.Write, ir.TempView})


def finish(
    p: Parser, src: ir.Source, steps: tuple[ir.Step, ...], plan_loc: str, *, allow_read_first: bool = False
) -> ir.Plan | None:
    """Take a leading ``read`` and a trailing output step out of the step list.
    ``stop`` steps are transparent: a read after them is still first, an output before
    them still last."""
    if _PLACED_STEPS.isdisjoint(map(type, steps)):  # no read and no output (the usual plan)
        return ir.Plan(src, steps, plan_loc)
    body = list(steps)
    first_i = next((i for i, s in enumerate(body) if not isinstance(s, ir.Stop)), None)
    if allow_read_first and first_i is not None and isinstance(body[first_i], ir.Read):
        del body[first_i]
    last = max((i for i, s in enumerate(body) if not isinstance(s, ir.Stop)), default=-1)
    out: ir.Output | None = None
    for i, s in enumerate(body):
        if isinstance(s, ir.Read):
            p.err("read_not_first", s.loc, "a 'read' step can only be the first step of a plan that has no 'input'")
        elif isinstance(s, (ir.Write, ir.TempView)):
            if i != last:
                p.err(
                    "output_not_last",
                    s.loc,
                    f"{s.op!r} must be the last step (it writes the result, nothing follows it)",
                )
            elif p.nesting > 0:
                p.err("nested_output", s.loc, f"a nested plan cannot end with {s.op!r}; only the outermost plan writes")
            else:
                out = s
    body = [s for s in body if not isinstance(s, (ir.Read, ir.Write, ir.TempView))]
    return ir.Plan(src, tuple(body), plan_loc, output=out)


def _conf(p: Parser, raw: Any, loc: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, Mapping):
        p.err("conf_type", loc, "'conf' must be an object of Spark configuration keys and values", raw)
        return ()
    out: list[tuple[str, str]] = []
    for k, v in raw.items():
        if not isinstance(k, str) or not k:
            p.err("conf_key", loc, "configuration keys must be non-empty strings", k)
        elif isinstance(v, bool):
            out.append((k, "true" if v else "false"))
        elif isinstance(v, (int, float, str)) and v is not None:
            out.append((k, str(v)))
        else:
            p.err("conf_value", f"{loc}/{k}", "a configuration value must be a string, number or boolean", v)
    return tuple(out)


def _definitions(p: Parser, raw: Any, loc: str, top: bool) -> None:
    """``"with": {"name": <plan document>, ...}``: named sub-plans, each usable through
    ``{"ref": "name"}`` by later definitions and by the plan (shared, not copied)."""
    if not top:
        p.err("nested_with", loc, "'with' definitions belong on the outermost document")
        return
    if not isinstance(raw, Mapping):
        p.err("with_type", loc, "'with' must be an object mapping names to plan documents", raw)
        return
    for name, sub in raw.items():
        at = f"{loc}/{name}"
        if not isinstance(name, str) or not name:
            p.err("ref_name", loc, "a definition name must be a non-empty string", name)
            continue
        if name in p.named:
            p.err("duplicate_definition", at, f"{name!r} is defined twice", name)
            continue
        shared = _nested_document(p, sub, at, name=name)
        if shared is not None:
            p.named[name] = shared


def _nested_document(p: Parser, raw: Any, loc: str, name: str | None = None) -> ir.SharedPlan | None:
    """A plan document inside another one (a join/union right side, a definition).
    Identical documents written twice become one shared sub-plan."""
    if not isinstance(raw, Mapping):
        p.err("document_type", loc, 'a nested plan must be a plan document object {"input": ..., "plan": [...]}', raw)
        return None
    if p.nesting >= MAX_PLAN_NESTING:
        p.err("too_deep", loc, f"plans nested more than {MAX_PLAN_NESTING} levels deep")
        return None
    cache_key: str | None
    try:
        cache_key = json.dumps(raw, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        cache_key = None
    if name is None and cache_key is not None and cache_key in p.nested_cache:
        return p.nested_cache[cache_key]
    p.nesting += 1
    try:
        plan = document(p, raw, loc)
    finally:
        p.nesting -= 1
    if plan is None:
        return None
    shared = ir.SharedPlan(name or loc, plan, loc)
    if cache_key is not None:
        p.nested_cache.setdefault(cache_key, shared)
    return shared


def _is_extended_document(doc: Mapping[str, Any]) -> bool:
    """Does the document use anything beyond ``{"input": {"schema", "rows"}, "plan"}``?"""
    if any(k in doc for k in DOCUMENT_EXTENSION_KEYS):
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
        for i, s in enumerate(steps):
            if not (isinstance(s, Mapping) and s.get("op") == "stop"):
                return i
    return 0


def raw_starts_with_read(steps: Any) -> bool:
    """The first step other than ``stop`` is ``read``."""
    if not isinstance(steps, (list, tuple)) or not steps:
        return False
    s = steps[_raw_first_index(steps)]
    return isinstance(s, Mapping) and s.get("op") == "read"


def _first_step(steps: tuple[ir.Step, ...]) -> ir.Step | None:
    """The first parsed step other than ``stop``."""
    return next((s for s in steps if not isinstance(s, ir.Stop)), None)


# ---------------------------------------------------------------- steps


def parse_steps(p: Parser, raw: Any, loc: str) -> tuple[ir.Step, ...]:
    """A step list (or its JSON text), each step parsed by the parser its op registered."""
    if isinstance(raw, str):
        raw = _json_text(p, raw, loc)
        if raw is None:
            return ()
    if not isinstance(raw, (list, tuple)):
        p.err("plan_type", loc, "a plan must be a JSON array of steps", raw)
        return ()
    if len(raw) > MAX_STEPS:
        p.err("plan_too_long", loc, f"a plan may have at most {MAX_STEPS} steps, this one has {len(raw)}")
        return ()
    out: list[ir.Step] = []
    for i, item in enumerate(raw):
        parsed = _parse_step(p, item, i, f"{loc}/{i}")
        if parsed is not None:
            out.append(parsed)
    return tuple(out)


def _json_text(p: Parser, text: str, loc: str) -> Any:
    try:
        return load_json(text)
    except PlanError as exc:
        for d in exc.details:
            p.err(d.code, loc + d.loc, d.message)
        return None


def _parse_step(p: Parser, raw: Any, index: int, loc: str) -> ir.Step | None:
    if not isinstance(raw, MAP):
        p.err("step_type", loc, 'each plan step must be a JSON object {"op": ..., "payload": ...}', raw)
        return None
    op = raw.get("op")
    if not isinstance(op, str):
        p.err("step_op", f"{loc}/op", "each plan step needs an 'op' string", op if "op" in raw else MISSING)
        return None
    registered = STEP_PARSERS.get(op)
    if registered is None:
        close = difflib.get_close_matches(op, list(STEP_PARSERS), n=1, cutoff=0.6)
        hint = NOT_OPS_HINTS.get(op) or (close[0] if close else None)
        extra = f"; did you mean {hint!r}?" if hint else ""
        listing = (
            "see the supported ops above"
            if p.ops_listed
            else f"supported: {', '.join(sorted(STEP_PARSERS))}; `connect-plan ops` lists them"
        )
        p.ops_listed = True
        p.err("unknown_op", f"{loc}/op", f"unsupported op {op!r}{extra} ({listing})", op)
        return None
    parse, kind = registered
    check_keys(p, raw, loc, STEP_KEYS, "a plan step ({})", op)
    s = RawStep(op, index, loc, raw.get("payload"), raw, kind)
    if isinstance(s.payload, MAP) and kind in PAYLOAD_KEYS:
        check_keys(p, s.payload, s.ploc, PAYLOAD_KEYS[kind], "the payload of {}", op)
    return parse(p, s)


# ---------------------------------------------------------------- sources


def source(p: Parser, raw: Any, loc: str) -> ir.Source | None:
    """An input: inline rows, a table, files, a range, SQL, a ref or a nested document."""
    if not isinstance(raw, Mapping):
        p.err(
            "input_type",
            loc,
            'an input must be an object: {"schema", "rows"}, {"table"}, {"files", "format"}, {"range"}, {"sql"}, {"ref"} or a plan document',
            raw,
        )
        return None
    if "plan" in raw:
        return _nested_document(p, raw, loc)
    kinds = [k for k in SOURCE_KINDS if k in raw]
    if any(k in raw for k in ("files", "path", "paths")) or ("format" in raw and "schema" not in raw and not kinds):
        kinds.append("files")
    if "rows" in raw or "data" in raw or ("schema" in raw and not kinds):
        kinds.append("inline")
    if not kinds:
        p.err(
            "input_kind",
            loc,
            "an input needs one of 'rows'+'schema', 'table', 'files' (+ 'format'), 'range', 'sql', 'ref' or 'input'+'plan'",
            raw,
        )
        return None
    if len(kinds) > 1:
        p.err("input_kind", loc, f"an input must be one kind of source, this one mixes {kinds}", raw)
        return None
    kind = kinds[0]
    check_keys(p, raw, loc, SOURCE_KEYS[kind], "a {} input", SOURCE_WHAT[kind])
    if kind == "inline":
        rows_key, rows = key(raw, "input", "rows")
        if rows_key is None:
            rows, rows_key = [], "rows"
        if "schema" not in raw:
            p.err("missing_key", f"{loc}/schema", "input needs a 'schema' list")
            return None
        return inline(p, rows, raw["schema"], f"{loc}/{rows_key}", f"{loc}/schema")
    return _SOURCE_PARSERS[kind](p, raw, loc)


def _table_source(p: Parser, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
    name = raw["table"]
    if not isinstance(name, str) or not name.strip():
        p.err("table_name", f"{loc}/table", "'table' must be a non-empty table or view name", name)
        return None
    opts = options(p, raw.get("options"), f"{loc}/options")
    return ir.TableSource(name, opts, loc) if opts is not None else None


def _file_source(p: Parser, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
    pkey, paths = key(raw, "input", "files")
    if pkey is None:
        paths, pkey = [], "files"
    if isinstance(paths, str):
        paths = [paths]
    ok = True
    if not isinstance(paths, (list, tuple)) or not all(isinstance(v, str) and v for v in paths):
        p.err("paths", f"{loc}/{pkey}", "'files' must be a path (glob) string or a list of them", paths)
        ok = False
    fmt = raw.get("format")
    if fmt is not None and (not isinstance(fmt, str) or not fmt):
        p.err(
            "format",
            f"{loc}/format",
            "'format' must be a data source name such as 'parquet', 'csv', 'json', 'orc' or 'text'",
            fmt,
        )
        ok = False
    if fmt is None and not paths:
        p.err("missing_key", f"{loc}/format", "a data source read needs 'files' or a 'format'")
        ok = False
    opts = options(p, raw.get("options"), f"{loc}/options")
    ddl, columns = None, None
    if raw.get("schema") is not None:
        got = _read_schema(p, raw["schema"], f"{loc}/schema")
        if got is None:
            ok = False
        else:
            ddl, columns = got
    if not ok or opts is None:
        return None
    return ir.FileSource(tuple(paths), fmt, opts, ddl, columns, loc)


def _read_schema(p: Parser, raw: Any, loc: str) -> tuple[str, tuple[str, ...] | None] | None:
    """A read schema: a DDL string (passed to Spark as is) or schema fields."""
    if isinstance(raw, str):
        if not raw.strip():
            p.err("schema_type", loc, "a schema string must not be empty", raw)
            return None
        return raw, None
    fields = parse_schema(p, raw, loc)
    if fields is None:
        return None
    ddl = ", ".join(f"{quote(f.name)} {type_string(f.type)}" for f in fields)
    return ddl, tuple(f.name for f in fields)


def _range_source(p: Parser, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
    spec = raw["range"]
    rloc = f"{loc}/range"
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = {"end": spec}
    elif isinstance(spec, (list, tuple)) and 1 <= len(spec) <= 3:
        spec = dict(zip(("start", "end", "step"), spec if len(spec) > 1 else [0, *spec]))
    if not isinstance(spec, Mapping):
        p.err(
            "range",
            rloc,
            '\'range\' must be {"start"?, "end", "step"?, "num_partitions"?}, [start, end, step?] or an end',
            spec,
        )
        return None
    check_keys(p, spec, rloc, RANGE_KEYS, "a range")
    values: dict[str, int | None] = {}
    for name, default in (("start", 0), ("end", None), ("step", 1), ("num_partitions", None)):
        k, v = key(spec, "range", name)
        if k is None:
            if name == "end":
                p.err("missing_key", f"{rloc}/end", "'range' needs an 'end'")
                return None
            values[name] = default
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
            p.err("range", f"{rloc}/{k}", f"range '{name}' must be a 64-bit integer", v)
            return None
        values[name] = v
    if values["step"] == 0:
        p.err("range", f"{rloc}/step", "range 'step' must not be 0", 0)
        return None
    np = values["num_partitions"]
    if np is not None and not 1 <= np <= 2**31 - 1:
        p.err("range", f"{rloc}/num_partitions", "'num_partitions' must be a positive 32-bit integer", np)
        return None
    assert values["start"] is not None and values["end"] is not None and values["step"] is not None
    return ir.RangeSource(values["start"], values["end"], values["step"], np, loc)


def _sql_source(p: Parser, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
    query = raw["sql"]
    if not isinstance(query, str) or not query.strip():
        p.err("sql", f"{loc}/sql", "'sql' must be a non-empty SQL query string", query)
        return None
    akey, args = key(raw, "input", "args")
    named: list[tuple[str, ir.Expr]] = []
    positional: list[ir.Expr] = []
    ok = True
    if akey is not None and args is not None:
        aloc = f"{loc}/{akey}"
        if isinstance(args, Mapping):
            for name, v in args.items():
                if not isinstance(name, str) or not _SQL_PARAMETER_NAME.fullmatch(name):
                    p.err(
                        "sql_parameter",
                        aloc,
                        "SQL parameter names must be identifiers (used as :name in the query)",
                        name,
                    )
                    ok = False
                    continue
                e = _sql_arg(p, v, f"{aloc}/{name}")
                if e is None:
                    ok = False
                else:
                    named.append((name, e))
        elif isinstance(args, (list, tuple)):
            for i, v in enumerate(args):
                e = _sql_arg(p, v, f"{aloc}/{i}")
                if e is None:
                    ok = False
                else:
                    positional.append(e)
        else:
            p.err(
                "sql_parameter",
                aloc,
                "'args' must be an object (named :parameters) or a list (positional ? parameters)",
                args,
            )
            ok = False
    return ir.SqlSource(query, tuple(named), tuple(positional), loc) if ok else None


def _sql_arg(p: Parser, raw: Any, loc: str) -> ir.Expr | None:
    """A SQL parameter: a bare value or ``{"lit", "type"?}`` is a literal (a string is
    the string, never SQL). Spark binds nothing else but calls of array/map/struct
    constructors over literals (``INVALID_SQL_ARG`` otherwise, found only by the
    server), so anything else is rejected here, where the plan is."""
    e = literal_or_expr(p, raw, loc, 0)
    if e is None:
        return None
    ok = True
    for node in ir.walk(e):
        nloc = re.sub(r"/(lit|col)$", "", node.loc or loc)  # the object, not its key
        if isinstance(node, ir.Lit):
            if node.type is not None and _has_variant(node.type):
                p.err(
                    "sql_parameter",
                    nloc,
                    "a SQL parameter cannot be a variant (Spark has no variant literal): pass the JSON text "
                    "as a string and parse_json it in the query",
                    node.value,
                )
                ok = False
                continue
            if node.type is not None and node.value is not None:
                try:
                    coerce_value(node.value, node.type)
                except CoerceError as exc:
                    p.err("literal_type", nloc, f"the parameter does not fit its type: {exc}", node.value)
                    ok = False
            continue
        if isinstance(node, ir.Call) and CATALOG[node.fn].spark in _SQL_ARG_CONSTRUCTORS and not node.distinct:
            continue
        p.err(
            "sql_parameter",
            nloc,
            f"a SQL parameter must be a literal, or array/map/struct constructors over literals "
            f"({', '.join(sorted(_SQL_ARG_CONSTRUCTORS))}); Spark rejects anything else (INVALID_SQL_ARG). "
            f"This is {_sql_arg_kind(node)}",
        )
        ok = False
        break
    return e if ok else None


def _has_variant(t: DataType | None) -> bool:
    if isinstance(t, Primitive):
        return t.name == "variant"
    if isinstance(t, ArrayType):
        return _has_variant(t.element)
    if isinstance(t, MapType):
        return _has_variant(t.key) or _has_variant(t.value)
    if isinstance(t, StructType):
        return any(_has_variant(ft) for _, ft in t.fields)
    return False


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


def _ref_source(p: Parser, raw: Mapping[str, Any], loc: str) -> ir.Source | None:
    name = raw["ref"]
    shared = p.named.get(name) if isinstance(name, str) else None
    if shared is None:
        known = ", ".join(sorted(p.named)) or "none"
        p.err("unknown_ref", f"{loc}/ref", f"no sub-plan named {name!r} in 'with' (defined so far: {known})", name)
        return None
    return shared


#: how an error names each kind of input
SOURCE_WHAT: dict[str, str] = {
    "inline": "rows",
    "table": "table",
    "files": "files",
    "range": "range",
    "sql": "SQL",
    "ref": "ref",
}

_SOURCE_PARSERS: dict[str, Callable[[Parser, Mapping[str, Any], str], ir.Source | None]] = {
    "table": _table_source,
    "files": _file_source,
    "range": _range_source,
    "sql": _sql_source,
    "ref": _ref_source,
}


@step("read")
def parse_read(p: Parser, s: RawStep) -> ir.Step | None:
    """``read``: the first step of a plan without ``input``; its payload is any input."""
    src = source(p, s.payload, s.ploc)
    return ir.Read(s.index, s.op, s.loc, src) if src is not None else None
