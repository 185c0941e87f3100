"""connect_plan.records: what a record class gets from its base is what ``dataclasses`` would
have generated for it (``dataclasses`` is the oracle: the records were plain dataclasses).
Every dataclass of the package has a dataclass ``repr`` and the equality it declares."""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import connect_plan
from connect_plan.records import Record, Value

_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3)),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=2),
    max_leaves=4,
)


def _pair(*, frozen: bool) -> tuple[type, type]:
    """The same class twice, with the same qualified name: a plain dataclass, and one over
    our bases. Fields cover a defaulted one, one left out of the repr, and one not compared."""

    def make(ours: bool) -> type:
        base: tuple[type, ...] = ((Value if frozen else Record),) if ours else ()
        options: dict[str, Any] = {"frozen": frozen}
        if ours:
            options.update(eq=False, repr=False)

        class Node(*base):  # type: ignore[misc]
            a: Any
            b: Any = 0
            hidden: Any = field(default=None, repr=False)
            ignored: Any = field(default=None, compare=False)

        return dataclass(**options)(Node)

    return make(False), make(True)


_FROZEN = _pair(frozen=True)
_MUTABLE = _pair(frozen=False)


@settings(max_examples=300, deadline=None)
@given(x=st.tuples(_VALUE, _VALUE, _VALUE, _VALUE), y=st.tuples(_VALUE, _VALUE, _VALUE, _VALUE))
def test_a_value_compares_hashes_and_prints_as_a_frozen_dataclass(x: tuple[Any, ...], y: tuple[Any, ...]) -> None:
    plain, ours = _FROZEN
    px, py, ox, oy = plain(*x), plain(*y), ours(*x), ours(*y)
    assert repr(ox) == repr(px)
    assert (ox == oy) == (px == py)
    assert (ox != oy) == (px != py)
    assert (ox == ox) == (px == px)  # an object holding a NaN equals itself
    assert hash(ox) == hash(px)
    assert hash(ox) == hash(ours(*x))
    # a different class is never equal, as a dataclass's __eq__ returns NotImplemented
    assert ox != px and px != ox
    assert ox.__eq__(px) is NotImplemented


@settings(max_examples=100, deadline=None)
@given(x=st.tuples(_VALUE, _VALUE, _VALUE, _VALUE))
def test_a_record_prints_as_a_dataclass_and_compares_by_identity(x: tuple[Any, ...]) -> None:
    plain, ours = _MUTABLE
    assert repr(ours(*x)) == repr(plain(*x))
    one, two = ours(*x), ours(*x)
    assert one == one and one != two
    assert hash(one) == object.__hash__(one)


def test_frozen_values_stay_frozen_and_keep_dataclass_helpers() -> None:
    _, ours = _FROZEN
    node = ours(1, 2)
    with pytest.raises(FrozenInstanceError):
        node.a = 3
    assert [f.name for f in dataclasses.fields(node)] == ["a", "b", "hidden", "ignored"]
    assert dataclasses.replace(node, b=5) == ours(1, 5)
    assert ours(1, 2, ignored="x") == ours(1, 2, ignored="y")
    assert hash(ours(1, 2, ignored="x")) == hash(ours(1, 2, ignored="y"))
    assert ours(1, 2, hidden="x") != ours(1, 2, hidden="y")


def test_nan_follows_tuple_equality_with_one_compared_field() -> None:
    @dataclass(frozen=True)
    class Plain:
        x: float

    @dataclass(frozen=True, eq=False, repr=False)
    class Ours(Value):
        x: float

    nan = math.nan
    assert (Ours(nan) == Ours(nan)) == (Plain(nan) == Plain(nan)) is True  # the same NaN object
    assert (Ours(nan) == Ours(float("nan"))) == (Plain(nan) == Plain(float("nan"))) is False
    assert hash(Ours(1.5)) == hash(Plain(1.5))


def test_a_recursive_record_prints_without_recursing() -> None:
    @dataclass(eq=False, repr=False)
    class Loop(Record):
        next: Any = None

    loop = Loop()
    loop.next = loop
    assert repr(loop) == "test_a_recursive_record_prints_without_recursing.<locals>.Loop(next=...)"


def _package_dataclasses() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(connect_plan.__path__, "connect_plan."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and obj.__module__ == info.name and dataclasses.is_dataclass(obj):
                found.append(obj)
    return found


def test_every_dataclass_of_the_package_is_declared_over_the_bases() -> None:
    """The convention, for whoever adds a record: ``@dataclass(..., eq=False, repr=False)``
    over :class:`Record` or :class:`Value` (a plain ``@dataclass`` would compile its methods
    again at import). None is left with object's ``repr``, and a frozen one is a
    :class:`Value` unless its docstring says why identity is meant."""
    classes = _package_dataclasses()
    assert len(classes) > 100
    for cls in classes:
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert not params.eq and not params.repr and issubclass(cls, Record), (
            f"{cls}: declare it @dataclass(..., eq=False, repr=False) over connect_plan.records.Record or Value"
        )
        assert cls.__repr__ is not object.__repr__, cls
        if params.frozen and not issubclass(cls, Value):
            assert "identity" in (cls.__doc__ or ""), f"{cls}: frozen, eq=False, not a Value: say why"
