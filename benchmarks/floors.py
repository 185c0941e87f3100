"""The least work any Python translator must do for the translation scenario's plan, measured
beside connect_plan's translation: a floor under its ratio to PySpark (issue 17 asks 0.05×).

* :func:`walk_json` visits every dict, list and value of the JSON plan once and checks
  nothing: reading the input.
* :func:`build_plan` builds the very ``pb.Plan`` ``connect_plan.translate`` returns for
  :func:`benchmarks.workloads.translation_plan`, message by message from Python (each
  submessage reached and each field set once, top-down so nothing is copied; runs of filters
  and withColumns merged as translate merges them); the scenario asserts the two are equal.
  The input's local relation is copied in whole: it is the input's cost, not the plan's.

Any translator reads its input and builds its output, so no validation, analysis or error
reporting at all would still cost their sum.
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
    """The relations translate emits, innermost first: runs of filters (their conditions),
    of withColumns with distinct names, and each select."""
    out: list[tuple[str, list[Any]]] = []
    for step in steps:
        op, payload = step["op"], step["payload"]
        if op == "filter":
            if out and out[-1][0] == "filter":
                out[-1][1].append(payload)
            else:
                out.append(("filter", [payload]))
        elif op == "withColumn":
            if out and out[-1][0] == "with" and payload["name"] not in {n for n, _ in out[-1][1]}:
                out[-1][1].append((payload["name"], payload["expr"]))
            else:
                out.append(("with", [(payload["name"], payload["expr"])]))
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
        c = conds[lo]
        _binary(">", c["left"]["col"], c["right"]["lit"], out)
        return
    mid = lo + (hi - lo) // 2
    fn = out.unresolved_function
    fn.function_name = "and"
    _conjunction(conds, lo, mid, fn.arguments.add())
    _conjunction(conds, mid, hi, fn.arguments.add())


def build_plan(steps: list[dict[str, Any]], local: Any) -> Any:
    from connect_plan.spark_proto import pb

    out = pb.Plan()
    rel = out.root
    chain = _runs(steps)
    for plan_id in range(len(chain), 0, -1):
        kind, items = chain[plan_id - 1]
        rel.common.plan_id = plan_id
        if kind == "filter":
            f = rel.filter
            _conjunction(items, 0, len(items), f.condition)
            rel = f.input
        elif kind == "with":
            wc = rel.with_columns
            for name, expr in items:
                alias = wc.aliases.add()
                alias.name.append(name)
                a, b = expr["args"]
                _binary("+", a["col"], b["lit"], alias.expr)
            rel = wc.input
        else:
            exprs = rel.project.expressions
            for name in items:
                exprs.add().unresolved_attribute.unparsed_identifier = name
            rel = rel.project.input
    rel.common.plan_id = 0
    rel.local_relation.CopyFrom(local)
    return out
