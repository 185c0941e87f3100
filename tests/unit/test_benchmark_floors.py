"""The translation scenario's floors (benchmarks/floors.py) are what they claim: each builds
the very plan ``translate`` builds, the checked floor and the IR floor reject what
``translate`` rejects, at the same place, so their costs are floors under a translator held
to the project's standards and not under one that checks nothing, and the IR floor parses
into the very IR ``load_plan`` does, so its cost is a floor under a translator through
connect_plan's IR."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import connect_plan
from benchmarks import floors
from benchmarks import workloads as w
from benchmarks.scenarios import _arrow_table
from connect_plan.formats import load_plan

TABLE = _arrow_table(w.SMALL_ROWS)
LOCAL = connect_plan.translate(TABLE, None, []).root.local_relation


@pytest.mark.parametrize("n", [1, 9, 10, 23, 100])
def test_the_floors_build_what_translate_builds(n: int) -> None:
    plan = w.translation_plan(n)
    expected = connect_plan.translate(TABLE, None, plan)
    assert floors.build_plan(plan, LOCAL) == expected
    assert floors.checked_build(plan, TABLE.column_names, LOCAL) == expected
    assert floors.ir_build(plan, TABLE.column_names, LOCAL) == expected


@pytest.mark.parametrize("n", [1, 10, 23])
def test_the_ir_floor_parses_into_the_ir_load_plan_makes(n: int) -> None:
    """Node for node: IR nodes compare every field, their locations included."""
    plan = w.translation_plan(n)
    problems, steps = floors.ir_parse(plan, TABLE.column_names)
    assert problems == []
    assert tuple(steps) == load_plan(plan, TABLE, None).steps
    assert [s.loc for s in steps] == [f"/plan/{i}" for i in range(n)]


CHECKED_FLOORS = {"checked floor": floors.checked_build, "IR floor": floors.ir_build}


def _set(path: tuple[Any, ...], value: Any) -> Callable[[list[Any]], None]:
    def mutate(plan: list[Any]) -> None:
        node: Any = plan
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


MUTATIONS: dict[str, Callable[[list[Any]], None]] = {
    "unknown column": _set((3, "payload", "left"), {"col": "nope"}),
    "unknown key in a step": _set((2, "extra"), 1),
    "unknown key in a payload": _set((7, "payload", "extra"), 1),
    "unknown op": _set((4, "op"), "filtre"),
    "unknown comparison": _set((1, "payload", "op"), "gtt"),
    "unhashable comparison": _set((1, "payload", "op"), ["gt"]),
    "unknown function": _set((6, "payload", "expr", "fn"), "plus"),
    "a name that is not text": _set((5, "payload", "name"), 3),
    "select of an unknown column": lambda plan: plan[9]["payload"].append("zz"),
    "a column no step made": lambda plan: plan.insert(
        10, {"op": "filter", "payload": {"op": "gt", "left": {"col": "w9"}, "right": {"lit": 1}}}
    ),
    "a withColumn over a column the select dropped": _set((15, "payload", "expr", "args", 0), {"col": "w3"}),
}


@pytest.mark.parametrize("floor", list(CHECKED_FLOORS))
@pytest.mark.parametrize("name", list(MUTATIONS))
def test_the_checked_floors_reject_what_translate_rejects_at_the_same_place(name: str, floor: str) -> None:
    plan = w.translation_plan(20)
    MUTATIONS[name](plan)
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(TABLE, None, plan)
    problems = CHECKED_FLOORS[floor](plan, TABLE.column_names, LOCAL)
    assert isinstance(problems, list) and len(problems) == 1
    ours = "/plan/" + "/".join(str(p) for p in problems[0])
    (theirs,) = info.value.locs
    assert theirs.startswith(ours) or ours.startswith(theirs), (ours, theirs)


@pytest.mark.parametrize("floor", list(CHECKED_FLOORS))
def test_the_checked_floors_report_every_problem(floor: str) -> None:
    plan = w.translation_plan(30)
    for mutate in (MUTATIONS["unknown column"], MUTATIONS["unknown function"], MUTATIONS["unknown op"]):
        mutate(plan)
    plan[25]["payload"]["left"] = {"col": "gone"}
    assert [p[0] for p in CHECKED_FLOORS[floor](plan, TABLE.column_names, LOCAL)] == [3, 4, 6, 25]


def test_a_filter_may_name_a_column_an_earlier_select_dropped() -> None:
    """Spark adds it back (ResolveMissingReferences): both accept it, and build alike."""
    plan = w.translation_plan(20)
    plan.insert(10, {"op": "filter", "payload": {"op": "gt", "left": {"col": "W3"}, "right": {"lit": 1}}})
    expected = connect_plan.translate(TABLE, None, plan)
    assert floors.checked_build(plan, TABLE.column_names, LOCAL) == expected
    assert floors.ir_build(plan, TABLE.column_names, LOCAL) == expected
