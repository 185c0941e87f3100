"""The least work any Python translator must do for the translation scenario's plan, measured
beside connect_plan's translation: a floor under its ratio to PySpark (issue 17 asked 0.05×; issue 34 retired that target for a guard of 0.25×).

* :func:`walk_json` visits every dict, list and value of the JSON plan once and checks
  nothing: reading the input.
* :func:`build_plan` builds the very ``pb.Plan`` ``connect_plan.translate`` returns for
  :func:`benchmarks.workloads.translation_plan`, message by message from Python (each
  submessage reached and each field set once, top-down so nothing is copied; runs of filters
  and withColumns merged as translate merges them); the scenario asserts the two are equal.
  The input's local relation is copied in whole: it is the input's cost, not the plan's.

Any translator reads its input and builds its output, so no validation, analysis or error
reporting at all would still cost their sum.

* :func:`checked_build` is the least a translator held to the project's standards must do
  for that plan: :func:`build_plan` preceded by the checks that make a bad plan a located
  error (unknown keys, unknown operators and functions, column references resolved against
  the schema as each step changes it, literal and name types), specialised to this plan's
  three step kinds (so any general translator costs more). It is not a design: connect_plan
  parses into an IR, analyses and lowers it, for every op and expression the format has.
* :func:`ir_build` is the least a translator shaped as ARCHITECTURE.md asks (front-end → one
  IR → back-end) must do for that plan: the same checks, parsing as they go into
  connect_plan's own IR (the very nodes ``load_plan`` builds, each with its location; a test
  compares them), then lowering those nodes into runs and emitting the same plan. It differs
  from :func:`checked_build` by the IR alone.
"""

from __future__ import annotations

from typing import Any


def walk_json(plan: Any) -> None:
    stack = [plan]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            for value in node.values():
                push(value)
        elif kind is list:
            extend(node)


