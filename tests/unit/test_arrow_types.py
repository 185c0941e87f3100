"""connect_plan.arrow_types gives what PySpark gives: over a broad list of ``DataType`` protos
(every kind, nested, nullability both ways, metadata, invalid parameters), the Arrow type and
schema equal ``to_arrow_type``/``to_arrow_schema`` of ``proto_schema_to_pyspark_data_type``
(field metadata compared too), a type PySpark cannot convert is a ``NoArrowType``, and the
simple string is ``simpleString()``. The result path reads schemas without PySpark: a fresh
interpreter decodes the recorded responses and has imported neither pyspark nor pandas."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from connect_plan import _pyspark_import  # noqa: F401  (before any PySpark import)
from connect_plan.arrow_types import (
    METADATA_KEY,
    NoArrowType,
    announced,
    arrow_schema,
    arrow_type,
    has_timestamp,
    simple_string,
)
from connect_plan.spark_proto import pb

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------- building protos


def t(kind: str, **fields: Any) -> pb.DataType:
    """A ``DataType`` of ``kind`` with the kind message's scalar ``fields`` set."""
    dt = pb.DataType()
    message = getattr(dt, kind)
    message.SetInParent()
    for name, value in fields.items():
        setattr(message, name, value)
    return dt


def array(element: pb.DataType, contains_null: bool = True) -> pb.DataType:
    dt = t("array", contains_null=contains_null)
    dt.array.element_type.CopyFrom(element)
    return dt


def map_(key: pb.DataType, value: pb.DataType, value_contains_null: bool = True) -> pb.DataType:
    dt = t("map", value_contains_null=value_contains_null)
    dt.map.key_type.CopyFrom(key)
    dt.map.value_type.CopyFrom(value)
    return dt


def struct(
    *fields: tuple[str, pb.DataType] | tuple[str, pb.DataType, bool] | tuple[str, pb.DataType, bool, str],
) -> pb.DataType:
    dt = t("struct")
    for spec in fields:
        f = dt.struct.fields.add(name=spec[0], nullable=spec[2] if len(spec) > 2 else True)
        f.data_type.CopyFrom(spec[1])
        if len(spec) > 3:
            f.metadata = spec[3]  # type: ignore[misc]
    return dt


def udt(python_class: str) -> pb.DataType:
    """A UDT as the server sends it: the Python class's name and its SQL type."""
    import importlib

    from pyspark.sql.connect.types import pyspark_types_to_proto_types

    module, name = python_class.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    dt = t("udt", type="udt", python_class=python_class, jvm_class=cls.scalaUDT())
    dt.udt.sql_type.CopyFrom(pyspark_types_to_proto_types(cls.sqlType()))
    return dt


INT, LONG, STR = t("integer"), t("long"), t("string")
KINDS = {f.name for f in pb.DataType.DESCRIPTOR.oneofs_by_name["kind"].fields}

