"""connect_plan.records: what a record class gets from its base is what ``dataclasses`` would
have generated for it (``dataclasses`` is the oracle: the records were plain dataclasses).
Every dataclass of the package has a dataclass ``repr`` and the equality it declares."""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import inspect
import math
import pickle
import pkgutil
from dataclasses import FrozenInstanceError, InitVar, dataclass, field
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import connect_plan
from connect_plan.records import Record, Value, _frozen_setattr, frozen

_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3)),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=2),
    max_leaves=4,
)


def _pair(*, kind: str) -> tuple[type, type]:
    """The same class twice, with the same qualified name: a plain dataclass, and one over
    our bases. Fields cover a defaulted one, one left out of the repr, and one not compared."""

    def make(ours: bool) -> type:
        base: tuple[type, ...] = ((Value if is_frozen else Record),) if ours else ()

        class Node(*base):  # type: ignore[misc]
            a: Any
            b: Any = 0
            hidden: Any = field(default=None, repr=False)
            ignored: Any = field(default=None, compare=False)

        if ours and is_frozen:  # as the package declares its frozen records
            return frozen(Node)
        if ours:
            return dataclass(eq=False, repr=False)(Node)
        return dataclass(frozen=is_frozen)(Node)

    is_frozen = kind == "frozen"
    return make(False), make(True)


