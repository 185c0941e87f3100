"""Plan fixtures: ``{"name"?, "input": {"schema", "rows"}, "plan": [...], "expected": ...}``.

``expected`` is either ``{"schema": [...], "rows": [...]}`` — the result must have exactly
these column names and types and these rows (in order when the plan sorts, as a multiset
otherwise) — or ``{"error": {"code"?, "loc"?, "error_class"?, "contains"?}}`` — the plan
must fail with a matching :class:`~connect_plan.errors.PlanError` detail or
:class:`~connect_plan.errors.ServerError`.

Fixtures that need server state (files, tables, views) or check what a write left behind
may also carry (all optional):

``setup``
    plan documents run first, in order (typically writes or temp views);
``then``
    fixture-like documents ``{"input"?, "plan", "expected"?}`` run after the plan and
    checked the same way (reading back what the plan wrote);
``cleanup``
    ``{"tables": [...], "views": [...]}`` dropped at the end, pass or fail (table names
    travel as SQL parameters, never as SQL text).

Every string of such a fixture may use ``${tmp}`` (a fresh directory for this run) and
``${run}`` (a unique token, for table names). ``${tmp}`` is made on this machine, which a
local server shares; for a remote server pass ``tmp_dir``, a directory the server's driver
and executors all see (a shared volume, a bucket): ``${tmp}`` is then a fresh path under it
that Spark creates when it writes, and that is left there afterwards (this machine cannot
remove it).
Other keys of the document (``with``, ``conf``, ``output``) pass through to the plan.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime as dt
import decimal
import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import ir
from .arrow_types import from_arrow
from .errors import ConnectPlanError, ErrorDetail, PlanError, ServerError
from .records import Value, frozen
from .types import (
    ArrayType,
    DataType,
    MapType,
    Primitive,
    StructType,
    TypeParseError,
    parse_type,
    type_string,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from .client import Client
    from .policy import Policy

__all__ = [
    "PLACEHOLDERS",
    "FixtureResult",
    "check_fixture",
    "compare_result",
    "discover",
    "load_fixture",
    "placeholder_problems",
    "run_fixture",
    "staged",
]

#: the ``${...}`` placeholders connect_plan fills (``${tmp}``, ``${run}``): any other one left
#: in a plan's strings is a PlanError (``placeholder``) before anything runs
PLACEHOLDERS = ("tmp", "run")

#: subtrees whose strings are data, not settings: a ``${...}`` there is kept as written
_DATA_KEYS = frozenset({"rows", "description", "expected"})


@frozen
class FixtureResult(Value):
    path: str
    name: str
    ok: bool
    message: str
    seconds: float


def discover(directory: str | Path) -> list[Path]:
    """Every ``*.json`` fixture under ``directory``, sorted by path."""
    root = Path(directory)
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*.json") if p.is_file())


def load_fixture(path: str | Path) -> dict[str, Any]:
    """The fixture at ``path``; a PlanError (located in the file) if its JSON or its own keys
    (``expected``, ``setup``, ``then``, ``cleanup``) are malformed. The plan inside is checked
    when the fixture runs."""
    from .formats.json_plan import load_json

    doc = load_json(Path(path).read_bytes())
    if not isinstance(doc, dict):
        raise PlanError.single("document_type", "", f"{path}: a fixture must be a JSON object")
    problems = check_fixture(doc)
    if problems:
        raise PlanError(problems)
    return doc


# ------------------------------------------------------------------ the fixture's own shape

_ERROR_KEYS: dict[str, tuple[type, ...]] = {
    "kind": (str,),
    "code": (str,),
    "loc": (str,),
    "error_class": (str,),
    "contains": (str, int, float),
    "op_index": (int,),
}


def check_fixture(doc: Any, loc: str = "") -> list[ErrorDetail]:
    """Every problem with the fixture's own keys (not its plan), each located in the file."""
    out: list[ErrorDetail] = []
    if not isinstance(doc, Mapping):
        return [ErrorDetail("fixture_type", loc or "/", "a fixture must be a JSON object", doc)]
    for key in ("name", "description"):
        if key in doc and doc[key] is not None and not isinstance(doc[key], str):
            out.append(ErrorDetail("fixture_field", f"{loc}/{key}", f"'{key}' must be a string", doc[key]))
    if doc.get("expected") is not None:
        out += expected_problems(doc["expected"], f"{loc}/expected")
    for key in ("setup", "then"):
        items = doc.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            out.append(ErrorDetail("fixture_field", f"{loc}/{key}", f"'{key}' must be a list of plan documents", items))
            continue
        for i, item in enumerate(items):
            at = f"{loc}/{key}/{i}"
            if not isinstance(item, Mapping):
                out.append(
                    ErrorDetail("fixture_field", at, f"each '{key}' entry must be a plan document (an object)", item)
                )
            elif key == "then" and item.get("expected") is not None:
                out += expected_problems(item["expected"], f"{at}/expected")
    cleanup = doc.get("cleanup")
    if cleanup is not None:
        if not isinstance(cleanup, Mapping):
            out.append(
                ErrorDetail(
                    "fixture_field",
                    f"{loc}/cleanup",
                    '\'cleanup\' must be an object {"tables": [...], "views": [...]}',
                    cleanup,
                )
            )
        else:
            for key, names in cleanup.items():
                at = f"{loc}/cleanup/{key}"
                if key not in ("tables", "views"):
                    out.append(ErrorDetail("fixture_field", at, "'cleanup' takes 'tables' and 'views'", key))
                elif names is not None and (
                    not isinstance(names, list) or not all(isinstance(n, str) and n for n in names)
                ):
                    out.append(ErrorDetail("fixture_field", at, f"'cleanup.{key}' must be a list of names", names))
    return out


