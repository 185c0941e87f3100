"""Property-based tests: whatever JSON arrives, parse/validate/translate either succeed or
raise a PlanError whose every detail has a code and a location — never another exception
(KeyError, AttributeError, TypeError, RecursionError ...).

The default run is bounded (``HYPOTHESIS_PROFILE=ci``, the default here); set
``HYPOTHESIS_PROFILE=long`` for a deeper search (documented in docs/reliability.md).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import connect_plan
from connect_plan import PlanError
from connect_plan.formats import load_plan
from connect_plan.policy import Policy as PolicyClass

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
SEEDS = [json.loads(p.read_text()) for p in sorted((ROOT / "fixtures" / "plans").glob("*.json"))]
SEEDS = [{k: d[k] for k in ("input", "plan", "with", "conf", "output") if k in d} for d in SEEDS]

NAMES = st.sampled_from(
    ["a", "b.c", "`x`", "with space", "select", "ünï", "漢字", "a`b", "'q'", '"dq"', "", "*", "\x00", "\ud800"]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    NAMES,
)
JSON = st.recursive(
    SCALARS,
    lambda kids: st.one_of(
        st.lists(kids, max_size=5),
        st.dictionaries(
            st.one_of(
                st.text(max_size=8),
                st.sampled_from(
                    [
                        "op",
                        "payload",
                        "fn",
                        "args",
                        "col",
                        "lit",
                        "left",
                        "right",
                        "arg",
                        "name",
                        "expr",
                        "columns",
                        "n",
                        "on",
                        "how",
                        "other_data",
                        "other_schema",
                        "group_by",
                        "aggs",
                        "agg",
                        "column",
                        "alias",
                        "window",
                        "type",
                        "udf",
                        "values",
                    ]
                ),
            ),
            kids,
            max_size=5,
        ),
    ),
    max_leaves=25,
)
TYPE_STRINGS = st.sampled_from(
    [
        "int",
        "bigint",
        "string",
        "decimal(5,2)",
        "array<int>",
        "map<string,int>",
        "struct<a:int>",
        "date",
        "timestamp",
        "binary",
        "nope",
        "decimal(99,1)",
        "array<",
        "",
        "int int",
        "struct<a:int,a:int>",
        "map",
        "variant",
        "array<map>",
        "struct<a:variant>",
        "array<variant>",
        "map<string,map>",
        "array",
        "array<array>",
        "struct<a:array>",
        "map<int,variant>",
        "void",
    ]
)


def assert_only_plan_errors(rows: Any, schema: Any, plan: Any) -> None:
    try:
        connect_plan.translate(rows, schema, plan)
    except PlanError as err:
        assert err.details, "a PlanError must list at least one problem"
        for d in err.details:
            assert d.code and isinstance(d.code, str)
            assert isinstance(d.loc, str)
            str(d)  # rendering never fails


def assert_document_only_plan_errors(doc: Any) -> None:
    try:
        connect_plan.translate(None, None, doc)
    except PlanError as err:
        assert err.details and all(d.code for d in err.details)
        str(err)


@given(plan=JSON)
def test_random_json_as_plan(plan: Any) -> None:
    assert_only_plan_errors([[1, "x"]], [("a", "int"), ("b", "string")], plan)


@given(doc=JSON)
def test_random_json_as_document(doc: Any) -> None:
    assert_document_only_plan_errors(doc)


@given(rows=JSON, schema=st.lists(st.tuples(NAMES, TYPE_STRINGS), max_size=4))
def test_random_rows_and_schema(rows: Any, schema: Any) -> None:
    assert_only_plan_errors(rows, [list(s) for s in schema], [])


@given(
    rows=JSON,
    schema=st.lists(st.tuples(NAMES, TYPE_STRINGS), max_size=3),
    op=st.sampled_from(["join", "union", "unionByName", "crossJoin"]),
    cast_to=TYPE_STRINGS,
)
def test_random_right_side_schemas_and_cast_types(rows: Any, schema: Any, op: str, cast_to: str) -> None:
    """The same type strings in a join/union right side's schema and as cast targets."""
    right = {"other_data": rows, "other_schema": [{"name": n, "type": t} for n, t in schema], "on": ["a"]}
    assert_only_plan_errors([[1, "x"]], [("a", "int"), ("b", "string")], [{"op": op, "payload": right}])
    cast = {"op": "withColumn", "payload": {"name": "c", "expr": {"fn": "cast", "args": ["a", cast_to]}}}
    typed = {"op": "withColumn", "payload": {"name": "d", "expr": {"lit": None, "type": cast_to}}}
    assert_only_plan_errors([[1, "x"]], [("a", "int"), ("b", "string")], [cast, typed])


