"""The plan's root: a query (``RelRoot``, its output named by ``RelRoot.names``), a write
(``WriteRel``: INSERT, CTAS) or a DDL (``DdlRel``: CREATE TABLE); and :func:`convert_plan`, the
front-end's entry point, which imports every module that registers a converter."""

from __future__ import annotations

from collections.abc import Mapping

from google.protobuf.message import Message

from ... import ir
from ...errors import PlanError
from . import expressions, functions, literals, relations
from . import spellings as sp
from .functions import extension_functions
from .proto import message_class
from .state import EXPRESSIONS, RELATIONS, Converter, Rel, Shape, enum_name, enum_text, json_name
from .types import spark_type, top_names

__all__ = ["convert_plan"]

# the modules that register the converters of relations, expressions and functions
_REGISTERING = (expressions, functions, literals, relations)


def _check_kinds() -> None:
    """Every kind a converter is registered for is a field of its oneof in the schema."""
    for kinds, message, oneof in (
        (RELATIONS, "substrait.Rel", "rel_type"),
        (EXPRESSIONS, "substrait.Expression", "rex_type"),
    ):
        fields = {f.name for f in message_class(message).DESCRIPTOR.oneofs_by_name[oneof].fields}
        if not set(kinds) <= fields:  # pragma: no cover - a developer error caught on import
            raise RuntimeError(f"converters registered for no {message}.{oneof} field: {sorted(set(kinds) - fields)}")


_check_kinds()


def convert_plan(plan_msg: Message, tables: Mapping[str, ir.Source] | None = None) -> ir.Plan:
    """A superset ``substrait.Plan`` message → IR; ``tables``: table name → source. Raises
    :class:`~connect_plan.errors.PlanError` with every problem found."""
    c = Converter(plan_msg, dict(tables or {}))
    out = _convert(c)
    if c.multi_set_aggregates and sp.set_index_maybe_omitted(plan_msg):
        c, out = _set_index_reading(c, out, dict(tables or {}))
    if c.errors:
        raise PlanError(c.errors)
    assert out is not None
    return out


def _set_index_reading(
    spec: Converter, out: ir.Plan | None, tables: dict[str, ir.Source]
) -> tuple[Converter, ir.Plan | None]:
    """A plan that may have been written without the set-index column of its AggregateRels of
    several grouping sets (Isthmus before substrait-java 0.67: :func:`.spellings.set_index_maybe_omitted`)
    is read without it only where the plan shows it: the spec's reading fails (a field index
    or ``RelRoot.names`` that does not fit) and the other one converts. Where both convert, they
    must mean the same (the same IR, the column computed in both but output in one only): else
    the plan is refused, since nothing in it tells which one its producer meant."""
    hidden = Converter(spec.plan_msg, tables, set_index="hidden")
    other = _convert(hidden)
    if hidden.errors:
        return spec, out  # the spec's reading, with its errors if it has some
    if spec.errors:  # only the reading without the column fits the plan
        bare = Converter(spec.plan_msg, tables, set_index="none")
        return bare, _convert(bare)
    if other != out:
        for loc in spec.multi_set_aggregates:
            spec.err(
                "substrait_unsupported",
                loc,
                "an AggregateRel of several grouping sets in a plan whose producer may leave out the set-index "
                "column the spec puts after the measures (a plan of no version, or Isthmus before substrait-java "
                "0.67): the plan reads both with and without it, the two mean different tables, and nothing in "
                "the plan tells which one it means",
            )
    return spec, out


def _convert(c: Converter) -> ir.Plan | None:
    """The plan's one root relation: a query (its columns named by ``RelRoot.names``), or the
    write or DDL it runs."""
    plan = c.plan_msg
    c.quirks = (
        sp.PRODUCER_QUIRKS.get(plan.version.producer.lower(), frozenset()) if plan.HasField("version") else frozenset()
    )
    c.functions = extension_functions(plan)
    roots = [(i, r) for i, r in enumerate(plan.relations) if r.WhichOneof("rel_type") == "root"]
    if len(roots) != 1:
        c.err(
            "substrait_invalid",
            "/relations",
            f"a Substrait plan to run needs exactly one 'root' relation, this one has {len(roots)}",
        )
        return None
    i, pr = roots[0]
    loc = f"/relations/{i}/root"
    root = pr.root
    if root.input.WhichOneof("rel_type") == "write":
        return write(c, root.input.write, f"{loc}/input/write")
    if root.input.WhichOneof("rel_type") == "ddl":
        return ddl(c, root.input.ddl, f"{loc}/input/ddl")
    rel = c.rel(root.input, f"{loc}/input")
    if rel is None:
        return None
    names = list(root.names)
    if not names:
        names = [f"col{k}" for k in range(len(rel.names))]
    items = _root_items(c, rel, names, loc)
    if items is None:
        return None
    rel.steps.append(ir.Select(c.step_index(), "root", loc, items))
    return ir.Plan(rel.source, tuple(rel.steps), loc)


