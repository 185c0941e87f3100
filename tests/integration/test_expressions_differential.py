"""Expression forms of PLAN_FORMAT.md §3 (column references, literals, every ``op``, the
core function families, casts) against PySpark's own Column API on the same server.

Many expressions share one plan (one ``select``) per family so the suite stays fast; a
failure names the family, and the assertion shows the differing column.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import Column
from pyspark.sql import functions as F

SCHEMA = [
    ("id", "bigint"),
    ("s", "string"),
    ("n", "int"),
    ("x", "double"),
    ("b", "boolean"),
    ("d", "date"),
    ("ts", "timestamp"),
    ("arr", "array<int>"),
    ("m", "map<string,int>"),
    ("st", "struct<f:int,g:string>"),
    ("a.b", "string"),
    ("with space", "int"),
    ("tick`name", "int"),
    ("ünï", "string"),
]
ROWS = [
    [
        1,
        "Hello World",
        3,
        2.5,
        True,
        "2024-03-15",
        "2024-03-15T10:20:30",
        [3, 1, 2],
        {"k": 1},
        {"f": 7, "g": "q"},
        "dot1",
        10,
        100,
        "é",
    ],
    [
        2,
        "  spaced  ",
        -4,
        -0.5,
        False,
        "2023-12-31",
        "2023-12-31T23:59:59.5",
        [9, 8],
        {"a": 2, "b": 3},
        {"f": None, "g": "r"},
        "dot2",
        20,
        200,
        "ß",
    ],
    [3, None, None, None, None, None, None, None, None, None, None, None, None, None],
    [
        4,
        "abc-def-ghi",
        0,
        100.0,
        True,
        "2000-02-29",
        "2000-02-29T00:00:00",
        [5],
        {},
        {"f": 1, "g": None},
        "dot4",
        40,
        400,
        "漢字",
    ],
]

# Each family: (plan items for one select, the same columns via PySpark). Items are
# (output name, plan expression, PySpark Column).
Family = list[tuple[str, Any, Column]]


def col(name: str) -> dict[str, str]:
    return {"col": name}


def lit(v: Any) -> dict[str, Any]:
    return {"lit": v}


def fn(name: str, *args: Any) -> dict[str, Any]:
    return {"fn": name, "args": list(args)}


def op(name: str, left: Any, right: Any) -> dict[str, Any]:
    return {"op": name, "left": left, "right": right}


FAMILIES: dict[str, Family] = {
    "column_refs": [
        ("c1", col("s"), F.col("s")),
        ("c2", {"column": "n"}, F.col("n")),
        ("c3", "x", F.col("x")),
        ("c4", col("a.b"), F.col("`a.b`")),
        ("c5", col("with space"), F.col("with space")),
        ("c6", col("tick`name"), F.col("`tick``name`")),
        ("c7", col("ünï"), F.col("ünï")),
        ("c8", col("st.f"), F.col("st.f")),
        ("c9", col("ST.G"), F.col("st.g")),
        ("c10", {"type": "column", "name": "id"}, F.col("id")),
    ],
    "literals": [
        ("l_int", lit(1), F.lit(1)),
        ("l_big", lit(2**40), F.lit(2**40)),
        ("l_neg", lit(-(2**31)), F.lit(-(2**31))),
        ("l_float", lit(1.25), F.lit(1.25)),
        ("l_str", lit("text"), F.lit("text")),
        ("l_true", lit(True), F.lit(True)),
        ("l_null", lit(None), F.lit(None)),
        ("l_bare_int", 7, F.lit(7)),
        ("l_bare_float", 0.5, F.lit(0.5)),
        ("l_bare_bool", False, F.lit(False)),
        ("l_sparkless", {"type": "literal", "value": "v"}, F.lit("v")),
        ("l_typed", {"lit": "2024-01-02", "type": "date"}, F.lit("2024-01-02").cast("date")),
    ],
    "comparisons": [
        ("eq", op("eq", col("n"), lit(3)), F.col("n") == 3),
        ("ne", op("ne", col("n"), lit(3)), F.col("n") != 3),
        ("gt", op("gt", col("x"), lit(0)), F.col("x") > 0),
        ("ge", op("ge", col("x"), lit(2.5)), F.col("x") >= 2.5),
        ("lt", op("lt", col("s"), lit("b")), F.col("s") < "b"),
        ("le", op("le", col("d"), lit("2024-01-01")), F.col("d") <= "2024-01-01"),
        ("ens", op("eq_null_safe", col("n"), lit(None)), F.col("n").eqNullSafe(None)),
        ("eq_sym", op("==", col("id"), lit(2)), F.col("id") == 2),
        ("ne_sym", op("!=", col("id"), lit(2)), F.col("id") != 2),
    ],
    "logic": [
        ("and", op("and", col("b"), op("gt", col("n"), lit(0))), F.col("b") & (F.col("n") > 0)),
        ("or", op("or", col("b"), op("lt", col("n"), lit(0))), F.col("b") | (F.col("n") < 0)),
        ("not", {"op": "not", "arg": col("b")}, ~F.col("b")),
        (
            "and3",
            {
                "op": "and",
                "left": {"op": "and", "left": col("b"), "right": op("gt", col("x"), lit(0))},
                "right": op("gt", col("id"), lit(0)),
            },
            F.col("b") & (F.col("x") > 0) & (F.col("id") > 0),
        ),
        ("isnull", {"op": "is_null", "arg": col("s")}, F.col("s").isNull()),
        ("isnotnull", {"op": "is_not_null", "arg": col("s")}, F.col("s").isNotNull()),
        ("bitnot", {"op": "bitwise_not", "arg": col("n")}, F.bitwise_not("n")),
    ],
    "arithmetic": [
        ("add", op("add", col("n"), lit(1)), F.col("n") + 1),
        ("plus", op("+", col("x"), col("n")), F.col("x") + F.col("n")),
        ("sub", op("sub", col("id"), lit(1)), F.col("id") - 1),
        ("minus", op("minus", col("x"), lit(1)), F.col("x") - 1),
        ("dash", op("-", col("n"), col("id")), F.col("n") - F.col("id")),
        ("mul", op("mul", col("n"), lit(3)), F.col("n") * 3),
        ("star", op("*", col("x"), lit(2)), F.col("x") * 2),
        ("div", op("div", col("n"), lit(2)), F.col("n") / 2),
        ("divide", op("divide", col("x"), col("id")), F.col("x") / F.col("id")),
        ("slash", op("/", col("id"), lit(4)), F.col("id") / 4),
        ("pow", op("pow", col("n"), lit(2)), F.col("n") ** 2),
        ("starstar", op("**", col("x"), col("n")), F.pow("x", "n")),
        ("fn_add", fn("add", col("n"), lit(10)), F.col("n") + 10),
        ("fn_mod", fn("mod", col("id"), lit(3)), F.col("id") % 3),
        ("fn_pct", fn("%", col("n"), lit(3)), F.col("n") % 3),
        ("fn_remainder", fn("remainder", col("id"), lit(2)), F.col("id") % 2),
        ("fn_subtract", fn("subtract", col("x"), lit(0.5)), F.col("x") - 0.5),
        ("fn_multiply", fn("multiply", col("n"), col("id")), F.col("n") * F.col("id")),
        ("fn_divide", fn("divide", col("x"), lit(4)), F.col("x") / 4),
    ],
    "between_isin_items": [
        ("between", {"op": "between", "left": col("n"), "lower": lit(-1), "upper": lit(3)}, F.col("n").between(-1, 3)),
        ("isin_values", {"op": "isin", "left": col("n"), "values": [3, 0, {"lit": 9}]}, F.col("n").isin(3, 0, 9)),
        (
            "isin_strings",
            {"op": "isin", "left": col("s"), "right": {"lit": ["Hello World", "x"]}},
            F.col("s").isin("Hello World", "x"),
        ),
        ("isin_fn", fn("isin", col("id"), 1, 4), F.col("id").isin(1, 4)),
        ("isin_null", {"op": "isin", "left": col("n"), "values": [3, None]}, F.col("n").isin(3, None)),
        ("get_item_arr", {"op": "getItem", "left": col("arr"), "right": lit(0)}, F.col("arr").getItem(0)),
        ("get_item_map", {"op": "getItem", "left": col("m"), "right": lit("k")}, F.col("m").getItem("k")),
        ("startswith", {"op": "startswith", "left": col("s"), "right": lit("He")}, F.col("s").startswith("He")),
        (
            "rx_extract",
            {"op": "regexp_extract", "left": col("s"), "pattern": lit(r"(\w+)-(\w+)"), "group": lit(2)},
            F.regexp_extract("s", r"(\w+)-(\w+)", 2),
        ),
        (
            "rx_extract_args",
            {"op": "regexp_extract", "args": [col("s"), lit(r"(\w+)"), lit(1)]},
            F.regexp_extract("s", r"(\w+)", 1),
        ),
        (
            "rx_replace",
            {"op": "regexp_replace", "left": col("s"), "pattern": lit("[aeiou]"), "replacement": lit("_")},
            F.regexp_replace("s", "[aeiou]", "_"),
        ),
        ("create_map", {"op": "create_map", "args": [lit("a"), col("n")]}, F.create_map(F.lit("a"), F.col("n"))),
        ("coalesce_op", {"op": "coalesce", "args": [col("n"), lit(0)]}, F.coalesce("n", F.lit(0))),
        ("nvl_op", {"op": "nvl", "args": [col("s"), lit("?")]}, F.nvl("s", F.lit("?"))),
        ("concat_op", {"op": "concat", "args": [col("s"), lit("!")]}, F.concat("s", F.lit("!"))),
        ("contains_op", {"op": "contains", "args": [col("s"), lit("o")]}, F.contains("s", F.lit("o"))),
    ],
    "conditional_null": [
        ("when2", fn("when", op("gt", col("n"), lit(0)), lit("pos")), F.when(F.col("n") > 0, "pos")),
        (
            "when_chain",
            fn("when", op("gt", col("n"), lit(0)), lit("pos"), op("lt", col("n"), lit(0)), lit("neg"), lit("zero")),
            F.when(F.col("n") > 0, "pos").when(F.col("n") < 0, "neg").otherwise("zero"),
        ),
        ("coalesce", fn("coalesce", col("s"), lit("none")), F.coalesce("s", F.lit("none"))),
        ("nvl", fn("nvl", col("n"), lit(-1)), F.nvl("n", F.lit(-1))),
        ("ifnull", fn("ifnull", col("x"), lit(0.0)), F.ifnull("x", F.lit(0.0))),
        ("nullif", fn("nullif", col("n"), lit(0)), F.nullif("n", F.lit(0))),
        ("nvl2", fn("nvl2", col("s"), lit("has"), lit("no")), F.nvl2("s", F.lit("has"), F.lit("no"))),
        ("greatest", fn("greatest", col("n"), col("id"), lit(2)), F.greatest("n", "id", F.lit(2))),
        ("least", fn("least", col("x"), lit(1.0)), F.least("x", F.lit(1.0))),
        ("greatest_one", fn("greatest", col("n")), F.col("n")),
        ("equal_null", fn("equal_null", col("s"), lit(None)), F.equal_null("s", F.lit(None))),
        ("isnan", fn("isnan", col("x")), F.isnan("x")),
        ("nanvl", fn("nanvl", col("x"), lit(0.0)), F.nanvl("x", F.lit(0.0))),
        ("typeof", fn("typeof", col("arr")), F.typeof("arr")),
    ],
    "casts": [
        ("to_string", fn("cast", col("n"), "string"), F.col("n").cast("string")),
        ("to_int_lit", fn("cast", col("x"), lit("int")), F.col("x").cast("int")),
        ("to_bigint", fn("cast", col("n"), "bigint"), F.col("n").cast("bigint")),
        ("to_long", fn("cast", col("n"), "long"), F.col("n").cast("long")),
        ("to_short", fn("cast", col("n"), "smallint"), F.col("n").cast("smallint")),
        ("to_byte", fn("cast", col("n"), "tinyint"), F.col("n").cast("tinyint")),
        ("to_float", fn("cast", col("x"), "float"), F.col("x").cast("float")),
        ("to_double", fn("cast", col("n"), "double"), F.col("n").cast("double")),
        ("to_decimal", fn("cast", col("x"), "decimal(10,2)"), F.col("x").cast("decimal(10,2)")),
        ("to_decimal_bare", fn("cast", col("n"), "decimal"), F.col("n").cast("decimal")),
        ("to_bool", fn("cast", col("n"), "boolean"), F.col("n").cast("boolean")),
        ("to_date", fn("cast", col("ts"), "date"), F.col("ts").cast("date")),
        ("to_ts", fn("cast", col("d"), "timestamp"), F.col("d").cast("timestamp")),
        ("to_ts_ntz", fn("cast", col("d"), "timestamp_ntz"), F.col("d").cast("timestamp_ntz")),
        ("to_binary", fn("cast", col("s"), "binary"), F.col("s").cast("binary")),
        ("to_array", fn("cast", col("arr"), "array<string>"), F.col("arr").cast("array<string>")),
        ("to_map", fn("cast", col("m"), "map<string,bigint>"), F.col("m").cast("map<string,bigint>")),
        (
            "to_struct",
            fn("cast", col("st"), "struct<f:string,g:string>"),
            F.col("st").cast("struct<f:string,g:string>"),
        ),
        ("try_cast", fn("try_cast", col("s"), "int"), F.col("s").try_cast("int")),
        ("astype", fn("astype", col("n"), "string"), F.col("n").astype("string")),
        ("str_alias", fn("cast", col("n"), "str"), F.col("n").cast("string")),
        ("bool_alias", fn("cast", col("n"), "bool"), F.col("n").cast("boolean")),
    ],
    "strings": [
        ("upper", fn("upper", col("s")), F.upper("s")),
        ("lower", fn("lower", "s"), F.lower("s")),
        ("lcase", fn("lcase", col("s")), F.lcase("s")),
        ("ucase", fn("ucase", col("s")), F.ucase("s")),
        ("length", fn("length", col("s")), F.length("s")),
        ("char_length", fn("char_length", col("ünï")), F.char_length("ünï")),
        ("trim", fn("trim", col("s")), F.trim("s")),
        ("ltrim", fn("ltrim", col("s")), F.ltrim("s")),
        ("rtrim", fn("rtrim", col("s")), F.rtrim("s")),
        ("btrim", fn("btrim", col("s"), "Hd"), F.btrim("s", F.lit("Hd"))),
        ("substring", fn("substring", col("s"), 2, 3), F.substring("s", 2, 3)),
        ("substr_lit", fn("substr", col("s"), lit(1), lit(4)), F.substr("s", F.lit(1), F.lit(4))),
        ("concat", fn("concat", col("s"), lit("-"), col("n")), F.concat("s", F.lit("-"), "n")),
        ("concat_ws", fn("concat_ws", "|", col("s"), col("ünï")), F.concat_ws("|", "s", "ünï")),
        ("initcap", fn("initcap", col("s")), F.initcap("s")),
        ("reverse", fn("reverse", col("s")), F.reverse("s")),
        ("repeat", fn("repeat", col("ünï"), 3), F.repeat("ünï", 3)),
        ("instr", fn("instr", col("s"), "o"), F.instr("s", "o")),
        ("position", fn("position", "o", col("s")), F.position(F.lit("o"), F.col("s"))),
        ("locate", fn("locate", "l", col("s"), 4), F.locate("l", "s", 4)),
        ("ascii", fn("ascii", col("s")), F.ascii("s")),
        ("base64", fn("base64", col("s")), F.base64("s")),
        ("md5", fn("md5", col("s")), F.md5("s")),
        ("sha1", fn("sha1", col("s")), F.sha1("s")),
        ("sha2", fn("sha2", col("s"), 256), F.sha2("s", 256)),
        ("lpad", fn("lpad", col("s"), 15, "*"), F.lpad("s", 15, "*")),
        ("rpad", fn("rpad", col("s"), 4, "."), F.rpad("s", 4, ".")),
        ("translate", fn("translate", col("s"), "lo", "01"), F.translate("s", "lo", "01")),
        ("substring_index", fn("substring_index", col("s"), "-", 2), F.substring_index("s", "-", 2)),
        ("left", fn("left", col("s"), 3), F.left("s", F.lit(3))),
        ("right", fn("right", col("s"), 3), F.right("s", F.lit(3))),
        ("replace", fn("replace", col("s"), "l", "L"), F.replace("s", F.lit("l"), F.lit("L"))),
        ("startswith", fn("startswith", col("s"), "He"), F.startswith("s", F.lit("He"))),
        ("endswith", fn("endswith", col("s"), "ld"), F.endswith("s", F.lit("ld"))),
        ("contains", fn("contains", col("s"), "-"), F.contains("s", F.lit("-"))),
        ("like", fn("like", col("s"), "H%"), F.col("s").like("H%")),
        ("ilike", fn("ilike", col("s"), "h%"), F.col("s").ilike("h%")),
        ("rlike", fn("rlike", col("s"), "^[a-z]+-"), F.col("s").rlike("^[a-z]+-")),
        ("regexp_like", fn("regexp_like", col("s"), "o"), F.regexp_like("s", F.lit("o"))),
        ("regexp_count", fn("regexp_count", col("s"), "[a-z]"), F.regexp_count("s", F.lit("[a-z]"))),
        (
            "regexp_extract_all",
            fn("regexp_extract_all", col("s"), r"(\w)\w+", 1),
            F.regexp_extract_all("s", F.lit(r"(\w)\w+"), F.lit(1)),
        ),
        ("levenshtein", fn("levenshtein", col("s"), lit("Hello")), F.levenshtein("s", F.lit("Hello"))),
        ("soundex", fn("soundex", col("s")), F.soundex("s")),
        ("split", fn("split", col("s"), "-"), F.split("s", "-")),
        ("split_limit", fn("split", col("s"), "-", 2), F.split("s", "-", 2)),
        ("split_part", fn("split_part", col("s"), "-", 2), F.split_part("s", F.lit("-"), F.lit(2))),
        ("format_string", fn("format_string", "%s has %d", col("s"), col("n")), F.format_string("%s has %d", "s", "n")),
        ("format_number", fn("format_number", col("x"), 2), F.format_number("x", 2)),
        ("overlay", fn("overlay", col("s"), "XX", 2, 3), F.overlay("s", F.lit("XX"), F.lit(2), F.lit(3))),
        ("mask", fn("mask", col("s")), F.mask("s")),
        ("crc32", fn("crc32", col("s")), F.crc32("s")),
        ("hash", fn("hash", col("s"), col("n")), F.hash("s", "n")),
        ("xxhash64", fn("xxhash64", col("s")), F.xxhash64("s")),
        ("find_in_set", fn("find_in_set", lit("def"), lit("abc,def")), F.find_in_set(F.lit("def"), F.lit("abc,def"))),
    ],
    "math": [
        ("abs", fn("abs", col("n")), F.abs("n")),
        ("sqrt", fn("sqrt", col("x")), F.sqrt("x")),
        ("exp", fn("exp", col("x")), F.exp("x")),
        ("ceil", fn("ceil", col("x")), F.ceil("x")),
        ("ceiling", fn("ceiling", col("x")), F.ceiling("x")),
        ("floor", fn("floor", col("x")), F.floor("x")),
        ("round", fn("round", col("x")), F.round("x")),
        ("round2", fn("round", col("x"), 1), F.round("x", 1)),
        ("round_lit", fn("round", col("x"), lit(-1)), F.round("x", -1)),
        ("bround", fn("bround", col("x")), F.bround("x")),
        ("negate", fn("negate", col("n")), -F.col("n")),
        ("negative", fn("negative", col("x")), F.negative("x")),
        ("positive", fn("positive", col("x")), F.positive("x")),
        ("signum", fn("signum", col("x")), F.signum("x")),
        ("sign", fn("sign", col("n")), F.sign("n")),
        ("pow_fn", fn("pow", col("n"), 3), F.pow("n", F.lit(3))),
        ("power_fn", fn("power", col("x"), lit(0.5)), F.power("x", F.lit(0.5))),
        ("log_natural", fn("log", col("x")), F.log("x")),
        ("log_base", fn("log", col("x"), 10), F.log(10.0, F.col("x"))),
        ("ln", fn("ln", col("x")), F.ln("x")),
        ("log10", fn("log10", col("x")), F.log10("x")),
        ("log2", fn("log2", col("x")), F.log2("x")),
        ("log1p", fn("log1p", col("x")), F.log1p("x")),
        ("trig", fn("sin", col("x")), F.sin("x")),
        ("atan2", fn("atan2", col("x"), col("n")), F.atan2("x", "n")),
        ("hypot", fn("hypot", col("x"), col("n")), F.hypot("x", "n")),
        ("pmod", fn("pmod", col("n"), lit(3)), F.pmod("n", F.lit(3))),
        ("e", fn("e"), F.e()),
        ("pi", {"fn": "pi", "args": []}, F.pi()),
        ("degrees", fn("degrees", col("x")), F.degrees("x")),
        ("to_degrees", fn("to_degrees", col("x")), F.degrees("x")),
        ("to_radians", fn("to_radians", col("x")), F.radians("x")),
        ("cbrt", fn("cbrt", col("x")), F.cbrt("x")),
        ("factorial", fn("factorial", col("n")), F.factorial("n")),
        ("try_add", fn("try_add", col("n"), col("id")), F.try_add("n", "id")),
        ("try_divide", fn("try_divide", col("x"), lit(0)), F.try_divide("x", F.lit(0))),
        ("try_multiply", fn("try_multiply", col("n"), lit(2)), F.try_multiply("n", F.lit(2))),
        ("try_subtract", fn("try_subtract", col("n"), lit(2)), F.try_subtract("n", F.lit(2))),
        (
            "width_bucket",
            fn("width_bucket", col("x"), 0.0, 10.0, 5),
            F.width_bucket("x", F.lit(0.0), F.lit(10.0), F.lit(5)),
        ),
        ("shift_left", fn("shift_left", col("n"), 2), F.shiftleft("n", 2)),
        ("shift_right", fn("shift_right", col("id"), 1), F.shiftright("id", 1)),
        ("bin", fn("bin", col("id")), F.bin("id")),
        ("hex", fn("hex", col("id")), F.hex("id")),
    ],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_expression_family(diff: Any, family: str) -> None:
    items = FAMILIES[family]
    plan = [
        {
            "op": "select",
            "payload": [{"name": "id0", "expr": {"col": "id"}}] + [{"name": name, "expr": e} for name, e, _ in items],
        },
    ]
    diff.check(
        ROWS, SCHEMA, plan, lambda df: df.select(F.col("id").alias("id0"), *[c.alias(name) for name, _, c in items])
    )


def test_expressions_in_filter(diff: Any) -> None:
    """A predicate built from several forms, used where robin coerced booleans."""
    plan = [
        {
            "op": "filter",
            "payload": {
                "op": "and",
                "args": [
                    {"op": "is_not_null", "arg": col("s")},
                    fn("contains", col("s"), "o"),
                    {"op": "between", "left": col("id"), "lower": 1, "upper": 4},
                ],
            },
        }
    ]
    diff.check(
        ROWS,
        SCHEMA,
        plan,
        lambda df: df.filter(F.col("s").isNotNull() & F.contains("s", F.lit("o")) & F.col("id").between(1, 4)),
    )


def test_long_conjunction_stays_shallow(diff: Any) -> None:
    """300 AND-ed predicates nest left-deep in JSON; they are sent as a balanced tree."""
    node: Any = op("ge", col("id"), lit(0))
    for i in range(300):
        node = {"op": "and", "left": node, "right": op("ne", col("id"), lit(1000 + i))}
    plan = [{"op": "filter", "payload": node}]

    def balanced(parts: list[Any]) -> Any:
        # PySpark's own client cannot even serialise a 300-deep chain (protobuf depth
        # limit), so the oracle uses the same balanced shape; AND is associative.
        if len(parts) == 1:
            return parts[0]
        mid = len(parts) // 2
        return balanced(parts[:mid]) & balanced(parts[mid:])

    def oracle(df: Any) -> Any:
        return df.filter(balanced([F.col("id") >= 0] + [F.col("id") != 1000 + i for i in range(300)]))

    diff.check(ROWS, SCHEMA, plan, oracle)


def test_empty_create_map(client: Any, diff: Any) -> None:
    """``createMap`` with no arguments gives an empty map per row (robin issue 512).
    PySpark's toArrow() cannot convert map<void,void>, so the oracle is its collect()."""
    plan = [{"op": "select", "payload": ["id", {"name": "m0", "expr": {"op": "createMap", "args": []}}]}]
    ours = client.execute(plan, data=ROWS, schema=SCHEMA)
    theirs = diff.df(ROWS, SCHEMA).select("id", F.create_map().alias("m0"))
    assert ours.column("m0").to_pylist() == [[] for _ in ROWS]
    assert [r["m0"] for r in theirs.orderBy("id").collect()] == [{} for _ in ROWS]
    assert str(ours.schema.field("m0").type) == "map<null, null>"
    assert theirs.schema["m0"].dataType.simpleString() == "map<void,void>"
