"""The version table and how a probed version selects features."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import connect_plan
from connect_plan.fixtures import plan_document
from connect_plan.inputs import CacheSettings
from connect_plan.versions import FEATURES, MINIMUM, Feature, check_server, parse_version, supports
from tests.protocol_audit import VERSIONS, has_field, not_understood


def test_parse_version() -> None:
    assert parse_version("4.1.0") == (4, 1)
    assert parse_version("3.5.6-SNAPSHOT") == (3, 5)
    assert parse_version("") is None and parse_version("dev") is None


def test_supports_by_version() -> None:
    assert supports("4.1.2", "chunked_cached_local_relation")
    assert not supports("4.0.1", "chunked_cached_local_relation")
    assert supports("3.5.0", "cached_local_relation") and not supports("3.4.1", "cached_local_relation")
    assert supports(None, "chunked_cached_local_relation")  # unknown: assume a current server
    assert all(f.since >= (3, 4) for f in FEATURES.values())


def test_chunked_relations_are_dropped_for_an_older_server() -> None:
    from connect_plan.inputs import InputPlacer

    conf = {
        "spark.sql.session.localRelationCacheThreshold": "64MB",
        "spark.sql.session.localRelationChunkSizeRows": "10000",
    }

    class Placer(InputPlacer):
        def _client_limit(self) -> int:
            return 128 << 20

    for version, chunked in (("4.0.1", False), ("4.1.0", True)):
        placer = Placer(None, lambda f: list(conf.items()), lambda v=version: v)
        assert placer.settings().chunked is chunked
        assert CacheSettings.from_conf(conf, 1 << 27).chunked


# ------------------------------------------------------------------ the protocol, per release

ROOT = Path(__file__).resolve().parent.parent


def _corpus() -> dict[str, Any]:
    """Protos the translator builds: every translatable plan fixture and example, and the
    commands (writes, views) of the fixtures' setups and outputs."""
    out: dict[str, Any] = {}
    paths = sorted((ROOT / "fixtures" / "plans").glob("*.json")) + sorted((ROOT.parent / "examples").glob("*.json"))
    for path in paths:
        doc = json.loads(path.read_text())
        if doc.get("expected", {}).get("error", {}).get("kind") == "plan":
            continue
        docs = [plan_document(doc), *(s for s in doc.get("setup", []) if isinstance(s, dict))]
        for i, d in enumerate(docs):
            try:
                out[f"{path.stem}/{i}"] = connect_plan.translate(None, None, d)
            except connect_plan.PlanError as exc:  # a table's columns: only the server knows them
                assert exc.codes == ("needs_schema",) * len(exc.codes), (path, exc)
    inline = {
        "schema": [
            {"name": "id", "type": "bigint"},
            {"name": "arr", "type": "array<int>"},
            {"name": "s", "type": "struct<a:int>"},
        ],
        "rows": [[1, [1, 2], {"a": 1}]],
    }
    for name, plan in EXTRA_PLANS.items():
        out[f"extra/{name}"] = connect_plan.translate(None, None, {"input": inline, "plan": plan})
    return out


#: expression kinds the fixtures do not use
EXTRA_PLANS: dict[str, list[Any]] = {
    "windows": [
        {
            "op": "withColumn",
            "payload": {
                "name": "w",
                "expr": {
                    "fn": "sum",
                    "args": ["id"],
                    "window": {"partition_by": ["id"], "order_by": ["id"], "rows_between": [-1, "currentRow"]},
                },
            },
        },
        {
            "op": "withColumn",
            "payload": {
                "name": "r",
                "expr": {
                    "fn": "rank",
                    "window": {"order_by": [{"col": "id", "desc": True}], "rangeBetween": [None, 5]},
                },
            },
        },
    ],
    "lambdas": [
        {
            "op": "select",
            "payload": [
                {
                    "name": "t",
                    "expr": {
                        "fn": "transform",
                        "args": ["arr", {"lambda": {"params": ["x"], "body": {"op": "+", "left": "x", "right": "id"}}}],
                    },
                },
                {
                    "name": "a",
                    "expr": {
                        "fn": "aggregate",
                        "args": [
                            "arr",
                            0,
                            {"lambda": {"params": ["acc", "x"], "body": {"op": "+", "left": "acc", "right": "x"}}},
                        ],
                    },
                },
            ],
        }
    ],
    "generators_fields_casts": [
        {
            "op": "select",
            "payload": [
                {"name": "e", "expr": {"fn": "explode", "args": ["arr"]}},
                "s.a",
                {"name": "g", "expr": {"fn": "getItem", "args": ["arr", 0]}},
                {"name": "c", "expr": {"fn": "cast", "args": ["id", "decimal(10,2)"]}},
                {"name": "d", "expr": {"lit": "2024-01-01", "type": "timestamp"}},
            ],
        }
    ],
    "relations": [
        {"op": "sample", "payload": {"fraction": 0.5, "seed": 1}},
        {"op": "hint", "payload": {"name": "repartition", "parameters": [2]}},
        {"op": "sortWithinPartitions", "payload": ["id"]},
        {"op": "fetch", "payload": {"offset": 1, "count": 2}},
        {"op": "tail", "payload": 1},
        {"op": "coalesce", "payload": 1},
        {"op": "drop", "payload": ["s"]},
        {"op": "distinct"},
    ],
}


CORPUS = _corpus()


def test_the_protocol_of_every_release_is_on_file() -> None:
    assert VERSIONS == ((3, 5), (4, 0), (4, 1), (4, 2))
    assert len(CORPUS) > 100


@pytest.mark.parametrize("feature", list(FEATURES.values()), ids=list(FEATURES))
def test_each_feature_appears_in_the_release_it_claims(feature: Feature) -> None:
    """A feature's proto field exists from its 'since' release on and not before."""
    message, field = feature.proto.rsplit(".", 1)
    for version in VERSIONS:
        assert has_field(version, message, field) is (version >= feature.since), (feature, version)


def test_a_minimum_server_understands_every_proto_the_translator_builds() -> None:
    """Parsed with the oldest supported release's descriptors (as that server parses
    requests), nothing the translator builds is an unknown field or enum value."""
    problems = {name: not_understood(proto, MINIMUM) for name, proto in CORPUS.items()}
    assert {k: v for k, v in problems.items() if v} == {}


def test_a_35_server_would_silently_ignore_required_features() -> None:
    """Why 3.5 is refused: what it would not understand, each a required feature newer
    than it, and renames (which it would drop without an error) among them."""
    seen: set[str] = set()
    for proto in CORPUS.values():
        seen.update(not_understood(proto, (3, 5)))
    assert seen == {
        "WithColumnsRenamed.renames",
        "Aggregate.grouping_sets",
        "Aggregate.group_type=GROUP_TYPE_GROUPING_SETS",
        "SQL.named_arguments",
        "SQL.pos_arguments",
    }
    required = {f.proto for f in FEATURES.values() if not f.optional and f.since > (3, 5)}
    assert {p.split("=")[0].replace("group_type", "grouping_sets") for p in seen} <= required


def test_older_servers_are_refused_naming_what_they_lack() -> None:
    with pytest.raises(connect_plan.UnsupportedServerError) as info:
        check_server("3.5.1")
    text = str(info.value)
    assert "3.5.1" in text and "4.0 or later" in text
    assert "WithColumnsRenamed.renames" in text and "SQL.named_arguments" in text and "Aggregate.grouping_sets" in text
    assert "chunked" not in text  # optional features are not a reason
    for ok in ("4.0.0", "4.1.2", "4.3.0", "5.0.0-preview", "", None, "dev"):
        check_server(ok)