def _paths(node: Any) -> list[tuple[Any, ...]]:
    """Paths to every node, iteratively and at most 40 levels down (mutations nest deep);
    a list or object met again (shared, or containing itself) is not entered again."""
    out: list[tuple[Any, ...]] = []
    entered: set[int] = set()
    stack: list[tuple[tuple[Any, ...], Any]] = [((), node)]
    while stack:
        prefix, cur = stack.pop()
        out.append(prefix)
        if len(prefix) >= 40 or id(cur) in entered:
            continue
        if isinstance(cur, (dict, list)):
            entered.add(id(cur))
        if isinstance(cur, dict):
            stack.extend(((*prefix, k), v) for k, v in cur.items())
        elif isinstance(cur, list):
            stack.extend(((*prefix, i), v) for i, v in enumerate(cur[:50]))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        node = node[p]
    return node


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    _get(root, path[:-1])[path[-1]] = value
    return root


MUTATIONS = st.sampled_from(
    [
        "replace",
        "delete",
        "add_key",
        "wrap_deep",
        "huge",
        "nan",
        "long_list",
        "rename",
        "type_string",
        "dup",
        "cycle",
        "share_deep",
    ]
)


@given(
    seed=st.sampled_from(range(len(SEEDS))),
    picks=st.lists(st.tuples(st.integers(0, 10_000), MUTATIONS, JSON), min_size=1, max_size=3),
)
def test_mutated_fixture_plans(seed: int, picks: list[tuple[int, str, Any]]) -> None:
    doc: Any = copy.deepcopy(SEEDS[seed])
    for index, kind, value in picks:
        paths = _paths(doc)
        path = paths[index % len(paths)]
        target = _get(doc, path)
        if kind == "replace":
            doc = _set(doc, path, value)
        elif kind == "delete" and path:
            parent = _get(doc, path[:-1])
            del parent[path[-1]]
        elif kind == "add_key" and isinstance(target, dict):
            target[str(value)[:10]] = value
        elif kind == "wrap_deep":
            deep: Any = target
            for _ in range(3000):
                deep = {"op": "not", "arg": deep} if index % 2 else [deep]
            doc = _set(doc, path, deep)
        elif kind == "huge":
            doc = _set(doc, path, 10**400 if index % 2 else -(2**64))
        elif kind == "nan":
            doc = _set(doc, path, math.nan if index % 2 else math.inf)
        elif kind == "long_list":
            doc = _set(doc, path, [target] * 2000)
        elif kind == "rename" and isinstance(target, str):
            doc = _set(doc, path, target + '`."; DROP TABLE t; --')
        elif kind == "type_string" and isinstance(target, dict) and "type" in target:
            target["type"] = str(value)
        elif kind == "dup" and isinstance(target, list) and target:
            target.append(target[0])  # shared, not copied: it may be nested very deep
        elif kind == "cycle" and isinstance(target, (list, dict)):
            if isinstance(target, list):
                target.append(target)
            else:
                target[str(value)[:10]] = target
        elif kind == "share_deep":
            shared: Any = target
            for _ in range(index % 40):
                shared = {"op": "and", "left": shared, "right": shared} if index % 2 else [shared, shared]
            doc = _set(doc, path, shared)
    assert_document_only_plan_errors(doc)


