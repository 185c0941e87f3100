"""The front-end registry: each plan language's shape picks its parser, for load_plan and the
CLI alike, and a new language is one entry of formats.registry.FRONT_ENDS."""

from __future__ import annotations

import json
from typing import Any

import pytest

from connect_plan import cli, ir
from connect_plan.errors import PlanError
from connect_plan.formats import load_plan, registry
from connect_plan.formats.registry import FRONT_ENDS, JSON_PLAN, SUBSTRAIT, FrontEnd, decoded, front_end_of

DOC = {"input": {"range": 3}, "plan": [{"op": "limit", "payload": {"n": 1}}]}
SUBSTRAIT_DOC = {"relations": [{"root": {"input": {"read": {"namedTable": {"names": ["t"]}}}, "names": ["a"]}}]}


def test_every_front_end_has_a_name_a_detect_and_a_parse() -> None:
    assert [f.name for f in FRONT_ENDS] == ["substrait", "json-plan"]
    assert FRONT_ENDS[-1] is JSON_PLAN  # the fallback names whatever else is wrong
    assert [f.staged for f in FRONT_ENDS] == [False, True]


@pytest.mark.parametrize(
    ("raw", "front"),
    [
        (DOC, JSON_PLAN),
        (json.dumps(DOC), JSON_PLAN),
        ([{"op": "limit", "payload": {"n": 1}}], JSON_PLAN),
        (SUBSTRAIT_DOC, SUBSTRAIT),
        (json.dumps(SUBSTRAIT_DOC).encode(), SUBSTRAIT),
        (b"\x12\x04\x0a\x02\x08\x01", SUBSTRAIT),  # binary protobuf (a field tag first)
        (42, JSON_PLAN),  # no language's shape: the fallback's parser says what is wrong
    ],
)
def test_the_shape_picks_the_front_end(raw: Any, front: FrontEnd) -> None:
    assert front_end_of(decoded(raw)) is front


def test_a_new_front_end_is_one_entry_for_load_plan_and_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Any] = []

    def parse(obj: Any, data: Any, schema: Any, tables: Any) -> ir.Plan:
        made.append(obj)
        return ir.Plan(ir.RangeSource(0, obj["toy"], 1, None, "/toy"), (), "")

    toy = FrontEnd("toy", lambda obj: isinstance(obj, dict) and "toy" in obj, parse)
    monkeypatch.setattr(registry, "FRONT_ENDS", (toy, *FRONT_ENDS))
    plan = load_plan({"toy": 5})
    assert isinstance(plan.source, ir.RangeSource) and plan.source.end == 5
    assert cli.documents.validated({"toy": 7}).source.end == 7  # type: ignore[attr-defined]
    assert made == [{"toy": 5}, {"toy": 7}]
    with pytest.raises(PlanError):
        load_plan({"nothing": 1})  # still the JSON plan's to refuse