def expected_problems(expected: Any, loc: str = "/expected") -> list[ErrorDetail]:
    """What is wrong with an ``expected`` value: ``{"schema"?, "rows"?}`` or ``{"error": {...}}``."""
    if not isinstance(expected, Mapping):
        return [
            ErrorDetail(
                "fixture_expected",
                loc,
                '\'expected\' must be an object: {"schema", "rows"} or {"error": {...}}',
                expected,
            )
        ]
    out: list[ErrorDetail] = []
    unknown = sorted(set(expected) - {"schema", "rows", "error"})
    if unknown:
        out.append(
            ErrorDetail(
                "fixture_expected",
                f"{loc}/{unknown[0]}",
                "'expected' takes 'schema' and 'rows', or 'error'",
                unknown[0],
            )
        )
    if "error" in expected:
        if "schema" in expected or "rows" in expected:
            out.append(
                ErrorDetail(
                    "fixture_expected",
                    f"{loc}/error",
                    "'expected' has either an 'error' or a 'schema'/'rows', not both",
                )
            )
        err = expected["error"]
        if not isinstance(err, Mapping):
            out.append(
                ErrorDetail(
                    "fixture_expected",
                    f"{loc}/error",
                    "'error' must be an object with any of: " + ", ".join(_ERROR_KEYS),
                    err,
                )
            )
        else:
            for key, value in err.items():
                want = _ERROR_KEYS.get(key)
                if want is None:
                    out.append(
                        ErrorDetail(
                            "fixture_expected", f"{loc}/error/{key}", "'error' takes " + ", ".join(_ERROR_KEYS), key
                        )
                    )
                elif not isinstance(value, want) or isinstance(value, bool):
                    out.append(
                        ErrorDetail(
                            "fixture_expected", f"{loc}/error/{key}", f"'{key}' must be a {want[0].__name__}", value
                        )
                    )
                elif key == "kind" and value not in ("plan", "server"):
                    out.append(
                        ErrorDetail("fixture_expected", f"{loc}/error/kind", "'kind' is 'plan' or 'server'", value)
                    )
    schema = expected.get("schema")
    if schema is not None:
        if not isinstance(schema, list):
            out.append(
                ErrorDetail(
                    "fixture_expected",
                    f"{loc}/schema",
                    '\'schema\' must be a list of {"name", "type"} objects or [name, type] pairs',
                    schema,
                )
            )
        else:
            for i, f in enumerate(schema):
                at = f"{loc}/schema/{i}"
                if isinstance(f, Mapping):
                    name, tstr, nloc, tloc = f.get("name"), f.get("type"), f"{at}/name", f"{at}/type"
                elif isinstance(f, list) and len(f) == 2:
                    name, tstr, nloc, tloc = f[0], f[1], f"{at}/0", f"{at}/1"
                else:
                    out.append(
                        ErrorDetail(
                            "fixture_expected", at, 'a schema field must be {"name", "type"} or a [name, type] pair', f
                        )
                    )
                    continue
                if not isinstance(name, str) or not name:
                    out.append(
                        ErrorDetail("fixture_expected", nloc, "a schema field needs a non-empty string name", name)
                    )
                if not isinstance(tstr, str):
                    out.append(ErrorDetail("fixture_expected", tloc, "a schema field needs a type string", tstr))
                    continue
                try:
                    parse_type(tstr)
                except TypeParseError as exc:
                    out.append(ErrorDetail("fixture_expected", tloc, str(exc), tstr))
    rows = expected.get("rows")
    if rows is not None:
        if not isinstance(rows, list):
            out.append(
                ErrorDetail(
                    "fixture_expected",
                    f"{loc}/rows",
                    "'rows' must be a list of rows (lists in column order, or objects by column name)",
                    rows,
                )
            )
        else:
            for i, row in enumerate(rows):
                if not isinstance(row, (list, Mapping)):
                    out.append(
                        ErrorDetail(
                            "fixture_expected",
                            f"{loc}/rows/{i}",
                            "each expected row must be a list (column order) or an object (by column name)",
                            row,
                        )
                    )
    return out


