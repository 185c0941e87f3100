"""Plans drawn as trees: Graphviz DOT, Mermaid, SVG and PNG.

:func:`draw_plan` makes a :class:`PlanDrawing` of a parsed plan (:mod:`connect_plan.ir`):
one node per source, step and output, named by its op and its key arguments, with the
columns it outputs where they are known statically (the translator's analysis, no server),
data flowing down. Sub-plans (a join's right side, a union's other input, shared ``with``
definitions, a subquery's plan through a node of its kind) are drawn into the same tree; a step that failed (a ``ServerError``'s
``op_index``) can be highlighted. :func:`spark_trees` adds Spark's optimized logical and
physical plans, parsed from the server's explain text, as more trees.

Formats: ``dot`` and ``mermaid`` are text and need nothing (GitHub and Jupyter render
Mermaid in Markdown); ``svg`` and ``png`` are drawn by graphviz-pure, a dependency that pip
installs (Graphviz's layout as one static program with its own fonts: no system package), or
by the program ``$CONNECT_PLAN_GRAPHVIZ`` names (a system Graphviz's ``dot``). In a notebook a
drawing displays itself (``_repr_svg_``, and ``_repr_markdown_`` as Mermaid).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from . import ir
from .errors import ConnectPlanError
from .records import Value, frozen
from .translator.relations import subqueries_in
from .types import type_string

__all__ = [
    "EXPR_TEXT",
    "FORMATS",
    "OUTPUT_TEXT",
    "PNG_DPI",
    "PROGRAM_ENV",
    "SOURCE_TEXT",
    "STEP_DETAILS",
    "DrawingError",
    "Node",
    "PlanDrawing",
    "Tree",
    "draw_plan",
    "expr_text",
    "graphviz_program",
    "parse_spark_plan",
    "spark_trees",
]

#: what :meth:`PlanDrawing.render` makes: format → (binary, needs Graphviz)
FORMATS: dict[str, tuple[bool, bool]] = {
    "dot": (False, False),
    "mermaid": (False, False),
    "svg": (False, True),
    "png": (True, True),
}

#: labels longer than this are cut (with an ellipsis)
MAX_LABEL = 70
#: columns listed on a node before "+N more"
MAX_COLUMNS = 8
#: Spark's explain sections drawn by --analyzed, in order
SPARK_SECTIONS = ("Optimized Logical Plan", "Physical Plan")


class DrawingError(ConnectPlanError):
    """A picture could not be made (Graphviz missing, an unknown format)."""


@frozen
class Node(Value):
    id: str
    #: the op (or Spark operator) and, on a second line, its key arguments
    title: str
    detail: str = ""
    columns: tuple[str, ...] | None = None
    #: "source", "step", "output" (a plan's) or "spark" (an operator of Spark's plans)
    kind: str = "step"
    failed: bool = False


@frozen
class Tree(Value):
    title: str
    nodes: tuple[Node, ...]
    #: (from, to): data flows from the first node into the second
    edges: tuple[tuple[str, str], ...]


def _cut(text: str, limit: int = MAX_LABEL) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ------------------------------------------------------------------ expressions as short text

#: catalog names written between their two arguments (``and``/``or`` take two or more)
_INFIX = {
    **{op: op for op in ("==", "!=", "<", "<=", ">", ">=", "<=>", "+", "-", "*", "/", "%", "&", "|", "^")},
    "and": "AND",
    "or": "OR",
}


def expr_text(e: ir.Expr) -> str:
    """A short, readable rendering of an expression (for labels, not for Spark)."""
    return _cut(_expr(e), 60)


def _expr(e: ir.Expr, depth: int = 0) -> str:
    if depth > 6:
        return "…"
    return EXPR_TEXT[type(e)](e, depth + 1)


def _literal_text(e: ir.Lit, d: int) -> str:
    return repr(e.value) if isinstance(e.value, str) else str(e.value).lower() if e.value is None else str(e.value)


def _call_text(e: ir.Call, d: int) -> str:
    op = _INFIX.get(e.fn)
    if op is not None and len(e.args) >= 2:
        return "(" + f" {op} ".join(_expr(a, d) for a in e.args) + ")"
    distinct = "DISTINCT " if e.distinct else ""
    return f"{e.fn}({distinct}{', '.join(_expr(a, d) for a in e.args)})"


def _when_text(e: ir.When, d: int) -> str:
    parts = [f"WHEN {_expr(c, d)} THEN {_expr(v, d)}" for c, v in e.branches]
    if e.otherwise is not None:
        parts.append(f"ELSE {_expr(e.otherwise, d)}")
    return "CASE " + " ".join(parts) + " END"


def _window_text(e: ir.Window, d: int) -> str:
    spec = []
    if e.partition_by:
        spec.append("PARTITION BY " + ", ".join(_expr(p, d) for p in e.partition_by))
    if e.order_by:
        spec.append("ORDER BY " + ", ".join(_sort(k, d) for k in e.order_by))
    return f"{_expr(e.func, d)} OVER ({' '.join(spec)})"


def _subquery_text(e: ir.Subquery, d: int) -> str:
    """The subquery's place in its expression; its plan is drawn as a tree of its own, flowing
    into the step's node through a node titled by its kind (see :func:`draw_plan`)."""
    if e.kind == "exists":
        return "EXISTS (subquery)"
    if e.kind == "in":
        values = ", ".join(_expr(v, d) for v in e.values)
        return f"{values if len(e.values) == 1 else f'({values})'} IN (subquery)"
    return "(scalar subquery)"


