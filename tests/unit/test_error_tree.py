"""The exception tree drawn in connect_plan.errors' docstring is the real class tree."""

from __future__ import annotations

import builtins
import re

import connect_plan.errors as errors


def _drawn() -> dict[str, str | None]:
    """class name → parent name, read from the drawing's indentation."""
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in (errors.__doc__ or "").splitlines():
        m = re.match(r"^\s*((?:[│ ]   )*)(?:[├└]── )?([A-Z][A-Za-z]+Error)\b", line)
        if not m or ("──" not in line and parents):  # continuation lines hold no class
            continue
        depth = len(m.group(1)) // 4 + (1 if "──" in line else 0)
        name = m.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parents[name] = stack[-1][1] if stack else None
        stack.append((depth, name))
    return parents


def _real() -> dict[str, str | None]:
    out: dict[str, str | None] = {"ConnectPlanError": None}
    todo = [errors.ConnectPlanError]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__ == errors.__name__:
                out[sub.__name__] = cls.__name__
                todo.append(sub)
    return out


def test_the_drawn_tree_is_the_class_tree() -> None:
    assert _drawn() == _real()


def test_every_exception_class_is_exported() -> None:
    assert set(_real()) <= set(errors.__all__)


def test_the_drawn_mixins_are_real() -> None:
    """``PlanError (also ValueError)``: the built-in base the drawing names is a real base
    (the drawing may wrap ``(also`` onto the next line)."""
    lines = (errors.__doc__ or "").splitlines()
    column = next(line.index("base of everything") for line in lines if "base of everything" in line)
    left = " ".join(line[:column] for line in lines)  # the names column, without the descriptions
    flat = re.sub(r"\s+", " ", re.sub(r"[│├└─]", " ", left))
    found = re.findall(r"([A-Z][A-Za-z]+Error) \(also ([A-Z][A-Za-z]+Error)\)", flat)
    assert len(found) == 4, found
    for cls, base in found:
        assert issubclass(getattr(errors, cls), getattr(builtins, base)), (cls, base)
