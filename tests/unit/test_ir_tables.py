"""Tables keyed by IR classes cannot drift: the IR's class lists are derived from the classes
themselves, every module-level table keyed by IR classes was checked at import by
``ir.covering`` (an entry for every class, or a class named absent by design) or
``ir.partial`` (extra behaviour for some classes, a default for the rest), and the checks
catch a missing class."""

from __future__ import annotations

import importlib
import pkgutil
import typing
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import pytest

import connect_plan
from connect_plan import ir

#: the families of IR classes a table may be keyed by
FAMILIES = {
    "steps": ir.STEP_CLASSES,
    "expressions": ir.EXPR_CLASSES,
    "sources": ir.SOURCE_CLASSES,
    "outputs": ir.OUTPUT_CLASSES,
}
IR_CLASSES = frozenset(c for family in FAMILIES.values() for c in family)


def _modules() -> list[ModuleType]:
    out = []
    for info in pkgutil.walk_packages(connect_plan.__path__, "connect_plan."):
        if info.name.endswith("__main__"):
            continue
        out.append(importlib.import_module(info.name))
    return out


def _ir_keyed_tables() -> dict[str, Mapping[Any, Any]]:
    """Every module-level dict of the package whose keys are IR classes."""
    found: dict[str, Mapping[Any, Any]] = {}
    for module in _modules():
        for name, value in vars(module).items():
            if isinstance(value, dict) and value and all(isinstance(k, type) and k in IR_CLASSES for k in value):
                found[f"{module.__name__}.{name}"] = value
    return found


def test_every_table_keyed_by_ir_classes_is_checked_at_import() -> None:
    tables = _ir_keyed_tables()  # (imports every module: each registers its tables)
    registered = {id(table): name for name, (table, _, _) in ir.TABLES.items()}
    unchecked = sorted(name for name, table in tables.items() if id(table) not in registered)
    assert unchecked == [], f"wrap these in ir.covering(...) or ir.partial(...): {unchecked}"
    assert len(registered) >= 15, sorted(ir.TABLES)  # drawing, statictypes, translator, policy, ir


def test_each_checked_table_covers_its_family() -> None:
    """Keyed by one family of IR classes; every class of it has an entry or is named absent."""
    _modules()
    for name, (table, classes, absent) in ir.TABLES.items():
        assert classes in FAMILIES.values(), f"{name} is keyed by {classes}"
        assert set(table) | absent == set(classes) and not set(table) & absent, name


def test_the_class_lists_are_derived() -> None:
    """A Step subclass, an Expr, a Source or an Output class cannot be left out of its list."""
    steps = [c for c in vars(ir).values() if isinstance(c, type) and issubclass(c, ir.Step) and c is not ir.Step]
    assert set(steps) == set(ir.STEP_CLASSES) | set(ir.OUTPUT_CLASSES) | {ir.Read}
    assert ir.EXPR_CLASSES == typing.get_args(ir.Expr)
    assert ir.SOURCE_CLASSES == typing.get_args(ir.Source) and ir.OUTPUT_CLASSES == typing.get_args(ir.Output)


def test_covering_catches_a_missing_class_and_a_stray_one() -> None:
    with pytest.raises(RuntimeError, match=r"lacks \['Select'\]"):
        ir.covering({c: 1 for c in ir.STEP_CLASSES if c is not ir.Select}, ir.STEP_CLASSES, "test.missing")
    with pytest.raises(RuntimeError, match=r"has \['Col'\]"):
        ir.covering({**{c: 1 for c in ir.STEP_CLASSES}, ir.Col: 1}, ir.STEP_CLASSES, "test.stray")
    with pytest.raises(RuntimeError, match=r"not of its IR classes"):
        ir.partial({ir.Col: 1}, ir.STEP_CLASSES, "test.partial")
    assert not {"test.missing", "test.stray", "test.partial"} & set(ir.TABLES)