#: expression class → its short text (every class of ir.EXPR_CLASSES, checked at import)
EXPR_TEXT: dict[type, Callable[[Any, int], str]] = ir.covering(
    {
        ir.Col: lambda e, d: e.name,
        ir.Lit: _literal_text,
        ir.Call: _call_text,
        ir.Cast: lambda e, d: f"{e.mode}({_expr(e.expr, d)} AS {type_string(e.to)})",
        ir.When: _when_text,
        ir.ExtractValue: lambda e, d: f"{_expr(e.child, d)}[{_expr(e.key, d)}]",
        ir.Star: lambda e, d: "*" if e.target is None else f"{e.target}.*",
        ir.Window: _window_text,
        ir.Lambda: lambda e, d: f"({', '.join(e.params)}) -> {_expr(e.body, d)}",
        ir.LambdaVar: lambda e, d: e.name,
        ir.UdfCall: lambda e, d: f"{e.name}({', '.join(_expr(a, d) for a in e.args)})",
        ir.Subquery: _subquery_text,
    },
    ir.EXPR_CLASSES,
    "drawing.EXPR_TEXT",
)


def _sort(k: ir.SortKey, depth: int = 0) -> str:
    return _expr(k.expr, depth) + ("" if k.ascending else " DESC")


def _aggs(aggs: Sequence[ir.AggItem] | None) -> str:
    return ", ".join(_expr(a.expr) + (f" AS {a.alias}" if a.alias else "") for a in aggs or ())


def _plain(text: str) -> Callable[[Any], str]:
    return lambda _step: text


