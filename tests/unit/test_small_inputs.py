"""The fixed per-query cost of small inline inputs (issue 17): the shortcuts taken for a few
rows must give exactly what the general paths give (same Arrow arrays, same IPC bytes, same
errors at the same locations)."""

from __future__ import annotations

import decimal
import random
from typing import Any

import pyarrow as pa
import pytest

from connect_plan import data
from connect_plan.arrow_types import inline_arrow_type
from connect_plan.data import buffers, serialize_ipc
from connect_plan.data.coerce import EPOCH
from connect_plan.formats import load_plan
from connect_plan.types import parse_type
from tests.support.tables import convert

# ---------------------------------------------------------------- date and timestamp strings


def _date(rng: random.Random) -> str:
    year = rng.choice(["2024", "0001", "9999", "0000", "1970", "1969", "2023", "0100", "0010", "12345", "99"])
    month = rng.choice(["01", "02", "12", "13", "00", "1", "06", "٠١"])  # Arabic-Indic digits: not \d in Arrow
    day = rng.choice(["01", "28", "29", "30", "31", "00", "32", "15"])
    return f"{year}-{month}-{day}"


def _timestamp(rng: random.Random) -> str:
    text = _date(rng)
    kind = rng.randrange(6)
    if kind == 0:
        return text
    text += rng.choice("TT ") + rng.choice(["00", "23", "24", "12", "9"]) + ":" + rng.choice(["00", "59", "60", "30"])
    if kind >= 2:
        text += ":" + rng.choice(["00", "59", "60", "07"])
    if kind >= 3:
        text += "." + "".join(rng.choice("0123456789") for _ in range(rng.choice([1, 2, 3, 5, 6, 7, 9])))
    if kind == 5:
        text += rng.choice(["Z", "+01:00", "-0530", " ", "\n", "x"])
    return text