def test_python_plans_that_contain_themselves_are_located_plan_errors() -> None:
    schema = [("x", "int")]
    cond: dict[str, Any] = {"op": "eq", "left": {"col": "x"}, "right": 1}
    cond["right"] = cond
    loop: list[Any] = ["x"]
    loop.append(loop)
    doc: dict[str, Any] = {"input": {"schema": [{"name": "x", "type": "int"}], "rows": [[1]]}, "with": {}, "plan": []}
    doc["with"]["me"] = doc
    for rows, plan, where in (
        ([[1]], [{"op": "filter", "payload": cond}], "/plan/0/payload/right"),
        ([[1]], [{"op": "select", "payload": loop}], "/plan/0/payload/1"),
        (None, doc, "/with/me/with"),
    ):
        try:
            connect_plan.translate(rows, None if rows is None else schema, plan)
        except PlanError as err:
            assert err.codes == ("cyclic_plan",) and err.details[0].loc == where, err
        else:
            raise AssertionError("a cyclic plan translated")


def test_reused_objects_may_not_expand_a_plan_without_bound() -> None:
    schema = [("x", "int")]
    expr: Any = {"col": "x"}
    for _ in range(30):  # 2**30 nodes once every use is parsed again
        expr = {"op": "+", "left": expr, "right": expr}
    try:
        connect_plan.translate([[1]], schema, [{"op": "select", "payload": [{"name": "y", "expr": expr}]}])
    except PlanError as err:
        assert err.codes == ("plan_too_large",) and "to 4,294,967," in str(err), err
    else:
        raise AssertionError("an exponentially shared plan translated")
    # modest reuse is fine and means the same as writing the object out twice
    cond = {"op": "gt", "left": {"col": "x"}, "right": 0}
    shared = connect_plan.translate(
        [[1]], schema, [{"op": "filter", "payload": cond}, {"op": "select", "payload": [{"name": "c", "expr": cond}]}]
    )
    copied = connect_plan.translate(
        [[1]],
        schema,
        [
            {"op": "filter", "payload": copy.deepcopy(cond)},
            {"op": "select", "payload": [{"name": "c", "expr": copy.deepcopy(cond)}]},
        ],
    )
    assert shared == copied


@pytest.mark.parametrize("type_", ["string", "array", "array<array<int>>", "struct<a:array<int>>"])
def test_reused_lists_in_row_values_are_bounded_before_conversion(type_: str) -> None:
    """A row value that reuses one list at every level (2**40 values once copied): converting
    it (json.dumps for a string column, pyarrow for the others) took every byte of memory
    (22 GB, the CI run killed), found by test_mutated_fixture_plans. It is now a located
    plan_too_large before any conversion; a value that contains itself is a cyclic_plan."""
    shared: Any = [1]
    for _ in range(40):
        shared = [shared, shared]
    value = {"a": shared} if type_.startswith("struct") else shared
    schema = [("id", "int"), ("v", type_)]
    for rows, where in (
        ([[1, None], [2, value]], "/input/rows/1/1"),
        ([{"id": 1}, {"v": value, "id": 2}], "/input/rows/1/v"),
    ):
        # CPU seconds, not wall: the bound is about the work done (copying 2**40 values
        # would never end), and wall time grew to 10 s on a machine at load 10
        start = time.process_time()
        with pytest.raises(PlanError) as info:
            connect_plan.translate(rows, schema, [])
        assert time.process_time() - start < 5
        assert info.value.codes == ("plan_too_large",) and info.value.details[0].loc == where, info.value
        assert "row 1, column 'v'" in str(info.value)
    loop: list[Any] = [1]
    loop.append(loop)
    with pytest.raises(PlanError) as info:
        connect_plan.translate([[1, {"a": loop} if type_.startswith("struct") else loop]], schema, [])
    assert info.value.codes == ("cyclic_plan",) and info.value.details[0].loc == "/input/rows/0/1", info.value
    # reuse that stays small means the same as writing the values out
    small = [[1, 2]] * 3
    if type_ in ("array", "array<array<int>>"):
        assert connect_plan.translate([[1, small]], schema, []) == connect_plan.translate(
            [[1, copy.deepcopy(small)]], schema, []
        )


@given(text=st.text(max_size=200))
def test_random_text_as_plan_json(text: str) -> None:
    assert_only_plan_errors([], [("a", "int")], text)


def test_deeply_nested_json_text_is_a_plan_error() -> None:
    for text in ("[" * 200_000, '{"a":' * 200_000, "[" * 50_000 + "]" * 50_000):
        try:
            connect_plan.translate([], [("a", "int")], text)
        except PlanError as err:
            assert err.codes[0] in ("json_too_deep", "json_syntax", "too_deep", "plan_type", "step_type")