#: step class → its key arguments as text (every class of ir.STEP_CLASSES, checked at import)
STEP_DETAILS: dict[type[ir.Step], Callable[[Any], str]] = ir.covering(
    {
        ir.Filter: lambda s: _expr(s.condition),
        ir.Select: lambda s: ", ".join(
            _expr(i.expr) + (f" AS {i.alias if isinstance(i.alias, str) else ', '.join(i.alias)}" if i.alias else "")
            for i in s.items
        ),
        ir.WithColumn: lambda s: f"{s.name} = {_expr(s.expr)}",
        ir.WithColumnRenamed: lambda s: f"{s.old} → {s.new}",
        ir.Drop: lambda s: ", ".join(s.names),
        ir.Distinct: _plain(""),
        ir.Limit: lambda s: str(s.n),
        ir.Offset: lambda s: str(s.n),
        ir.Tail: lambda s: str(s.n),
        ir.OrderBy: lambda s: ", ".join(_sort(k) for k in s.keys),
        ir.GroupBy: lambda s: (
            (f"{s.kind} " if s.kind != "groupby" else "")
            + f"by {', '.join(_expr(k) for k in s.keys) or '()'}: {_aggs(s.aggs)}"
        ),
        ir.Agg: lambda s: _aggs(s.aggs),
        ir.Join: lambda s: (
            s.how
            + (f" using {', '.join(s.keys)}" if s.keys else "")
            + (f" on {_expr(s.condition)}" if s.condition is not None else "")
            + (f" ({s.right_hint} right)" if s.right_hint else "")
        ),
        ir.SetOp: lambda s: (
            s.kind
            + (" by name" if s.by_name else "")
            + (" (missing allowed)" if s.allow_missing else "")
            + (" distinct" if s.distinct else "")
        ),
        ir.CrossJoin: _plain(""),
        ir.Stop: _plain("(no-op)"),
        ir.Fetch: lambda s: f"offset {s.offset}" + (f", count {s.count}" if s.count is not None else ""),
        ir.Sample: lambda s: (
            f"[{s.lower:g}, {s.upper:g})"
            + (" with replacement" if s.with_replacement else "")
            + (f" seed {s.seed}" if s.seed is not None else "")
        ),
        ir.Repartition: lambda s: (
            ("repartition" if s.shuffle else "coalesce")
            + (f" {s.n}" if s.n is not None else "")
            + (f" by {', '.join(_expr(k) for k in s.keys)}" if s.keys else "")
        ),
        ir.Hint: lambda s: s.name + (f"({', '.join(_expr(p) for p in s.parameters)})" if s.parameters else ""),
    },
    ir.STEP_CLASSES,
    "drawing.STEP_DETAILS",
)


def _inline_text(src: ir.InlineData) -> tuple[str, str]:
    n = src.table.num_rows
    return "inline data", f"{n} row{'s' if n != 1 else ''}"


def _range_text(src: ir.RangeSource) -> tuple[str, str]:
    parts = f"range({src.start}, {src.end}, {src.step})"
    return "range", parts + (f" in {src.num_partitions} partitions" if src.num_partitions else "")


#: source class → its node's title and detail (every class of ir.SOURCE_CLASSES, checked at import)
SOURCE_TEXT: dict[type, Callable[[Any], tuple[str, str]]] = ir.covering(
    {
        ir.InlineData: _inline_text,
        ir.TableSource: lambda src: ("table", src.name),
        ir.FileSource: lambda src: (f"read {src.format or 'files'}", ", ".join(src.paths)),
        ir.RangeSource: _range_text,
        ir.SqlSource: lambda src: ("sql", src.query),
        ir.SharedPlan: lambda src: ("with", src.name),  # drawn as its sub-plan, then this node
    },
    ir.SOURCE_CLASSES,
    "drawing.SOURCE_TEXT",
)


def _view_text(out: ir.TempView) -> tuple[str, str]:
    kind = "global temp view" if out.is_global else "temp view"
    return out.op, f"{kind} {out.name}" + (" (replace)" if out.replace else "")


def _write_text(out: ir.Write) -> tuple[str, str]:
    target = out.table or out.path or "?"
    return out.op, f"{out.format or ''} {target} mode {out.mode}".strip() + (
        f" partitioned by {', '.join(out.partition_by)}" if out.partition_by else ""
    )


#: output class → its node's title and detail (every class of ir.OUTPUT_CLASSES, checked at import)
OUTPUT_TEXT: dict[type, Callable[[Any], tuple[str, str]]] = ir.covering(
    {ir.TempView: _view_text, ir.Write: _write_text}, ir.OUTPUT_CLASSES, "drawing.OUTPUT_TEXT"
)


