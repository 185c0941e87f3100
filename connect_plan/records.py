"""Equality, hashing and ``repr`` for the project's dataclasses, shared instead of generated.

``dataclasses`` compiles every method it generates from source, one ``exec`` each: ~70 µs a
method on Python 3.11, ~40 ms for the ~90 record classes a first ``translate`` loads (the
profile is in ``docs/performance.md``). Records stay dataclasses — the constructor, frozenness,
``fields()`` and ``replace()`` are ``dataclasses``' own — but are declared with ``eq=False,
repr=False`` over one of these bases, which do the same for every class:

- :class:`Record`: ``Name(field=value, ...)`` over the fields declared with ``repr=True``, as
  ``dataclasses`` writes it; equality and hashing stay object identity (``eq=False``).
- :class:`Value`: also ``==`` between two instances of the same class when their compared
  fields are equal in order, compared as tuples like the generated ``__eq__`` does (so an
  object equals itself even when it holds a NaN), and the hash of the same tuple. For frozen
  dataclasses (a mutable value must not be hashed).

Frozen records are declared ``@frozen`` (over either base) instead of
``@dataclass(frozen=True, eq=False, repr=False)``. ``dataclasses`` compiles two more methods
for a frozen class, ``__setattr__`` and ``__delattr__`` (~55 µs each: ~120 of a first
``translate``'s compiles), and its ``__init__`` sets each field with ``object.__setattr__``.
:func:`frozen` makes the class a dataclass with ``init=False``, gives it one shared
``__setattr__`` and ``__delattr__`` that raise ``FrozenInstanceError`` (as a frozen
dataclass's do, for any attribute), and compiles one ``__init__`` with the parameters,
defaults, factories and ``__post_init__`` call the generated one has, which stores the values
in the instance's ``__dict__``: a 4-field record is built in ~250 ns instead of ~525. Its
dataclass parameters say frozen, so ``dataclasses`` accepts a ``@dataclass(frozen=True)``
subclass of it. For type checkers :func:`frozen` is a ``dataclass_transform`` with
``frozen_default=True``: mypy refuses an assignment to a field, as it does for
``frozen=True``.

Held to what ``dataclasses`` generates by ``tests/unit/test_records.py``.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from dataclasses import FrozenInstanceError, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda decorated: decorated


__all__ = ["Record", "Value", "frozen"]

_C = TypeVar("_C", bound=type)


def _compared(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of ``cls``'s compared fields, made once per class and kept on it."""
    try:
        getter: Callable[[Any], tuple[Any, ...]] = cls.__dict__["_compared"]
    except KeyError:
        names = [f.name for f in fields(cls) if f.compare]
        if len(names) > 1:
            getter = attrgetter(*names)
        elif names:
            one = attrgetter(names[0])

            def getter(obj: Any) -> tuple[Any, ...]:
                return (one(obj),)

        else:

            def getter(obj: Any) -> tuple[Any, ...]:
                return ()

        type.__setattr__(cls, "_compared", getter)
    return getter


def _shown(cls: type) -> tuple[str, ...]:
    try:
        names: tuple[str, ...] = cls.__dict__["_shown"]
    except KeyError:
        names = tuple(f.name for f in fields(cls) if f.repr)
        type.__setattr__(cls, "_shown", names)
    return names


class Record:
    """``repr`` of a dataclass declared ``repr=False``, as ``dataclasses`` would write it."""

    __slots__ = ()

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shown(self.__class__))
        return f"{self.__class__.__qualname__}({shown})"