@pytest.mark.parametrize("name", ["date", "timestamp", "timestamp_ntz"])
@pytest.mark.parametrize("seed", range(6))
def test_a_few_strings_convert_as_the_vectorised_path_converts_them(
    name: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Value by value (a few rows) and in one Arrow pass (many rows): the same table, the
    same IPC bytes, the same errors, whatever mix of valid, invalid and null strings."""
    rng = random.Random(seed)
    gen = _date if name == "date" else _timestamp
    columns = []
    for trial in range(160):
        n = rng.choice([1, 2, 3, 5, 8, 9, 17, 32])
        valid_only = trial % 2 == 0  # half of them convert (the others mostly fall back)
        values: list[Any] = []
        while len(values) < n:
            v = None if rng.random() < 0.15 else gen(rng)
            if valid_only and v is not None and convert(name, [v])[1]:
                continue
            values.append(v)
        columns.append(values)
    small = [convert(name, values) for values in columns]
    monkeypatch.setattr(buffers, "_SMALL_DATES", -1)
    monkeypatch.setattr(buffers, "_SMALL_TIMESTAMPS", -1)
    converted = 0
    for values, (table, errors) in zip(columns, small):
        expected_table, expected_errors = convert(name, values)
        assert errors == expected_errors, values
        assert table.schema == expected_table.schema
        if not errors:
            converted += 1
            table.validate(full=True)
            assert table.equals(expected_table), values
            assert serialize_ipc(table) == serialize_ipc(expected_table), values
    assert converted > 60  # the comparison is not only of errors


@pytest.mark.parametrize("name", ["date", "timestamp"])
def test_the_small_path_is_taken_up_to_its_size_and_not_after(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    value = "2024-02-29" if name == "date" else "2024-02-29 12:30:59.25"
    limit = buffers._SMALL_DATES if name == "date" else buffers._SMALL_TIMESTAMPS
    calls: list[int] = []
    original = buffers._all_match

    def counted(strings: pa.Array, pattern: str) -> bool:
        calls.append(len(strings))
        return original(strings, pattern)

    monkeypatch.setattr(buffers, "_all_match", counted)
    at_limit, errors = convert(name, [value] * limit)
    assert errors == [] and calls == []
    over, errors = convert(name, [value] * (limit + 1))
    assert errors == [] and calls == [limit + 1]
    assert over.slice(0, limit).equals(at_limit)


def test_a_string_python_refuses_is_left_to_arrows_cast(monkeypatch: pytest.MonkeyPatch) -> None:
    """A string of the fast form that is no calendar date (or time) is judged by the
    vectorised path, as before: the per-value parser then reports it at its row."""
    calls: list[int] = []
    original = buffers._all_match
    monkeypatch.setattr(buffers, "_all_match", lambda s, p: calls.append(len(s)) or original(s, p))
    _, errors = convert("date", ["2024-01-01", "2023-02-29"])
    assert calls == [2]
    assert [(e.code, e.loc) for e in errors] == [("row_value", "/rows/1/0")]
    assert "not a valid calendar date" in errors[0].message
    _, errors = convert("timestamp_ntz", [None, "2024-01-01T24:00"])
    assert [(e.code, e.loc) for e in errors] == [("row_value", "/rows/1/0")]


# ---------------------------------------------------------------- a few plain values

_PLAIN: dict[str, list[Any]] = {
    "tinyint": [0, 1, -128, 127, None],
    "smallint": [0, -32768, 32767, None, 5],
    "int": [0, -(2**31), 2**31 - 1, None, 7],
    "bigint": [0, -(2**63), 2**63 - 1, None, 1],
    "double": [0.0, -0.0, -1.5, float("inf"), float("nan"), 1e308, 5e-324, None, 3, -(2**53), 2**53],
    "boolean": [True, False, None],
    "string": ["", "a", "Tromsø", "日本語", "🙂", "x" * 300, None],
}


@pytest.mark.parametrize("name", sorted(_PLAIN))
@pytest.mark.parametrize("seed", range(6))
def test_a_few_plain_values_make_the_array_pa_array_makes(name: str, seed: int) -> None:
    """Same values, nulls, type and IPC bytes as ``pa.array`` (which builds longer columns)."""
    rng = random.Random(seed)
    for n in (1, 2, 3, 7, 8, 9, 31, 32, 33, 64, 127, 128):
        values = [rng.choice(_PLAIN[name]) for _ in range(n)]
        if seed == 0:
            values = [None] * n
        table, errors = convert(name, values)
        assert errors == []
        expected = pa.table({"c": pa.array(values, type=table.schema.field("c").type)})
        table.validate(full=True)
        assert table.schema == expected.schema
        assert serialize_ipc(table) == serialize_ipc(expected), values
        present = set(map(type, values))
        small = buffers._small_buffers(values, name, expected.schema.field("c").type, present)
        assert small is not None  # the path taken (NaN is not equal to itself: bytes compared)
        assert serialize_ipc(pa.table({"c": small})) == serialize_ipc(expected)


@pytest.mark.parametrize(("name", "bad"), [("tinyint", 128), ("smallint", -32769), ("int", 2**31), ("bigint", 2**63)])
def test_a_few_values_out_of_range_are_reported_as_before(name: str, bad: int) -> None:
    with pytest.raises(OverflowError):
        buffers._small_buffers([1, bad], name, pa.array([1], type=inline_arrow_type(parse_type(name))).type, {int})
    _, errors = convert(name, [None, 1, bad])
    assert [(e.code, e.loc) for e in errors] == [("row_value", "/rows/2/0")]
    assert "out of range" in errors[0].message


def test_a_few_values_pa_array_refuses_take_the_per_value_path() -> None:
    """A lone surrogate, an integer a double cannot hold exactly: None, then pa.array and
    the per-value path decide as before."""
    assert buffers._small_buffers(["a", "\ud800"], "string", pa.string(), {str}) is None
    assert buffers._small_buffers([1.5, 2**53 + 1], "double", pa.float64(), {int, float}) is None
    _, errors = convert("string", ["a", "\ud800"])
    assert [(e.code, e.loc) for e in errors] == [("row_value", "/rows/1/0")]
    table, errors = convert("double", [1.5, 2**53 + 1])
    assert errors == [] and table.column("c").to_pylist() == [1.5, float(2**53)]


# ---------------------------------------------------------------- coerced values

_COERCED: dict[str, list[Any]] = {
    "bigint": [" 12 ", 3.0, "-7", 2**62, None, decimal.Decimal("4")],
    "int": ["1", 2.0, None, -(2**31)],
    "double": ["1.5", 2, " -3e10 ", None, "inf", decimal.Decimal("0.1")],
    "string": [1, 2.5, True, [1, "a"], {"k": None}, "x", None, "Tromsø"],
    "boolean": ["true", " FALSE ", True, None],
    "date": [{"year": 2024, "month": 2, "day": 29}, " 2024-01-01 ", "0001-01-01", None, "9999-12-31 "],
    "timestamp": ["2024-01-01T10:00:00Z", "2024-03-01 10:00+01:30", 1_700_000_000_000_000, -5, None, "1969-12-31"],
    "timestamp_ntz": ["2024-01-01T10:00:00.1234567", {"year": 2000, "month": 1, "day": 2, "hour": 3}, 0, None],
    "decimal(10,2)": [1.25, "3.5", 7, "-0.005", "12345678.99", None, 0.1, decimal.Decimal("-1.2")],
    "decimal(38,0)": ["99999999999999999999999999999999999999", -(10**37), 0, None, "-1"],
    "decimal(38,38)": ["0.99999999999999999999999999999999999999", "-0.5", None, 0],
    "decimal(5,5)": ["0.123456", -0.1, None],
}


@pytest.mark.parametrize("name", sorted(_COERCED))
@pytest.mark.parametrize("pandas", [False, True], ids=["without-pandas", "with-pandas"])
def test_coerced_values_make_the_array_pa_array_makes(name: str, pandas: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values converted one by one (ISO strings with a zone, numeric strings, date objects,
    decimals at their scale) are built from buffers without pa.array (and its pandas probe):
    the same Arrow type, IPC bytes and errors as pa.array's, few values or many."""
    monkeypatch.setattr(buffers, "_pandas_imported", lambda: pandas)
    rng = random.Random(name)
    for n in (1, 3, 8, 33, 200):
        values = [rng.choice(_COERCED[name]) for _ in range(n)]
        table, errors = convert(name, values)
        with monkeypatch.context() as m:
            m.setattr(buffers, "coerced_array", lambda out, t, at: None)
            expected, expected_errors = convert(name, values)
        assert errors == expected_errors, values
        assert table.schema == expected.schema
        table.validate(full=True)
        assert serialize_ipc(table) == serialize_ipc(expected), values


def test_coerced_values_the_builders_refuse_go_to_pa_array() -> None:
    """Microseconds beyond 64 bits, a zoned datetime in a zone-less column: pa.array
    decides and reports, as before."""
    assert buffers._timestamps([2**63], pa.timestamp("us"), zoned=False) is None
    aware = EPOCH
    assert buffers._timestamps([aware], pa.timestamp("us"), zoned=False) is None
    _, errors = convert("timestamp_ntz", [2**63])
    assert [(e.code, e.loc) for e in errors] == [("row_value", "/rows")]


# ---------------------------------------------------------------- from_arrow


def _from_arrow_by_predicates(t: pa.DataType) -> Any:
    """from_arrow as it was written before its table by type id: the pyarrow.types predicates."""
    import pyarrow.types as pat

    from connect_plan.arrow_types import is_variant
    from connect_plan.types import ArrayType, MapType, Primitive, StructType, TypeParseError

    if pat.is_dictionary(t):
        return _from_arrow_by_predicates(t.value_type)
    if pat.is_decimal(t):
        if t.precision > 38:
            raise TypeParseError(f"Arrow type {t} is wider than Spark's decimals (at most 38 digits)")
        return Primitive("decimal", t.precision, t.scale)
    if pat.is_timestamp(t):
        return Primitive("timestamp" if t.tz is not None else "timestamp_ntz")
    if pat.is_list(t) or pat.is_large_list(t) or pat.is_fixed_size_list(t):
        return ArrayType(_from_arrow_by_predicates(t.value_type))
    if pat.is_map(t):
        return MapType(_from_arrow_by_predicates(t.key_type), _from_arrow_by_predicates(t.item_type))
    if pat.is_struct(t) and is_variant(t):
        return Primitive("variant")
    if pat.is_struct(t):
        return StructType(tuple((f.name, _from_arrow_by_predicates(f.type)) for f in t))
    plain = {
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "boolean": pa.bool_(),
        "date": pa.date32(),
        "binary": pa.binary(),
        "void": pa.null(),
    }
    for name, arrow in plain.items():
        if t == arrow:
            return Primitive(name)
    if pat.is_large_string(t) or pat.is_string_view(t):
        return Primitive("string")
    if pat.is_large_binary(t) or pat.is_binary_view(t):
        return Primitive("binary")
    if pat.is_date64(t):
        return Primitive("date")
    if pat.is_uint8(t) or pat.is_uint16(t):
        return Primitive("int")
    if pat.is_uint32(t) or pat.is_uint64(t):
        return Primitive("bigint")
    if pat.is_float16(t):
        return Primitive("float")
    raise TypeParseError(f"Arrow type {t} has no Spark equivalent")


_ARROW_TYPES = [
    *(
        getattr(pa, name)()
        for name in (
            "int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 string large_string "
            "string_view binary large_binary binary_view bool_ date32 date64 null month_day_nano_interval"
        ).split()
    ),
    pa.binary(4),
    pa.timestamp("us"),
    pa.timestamp("ns", tz="UTC"),
    pa.timestamp("s", tz="+01:00"),
    pa.time32("s"),
    pa.time64("us"),
    pa.duration("us"),
    pa.decimal128(10, 2),
    pa.decimal128(38, 0),
    pa.decimal256(39, 2),
    pa.decimal256(20, 2),
    pa.list_(pa.int64()),
    pa.large_list(pa.string()),
    pa.list_(pa.int8(), 3),
    pa.list_(pa.uint32()),
    pa.map_(pa.string(), pa.int64()),
    pa.struct([("a", pa.int64()), ("b", pa.list_(pa.date32()))]),
    pa.struct([("value", pa.binary()), ("metadata", pa.binary())]),
    pa.struct(
        [
            pa.field("value", pa.binary(), nullable=False),
            pa.field("metadata", pa.binary(), nullable=False, metadata={b"variant": b"true"}),
        ]
    ),
    pa.dictionary(pa.int32(), pa.string()),
    pa.dictionary(pa.int8(), pa.uint64()),
    pa.dense_union([pa.field("a", pa.int8())]),
    pa.run_end_encoded(pa.int32(), pa.string()),
]


@pytest.mark.parametrize("arrow", _ARROW_TYPES, ids=str)
def test_from_arrow_reads_each_arrow_type_as_before(arrow: pa.DataType) -> None:
    from connect_plan.arrow_types import from_arrow
    from connect_plan.types import TypeParseError

    try:
        expected: Any = _from_arrow_by_predicates(arrow)
    except TypeParseError as exc:
        expected = str(exc)
    try:
        got: Any = from_arrow(arrow)
    except TypeParseError as exc:
        got = str(exc)
    assert got == expected


# ---------------------------------------------------------------- absolute_paths


def _absolute_paths_everywhere(message: Any, base: str) -> None:
    """absolute_paths as it was before it knew which fields can hold a path: every field of
    every message visited."""
    from connect_plan.client.paths import _absolute

    stack = [message]
    while stack:
        msg = stack.pop()
        name = msg.DESCRIPTOR.full_name
        if name == "spark.connect.Read.DataSource":
            paths = [_absolute(p, base) for p in msg.paths]
            del msg.paths[:]
            msg.paths.extend(paths)
        if name == "spark.connect.WriteOperation" and msg.HasField("path"):
            msg.path = _absolute(msg.path, base)
        if name in ("spark.connect.Read.DataSource", "spark.connect.WriteOperation") and "path" in msg.options:
            msg.options["path"] = _absolute(msg.options["path"], base)
        for desc, value in msg.ListFields():
            if desc.message_type is None:
                continue
            if desc.message_type.GetOptions().map_entry:
                if desc.message_type.fields_by_name["value"].message_type is not None:
                    stack.extend(value.values())
            elif desc.is_repeated if hasattr(desc, "is_repeated") else desc.label == desc.LABEL_REPEATED:
                stack.extend(value)
            else:
                stack.append(value)


def _files(path: str) -> dict[str, Any]:
    return {"input": {"files": path, "format": "parquet", "schema": [["city", "string"]]}, "plan": []}


_ROWS = {"schema": [["city", "string"]], "rows": [["Oslo"]]}
_PATH_DOCUMENTS: list[Any] = [
    _files("weather.parquet"),
    {"input": {"files": ["a.parquet", "/abs/b.parquet", "s3a://bucket/c", "~/d"], "format": "parquet"}, "plan": []},
    {"input": {"format": "parquet", "options": {"path": "sub/e"}}, "plan": []},
    {"input": _ROWS, "plan": [{"op": "join", "payload": {"other": _files("right.parquet"), "on": ["city"]}}]},
    {"input": _ROWS, "plan": [{"op": "union", "payload": {"other": _files("u1.parquet")}}]},
    {"input": _ROWS, "plan": [{"op": "crossJoin", "payload": {"other": _files("x.parquet")}}]},
    {
        "with": {"w": _files("shared.parquet")},
        "input": {"ref": "w"},
        "plan": [{"op": "union", "payload": {"other": {"input": {"ref": "w"}, "plan": []}}}],
    },
    {"plan": [{"op": "read", "payload": {"files": "r.csv", "format": "csv", "options": {"header": "true"}}}]},
    {"input": _ROWS, "plan": [{"op": "write", "payload": {"format": "parquet", "path": "out/report"}}]},
    {
        "input": _ROWS,
        "plan": [{"op": "write", "payload": {"saveAsTable": "t", "format": "parquet", "options": {"path": "ext"}}}],
    },
    {
        "input": _files("in.parquet")["input"],
        "output": {"format": "parquet", "path": "/abs/out", "mode": "overwrite"},
        "plan": [{"op": "join", "payload": {"other": _files("../up.parquet"), "on": ["city"]}}],
    },
    {"input": {"sql": "SELECT 1 AS city"}, "plan": [{"op": "filter", "payload": {"col": "city"}}]},
    {"input": {"range": 3}, "plan": [{"op": "limit", "payload": {"n": 1}}]},
]


@pytest.mark.parametrize("doc", _PATH_DOCUMENTS, ids=[str(i) for i in range(len(_PATH_DOCUMENTS))])
def test_absolute_paths_rewrites_what_the_walk_of_every_field_rewrote(doc: Any) -> None:
    import connect_plan
    from connect_plan.client.paths import absolute_paths

    plan = connect_plan.translate(None, None, doc)
    expected = type(plan)()
    expected.CopyFrom(plan)
    _absolute_paths_everywhere(expected, "/home/me")
    absolute_paths(plan, "/home/me")
    assert plan == expected
    for relation in (plan.root, plan.command.write_operation.input):
        copy = type(relation)()
        copy.CopyFrom(relation)
        absolute_paths(copy, "/elsewhere")  # a relation alone (a name resolution's request)
        _absolute_paths_everywhere(relation, "/elsewhere")
        assert copy == relation


def test_absolute_paths_reaches_paths_wherever_the_protos_allow_them() -> None:
    """Read and write paths in places no plan of ours puts them (a WithRelations reference,
    a Parse input, a SQL command's input, a map of relations) are rewritten too."""
    from connect_plan.client.paths import absolute_paths
    from connect_plan.spark_proto import pb

    plan = pb.Plan()
    refs = plan.root.with_relations.references
    refs.add().read.data_source.paths.append("ref.parquet")
    refs.add().parse.input.read.data_source.options["path"] = "p.json"
    plan.root.with_relations.root.project.input.read.data_source.paths.append("root.parquet")
    sql = pb.Plan()
    sql.command.sql_command.input.read.data_source.paths.append("q.parquet")
    sql.command.sql_command.named_arguments["x"].literal.string = "not.a.path"
    for message in (plan, sql):
        expected = type(message)()
        expected.CopyFrom(message)
        _absolute_paths_everywhere(expected, "/b")
        absolute_paths(message, "/b")
        assert message == expected
    assert list(plan.root.with_relations.references[0].read.data_source.paths) == ["/b/ref.parquet"]
    assert plan.root.with_relations.references[1].parse.input.read.data_source.options["path"] == "/b/p.json"
    assert list(sql.command.sql_command.input.read.data_source.paths) == ["/b/q.parquet"]


# ---------------------------------------------------------------- an inline table's scope


@pytest.mark.parametrize("case_sensitive", [False, True])
@pytest.mark.parametrize(
    "table",
    [
        pa.table({"id": [1], "X": [1.5], "s": ["a"], "When": pa.array([None], pa.date32())}),
        pa.table({"t": pa.array([1], pa.time32("s")), "Name": ["x"], "d": pa.array([1], pa.duration("us"))}),
        pa.table({"a": pa.array([], pa.int64()), "A": pa.array([], pa.string())}),
        pa.table({}),
    ],
    ids=["plain", "unsupported", "case-pair", "empty"],
)
def test_an_inline_tables_scope_is_its_names_with_their_types(table: pa.Table, case_sensitive: bool) -> None:
    """The scope of its columns, with the types of those Spark has (as with_names kept them
    from a scope of the same names)."""
    from connect_plan import ir
    from connect_plan.arrow_types import from_arrow
    from connect_plan.translator.analyze import Analyzer
    from connect_plan.translator.scope import Scope
    from connect_plan.types import TypeParseError

    scope = Analyzer(case_sensitive=case_sensitive).inline_source(ir.InlineData(table, "/input/rows")).scope
    plain = Scope(tuple(table.column_names), case_sensitive)
    types = {}
    for f in table.schema:
        try:
            types[plain.norm(f.name)] = from_arrow(f.type)
        except TypeParseError:
            continue
    expected = plain.with_names(plain.names, types)

    def state(s: Scope) -> tuple[Any, ...]:
        return s.names, s.case_sensitive, s.plan_id, dict(s.renames), s.sides, dict(s.types)

    assert state(scope) == state(expected)
    assert scope.names == tuple(table.column_names)
    assert all(scope.type_of(n) == expected.type_of(n) for n in table.column_names)


# ---------------------------------------------------------------- placing a table


_BOUND_SCHEMA = [
    ("i8", "tinyint"),
    ("i32", "int"),
    ("i64", "bigint"),
    ("f", "float"),
    ("x", "double"),
    ("s", "string"),
    ("s2", "string"),
    ("b", "boolean"),
    ("b2", "boolean"),
    ("d", "date"),
    ("t", "timestamp"),
    ("n", "timestamp_ntz"),
    ("m", "decimal(10,2)"),
    ("bin", "binary"),
    ("arr", "array<bigint>"),
    ("inferred", "array"),
    ("mp", "map<string,int>"),
    ("st", "struct<a:int,b:string>"),
]
_BOUND_VALUES: dict[str, list[Any]] = {
    "tinyint": [1, -5],
    "int": [7, 2**31 - 1],
    "bigint": [1, 2**40],
    "float": [1.5, 2],
    "double": [0.25, 3],
    "string": ["a", "", "Tromsø", "x" * 40],
    "boolean": [True, False],
    "date": ["2024-01-01", "1999-12-31"],
    "timestamp": ["2024-01-01T10:00", "2024-01-01 10:00:00Z"],
    "timestamp_ntz": ["2024-01-01T10:00:00.5"],
    "decimal(10,2)": [1.25, "3.5"],
    "binary": ["aGk="],
    "array<bigint>": [[1, 2], []],
    "array": [[1, 2], [3]],
    "map<string,int>": [{"k": 1}],
    "struct<a:int,b:string>": [{"a": 1, "b": "x"}, [2, "y"]],
}


@pytest.mark.parametrize("seed", range(4))
def test_the_cheap_bound_of_a_converted_tables_size_is_never_under_it(seed: int) -> None:
    """nbytes_bound(table) ≥ table.nbytes for every table rows_to_arrow makes: one row to
    thousands, all nulls or none, one-byte buffers equal across columns (CPython shares them)."""
    rng = random.Random(seed)
    for n in (1, 1, 2, 3, 8, 9, 33, 129, 2000):
        columns = [rng.sample(_BOUND_SCHEMA, rng.randint(1, len(_BOUND_SCHEMA))) for _ in range(3)]
        for schema in [*columns, [("a", "string"), ("b", "string"), ("c", "boolean"), ("e", "boolean")]]:
            null_share = rng.choice([0.0, 0.3, 1.0])
            first_null = rng.random() < 0.5
            rows = [
                [
                    None if rng.random() < null_share or (i == 0 and first_null) else rng.choice(_BOUND_VALUES[t])
                    for _, t in schema
                ]
                for i in range(n)
            ]
            table = load_plan([], rows, [list(f) for f in schema]).source.table
            bound = data.nbytes_bound(table)
            assert bound is not None and table.nbytes <= bound, (schema, rows[:3])
    for same in (["a"], [""], [True]):  # columns equal down to their one-byte buffers
        table = load_plan([], [same * 4], [[f"c{i}", "string" if same != [True] else "boolean"] for i in range(4)])
        assert table.source.table.nbytes <= (data.nbytes_bound(table.source.table) or 0)


def test_only_converted_tables_have_the_cheap_bound() -> None:
    shared = pa.array([1, 2, 3])
    table = pa.table({"a": shared, "b": shared})  # one buffer, counted twice by nbytes
    assert table.nbytes > table.get_total_buffer_size()
    assert data.nbytes_bound(table) is None
    assert data.nbytes_bound(load_plan([], table, None).source.table) is None
    converted = load_plan([], [[1]], [["a", "bigint"]]).source.table
    assert data.nbytes_bound(converted) is not None
    assert data.nbytes_bound(converted.slice(0, 1)) is None


def _placement(rows: list[list[Any]], uses: int, threshold: int, *, bounded: bool) -> Any:
    """The plan prepare() sends for ``rows`` used ``uses`` times, under a server threshold."""
    from connect_plan import inputs
    from tests.support.transport import RecordedTransport, recorded_client

    conf = {"spark.sql.session.localRelationCacheThreshold": str(threshold)}
    client = recorded_client(RecordedTransport(conf=conf))
    schema = [["id", "bigint"], ["s", "string"], ["d", "date"]]
    doc = {
        "with": {"t": {"input": {"schema": schema, "rows": rows}, "plan": []}},
        "input": {"ref": "t"},
        "plan": [{"op": "union", "payload": {"other": {"input": {"ref": "t"}, "plan": []}}}] * (uses - 1),
    }
    original = inputs.nbytes_bound
    inputs.nbytes_bound = original if bounded else (lambda table: None)  # type: ignore[assignment]
    try:
        return client.internals.executor.prepare(load_plan(doc)).plan
    finally:
        inputs.nbytes_bound = original  # type: ignore[assignment]


@pytest.mark.parametrize("uses", [1, 2, 3])
def test_a_table_is_placed_as_its_exact_size_places_it(uses: int) -> None:
    """Inline or cached, the same plan whether the cheap bound or nbytes decided, for
    thresholds all around the table's size (times its uses)."""
    rows = [[i, f"s{i}", "2024-01-01"] for i in range(3)]
    size = load_plan([], rows, [["id", "bigint"], ["s", "string"], ["d", "date"]]).source.table.nbytes * uses
    for threshold in sorted({1, size - 40, size - 1, size, size + 1, size + 20, size + 60, 10 * size}):
        if threshold < 1:
            continue
        exact = _placement(rows, uses, threshold, bounded=False)
        cheap = _placement(rows, uses, threshold, bounded=True)
        assert cheap == exact, threshold
        assert ("cached" in str(exact)) == (threshold <= size), threshold


# ---------------------------------------------------------------- Arrow data as input


@pytest.mark.parametrize("arrow", _ARROW_TYPES, ids=str)
def test_arrow_input_is_made_spark_readable_as_before(arrow: pa.DataType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Columns of the types Spark reads as they are skip the cached schema conversion; the
    result (table, or errors) is what that conversion gives."""
    from connect_plan.errors import PlanError
    from connect_plan.formats.json_plan import inline

    table = pa.table({"a": pa.array([1, None], pa.int64()), "c": pa.nulls(2, arrow)})

    def source() -> Any:
        try:
            return load_plan([], table, None).source.table
        except PlanError as exc:
            return [(d.code, d.loc, d.message) for d in exc.details]

    got = source()
    monkeypatch.setattr(inline, "_spark_as_is", lambda: frozenset())
    expected = source()
    if isinstance(expected, list):
        assert got == expected
    else:
        assert got.schema == expected.schema and got.equals(expected)


# ---------------------------------------------------------------- no pandas in a run

_RUN_WITHOUT_SERVER = r"""
import json, sys, tempfile, os
from connect_plan.cli import process as cli
import connect_plan.client as client_module
from connect_plan.client import Client

seen = {}
# the connect-plan command's own process (cli.entry sets this), or main() called in a process
# of someone else's (a library's caller: NumPy loads with pyarrow)
cli._PROCESS = sys.argv[3] == "process"


class Stream:
    operation_id = "op"

    def __init__(self, responses):
        self._it = iter(responses)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def cancel(self):
        return True

    def close(self):
        pass


class EchoTransport:
    # answers a plan with its own inline table, as a server answers a plan that only reads it
    session_id = "fake-session"
    max_message_size = 128 * 1024 * 1024

    def execute_plan(self, plan, tags=()):
        seen["pandas when sent"] = "pandas" in sys.modules
        from connect_plan.spark_proto import pb

        rel = plan.root
        while not rel.HasField("local_relation"):
            rel = getattr(rel, rel.WhichOneof("rel_type")).input
        batch = pb.ExecutePlanResponse(session_id=self.session_id, operation_id="op", response_id="1")
        batch.arrow_batch.row_count = ROWS
        batch.arrow_batch.data = rel.local_relation.data
        batch.arrow_batch.start_offset = 0
        done = pb.ExecutePlanResponse(session_id=self.session_id, operation_id="op", response_id="2")
        done.result_complete.SetInParent()
        from connect_plan.transport import received

        return Stream([received(batch), received(done)])

    def spark_version(self):
        return "4.0.0"

    def config(self, operation):
        which = getattr(operation, operation.WhichOneof("op_type"))
        return [(k, None) for k in which.keys] if hasattr(which, "keys") else []

    def release_session(self):
        pass

    def close(self, *, wait=True):
        pass


class Connector:
    token = None
    secure = False

    def open(self, reached):
        return EchoTransport()


client_module.Client = lambda url, **kw: Client._over(Connector(), url)
doc = json.loads(sys.argv[1])
ROWS = len(doc["input"]["rows"])
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "plan.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    seen["code"] = cli.main(["run", path, "--remote", "sc://fake:15002", "--format", sys.argv[2]])
seen["pandas at the end"] = "pandas" in sys.modules
seen["numpy at the end"] = sys.modules.get("numpy") is not None
seen["cloudpickle at the end"] = "cloudpickle" in sys.modules
import pyarrow
seen["arrow pool"] = pyarrow.default_memory_pool().backend_name
seen["pool variable left"] = "ARROW_DEFAULT_MEMORY_POOL" in os.environ
print(json.dumps(seen))
"""

#: JSON rows of the common types, each in the spellings that take the fast and the per-value
#: paths (ISO strings, zones, numeric strings, date objects, decimals as numbers and text)
_COMMON_COLUMNS: list[tuple[str, str, list[Any]]] = [
    ("i", "int", [1, "2", None]),
    ("l", "bigint", [2**40, 3.0, None]),
    ("x", "double", [1.5, "2.5", None]),
    ("s", "string", ["a", 7, None]),
    ("f", "boolean", [True, "false", None]),
    ("d", "date", ["2024-01-01", {"year": 2024, "month": 2, "day": 29}, None]),
    ("n", "timestamp_ntz", ["2024-01-01 10:00", "2024-01-01T10:00:00.1234567", None]),
    ("m", "decimal(10,2)", [1.25, "3.5", None]),
    ("t", "timestamp", ["2024-01-01T10:00:00", "2024-03-01T10:00:00Z", None]),
]


def _run_in_a_fresh_interpreter(
    columns: list[tuple[str, str, list[Any]]], fmt: str, mode: str = "library"
) -> dict[str, Any]:
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    doc = {
        "input": {
            "schema": [[name, kind] for name, kind, _ in columns],
            "rows": [list(row) for row in zip(*(values for _, _, values in columns))],
        },
        "plan": [{"op": "limit", "payload": {"n": 10}}],
    }
    with tempfile.TemporaryDirectory() as tmp:  # a script, not -c (see test_spark_proto._run)
        script = Path(tmp) / "run.py"
        script.write_text(_RUN_WITHOUT_SERVER)
        out = subprocess.run(
            [sys.executable, str(script), json.dumps(doc), fmt, mode],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=Path(__file__).resolve().parents[2],
        )
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_run_of_json_rows_of_the_common_types_imports_no_pandas(fmt: str) -> None:
    """The CLI's main() in a library caller's process (NumPy loaded with pyarrow), over JSON
    rows (pyarrow's pa.array imports pandas on its first call there: 0.3 s of a cold start):
    converted, placed, sent and shown without pandas."""
    seen = _run_in_a_fresh_interpreter(_COMMON_COLUMNS[:-1], fmt)
    assert seen.pop("arrow pool") == pyarrow_default_pool()
    seen.pop("cloudpickle at the end")  # pyarrow's pickler when installed: not this test's business
    assert seen == {
        "code": 0,
        "pandas when sent": False,
        "pandas at the end": False,
        "numpy at the end": True,
        "pool variable left": False,
    }


def test_a_zoned_timestamp_column_is_sent_without_pandas() -> None:
    seen = _run_in_a_fresh_interpreter(_COMMON_COLUMNS, "table")
    assert seen["code"] == 0 and seen["pandas when sent"] is False


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_the_connect_plan_process_runs_without_numpy_or_pandas(fmt: str) -> None:
    """The connect-plan command's process (cli.entry): pyarrow without NumPy, so none of its
    conversions probes for pandas, a zoned timestamp's display included (in a process where
    NumPy loads with pyarrow, showing one imports pandas: pyarrow's to_pylist)."""
    seen = _run_in_a_fresh_interpreter(_COMMON_COLUMNS, fmt, mode="process")
    assert seen == {
        "code": 0,
        "pandas when sent": False,
        "pandas at the end": False,
        "numpy at the end": False,
        # the C library's allocator (mimalloc's arenas: ~4 MiB of the process), chosen through
        # Arrow's variable, which no child process inherits
        "arrow pool": "system",
        "pool variable left": False,
        # pyarrow's optional pickler (installed here: datafusion needs it), not loaded with it
        "cloudpickle at the end": False,
    }


def pyarrow_default_pool() -> str:
    """The backend pyarrow picks by itself in a fresh interpreter (mimalloc on Linux wheels)."""
    import subprocess
    import sys

    env = {k: v for k, v in __import__("os").environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    code = "import pyarrow; print(pyarrow.default_memory_pool().backend_name)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout.strip()