# ------------------------------------------------------------------ the JSON plan's tree


def draw_plan(
    plan: ir.Plan,
    columns: Mapping[str, tuple[str | None, ...] | None] | None = None,
    *,
    failed_step: int | None = None,
    title: str = "plan",
) -> Tree:
    """The tree of ``plan``: ``columns`` are the output names by location
    (``Translation.step_columns``); ``failed_step`` (a top-level step index) is highlighted."""
    known = columns or {}
    nodes: list[Node] = []
    edges: list[tuple[str, str]] = []
    shared: dict[int, str] = {}  # a shared sub-plan is drawn once, its last node used again

    def cols(loc: str) -> tuple[str, ...] | None:
        names = known.get(loc)
        return None if names is None else tuple(n if n is not None else "?" for n in names)

    def add(title: str, detail: str, loc: str, kind: str, failed: bool = False) -> str:
        node_id = f"n{len(nodes)}"
        nodes.append(Node(node_id, title, _cut(detail), cols(loc), kind, failed))
        return node_id

    def walk(p: ir.Plan, top: bool) -> str:
        src = p.source
        if isinstance(src, ir.SharedPlan):
            key = id(src)
            if key not in shared:
                shared[key] = inner = walk(src.plan, False)
                if not src.name.startswith("/"):  # a named ``with`` definition (else a nested plan)
                    shared[key] = add("with", src.name, src.loc, "source")
                    edges.append((inner, shared[key]))
            last = shared[key]
        else:
            last = add(*SOURCE_TEXT[type(src)](src), src.loc, "source")
        for step in p.steps:
            node = add(
                f"{step.index}: {step.op}" if top else step.op,
                STEP_DETAILS[type(step)](step),
                step.loc,
                "step",
                top and step.index == failed_step,
            )
            edges.append((last, node))
            right = getattr(step, "right", None)
            if isinstance(right, ir.Plan):
                edges.append((walk(right, False), node))
            for sub in subqueries_in(step) if ir.subqueries_made() else ():
                inner = walk(sub.plan, False)
                label = add(f"{sub.kind} subquery", "", sub.loc, "step")
                edges.extend(((inner, label), (label, node)))
            last = node
        if p.output is not None:
            out = add(
                *OUTPUT_TEXT[type(p.output)](p.output), p.output.loc, "output", top and p.output.index == failed_step
            )
            edges.append((last, out))
            last = out
        return last

    walk(plan, True)
    return Tree(title, tuple(nodes), tuple(edges))


# ------------------------------------------------------------------ Spark's trees

_TREE_LINE = re.compile(r"^((?:   |:  )*)(\+- |:- )?(.*)$")
_ATTRIBUTE_ID = re.compile(r"#\d+L?\b")
_OPERATOR = re.compile(r"^(?:\*\(\d+\) )?([A-Za-z][\w ]*?)(?=[\s\[(]|$)")


def parse_spark_plan(text: str, title: str, prefix: str = "s") -> Tree:
    """One of Spark's tree strings (``treeString``: children under ``+-``/``:-`` marks,
    three characters a level) as a tree: one node per operator, its first words the title
    and the rest its detail; lines that continue a node's text (no mark, deeper) are cut."""
    nodes: list[Node] = []
    edges: list[tuple[str, str]] = []
    stack: list[tuple[int, str]] = []  # (depth, node id) of the current path
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _TREE_LINE.match(line.rstrip())
        if m is None:  # pragma: no cover  (the pattern matches any line)
            continue
        if nodes and not m.group(2):
            continue  # only the root has no mark: this continues the previous node's text
        depth = len(m.group(1)) // 3 + (1 if m.group(2) else 0)
        body = m.group(3)
        op = _OPERATOR.match(body)
        name = op.group(1).strip() if op else body.split(" ", 1)[0]
        detail = body[op.end() :].strip() if op else body[len(name) :].strip()
        detail = _ATTRIBUTE_ID.sub("", detail)  # region#16058 → region: ids mean nothing here
        node_id = f"{prefix}{len(nodes)}"
        nodes.append(Node(node_id, name, _cut(detail), None, "spark"))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            edges.append((node_id, stack[-1][1]))  # the child's rows flow into its parent
        stack.append((depth, node_id))
    return Tree(title, tuple(nodes), tuple(edges))