#: name → proto DataType: every kind, parameters at their edges, nesting
CASES: dict[str, pb.DataType] = {
    **{k: t(k) for k in ("null", "boolean", "binary", "byte", "short", "integer", "long", "float", "double")},
    **{k: t(k) for k in ("date", "timestamp", "timestamp_ntz", "calendar_interval", "variant")},
    "decimal_default": t("decimal"),
    "decimal_38_18": t("decimal", precision=38, scale=18),
    "decimal_5_2": t("decimal", precision=5, scale=2),
    "decimal_precision_only": t("decimal", precision=12),
    "decimal_scale_only": t("decimal", scale=3),
    "decimal_39_over_arrow128": t("decimal", precision=39, scale=0),
    "decimal_0_0": t("decimal", precision=0, scale=0),
    "string_collation_unset": t("string"),
    "string_utf8_binary": t("string", collation="UTF8_BINARY"),
    "string_utf8_lcase": t("string", collation="UTF8_LCASE"),
    "string_unicode_ci": t("string", collation="UNICODE_CI"),
    "char_3": t("char", length=3),
    "varchar_10": t("var_char", length=10),
    "dt_interval_default": t("day_time_interval"),
    "dt_interval_day_to_second": t("day_time_interval", start_field=0, end_field=3),
    "dt_interval_hour": t("day_time_interval", start_field=1, end_field=1),
    "dt_interval_start_only": t("day_time_interval", start_field=2),
    "dt_interval_invalid": t("day_time_interval", start_field=5, end_field=3),
    "ym_interval_default": t("year_month_interval"),
    "ym_interval_year": t("year_month_interval", start_field=0, end_field=0),
    "ym_interval_month": t("year_month_interval", start_field=1),
    "array_int": array(INT),
    "array_int_no_nulls": array(INT, contains_null=False),
    "array_array_string": array(array(STR, False)),
    "array_struct": array(struct(("a", INT, False), ("b", STR)), contains_null=False),
    "map_string_int": map_(STR, INT),
    "map_no_null_values": map_(STR, INT, value_contains_null=False),
    "map_int_array_map": map_(INT, array(map_(STR, t("double"), False))),
    "map_of_year_month": map_(STR, t("year_month_interval")),
    "struct_empty": struct(),
    "struct_nullability": struct(("a", INT, True), ("b", LONG, False)),
    "struct_nested": struct(
        ("o", struct(("i", struct(("x", t("date"), False))), ("t", t("timestamp")))),
    ),
    "struct_metadata": struct(("a", INT, True, '{"comment": "x", "n": 1}')),
    "struct_metadata_compact": struct(("a", INT, True, '{"k":[1,2,{"z":null}]}')),
    "struct_metadata_unicode": struct(("a", INT, True, '{"comment": "d\\u00e9j\\u00e0 \u00fc"}')),
    "struct_metadata_empty": struct(("a", INT, True, "{}")),
    "struct_metadata_nested_field": struct(
        ("s", struct(("a", STR, False, '{"__CHAR_VARCHAR_TYPE_STRING": "char(3)"}')))
    ),
    "struct_duplicate_names": struct(("a", INT), ("a", STR)),
    "struct_with_char": struct(("c", t("char", length=2))),
    "struct_with_calendar_interval": struct(("c", t("calendar_interval"))),
    "time_default": t("time"),
    "time_3": t("time", precision=3),
    "geometry_0": t("geometry", srid=0),
    "geometry_3857": t("geometry", srid=3857),
    "geometry_4326": t("geometry", srid=4326),
    "geometry_any": t("geometry", srid=-1),
    "geometry_unknown_srid": t("geometry", srid=1234),
    "geography_4326": t("geography", srid=4326),
    "geography_any": t("geography", srid=-1),
    "geography_cartesian_srid": t("geography", srid=3857),
    "no_kind": pb.DataType(),
    **{k: t(k) for k in ("unparsed", "timestamp_ntz_nanos", "timestamp_ltz_nanos") if k in KINDS},
}


def pyspark_type(dt: pb.DataType) -> Any:
    from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type

    return proto_schema_to_pyspark_data_type(dt)


def pyspark_arrow_type(dt: pb.DataType, timezone: str) -> pa.DataType | None:
    """PySpark's Arrow type of ``dt``, None where PySpark raises (at either step)."""
    from pyspark.sql.pandas.types import to_arrow_type

    try:
        return to_arrow_type(pyspark_type(dt), timezone=timezone)
    except Exception:
        return None


def ours(dt: pb.DataType, timezone: str) -> pa.DataType | None:
    try:
        return arrow_type(dt, timezone=timezone)
    except NoArrowType:
        return None


def same(a: pa.DataType | None, b: pa.DataType | None) -> bool:
    """Equal, field names, nullability and field metadata (at every depth) included."""
    if a is None or b is None:
        return a is b
    return pa.schema([pa.field("x", a)]).equals(pa.schema([pa.field("x", b)]), check_metadata=True)


# ---------------------------------------------------------------- the differential tests


def test_the_cases_cover_every_kind() -> None:
    covered = {c.WhichOneof("kind") for c in CASES.values()}
    assert KINDS - covered <= {"udt"}  # UDTs: test_udts_are_their_sql_type


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("timezone", ["UTC", "America/New_York"])
def test_arrow_type_is_pysparks(name: str, timezone: str) -> None:
    dt = CASES[name]
    want, got = pyspark_arrow_type(dt, timezone), ours(dt, timezone)
    assert same(got, want), f"{name}: ours {got}, PySpark's {want}"
    # nested in a struct, an array, a map value, with both nullabilities
    for wrapped in (struct(("c", dt, False)), struct(("c", dt, True)), array(dt, False), map_(STR, dt, True)):
        want, got = pyspark_arrow_type(wrapped, timezone), ours(wrapped, timezone)
        assert same(got, want), f"{name} wrapped: ours {got}, PySpark's {want}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_simple_string_is_pysparks(name: str) -> None:
    dt = CASES[name]
    try:
        want = pyspark_type(dt).simpleString()
    except Exception:
        pytest.skip("PySpark cannot read this type (ours names it anyway)")
    assert simple_string(dt) == want


@pytest.mark.parametrize("python_class", ["pyspark.ml.linalg.VectorUDT", "pyspark.ml.linalg.MatrixUDT"])
def test_udts_are_their_sql_type(python_class: str) -> None:
    dt = udt(python_class)
    want = pyspark_arrow_type(dt, "UTC")
    assert want is not None and same(arrow_type(dt), want)
    assert same(arrow_type(struct(("v", dt, False))), pyspark_arrow_type(struct(("v", dt, False)), "UTC"))
    without = t("udt", type="udt", python_class=python_class)
    with pytest.raises(NoArrowType):  # PySpark would ask the class; the server always sends sql_type
        arrow_type(without)