def _trusted() -> Policy:
    """What a fixture's own setup and cleanup run under (they prepare the plan's world). The
    policy module loads here, not with this module: ``connect-plan run`` reads placeholders
    through this module and needs no policy unless given one."""
    from .policy import Policy

    return Policy.trusted()


#: fixture keys that are not part of the plan document
_FIXTURE_KEYS = ("name", "description", "expected", "setup", "then", "cleanup")


def plan_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The plan document inside a fixture (everything but the fixture's own keys)."""
    return {k: v for k, v in doc.items() if k not in _FIXTURE_KEYS}


def substitute(doc: Any, values: Mapping[str, str]) -> Any:
    """``doc`` with ``${key}`` replaced in every string (iteratively, any depth)."""

    def fix(v: Any) -> Any:
        if isinstance(v, str) and "${" in v:
            for k, val in values.items():
                v = v.replace("${" + k + "}", val)
        return v

    root: list[Any] = [doc]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        value = parent[key]
        if isinstance(value, Mapping):
            value = dict(value)
            parent[key] = value
            stack.extend((value, k) for k in value)
        elif isinstance(value, (list, tuple)):
            value = list(value)
            parent[key] = value
            stack.extend((value, i) for i in range(len(value)))
        else:
            parent[key] = fix(value)
    return root[0]


def _needs_state(doc: Mapping[str, Any]) -> bool:
    return any(k in doc for k in ("setup", "then", "cleanup"))


def _placeholder_names(text: str) -> list[str]:
    import re

    return re.findall(r"\$\{([^}]*)\}", text)


def placeholder_problems(doc: Any, known: Iterable[str] = PLACEHOLDERS) -> list[ErrorDetail]:
    """Every string of ``doc`` (outside row data) holding a ``${name}`` that is not one of
    ``known``, located: an unfilled placeholder would otherwise reach the server as a path
    or a table name (``PATH_NOT_FOUND ... ${data}/x``)."""
    allowed = set(known)
    out: list[ErrorDetail] = []
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, Mapping):
            stack.extend((v, f"{loc}/{k}") for k, v in value.items() if k not in _DATA_KEYS)
        elif isinstance(value, list):
            stack.extend((v, f"{loc}/{i}") for i, v in enumerate(value))
        elif isinstance(value, str) and "${" in value:
            unknown = [n for n in _placeholder_names(value) if n not in allowed]
            if unknown:
                fills = ", ".join("${" + n + "}" for n in sorted(allowed)) or "none"
                out.append(
                    ErrorDetail(
                        "placeholder",
                        loc or "/",
                        f"unfilled placeholder ${{{unknown[0]}}}: connect-plan fills only {fills}; "
                        "write the value itself",
                        value,
                    )
                )
    return sorted(out, key=lambda d: d.loc)