def write(c: Converter, msg: Message, loc: str) -> ir.Plan | None:
    """WriteRel at the root: INSERT into a table (Spark's insertInto: by position, appended)
    or CTAS (saveAsTable, the create mode as the save mode); the target is the catalog's
    table, or the ``tables=`` mapping's table or files. The written columns are named by
    ``table_schema``. Spark's writes return no rows, so only OUTPUT_MODE_NO_OUTPUT runs."""
    ok = True
    target = msg.WhichOneof("write_type")
    if target != "named_table":
        c.err(
            "substrait_unsupported",
            f"{loc}/{json_name(msg, target) if target else 'namedTable'}",
            "a write needs a named_table target (extension tables mean nothing outside their producer)",
        )
        ok = False
    op = sp.WRITE_OPS.get(enum_name(msg, "op"))
    if op is None:
        c.err(
            "substrait_unsupported",
            f"{loc}/op",
            f"write op {enum_text(msg, 'op')}: Spark Connect writes insert or create tables "
            "(DELETE/UPDATE have no DataFrame write)",
        )
        ok = False
    if enum_name(msg, "output") == "OUTPUT_MODE_MODIFIED_RECORDS":
        c.err("substrait_unsupported", f"{loc}/output", "Spark's writes return no rows (use OUTPUT_MODE_NO_OUTPUT)")
        ok = False
    rel = c.rel(msg.input, f"{loc}/input")
    if rel is None or op is None or not ok:
        return None
    names = top_names(msg.table_schema)
    if names and len(names) != len(rel.names):
        c.err(
            "column_count",
            f"{loc}/tableSchema",
            f"the table schema has {len(names)} columns, the written input {len(rel.names)}",
        )
        return None
    names = names or [f"col{k}" for k in range(len(rel.names))]
    items = tuple(
        ir.SelectItem(ir.Col(n, loc), alias, f"{loc}/tableSchema/names/{k}")
        for k, (n, alias) in enumerate(zip(rel.names, names))
    )
    rel.steps.append(ir.Select(c.step_index(), "write", loc, items))
    table = ".".join(msg.named_table.names)
    mapped = c.mapped(table)
    path: str | None = None
    fmt: str | None = None
    if isinstance(mapped, ir.TableSource):
        table = mapped.name
    elif isinstance(mapped, ir.FileSource) and len(mapped.paths) == 1 and mapped.format:
        path, fmt = mapped.paths[0], mapped.format
    elif mapped is not None:
        c.err(
            "substrait_tables",
            f"{loc}/namedTable",
            f"tables= maps {table!r} to a source a write cannot target (one path with a format, or a table)",
        )
        return None
    save_mode, table_method = op
    mode = save_mode or sp.CREATE_MODES.get(enum_name(msg, "create_mode"), "error")  # a CTAS: its create mode
    method = None if path is not None else table_method  # files: a plain save
    write = ir.Write(c.step_index(), "write", loc, fmt, path, None if path else table, method, mode, (), ())
    return ir.Plan(rel.source, tuple(rel.steps), loc, output=write)


