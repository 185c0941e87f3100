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

Held to what ``dataclasses`` generates by ``tests/unit/test_records.py``.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any

__all__ = ["Record", "Value"]


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