@given(
    op=st.sampled_from(sorted(connect_plan.supported_plan_operations())),
    payload=JSON,
    extra=st.dictionaries(
        st.sampled_from(
            [
                "other_data",
                "otherData",
                "other_schema",
                "on",
                "how",
                "other",
                "table",
                "fraction",
                "seed",
                "n",
                "columns",
            ]
        ),
        JSON,
        max_size=3,
    ),
)
def test_every_op_with_random_payloads(op: str, payload: Any, extra: dict[str, Any]) -> None:
    """Each op's parser, given arbitrary JSON, only ever raises located PlanErrors."""
    assert_only_plan_errors([[1, "x"]], [("a", "int"), ("b", "string")], [{"op": op, "payload": payload, **extra}])
    assert_only_plan_errors([[1, "x"]], [("a", "int"), ("b", "string")], [{"op": op, **extra}])


# ---------------------------------------------------------------- issue 6 additions
# Shapes the generic generators above rarely reach: valid schemas with rows that do not
# fit them, type strings from the type grammar with random damage, and inputs that are
# very long or very deep. The contract is the same: success, or a located PlanError.

PRIMITIVES = [
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "string",
    "binary",
    "date",
    "timestamp",
    "timestamp_ntz",
    "decimal(10,2)",
    "decimal(38,0)",
    "void",
    "variant",
]


def _type_strings() -> st.SearchStrategy[str]:
    def nested(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            inner.map(lambda t: f"array<{t}>"),
            st.tuples(st.sampled_from(["string", "int"]), inner).map(lambda kv: f"map<{kv[0]},{kv[1]}>"),
            st.lists(st.tuples(NAMES.filter(lambda n: n.isidentifier()), inner), min_size=1, max_size=3).map(
                lambda fs: "struct<" + ",".join(f"{n}:{t}" for n, t in fs) + ">"
            ),
        )

    return st.recursive(st.sampled_from(PRIMITIVES), nested, max_leaves=6)


VALID_TYPES = _type_strings()
DAMAGE = st.sampled_from(
    ["drop_last", "drop_first", "double_angle", "comma", "decimal_params", "unicode", "space", "none"]
)


def _damage(text: str, how: str, at: int) -> str:
    i = at % (len(text) + 1)
    return {
        "drop_last": text[:-1],
        "drop_first": text[1:],
        "double_angle": text[:i] + "<<" + text[i:],
        "comma": text[:i] + "," + text[i:],
        "decimal_params": text.replace("decimal(10,2)", "decimal(99,-1)"),
        "unicode": text[:i] + "\u00e9\ud800" + text[i:],
        "space": text[:i] + " " + text[i:],
        "none": text,
    }[how]


@given(types=st.lists(st.tuples(VALID_TYPES, DAMAGE, st.integers(0, 200)), min_size=1, max_size=4))
def test_type_strings_from_the_grammar_damaged_at_random(types: list[tuple[str, str, int]]) -> None:
    schema = [[f"c{i}", _damage(t, how, at)] for i, (t, how, at) in enumerate(types)]
    assert_only_plan_errors([], schema, [{"op": "select", "payload": [f"c{i}" for i in range(len(schema))]}])


CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.binary(max_size=4),
    st.lists(st.integers(-5, 5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(-5, 5), max_size=2),
    st.sampled_from(["2024-02-30", "1e400", "NaN", "\ud800"]),
)


@given(types=st.lists(VALID_TYPES, min_size=1, max_size=4), rows=st.lists(st.lists(CELLS, max_size=5), max_size=6))
def test_rows_that_do_not_fit_a_valid_schema(types: list[str], rows: list[list[Any]]) -> None:
    """Each row is a list of random values of random types, often of the wrong length."""
    schema = [[f"c{i}", t] for i, t in enumerate(types)]
    assert_only_plan_errors(rows, schema, [{"op": "limit", "payload": {"n": 3}}])


