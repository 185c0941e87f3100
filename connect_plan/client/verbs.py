"""What a :class:`~connect_plan.client.Client` does to its Spark session rather than with a
plan: configuration (``set_conf``, ``get_conf``), the server's version, and the Python UDFs
plans may call. A base class of ``Client`` (its verbs, split from the class that runs plans so
that each is read whole)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .session import Session

__all__ = ["SessionVerbs"]


class SessionVerbs:
    """The session verbs of :class:`~connect_plan.client.Client` (see module doc)."""

    _session: Session

    # ------------------------------------------------------------ session

    def set_conf(self, conf: Mapping[str, str], *, timeout: float | None = None) -> None:
        """Set Spark SQL configuration on this client's session (and on any new session
        the client opens after a server restart)."""
        session = self._session
        values = {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in conf.items()}
        with session.operation(timeout):
            session.retrying(lambda: session.set_conf(values))
        session.conf.update(values)

    def get_conf(self, *keys: str, timeout: float | None = None) -> dict[str, str | None]:
        """The session's values of ``keys`` (a registered key that is not set reads as its
        default; an unknown one as None). With no keys: every key set for the session, the
        server's own Spark configuration included (a key at its default is not listed)."""
        for key in keys:
            if not isinstance(key, str):
                raise TypeError(f"get_conf takes each key as a string argument (get_conf('a', 'b')), got {key!r}")
        session = self._session
        with session.operation(timeout):
            if keys:
                return dict(session.retrying(lambda: session.get_conf(keys)))
            return dict(session.retrying(session.explicit_conf))

    def server_version(self, *, timeout: float | None = None) -> str:
        """The Spark version of the server: one AnalyzePlan round trip the first time, then
        remembered for this session (features are chosen by it, see connect_plan.versions)."""
        return self._session.server_version(timeout=timeout)

    # ------------------------------------------------------------ UDFs

    def register_udf(
        self,
        name: str,
        func: Callable[..., Any],
        return_type: Any = "string",
        *,
        kind: str = "scalar",
        deterministic: bool = True,
        pickle_by_value: bool | None = None,
    ) -> None:
        """Register a Python function as UDF ``name`` for plans run by this client.

        Plans call it with ``{"udf": name, "args": [...]}``, ``{"op": "udf", ...}``,
        ``{"fn": "call_udf", "args": [name, ...]}`` (anywhere an expression goes, filters
        included), or, for ``kind="grouped_agg"``, with the ``python_grouped_udf``
        aggregation entry. ``return_type`` is a type string or a PySpark ``DataType``.
        ``kind``: ``scalar`` (row at a time), ``arrow`` (the same, Arrow transfer),
        ``pandas`` (Series → Series), ``grouped_agg`` (Series → scalar, an aggregate).
        The function travels inline (cloudpickled) with each plan that calls it and runs in
        the server's Python workers, which need the same Python minor version (and pandas
        and pyarrow for pandas UDFs). Functions of your own modules are pickled by value, so
        the server does not need those modules (``pickle_by_value`` overrides this).
        Registering a name again replaces it.
        """
        from ..udf import make_inline_udf

        self._session.udfs[name] = make_inline_udf(
            name, func, return_type, kind=kind, deterministic=deterministic, pickle_by_value=pickle_by_value
        )

    def udf(
        self, return_type: Any = "string", *, name: str | None = None, kind: str = "scalar", deterministic: bool = True
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form of :meth:`register_udf` (the name defaults to the function's)::

        @client.udf("bigint")
        def plus_one(x):
            return None if x is None else x + 1
        """

        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            self.register_udf(name or func.__name__, func, return_type, kind=kind, deterministic=deterministic)
            return func

        return register

    def unregister_udf(self, name: str) -> bool:
        """Forget UDF ``name``; True if it was registered."""
        return self._session.udfs.pop(name, None) is not None

    @property
    def udfs(self) -> tuple[str, ...]:
        """Names of the UDFs registered with this client."""
        return tuple(self._session.udfs)