def uses_placeholders(doc: Any) -> bool:
    """Whether ``doc`` needs ``${tmp}``/``${run}`` filled or has a setup to run first."""
    if isinstance(doc, Mapping) and _needs_state(doc):
        return True
    return "${" in json.dumps(doc, default=str)


@contextlib.contextmanager
def staged(
    client: Client, doc: Mapping[str, Any], tmp_dir: str | None = None
) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """``doc`` ready to run, as ``connect-plan run`` runs a fixture-like document: ``${tmp}``
    a fresh directory (on this machine, removed afterwards; or a fresh path under
    ``tmp_dir``, kept), ``${run}`` a unique token, its ``setup`` documents run first; its
    ``cleanup`` tables and views are dropped when the block ends, whatever happened. Yields
    the filled document and what each placeholder stood for."""
    import shutil
    import tempfile
    import uuid

    run = uuid.uuid4().hex[:10]
    tmp = f"{tmp_dir.rstrip('/')}/connect-plan-run-{run}" if tmp_dir else tempfile.mkdtemp(prefix="connect-plan-run-")
    values = {"tmp": tmp, "run": run}
    filled = substitute(doc, values)
    try:
        for i, setup in enumerate(filled.get("setup") or []):
            try:
                client.execute(setup)
            except PlanError as exc:
                raise PlanError(
                    [dataclasses.replace(d, loc=f"/setup/{i}{d.loc}") for d in exc.details]
                ) from exc.__cause__
            except ServerError as exc:
                raise exc.replace(message=f"in setup {i}: {exc.message}") from exc.__cause__
        yield filled, values
    finally:
        _cleanup(client, filled.get("cleanup") or {})
        if not tmp_dir:
            shutil.rmtree(tmp, ignore_errors=True)


def run_fixture(client: Client, doc: Mapping[str, Any], path: str = "", tmp_dir: str | None = None) -> FixtureResult:
    problems = check_fixture(doc)
    if problems:
        label = doc.get("name") if isinstance(doc, Mapping) else None
        name = label if isinstance(label, str) and label else Path(path).stem
        return FixtureResult(path, name, False, f"malformed fixture: {PlanError(problems)}", 0.0)
    if not _needs_state(doc):
        return _run_one(client, doc, path)
    import shutil
    import tempfile
    import uuid

    run = uuid.uuid4().hex[:10]
    tmp = (
        f"{tmp_dir.rstrip('/')}/connect-plan-fixture-{run}"
        if tmp_dir
        else tempfile.mkdtemp(prefix="connect-plan-fixture-")
    )
    doc = substitute(doc, {"tmp": tmp, "run": run})
    name = str(doc.get("name") or Path(path).stem)
    start = time.perf_counter()
    try:
        for i, setup in enumerate(doc.get("setup") or []):
            try:
                # setup and cleanup are the fixture author's, not the plan under test: the
                # client's policy (``fixtures --policy``) applies to the plan and its ``then``
                client.execute(setup, policy=_trusted())
            except ConnectPlanError as exc:
                return FixtureResult(
                    path, name, False, f"setup {i} failed: {type(exc).__name__}: {exc}", time.perf_counter() - start
                )
        result = _run_one(client, doc, path)
        if not result.ok:
            return result
        for i, then in enumerate(doc.get("then") or []):
            sub = _run_one(client, then, path)
            if not sub.ok:
                return FixtureResult(path, name, False, f"then {i}: {sub.message}", time.perf_counter() - start)
        return FixtureResult(path, name, True, result.message, time.perf_counter() - start)
    finally:
        _cleanup(client, doc.get("cleanup") or {})
        if not tmp_dir:
            shutil.rmtree(tmp, ignore_errors=True)