@given(
    types=st.lists(VALID_TYPES, min_size=1, max_size=3),
    rows=st.lists(st.dictionaries(st.sampled_from(["c0", "c1", "c2", "zz", ""]), CELLS, max_size=4), max_size=5),
)
def test_rows_as_objects_that_do_not_fit(types: list[str], rows: list[dict[str, Any]]) -> None:
    schema = [[f"c{i}", t] for i, t in enumerate(types)]
    assert_only_plan_errors(rows, schema, [])


def test_very_long_and_very_deep_inputs_are_bounded() -> None:
    """Long lists are accepted (or refused with a PlanError), deep ones are refused with a
    PlanError naming the limit; nothing raises RecursionError or takes unbounded time."""
    import time

    schema = [("a", "int"), ("b", "string")]
    deep_expr: Any = {"col": "a"}
    for _ in range(5_000):
        deep_expr = {"fn": "abs", "args": [deep_expr]}
    deep_json = "[" * 100_000 + "]" * 100_000
    cases: list[tuple[str, Any, Any]] = [
        (
            "10,000 steps",
            [[1, "x"]],
            [
                {"op": "filter", "payload": {"op": "gt", "left": {"col": "a"}, "right": {"lit": i}}}
                for i in range(10_000)
            ],
        ),
        (
            "20,000 select items",
            [[1, "x"]],
            [{"op": "select", "payload": [{"name": f"c{i}", "expr": {"col": "a"}} for i in range(20_000)]}],
        ),
        (
            "100,000 isin values",
            [[1, "x"]],
            [{"op": "filter", "payload": {"fn": "isin", "args": [{"col": "a"}, *range(100_000)]}}],
        ),
        ("100,000 rows", [[i, str(i)] for i in range(100_000)], [{"op": "limit", "payload": {"n": 1}}]),
        ("5,000-deep expression", [[1, "x"]], [{"op": "withColumn", "payload": {"name": "d", "expr": deep_expr}}]),
        ("100,000-deep JSON", [[1, "x"]], deep_json),
        (
            "2,000 nested joins",
            [[1, "x"]],
            [{"op": "crossJoin", "payload": {"other": {"range": 1}}} for _ in range(2_000)],
        ),
    ]
    for label, rows, plan in cases:
        start = time.monotonic()
        try:
            connect_plan.translate(rows, schema, plan)
        except PlanError as err:
            assert err.details and all(d.code and isinstance(d.loc, str) for d in err.details), label
        took = time.monotonic() - start
        assert took < 30, f"{label}: {took:.1f} s"


# ---------------------------------------------------------------- the policy (issue 18)
#
# Plans are built from sources whose true target is known (a table Spark would resolve a
# spelling to, a path as the file system would read it after '..' and percent decoding), in
# every place a plan can hold a source. Whatever the policy accepts is translated, and the
# emitted proto is walked: every table, path, option, function it names must be one the
# policy allows by that independent truth — never by the checker's own reading.

POLICY = PolicyClass.strict().replace(
    tables=("sales.*", "spark_catalog.shared.lookup", "*.public_*"),
    paths=("/srv/shared", "s3a://team-bucket/data"),
    path_schemes=("", "s3a"),
    formats=("parquet", "csv"),
    udfs="none",
)
#: (database, table) → may it be read
TABLE_TRUTH = {
    ("sales", "orders"): True,
    ("shared", "lookup"): True,
    ("reports", "public_daily"): True,  # any database's public_* tables (a wildcard database)
    ("secret", "t"): False,
    ("default", "orders"): False,
}


def _spell_part(draw: Any, part: str) -> str:
    how = draw(st.sampled_from(["plain", "upper", "mixed", "backticks", "backticks_upper"]))
    if how == "upper":
        return part.upper()
    if how == "mixed":
        return "".join(c.upper() if i % 2 else c for i, c in enumerate(part))
    if how == "backticks":
        return f"`{part}`"
    return f"`{part.upper()}`" if how == "backticks_upper" else part


