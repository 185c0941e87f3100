"""How every verb of a :class:`~connect_plan.client.Client` runs: the plan loaded (front-end,
then the call's or the client's policy), the call's result bounds tightened by that policy,
then run under the call's deadline, with the plan's ``conf`` applied, once more on a new
session if the server lost this one, and an analysis error named by its plan step."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from .. import ir
from ..errors import PlanError, ServerError
from ..formats import load_plan

if TYPE_CHECKING:
    import pyarrow as pa

    from ..drawing import PlanDrawing
    from ..policy import Policy
    from ..results import SparkBatch
    from ..telemetry import ProgressCallback, QueryStats
    from .execute import Executor
    from .session import Session

__all__ = ["Calls", "SparkResult", "describe_plan", "tags"]

T = TypeVar("T")

log = logging.getLogger("connect_plan")


#: what separates Spark's job tags (``SparkContext.SPARK_JOB_TAGS_SEP``): no operation tag holds it
TAG_SEPARATOR = ","


def tags(tag: str | None) -> tuple[str, ...]:
    """The operation tags of a call's ``tag=`` (:meth:`Client.interrupt`), checked as Spark
    checks them: a non-empty string without a comma."""
    if tag is None:
        return ()
    if not isinstance(tag, str) or not tag or TAG_SEPARATOR in tag:
        raise ValueError(f"tag must be a non-empty string without a comma, got {tag!r}")
    return (tag,)


def describe_plan(plan: ir.Plan) -> str:
    """One line for ``-v``: the source, the steps by kind, what is written and the conf."""
    source = plan.source
    if isinstance(source, ir.InlineData):
        what = f"{source.table.num_rows} inline rows x {source.table.num_columns} columns"
    elif isinstance(source, ir.TableSource):
        what = f"table {source.name}"
    elif isinstance(source, ir.FileSource):
        what = f"{len(source.paths)} {source.format or 'data'} path(s)"
    elif isinstance(source, ir.RangeSource):
        what = f"range({source.start}, {source.end}, {source.step})"
    elif isinstance(source, ir.SqlSource):
        what = "a SQL query"
    else:
        what = f"shared plan {source.name}"
    n = len(plan.steps)
    text = f"{what}; " + (
        f"{n} step{'' if n == 1 else 's'}: " + ", ".join(type(s).__name__ for s in plan.steps) if n else "no steps"
    )
    if plan.output is not None:
        text += f"; writes ({type(plan.output).__name__})"
    if plan.conf:
        text += "; conf " + ", ".join(k for k, _ in plan.conf)
    return text


class SparkResult:
    """A streamed result whose batches come with their Arrow IPC messages as Spark sent them
    (:class:`~connect_plan.results.SparkBatch`; the message None for a batch that is not Spark's
    own: cast to the plan's declared types, or cut by ``max_bytes``), checked as
    :meth:`~connect_plan.Client.stream`'s are. Read once; :meth:`close` releases the execution
    on the server when it did not end."""

    def __init__(self, schema: pa.Schema, batches: Iterator[Any]) -> None:
        #: the result's schema, as :meth:`~connect_plan.Client.stream`'s reader has it
        self.schema = schema
        self._batches = batches

    def __iter__(self) -> Iterator[SparkBatch]:
        return self._batches

    def close(self) -> None:
        close = getattr(self._batches, "close", None)
        if close is not None:
            close()


class Calls:
    """The way of every call of one client (see module doc): ``load``, ``bounds``, ``run``,
    and ``reader`` for a streamed result."""

    def __init__(self, session: Session, executor: Executor, policy: Policy | None) -> None:
        self.session = session
        self.executor = executor
        #: the policy every call is checked against (None: trusted)
        self.policy = policy

    def load(
        self, plan: Any, data: Any, schema: Any, policy: Policy | None, tables: Mapping[str, Any] | None = None
    ) -> tuple[ir.Plan, Policy | None]:
        """The plan as IR (``tables``: a Substrait plan's table names → sources), checked against
        ``policy`` (else the client's): a :class:`~connect_plan.errors.PolicyError` before
        anything is sent."""
        ir_plan = load_plan(plan, data, schema, tables=tables)
        if log.isEnabledFor(logging.INFO):
            log.info("plan: %s", describe_plan(ir_plan))
        effective = policy if policy is not None else self.policy
        if effective is not None:
            effective.check(ir_plan, registered_udfs=self.session.udfs.keys())
        return ir_plan, effective

    def bounds(
        self, policy: Policy | None, max_rows: int | None, max_bytes: int | None, timeout: float | None
    ) -> tuple[int | None, int | None, float | None]:
        """A call's result bounds, tightened by its policy's."""
        if policy is None:
            return max_rows, max_bytes, timeout
        if timeout is None:
            timeout = self.session.default_timeout
        return policy.bounds(max_rows, max_bytes, timeout)

    def run(
        self,
        plan: ir.Plan,
        fn: Callable[[float | None], T],
        timeout: float | None,
        *,
        again: bool = True,
        locate: bool = False,
    ) -> T:
        """``fn(at)`` for ``plan``: under the call's deadline (``at``), with the plan's
        ``conf`` applied, run once more on a new session if the server lost this one
        (``again``), and an error named by its plan step (``locate``, for calls whose
        ``fn`` does not locate it itself)."""
        session = self.session
        if plan.conf or session.version is None:
            # the plan's conf is applied on the server before translating (the names the
            # translator may ask for depend on it), and a session's first plan first asks the
            # server's version: check what can be checked without them first, so that a plan
            # that is wrong anyway costs no round trip
            from ..translator import translate_ir

            translate_ir(
                plan,
                case_sensitive=session.case_sensitive_for(plan),
                udfs=session.udfs,
                inline_data=False,
                check_only=True,
            )
        with session.operation(timeout) as at:

            def run() -> T:
                with session.plan_conf(plan.conf):
                    return fn(at)

            try:
                return session.retrying(run) if again else run()
            except ServerError as err:
                if not locate:
                    raise
                raise self.executor.locate(err, plan) from err.__cause__

    def reader(
        self,
        plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        timeout: float | None,
        on_close: Callable[[], None] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
        on_stats: Callable[[QueryStats], object] | None = None,
        tag: str | None = None,
    ) -> pa.RecordBatchReader:
        import pyarrow as pa

        result_schema, batches = self._open(
            plan, max_rows, max_bytes, timeout, on_close, on_progress, on_stats, tag, messages=False
        )
        return pa.RecordBatchReader.from_batches(result_schema, batches)

    def spark_batches(
        self, plan: ir.Plan, max_rows: int | None, max_bytes: int | None, timeout: float | None, tag: str | None
    ) -> SparkResult:
        """:meth:`reader`'s result with each batch's Arrow IPC message as Spark sent it
        (:func:`connect_plan.client.spark_batches`)."""
        return SparkResult(*self._open(plan, max_rows, max_bytes, timeout, None, None, None, tag, messages=True))

    def _open(
        self,
        plan: ir.Plan,
        max_rows: int | None,
        max_bytes: int | None,
        timeout: float | None,
        on_close: Callable[[], None] | None,
        on_progress: ProgressCallback | None,
        on_stats: Callable[[QueryStats], object] | None,
        tag: str | None,
        *,
        messages: bool,
    ) -> tuple[pa.Schema, Iterator[Any]]:
        if plan.output is not None:
            raise PlanError.single(
                "not_streamable", plan.loc, "a plan that writes has no result to stream; use execute()"
            )
        # a document's conf holds while the query is planned (until its first batch)
        executor = self.executor
        operation_tags = tags(tag)
        return self.run(
            plan,
            lambda at: executor.open(
                plan,
                max_rows,
                max_bytes,
                on_close,
                at=at,
                on_progress=on_progress,
                on_stats=on_stats,
                tags=operation_tags,
                messages=messages,
            ),
            timeout,
        )

    def interrupt(self, tag: str, timeout: float | None) -> tuple[str, ...]:
        """:meth:`Client.interrupt`: Spark Connect's Interrupt by tag, sent at once, of every
        running execution of this client's session that a call tagged ``tag`` (``execute(...,
        tag=)``, ``stream(..., tag=)``; a string without a comma) started. Thread-safe: call it
        from another thread than the call's, or after ``stream`` returned. The call being
        interrupted raises the server's error (``OPERATION_CANCELED``), also while it still
        waits for its first batch; a reader already returned raises it from its next read.

        The operation ids Spark interrupted: none when no execution with the tag was running,
        or when the call's ExecutePlan had not reached the server yet (an interrupt sent that
        early finds nothing: call again). ``timeout`` bounds this call (None: the client's
        default)."""
        operation_tags = tags(tag)
        with self.session.operation(timeout):
            return tuple(self.executor.interrupt(operation_tags[0]))

    def draw(
        self,
        plan: ir.Plan,
        policy: Policy | None,
        analyzed: bool,
        failed_step: int | None,
        timeout: float | None,
        title: str,
    ) -> PlanDrawing:
        """``plan`` drawn (:meth:`Client.draw`): its own tree, and with ``analyzed`` Spark's
        optimized and physical plans, or the server's refusal marked on the failing step."""
        from ..drawing import PlanDrawing, draw_plan, spark_trees
        from ..translator import translate_ir

        columns = translate_ir(plan, check_only=True).step_columns
        trees = []
        error = None
        if analyzed:
            timeout = self.bounds(policy, None, None, timeout)[2]
            try:
                explained = self.run(plan, lambda _: self.executor.explain(plan, "extended"), timeout, locate=True)
                trees = spark_trees(str(explained))
            except ServerError as err:
                error = str(err)
                if failed_step is None:
                    failed_step = err.op_index
        first = draw_plan(plan, columns, failed_step=failed_step, title=title)
        return PlanDrawing((first, *trees), error=error)