class Value(Record):
    """Equality and hash of a frozen dataclass declared ``eq=False``, by its compared fields."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _compared(self.__class__)
        return compared(self) == compared(other)

    def __hash__(self) -> int:
        return hash(_compared(self.__class__)(self))


class _Factory:
    """An argument left to its field's ``default_factory`` (shown as ``dataclasses`` shows it)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _frozen_init(cls: type) -> Callable[..., None]:
    """The ``__init__`` a frozen dataclass would get: the same parameters (every field with
    ``init=True``, in order, with its default; a ``default_factory`` called when its argument
    is left out), fields with ``init=False`` set to their default, then ``__post_init__``.
    It stores the values in the instance's ``__dict__`` (the generated one calls
    ``object.__setattr__`` per field: ~2x slower). Keyword-only fields and ``InitVar`` are
    not supported (no record has them): refused here with a TypeError naming the class."""
    declared: dict[str, Any] = cls.__dict__["__dataclass_fields__"]
    if any(
        isinstance(f.type, dataclasses.InitVar) or str(f.type).startswith(("InitVar", "dataclasses.InitVar"))
        for f in declared.values()
    ):
        raise TypeError(f"{cls.__qualname__}: @frozen does not support InitVar fields")
    kept = fields(cls)
    params: list[str] = []
    body = ["  __d = self.__dict__"]
    local: dict[str, Any] = {"__factory": _FACTORY}
    for f in kept:
        if f.kw_only is True or f.name in ("self", "__d", "__factory"):
            raise TypeError(f"{cls.__qualname__}.{f.name}: @frozen does not support keyword-only fields or this name")
        default, factory = f.default, f.default_factory
        if factory is not dataclasses.MISSING:
            local[f"__fac_{f.name}"] = factory
        elif default is not dataclasses.MISSING:
            local[f"__dflt_{f.name}"] = default
        if f.init:
            if factory is not dataclasses.MISSING:
                params.append(f"{f.name}=__factory")
                body.append(f"  __d[{f.name!r}] = __fac_{f.name}() if {f.name} is __factory else {f.name}")
            else:
                params.append(f.name if default is dataclasses.MISSING else f"{f.name}=__dflt_{f.name}")
                body.append(f"  __d[{f.name!r}] = {f.name}")
        elif factory is not dataclasses.MISSING:
            body.append(f"  __d[{f.name!r}] = __fac_{f.name}()")
        elif default is not dataclasses.MISSING:
            body.append(f"  __d[{f.name!r}] = __dflt_{f.name}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    names = ", ".join(local)
    text = f"def __make({names}):\n def __init__(self, {', '.join(params)}):\n" + "\n".join(" " + b for b in body)
    text += "\n return __init__"
    namespace: dict[str, Any] = {}
    try:
        exec(text, {}, namespace)
    except SyntaxError as exc:  # a field without a default after one with: as dataclasses says
        raise TypeError(f"{cls.__qualname__}: {exc.msg}") from None
    init: Callable[..., None] = namespace["__make"](**local)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {**{f.name: f.type for f in kept if f.init}, "return": None}
    return init


@dataclass_transform(frozen_default=True, eq_default=False, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: _C) -> _C:
    """``@dataclass(frozen=True, eq=False, repr=False)`` for a :class:`Record` or
    :class:`Value` subclass, with one compiled method instead of three (see the module's
    doc)."""
    if not issubclass(cls, Record):
        raise TypeError(f"{cls.__qualname__}: @frozen is for subclasses of connect_plan.records.Record or Value")
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__qualname__}: @frozen records keep their fields in __dict__ (no __slots__)")
    # A @frozen class's dataclass parameters say frozen (below): what it is, so that a subclass
    # declared @dataclass(frozen=True) is accepted over it, and a non-frozen one refused, as
    # over any frozen dataclass. dataclasses made this class non-frozen (so as not to compile
    # its __setattr__ and __delattr__), and would refuse that over a frozen base: the @frozen
    # bases say so only outside this call (class bodies run under their module's import lock).
    bases = [b for b in cls.__mro__[1:] if b.__dict__.get("__setattr__") is _frozen_setattr]
    for base in bases:
        base.__dict__["__dataclass_params__"].frozen = False
    try:
        made: Any = dataclasses.dataclass(init=False, eq=False, repr=False)(cls)
    finally:
        for base in bases:
            base.__dict__["__dataclass_params__"].frozen = True
    type.__setattr__(made, "__init__", _frozen_init(made))
    type.__setattr__(made, "__setattr__", _frozen_setattr)
    type.__setattr__(made, "__delattr__", _frozen_delattr)
    params = made.__dict__["__dataclass_params__"]
    params.init = params.frozen = True
    return made  # type: ignore[no-any-return]