@st.composite
def table_spelling(draw: Any) -> tuple[str, bool]:
    """A table name as a plan may write it, and whether Spark's target is an allowed table."""
    (db, table), allowed = draw(st.sampled_from(sorted(TABLE_TRUTH.items())))
    parts = [_spell_part(draw, db), _spell_part(draw, table)]
    form = draw(st.sampled_from(["two", "catalog", "one", "spaced", "comment", "file_source", "lookalike"]))
    if form == "catalog":
        return f"{_spell_part(draw, 'spark_catalog')}.{'.'.join(parts)}", allowed
    if form == "one":  # resolves in the current database ('default')
        return parts[1], TABLE_TRUTH.get(("default", table), table.startswith("public_"))
    if form == "spaced":
        return f"{parts[0]} . {parts[1]}", allowed
    if form == "comment":
        return f"{parts[0]}/**/.{parts[1]}", allowed
    if form == "file_source":  # Spark reads the files (a path relative to the server's directory)
        path = draw(st.sampled_from([f"`/srv/shared/{table}`", table, f"`{table}`", "public_daily"]))
        return f"{draw(st.sampled_from(['parquet', 'CSV', 'json']))}.{path}", False
    if form == "lookalike":
        return f"{db.replace('s', chr(0xFF53))}.{table}", False
    return ".".join(parts), allowed


def _path_truth(path: str) -> bool:
    """Is the file the server would read under an allowed prefix? (percent-decoded, '..'
    resolved lexically, the scheme's case folded: an independent reading of the path)."""
    import posixpath
    import urllib.parse

    decoded = urllib.parse.unquote(path)
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$", decoded)
    scheme, rest = (m.group(1).lower(), m.group(2)) if m else ("", decoded)
    authority = ""
    if rest.startswith("//"):
        authority, _, tail = rest[2:].partition("/")
        rest = "/" + tail
    if not rest.startswith("/") or "{" in rest or "\\" in rest or "," in rest:
        return False
    norm = posixpath.normpath(rest)
    if scheme == "" and not authority:
        return norm == "/srv/shared" or norm.startswith("/srv/shared/")
    if scheme == "s3a" and authority.lower() == "team-bucket":
        return norm == "/data" or norm.startswith("/data/")
    return False


@st.composite
def path_spelling(draw: Any) -> str:
    base = draw(
        st.sampled_from(
            [
                "/srv/shared/x",
                "/srv/shared",
                "/etc/passwd",
                "s3a://team-bucket/data/y",
                "s3a://other/data/y",
                "/srv/shared-other/z",
            ]
        )
    )
    for _ in range(draw(st.integers(0, 3))):
        how = draw(
            st.sampled_from(
                ["dotdot", "dot", "slashes", "file", "percent", "upper_scheme", "brace", "trailing", "relative"]
            )
        )
        if how == "dotdot":
            base = (
                base.rstrip("/")
                + "/.." * draw(st.integers(1, 3))
                + draw(st.sampled_from(["/etc", "/srv/shared/q", ""]))
            )
        elif how == "dot":
            base = base.replace("/", "/./", 1) if base.startswith("/") else base + "/."
        elif how == "slashes":
            base = base.replace("/", "//", 2) if base.startswith("/") else base
        elif how == "file" and base.startswith("/"):
            base = draw(st.sampled_from(["file:", "file://", "file://localhost"])) + base
        elif how == "percent":
            base = base.replace(".", "%2e").replace("/e", "%2Fe")
        elif how == "upper_scheme":
            base = base.replace("s3a:", "S3A:")
        elif how == "brace":
            base = base + "/{a,../../etc}"
        elif how == "trailing":
            base = base + "/"
        elif how == "relative":
            base = base.lstrip("/")
    return base


FUNCTION_CALLS = st.sampled_from(
    [
        ("upper", {"fn": "upper", "args": [{"col": "v"}]}),
        ("reflect", {"fn": "reflect", "args": [{"lit": "java.lang.System"}, {"lit": "getenv"}]}),
        ("java_method", {"fn": "java_method", "args": [{"lit": "a"}, {"lit": "b"}]}),
        ("reflect", {"fn": "call_function", "args": [{"lit": "REFLECT"}, {"lit": "a"}, {"lit": "b"}]}),
        ("upper", {"fn": "call_function", "args": [{"lit": "upper"}, {"col": "v"}]}),
        ("current_user", {"fn": "current_user", "args": []}),
        ("evil", {"udf": "evil", "args": [{"col": "v"}]}),
    ]
)