def ddl(c: Converter, msg: Message, loc: str) -> ir.Plan | None:
    """DdlRel CREATE TABLE (a schema, no data) as Spark's own ``CREATE TABLE t (...)`` makes
    it: a saveAsTable of no rows of that schema with ErrorIfExists, the same managed table
    of the default source (measured: DESCRIBE gives the same columns, types, provider;
    Spark keeps no NOT NULL in either). Views, CREATE OR REPLACE, ALTER and DROP have no
    Spark Connect command but SQL text: located errors."""
    import pyarrow as pa

    from ...arrow_types import inline_arrow_type as arrow_type

    ok = True
    if msg.WhichOneof("write_type") != "named_object":
        c.err("substrait_unsupported", f"{loc}/extensionObject", "a DDL target must be a named object")
        ok = False
    if enum_name(msg, "object") != "DDL_OBJECT_TABLE":
        what = "a view" if enum_name(msg, "object") == "DDL_OBJECT_VIEW" else "an unspecified object"
        c.err(
            "substrait_unsupported",
            f"{loc}/object",
            f"DDL of {what}: Spark Connect makes only tables without SQL text (views need SQL text, "
            "which connect_plan never builds from a plan)",
        )
        ok = False
    if enum_name(msg, "op") != "DDL_OP_CREATE":
        c.err(
            "substrait_unsupported",
            f"{loc}/op",
            f"DDL op {enum_text(msg, 'op')}: only CREATE runs (as a write of no rows); "
            "CREATE OR REPLACE, ALTER and DROP have no Spark Connect command but SQL text",
        )
        ok = False
    if msg.HasField("table_defaults"):
        c.err(
            "substrait_unsupported",
            f"{loc}/tableDefaults",
            "column defaults: a write of no rows cannot declare them",
        )
        ok = False
    if not msg.HasField("table_schema") or not msg.table_schema.names:
        c.err("substrait_invalid", f"{loc}/tableSchema", "CREATE TABLE needs the table's schema")
        return None
    names = top_names(msg.table_schema)
    if len(names) != len(msg.table_schema.names):
        c.err("substrait_unsupported", f"{loc}/tableSchema", "struct columns in a created table are not supported yet")
        return None
    types = [
        spark_type(c, t, f"{loc}/tableSchema/struct/types/{i}") for i, t in enumerate(msg.table_schema.struct.types)
    ]
    if len(types) != len(names):
        c.err(
            "column_count",
            f"{loc}/tableSchema",
            f"the table schema names {len(names)} columns and types {len(types)}",
        )
        return None
    if not ok or any(t is None for t in types):
        return None
    table = ".".join(msg.named_object.names)
    mapped = c.mapped(table)
    if isinstance(mapped, ir.TableSource):
        table = mapped.name
    elif mapped is not None:
        c.err(
            "substrait_tables",
            f"{loc}/namedObject",
            f"tables= maps {table!r} to files: CREATE TABLE makes a catalog table",
        )
        return None
    fresh = [c.fresh() for _ in names]
    try:
        empty = pa.Table.from_arrays([pa.array([], type=arrow_type(t)) for t in types], names=fresh)
    except ValueError as e:  # an interval column: no inline-data type (TypeParseError)
        c.err("substrait_unsupported", f"{loc}/tableSchema", f"a created table's column type: {e}")
        return None
    items = tuple(
        ir.SelectItem(ir.Col(f, loc), n, f"{loc}/tableSchema/names/{k}")
        for k, (f, n) in enumerate(zip(fresh, names, strict=True))
    )
    steps = (ir.Select(c.step_index(), "write", loc, items),)
    write = ir.Write(c.step_index(), "write", loc, None, None, table, "save_as_table", "error", (), ())
    return ir.Plan(ir.InlineData(empty, loc), steps, loc, output=write)


def _root_items(c: Converter, rel: Rel, names: list[str], loc: str) -> tuple[ir.SelectItem, ...] | None:
    """The root's columns named by ``RelRoot.names``: depth-first, a struct column's field
    names right after its own name. Struct fields are renamed (the struct rebuilt) where
    the names differ from the Spark field names the plan gave them."""
    shapes = [c.shapes.get(n) for n in rel.names]
    nested = len(names) != len(rel.names)
    pos = 0

    def rename(value: ir.Expr, shape: Shape | None, at: str) -> ir.Expr:
        nonlocal pos
        if shape is None or shape.fields is None:
            return value
        args: list[ir.Expr] = []
        same = True
        for spark_name, sub in shape.fields:
            new = names[pos] if pos < len(names) else spark_name
            pos += 1
            inner = rename(ir.ExtractValue(value, ir.Lit(spark_name, at), at), sub, at)
            same = same and new == spark_name and isinstance(inner, ir.ExtractValue)
            args += [ir.Lit(new, at), inner]
        if same:
            return value
        rebuilt = ir.Call("named_struct", tuple(args), at)
        return ir.When(((ir.Call("isnull", (value,), at), ir.Lit(None, at)),), rebuilt, at)

    items = []
    for k, (col, shape) in enumerate(zip(rel.names, shapes)):
        at = f"{loc}/names/{min(pos, len(names) - 1)}"
        alias = names[pos] if pos < len(names) else f"col{k}"
        pos += 1
        expr = rename(ir.Col(col, loc), shape, at) if nested else ir.Col(col, loc)
        items.append(ir.SelectItem(expr, alias, at))
    if pos != len(names):
        c.err(
            "substrait_invalid" if all(s is None for s in shapes) else "substrait_unsupported",
            f"{loc}/names",
            f"RelRoot.names has {len(names)} names for {len(rel.names)} output columns"
            + (
                ", and no column is a struct whose fields could take the rest"
                if all(s is None for s in shapes)
                else " and the structs among them (whose field names come after their own, depth-first) "
                f"take {pos - len(rel.names)}: a struct column's layout is not known here "
                "(only those of reads, struct literals, constructors and casts are)"
            ),
        )
        return None
    return tuple(items)