def spark_trees(explain: str) -> list[Tree]:
    """Spark's optimized logical and physical plans from an ``extended`` explain string."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in explain.splitlines():
        head = re.match(r"^== (.+) ==$", line.strip())
        if head:
            current = sections.setdefault(head.group(1), [])
            continue
        if current is not None:
            current.append(line)
    out = []
    for i, name in enumerate(SPARK_SECTIONS):
        if name in sections:
            out.append(parse_spark_plan("\n".join(sections[name]), f"Spark: {name.lower()}", prefix=f"s{i}_"))
    return out


# ------------------------------------------------------------------ rendering


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _mermaid_text(text: str) -> str:
    return (
        text.replace("&", "#amp;")
        .replace('"', "#quot;")
        .replace("<", "#lt;")
        .replace(">", "#gt;")
        .replace("|", "#124;")
    )


def _column_text(columns: tuple[str, ...] | None) -> str:
    if columns is None:
        return ""
    shown = list(columns[:MAX_COLUMNS])
    more = f" +{len(columns) - MAX_COLUMNS} more" if len(columns) > MAX_COLUMNS else ""
    return _cut("[" + ", ".join(shown) + "]" + more)


_FILL = {"source": "#e8f1fb", "step": "#ffffff", "output": "#eaf7ea", "spark": "#fff8e6"}


@frozen
class PlanDrawing(Value):
    """A plan drawn as one or more trees (the JSON plan's steps, then Spark's plans)."""

    trees: tuple[Tree, ...]
    #: the error that made a step fail, when the drawing highlights one
    error: str | None = field(default=None, compare=False)

    def lines(self, node: Node) -> list[str]:
        out = [node.title]
        if node.detail:
            out.append(node.detail)
        if node.columns is not None:
            out.append(_column_text(node.columns))
        if node.failed:
            out.append("FAILED")
        return out

    def dot(self) -> str:
        """Graphviz DOT text."""
        out = [
            "digraph plan {",
            "  rankdir=TB;",
            '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=10];',
            '  edge [color="#555555"];',
        ]
        for i, tree in enumerate(self.trees):
            out.append(f"  subgraph cluster_{i} {{")
            out.append(f'    label="{_dot_text(tree.title)}"; fontname="Helvetica"; color="#bbbbbb";')
            for n in tree.nodes:
                label = "\\n".join(_dot_text(x) for x in self.lines(n))
                attrs = [f'label="{label}"', f'fillcolor="{_FILL.get(n.kind, "#ffffff")}"']
                if n.failed:
                    attrs += ['fillcolor="#fde0e0"', 'color="#cc0000"', "penwidth=2"]
                out.append(f"    {n.id} [{', '.join(attrs)}];")
            for a, b in tree.edges:
                out.append(f"    {a} -> {b};")
            out.append("  }")
        out.append("}")
        return "\n".join(out) + "\n"

    def mermaid(self) -> str:
        """Mermaid flowchart text (GitHub and Jupyter render it in a ```mermaid block)."""
        out = ["flowchart TD"]
        failed = []
        for i, tree in enumerate(self.trees):
            out.append(f'  subgraph t{i}["{_mermaid_text(tree.title)}"]')
            for n in tree.nodes:
                label = "<br/>".join(_mermaid_text(x) for x in self.lines(n))
                out.append(f'    {n.id}["{label}"]')
                if n.failed:
                    failed.append(n.id)
            for a, b in tree.edges:
                out.append(f"    {a} --> {b}")
            out.append("  end")
        if failed:
            out.append("  classDef failed fill:#fde0e0,stroke:#cc0000,stroke-width:2px")
            out.append(f"  class {','.join(failed)} failed")
        return "\n".join(out) + "\n"

    def render(self, fmt: str) -> str | bytes:
        """The drawing as ``dot``, ``mermaid`` or ``svg`` text, or ``png`` bytes."""
        if fmt == "dot":
            return self.dot()
        if fmt == "mermaid":
            return self.mermaid()
        if fmt not in FORMATS:
            raise DrawingError(f"unknown picture format {fmt!r}; use one of {', '.join(FORMATS)}")
        data = _graphviz(self.dot(), fmt)
        return data.decode("utf-8") if fmt == "svg" else data

    def svg(self) -> str:
        out = self.render("svg")
        assert isinstance(out, str)
        return out

    def png(self) -> bytes:
        out = self.render("png")
        assert isinstance(out, bytes)
        return out

    def save(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the drawing to ``path`` (format from ``fmt``, else the file's suffix)."""
        target = Path(path)
        fmt = fmt or target.suffix.lstrip(".").lower() or "svg"
        if fmt == "mmd":
            fmt = "mermaid"
        data = self.render(fmt)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data, encoding="utf-8")
        return target

    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except DrawingError:
            return None  # the notebook falls back to the Markdown (Mermaid) form

    def _repr_markdown_(self) -> str:
        return "```mermaid\n" + self.mermaid() + "```\n"


#: names the program that draws SVG and PNG instead of graphviz-pure (e.g. ``dot``: a system
#: Graphviz, whose PNGs use the system's fonts, for labels in scripts the bundled fonts lack)
PROGRAM_ENV = "CONNECT_PLAN_GRAPHVIZ"
#: PNGs at 1.5 times Graphviz's 96 dpi: readable on a high-density screen, a few tens of KB
PNG_DPI = 144


def graphviz_program() -> str | None:
    """The program that renders DOT text: ``$CONNECT_PLAN_GRAPHVIZ`` when set; else
    graphviz-pure (a dependency: Graphviz 16 ported to Rust, one static program with its
    fonts, installed by pip beside this package), found through its distribution's files so
    that it is found when its ``bin`` directory is not on ``PATH``; else on ``PATH``; else a
    system Graphviz's ``dot``; else None."""
    import os
    import shutil

    chosen = os.environ.get(PROGRAM_ENV)
    if chosen:
        return shutil.which(chosen) or chosen
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        dist = distribution("graphviz-pure")
        for f in dist.files or ():
            if f.name in ("graphviz-pure", "graphviz-pure.exe"):
                path = Path(str(dist.locate_file(f)))
                if path.exists():
                    return str(path.resolve())
    except PackageNotFoundError:
        pass
    return shutil.which("graphviz-pure") or shutil.which("dot")


def _graphviz(dot: str, fmt: str) -> bytes:
    """``dot`` rendered as ``fmt`` by :func:`graphviz_program` (no system package needed)."""
    import subprocess

    program = graphviz_program()
    if program is None:
        raise DrawingError(
            f"--format {fmt} needs graphviz-pure, which connect-plan installs (pip install graphviz-pure), "
            f"or Graphviz's dot program ({PROGRAM_ENV}=dot); --format dot and mermaid need neither"
        )
    args = [program, f"-T{fmt}", *((f"-Gdpi={PNG_DPI}",) if fmt == "png" else ())]
    try:
        done = subprocess.run(args, input=dot.encode("utf-8"), capture_output=True, timeout=120, check=False)
    except OSError as exc:
        raise DrawingError(f"cannot run {program} to draw the plan: {exc.strerror or exc}") from None
    if done.returncode != 0 or not done.stdout:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise DrawingError(f"{program} could not draw the plan (exit {done.returncode}): {said}")
    return done.stdout
