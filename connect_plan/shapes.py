"""Walkers over plain trees (dicts, lists, scalars) given as Python objects: base layer.

Plans and row values given as Python objects (not JSON text) may contain a container twice
(shared) or inside itself (a cycle), and strings that are not valid UTF-8 (lone
surrogates). These walkers find such trees cheaply, so that the JSON front-end and the row
converter (:mod:`connect_plan.data`) can locate the problem instead of looping or copying
without bound. They know no plan syntax.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .limits import CHEAP_CELL_NODES, MAX_SHARED_EXPANSION

__all__ = [
    "JSON_SCALARS",
    "container_problem",
    "cycle_location",
    "encodable",
    "keys_encodable",
    "plain_tree_encodable",
    "shape",
    "shape_problem",
]

JSON_SCALARS = frozenset({int, float, bool, type(None)})


def plain_tree_encodable(raw: Any, budget: int) -> bool:
    """True when ``raw`` is plain JSON containers of fewer than ``budget`` nodes (each use of
    a shared one counted) whose strings and keys are all valid UTF-8; False when anything
    needs a closer look (a bad string, a container subclass, too many nodes, a container
    inside itself).

    A container inside itself would keep this walk going until the budget runs out (8
    million nodes, seconds of CPU), so every :data:`_SAMPLE_EVERY`-th container visited is
    remembered by identity (remembering each doubled the cost of this walk on a million
    small lists; sampling adds about 15%). Past its entry, a walk that loops repeats the
    same visits lap after lap, so a sampled container comes back within ``_SAMPLE_EVERY``
    laps. A container met again is shared or inside itself;
    :func:`shape` tells which, once, and counts every use: a loop, or reuse past the
    budget, is handed over at once, while reuse within it is walked on as before.
    """
    stack = [raw]
    pop, extend = stack.pop, stack.extend
    limit = budget
    sampled: set[int] = set()
    visits = 0
    next_sample = _SAMPLE_EVERY  # -1 once sharing is known not to loop: sample no more
    while stack:
        node = pop()
        kind = type(node)
        if kind is str:
            if not node.isascii() and not encodable(node):
                return False
        elif kind in JSON_SCALARS:  # before isinstance on an ABC, which is slow
            continue
        elif kind is dict or kind is list or kind is tuple:
            budget -= len(node)
            if budget < 0:
                return False
            visits += 1
            if visits == next_sample:
                next_sample += _SAMPLE_EVERY
                before = len(sampled)
                sampled.add(id(node))  # every container stays alive inside raw: ids are not reused
                if len(sampled) == before:  # met again: shared, or inside itself
                    expanded = shape(raw)[1]  # -1 for a loop
                    if expanded < 0 or expanded - 1 > limit:
                        return False
                    next_sample = -1
            if kind is dict:
                try:
                    ascii_keys = "".join(node).isascii()  # string keys, all ASCII: at C speed
                except TypeError:
                    ascii_keys = False
                if not ascii_keys and not keys_encodable(node):
                    return False
                extend(node.values())
            else:
                extend(node)
        elif isinstance(node, (str, Mapping, list, tuple)):
            return False
    return True


#: :func:`plain_tree_encodable` remembers every this many containers it visits
_SAMPLE_EVERY = 16


def shape_problem(expanded: int, distinct: int, tree: str, part: str) -> tuple[str, str] | None:
    """``(code, message)`` when :func:`shape`'s counts say a container contains itself or
    expands past :data:`MAX_SHARED_EXPANSION` through reuse; ``tree``/``part`` name what it is."""
    if expanded < 0:
        return "cyclic_plan", f"this list or object contains itself; {tree} must be a tree (as JSON text always is)"
    if expanded - distinct > MAX_SHARED_EXPANSION:
        return "plan_too_large", (
            f"lists or objects used in several places expand {part} to {expanded:,} values "
            f"from {distinct:,} distinct ones; every use is translated again, and connect_plan accepts at most "
            f"{MAX_SHARED_EXPANSION:,} values more than the distinct ones (reuse fewer nested objects)"
        )
    return None


def container_problem(value: Any) -> tuple[str, str] | None:
    """What is wrong with a list or object given as a row value (Python data, not JSON
    text): it contains itself, or reuse expands it without bound. Converting it copies every
    use (pyarrow, ``json.dumps`` for a string column), so a few nested reuses would ask for
    gigabytes, and a cycle never ends. One cheap walk for the usual small plain tree (a
    bigger one, or one that reuses, takes the walk that counts reuse)."""
    if plain_tree_encodable(value, CHEAP_CELL_NODES):
        return None
    _, expanded, distinct = shape(value)
    return shape_problem(expanded, distinct, "a value", "this value")


def shape(raw: Any) -> tuple[bool, int, int]:
    """One walk over plain containers: ``(every string and key is valid UTF-8, node count
    with each use of a shared list or object counted again, distinct node count)``; the
    count is -1 when a list or object contains itself.

    Plans given as Python objects may reuse one dict or list in several places, which is
    fine until the reuse nests: every use is parsed and emitted again, so a few shared
    levels expand to billions of nodes, and a container that contains itself never ends.
    JSON text can have neither. Sizes of finished containers are remembered by identity
    (all of them stay alive during the walk), so the walk is linear in distinct nodes.
    """
    if not isinstance(raw, (Mapping, list, tuple)):
        return (not isinstance(raw, str) or raw.isascii() or encodable(raw)), 1, 1
    all_encodable = keys_encodable(raw)
    finished: dict[int, int] = {}
    on_path = {id(raw)}
    distinct = 1
    # frames: [container, iterator over its values, expanded size so far]
    stack: list[list[Any]] = [[raw, iter(raw.values() if isinstance(raw, Mapping) else raw), 1]]
    while True:
        frame = stack[-1]
        for child in frame[1]:
            kind = type(child)
            if kind in JSON_SCALARS:  # the usual leaves, without isinstance on an ABC
                distinct += 1
                frame[2] += 1
            elif kind is str or isinstance(child, str):
                distinct += 1
                frame[2] += 1
                if not child.isascii() and not encodable(child):
                    all_encodable = False
            elif kind is dict or kind is list or isinstance(child, (Mapping, list, tuple)):
                cid = id(child)
                size = finished.get(cid)
                if size is not None:
                    frame[2] += size
                    continue
                if cid in on_path:
                    return all_encodable, -1, distinct
                on_path.add(cid)
                distinct += 1
                if kind is dict or (kind is not list and isinstance(child, Mapping)):
                    all_encodable = keys_encodable(child) and all_encodable
                    stack.append([child, iter(child.values()), 1])
                else:
                    stack.append([child, iter(child), 1])
                break
            else:
                distinct += 1
                frame[2] += 1
        else:
            stack.pop()
            node_id = id(frame[0])
            on_path.discard(node_id)
            finished[node_id] = frame[2]
            if not stack:
                return all_encodable, frame[2], distinct
            stack[-1][2] += frame[2]


def keys_encodable(node: Any) -> bool:
    if not isinstance(node, Mapping):
        return True
    try:
        if "".join(node).isascii():  # string keys, all ASCII: the usual case, at C speed
            return True
    except TypeError:  # a key that is not a string (the parser reports it where it matters)
        pass
    return all(not isinstance(k, str) or k.isascii() or encodable(k) for k in node)


def cycle_location(raw: Any, loc: str) -> str:
    """The location of the first list or object found inside itself (``raw`` has one)."""
    on_path: set[int] = set()
    done: set[int] = set()
    stack: list[tuple[Any, str, bool]] = [(raw, loc, False)]
    while stack:
        node, at, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            done.add(id(node))
            continue
        if id(node) in on_path:
            return at
        if id(node) in done:
            continue
        on_path.add(id(node))
        stack.append((node, at, True))
        items = node.items() if isinstance(node, Mapping) else enumerate(node)
        stack.extend((v, f"{at}/{k}", False) for k, v in items if isinstance(v, (Mapping, list, tuple)))
    return loc


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