def _runs(steps: list[dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """The relations translate emits, innermost first: runs of filters (``(function, column,
    value)`` each), of withColumns with distinct names (``(name, function, column, value)``),
    and each select (its names)."""
    out: list[tuple[str, list[Any]]] = []
    for step in steps:
        op, payload = step["op"], step["payload"]
        if op == "filter":
            item: tuple[Any, ...] = (">", payload["left"]["col"], payload["right"]["lit"])
            if out and out[-1][0] == "filter":
                out[-1][1].append(item)
            else:
                out.append(("filter", [item]))
        elif op == "withColumn":
            name, (a, b) = payload["name"], payload["expr"]["args"]
            item = (name, "+", a["col"], b["lit"])
            if out and out[-1][0] == "with" and name not in {n for n, *_ in out[-1][1]}:
                out[-1][1].append(item)
            else:
                out.append(("with", [item]))
        else:
            out.append(("project", payload))
    return out


def _literal(value: Any, lit: Any) -> None:
    if isinstance(value, float):
        lit.double = value
    else:
        lit.integer = value


def _binary(name: str, column: str, value: Any, out: Any) -> None:
    fn = out.unresolved_function
    fn.function_name = name
    args = fn.arguments
    args.add().unresolved_attribute.unparsed_identifier = column
    _literal(value, args.add().literal)


def _conjunction(conds: list[Any], lo: int, hi: int, out: Any) -> None:
    """A balanced ``and`` tree, as translate emits a run of filters."""
    if hi - lo == 1:
        name, column, value = conds[lo]
        _binary(name, column, value, out)
        return
    mid = lo + (hi - lo) // 2
    fn = out.unresolved_function
    fn.function_name = "and"
    _conjunction(conds, lo, mid, fn.arguments.add())
    _conjunction(conds, mid, hi, fn.arguments.add())


def _emit(runs: list[tuple[str, list[Any]]], local: Any) -> Any:
    """The ``pb.Plan`` of :func:`_runs`' relations, top-down (nothing copied but the input)."""
    from connect_plan.spark_proto import pb

    out = pb.Plan()
    rel = out.root
    for plan_id in range(len(runs), 0, -1):
        kind, items = runs[plan_id - 1]
        rel.common.plan_id = plan_id
        if kind == "filter":
            f = rel.filter
            _conjunction(items, 0, len(items), f.condition)
            rel = f.input
        elif kind == "with":
            wc = rel.with_columns
            for name, function, column, value in items:
                alias = wc.aliases.add()
                alias.name.append(name)
                _binary(function, column, value, alias.expr)
            rel = wc.input
        else:
            exprs = rel.project.expressions
            for name in items:
                exprs.add().unresolved_attribute.unparsed_identifier = name
            rel = rel.project.input
    rel.common.plan_id = 0
    rel.local_relation.CopyFrom(local)
    return out


def build_plan(steps: list[dict[str, Any]], local: Any) -> Any:
    return _emit(_runs(steps), local)


# ------------------------------------------------------------------ the checked floor

_STEP_KEYS = frozenset({"op", "payload"})
_COMPARE_KEYS = frozenset({"op", "left", "right"})
_WITH_KEYS = frozenset({"name", "expr"})
_CALL_KEYS = frozenset({"fn", "args"})
_COMPARISONS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<=", "eq": "==", "ne": "!="}
_ARITHMETIC = frozenset({"+", "-", "*", "/"})
_LITERALS = frozenset({int, float})


def _column(
    node: Any, scope: dict[str, str], problems: list[Any], where: tuple[Any, ...], earlier: list[Any] | None = None
) -> str | None:
    """``{"col": name}`` naming a column in scope (Spark's default: case-insensitive), or,
    for a filter (``earlier``), in a scope before it: Spark adds back a column an earlier
    select dropped (ResolveMissingReferences), and so does translate's check."""
    if type(node) is dict and len(node) == 1:
        name = node.get("col")
        if type(name) is str and name.isascii():
            key = name.lower()
            if key in scope or (earlier and any(key in s for s in earlier)):
                return name
    problems.append(where)
    return None


def _number(node: Any, problems: list[Any], where: tuple[Any, ...]) -> Any:
    """``{"lit": number}``: an int or a float (a bool is not a number here)."""
    if type(node) is dict and len(node) == 1:
        value = node.get("lit")
        if type(value) in _LITERALS:
            return value
    problems.append(where)
    return None


def checked_build(steps: Any, columns: list[str], local: Any) -> Any:
    """:func:`build_plan` preceded by the least checking the project's standards ask of any
    translator, specialised to this plan's vocabulary (so it costs less than any general
    translator's): every step and payload is an object with no unknown key, every operator
    and function is a known one, every column reference names a column in scope (tracked
    through each withColumn and select), every literal is a number, every name is text. A
    problem is noted by its position only (so the happy path builds no location strings) and
    every problem is collected; the plan is built only when there are none. Returns the plan,
    or the problems' positions."""
    problems, runs = _checked(steps, columns, through_ir=False)
    return problems or _emit(runs, local)


def ir_parse(steps: Any, columns: list[str]) -> tuple[list[Any], list[Any]]:
    """The checks of :func:`checked_build`, building the IR as it goes: the problems'
    positions, and the very ``connect_plan.ir`` steps ``load_plan`` parses this plan into
    (each node with its location, a JSON pointer), which a test asserts."""
    return _checked(steps, columns, through_ir=True)


def ir_build(steps: Any, columns: list[str], local: Any) -> Any:
    """The least a translator shaped as ARCHITECTURE.md asks does for this plan: the checks
    of :func:`checked_build` parsing into connect_plan's own IR (:func:`ir_parse`: immutable
    nodes, each with its location), then lowering those nodes into runs and emitting the
    same protos (:func:`_emit`). It differs from the checked floor by the IR alone; still
    specialised to this plan's three step kinds, with no catalog, no types and one pass for
    parsing and checking, so any general translator through the IR costs more. Returns the
    plan, or the problems' positions."""
    problems, nodes = _checked(steps, columns, through_ir=True)
    return problems or _emit(_lower(nodes), local)


def _lower(nodes: list[Any]) -> list[tuple[str, list[Any]]]:
    """:func:`_runs` of the IR's steps: runs of filters and of withColumns merged."""
    from connect_plan.ir import Filter, WithColumn

    runs: list[tuple[str, list[Any]]] = []
    for node in nodes:
        kind = type(node)
        if kind is Filter:
            call = node.condition
            column, literal = call.args
            item: tuple[Any, ...] = (call.fn, column.name, literal.value)
            if runs and runs[-1][0] == "filter":
                runs[-1][1].append(item)
            else:
                runs.append(("filter", [item]))
        elif kind is WithColumn:
            call = node.expr
            column, literal = call.args
            name = node.name
            item = (name, call.fn, column.name, literal.value)
            if runs and runs[-1][0] == "with" and name not in {n for n, *_ in runs[-1][1]}:
                runs[-1][1].append(item)
            else:
                runs.append(("with", [item]))
        else:
            runs.append(("project", [selected.expr.name for selected in node.items]))
    return runs


def _checked(steps: Any, columns: list[str], *, through_ir: bool) -> tuple[list[Any], list[Any]]:
    """The checks; with ``through_ir``, the IR's steps, else :func:`_runs`' runs."""
    from connect_plan.ir import Call, Col, Filter, Lit, Select, SelectItem, WithColumn

    problems: list[Any] = []
    if type(steps) is not list:
        return [("plan",)], []
    nodes: list[Any] = []
    # None where a problem was noted (the nodes are then never used)
    name: Any
    fn: Any
    column: Any
    scope = {c.lower(): c for c in columns}
    earlier: list[dict[str, str]] = []  # the scopes before each select
    runs: list[tuple[str, list[Any]]] = []
    for i, step in enumerate(steps):
        if type(step) is not dict or not step.keys() <= _STEP_KEYS:
            problems.append((i,))
            continue
        op, payload = step.get("op"), step.get("payload")
        if op == "filter":
            if type(payload) is not dict or not payload.keys() <= _COMPARE_KEYS:
                problems.append((i, "payload"))
                continue
            compare = payload.get("op")
            name = _COMPARISONS.get(compare) if type(compare) is str else None
            if name is None:
                problems.append((i, "payload", "op"))
            column = _column(payload.get("left"), scope, problems, (i, "payload", "left"), earlier)
            value = _number(payload.get("right"), problems, (i, "payload", "right"))
            if through_ir:
                at = f"/plan/{i}"
                where = at + "/payload"
                condition = Call(name, (Col(column, where + "/left/col"), Lit(value, where + "/right/lit")), where)
                nodes.append(Filter(i, op, at, condition))
            elif runs and runs[-1][0] == "filter":
                runs[-1][1].append((name, column, value))
            else:
                runs.append(("filter", [(name, column, value)]))
        elif op == "withColumn":
            if type(payload) is not dict or not payload.keys() <= _WITH_KEYS:
                problems.append((i, "payload"))
                continue
            new, expr = payload.get("name"), payload.get("expr")
            if type(new) is not str or not new.isascii():
                problems.append((i, "payload", "name"))
                continue
            if type(expr) is not dict or not expr.keys() <= _CALL_KEYS:
                problems.append((i, "payload", "expr"))
                continue
            fn, args = expr.get("fn"), expr.get("args")
            if type(fn) is not str or fn not in _ARITHMETIC:
                problems.append((i, "payload", "expr", "fn"))
            if type(args) is not list or len(args) != 2:
                problems.append((i, "payload", "expr", "args"))
                continue
            column = _column(args[0], scope, problems, (i, "payload", "expr", "args", 0))
            value = _number(args[1], problems, (i, "payload", "expr", "args", 1))
            if through_ir:
                at = f"/plan/{i}"
                where = at + "/payload/expr"
                call = Call(fn, (Col(column, where + "/args/0/col"), Lit(value, where + "/args/1/lit")), where)
                nodes.append(WithColumn(i, op, at, new, call))
                scope[new.lower()] = new
                continue
            item = (new, fn, column, value)
            if runs and runs[-1][0] == "with" and new not in {n for n, *_ in runs[-1][1]}:
                runs[-1][1].append(item)
            else:
                runs.append(("with", [item]))
            scope[new.lower()] = new
        elif op == "select":
            if type(payload) is not list:
                problems.append((i, "payload"))
                continue
            kept: dict[str, str] = {}
            items = []
            for j, name in enumerate(payload):
                if type(name) is str and name.isascii() and name.lower() in scope:
                    kept[name.lower()] = name
                else:
                    problems.append((i, "payload", j))
                if through_ir:
                    where = f"/plan/{i}/payload/{j}"
                    items.append(SelectItem(Col(name, where), None, where))
            if through_ir:
                nodes.append(Select(i, op, f"/plan/{i}", tuple(items)))
            else:
                runs.append(("project", payload))
            earlier.append(scope)
            scope = kept
        else:
            problems.append((i, "op"))
    return problems, nodes if through_ir else runs
