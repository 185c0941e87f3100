"""The cheap walk of :mod:`connect_plan.shapes` against the counting walk it hands over to.

``plain_tree_encodable`` must say True exactly when the tree is plain, valid UTF-8 and within
its budget with every use of a shared container counted (what :func:`shape` counts), and a
container inside itself must be handed over at once instead of walking the whole budget."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import connect_plan
from connect_plan import PlanError
from connect_plan.limits import CHEAP_WALK_NODES
from connect_plan.shapes import cycle_location, plain_tree_encodable, shape

# a graph of up to 6 containers: each a list or an object whose values are scalars or other
# containers of the graph (by index: any index, so sharing and cycles both occur)
NODES = st.lists(
    st.tuples(
        st.booleans(),
        st.lists(st.one_of(st.integers(0, 5), st.sampled_from(["s", "\ud800", None, 1.5])), max_size=4),
    ),
    min_size=1,
    max_size=6,
)


def _graph(nodes: list[tuple[bool, list[Any]]]) -> Any:
    made: list[Any] = [{} if is_dict else [] for is_dict, _ in nodes]
    for box, (_, kids) in zip(made, nodes):
        values = [made[k % len(made)] if isinstance(k, int) else k for k in kids]
        if isinstance(box, dict):
            box.update((f"k{i}", v) for i, v in enumerate(values))
        else:
            box.extend(values)
    return made[0]


@settings(deadline=None)  # CPU-bound and tiny, but the machine may be loaded
@given(nodes=NODES, slack=st.integers(-3, 3))
def test_the_cheap_walk_agrees_with_the_counting_walk(nodes: list[tuple[bool, list[Any]]], slack: int) -> None:
    raw = _graph(nodes)
    all_encodable, expanded, _ = shape(raw)
    budget = max(expanded - 1 + slack, 0) if expanded >= 0 else 10_000
    expected = expanded >= 0 and all_encodable and expanded - 1 <= budget
    assert plain_tree_encodable(raw, budget) is expected


def _cyclic_plans() -> list[tuple[Any, str]]:
    """Plans that contain themselves in different places of the walk order, and where."""
    inner: dict[str, Any] = {"op": "eq", "left": {"col": "x"}, "right": 1}
    inner["left"] = inner  # the first value: walked last
    first: list[Any] = [{"op": "filter", "payload": inner}]
    long_lap: Any = {"op": "not", "arg": {"col": "x"}}
    tail = long_lap
    for _ in range(5_000):  # a loop 5,000 objects round
        tail["arg"] = {"op": "not", "arg": {"col": "x"}}
        tail = tail["arg"]
    tail["arg"] = long_lap
    middle: list[Any] = ["x", "y"]
    middle.insert(1, middle)
    return [
        (first, "/plan/0/payload/left"),
        ([{"op": "filter", "payload": long_lap}], "/plan/0/payload" + "/arg" * 5_001),
        ([{"op": "select", "payload": middle}], "/plan/0/payload/1"),
    ]


@pytest.mark.parametrize("index", range(3))
def test_a_cyclic_plan_is_refused_at_once_and_located(index: int) -> None:
    plan, where = _cyclic_plans()[index]
    start = time.process_time()
    assert not plain_tree_encodable(plan, CHEAP_WALK_NODES)
    # it walked all 8,000,000 nodes of the budget first: 1-3 s of CPU per call
    assert time.process_time() - start < 0.5
    assert cycle_location(plan, "/plan") == where
    start = time.process_time()
    with pytest.raises(PlanError) as info:
        connect_plan.translate([[1]], [("x", "int")], plan)
    assert time.process_time() - start < 1
    assert [(d.code, d.loc) for d in info.value.details] == [("cyclic_plan", where)]
    assert "this list or object contains itself; a plan must be a tree" in str(info.value)


def test_a_shared_plan_below_the_budget_is_still_walked_with_every_use_counted() -> None:
    """Reuse is not a loop: a plan that reuses one object passes the cheap walk while its
    expansion (every use counted) is within the budget, as before; past it, the cheap walk
    hands over without walking every use."""
    expr: Any = {"col": "x"}
    for _ in range(12):  # 2**12 uses of the column
        expr = {"op": "+", "left": expr, "right": expr}
    _, expanded, distinct = shape(expr)
    assert distinct < 40 and expanded > 16_000
    assert plain_tree_encodable(expr, expanded - 1)
    assert not plain_tree_encodable(expr, expanded - 2)
    shared = connect_plan.translate([[1]], [("x", "int")], [{"op": "select", "payload": [{"name": "y", "expr": expr}]}])
    assert shared is not None
    for _ in range(18):  # 2**30 uses: past the budget, found by counting, not by walking them
        expr = {"op": "+", "left": expr, "right": expr}
    start = time.process_time()
    assert not plain_tree_encodable(expr, CHEAP_WALK_NODES)
    assert time.process_time() - start < 0.5
    # translate refuses it as plan_too_large: test_fuzz.test_reused_objects_may_not_expand_a_plan_without_bound


def test_a_deeply_nested_plan_is_walked_without_recursion() -> None:
    deep: Any = {"col": "x"}
    for _ in range(20_000):
        deep = {"op": "not", "arg": deep}
    assert plain_tree_encodable(deep, CHEAP_WALK_NODES)
    assert not plain_tree_encodable(deep, 20_000)  # 20,001 values below the top
    deep_list: Any = "\ud800"
    for _ in range(20_000):
        deep_list = [deep_list]
    assert not plain_tree_encodable(deep_list, CHEAP_WALK_NODES)
    assert shape(deep_list) == (False, 20_001, 20_001)