@st.composite
def source(draw: Any, truth: dict[str, bool], paths: list[str]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["inline", "table", "files", "sql", "range"]))
    if kind == "table":
        name, ok = draw(table_spelling())
        truth[name] = truth.get(name, True) and ok
        return {"table": name}
    if kind == "files":
        path = draw(path_spelling())
        paths.append(path)
        fmt = draw(st.sampled_from(["parquet", "csv", "jdbc", "text"]))
        opts = draw(
            st.sampled_from([{}, {"header": "true"}, {"path": "/etc"}, {"PATH": "/etc"}, {"basePath": "/srv/shared"}])
        )
        return {"files": path, "format": fmt, "options": opts}
    if kind == "sql":
        return {"sql": "SELECT 1 AS k"}
    if kind == "range":
        return {"range": draw(st.sampled_from([10, 10**18]))}
    return {"schema": [{"name": "k", "type": "int"}, {"name": "v", "type": "string"}], "rows": [[1, "a"]]}


@st.composite
def policy_plan(draw: Any) -> tuple[dict[str, Any], dict[str, bool], list[str], list[str]]:
    truth: dict[str, bool] = {}
    paths: list[str] = []
    called: list[str] = []
    steps: list[Any] = []
    definitions: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["join", "union", "with", "fn"]))
        right = {"input": draw(source(truth, paths)), "plan": []}
        if kind == "fn":
            name, expr = draw(FUNCTION_CALLS)
            called.append(name)
            steps.append({"op": "withColumn", "payload": {"name": f"c{len(steps)}", "expr": expr}})
        elif kind == "with":
            definitions[f"d{len(definitions)}"] = right
            steps.append({"op": "union", "payload": {"other": {"ref": f"d{len(definitions) - 1}"}}})
        else:
            steps.append({"op": kind, "payload": {"other": right, **({"on": ["k"]} if kind == "join" else {})}})
    doc: dict[str, Any] = {"input": draw(source(truth, paths)), "plan": steps}
    if definitions:
        doc["with"] = definitions
    return doc, truth, paths, called


def _proto_nodes(message: Any) -> Iterator[Any]:
    stack = [message]
    while stack:
        node = stack.pop()
        yield node
        for fd, value in node.ListFields():
            if fd.type != fd.TYPE_MESSAGE:
                continue
            if hasattr(value, "ListFields"):
                stack.append(value)
            else:  # a repeated field (a map's keys are strings: skipped)
                stack.extend(v for v in value if hasattr(v, "ListFields"))


@given(case=policy_plan())
def test_a_plan_accepted_under_strict_reads_only_what_the_policy_allows(
    case: tuple[dict[str, Any], dict[str, bool], list[str], list[str]],
) -> None:
    doc, truth, paths, called = case
    try:
        plan = load_plan(doc)
    except PlanError:
        return  # the parser refuses it: nothing is sent either
    if POLICY.violations(plan):
        return
    try:
        proto = connect_plan.translate(None, None, plan)
    except PlanError:
        return  # refused by analysis (a join key the left side lacks): not sent either
    denied = set(POLICY.denied_functions)
    assert not (set(called) & (denied | {"evil"})), called
    for node in _proto_nodes(proto):
        kind = node.DESCRIPTOR.name
        if kind == "Relation":
            assert not node.HasField("sql"), "a SQL source was accepted"
        elif kind == "NamedTable":
            assert truth.get(node.unparsed_identifier) is True, f"read {node.unparsed_identifier!r}"
            assert all(k.lower() in POLICY.source_options for k in node.options)
        elif kind == "DataSource":
            assert node.paths, "a data source without paths was accepted"
            for p in node.paths:
                assert p in paths and _path_truth(p), f"read {p!r}"
            assert node.format.lower() in ("parquet", "csv")
            assert all(k.lower() in POLICY.source_options for k in node.options)
        elif kind == "UnresolvedFunction":
            assert node.function_name.lower() not in denied, node.function_name
        elif kind == "CallFunction":
            assert node.function_name.lower() not in denied, node.function_name
        elif kind in ("CommonInlineUserDefinedFunction", "WriteOperation", "CreateDataFrameViewCommand"):
            raise AssertionError(f"{kind} accepted")
        elif kind == "Range":
            assert node.end - node.start <= 10_000_000
