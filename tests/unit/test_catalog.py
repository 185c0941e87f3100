"""The function catalog against PySpark: completeness, and proto equality.

* every function of ``pyspark.sql.functions`` has a catalog row or a reasoned exclusion;
* every function name of PLAN_FORMAT.md §4 (and its window-only names) and of the seed
  document has a row;
* for every catalog name that is also a PySpark function, the expression we emit for a
  call with sample arguments is *the same proto* PySpark's Connect client builds for the
  same call (so Spark resolves it identically and names the column identically). The
  arguments are generated from the row's signature; the few names whose plan form
  differs from PySpark's call are compared in hand-written cases below.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pyspark.sql.functions as F
import pytest
from pyspark.sql.connect import proto as pb
from pyspark.sql.connect.functions import builtin as CF

from connect_plan import functions as catalog
from connect_plan.formats.json_plan import Parser, parse_expr
from connect_plan.functions import CATALOG, EXCLUDED, FunctionSpec, Param
from connect_plan.translator.expressions import ExprContext, emit
from connect_plan.translator.scope import Scope

# --------------------------------------------------------------------------- completeness


def pyspark_function_names() -> set[str]:
    """Public names of pyspark.sql.functions: ``__all__`` plus the deprecated camelCase
    functions defined there but not exported."""
    names = set(F.__all__)
    for n in dir(F):
        obj = getattr(F, n)
        if not n.startswith("_") and inspect.isfunction(obj) and obj.__module__.startswith("pyspark.sql.functions"):
            names.add(n)
    return names


def test_every_pyspark_function_has_a_row_or_an_exclusion() -> None:
    missing = sorted(n for n in pyspark_function_names() if n not in CATALOG and n not in EXCLUDED)
    assert not missing, f"PySpark functions with neither a catalog row nor an exclusion: {missing}"


def test_exclusions_name_real_pyspark_functions_and_give_reasons() -> None:
    names = pyspark_function_names()
    stale = sorted(n for n in EXCLUDED if n not in names)
    assert not stale, f"exclusions for names PySpark does not have: {stale}"
    assert all(len(reason) > 20 for reason in EXCLUDED.values())


# PLAN_FORMAT.md §4.1–4.8 function names (264, aliases included) and §4.9 window-only names
PLAN_FORMAT_NAMES = """
call_udf coalesce when assert_true nvl ifnull nullif nvl2 greatest least equal_null typeof cast
try_cast astype isin upper lower lcase ucase length char_length character_length trim ltrim
rtrim btrim substring substr concat concat_ws initcap reverse ascii char chr base64 unbase64
sha1 md5 soundex repeat instr position locate format_number overlay sha2 lpad rpad translate
substring_index left right replace startswith endswith contains like ilike rlike regexp
levenshtein crc32 xxhash64 regexp_extract regexp_replace regexp_extract_all regexp_like
regexp_count regexp_substr regexp_instr split split_part find_in_set format_string printf mask
str_to_map get_json_object json_tuple abs sqrt exp floor sin cos tan asin acos atan cosh sinh
tanh cot csc sec degrees radians cbrt expm1 log1p log10 log2 rint factorial ceil ceiling round
bround negate negative positive signum sign pow power log ln atan2 hypot pmod e pi to_degrees
to_radians add + subtract - multiply * divide / mod remainder % try_add try_subtract
try_multiply try_divide width_bucket year month day dayofmonth hour minute second quarter
weekofyear dayofweek dayofyear last_day dayname weekday unix_date date_from_unix_date
unix_micros unix_millis unix_seconds timestamp_seconds timestamp_millis timestamp_micros
to_date to_timestamp try_to_timestamp date_format date_add date_sub dateadd datediff date_diff
trunc date_trunc add_months months_between next_day unix_timestamp from_unixtime
to_unix_timestamp make_date make_timestamp make_timestamp_ntz timestampadd timestampdiff days
hours minutes months years from_utc_timestamp to_utc_timestamp convert_timezone current_date
curdate current_timestamp now localtimestamp current_timezone extract date_part datepart
to_char to_varchar to_number try_to_number spark_partition_id input_file_name
monotonically_increasing_id current_catalog current_database current_schema current_user user
version hash shift_left shift_right array array_max array_min array_distinct array_compact
shuffle array_size size cardinality element_at try_element_at array_contains array_remove
array_position array_append array_prepend array_except array_intersect array_union
arrays_overlap arrays_zip array_insert array_join array_sort array_slice sequence explode
explode_outer inline inline_outer array_agg array_sum create_map createMap map_keys keys
map_values get get_field getField get_item struct named_struct with_field withField
"""
WINDOW_ONLY_NAMES = (
    "row_number rank dense_rank percent_rank cume_dist ntile lag lead sum avg mean approx_count_distinct"
)
# the seed document's function list (seeds/logical-plan-format.txt), robin or not
SEED_NAMES = """
upper lower length trim ltrim rtrim btrim substring substr concat concat_ws initcap repeat reverse
instr position ascii format_number overlay char chr base64 unbase64 sha1 sha2 md5 lpad rpad
translate mask substring_index left right replace startswith endswith contains like ilike rlike
regexp soundex regexp_extract regexp_replace regexp_extract_all regexp_like regexp_count split
split_part find_in_set format_string lcase ucase abs ceil floor round bround negate sqrt pow power
exp log ln sin cos tan asin acos atan atan2 degrees radians signum sign pmod factorial hypot cosh
sinh tanh cbrt expm1 log1p log10 log2 rint e pi year month day dayofmonth quarter weekofyear
dayofweek dayofyear hour minute second to_date to_timestamp try_to_timestamp date_format date_add
date_sub datediff last_day trunc add_months months_between next_day unix_timestamp from_unixtime
make_date make_timestamp make_timestamp_ntz timestampadd timestampdiff current_date
current_timestamp extract date_part cast try_cast coalesce when nvl nvl2 nullif ifnull greatest
least typeof try_divide try_add try_subtract try_multiply width_bucket equal_null isnan hex unhex
bin getbit bit_and bit_or bit_xor bit_count bitwise_not bit_length octet_length array_size size
element_at try_element_at array_contains array_join array_sort array_distinct array_slice
array_compact array_remove explode explode_outer posexplode array_position array_append
array_prepend array_insert array_except array_intersect array_union arrays_overlap arrays_zip
array_agg array_sum create_map map_keys map_values get struct_ named_struct hash shift_left
shift_right version spark_partition_id current_catalog current_database current_user
input_file_name call_udf
"""


def test_plan_format_names_have_rows() -> None:
    names = PLAN_FORMAT_NAMES.split()
    assert len(names) == 264
    missing = sorted(n for n in names if n not in CATALOG)
    assert not missing, missing


def test_window_only_names_have_rows_and_need_a_window_where_spark_does() -> None:
    names = WINDOW_ONLY_NAMES.split()
    assert len(names) == 12
    assert all(n in CATALOG for n in names)
    # ranking functions are window-only; sum/avg/mean/approx_count_distinct are aggregates
    # (Spark evaluates them over the whole input without a window, as PySpark's select does)
    assert {n for n in names if CATALOG[n].kind == "window"} == {
        "row_number",
        "rank",
        "dense_rank",
        "percent_rank",
        "cume_dist",
        "ntile",
        "lag",
        "lead",
    }


def test_seed_names_have_rows() -> None:
    missing = sorted(n for n in SEED_NAMES.split() if n not in CATALOG)
    assert not missing, missing


def test_every_row_is_reachable_and_well_formed() -> None:
    for spec in catalog.rows():
        assert spec.kind in catalog.KINDS
        for name in spec.names:
            assert CATALOG[name] is spec
        if spec.order is not None:
            assert sorted(spec.order) == list(range(len(spec.params)))


def test_slot_assignment() -> None:
    tz = CATALOG["convert_timezone"]
    assert [p.name for p in tz.slots(2) or []] == ["target_tz", ""]
    assert [p.name for p in tz.slots(3) or []] == ["source_tz", "target_tz", ""]
    assert tz.slots(1) is None and tz.slots(4) is None
    assert CATALOG["named_struct"].slot_indices(4) == [0, 1, 0, 1]
    assert CATALOG["named_struct"].slot_indices(3) is None
    assert CATALOG["create_map"].slot_indices(0) == []
    assert CATALOG["concat_ws"].slot_indices(3) == [0, 1, 1]
    assert CATALOG["substring"].slot_indices(2) == [0, 1]
    assert CATALOG["aggregate"].slot_indices(4) == [0, 1, 2, 3]


# --------------------------------------------------------------------------- protos


def ours(plan_expr: Any) -> pb.Expression:
    p = Parser()
    e = parse_expr(p, plan_expr, "/e", in_window=True)
    p.raise_if_errors()
    assert e is not None
    out = pb.Expression()
    emit(e, out, ExprContext(Scope(None)))
    return out


def theirs(col: Any) -> pb.Expression:
    return col._expr.to_plan(None)


def canonical(e: pb.Expression) -> str:
    """Proto text with origins dropped and lambda variables renamed by position (PySpark
    makes fresh names such as x_12; plans name them)."""
    e = pb.Expression.FromString(e.SerializeToString())
    _strip_origin(e)
    _rename_lambdas(e, {}, [0])
    # PySpark sets the optional is_metadata_column to its default explicitly; same meaning
    return re.sub(r"\n\s*is_metadata_column: false", "", str(e))


def _rename_lambdas(msg: Any, names: dict[str, str], counter: list[int]) -> None:
    if isinstance(msg, pb.Expression) and msg.HasField("lambda_function"):
        lam = msg.lambda_function
        inner = dict(names)
        for arg in lam.arguments:
            new = f"v{counter[0]}"
            counter[0] += 1
            inner[arg.name_parts[0]] = new
            arg.name_parts[0] = new
        _rename_lambdas(lam.function, inner, counter)
        return
    if isinstance(msg, pb.Expression) and msg.HasField("unresolved_named_lambda_variable"):
        parts = msg.unresolved_named_lambda_variable.name_parts
        parts[0] = names.get(parts[0], parts[0])
        return
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if isinstance(value, (list, tuple)) or hasattr(value, "add"):
            if fd.message_type.GetOptions().map_entry:
                continue
            for v in value:
                _rename_lambdas(v, names, counter)
        else:
            _rename_lambdas(value, names, counter)


def _strip_origin(msg: Any) -> None:
    for fd, value in msg.ListFields():
        if fd.name == "common":
            msg.ClearField("common")
            continue
        if fd.message_type is None:
            continue
        if isinstance(value, (list, tuple)) or hasattr(value, "add"):
            if fd.message_type.GetOptions().map_entry:
                continue
            for v in value:
                _strip_origin(v)
        else:
            _strip_origin(value)


# names whose plan form differs from PySpark's call: compared in CUSTOM below
CUSTOM: dict[str, list[tuple[Any, Callable[[], Any]]]] = {
    "log": [
        ({"fn": "log", "args": ["v", 2.0]}, lambda: CF.log(2.0, "v")),  # robin (value, base)
        ({"fn": "log", "args": [2.0, "v"]}, lambda: CF.log(2.0, "v")),  # PySpark (base, value)
        ({"fn": "log", "args": ["v"]}, lambda: CF.log("v")),
    ],
    **{
        n: [
            ({"fn": n, "args": ["ts", "year"]}, lambda n=n: getattr(CF, n)(CF.lit("year"), "ts")),
            ({"fn": n, "args": [{"lit": "MONTH"}, "ts"]}, lambda n=n: getattr(CF, n)(CF.lit("MONTH"), "ts")),
        ]
        for n in ("extract", "date_part", "datepart")
    },
    "get": [
        ({"fn": "get", "args": ["arr", 1]}, lambda: CF.get("arr", 1)),
        ({"fn": "get", "args": ["m", {"lit": "k"}]}, lambda: CF.col("m").getItem("k")),
    ],
    "days": [({"fn": "days", "args": [3]}, lambda: CF.make_dt_interval(CF.lit(3)))],
    "hours": [({"fn": "hours", "args": ["n"]}, lambda: CF.make_dt_interval(CF.lit(0), "n"))],
    "months": [({"fn": "months", "args": [2]}, lambda: CF.make_ym_interval(CF.lit(0), CF.lit(2)))],
    "years": [({"fn": "years", "args": [2]}, lambda: CF.make_ym_interval(CF.lit(2)))],
    "array_sort": [
        ({"fn": "array_sort", "args": ["a"]}, lambda: CF.sort_array("a")),
        ({"fn": "array_sort", "args": ["a", False]}, lambda: CF.sort_array("a", False)),
        (
            {
                "fn": "array_sort",
                "args": ["a", {"lambda": {"params": ["l", "r"], "body": {"op": "-", "left": "r", "right": "l"}}}],
            },
            lambda: CF.array_sort("a", lambda x, y: y - x),
        ),
    ],
    **{
        n: [
            ({"fn": n, "args": ["x", "99.9"]}, lambda n=n: getattr(CF, n)("x", CF.lit("99.9"))),
        ]
        for n in ("to_char", "to_varchar", "to_number", "try_to_number")
    },
    "when": [
        ({"fn": "when", "args": ["b", "x"]}, lambda: CF.when(CF.col("b"), CF.col("x"))),
        (
            {"fn": "when", "args": ["b", 1, "c", 2, 3]},
            lambda: CF.when(CF.col("b"), 1).when(CF.col("c"), 2).otherwise(3),
        ),
        ({"fn": "when", "args": ["b", 1], "otherwise": 0}, lambda: CF.when(CF.col("b"), 1).otherwise(0)),
    ],
    "convert_timezone": [
        ({"fn": "convert_timezone", "args": ["UTC", "ts"]}, lambda: CF.convert_timezone(None, CF.lit("UTC"), "ts")),
        (
            {"fn": "convert_timezone", "args": ["UTC", "CET", "ts"]},
            lambda: CF.convert_timezone(CF.lit("UTC"), CF.lit("CET"), "ts"),
        ),
    ],
    **{
        n: [
            (
                {"fn": n, "args": ["y", "mo", "d", "h", "mi", "s"]},
                lambda n=n: getattr(CF, n)("y", "mo", "d", "h", "mi", "s"),
            ),
        ]
        for n in ("make_timestamp_ntz", "try_make_timestamp_ntz")
    },
    # the time zone is a string literal slot: a bare "UTC" is the zone, not a column
    **{
        n: [
            (
                {"fn": n, "args": ["y", "mo", "d", "h", "mi", "s"]},
                lambda n=n: getattr(CF, n)("y", "mo", "d", "h", "mi", "s"),
            ),
            (
                {"fn": n, "args": ["y", "mo", "d", "h", "mi", "s", "UTC"]},
                lambda n=n: getattr(CF, n)("y", "mo", "d", "h", "mi", "s", CF.lit("UTC")),
            ),
            (
                {"fn": n, "args": ["y", "mo", "d", "h", "mi", "s", {"col": "tz"}]},
                lambda n=n: getattr(CF, n)("y", "mo", "d", "h", "mi", "s", "tz"),
            ),
            (
                {"fn": n, "args": ["dt", "tm", "Asia/Tokyo"]},
                lambda n=n: getattr(CF, n)(date="dt", time="tm", timezone=CF.lit("Asia/Tokyo")),
            ),
            ({"fn": n, "args": ["dt", "tm"]}, lambda n=n: getattr(CF, n)(date="dt", time="tm")),
        ]
        for n in ("make_timestamp", "try_make_timestamp")
    },
    "create_map": [({"fn": "create_map", "args": ["k", "v", "k2", "v2"]}, lambda: CF.create_map("k", "v", "k2", "v2"))],
    "named_struct": [
        (
            {"fn": "named_struct", "args": ["a", "x", "b", "y"]},
            lambda: CF.named_struct(CF.lit("a"), "x", CF.lit("b"), "y"),
        )
    ],
    "call_udf": [],  # a name not registered with the client is sent as call_function (tested in test_parse)
    "greatest": [({"fn": "greatest", "args": ["a", "b"]}, lambda: CF.greatest("a", "b"))],
    "least": [({"fn": "least", "args": ["a", "b"]}, lambda: CF.least("a", "b"))],
}

#: PySpark fills a random seed for these when none is given: compare with a seed only
RANDOM_SEED = {"rand", "randn", "random", "uuid", "shuffle", "uniform", "randstr", "count_min_sketch"}


def _annotation(pyfn: Callable[..., Any], i: int) -> str:
    params = list(inspect.signature(pyfn).parameters.values())
    for j, p in enumerate(params):
        if p.kind == p.VAR_POSITIONAL or j == i:
            return str(p.annotation)
    return ""


#: sample literals PySpark would reject otherwise (sha2 takes 0, 224, 256, 384 or 512 bits)
SAMPLE_OVERRIDES: dict[tuple[str, int], Any] = {("sha2", 1): 256}


def _literal_value(name: str, p: Param, i: int) -> Any:
    if (name, i) in SAMPLE_OVERRIDES:
        return SAMPLE_OVERRIDES[name, i]
    return {"I": 3, "N": 2, "F": 0.5, "S": f"s{i}", "B": True, "L": 7}[p.code]


def _pyspark_requires(pyfn: Callable[..., Any], n: int) -> bool:
    """Does the PySpark function need more than ``n`` positional arguments?"""
    required = [
        p
        for p in inspect.signature(pyfn).parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(required) > n


def _pyspark_accepts(pyfn: Callable[..., Any], n: int) -> bool:
    """Can the installed PySpark function take ``n`` positional arguments? (an older PySpark,
    e.g. pyspark-client 4.2 beside Sail, lacks arguments that later releases added)"""
    params = inspect.signature(pyfn).parameters.values()
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    return len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]) >= n


def generated_case(spec: FunctionSpec, name: str, full: bool) -> tuple[Any, Callable[[], Any]]:
    """A call of ``name`` with sample arguments for each slot: the plan JSON and the
    equivalent PySpark call (a literal goes raw where PySpark takes a Python value, else
    wrapped in lit(), as a PySpark user would write it)."""
    pyfn = getattr(CF, name)
    plan_args: list[Any] = []
    py_args: list[Any] = []
    slots: list[Param] = []
    for p in spec.params:
        if p.optional and not p.variadic and not full:
            continue
        slots += [p, p] if p.variadic else [p]
    for i, p in enumerate(slots):
        ann = _annotation(pyfn, i)
        if p.code == "e":
            plan_args.append(f"c{i}")
            py_args.append(CF.col(f"c{i}"))
        elif p.code == "X":
            n = p.arities[0]
            params = ["x", "y", "z"][:n]
            plan_args.append({"lambda": {"params": params, "body": {"fn": "coalesce", "args": params}}})
            py_args.append(
                [lambda x: CF.coalesce(x), lambda x, y: CF.coalesce(x, y), lambda x, y, z: CF.coalesce(x, y, z)][n - 1]
            )
        elif p.code == "M":
            plan_args.append({"mode": "PERMISSIVE"})
            py_args.append({"mode": "PERMISSIVE"})
        else:
            v = _literal_value(name, p, i)
            plan_args.append(v)
            raw_ok = "ColumnOrName" not in ann and any(t in ann for t in ("str", "int", "float", "bool", "Any"))
            py_args.append(v if raw_ok else CF.lit(v))
    return {"fn": name, "args": plan_args}, lambda: pyfn(*py_args)


def _cases() -> list[Any]:
    out = []
    pyspark_names = pyspark_function_names()
    for name, spec in sorted(CATALOG.items()):
        if name in CUSTOM:
            for k, (plan, py) in enumerate(CUSTOM[name]):
                out.append(pytest.param(plan, py, id=f"{name}-custom{k}"))
            continue
        if name not in pyspark_names or not hasattr(CF, name):
            continue
        variants = [True] if name in RANDOM_SEED else [False, True]
        if all(not p.optional or p.variadic for p in spec.params):
            variants = [True]
        for full in variants:
            plan, py = generated_case(spec, name, full)
            if not full and _pyspark_requires(getattr(CF, name), len(plan["args"])):
                # robin makes this argument optional where PySpark requires it (lpad's pad,
                # substring's len ...): the short form is a plan-format extension, checked
                # against Spark in the integration tests instead
                continue
            if not _pyspark_accepts(getattr(CF, name), len(plan["args"])):
                continue  # an argument newer than the installed PySpark: nothing to compare with
            out.append(pytest.param(plan, py, id=f"{name}-{'full' if full else 'min'}"))
    return out


CASES = _cases()


def test_most_pyspark_names_are_compared() -> None:
    compared = {c.id.split("-")[0] for c in CASES}
    both = {n for n in CATALOG if n in pyspark_function_names()}
    assert len(compared) >= len(both) - 1, sorted(both - compared)


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize(("plan", "pyspark_call"), CASES)
def test_same_proto_as_pyspark(plan: Any, pyspark_call: Callable[[], Any]) -> None:
    assert canonical(ours(plan)) == canonical(theirs(pyspark_call()))
