"""Substrait plans with lambdas, written by hand (no producer in the corpus writes one: DataFusion
55, DuckDB and Isthmus have no Expression.Lambda), shared by the unit tests of their conversion
(tests/unit/test_substrait_lambdas.py) and their run on Spark against PySpark's own higher-order
functions (tests/integration/test_substrait_conformance.py).

The table: ``k`` (i32), ``arr`` (list of nullable i32, nullable) and ``nested`` (a list of lists),
rows with nulls, empty lists and a null list."""

from __future__ import annotations

from typing import Any

from tests import substrait_testcases as st

#: the functions the plans call: compound name → (anchor, extension URN)
FUNCTIONS = {
    "transform:list_func": (1, "extension:io.substrait:functions_list"),
    "filter:list_func": (2, "extension:io.substrait:functions_list"),
    "any_match:list_func": (3, "extension:io.substrait:functions_list"),
    "all_match:list_func": (4, "extension:io.substrait:functions_list"),
    "multiply:i32_i32": (5, "extension:io.substrait:functions_arithmetic"),
    "add:i32_i32": (6, "extension:io.substrait:functions_arithmetic"),
    "gt:i32_i32": (7, "extension:io.substrait:functions_comparison"),
    "is_null:i32": (8, "extension:io.substrait:functions_comparison"),
}

COLUMNS = ("k", "arr", "nested")
TYPES = ("i32", "list?<i32?>", "list?<list?<i32?>>")
ROWS: list[tuple[Any, ...]] = [
    (1, [1, 2, 3], [[1, 2], [3]]),
    (2, [5, None, 0], [[4, None], []]),
    (3, [], []),
    (4, None, None),
    (5, [None], [None, [7, 8, 9]]),
]


def call(name: str, *args: dict[str, Any], output: str) -> dict[str, Any]:
    anchor = FUNCTIONS[name][0]
    return {
        "scalarFunction": {
            "functionReference": anchor,
            "arguments": [{"value": a} for a in args],
            "outputType": st.type_json(output),
        }
    }


def column(index: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": index}}, "rootReference": {}}}


def param(index: int = 0, steps_out: int = 0) -> dict[str, Any]:
    return {
        "selection": {
            "directReference": {"structField": {"field": index}},
            "lambdaParameterReference": {"stepsOut": steps_out},
        }
    }


def lam(body: dict[str, Any], *types: str) -> dict[str, Any]:
    return {
        "lambda": {
            "parameters": {"types": [st.type_json(t) for t in types], "nullability": "NULLABILITY_REQUIRED"},
            "body": body,
        }
    }


def i32(value: int) -> dict[str, Any]:
    return {"literal": {"i32": value}}


def plan(*expressions: dict[str, Any], names: list[str] | None = None) -> dict[str, Any]:
    """A project of ``expressions`` over the table (its own columns left out)."""
    urns = sorted({u for _, u in FUNCTIONS.values()})
    table = {
        "read": {
            "baseSchema": {"names": list(COLUMNS), "struct": {"types": [st.type_json(t) for t in TYPES]}},
            "virtualTable": {
                "values": [{"fields": [st.literal_json(v, t) for v, t in zip(row, TYPES)]} for row in ROWS]
            },
        }
    }
    n = len(COLUMNS)
    project = {
        "common": {"emit": {"outputMapping": [n + k for k in range(len(expressions))]}},
        "input": table,
        "expressions": list(expressions),
    }
    return {
        "extensionUrns": [{"extensionUrnAnchor": i + 1, "urn": u} for i, u in enumerate(urns)],
        "extensions": [
            {"extensionFunction": {"extensionUrnReference": urns.index(u) + 1, "functionAnchor": a, "name": name}}
            for name, (a, u) in FUNCTIONS.items()
        ],
        "relations": [
            {"root": {"input": {"project": project}, "names": names or [f"c{k}" for k in range(len(expressions))]}}
        ],
    }


def doubled() -> dict[str, Any]:
    """transform(arr, x -> x * 2)"""
    body = call("multiply:i32_i32", param(), i32(2), output="i32?")
    return call("transform:list_func", column(1), lam(body, "i32?"), output="list?<i32?>")


def above_k() -> dict[str, Any]:
    """filter(arr, x -> x > k): the lambda reads a column of the row"""
    body = call("gt:i32_i32", param(), column(0), output="bool?")
    return call("filter:list_func", column(1), lam(body, "i32?"), output="list?<i32?>")


def any_above(n: int) -> dict[str, Any]:
    """any_match(arr, x -> x > n)"""
    body = call("gt:i32_i32", param(), i32(n), output="bool?")
    return call("any_match:list_func", column(1), lam(body, "i32?"), output="bool?")


def all_above(n: int) -> dict[str, Any]:
    """all_match(arr, x -> x > n)"""
    body = call("gt:i32_i32", param(), i32(n), output="bool?")
    return call("all_match:list_func", column(1), lam(body, "i32?"), output="bool?")


def nested_three_deep() -> dict[str, Any]:
    """transform(nested, x -> filter(x, y -> any_match(x, z -> z > y))): each inner lambda reads
    an enclosing one's parameter (steps_out 1)."""
    innermost = call("gt:i32_i32", param(0, 0), param(0, 1), output="bool?")
    match = call("any_match:list_func", param(0, 1), lam(innermost, "i32?"), output="bool?")
    keep = call("filter:list_func", param(0, 0), lam(match, "i32?"), output="list?<i32?>")
    return call("transform:list_func", column(2), lam(keep, "list?<i32?>"), output="list?<list?<i32?>>")
