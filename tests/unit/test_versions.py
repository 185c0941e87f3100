"""The version table and how a probed version selects features."""

from __future__ import annotations

from connect_plan.inputs import CacheSettings
from connect_plan.versions import FEATURES, parse_version, supports


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

    conf = {"spark.sql.session.localRelationCacheThreshold": "64MB", "spark.sql.session.localRelationChunkSizeRows": "10000"}

    class Placer(InputPlacer):
        def _client_limit(self) -> int:
            return 128 << 20

    for version, chunked in (("4.0.1", False), ("4.1.0", True)):
        placer = Placer(None, lambda f: type("R", (), {"pairs": list(conf.items())})(), lambda v=version: v)
        assert placer.settings().chunked is chunked
        assert CacheSettings.from_conf(conf, 1 << 27).chunked