def _cleanup(client: Client, what: Mapping[str, Any]) -> None:
    import contextlib

    for table in what.get("tables") or []:
        with contextlib.suppress(ConnectPlanError):
            client.execute(
                {"input": {"sql": "DROP TABLE IF EXISTS IDENTIFIER(:t)", "args": {"t": table}}, "plan": []},
                policy=_trusted(),
            )
    for view in what.get("views") or []:
        with contextlib.suppress(ConnectPlanError):
            client.execute(
                {"input": {"sql": "DROP VIEW IF EXISTS IDENTIFIER(:v)", "args": {"v": view}}, "plan": []},
                policy=_trusted(),
            )


def _run_one(client: Client, doc: Mapping[str, Any], path: str = "") -> FixtureResult:
    from .formats import load_plan

    name = str(doc.get("name") or Path(path).stem)
    start = time.perf_counter()
    expected = doc.get("expected")
    plan_doc = plan_document(doc)
    try:
        plan = load_plan(plan_doc)
        table = client.execute(plan)
    except ConnectPlanError as exc:
        took = time.perf_counter() - start
        if isinstance(expected, Mapping) and "error" in expected:
            problem = _match_error(exc, expected["error"])
            return FixtureResult(path, name, problem is None, problem or "failed as expected", took)
        return FixtureResult(path, name, False, f"{type(exc).__name__}: {exc}", took)
    took = time.perf_counter() - start
    if not isinstance(expected, Mapping):
        return FixtureResult(path, name, True, f"ran ({table.num_rows} rows; no expected result)", took)
    if "error" in expected:
        return FixtureResult(path, name, False, f"expected an error, got {table.num_rows} rows", took)
    problem = compare_result(table, expected, ordered=ir.ends_ordered(plan))
    return FixtureResult(path, name, problem is None, problem or f"{table.num_rows} rows match", took)


def _match_error(exc: ConnectPlanError, want: Mapping[str, Any]) -> str | None:
    kind = want.get("kind")
    if kind == "plan" and not isinstance(exc, PlanError):
        return f"expected a PlanError, got {type(exc).__name__}: {exc}"
    if kind == "server" and not isinstance(exc, ServerError):
        return f"expected a ServerError, got {type(exc).__name__}: {exc}"
    if "code" in want or "loc" in want:
        if not isinstance(exc, PlanError):
            return f"expected a PlanError with code/loc, got {type(exc).__name__}: {exc}"
        if not any(want.get("code", d.code) == d.code and want.get("loc", d.loc) == d.loc for d in exc.details):
            return f"no problem with code={want.get('code')!r} loc={want.get('loc')!r} in: {exc}"
    if "error_class" in want:
        got = getattr(exc, "error_class", None)
        if not got or not str(got).startswith(str(want["error_class"])):
            return f"expected error class {want['error_class']!r}, got {got!r}: {exc}"
    if "op_index" in want and getattr(exc, "op_index", None) != want["op_index"]:
        return f"expected op_index {want['op_index']}, got {getattr(exc, 'op_index', None)}"
    if "contains" in want and str(want["contains"]) not in str(exc):
        return f"error text lacks {want['contains']!r}: {exc}"
    return None


# ------------------------------------------------------------------ comparison


def _types_match(want: DataType, got: DataType) -> bool:
    if isinstance(want, ArrayType) and isinstance(got, ArrayType):
        return want.element is None or (got.element is not None and _types_match(want.element, got.element))
    if isinstance(want, MapType) and isinstance(got, MapType):
        if want.key is None:
            return True
        return (
            got.key is not None
            and got.value is not None
            and want.value is not None
            and _types_match(want.key, got.key)
            and _types_match(want.value, got.value)
        )
    if isinstance(want, StructType) and isinstance(got, StructType):
        return len(want.fields) == len(got.fields) and all(
            wn == gn and _types_match(wt, gt) for (wn, wt), (gn, gt) in zip(want.fields, got.fields)
        )
    return want == got


