#!/usr/bin/env python
"""Generate connect_plan's Substrait dialect (connect_plan/data/substrait_dialect.yaml, in the
format of substrait_extensions/dialects/dialect_schema.yaml) from the front-end's own tables:

- every standard function of :data:`~connect_plan.formats.substrait.spellings.FUNCTIONS`, by kind,
  with the signatures the spec's extension files declare for it (``supported_impls``), the options
  connect_plan honours (:data:`~.spellings.FUNCTION_OPTIONS`) and what it becomes on Spark
  (``metadata``); a producer's own spelling (DuckDB's ``~~*``...) is listed in the dialect's
  ``metadata.producer_spellings``: no extension file declares it;
- the relations and expressions the converter dispatches (``state.RELATIONS``, ``EXPRESSIONS``;
  a write and its CTAS as the root), the types ``types.py`` maps.

    python scripts/gen_substrait_dialect.py          # rewrite the file
    python scripts/gen_substrait_dialect.py --check  # exit 1 if it is stale

tests/unit/test_substrait_dialect.py fails when the file differs from this output (a function
added to the table and not to the dialect, or back) and validates it against the schema.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "connect_plan" / "data" / "substrait_dialect.yaml"

#: a type in an extension file's impl → its short name in a function signature (Substrait's
#: "function signature compound names")
_SHORT = {
    "boolean": "bool",
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "fp32": "fp32",
    "fp64": "fp64",
    "string": "str",
    "binary": "vbin",
    "timestamp": "ts",
    "timestamp_tz": "tstz",
    "date": "date",
    "time": "time",
    "interval_year": "iyear",
    "interval_day": "iday",
    "interval_compound": "icompound",
    "uuid": "uuid",
    "fixedchar": "fchar",
    "varchar": "vchar",
    "fixedbinary": "fbin",
    "decimal": "dec",
    "precision_time": "pt",
    "precision_timestamp": "pts",
    "precision_timestamp_tz": "ptstz",
    "struct": "struct",
    "list": "list",
    "map": "map",
    "func": "func",
}

#: relation kinds (the converter's) → the dialect's names
_RELATIONS = {
    "read": "READ",
    "filter": "FILTER",
    "fetch": "FETCH",
    "aggregate": "AGGREGATE",
    "sort": "SORT",
    "join": "JOIN",
    "project": "PROJECT",
    "set": "SET",
    "cross": "CROSS",
    "reference": "REFERENCE",
    "hash_join": "HASH_JOIN",
    "merge_join": "MERGE_JOIN",
    "nested_loop_join": "NESTED_LOOP_JOIN",
    "exchange": "EXCHANGE",
    "expand": "EXPAND",
    "top_n": "TOP_N",
    "window": "CONSISTENT_PARTITION_WINDOW",
    "lateral_join": "LATERAL_JOIN",
}
_EXPRESSIONS = {
    "literal": "LITERAL",
    "selection": "SELECTION",
    "scalar_function": "SCALAR_FUNCTION",
    "window_function": "WINDOW_FUNCTION",
    "if_then": "IF_THEN",
    "switch_expression": "SWITCH",
    "singular_or_list": "SINGULAR_OR_LIST",
    "multi_or_list": "MULTI_OR_LIST",
    "cast": "CAST",
    "subquery": "SUBQUERY",
    "nested": "NESTED",
    "dynamic_parameter": "DYNAMIC_PARAMETER",
    "lambda": "LAMBDA",
}
#: type kinds (types.py's) → the dialect's names
_TYPES = {
    "bool": "BOOL",
    "i8": "I8",
    "i16": "I16",
    "i32": "I32",
    "i64": "I64",
    "fp32": "FP32",
    "fp64": "FP64",
    "binary": "BINARY",
    "fixed_binary": "FIXED_BINARY",
    "string": "STRING",
    "varchar": "VARCHAR",
    "fixed_char": "FIXED_CHAR",
    "precision_timestamp": "PRECISION_TIMESTAMP",
    "precision_timestamp_tz": "PRECISION_TIMESTAMP_TZ",
    "date": "DATE",
    "interval_compound": "INTERVAL_COMPOUND",
    "interval_day": "INTERVAL_DAY",
    "interval_year": "INTERVAL_YEAR",
    "uuid": "UUID",
    "decimal": "DECIMAL",
    "struct": "STRUCT",
    "list": "LIST",
    "map": "MAP",
}


def _short(value: Any) -> str:
    text = str(value).strip().strip('"').lower()
    if text.startswith("u!"):
        return text
    base = re.split(r"[<?]", text, maxsplit=1)[0].strip()
    if re.fullmatch(r"any\d*", base):
        return "any"
    return _SHORT.get(base, base)


def _signature(args: list[dict[str, Any]]) -> str:
    parts = []
    for a in args:
        if "value" in a:
            parts.append(_short(a["value"]))
        elif "options" in a:  # an enum argument
            parts.append("req")
    return "_".join(parts)


def spec_impls() -> dict[tuple[str, str, str], list[str]]:
    """(kind, file stem, function name) → the signatures the spec's extension file declares."""
    import substrait_extensions.extensions as ext
    import yaml

    folder = Path(ext.__file__).parent
    out: dict[tuple[str, str, str], list[str]] = {}
    for path in sorted(folder.glob("functions_*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key, kind in (
            ("scalar_functions", "scalar"),
            ("aggregate_functions", "aggregate"),
            ("window_functions", "window"),
        ):
            for f in doc.get(key) or []:
                sigs = out.setdefault((kind, path.stem, f["name"]), [])
                for impl in f.get("impls") or []:
                    sig = _signature(impl.get("args") or [])
                    if sig not in sigs:
                        sigs.append(sig)
    return out


def dialect() -> dict[str, Any]:
    from connect_plan.formats.substrait import commands  # noqa: F401 - registers every builder
    from connect_plan.formats.substrait import spellings as sp
    from connect_plan.formats.substrait.state import EXPRESSIONS, RELATIONS
    from connect_plan.formats.substrait.types import PRIMITIVE_TYPES

    impls = spec_impls()
    files = sorted({f for row in sp.FUNCTIONS.values() for f in row.files})
    functions: dict[str, list[dict[str, Any]]] = {"scalar": [], "aggregate": [], "window": []}
    producer: list[dict[str, Any]] = []
    for (kind, name), row in sorted(sp.FUNCTIONS.items()):
        options = {
            opt: sorted(values)
            for (k, fn, opt), values in sorted(sp.FUNCTION_OPTIONS.items())
            if (k, fn) == (kind, name)
        }
        meta: dict[str, Any] = {"spark": row.spark or "built (spec_functions.py, functions.py...)"}
        if row.note:
            meta["note"] = row.note
        if options:
            meta["honoured_options"] = options
        if not row.files:
            producer.append({"kind": kind, "name": name, "producers": list(row.producers), **meta})
            continue
        for stem in row.files:
            sigs = impls.get((kind, stem, name))
            if sigs is None and kind == "window":
                sigs = impls.get(("aggregate", stem, name))
            if sigs is None:
                raise SystemExit(f"{stem} declares no {kind} function {name!r}")
            functions[kind].append({"source": stem, "name": name, "supported_impls": sigs or [""], "metadata": meta})
    types = [
        t
        for k, t in _TYPES.items()
        if k in PRIMITIVE_TYPES
        or k in ("decimal", "struct", "list", "map", "interval_compound", "interval_day", "interval_year")
    ]
    return {
        "name": "connect_plan (Apache Spark Connect)",
        "metadata": {
            "description": "What connect_plan runs on Spark exactly; anything else is refused with a located error. "
            "Generated by scripts/gen_substrait_dialect.py from the front-end's tables.",
            "root_commands": ["WRITE (insert, CTAS) as the plan's root"],
            "producer_spellings": producer,
        },
        "dependencies": {stem: f"extension:io.substrait:{stem}" for stem in files},
        "supported_types": types,
        "supported_relations": [v for k, v in _RELATIONS.items() if k in RELATIONS],
        "supported_expressions": [v for k, v in _EXPRESSIONS.items() if k in EXPRESSIONS],
        "supported_scalar_functions": functions["scalar"],
        "supported_aggregate_functions": functions["aggregate"],
        "supported_window_functions": functions["window"],
    }


def render() -> str:
    import yaml

    head = "# connect_plan's Substrait dialect: generated by scripts/gen_substrait_dialect.py; do not edit\n"
    return head + yaml.safe_dump(dialect(), sort_keys=False, allow_unicode=True, width=100)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = ap.parse_args()
    text = render()
    if args.check:
        return 0 if OUT.exists() and OUT.read_text(encoding="utf-8") == text else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
