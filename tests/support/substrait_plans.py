"""Small Substrait plans written by hand for the tests that check one rewrite on Spark: a read
of table ``t`` and a projection of ``id`` and one boolean expression per case."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def projection_plan(
    names: Sequence[str],
    types: Sequence[dict[str, Any]],
    expressions: Sequence[dict[str, Any]],
    functions: Sequence[tuple[int, str, str]],
) -> dict[str, Any]:
    """The plan (Substrait JSON) reading ``t`` with columns ``names`` of ``types`` and answering
    ``id, r0, r1, ...``: ``id`` and each of ``expressions``; ``functions`` are the extension
    functions the expressions call, as (anchor, extension URI, compound name)."""
    uris = sorted({uri for _, uri, _ in functions})
    read = {
        "read": {
            "baseSchema": {
                "names": list(names),
                "struct": {"types": list(types), "nullability": "NULLABILITY_REQUIRED"},
            },
            "namedTable": {"names": ["t"]},
        }
    }
    emit = [list(names).index("id"), *range(len(names), len(names) + len(expressions))]
    project = {
        "project": {"common": {"emit": {"outputMapping": emit}}, "input": read, "expressions": list(expressions)}
    }
    return {
        "extensionUris": [{"extensionUriAnchor": k + 1, "uri": uri} for k, uri in enumerate(uris)],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": uris.index(uri) + 1, "functionAnchor": a, "name": name}}
            for a, uri, name in functions
        ],
        "relations": [{"root": {"input": project, "names": ["id", *[f"r{k}" for k in range(len(expressions))]]}}],
    }
