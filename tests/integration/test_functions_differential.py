"""Scalar functions, special forms and lambdas: each plan expression against the same
expression built with ``pyspark.sql.functions`` on the same server, batched per family
(one select per family). Every special builder and every argument convention of the
catalog (e, I, N, F, S, B, L, T, M, X slots; optional slots with PySpark's fill values;
reordered, cyclic and variadic signatures) has cases here."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

from .exprdiff import X, check_cases

# ------------------------------------------------------------------ strings

STR_SCHEMA = [("id", "bigint"), ("s", "string"), ("t", "string"), ("n", "int"), ("p", "string"), ("j", "string")]
STR_ROWS = [
    [1, "Hello World", "xxhixx", 3, "a,b,c", '{"a": 1, "b": [1, 2], "c": "x"}'],
    [2, "spark", "  padded  ", 0, "k1:v1,k2:v2", '{"a": 7}'],
    [3, None, None, None, None, None],
    [4, "ÄÖü ß", "", -2, "", "[1, 2, 3]"],
]


def lam(params: list[str], body: Any) -> dict[str, Any]:
    return {"lambda": {"params": params, "body": body}}


STRINGS = [
    X("upper", {"fn": "upper", "args": ["s"]}, lambda: F.upper("s")),
    X("lcase", {"fn": "lcase", "args": [{"col": "s"}]}, lambda: F.lcase("s")),
    X("initcap", {"fn": "initcap", "args": ["t"]}, lambda: F.initcap("t")),
    X("reverse", {"fn": "reverse", "args": ["s"]}, lambda: F.reverse("s")),
    X("length", {"fn": "length", "args": ["s"]}, lambda: F.length("s")),
    X("char_length", {"fn": "char_length", "args": ["s"]}, lambda: F.char_length("s")),
    X("bit_length", {"fn": "bit_length", "args": ["s"]}, lambda: F.bit_length("s")),
    X("octet_length", {"fn": "octet_length", "args": ["s"]}, lambda: F.octet_length("s")),
    X("ascii", {"fn": "ascii", "args": ["s"]}, lambda: F.ascii("s")),
    X("chr", {"fn": "chr", "args": [{"op": "+", "left": "n", "right": 65}]}, lambda: F.chr(F.col("n") + 65)),
    X("base64", {"fn": "base64", "args": ["s"]}, lambda: F.base64("s")),
    X("md5", {"fn": "md5", "args": ["s"]}, lambda: F.md5("s")),
    X("sha1", {"fn": "sha1", "args": ["s"]}, lambda: F.sha1("s")),
    X("sha2_bare_int", {"fn": "sha2", "args": ["s", 256]}, lambda: F.sha2("s", 256)),
    X("crc32", {"fn": "crc32", "args": ["s"]}, lambda: F.crc32("s")),
    X("hash_variadic", {"fn": "hash", "args": ["s", "n"]}, lambda: F.hash("s", "n")),
    X("xxhash64", {"fn": "xxhash64", "args": ["s"]}, lambda: F.xxhash64("s")),
    X("soundex", {"fn": "soundex", "args": ["s"]}, lambda: F.soundex("s")),
    X("hex_unhex", {"fn": "unhex", "args": [{"fn": "hex", "args": ["s"]}]}, lambda: F.unhex(F.hex("s"))),
    X("bin", {"fn": "bin", "args": ["n"]}, lambda: F.bin("n")),
    # trim's characters: robin order (str, chars); Spark's function takes (chars, str)
    X("trim_chars_reordered", {"fn": "trim", "args": ["t", "x"]}, lambda: F.trim("t", F.lit("x"))),
    X("trim", {"fn": "trim", "args": ["t"]}, lambda: F.trim("t")),
    X("ltrim_chars", {"fn": "ltrim", "args": ["t", {"lit": "x"}]}, lambda: F.ltrim("t", F.lit("x"))),
    X("rtrim", {"fn": "rtrim", "args": ["t"]}, lambda: F.rtrim("t")),
    X("btrim_chars", {"fn": "btrim", "args": ["t", "x"]}, lambda: F.btrim("t", F.lit("x"))),
    X("substring_bare_ints", {"fn": "substring", "args": ["s", 2, 3]}, lambda: F.substring("s", 2, 3)),
    X("substring_no_len", {"fn": "substring", "args": ["s", 3]}, lambda: F.substr("s", F.lit(3))),
    X(
        "substr_lit_objects",
        {"fn": "substr", "args": ["s", {"lit": 1}, {"lit": 4}]},
        lambda: F.substr("s", F.lit(1), F.lit(4)),
    ),
    X("concat", {"fn": "concat", "args": ["s", {"lit": "-"}, "t"]}, lambda: F.concat("s", F.lit("-"), "t")),
    X("concat_ws_bare_sep", {"fn": "concat_ws", "args": ["|", "s", "t"]}, lambda: F.concat_ws("|", "s", "t")),
    X("repeat", {"fn": "repeat", "args": ["s", 2]}, lambda: F.repeat("s", 2)),
    X("instr", {"fn": "instr", "args": ["s", "o"]}, lambda: F.instr("s", "o")),
    X("locate_fill", {"fn": "locate", "args": ["o", "s"]}, lambda: F.locate("o", "s")),
    X("locate_start", {"fn": "locate", "args": ["o", "s", 6]}, lambda: F.locate("o", "s", 6)),
    X("position", {"fn": "position", "args": ["o", "s"]}, lambda: F.position(F.lit("o"), "s")),
    X("lpad", {"fn": "lpad", "args": ["s", 8, "*"]}, lambda: F.lpad("s", 8, "*")),
    X("rpad_default_pad", {"fn": "rpad", "args": ["s", 8]}, lambda: F.rpad("s", 8, " ")),
    X("translate", {"fn": "translate", "args": ["s", "lo", "01"]}, lambda: F.translate("s", "lo", "01")),
    X("substring_index", {"fn": "substring_index", "args": ["p", ",", 2]}, lambda: F.substring_index("p", ",", 2)),
    X("left", {"fn": "left", "args": ["s", 3]}, lambda: F.left("s", F.lit(3))),
    X("right", {"fn": "right", "args": ["s", 3]}, lambda: F.right("s", F.lit(3))),
    X("replace", {"fn": "replace", "args": ["s", "l", "L"]}, lambda: F.replace("s", F.lit("l"), F.lit("L"))),
    X("replace_delete", {"fn": "replace", "args": ["s", "l"]}, lambda: F.replace("s", F.lit("l"))),
    X("startswith", {"fn": "startswith", "args": ["s", "He"]}, lambda: F.startswith("s", F.lit("He"))),
    X("endswith", {"fn": "endswith", "args": ["s", "k"]}, lambda: F.endswith("s", F.lit("k"))),
    X("contains", {"fn": "contains", "args": ["s", "or"]}, lambda: F.contains("s", F.lit("or"))),
    X("like", {"fn": "like", "args": ["s", "%o%"]}, lambda: F.like("s", F.lit("%o%"))),
    X("ilike", {"fn": "ilike", "args": ["s", "h%"]}, lambda: F.ilike("s", F.lit("h%"))),
    X("rlike", {"fn": "rlike", "args": ["s", "^[a-z]+$"]}, lambda: F.rlike("s", F.lit("^[a-z]+$"))),
    X("regexp_like", {"fn": "regexp_like", "args": ["s", "o"]}, lambda: F.regexp_like("s", F.lit("o"))),
    X("levenshtein", {"fn": "levenshtein", "args": ["s", "t"]}, lambda: F.levenshtein("s", "t")),
    X("levenshtein_threshold", {"fn": "levenshtein", "args": ["s", "t", 3]}, lambda: F.levenshtein("s", "t", 3)),
    X(
        "regexp_extract",
        {"fn": "regexp_extract", "args": ["s", r"(\w+) (\w+)", 2]},
        lambda: F.regexp_extract("s", r"(\w+) (\w+)", 2),
    ),
    X(
        "regexp_extract_default_group",
        {"fn": "regexp_extract", "args": ["s", r"(\w)(\w)"]},
        lambda: F.regexp_extract("s", r"(\w)(\w)", 1),
    ),
    X(
        "regexp_extract_op_form",
        {"op": "regexp_extract", "left": "s", "pattern": {"lit": "(o)"}, "group": {"lit": 1}},
        lambda: F.regexp_extract("s", "(o)", 1),
    ),
    X("regexp_replace", {"fn": "regexp_replace", "args": ["s", "o", "0"]}, lambda: F.regexp_replace("s", "o", "0")),
    X(
        "regexp_extract_all",
        {"fn": "regexp_extract_all", "args": ["p", r"(\w)", 1]},
        lambda: F.regexp_extract_all("p", F.lit(r"(\w)"), 1),
    ),
    X("regexp_count", {"fn": "regexp_count", "args": ["s", "o"]}, lambda: F.regexp_count("s", F.lit("o"))),
    X("regexp_substr", {"fn": "regexp_substr", "args": ["s", "o."]}, lambda: F.regexp_substr("s", F.lit("o."))),
    X("regexp_instr", {"fn": "regexp_instr", "args": ["s", "o"]}, lambda: F.regexp_instr("s", F.lit("o"))),
    X("split_fill_limit", {"fn": "split", "args": ["p", ","]}, lambda: F.split("p", ",")),
    X("split_limit", {"fn": "split", "args": ["p", "[,:]", 2]}, lambda: F.split("p", "[,:]", 2)),
    X("split_part", {"fn": "split_part", "args": ["p", ",", 2]}, lambda: F.split_part("p", F.lit(","), F.lit(2))),
    X("find_in_set", {"fn": "find_in_set", "args": [{"lit": "b"}, "p"]}, lambda: F.find_in_set(F.lit("b"), "p")),
    X(
        "format_string",
        {"fn": "format_string", "args": ["%s-%d", "s", "n"]},
        lambda: F.format_string("%s-%d", "s", "n"),
    ),
    X("printf", {"fn": "printf", "args": ["<%s>", "s"]}, lambda: F.printf(F.lit("<%s>"), "s")),
    X("mask_fill", {"fn": "mask", "args": ["s"]}, lambda: F.mask("s")),
    X("mask_upper", {"fn": "mask", "args": ["s", "U"]}, lambda: F.mask("s", F.lit("U"))),
    X("str_to_map_fill", {"fn": "str_to_map", "args": ["p"]}, lambda: F.str_to_map("p")),
    X(
        "format_number_decimals",
        {"fn": "format_number", "args": [{"op": "*", "left": "n", "right": 1234.5}, 2]},
        lambda: F.format_number(F.col("n") * 1234.5, 2),
    ),
    X("conv", {"fn": "conv", "args": ["id", 10, 2]}, lambda: F.conv("id", 10, 2)),
    X(
        "encode_decode",
        {"fn": "decode", "args": [{"fn": "encode", "args": ["s", "UTF-8"]}, "UTF-8"]},
        lambda: F.decode(F.encode("s", "UTF-8"), "UTF-8"),
    ),
    X("elt", {"fn": "elt", "args": [2, "s", "t"]}, lambda: F.elt(F.lit(2), "s", "t")),
    X("overlay_fill_len", {"fn": "overlay", "args": ["s", "__", 2]}, lambda: F.overlay("s", F.lit("__"), 2)),
    X("overlay_len", {"fn": "overlay", "args": ["s", "__", 2, 1]}, lambda: F.overlay("s", F.lit("__"), 2, 1)),
    X("sentences_fill", {"fn": "sentences", "args": ["s"]}, lambda: F.sentences("s")),
    X("to_binary", {"fn": "to_binary", "args": ["s", "utf-8"]}, lambda: F.to_binary("s", F.lit("utf-8"))),
    X("url_encode", {"fn": "url_encode", "args": ["s"]}, lambda: F.url_encode("s")),
    X(
        "parse_url",
        {"fn": "parse_url", "args": [{"lit": "http://ex.com/a?q=1"}, "QUERY", "q"]},
        lambda: F.parse_url(F.lit("http://ex.com/a?q=1"), F.lit("QUERY"), F.lit("q")),
    ),
    X("get_json_object", {"fn": "get_json_object", "args": ["j", "$.b[1]"]}, lambda: F.get_json_object("j", "$.b[1]")),
    X("json_array_length", {"fn": "json_array_length", "args": ["j"]}, lambda: F.json_array_length("j")),
    X("json_object_keys", {"fn": "json_object_keys", "args": ["j"]}, lambda: F.json_object_keys("j")),
    X(
        "from_json_options_map",
        {"fn": "from_json", "args": ["j", "a INT, c STRING", {"mode": "PERMISSIVE"}]},
        lambda: F.from_json("j", "a INT, c STRING", {"mode": "PERMISSIVE"}),
    ),
    X(
        "to_json_struct",
        {"fn": "to_json", "args": [{"fn": "struct", "args": ["id", "s"]}]},
        lambda: F.to_json(F.struct("id", "s")),
    ),
    X(
        "schema_of_json",
        {"fn": "schema_of_json", "args": ['{"a": [1]}']},
        lambda: F.schema_of_json(F.lit('{"a": [1]}')),
    ),
    X("typeof", {"fn": "typeof", "args": ["n"]}, lambda: F.typeof("n")),
    X(
        "call_function_server_name",
        {"fn": "call_function", "args": ["upper", "s"]},
        lambda: F.call_function("upper", "s"),
    ),
]

# ------------------------------------------------------------------ numbers

NUM_SCHEMA = [("i", "int"), ("l", "bigint"), ("d", "double"), ("e", "double"), ("z", "int")]
NUM_ROWS = [
    [1, 10, 2.5, -1.5, 0],
    [2, -3, 0.25, 4.0, 0],
    [None, None, None, None, None],
    [5, 100, 16.0, 0.0, 1],
]

MATH = [
    X("abs", {"fn": "abs", "args": ["e"]}, lambda: F.abs("e")),
    X("sqrt", {"fn": "sqrt", "args": ["d"]}, lambda: F.sqrt("d")),
    X("exp", {"fn": "exp", "args": ["d"]}, lambda: F.exp("d")),
    X("log_robin_order", {"fn": "log", "args": ["d", 2]}, lambda: F.log(2.0, "d")),
    X("log_pyspark_order", {"fn": "log", "args": [10.0, "d"]}, lambda: F.log(10.0, "d")),
    X("log_op_args", {"op": "log", "args": ["d"]}, lambda: F.log("d")),
    X("ln", {"fn": "ln", "args": ["d"]}, lambda: F.ln("d")),
    X("log10", {"fn": "log10", "args": ["d"]}, lambda: F.log10("d")),
    X("log1p", {"fn": "log1p", "args": ["d"]}, lambda: F.log1p("d")),
    X("pow", {"fn": "pow", "args": ["d", 2]}, lambda: F.pow("d", 2)),
    X("power_column_exponent", {"fn": "power", "args": ["l", "i"]}, lambda: F.power("l", "i")),
    X("pow_op", {"op": "**", "left": "i", "right": 0.5}, lambda: F.pow("i", 0.5)),
    X("round_bare_scale", {"fn": "round", "args": ["d", 1]}, lambda: F.round("d", 1)),
    X("round", {"fn": "round", "args": ["e"]}, lambda: F.round("e")),
    X("bround", {"fn": "bround", "args": ["d", 1]}, lambda: F.bround("d", 1)),
    X("ceil", {"fn": "ceil", "args": ["d"]}, lambda: F.ceil("d")),
    X("ceil_scale", {"fn": "ceil", "args": ["d", 1]}, lambda: F.ceil("d", 1)),
    X("floor", {"fn": "floor", "args": ["e"]}, lambda: F.floor("e")),
    X("signum", {"fn": "signum", "args": ["e"]}, lambda: F.signum("e")),
    X("negate", {"fn": "negate", "args": ["l"]}, lambda: F.negate("l")),
    X("positive", {"fn": "positive", "args": ["l"]}, lambda: F.positive("l")),
    X("sin", {"fn": "sin", "args": ["d"]}, lambda: F.sin("d")),
    X("atan2", {"fn": "atan2", "args": ["d", "e"]}, lambda: F.atan2("d", "e")),
    X("hypot", {"fn": "hypot", "args": ["d", "e"]}, lambda: F.hypot("d", "e")),
    X("pmod", {"fn": "pmod", "args": ["l", 3]}, lambda: F.pmod("l", F.lit(3))),
    X("mod_fn", {"fn": "mod", "args": ["l", 3]}, lambda: F.col("l") % 3),
    X("remainder", {"fn": "remainder", "args": ["l", 4]}, lambda: F.col("l") % 4),
    X("percent_fn", {"fn": "%", "args": ["l", 7]}, lambda: F.col("l") % 7),
    X("add_int_stays_int", {"op": "add", "left": "i", "right": 1}, lambda: F.col("i") + 1),
    X("divide_fn", {"fn": "divide", "args": ["l", 4]}, lambda: F.col("l") / 4),
    X("try_divide_by_zero", {"fn": "try_divide", "args": ["l", "z"]}, lambda: F.try_divide("l", "z")),
    X("try_add", {"fn": "try_add", "args": ["l", "i"]}, lambda: F.try_add("l", "i")),
    X("try_mod", {"fn": "try_mod", "args": ["l", "z"]}, lambda: F.try_mod("l", "z")),
    X(
        "width_bucket",
        {"fn": "width_bucket", "args": ["d", 0, 20, 4]},
        lambda: F.width_bucket("d", F.lit(0), F.lit(20), F.lit(4)),
    ),
    X("factorial", {"fn": "factorial", "args": ["i"]}, lambda: F.factorial("i")),
    X("to_degrees", {"fn": "to_degrees", "args": ["d"]}, lambda: F.degrees("d")),
    X("to_radians", {"fn": "toRadians", "args": ["d"]}, lambda: F.radians("d")),
    X("shift_left", {"fn": "shift_left", "args": ["l", 2]}, lambda: F.shiftleft("l", 2)),
    X("shiftright", {"fn": "shiftright", "args": ["l", 1]}, lambda: F.shiftright("l", 1)),
    X("bit_count", {"fn": "bit_count", "args": ["l"]}, lambda: F.bit_count("l")),
    X("getbit", {"fn": "getbit", "args": ["l", 1]}, lambda: F.getbit("l", F.lit(1))),
    X("bitwise_not_fn", {"fn": "bitwise_not", "args": ["l"]}, lambda: F.bitwise_not("l")),
    X("bitwise_not_op", {"op": "bitwise_not", "arg": "i"}, lambda: F.bitwise_not("i")),
    X("bitwise_and", {"fn": "bitwise_and", "args": ["l", 6]}, lambda: F.col("l").bitwiseAND(6)),
    X("bitwise_or", {"fn": "|", "args": ["l", 1]}, lambda: F.col("l").bitwiseOR(1)),
    X("bitwise_xor", {"fn": "^", "args": ["l", 3]}, lambda: F.col("l").bitwiseXOR(3)),
    X("e_pi", {"op": "+", "left": {"fn": "e", "args": []}, "right": {"fn": "pi"}}, lambda: F.e() + F.pi()),
    X("rand_seed", {"fn": "rand", "args": [42]}, lambda: F.rand(42)),
    X("randn_seed", {"fn": "randn", "args": [7]}, lambda: F.randn(7)),
    X("cbrt", {"fn": "cbrt", "args": ["d"]}, lambda: F.cbrt("d")),
    X(
        "isnan",
        {
            "fn": "isnan",
            "args": [{"op": "*", "left": "e", "right": {"fn": "cast", "args": [{"lit": "NaN"}, "double"]}}],
        },
        lambda: F.isnan(F.col("e") * F.lit("NaN").cast("double")),
    ),
    X("nanvl", {"fn": "nanvl", "args": ["d", "e"]}, lambda: F.nanvl("d", "e")),
    X("greatest", {"fn": "greatest", "args": ["d", "e", 3]}, lambda: F.greatest("d", "e", F.lit(3))),
    X("least_single_passthrough", {"fn": "least", "args": ["d"]}, lambda: F.col("d")),
    X("zeroifnull", {"fn": "zeroifnull", "args": ["i"]}, lambda: F.zeroifnull("i")),
]

# ------------------------------------------------------------------ conditionals, nulls, types

COND = [
    X(
        "when_two_args_null_else",
        {"fn": "when", "args": [{"op": "gt", "left": "l", "right": 0}, "l"]},
        lambda: F.when(F.col("l") > 0, F.col("l")),
    ),
    X(
        "when_chain_else",
        {
            "fn": "when",
            "args": [
                {"op": "lt", "left": "l", "right": 0},
                {"lit": "neg"},
                {"op": "eq", "left": "l", "right": 10},
                {"lit": "ten"},
                {"lit": "other"},
            ],
        },
        lambda: F.when(F.col("l") < 0, "neg").when(F.col("l") == 10, "ten").otherwise("other"),
    ),
    X(
        "when_chain_no_else",
        {"fn": "when", "args": [{"op": "lt", "left": "l", "right": 0}, 1, {"op": "gt", "left": "l", "right": 50}, 2]},
        lambda: F.when(F.col("l") < 0, 1).when(F.col("l") > 50, 2),
    ),
    X(
        "when_otherwise_key",
        {"fn": "when", "args": [{"op": "is_null", "arg": "i"}, 0], "otherwise": "i"},
        lambda: F.when(F.col("i").isNull(), 0).otherwise(F.col("i")),
    ),
    X(
        "otherwise_fn",
        {
            "fn": "otherwise",
            "args": [{"fn": "when", "args": [{"op": "ge", "left": "d", "right": 1}, {"lit": "big"}]}, {"lit": "small"}],
        },
        lambda: F.when(F.col("d") >= 1, "big").otherwise("small"),
    ),
    X("cast_type_name", {"fn": "cast", "args": ["d", "int"]}, lambda: F.col("d").cast("int")),
    X(
        "cast_lit_type",
        {"fn": "cast", "args": ["l", {"lit": "decimal(10,2)"}]},
        lambda: F.col("l").cast("decimal(10,2)"),
    ),
    X(
        "try_cast",
        {"fn": "try_cast", "args": [{"fn": "cast", "args": ["d", "string"]}, "int"]},
        lambda: F.col("d").cast("string").try_cast("int"),
    ),
    X("astype_is_cast", {"fn": "astype", "args": ["i", "string"]}, lambda: F.col("i").astype("string")),
    X("between", {"op": "between", "left": "l", "lower": 0, "upper": 50}, lambda: F.col("l").between(0, 50)),
    X("between_fn", {"fn": "between", "args": ["d", "e", 3]}, lambda: F.col("d").between(F.col("e"), F.lit(3))),
    X("isin_values", {"op": "isin", "left": "l", "values": [10, 100, None]}, lambda: F.col("l").isin(10, 100, None)),
    X("isin_fn_bare_values", {"fn": "isin", "args": ["i", 1, 5]}, lambda: F.col("i").isin(1, 5)),
    X("isin_fn_one_list", {"fn": "isin", "args": ["i", {"lit": [2, 5]}]}, lambda: F.col("i").isin([2, 5])),
    X("not_equal", {"op": "ne", "left": "i", "right": 1}, lambda: F.col("i") != 1),
    X(
        "and_or_chain",
        {
            "op": "or",
            "args": [
                {"op": "gt", "left": "i", "right": 4},
                {"op": "lt", "left": "l", "right": 0},
                {"op": "eq", "left": "z", "right": 1},
            ],
        },
        lambda: (F.col("i") > 4) | (F.col("l") < 0) | (F.col("z") == 1),
    ),
    X("not", {"op": "not", "arg": {"op": "gt", "left": "i", "right": 1}}, lambda: ~(F.col("i") > 1)),
    X("eq_null_safe", {"op": "eq_null_safe", "left": "i", "right": {"lit": None}}, lambda: F.col("i").eqNullSafe(None)),
    X("equal_null", {"fn": "equal_null", "args": ["i", "z"]}, lambda: F.equal_null("i", "z")),
    X("coalesce", {"fn": "coalesce", "args": ["i", "z", 9]}, lambda: F.coalesce("i", "z", F.lit(9))),
    X("coalesce_op", {"op": "coalesce", "args": ["d", 0.0]}, lambda: F.coalesce("d", F.lit(0.0))),
    X("nvl", {"fn": "nvl", "args": ["i", 0]}, lambda: F.nvl("i", F.lit(0))),
    X("ifnull", {"fn": "ifnull", "args": ["i", 0]}, lambda: F.ifnull("i", F.lit(0))),
    X("nvl2", {"fn": "nvl2", "args": ["i", 1, 2]}, lambda: F.nvl2("i", F.lit(1), F.lit(2))),
    X("nullif", {"fn": "nullif", "args": ["z", 0]}, lambda: F.nullif("z", F.lit(0))),
    X(
        "isnull_isnotnull",
        {"op": "and", "left": {"fn": "isnotnull", "args": ["i"]}, "right": {"fn": "isnull", "args": [{"lit": None}]}},
        lambda: F.isnotnull("i") & F.isnull(F.lit(None)),
    ),
    X(
        "assert_true",
        {
            "fn": "assert_true",
            "args": [{"op": "ge", "left": {"fn": "coalesce", "args": ["i", 1]}, "right": 1}, "must be set"],
        },
        lambda: F.assert_true(F.coalesce("i", F.lit(1)) >= 1, "must be set"),
    ),
]

# ------------------------------------------------------------------ dates and times

DT_SCHEMA = [("d", "date"), ("ts", "timestamp"), ("s", "string"), ("ts2", "timestamp"), ("n", "int"), ("num", "string")]
DT_ROWS = [
    ["2024-03-05", "2024-03-05T10:20:30", "05-03-2024", "2024-01-01T00:00:00", 2, "12.50"],
    ["2023-12-31", "2023-12-31T23:59:59", "31-12-2023", "2024-06-15T12:00:00", -1, "-3.25"],
    [None, None, None, None, None, None],
]

DATES = [
    *(
        X(n, {"fn": n, "args": ["ts"]}, (lambda n=n: getattr(F, n)("ts")))
        for n in (
            "year",
            "month",
            "day",
            "dayofmonth",
            "hour",
            "minute",
            "second",
            "quarter",
            "weekofyear",
            "dayofweek",
            "dayofyear",
            "last_day",
            "dayname",
            "monthname",
            "weekday",
            "unix_micros",
            "unix_millis",
            "unix_seconds",
        )
    ),
    X("unix_date", {"fn": "unix_date", "args": ["d"]}, lambda: F.unix_date("d")),
    X("date_from_unix_date", {"fn": "date_from_unix_date", "args": ["n"]}, lambda: F.date_from_unix_date("n")),
    X("timestamp_seconds", {"fn": "timestamp_seconds", "args": ["n"]}, lambda: F.timestamp_seconds("n")),
    X("to_date_bare_format", {"fn": "to_date", "args": ["s", "dd-MM-yyyy"]}, lambda: F.to_date("s", "dd-MM-yyyy")),
    X("to_date_from_ts", {"fn": "to_date", "args": ["ts"]}, lambda: F.to_date("ts")),
    X(
        "to_timestamp_format",
        {"fn": "to_timestamp", "args": ["s", "dd-MM-yyyy"]},
        lambda: F.to_timestamp("s", "dd-MM-yyyy"),
    ),
    X(
        "try_to_timestamp",
        {"fn": "try_to_timestamp", "args": ["s", "yyyy"]},
        lambda: F.try_to_timestamp("s", F.lit("yyyy")),
    ),
    X(
        "date_format",
        {"fn": "date_format", "args": ["ts", "yyyy/MM/dd HH:mm"]},
        lambda: F.date_format("ts", "yyyy/MM/dd HH:mm"),
    ),
    X("date_add", {"fn": "date_add", "args": ["d", 3]}, lambda: F.date_add("d", 3)),
    X("date_sub", {"fn": "date_sub", "args": ["d", 3]}, lambda: F.date_sub("d", 3)),
    X("dateadd", {"fn": "dateadd", "args": ["d", {"lit": 10}]}, lambda: F.dateadd("d", 10)),
    X("datediff", {"fn": "datediff", "args": ["ts2", "d"]}, lambda: F.datediff("ts2", "d")),
    X("date_diff", {"fn": "date_diff", "args": ["ts2", "d"]}, lambda: F.date_diff("ts2", "d")),
    X("trunc_month_is_date", {"fn": "trunc", "args": ["d", "month"]}, lambda: F.trunc("d", "month")),
    X("date_trunc", {"fn": "date_trunc", "args": ["hour", "ts"]}, lambda: F.date_trunc("hour", "ts")),
    X("add_months", {"fn": "add_months", "args": ["d", 2]}, lambda: F.add_months("d", 2)),
    X("months_between_fill", {"fn": "months_between", "args": ["ts2", "ts"]}, lambda: F.months_between("ts2", "ts")),
    X(
        "months_between_no_round",
        {"fn": "months_between", "args": ["ts2", "ts", False]},
        lambda: F.months_between("ts2", "ts", False),
    ),
    X("next_day", {"fn": "next_day", "args": ["d", "Mon"]}, lambda: F.next_day("d", "Mon")),
    X("unix_timestamp_fill_format", {"fn": "unix_timestamp", "args": ["ts"]}, lambda: F.unix_timestamp("ts")),
    X(
        "from_unixtime_fill_format",
        {"fn": "from_unixtime", "args": [{"op": "*", "left": "n", "right": 86400}]},
        lambda: F.from_unixtime(F.col("n") * 86400),
    ),
    X(
        "make_date",
        {"fn": "make_date", "args": [2024, {"fn": "abs", "args": ["n"]}, 1]},
        lambda: F.make_date(F.lit(2024), F.abs("n"), F.lit(1)),
    ),
    X(
        "make_timestamp",
        {"fn": "make_timestamp", "args": [2024, 1, {"fn": "abs", "args": ["n"]}, 10, 30, 0]},
        lambda: F.make_timestamp(F.lit(2024), F.lit(1), F.abs("n"), F.lit(10), F.lit(30), F.lit(0)),
    ),
    # the time zone slot is a string literal: a bare zone name is the zone, not a column
    X(
        "make_timestamp_bare_zone",
        {"fn": "make_timestamp", "args": [2024, 1, {"fn": "abs", "args": ["n"]}, 10, 30, 0, "Asia/Tokyo"]},
        lambda: F.make_timestamp(
            F.lit(2024), F.lit(1), F.abs("n"), F.lit(10), F.lit(30), F.lit(0), F.lit("Asia/Tokyo")
        ),
    ),
    X(
        "make_timestamp_lit_zone",
        {"fn": "make_timestamp", "args": [2024, 1, 2, 10, 30, 0, {"lit": "America/New_York"}]},
        lambda: F.make_timestamp(
            F.lit(2024), F.lit(1), F.lit(2), F.lit(10), F.lit(30), F.lit(0), F.lit("America/New_York")
        ),
    ),
    X(
        "make_timestamp_ltz_bare_zone",
        {"fn": "make_timestamp_ltz", "args": [2024, 1, 1, 12, 0, 0, "Asia/Kolkata"]},
        lambda: F.make_timestamp_ltz(
            F.lit(2024), F.lit(1), F.lit(1), F.lit(12), F.lit(0), F.lit(0), F.lit("Asia/Kolkata")
        ),
    ),
    X("timestampadd", {"fn": "timestampadd", "args": ["DAY", "n", "ts"]}, lambda: F.timestamp_add("DAY", "n", "ts")),
    X(
        "timestampdiff",
        {"fn": "timestampdiff", "args": ["HOUR", "ts2", "ts"]},
        lambda: F.timestamp_diff("HOUR", "ts2", "ts"),
    ),
    X(
        "days_interval",
        {"op": "+", "left": "ts", "right": {"fn": "days", "args": [3]}},
        lambda: F.col("ts") + F.make_dt_interval(F.lit(3)),
    ),
    X(
        "hours_interval_column",
        {"op": "-", "left": "ts", "right": {"fn": "hours", "args": ["n"]}},
        lambda: F.col("ts") - F.make_dt_interval(F.lit(0), F.col("n")),
    ),
    X(
        "minutes_interval",
        {"op": "+", "left": "ts", "right": {"fn": "minutes", "args": [90]}},
        lambda: F.col("ts") + F.make_dt_interval(F.lit(0), F.lit(0), F.lit(90)),
    ),
    X(
        "months_interval",
        {"op": "+", "left": "d", "right": {"fn": "months", "args": [13]}},
        lambda: F.col("d") + F.make_ym_interval(F.lit(0), F.lit(13)),
    ),
    X(
        "years_interval",
        {"op": "+", "left": "d", "right": {"fn": "years", "args": [1]}},
        lambda: F.col("d") + F.make_ym_interval(F.lit(1)),
    ),
    X("make_dt_interval_fill", {"fn": "make_dt_interval", "args": ["n"]}, lambda: F.make_dt_interval("n")),
    X(
        "from_utc_timestamp",
        {"fn": "from_utc_timestamp", "args": ["ts", "Europe/Paris"]},
        lambda: F.from_utc_timestamp("ts", "Europe/Paris"),
    ),
    X(
        "to_utc_timestamp",
        {"fn": "to_utc_timestamp", "args": ["ts", "Asia/Tokyo"]},
        lambda: F.to_utc_timestamp("ts", "Asia/Tokyo"),
    ),
    X(
        "convert_timezone_3",
        {"fn": "convert_timezone", "args": ["UTC", "Asia/Tokyo", {"fn": "cast", "args": ["ts", "timestamp_ntz"]}]},
        lambda: F.convert_timezone(F.lit("UTC"), F.lit("Asia/Tokyo"), F.col("ts").cast("timestamp_ntz")),
    ),
    X(
        "convert_timezone_no_source",
        {"fn": "convert_timezone", "args": ["Asia/Tokyo", {"fn": "cast", "args": ["ts", "timestamp_ntz"]}]},
        lambda: F.convert_timezone(None, F.lit("Asia/Tokyo"), F.col("ts").cast("timestamp_ntz")),
    ),
    X("extract_robin_order", {"fn": "extract", "args": ["ts", "year"]}, lambda: F.extract(F.lit("year"), "ts")),
    X(
        "extract_pyspark_order",
        {"fn": "extract", "args": [{"lit": "MONTH"}, "ts"]},
        lambda: F.extract(F.lit("MONTH"), "ts"),
    ),
    X("date_part", {"fn": "date_part", "args": ["ts", {"lit": "HOUR"}]}, lambda: F.date_part(F.lit("HOUR"), "ts")),
    X("datepart", {"fn": "datepart", "args": ["d", "DOW"]}, lambda: F.datepart(F.lit("DOW"), "d")),
    X("to_char_date_format", {"fn": "to_char", "args": ["d", "yyyy-MM"]}, lambda: F.to_char("d", F.lit("yyyy-MM"))),
    X("to_char_no_format_is_string", {"fn": "to_char", "args": ["n"]}, lambda: F.col("n").cast("string")),
    X("to_varchar_number", {"fn": "to_varchar", "args": ["n", "999"]}, lambda: F.to_varchar("n", F.lit("999"))),
    X("to_number_format", {"fn": "to_number", "args": ["num", "S99.99"]}, lambda: F.to_number("num", F.lit("S99.99"))),
    X("to_number_no_format_is_double", {"fn": "to_number", "args": ["num"]}, lambda: F.col("num").cast("double")),
    X("try_to_number_no_format", {"fn": "try_to_number", "args": ["s"]}, lambda: F.col("s").try_cast("double")),
    X("window_struct", {"fn": "window", "args": ["ts", "1 hour"]}, lambda: F.window("ts", "1 hour")),
]

# ------------------------------------------------------------------ arrays, maps, structs, lambdas

ARR_SCHEMA = [
    ("a", "array<bigint>"),
    ("b", "array<bigint>"),
    ("s", "array<string>"),
    ("m", "map<string,bigint>"),
    ("st", "struct<x:bigint,y:string>"),
    ("n", "int"),
    ("im", "map<int,string>"),
]
ARR_ROWS = [
    [[3, 1, None, 2], [2, 5], ["b", "a"], {"k": 1, "j": 2}, {"x": 1, "y": "u"}, 1, {"1": "one", "2": "two"}],
    [[], [1], [], {}, {"x": None, "y": None}, 2, {"3": "three"}],
    [None, None, None, None, None, None, None],
]

ARRAYS = [
    X("array", {"fn": "array", "args": ["n", 5]}, lambda: F.array("n", F.lit(5))),
    # (a bare empty array/map has element type void, which PySpark's own toArrow cannot convert)
    X("array_empty", {"fn": "size", "args": [{"fn": "array", "args": []}]}, lambda: F.size(F.array())),
    *(
        X(n, {"fn": n, "args": ["a"]}, (lambda n=n: getattr(F, n)("a")))
        for n in ("array_max", "array_min", "array_distinct", "array_compact", "array_size", "size", "cardinality")
    ),
    X("element_at_index", {"fn": "element_at", "args": ["b", -1]}, lambda: F.element_at("b", -1)),
    X("element_at_map_bare_key", {"fn": "element_at", "args": ["m", "k"]}, lambda: F.element_at("m", F.lit("k"))),
    X("try_element_at", {"fn": "try_element_at", "args": ["a", 10]}, lambda: F.try_element_at("a", F.lit(10))),
    X("array_contains", {"fn": "array_contains", "args": ["a", 2]}, lambda: F.array_contains("a", 2)),
    X("array_contains_column", {"fn": "array_contains", "args": ["b", "n"]}, lambda: F.array_contains("b", F.col("n"))),
    X("array_remove", {"fn": "array_remove", "args": ["a", 1]}, lambda: F.array_remove("a", 1)),
    X("array_position", {"fn": "array_position", "args": ["a", 2]}, lambda: F.array_position("a", 2)),
    X("array_append", {"fn": "array_append", "args": ["a", 9]}, lambda: F.array_append("a", 9)),
    X("array_prepend", {"fn": "array_prepend", "args": ["a", 0]}, lambda: F.array_prepend("a", 0)),
    X("array_except", {"fn": "array_except", "args": ["a", "b"]}, lambda: F.array_except("a", "b")),
    X("array_intersect", {"fn": "array_intersect", "args": ["a", "b"]}, lambda: F.array_intersect("a", "b")),
    X("array_union", {"fn": "array_union", "args": ["a", "b"]}, lambda: F.array_union("a", "b")),
    X("arrays_overlap", {"fn": "arrays_overlap", "args": ["a", "b"]}, lambda: F.arrays_overlap("a", "b")),
    X("arrays_zip", {"fn": "arrays_zip", "args": ["a", "b"]}, lambda: F.arrays_zip("a", "b")),
    X("array_insert", {"fn": "array_insert", "args": ["a", 1, 7]}, lambda: F.array_insert("a", 1, 7)),
    X("array_join", {"fn": "array_join", "args": ["s", "-"]}, lambda: F.array_join("s", "-")),
    X(
        "array_join_null_replacement",
        {"fn": "array_join", "args": [{"fn": "array", "args": [{"lit": "x"}, {"lit": None}]}, ",", "?"]},
        lambda: F.array_join(F.array(F.lit("x"), F.lit(None)), ",", "?"),
    ),
    X("array_sort_robin_nulls_first", {"fn": "array_sort", "args": ["a"]}, lambda: F.sort_array("a")),
    X("array_sort_descending", {"fn": "array_sort", "args": ["a", False]}, lambda: F.sort_array("a", False)),
    X(
        "array_sort_comparator",
        {
            "fn": "array_sort",
            "args": [
                "b",
                lam(
                    ["l", "r"],
                    {
                        "op": "-",
                        "left": {"fn": "cast", "args": ["r", "int"]},
                        "right": {"fn": "cast", "args": ["l", "int"]},
                    },
                ),
            ],
        },
        lambda: F.array_sort("b", lambda x, y: y.cast("int") - x.cast("int")),
    ),
    X("sort_array", {"fn": "sort_array", "args": ["a", {"lit": False}]}, lambda: F.sort_array("a", False)),
    X("array_slice", {"fn": "array_slice", "args": ["a", 2, 2]}, lambda: F.slice("a", 2, 2)),
    X("slice", {"fn": "slice", "args": ["a", 1, "n"]}, lambda: F.slice("a", F.lit(1), F.col("n"))),
    X(
        "sequence",
        {"fn": "sequence", "args": [1, {"op": "+", "left": "n", "right": 2}]},
        lambda: F.sequence(F.lit(1), F.col("n") + 2),
    ),
    X("array_repeat", {"fn": "array_repeat", "args": ["n", 2]}, lambda: F.array_repeat("n", 2)),
    X(
        "flatten",
        {"fn": "flatten", "args": [{"fn": "array", "args": ["a", "b"]}]},
        lambda: F.flatten(F.array("a", "b")),
    ),
    X(
        "array_sum_skips_nulls",
        {"fn": "array_sum", "args": ["a"]},
        lambda: F.aggregate(F.filter("a", lambda x: x.isNotNull()), F.lit(0).cast("bigint"), lambda acc, x: acc + x),
    ),
    X("shuffle_seed", {"fn": "shuffle", "args": ["a", 3]}, lambda: F.shuffle("a", 3)),
    # maps and structs
    X(
        "create_map",
        {"fn": "create_map", "args": [{"lit": "one"}, "n", {"lit": "two"}, 2]},
        lambda: F.create_map(F.lit("one"), "n", F.lit("two"), F.lit(2)),
    ),
    X("create_map_empty", {"fn": "size", "args": [{"fn": "createMap", "args": []}]}, lambda: F.size(F.create_map())),
    X("create_map_op", {"op": "create_map", "args": [{"lit": "k"}, "n"]}, lambda: F.create_map(F.lit("k"), "n")),
    X("map_keys", {"fn": "keys", "args": ["m"]}, lambda: F.map_keys("m")),
    X("map_values", {"fn": "map_values", "args": ["m"]}, lambda: F.map_values("m")),
    X("map_entries", {"fn": "map_entries", "args": ["m"]}, lambda: F.map_entries("m")),
    X(
        "map_concat",
        {"fn": "map_concat", "args": ["m", {"fn": "create_map", "args": [{"lit": "z"}, 0]}]},
        lambda: F.map_concat("m", F.create_map(F.lit("z"), F.lit(0))),
    ),
    X("map_contains_key_bare", {"fn": "map_contains_key", "args": ["m", "k"]}, lambda: F.map_contains_key("m", "k")),
    X(
        "map_from_arrays",
        {
            "fn": "map_from_arrays",
            "args": ["s", {"fn": "transform", "args": ["s", lam(["x"], {"fn": "length", "args": ["x"]})]}],
        },
        lambda: F.map_from_arrays("s", F.transform("s", lambda x: F.length(x))),
    ),
    X("get_map_key_robin", {"fn": "get", "args": ["m", {"lit": "k"}]}, lambda: F.col("m")["k"]),
    X("get_array_index", {"fn": "get", "args": ["a", 1]}, lambda: F.get("a", 1)),
    X("get_array_out_of_range_null", {"fn": "get", "args": ["a", 10]}, lambda: F.get("a", 10)),
    # an integer literal key on a map (robin's get(map, key)): the map lookup, not Spark's
    # array get, when the argument is known to be a map
    X("get_int_keyed_map", {"fn": "get", "args": ["im", 2]}, lambda: F.col("im")[2]),
    X("get_int_keyed_map_missing", {"fn": "get", "args": ["im", 7]}, lambda: F.col("im")[7]),
    X(
        "get_built_map_int_key",
        {"fn": "get", "args": [{"fn": "create_map", "args": [1, "n", 2, 20]}, 1]},
        lambda: F.create_map(F.lit(1), F.col("n"), F.lit(2), F.lit(20))[1],
    ),
    X(
        "get_cast_map_int_key",
        {"fn": "get", "args": [{"fn": "cast", "args": ["im", "map<bigint,string>"]}, 3]},
        lambda: F.col("im").cast("map<bigint,string>")[3],
    ),
    X("get_field", {"fn": "get_field", "args": ["st", "x"]}, lambda: F.col("st").getField("x")),
    X("getField_lit", {"fn": "getField", "args": ["st", {"lit": "y"}]}, lambda: F.col("st").getField("y")),
    X("get_item_index", {"fn": "get_item", "args": ["b", 0]}, lambda: F.col("b").getItem(0)),
    X("getItem_op", {"op": "getItem", "left": "m", "right": {"lit": "j"}}, lambda: F.col("m").getItem("j")),
    X("struct", {"fn": "struct", "args": ["n", "s"]}, lambda: F.struct("n", "s")),
    X("struct_", {"fn": "struct_", "args": ["n"]}, lambda: F.struct("n")),
    X(
        "named_struct",
        {"fn": "named_struct", "args": ["p", "n", {"lit": "q"}, "s"]},
        lambda: F.named_struct(F.lit("p"), "n", F.lit("q"), "s"),
    ),
    X("with_field", {"fn": "with_field", "args": ["st", "z", "n"]}, lambda: F.col("st").withField("z", F.col("n"))),
    X(
        "withField_replace",
        {"fn": "withField", "args": ["st", "y", {"fn": "cast", "args": ["n", "string"]}]},
        lambda: F.col("st").withField("y", F.col("n").cast("string")),
    ),
    X(
        "drop_fields",
        {"fn": "drop_fields", "args": [{"fn": "with_field", "args": ["st", "z", "n"]}, "y", "x"]},
        lambda: F.col("st").withField("z", F.col("n")).dropFields("y", "x"),
    ),
    X("struct_dot_access", {"col": "st.y"}, lambda: F.col("st.y")),
    # higher-order functions
    X(
        "transform",
        {"fn": "transform", "args": ["a", lam(["x"], {"op": "*", "left": "x", "right": 2})]},
        lambda: F.transform("a", lambda x: x * 2),
    ),
    X(
        "transform_index_var_form",
        {"fn": "transform", "args": ["a", lam(["v", "i"], {"op": "+", "left": {"var": "v"}, "right": {"var": "i"}})]},
        lambda: F.transform("a", lambda x, i: x + i),
    ),
    X(
        "transform_outer_column",
        {"fn": "transform", "args": ["b", lam(["x"], {"op": "+", "left": {"col": "x"}, "right": "n"})]},
        lambda: F.transform("b", lambda x: x + F.col("n")),
    ),
    X(
        "filter",
        {"fn": "filter", "args": ["a", lam(["x"], {"op": "gt", "left": "x", "right": 1})]},
        lambda: F.filter("a", lambda x: x > 1),
    ),
    X(
        "exists",
        {"fn": "exists", "args": ["a", lam(["x"], {"op": "is_null", "arg": "x"})]},
        lambda: F.exists("a", lambda x: x.isNull()),
    ),
    X(
        "forall",
        {"fn": "forall", "args": ["b", lam(["x"], {"op": "gt", "left": "x", "right": 0})]},
        lambda: F.forall("b", lambda x: x > 0),
    ),
    X(
        "aggregate_finish",
        {
            "fn": "aggregate",
            "args": [
                "b",
                {"fn": "cast", "args": [0, "bigint"]},
                lam(["acc", "x"], {"op": "+", "left": "acc", "right": "x"}),
                lam(["acc"], {"op": "*", "left": "acc", "right": 10}),
            ],
        },
        lambda: F.aggregate("b", F.lit(0).cast("bigint"), lambda acc, x: acc + x, lambda acc: acc * 10),
    ),
    X(
        "reduce",
        {"fn": "reduce", "args": ["s", {"lit": ""}, lam(["acc", "x"], {"fn": "concat", "args": ["acc", "x"]})]},
        lambda: F.reduce("s", F.lit(""), lambda acc, x: F.concat(acc, x)),
    ),
    X(
        "zip_with",
        {"fn": "zip_with", "args": ["a", "b", lam(["x", "y"], {"fn": "coalesce", "args": ["x", "y"]})]},
        lambda: F.zip_with("a", "b", lambda x, y: F.coalesce(x, y)),
    ),
    X(
        "map_filter",
        {"fn": "map_filter", "args": ["m", lam(["k", "v"], {"op": "gt", "left": "v", "right": 1})]},
        lambda: F.map_filter("m", lambda k, v: v > 1),
    ),
    X(
        "transform_keys",
        {"fn": "transform_keys", "args": ["m", lam(["k", "v"], {"fn": "upper", "args": ["k"]})]},
        lambda: F.transform_keys("m", lambda k, v: F.upper(k)),
    ),
    X(
        "transform_values",
        {"fn": "transform_values", "args": ["m", lam(["k", "v"], {"op": "*", "left": "v", "right": 10})]},
        lambda: F.transform_values("m", lambda k, v: v * 10),
    ),
    X(
        "map_zip_with",
        {"fn": "map_zip_with", "args": ["m", "m", lam(["k", "v1", "v2"], {"op": "+", "left": "v1", "right": "v2"})]},
        lambda: F.map_zip_with("m", "m", lambda k, v1, v2: v1 + v2),
    ),
    X(
        "nested_lambdas_shadowing",
        {
            "fn": "transform",
            "args": [
                {"fn": "array", "args": ["a", "b"]},
                lam(["x"], {"fn": "transform", "args": ["x", lam(["x"], {"op": "+", "left": "x", "right": "n"})]}),
            ],
        },
        lambda: F.transform(F.array("a", "b"), lambda x: F.transform(x, lambda y: y + F.col("n"))),
    ),
]

# try_ forms with out-of-range parts (a month of -1 gives null), apart from the other dates
# cases because Sail fails them (tests/engines.py)
DATES_TRY = [
    X(
        "try_make_timestamp_bare_zone",
        {"fn": "try_make_timestamp", "args": [2024, "n", 1, 0, 0, 0, "Europe/Paris"]},
        lambda: F.try_make_timestamp(
            F.lit(2024), F.col("n"), F.lit(1), F.lit(0), F.lit(0), F.lit(0), F.lit("Europe/Paris")
        ),
    ),
    X(
        "try_make_timestamp_ltz_bare_zone",
        {"fn": "try_make_timestamp_ltz", "args": [2024, "n", 1, 12, 0, 0, "UTC"]},
        lambda: F.try_make_timestamp_ltz(
            F.lit(2024), F.col("n"), F.lit(1), F.lit(12), F.lit(0), F.lit(0), F.lit("UTC")
        ),
    ),
]

FAMILIES = {
    "strings": (STR_ROWS, STR_SCHEMA, STRINGS),
    "math": (NUM_ROWS, NUM_SCHEMA, MATH),
    "conditionals": (NUM_ROWS, NUM_SCHEMA, COND),
    "dates": (DT_ROWS, DT_SCHEMA, DATES),
    "dates_try": (DT_ROWS, DT_SCHEMA, DATES_TRY),
    "arrays_maps_structs_lambdas": (ARR_ROWS, ARR_SCHEMA, ARRAYS),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family(diff: Any, family: str) -> None:
    rows, schema, cases = FAMILIES[family]
    check_cases(diff, rows, schema, cases)


def test_with_column_steps(diff: Any) -> None:
    """The same expressions work as withColumn steps (merged into one WithColumns)."""
    check_cases(diff, NUM_ROWS, NUM_SCHEMA, [c for c in MATH if not c.id.startswith("ran")][:12], step="withColumn")


def test_runtime_errors_keep_sparks_error_class(client: Any) -> None:
    """An error Spark raises while computing (not while analysing) reaches the caller with
    Spark's error class, not a logging TypeError from PySpark's query-context logger."""
    from connect_plan.errors import ServerError

    plan = [{"op": "select", "payload": [{"name": "q", "expr": {"op": "/", "left": "l", "right": "z"}}]}]
    with pytest.raises(ServerError) as info:
        client.execute(plan, data=NUM_ROWS, schema=NUM_SCHEMA)
    assert info.value.error_class == "DIVIDE_BY_ZERO"
