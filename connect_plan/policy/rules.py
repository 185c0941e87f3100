"""A :class:`Policy`: what a caller may ask of the server, as rules declared field by field
(:func:`_rule`), with the strict preset (:data:`STRICT`), JSON in and out, and the check of a
plan (:meth:`Policy.check`, the walk of :mod:`.check`)."""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, ClassVar

from .. import ir
from ..errors import ErrorDetail, InvalidPolicyError, PolicyError, Violation
from ..names import parse_table_name, pattern_key, table_key
from ..records import Value, frozen
from .check import Checker
from .paths import PathLocation, parse_path
from .vocabulary import DENIED_FUNCTIONS, FILE_SOURCE_NAMES, JOIN_HINTS, SAFE_OPTIONS, UDF_RULES, WRITE_MODES

__all__ = ["STRICT", "Policy"]

_WILDCARD = re.compile(r"[*?\[]")


def _rule(kind: str, default: Any, doc: str) -> Any:
    """A policy field: its kind (how it is validated and read from JSON), default, meaning."""
    return field(default=default, metadata={"kind": kind, "doc": doc})


@frozen
class Policy(Value):
    """What a plan may ask of the server. Immutable; the defaults allow everything
    (:meth:`trusted`); :meth:`strict` is the preset for untrusted plans; :meth:`replace`
    derives a variant, :meth:`from_json` reads one (unknown keys refused).

    A ``names`` field is a tuple of strings or None: None allows anything, ``()`` nothing.
    A ``count`` field is a non-negative integer or None (no bound)."""

    # sources
    tables: tuple[str, ...] | None = _rule(
        "names",
        None,
        "tables and views a plan may read: patterns db.table or catalog.db.table, '*' per part "
        "(a wildcard database matches catalog.db.table names only)",
    )
    paths: tuple[str, ...] | None = _rule(
        "paths", None, "path prefixes files may be read from (/srv/data, file:/srv/data, s3a://bucket/dir)"
    )
    path_schemes: tuple[str, ...] | None = _rule(
        "names", None, "URL schemes a path read or written may have ('' for a bare path)"
    )
    formats: tuple[str, ...] | None = _rule("names", None, "data source formats files may be read or written in")
    source_options: tuple[str, ...] | None = _rule(
        "names", None, "option keys a read or write may set (compared case-insensitively)"
    )
    sql: bool = _rule("flag", True, "whether a plan may be a SQL query (always sent with parameters, never spliced)")
    max_range_rows: int | None = _rule("count", None, "longest 'range' input, in rows")
    # outputs
    write_tables: tuple[str, ...] | None = _rule("names", None, "tables a plan may write (patterns as for tables)")
    write_paths: tuple[str, ...] | None = _rule("paths", None, "path prefixes a plan may write files under")
    write_modes: tuple[str, ...] | None = _rule(
        "names", None, "save modes a write may use (error, append, overwrite, ignore)"
    )
    temp_views: bool = _rule("flag", True, "whether a plan may create (or replace) a temporary view")
    global_temp_views: bool = _rule("flag", True, "whether a plan may create a global temporary view")
    temp_view_prefix: str = _rule("text", "", "a prefix every temporary view name must start with")
    # session and code
    conf_keys: tuple[str, ...] | None = _rule("names", None, "Spark conf keys a plan document's 'conf' may set")
    udfs: str = _rule(
        "udfs", "any", "'none', 'registered' (only UDFs registered with the client) or 'any' (also server functions)"
    )
    denied_functions: tuple[str, ...] = _rule("functions", (), "functions a plan may not call (plan or Spark names)")
    # size bounds
    max_steps: int | None = _rule("count", None, "most plan steps, nested plans included")
    max_nesting: int | None = _rule("count", None, "deepest nesting of plans in plans (join/union sides, 'with')")
    max_inline_rows: int | None = _rule("count", None, "most inline rows, all inputs together")
    max_inline_bytes: int | None = _rule("count", None, "most bytes of inline data (as Arrow), all inputs together")
    require_limit: bool = _rule("flag", False, "the plan's last step must be a limit (or tail) of at most max_rows")
    max_partitions: int | None = _rule("count", None, "largest partition count (repartition, coalesce, range, hints)")
    hints: tuple[str, ...] | None = _rule("names", None, "hint names a plan may give")
    cross_joins: bool = _rule("flag", True, "whether a plan may join without a condition (a cartesian product)")
    # result bounds
    max_rows: int | None = _rule("count", None, "most rows returned (a limit is added on top of the plan)")
    max_bytes: int | None = _rule("count", None, "most bytes of Arrow data returned (the result is cut there)")
    timeout: float | None = _rule("seconds", None, "longest a call may run, in seconds (then it is interrupted)")
    # resolution
    current_database: str = _rule("text", "default", "the database a one-part table name resolves in")

    _table_keys: tuple[tuple[str, str, str], ...] | None = field(default=None, init=False, repr=False, compare=False)
    _write_table_keys: tuple[tuple[str, str, str], ...] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _path_prefixes: tuple[PathLocation, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _write_prefixes: tuple[PathLocation, ...] | None = field(default=None, init=False, repr=False, compare=False)

    FIELDS: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        problems: list[ErrorDetail] = []
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value, problem = _coerce(f.metadata["kind"], getattr(self, f.name))
            if problem:
                problems.append(ErrorDetail("policy_value", f"/{f.name}", problem, getattr(self, f.name)))
            else:
                object.__setattr__(self, f.name, value)
        if problems:
            raise InvalidPolicyError(problems)
        db = self.current_database
        for name, source, target in (
            ("tables", self.tables, "_table_keys"),
            ("write_tables", self.write_tables, "_write_table_keys"),
        ):
            if source is not None:
                keys = []
                for i, pattern in enumerate(source):
                    key = pattern_key(pattern, db)
                    if key is None:
                        problems.append(
                            ErrorDetail("policy_value", f"/{name}/{i}", "not a table pattern (db.table)", pattern)
                        )
                    else:
                        keys.append(key)
                object.__setattr__(self, target, tuple(keys))
        for name, source, target in (
            ("paths", self.paths, "_path_prefixes"),
            ("write_paths", self.write_paths, "_write_prefixes"),
        ):
            if source is not None:
                prefixes = []
                for i, text in enumerate(source):
                    where = parse_path(text)
                    if isinstance(where, str):
                        problems.append(
                            ErrorDetail("policy_value", f"/{name}/{i}", f"not a path prefix: {where}", text)
                        )
                    else:
                        prefixes.append(where)
                object.__setattr__(self, target, tuple(prefixes))
        if self.write_modes is not None:
            for i, mode in enumerate(self.write_modes):
                if mode not in WRITE_MODES:
                    problems.append(
                        ErrorDetail("policy_value", f"/write_modes/{i}", f"not a save mode {WRITE_MODES}", mode)
                    )
        if problems:
            raise InvalidPolicyError(problems)

    # ------------------------------------------------------------ presets and variants

    @classmethod
    def trusted(cls) -> Policy:
        """Everything connect_plan can do (the default: plans from the program itself)."""
        return cls()

    @classmethod
    def strict(cls) -> Policy:
        """The preset for plans from people you do not trust (:data:`STRICT`): inline rows
        and bounded ranges only; no tables, files or SQL; no writes, views, conf changes or
        UDFs; the functions of :data:`DENIED_FUNCTIONS` refused; sizes and results bounded.
        Open what a service needs with :meth:`replace` (``tables=("sales.*",)``)."""
        return cls(**STRICT)

    def replace(self, **changes: Any) -> Policy:
        """A copy with ``changes`` (checked as the constructor checks them)."""
        unknown = sorted(set(changes) - set(self.FIELDS))
        if unknown:
            raise InvalidPolicyError([ErrorDetail("policy_key", f"/{k}", "not a policy field", k) for k in unknown])
        return dataclasses.replace(self, **changes)

    def denying(self, *functions: str) -> Policy:
        """A copy that also refuses ``functions`` (the user's extension of the deny-list)."""
        return self.replace(denied_functions=(*self.denied_functions, *functions))

    @property
    def is_trusted(self) -> bool:
        """True when this policy refuses nothing (its checks are skipped)."""
        return self == Policy()

    # ------------------------------------------------------------ JSON

    @classmethod
    def from_json(cls, doc: str | bytes | Mapping[str, Any]) -> Policy:
        """A policy from its JSON form (text or a parsed object): the field names of this class
        as keys, lists for tuples, null for None. It starts from the strict preset unless it
        says ``"extends": "trusted"``; ``"also_denied_functions"`` extends the base's deny-list.
        Every unknown key and malformed value is reported at once (:class:`InvalidPolicyError`)."""
        if isinstance(doc, (str, bytes)):
            try:
                doc = json.loads(doc)
            except (ValueError, RecursionError) as exc:
                raise InvalidPolicyError([ErrorDetail("policy_value", "/", f"not valid JSON: {exc}")]) from None
        if not isinstance(doc, Mapping):
            raise InvalidPolicyError([ErrorDetail("policy_value", "/", "a policy is a JSON object", doc)])
        problems: list[ErrorDetail] = []
        base_name = doc.get("extends", "strict")
        if base_name not in ("strict", "trusted"):
            problems.append(ErrorDetail("policy_value", "/extends", "'extends' is 'strict' or 'trusted'", base_name))
            base_name = "strict"
        base = cls.strict() if base_name == "strict" else cls.trusted()
        changes: dict[str, Any] = {}
        also: tuple[str, ...] = ()
        for key, value in doc.items():
            if key == "extends":
                continue
            if key == "also_denied_functions":
                value, problem = _coerce("functions", value)
                if problem:
                    problems.append(ErrorDetail("policy_value", f"/{key}", problem, value))
                else:
                    also = value
            elif key not in cls.FIELDS:
                problems.append(ErrorDetail("policy_key", f"/{key}", "not a policy field", key))
            else:
                changes[key] = tuple(value) if isinstance(value, list) else value
        if also:
            denied = changes.get("denied_functions", base.denied_functions)
            changes["denied_functions"] = (*denied, *also) if isinstance(denied, tuple) else denied
        try:
            policy = base.replace(**changes)
        except InvalidPolicyError as exc:
            raise InvalidPolicyError(problems + list(exc.details)) from None
        if problems:
            raise InvalidPolicyError(problems)
        return policy

    @classmethod
    def from_file(cls, path: str | Path) -> Policy:
        """A policy from a JSON file (see :meth:`from_json`)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidPolicyError([ErrorDetail("policy_value", "/", f"cannot read {path}: {exc}")]) from None
        return cls.from_json(text)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``from_json`` of it gives this policy back)."""
        out: dict[str, Any] = {"extends": "trusted"}
        for name in self.FIELDS:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def describe_fields(cls) -> list[tuple[str, str, str]]:
        """``(field, kind, meaning)`` of every rule (the docs' table)."""
        return [(f.name, f.metadata["kind"], f.metadata["doc"]) for f in dataclasses.fields(cls) if f.init]

    # ------------------------------------------------------------ checking

    def violations(self, plan: ir.Plan, *, registered_udfs: Collection[str] = ()) -> list[Violation]:
        """Every rule ``plan`` breaks, in document order (empty: the plan is allowed)."""
        if self.is_trusted:
            return []
        checker = Checker(self, frozenset(registered_udfs))
        checker.plan(plan, 0, top=True)
        checker.totals(plan)
        return checker.found

    def check(self, plan: ir.Plan, *, registered_udfs: Collection[str] = ()) -> None:
        """Raise :class:`~connect_plan.errors.PolicyError` listing every violation of ``plan``."""
        found = self.violations(plan, registered_udfs=registered_udfs)
        if found:
            raise PolicyError(found)

    def bounds(
        self, max_rows: int | None, max_bytes: int | None, timeout: float | None
    ) -> tuple[int | None, int | None, float | None]:
        """A call's result bounds under this policy: the tighter of the call's and the policy's."""
        return (_tighter(max_rows, self.max_rows), _tighter(max_bytes, self.max_bytes), _tighter(timeout, self.timeout))

    def allows_table(self, name: str) -> bool:
        """Would a read of table ``name`` pass (as written in a plan)?"""
        return self._table_problem(name, self.tables, self._table_keys) is None

    def allows_path(self, path: str) -> bool:
        """Would a read of file ``path`` pass (its location only; formats and options aside)?"""
        return self._path_problem(path, self.paths, self._path_prefixes) is None

    def _table_problem(
        self, name: str, allowed: tuple[str, ...] | None, keys: tuple[tuple[str, str, str], ...] | None
    ) -> str | None:
        if allowed is None or keys is None:
            return None
        if not keys:
            return "this policy allows no tables"
        parts = parse_table_name(name)
        if parts is None:
            return f"table name {name!r} is not in a form this policy compares (plain or backticked ASCII parts)"
        if len(parts) == 2 and parts[0].lower() in FILE_SOURCE_NAMES:
            return f"{name!r} reads files (Spark reads '<format>.<path>' as files), not a table"
        key = table_key(parts, self.current_database)
        if key is None:
            return f"table name {name!r} has a form this policy does not resolve"
        for pattern in keys:
            if len(parts) == 2 and _WILDCARD.search(pattern[1]):
                # Spark may read any two-part name '<data source>.<path>' as files, for every
                # data source on its class path: a wildcard database never matches one
                continue
            if all(fnmatch.fnmatchcase(k, p) for k, p in zip(key, pattern)):
                return None
        hint = ""
        if len(parts) == 2 and any(_WILDCARD.search(p[1]) for p in keys):
            hint = " (a pattern with a wildcard database matches names written with their catalog only)"
        return f"table {'.'.join(key)} is not one this policy allows{hint}"

    def _path_problem(
        self, path: str, allowed: tuple[str, ...] | None, prefixes: tuple[PathLocation, ...] | None
    ) -> str | None:
        if allowed is None or prefixes is None:
            if self.path_schemes is None:
                return None
        where = parse_path(path)
        if isinstance(where, str):
            return f"path {path!r} is refused: {where}"
        if self.path_schemes is not None and where.scheme not in self.path_schemes:
            return f"scheme {where.scheme or '(none)'!r} is not one this policy allows"
        if prefixes is not None and not any(where.under(p) for p in prefixes):
            return f"path {where} is under no prefix this policy allows"
        return None


Policy.FIELDS = tuple(f.name for f in dataclasses.fields(Policy) if f.init)

#: the strict preset's values (:meth:`Policy.strict`)
STRICT: dict[str, Any] = {
    "tables": (),
    "paths": (),
    "path_schemes": (),
    "formats": ("parquet", "csv", "json", "orc", "text", "avro"),
    "source_options": SAFE_OPTIONS,
    "sql": False,
    "max_range_rows": 10_000_000,
    "write_tables": (),
    "write_paths": (),
    "write_modes": ("error", "ignore"),
    "temp_views": False,
    "global_temp_views": False,
    "conf_keys": (),
    "udfs": "none",
    "denied_functions": DENIED_FUNCTIONS,
    "max_steps": 200,
    "max_nesting": 8,
    "max_inline_rows": 100_000,
    "max_inline_bytes": 32 * 1024 * 1024,
    "max_partitions": 200,
    "hints": JOIN_HINTS,
    "cross_joins": False,
    "max_rows": 100_000,
    "max_bytes": 64 * 1024 * 1024,
    "timeout": 120.0,
}


def _tighter(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _coerce(kind: str, value: Any) -> tuple[Any, str | None]:
    """A field's value in its canonical form (tuples, lower-cased names where Spark compares
    them so), or a sentence saying what is wrong."""
    if kind in ("names", "paths", "functions"):
        if value is None and kind != "functions":
            return None, None
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, frozenset, set)):
            return value, "must be a list of strings" + ("" if kind == "functions" else " or null")
        items = tuple(value)
        if not all(isinstance(v, str) for v in items):
            return value, "must be a list of strings"
        if kind == "functions":
            items = tuple(dict.fromkeys(v.lower() for v in items))
        return items, None
    if kind == "flag":
        return (value, None) if isinstance(value, bool) else (value, "must be true or false")
    if kind == "count":
        if value is None:
            return None, None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return value, "must be a non-negative integer or null"
        return value, None
    if kind == "seconds":
        if value is None:
            return None, None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < math.inf):
            return value, "must be a positive number of seconds or null"
        return float(value), None
    if kind == "udfs":
        return (value, None) if value in UDF_RULES else (value, f"must be one of {UDF_RULES}")
    if kind == "text":
        return (value, None) if isinstance(value, str) else (value, "must be a string")
    raise AssertionError(kind)  # pragma: no cover (every field's kind is one of the above)