def test_a_result_schema_is_pysparks_to_arrow_schema() -> None:
    from pyspark.sql.pandas.types import to_arrow_schema

    usable = [(n, dt) for n, dt in sorted(CASES.items()) if pyspark_arrow_type(dt, "UTC") is not None]
    fields = [(name, dt, i % 2 == 0) for i, (name, dt) in enumerate(usable)]
    fields.append(("meta", INT, True, '{"comment": "c"}'))
    fields.append(("vec", udt("pyspark.ml.linalg.VectorUDT"), False))
    schema = struct(*fields)
    for tz in ("UTC", "Europe/Berlin"):
        want = to_arrow_schema(pyspark_type(schema), timezone=tz)
        assert arrow_schema(schema, timezone=tz).equals(want, check_metadata=True)
    got = arrow_schema(schema)
    assert got.field("meta").metadata == {METADATA_KEY: json.dumps({"comment": "c"}).encode()}


def test_announced_columns_carry_arrow_types_or_none() -> None:
    schema = struct(
        ("a", INT, False), ("y", t("year_month_interval")), ("t", t("timestamp")), ("c", t("char", length=2))
    )
    got = announced(schema)
    assert got.names == ["a", "y", "t", "c"]
    assert [(f.nullable, f.arrow, f.type_string) for f in got.fields] == [
        (False, pa.int32(), "int"),
        (True, None, "interval year to month"),
        (True, pa.timestamp("us", tz="UTC"), "timestamp"),
        (True, None, "char(2)"),
    ]
    with pytest.raises(ValueError, match="a result schema is a struct"):
        announced(INT)


def test_intervals_as_sparks_batches_carry_them() -> None:
    """Spark sends year-month intervals as Arrow ``month_interval`` and calendar intervals as
    ``month_day_nano_interval`` (what the client reads from its batches, see
    tests/integration/test_client.py); PySpark has no type for either."""
    schema = struct(
        ("y", t("year_month_interval")), ("c", t("calendar_interval")), ("l", array(t("calendar_interval")))
    )
    with pytest.raises(NoArrowType):
        arrow_schema(schema)
    got = arrow_schema(schema, intervals=True)
    assert got.field("y").type.id == pa.lib.Type_INTERVAL_MONTHS
    assert got.field("c").type == pa.month_day_nano_interval()
    assert got.field("l").type == pa.list_(pa.field("element", pa.month_day_nano_interval()))


def test_has_timestamp_looks_inside() -> None:
    assert has_timestamp(
        struct(
            ("m", map_(STR, array(struct(("t", t("timestamp")))))),
        )
    )
    assert not has_timestamp(struct(("n", t("timestamp_ntz")), ("d", t("date"))))


# ---------------------------------------------------------------- no PySpark on the result path


NO_PYSPARK = textwrap.dedent(
    """
    import struct, sys
    from pathlib import Path

    from connect_plan.results import ResultChecker
    from connect_plan.spark_proto import pb

    def responses(path):
        blob, at, out = path.read_bytes(), 0, []
        while at < len(blob):
            n = blob[at]
            name = blob[at + 1 : at + 1 + n].decode("ascii")
            (size,) = struct.unpack_from(">I", blob, at + 1 + n)
            start = at + 5 + n
            assert name == "spark.connect.ExecutePlanResponse", name
            out.append(pb.ExecutePlanResponse.FromString(blob[start : start + size]))
            at = start + size
        return out

    rows = {}
    for name in sys.argv[1:]:
        checker = ResultChecker()
        for resp in responses(Path(name)):
            for item in checker.feed(resp):
                pass
        checker.finish()
        rows[Path(name).stem] = (checker.rows_seen, checker.announced.names)
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pyspark", "pandas"))
    import connect_plan
    print(rows, connect_plan.__file__)
    print("LOADED", loaded)
    """
)


def test_the_result_checker_imports_neither_pyspark_nor_pandas(tmp_path: Path) -> None:
    script = tmp_path / "decode.py"
    script.write_text(NO_PYSPARK)
    recordings = ROOT / "tests" / "golden" / "transport"
    names = [str(recordings / f"{n}.bin") for n in ("small", "chunked", "empty", "case_pair")]
    # this checkout's connect_plan, whatever the interpreter has installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(script), *names], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert "'small': (1000, ['id', 's'])" in run.stdout and "'empty': (0, ['id', 's'])" in run.stdout
    assert str(ROOT / "connect_plan" / "__init__.py") in run.stdout
    assert run.stdout.strip().splitlines()[-1] == "LOADED []"
