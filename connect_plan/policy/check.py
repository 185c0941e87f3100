"""The policy's walk of a plan's IR: every source, step, expression and output, each refused
where the policy says so (:class:`Checker`), failing closed on IR classes nobody reviewed
(:data:`REVIEWED_STEPS`, :data:`REVIEWED_EXPRS`, :data:`REVIEWED_SOURCES`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .. import ir
from ..errors import Violation
from ..functions import CATALOG
from ..names import parse_table_name
from .vocabulary import FILE_SOURCE_NAMES, PARTITION_HINTS

if TYPE_CHECKING:
    from .rules import Policy

__all__ = ["REVIEWED_EXPRS", "REVIEWED_SOURCES", "REVIEWED_STEPS", "Checker"]

_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _lower_set(names: tuple[str, ...] | None) -> frozenset[str] | None:
    return None if names is None else frozenset(n.lower() for n in names)


#: every name a Spark built-in function may be called by (plan names and Spark names)
_BUILTINS: frozenset[str] = frozenset({n.lower() for n in CATALOG} | {s.spark.lower() for s in CATALOG.values()})


class Checker:
    """One walk over a plan: every violation, in document order."""

    def __init__(self, policy: Policy, registered: frozenset[str]) -> None:
        self.policy = policy
        self.registered = registered
        self.found: list[Violation] = []
        self.seen_shared: set[int] = set()
        self.steps = 0
        self.inline_rows = 0
        self.inline_bytes = 0
        self.first_inline_loc = ""
        self.denied = frozenset(policy.denied_functions)
        self.formats = _lower_set(policy.formats)
        self.options = _lower_set(policy.source_options)
        self.hints = _lower_set(policy.hints)

    def err(self, code: str, loc: str, message: str, input: Any, rule: str) -> None:
        self.found.append(Violation(code, loc, message, input, rule))

    # ------------------------------------------------------------ plans

    def plan(self, plan: ir.Plan, depth: int, *, top: bool = False) -> None:
        p = self.policy
        if p.max_nesting is not None and depth > p.max_nesting:
            self.err(
                "policy_size",
                plan.loc,
                f"plans nest {depth} deep, over this policy's {p.max_nesting}",
                depth,
                "max_nesting",
            )
        if p.conf_keys is not None:
            conf_base = "/conf" if plan.loc == "/plan" else f"{plan.loc}/conf"
            for key, value in plan.conf:
                if key not in p.conf_keys:
                    self.err(
                        "policy_conf",
                        f"{conf_base}/{key}",
                        f"the plan may not set Spark conf {key!r}",
                        value,
                        "conf_keys",
                    )
        self.source(plan.source, depth)
        self.steps += len(plan.steps)
        for step in plan.steps:
            self.step(step, depth)
        if plan.output is not None:
            self.output(plan.output)
        if top and p.require_limit and plan.output is None:
            last = plan.steps[-1] if plan.steps else None
            n = last.n if isinstance(last, (ir.Limit, ir.Tail)) else last.count if isinstance(last, ir.Fetch) else None
            if n is None or (p.max_rows is not None and n > p.max_rows):
                self.err(
                    "policy_limit",
                    plan.loc,
                    "the plan must end with a limit" + (f" of at most {p.max_rows} rows" if p.max_rows else ""),
                    n,
                    "require_limit",
                )

    def totals(self, plan: ir.Plan) -> None:
        p = self.policy
        if p.max_steps is not None and self.steps > p.max_steps:
            self.err(
                "policy_size",
                plan.loc,
                f"{self.steps} steps, over this policy's {p.max_steps}",
                self.steps,
                "max_steps",
            )
        if p.max_inline_rows is not None and self.inline_rows > p.max_inline_rows:
            self.err(
                "policy_size",
                self.first_inline_loc,
                f"{self.inline_rows} inline rows, over this policy's {p.max_inline_rows}",
                self.inline_rows,
                "max_inline_rows",
            )
        if p.max_inline_bytes is not None and self.inline_bytes > p.max_inline_bytes:
            self.err(
                "policy_size",
                self.first_inline_loc,
                f"{self.inline_bytes} bytes of inline data, over this policy's {p.max_inline_bytes}",
                self.inline_bytes,
                "max_inline_bytes",
            )

    # ------------------------------------------------------------ sources

    def source(self, src: ir.Source, depth: int) -> None:
        check = _SOURCES.get(type(src))
        if check is None:
            self.err("policy_source", src.loc, f"a {type(src).__name__} source is not known to this policy", None, "")
            return
        check(self, src, depth)

    def inline(self, src: ir.InlineData, depth: int) -> None:
        self.inline_rows += src.table.num_rows
        self.inline_bytes += src.table.nbytes
        self.first_inline_loc = self.first_inline_loc or src.loc

    def table(self, src: ir.TableSource, depth: int) -> None:
        p = self.policy
        problem = p._table_problem(src.name, p.tables, p._table_keys)
        if problem is not None:
            self.err("policy_table", src.loc, problem, src.name, "tables")
        elif p.tables is None and (p.paths is not None or p.path_schemes is not None):
            # any table, but not any file: a name Spark may read as files is a file read
            parts = parse_table_name(src.name)
            if parts is None or (len(parts) == 2 and parts[0].lower() in FILE_SOURCE_NAMES):
                self.err(
                    "policy_path",
                    src.loc,
                    f"{src.name!r} may be read as files (Spark reads '<format>.<path>' so), which this policy "
                    "restricts: write the name as plain or backticked parts, with its catalog",
                    src.name,
                    "paths",
                )
        self.source_options(src.options, src.loc)

    def files(self, src: ir.FileSource, depth: int) -> None:
        p = self.policy
        if not src.paths and p.paths is not None:
            # a data source without paths (jdbc, a catalog-less source): only its format
            # and options say what it reads
            self.err("policy_path", src.loc, "a read without paths is refused by this policy", src.format, "paths")
        for i, path in enumerate(src.paths):
            problem = p._path_problem(path, p.paths, p._path_prefixes)
            if problem is not None:
                rule = "path_schemes" if problem.startswith("scheme") else "paths"
                self.err("policy_path", f"{src.loc}/files/{i}", problem, path, rule)
        self.format(src.format, src.loc)
        self.source_options(src.options, src.loc)

    def range(self, src: ir.RangeSource, depth: int) -> None:
        p = self.policy
        n = max(0, -(-(src.end - src.start) // src.step)) if src.step else 0
        if p.max_range_rows is not None and n > p.max_range_rows:
            self.err(
                "policy_size",
                src.loc,
                f"a range of {n} rows, over this policy's {p.max_range_rows}",
                n,
                "max_range_rows",
            )
        self.partitions(src.num_partitions, src.loc)

    def sql(self, src: ir.SqlSource, depth: int) -> None:
        if not self.policy.sql:
            self.err("policy_sql", src.loc, "SQL queries are refused by this policy", src.query, "sql")
        for _, e in src.named_args:
            self.expr(e, depth)
        for e in src.pos_args:
            self.expr(e, depth)

    def shared(self, src: ir.SharedPlan, depth: int) -> None:
        if id(src) in self.seen_shared:
            return
        self.seen_shared.add(id(src))
        self.plan(src.plan, depth + 1)

    def format(self, fmt: str | None, loc: str) -> None:
        # no format: Spark's spark.sql.sources.default (parquet unless the server says else)
        name = (fmt or "parquet").lower()
        if self.formats is not None and name not in self.formats:
            self.err("policy_format", loc, f"data source format {name!r} is refused by this policy", fmt, "formats")

    def source_options(self, options: tuple[tuple[str, str], ...], loc: str) -> None:
        if self.options is None:
            return
        for key, value in options:
            if key.lower() not in self.options:
                self.err(
                    "policy_option",
                    f"{loc}/options/{key}",
                    f"option {key!r} is refused by this policy",
                    value,
                    "source_options",
                )

    def partitions(self, n: int | None, loc: str) -> None:
        p = self.policy
        if n is not None and p.max_partitions is not None and n > p.max_partitions:
            self.err("policy_size", loc, f"{n} partitions, over this policy's {p.max_partitions}", n, "max_partitions")

    # ------------------------------------------------------------ steps

    def step(self, step: ir.Step, depth: int) -> None:
        if type(step) not in REVIEWED_STEPS:
            self.err(
                "policy_source", step.loc, f"a {type(step).__name__} step is not known to this policy", step.op, ""
            )
        special = _STEPS.get(type(step))
        if special is not None:
            special(self, step, depth)
        for value in _fields(step):
            if isinstance(value, ir.Plan):
                self.plan(value, depth + 1)
            else:
                self.expr(value, depth)

    def join(self, step: ir.Join, depth: int) -> None:
        if step.right_hint is not None:
            self.hint_name(step.right_hint, step.loc)
        constant = step.condition is not None and not any(isinstance(e, ir.Col) for e in ir.walk(step.condition))
        if step.how == "cross" or (not step.keys and (step.condition is None or constant)):
            # a condition that reads no column is true or false for every pair: a cartesian
            # product (conditions true for most pairs are beyond a syntactic check: the
            # result bounds and the timeout stand behind this rule)
            self.cross(step)

    def cross(self, step: ir.Step, depth: int = 0) -> None:
        if not self.policy.cross_joins:
            self.err(
                "policy_join", step.loc, "a join without a condition (a cartesian product)", step.op, "cross_joins"
            )

    def repartition(self, step: ir.Repartition, depth: int) -> None:
        self.partitions(step.n, step.loc)

    def tail(self, step: ir.Tail, depth: int) -> None:
        # tail collects its rows on the driver before any limit on top applies
        p = self.policy
        if p.max_rows is not None and step.n > p.max_rows:
            self.err(
                "policy_size", step.loc, f"a tail of {step.n} rows, over this policy's {p.max_rows}", step.n, "max_rows"
            )

    def hint(self, step: ir.Hint, depth: int) -> None:
        self.hint_name(step.name, step.loc)
        if step.name.lower() in PARTITION_HINTS:
            for e in step.parameters:
                if isinstance(e, ir.Lit) and isinstance(e.value, int) and not isinstance(e.value, bool):
                    self.partitions(e.value, e.loc)

    def hint_name(self, name: str, loc: str) -> None:
        if self.hints is not None and name.lower() not in self.hints:
            self.err("policy_hint", loc, f"hint {name!r} is refused by this policy", name, "hints")

    # ------------------------------------------------------------ outputs

    def output(self, out: ir.Output) -> None:
        p = self.policy
        if isinstance(out, ir.TempView):
            if not p.temp_views or (out.is_global and not p.global_temp_views):
                kind = "global temporary views" if out.is_global and p.temp_views else "temporary views"
                rule = "global_temp_views" if out.is_global and p.temp_views else "temp_views"
                self.err("policy_view", out.loc, f"{kind} are refused by this policy", out.name, rule)
            elif p.temp_view_prefix and not (
                _SIMPLE_NAME.fullmatch(out.name) and out.name.lower().startswith(p.temp_view_prefix.lower())
            ):
                self.err(
                    "policy_view",
                    out.loc,
                    f"a temporary view name must be a plain name starting with {p.temp_view_prefix!r}",
                    out.name,
                    "temp_view_prefix",
                )
            return
        if p.write_tables == () and p.write_paths == ():
            self.err(
                "policy_write", out.loc, "writes are refused by this policy", out.path or out.table, "write_tables"
            )
            return
        if out.table is not None:
            problem = p._table_problem(out.table, p.write_tables, p._write_table_keys)
            if problem is not None:
                self.err(
                    "policy_write", out.loc, problem.replace("allows", "allows writing"), out.table, "write_tables"
                )
        if out.path is not None:
            problem = p._path_problem(out.path, p.write_paths, p._write_prefixes)
            if problem is not None:
                self.err("policy_write", out.loc, problem, out.path, "write_paths")
        if out.path is None and out.table is None and p.write_paths is not None:
            self.err("policy_write", out.loc, "a write without a path or table", None, "write_paths")
        if p.write_modes is not None and out.mode not in p.write_modes:
            self.err(
                "policy_write", out.loc, f"save mode {out.mode!r} is refused by this policy", out.mode, "write_modes"
            )
        if out.path is not None or out.format is not None:
            self.format(out.format, out.loc)
        self.source_options(out.options, out.loc)

    # ------------------------------------------------------------ expressions

    def expr(self, root: ir.Expr, depth: int) -> None:
        for node in ir.walk(root):
            if isinstance(node, ir.Call):
                self.call(node)
            elif isinstance(node, ir.UdfCall):
                self.udf(node.name, node.loc, registered=node.name in self.registered)
            elif isinstance(node, ir.Subquery):
                # its plan reads sources like any nested plan: checked as one
                self.plan(node.plan, depth + 1)
            elif type(node) not in REVIEWED_EXPRS:
                # fail closed: an expression kind added to the IR later (a subquery holds a
                # plan) is refused until this module reviews it
                self.err(
                    "policy_source",
                    node.loc,
                    f"a {type(node).__name__} expression is not known to this policy",
                    None,
                    "",
                )

    def call(self, call: ir.Call) -> None:
        spec = CATALOG.get(call.fn)
        names = {call.fn.lower()} | ({spec.spark.lower()} if spec is not None else set())
        hit = sorted(names & self.denied)
        if hit:
            self.err(
                "policy_function",
                call.loc,
                f"function {hit[0]!r} is refused by this policy",
                call.fn,
                "denied_functions",
            )
        if call.fn == "call_function" and call.args:
            first = call.args[0]
            name = first.value if isinstance(first, ir.Lit) and isinstance(first.value, str) else None
            if name is None:
                self.err("policy_function", first.loc, "call_function needs a literal name here", None, "udfs")
            elif name.lower() in self.denied:
                self.err(
                    "policy_function",
                    first.loc,
                    f"function {name!r} is refused by this policy",
                    name,
                    "denied_functions",
                )
            elif not (_SIMPLE_NAME.fullmatch(name) and name.lower() in _BUILTINS):
                # a qualified or unknown name is a function registered on the server
                self.udf(name, first.loc, registered=False)

    def udf(self, name: str, loc: str, *, registered: bool) -> None:
        rule = self.policy.udfs
        if rule == "any" or (rule == "registered" and registered):
            return
        what = "UDFs" if rule == "none" else "functions registered on the server"
        self.err("policy_udf", loc, f"{what} are refused by this policy", name, "udfs")


#: the IR classes this module has reviewed: a step or expression of another class is refused
#: (fail closed), and a unit test fails when ir.py gains a class missing here
REVIEWED_STEPS: frozenset[type] = frozenset(
    {
        ir.Filter,
        ir.Select,
        ir.WithColumn,
        ir.WithColumnRenamed,
        ir.Drop,
        ir.Distinct,
        ir.Limit,
        ir.Offset,
        ir.OrderBy,
        ir.GroupBy,
        ir.Agg,
        ir.Join,
        ir.SetOp,
        ir.CrossJoin,
        ir.Stop,
        ir.Fetch,
        ir.Sample,
        ir.Repartition,
        ir.Hint,
        ir.Tail,
    }
)
REVIEWED_EXPRS: frozenset[type] = frozenset(
    {
        ir.Col,
        ir.Lit,
        ir.Call,
        ir.Cast,
        ir.When,
        ir.ExtractValue,
        ir.Star,
        ir.Window,
        ir.Lambda,
        ir.LambdaVar,
        ir.UdfCall,
        ir.Subquery,
    }
)

_SOURCES: dict[type, Callable[[Checker, Any, int], None]] = ir.covering(
    {
        ir.InlineData: Checker.inline,
        ir.TableSource: Checker.table,
        ir.FileSource: Checker.files,
        ir.RangeSource: Checker.range,
        ir.SqlSource: Checker.sql,
        ir.SharedPlan: Checker.shared,
    },
    ir.SOURCE_CLASSES,
    "policy.check._SOURCES",
)

REVIEWED_SOURCES: frozenset[type] = frozenset(_SOURCES)

#: rules of particular steps, beyond the walk of their expressions and nested plans
_STEPS: dict[type, Callable[[Checker, Any, int], None]] = ir.partial(
    {
        ir.Join: Checker.join,
        ir.CrossJoin: Checker.cross,
        ir.Repartition: Checker.repartition,
        ir.Tail: Checker.tail,
        ir.Hint: Checker.hint,
    },
    ir.STEP_CLASSES,
    "policy.check._STEPS",
)


def _fields(node: Any) -> Iterator[Any]:
    """Every expression and nested plan held by a step, at any depth of its fields (select
    items, sort keys, aggregation entries, tuples of them): a step class added later is
    walked without a change here."""
    stack: list[Any] = [getattr(node, f.name) for f in reversed(dataclasses.fields(node))]
    while stack:
        value = stack.pop()
        if isinstance(value, ir.EXPR_CLASSES) or isinstance(value, ir.Plan):
            yield value
        elif isinstance(value, tuple):
            stack.extend(reversed(value))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            stack.extend(getattr(value, f.name) for f in reversed(dataclasses.fields(value)))
