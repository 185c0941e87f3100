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
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import connect_plan
from connect_plan import PlanError

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
        start = time.monotonic()
        with pytest.raises(PlanError) as info:
            connect_plan.translate(rows, schema, [])
        assert time.monotonic() - start < 5
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
