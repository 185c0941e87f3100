"""Inline input data without a server: the column-wise conversion of JSON rows (list rows,
dict rows, mixed rows), Arrow/pandas inputs cast to Spark-readable types, chunking for
cached relations, and translation that leaves tables for the executor."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import random

import pyarrow as pa
import pytest

import connect_plan
from connect_plan import PlanError
from connect_plan.data import ipc_chunks, serialize_ipc
from connect_plan.formats import load_plan
from connect_plan.inputs import CacheSettings, parse_bytes
from connect_plan.translator import translate_ir
from tests.support.tables import arrow_input

SCHEMA = [
    {"name": "id", "type": "bigint"},
    {"name": "x", "type": "double"},
    {"name": "s", "type": "string"},
    {"name": "b", "type": "boolean"},
    {"name": "d", "type": "date"},
]
NAMES = [f["name"] for f in SCHEMA]


def _rows(n: int) -> list[list[object]]:
    rnd = random.Random(7)
    rows = [
        [
            i,
            rnd.choice([rnd.random(), 3, None]),
            rnd.choice([f"s{i}", None]),
            rnd.choice([True, False, None]),
            rnd.choice([f"2020-01-{1 + i % 28:02d}", None]),
        ]
        for i in range(n)
    ]
    return json.loads(json.dumps(rows))


def _table(rows: object, schema: object = SCHEMA) -> pa.Table:
    return arrow_input(rows, schema)


def _expected(rows: list[list[object]]) -> pa.Table:
    """The same rows built value by value (the reference the column-wise path must match)."""
    cols = list(zip(*rows)) if rows else [[] for _ in SCHEMA]
    d = [None if v is None else dt.date.fromisoformat(v) for v in cols[4]]
    return pa.table(
        {
            "id": pa.array(cols[0], pa.int64()),
            "x": pa.array([None if v is None else float(v) for v in cols[1]], pa.float64()),
            "s": pa.array(cols[2], pa.string()),
            "b": pa.array(cols[3], pa.bool_()),
            "d": pa.array(d, pa.date32()),
        }
    )


def test_list_rows_match_a_value_by_value_build() -> None:
    rows = _rows(5_000)
    assert _table(rows).equals(_expected(rows))


def test_dict_rows_give_the_same_table_as_list_rows() -> None:
    rows = _rows(5_000)
    dict_rows = [dict(zip(NAMES, r)) for r in rows]
    assert _table(dict_rows).equals(_table(rows))


def test_dict_rows_missing_keys_are_null() -> None:
    table = _table([{"id": 1}, {"id": 2, "s": "x"}])
    assert table.column("id").to_pylist() == [1, 2]
    assert table.column("s").to_pylist() == [None, "x"]
    assert table.column("d").null_count == 2


def test_dict_row_keys_match_columns_case_insensitively() -> None:
    table = _table([{"ID": 1, "S": "x"}, {"id": 2, "s": "y"}])
    assert table.column("id").to_pylist() == [1, 2]
    assert table.column("s").to_pylist() == ["x", "y"]


def test_a_row_key_naming_no_column_is_an_error_never_dropped() -> None:
    """Issue 13: schema a, b and rows {"a": 1, "B": "x"}, {"a": 2, "bb": "y"} gave b = null twice."""
    schema = [{"name": "a", "type": "bigint"}, {"name": "b", "type": "string"}]
    with pytest.raises(PlanError) as info:
        connect_plan.translate([{"a": 1, "B": "x"}, {"a": 2, "bb": "y"}, {"a": 3, "extra": 1, "A": 4}], schema, [])
    assert [(d.code, d.loc) for d in info.value.details] == [
        ("row_key", "/input/rows/1/bb"),
        ("row_key", "/input/rows/2/extra"),
        ("row_key", "/input/rows/2/A"),
    ]
    assert "did you mean 'b'?" in info.value.details[0].message
    table = connect_plan.translate([{"a": 1, "B": "x"}], schema, [])
    assert table.root.local_relation.data


def test_row_keys_match_in_the_exact_case_when_the_plans_conf_says_so() -> None:
    """spark.sql.caseSensitive in the document's conf: a key in another case names no column."""
    schema = [{"name": "id", "type": "bigint"}, {"name": "Name", "type": "string"}]
    doc = {"input": {"schema": schema, "rows": [{"id": 1, "name": "x"}, {"id": 2, "Name": "y"}]}, "plan": []}
    connect_plan.validate(None, None, doc)
    for sensitive, ok in ((True, False), ("true", False), (False, True)):
        conf = {"spark.sql.caseSensitive": sensitive}
        if ok:
            connect_plan.validate(None, None, {**doc, "conf": conf})
            continue
        with pytest.raises(PlanError) as info:
            connect_plan.validate(None, None, {**doc, "conf": conf})
        assert [(d.code, d.loc) for d in info.value.details] == [("row_key", "/input/rows/0/name")]
        assert "did you mean 'Name'?" in info.value.details[0].message
        assert "spark.sql.caseSensitive" in info.value.details[0].message