def compare_result(table: pa.Table, expected: Mapping[str, Any], *, ordered: bool) -> str | None:
    """None if ``table`` matches ``expected`` (schema and rows), else what differs (or what
    is malformed in ``expected``)."""
    problems = expected_problems(expected)
    if problems:
        return f"malformed expected: {PlanError(problems)}"
    try:
        got_types = [from_arrow(f.type) for f in table.schema]
    except TypeParseError as exc:
        return f"the result has a type fixtures cannot compare: {exc}"
    if "schema" in expected:
        want_schema = expected["schema"]
        want_names, want_types = [], []
        for i, f in enumerate(want_schema):
            name = f.get("name") if isinstance(f, Mapping) else f[0]
            tstr = f.get("type") if isinstance(f, Mapping) else f[1]
            want_names.append(name)
            try:
                want_types.append(parse_type(str(tstr)))
            except TypeParseError as exc:
                return f"expected schema field {i}: {exc}"
        if want_names != table.column_names:
            return f"columns differ: expected {want_names}, got {table.column_names}"
        for name, wt, gt in zip(want_names, want_types, got_types):
            if not _types_match(wt, gt):
                return f"column {name!r}: expected type {type_string(wt)}, got {type_string(gt)}"
    rows = expected.get("rows")
    if rows is None:
        return None
    got_rows = [[_normalise(v, t) for v, t in zip(row, got_types)] for row in _rows(table)]
    want_rows = []
    for row in rows:
        if isinstance(row, Mapping):
            row = [row.get(n) for n in table.column_names]
        if len(row) != len(got_types):
            return f"expected row {row!r} has {len(row)} values for {len(got_types)} columns"
        want_rows.append([_normalise_expected(v, t) for v, t in zip(row, got_types)])
    if len(want_rows) != len(got_rows):
        return f"expected {len(want_rows)} rows, got {len(got_rows)}: {_preview(got_rows)}"
    if not ordered:
        want_rows = sorted(want_rows, key=_sort_key)
        got_rows = sorted(got_rows, key=_sort_key)
    for i, (w, g) in enumerate(zip(want_rows, got_rows)):
        if not _equal(w, g):
            where = f"row {i}" if ordered else "rows (sorted)"
            return f"{where} differ: expected {w!r}, got {g!r}"
    return None


def _rows(table: pa.Table) -> Iterable[list[Any]]:
    cols = [c.to_pylist() for c in table.columns]
    return (list(r) for r in zip(*cols)) if cols else iter(())


def _preview(rows: Sequence[Any], n: int = 5) -> str:
    text = json.dumps(rows[:n], default=str)
    return text + (" ..." if len(rows) > n else "")


def _normalise(v: Any, t: DataType) -> Any:
    """A result value as comparable JSON-ish Python."""
    if v is None:
        return None
    if isinstance(t, Primitive):
        if t.name == "date":
            return v.isoformat()
        if t.name in ("timestamp", "timestamp_ntz"):
            if v.tzinfo is not None:
                v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
            return v.isoformat(sep=" ")
        if t.name == "decimal":
            return decimal.Decimal(v)
        if t.name == "binary":
            return base64.b64encode(v).decode()
        if t.name == "variant" and isinstance(v, Mapping):
            from .spark_proto import variant_utils

            return json.loads(variant_utils().to_json(v["value"], v["metadata"]))
        return v
    if isinstance(t, ArrayType):
        return [_normalise(x, t.element) if t.element else x for x in v]
    if isinstance(t, MapType):
        return {_key(_normalise(k, t.key)) if t.key else k: _normalise(x, t.value) if t.value else x for k, x in v}
    if isinstance(t, StructType):
        return {n: _normalise(v.get(n), ft) for n, ft in t.fields}
    return v


def _key(k: Any) -> Any:
    return json.dumps(k, sort_keys=True, default=str) if isinstance(k, (dict, list)) else k


def _normalise_expected(v: Any, t: DataType) -> Any:
    from .data import CoerceError, coerce_value

    if v is None:
        return None
    try:
        coerced = coerce_value(v, t)
    except CoerceError:
        return v
    if isinstance(t, Primitive) and t.name in ("timestamp", "timestamp_ntz") and isinstance(coerced, int):
        coerced = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=coerced)
    if isinstance(t, MapType):
        coerced = [(k, x) for k, x in coerced]
    return _normalise(coerced, t)


def _sort_key(row: list[Any]) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or isinstance(a, (str, bool)) or isinstance(b, (str, bool)):
            return bool(a == b)
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return math.isclose(fa, fb, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)