_FROZEN = _pair(kind="frozen")
_MUTABLE = _pair(kind="mutable")


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

    @frozen
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
    over :class:`Record` or :class:`Value`, or ``@frozen`` for a frozen one (a plain
    ``@dataclass``, or ``frozen=True``, would compile its methods again at import). None is
    left with object's ``repr``, and a frozen one is a :class:`Value` unless its docstring
    says why identity is meant."""
    classes = _package_dataclasses()
    assert len(classes) > 100
    for cls in classes:
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert not params.eq and not params.repr and issubclass(cls, Record), (
            f"{cls}: declare it @dataclass(..., eq=False, repr=False) over connect_plan.records.Record or Value"
        )
        assert cls.__repr__ is not object.__repr__, cls
        if params.frozen:
            assert cls.__dict__.get("__setattr__") is _frozen_setattr, (
                f"{cls}: declare a frozen record @connect_plan.records.frozen, not @dataclass(frozen=True)"
            )
            if not issubclass(cls, Value):
                assert "identity" in (cls.__doc__ or ""), f"{cls}: frozen, eq=False, not a Value: say why"


# ------------------------------------------------------------------ @frozen against frozen=True


def _frozen_pair() -> tuple[type, type]:
    """A frozen dataclass and the same class made by @frozen: a required field, defaults,
    a default_factory, a field left out of __init__ (a default and a factory), a ClassVar,
    and a __post_init__ that normalises a field as frozen classes must (object.__setattr__)."""

    def make(ours: bool) -> type:
        class Node(*((Value,) if ours else ())):  # type: ignore[misc]
            a: Any
            b: Any = 0
            items: list[Any] = field(default_factory=list)
            derived: Any = field(default=None, init=False, compare=False)
            made: list[Any] = field(default_factory=lambda: ["made"], init=False)
            KIND: ClassVar[str] = "node"

            def __post_init__(self) -> None:
                object.__setattr__(self, "derived", (self.a, self.b))

        return frozen(Node) if ours else dataclass(frozen=True)(Node)

    return make(False), make(True)


_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, 2), {}),
    ((1, 2, [3]), {}),
    ((), {"a": 1, "items": [4]}),
    ((1,), {"b": 5}),
    ((), {}),  # missing a
    ((1, 2, [3], 4), {}),  # too many
    ((1,), {"a": 2}),  # a twice
    ((1,), {"derived": 2}),  # not an __init__ field
    ((1,), {"nope": 2}),
]


@pytest.mark.parametrize(("args", "kwargs"), _CALLS)
def test_a_frozen_records_init_is_a_frozen_dataclasses(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    plain, ours = _frozen_pair()
    try:
        expected: Any = plain(*args, **kwargs)
    except TypeError:
        with pytest.raises(TypeError):
            ours(*args, **kwargs)
        return
    got = ours(*args, **kwargs)
    assert {f.name: getattr(got, f.name) for f in dataclasses.fields(got)} == {
        f.name: getattr(expected, f.name) for f in dataclasses.fields(expected)
    }
    assert got.derived == (got.a, got.b) and got.made == ["made"]
    if len(args) < 3 and "items" not in kwargs:
        assert ours(*args, **kwargs).items is not got.items  # a fresh default each time


def test_a_frozen_records_signature_and_helpers_are_a_frozen_dataclasses() -> None:
    plain, ours = _frozen_pair()
    assert str(inspect.signature(ours)) == str(inspect.signature(plain))
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(plain)]
    node = ours(1, 2, [3])
    assert dataclasses.replace(node, b=7) == ours(1, 7, [3])
    assert dataclasses.replace(node, b=7).derived == (1, 7)
    assert dataclasses.is_dataclass(ours) and ours.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert ours.__match_args__ == plain.__match_args__  # type: ignore[attr-defined]
    assert ours.KIND == "node" and "KIND" not in [f.name for f in dataclasses.fields(ours)]


def test_a_frozen_record_refuses_every_assignment_and_deletion() -> None:
    _, ours = _frozen_pair()
    node = ours(1)
    for name in ("a", "items", "derived", "not_a_field"):
        with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(node, name, 9)
        with pytest.raises(FrozenInstanceError, match="cannot delete field"):
            delattr(node, name)
    assert node == ours(1) and not hasattr(node, "not_a_field")


@pytest.mark.parametrize("clone", [copy.copy, copy.deepcopy, lambda n: pickle.loads(pickle.dumps(n))])
def test_a_frozen_record_copies_and_pickles(clone: Any) -> None:
    node = _PICKLED(1, (2, 3))
    again = clone(node)
    assert again == node and again is not node and hash(again) == hash(node)
    with pytest.raises(FrozenInstanceError):
        again.a = 2


@frozen
class _PICKLED(Value):
    """Module level, so pickle finds it."""

    a: int
    b: tuple[int, ...] = ()


def test_subclasses_of_a_frozen_record_follow_dataclasses_rules() -> None:
    _, ours = _frozen_pair()

    @frozen
    class Child(ours):  # type: ignore[misc, valid-type]
        c: Any = "c"

    assert Child(1, c="x").c == "x" and Child(1).derived == (1, 0)
    with pytest.raises(FrozenInstanceError):
        Child(1).c = "y"

    @dataclass(frozen=True)  # a frozen dataclass over a frozen record: as over any frozen base
    class Plain(ours):  # type: ignore[misc, valid-type]
        d: Any = "d"

    assert Plain(1).d == "d"
    with pytest.raises(FrozenInstanceError):
        Plain(1).a = 2
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):

        @dataclass
        class Mutable(ours):  # type: ignore[misc, valid-type]
            e: Any = "e"


def test_frozen_refuses_what_it_does_not_build() -> None:
    class NotARecord:
        a: int

    with pytest.raises(TypeError, match=r"subclasses of connect_plan\.records\.Record"):
        frozen(NotARecord)

    class WithInitVar(Value):
        a: int
        scale: InitVar[int] = 1

    with pytest.raises(TypeError, match="InitVar"):
        frozen(WithInitVar)
    # the same with annotations as objects (a module without ``from __future__ import annotations``)
    evaluated = type("Evaluated", (Value,), {"__annotations__": {"a": int, "scale": InitVar[int]}, "scale": 1})
    with pytest.raises(TypeError, match="InitVar"):
        frozen(evaluated)

    class KeywordOnly(Value):
        a: int = field(kw_only=True)

    with pytest.raises(TypeError, match="keyword-only"):
        frozen(KeywordOnly)

    class Misordered(Value):
        a: int = 0
        b: int

    with pytest.raises(TypeError):
        frozen(Misordered)


def test_cached_properties_work_on_a_frozen_record() -> None:
    @frozen
    class Costly(Value):
        a: int

        @functools.cached_property
        def double(self) -> int:
            return self.a * 2

    node = Costly(2)
    assert node.double == 4 and node.__dict__["double"] == 4 and node == Costly(2)