def test_mixed_list_and_dict_rows_take_the_row_loop() -> None:
    rows = _rows(10)
    mixed = [r if i % 2 else dict(zip(NAMES, r)) for i, r in enumerate(rows)]
    assert _table(mixed).equals(_table(rows))


def test_bad_rows_are_reported_by_row() -> None:
    with pytest.raises(connect_plan.PlanError) as err:
        _table([[1, 2.0, "a", True, None], [2, 3.0], "nope"])
    details = {(d.code, d.loc) for d in err.value.details}
    assert ("row_length", "/input/rows/1") in details
    assert ("row_type", "/input/rows/2") in details


def test_a_bad_value_still_names_its_row_and_column() -> None:
    rows = _rows(100)
    rows[42][0] = 1.5  # not an integer: the column leaves the fast path
    with pytest.raises(connect_plan.PlanError) as err:
        _table(rows)
    assert [d.loc for d in err.value.details] == ["/input/rows/42/0"]


def test_pandas_input_is_cast_to_spark_readable_types() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "u": pd.array([1, 2], dtype="uint8"),
            "t": pd.to_datetime(["2020-01-01 00:00:00", "2020-01-02 00:00:01.5"], format="ISO8601"),
            "c": pd.Categorical(["p", "q"]),
        }
    )
    table = load_plan([], df).source.table
    assert table.schema.types == [pa.int32(), pa.timestamp("us"), pa.string()]
    assert table.column("c").to_pylist() == ["p", "q"]
    assert table.column("t").to_pylist()[1] == dt.datetime(2020, 1, 2, 0, 0, 1, 500000)


def test_arrow_input_needs_no_schema_and_keeps_its_types() -> None:
    table = pa.table({"a": pa.array([1, 2], pa.int64()), "s": pa.array(["x", "y"], pa.large_string())})
    out = load_plan([], table).source.table
    assert out.schema.types == [pa.int64(), pa.string()]
    assert out.column("s").to_pylist() == ["x", "y"]


def test_arrow_input_with_an_unsupported_type_is_a_plan_error() -> None:
    table = pa.table({"a": pa.array([1], pa.int64()), "t": pa.array([5], pa.duration("us"))})
    with pytest.raises(connect_plan.PlanError) as err:
        load_plan([], table)
    assert err.value.codes == ("unsupported_type",)


def _pandas_cases() -> list[object]:
    pd = pytest.importorskip("pandas")
    return [
        pytest.param(
            pd.DataFrame({"ok": [1, 2, 3], "x": [1, "a", None]}),
            [("unsupported_column", "/input/rows/columns/1")],
            id="mixed-object",
        ),
        pytest.param(
            pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"]),
            [("duplicate_column", "/input/rows/columns/2")],
            id="duplicate-names",
        ),
        pytest.param(
            pd.DataFrame([[1, 2]], columns=["a", "A"]),
            [("duplicate_column", "/input/rows/columns/1")],
            id="names-differing-in-case",
        ),
        pytest.param(pd.DataFrame({"c": [1 + 2j]}), [("unsupported_column", "/input/rows/columns/0")], id="complex"),
        pytest.param(
            pd.DataFrame({"s": pd.arrays.SparseArray([0, 1, 0])}),
            [("unsupported_column", "/input/rows/columns/0")],
            id="sparse",
        ),
        pytest.param(pd.DataFrame({"": [1]}), [("column_name", "/input/rows/columns/0")], id="empty-name"),
    ]


def _arrow_cases() -> list[object]:
    dec = pa.array([1], pa.int64()).cast(pa.decimal256(50, 2))
    return [
        pytest.param(pa.table({"d": dec}), [("unsupported_type", "/input/rows/columns/0")], id="decimal256-50"),
        pytest.param(
            pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"]),
            [("duplicate_column", "/input/rows/columns/1")],
            id="duplicate-names",
        ),
        pytest.param(
            pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["id", "ID"]),
            [("duplicate_column", "/input/rows/columns/1")],
            id="names-differing-in-case",
        ),
        pytest.param(
            pa.Table.from_arrays([pa.array([1])], names=[""]),
            [("column_name", "/input/rows/columns/0")],
            id="empty-name",
        ),
        pytest.param(
            pa.RecordBatch.from_arrays([pa.array([1]), pa.array([2])], names=["k", "k"]),
            [("duplicate_column", "/input/rows/columns/1")],
            id="record-batch",
        ),
    ]


@pytest.mark.parametrize("data,want", [*_pandas_cases(), *_arrow_cases()])
def test_arrow_and_pandas_inputs_that_spark_cannot_take_are_located_plan_errors(
    data: object, want: list[tuple[str, str]]
) -> None:
    """Each problem names the input column (as an inline schema's would), for translate and
    execute alike; never a pyarrow/pandas exception."""
    for call in (lambda: connect_plan.translate(data, None, []), lambda: load_plan([], data)):
        with pytest.raises(connect_plan.PlanError) as err:
            call()
        assert [(d.code, d.loc) for d in err.value.details] == want


def test_arrow_decimals_up_to_38_digits_are_kept() -> None:
    table = pa.table({"d": pa.array([decimal.Decimal("1.25")], pa.decimal256(20, 2))})
    out = load_plan([], table).source.table
    assert out.schema.types == [pa.decimal128(20, 2)] and out.column("d").to_pylist() == [decimal.Decimal("1.25")]


def test_ipc_chunks_split_by_rows_and_bytes_and_reassemble() -> None:
    table = _table(_rows(25_000))
    by_rows = list(ipc_chunks(table, 10_000, 1 << 30))
    assert [pa.ipc.open_stream(c).read_all().num_rows for c in by_rows] == [10_000, 10_000, 5_000]
    small = list(ipc_chunks(table, 1_000_000, 100_000))
    assert all(pa.ipc.open_stream(c).read_all().nbytes <= 100_000 for c in small)
    for chunks in (by_rows, small):
        assert pa.concat_tables(pa.ipc.open_stream(c).read_all() for c in chunks).equals(table)
    empty = list(ipc_chunks(table.slice(0, 0), 10, 10))
    assert len(empty) == 1 and pa.ipc.open_stream(empty[0]).read_all().schema == table.schema


def test_translation_can_leave_tables_for_the_executor() -> None:
    other = [[1, "x"]]
    plan = load_plan(
        [
            {
                "op": "join",
                "payload": {
                    "other_data": other,
                    "other_schema": [{"name": "id", "type": "bigint"}, {"name": "t", "type": "string"}],
                    "on": ["id"],
                },
            }
        ],
        _rows(3),
        SCHEMA,
    )
    inline = translate_ir(plan)
    deferred = translate_ir(plan, inline_data=False)
    assert len(deferred.local_data) == 2
    assert all(ld.relation.WhichOneof("rel_type") is None for ld in deferred.local_data)
    assert deferred.plan != inline.plan
    for ld in deferred.local_data:  # filling the relations gives exactly the inline translation
        ld.relation.local_relation.data = serialize_ipc(ld.table)
    assert deferred.plan == inline.plan


def test_translation_limit_puts_a_limit_on_top() -> None:
    tr = translate_ir(load_plan([{"op": "orderBy", "payload": {"columns": ["id"]}}], _rows(3), SCHEMA), limit=7)
    assert tr.plan.root.limit.limit == 7
    assert tr.plan.root.limit.input.HasField("sort")


def test_server_settings_parsing() -> None:
    assert parse_bytes("134217728b") == 128 << 20
    assert parse_bytes("64m") == 64 << 20
    assert parse_bytes("1048576") == 1 << 20
    assert parse_bytes("lots") is None
    s = CacheSettings.from_conf(
        {"spark.sql.session.localRelationCacheThreshold": "1048576", "spark.connect.grpc.maxInboundMessageSize": "64m"},
        128 << 20,
    )
    assert (s.threshold, s.chunked, s.max_message) == (1 << 20, False, 64 << 20)
    assert CacheSettings.from_conf({}, 128 << 20).threshold is None


def test_uses_of_one_table_are_grouped_for_placement() -> None:
    """A shared sub-plan emitted into three uses, the same rows written again, and other
    rows: two groups; filled relations are left out."""
    from connect_plan.inputs import _group_uses

    rows = _rows(50)
    doc = {
        "with": {"t": {"input": {"schema": SCHEMA, "rows": rows}, "plan": []}},
        "input": {"ref": "t"},
        "plan": [
            {"op": "union", "payload": {"other": {"ref": "t"}}},
            {"op": "union", "payload": {"other": {"ref": "t"}}},
            {"op": "union", "payload": {"other_data": rows, "other_schema": SCHEMA}},
            {"op": "union", "payload": {"other_data": _rows(51)[1:], "other_schema": SCHEMA}},
        ],
    }
    local = translate_ir(load_plan(doc), inline_data=False).local_data
    assert len(local) == 5 and len({id(ld.table) for ld in local}) == 3
    groups = {len(relations): (table, relations) for table, relations in _group_uses(local)}
    assert sorted(groups) == [1, 4] and groups[1][0].num_rows == 50 and groups[4][0].num_rows == 50
    assert groups[4][1] == [ld.relation for ld in local if ld.table.equals(groups[4][0])]
    groups[4][1][0].local_relation.data = b"placed"
    assert sorted(len(relations) for _, relations in _group_uses(local)) == [1, 3]
