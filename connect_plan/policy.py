"""What a caller may ask of the server: a :class:`Policy`, checked on the IR before anything is sent.

A service that runs plans written by its own users (people it does not trust with the shared
Spark cluster) passes ``policy=Policy.strict()`` — or a policy of its own, in Python or as JSON
(:meth:`Policy.from_json`) — to ``translate``, ``validate``, ``execute_plan``, ``Client`` (per
client or per call) or the CLI (``--policy strict|FILE.json``). The check runs on the IR
(:mod:`connect_plan.ir`), after parsing and before translation, so it covers every front-end
(JSON plans in all their spellings, the Sparkless shapes, Substrait plans) and every place a
plan can hide a source: the input, ``with`` definitions, join and union right sides, nested
documents. A plan that breaks any rule raises :class:`~connect_plan.errors.PolicyError`
listing every :class:`~connect_plan.errors.Violation` (location, code, rule); nothing is sent.

The default policy (:meth:`Policy.trusted`, also ``Policy()``) allows everything connect_plan
does; :meth:`Policy.strict` is the preset for untrusted input (:data:`STRICT` lists its values).

Names are compared as Spark resolves them (:func:`table_key`): parts case-insensitively,
backticks removed, ``t`` = ``default.t`` = ``spark_catalog.default.t``; a name in any other
form (whitespace or comments between parts, which Spark's parser accepts, non-ASCII) is
refused, not guessed. Paths are compared after normalisation (:func:`parse_path`): the scheme
and host case-insensitively, ``//`` and ``.`` segments collapsed; ``..`` segments, percent
escapes, brace globs, backslashes and commas are refused. What the server's file systems
make of a path (symlinks, mounts) is out of reach: docs/security.md says what that means.

A policy layer module: it reads the IR and the function catalog, never a front-end.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, ClassVar

from . import ir
from .errors import ErrorDetail, InvalidPolicyError, PolicyError, Violation
from .functions import CATALOG
from .names import parse_table_name, pattern_key, table_key
from .records import Value, frozen

__all__ = [
    "DENIED_FUNCTIONS",
    "FILE_SOURCE_NAMES",
    "JOIN_HINTS",
    "SAFE_OPTIONS",
    "STRICT",
    "PathLocation",
    "Policy",
    "parse_path",
    "parse_table_name",
    "table_key",
]

#: functions the strict preset refuses: they run Java code by name, reveal files or the
#: server's identity, or the session's state
DENIED_FUNCTIONS: tuple[str, ...] = (
    "reflect",
    "java_method",
    "try_reflect",
    "input_file_name",
    "input_file_block_start",
    "input_file_block_length",
    "current_user",
    "user",
    "session_user",
    "current_catalog",
    "current_database",
    "current_schema",
    "current_path",
    "version",
)

#: join strategy hints: they change how, not how much (the strict preset allows these only;
#: ``repartition``/``coalesce``/``rebalance`` hints take partition counts)
JOIN_HINTS: tuple[str, ...] = (
    "broadcast",
    "broadcastjoin",
    "mapjoin",
    "merge",
    "shuffle_merge",
    "mergejoin",
    "shuffle_hash",
    "shuffle_replicate_nl",
)

#: hints whose integer parameters are partition counts (bounded by ``max_partitions``)
PARTITION_HINTS: frozenset[str] = frozenset({"repartition", "coalesce", "repartition_by_range", "rebalance"})

#: read/write options that neither name a place nor change where data comes from: the
#: strict preset's ``source_options`` (``path``, ``paths``, ``url``, ``dbtable``, ``query``
#: and every other key are refused; keys are compared case-insensitively, as Spark does)
SAFE_OPTIONS: tuple[str, ...] = (
    "header",
    "inferschema",
    "sep",
    "delimiter",
    "quote",
    "escape",
    "comment",
    "encoding",
    "charset",
    "linesep",
    "multiline",
    "mode",
    "nullvalue",
    "nanvalue",
    "dateformat",
    "timestampformat",
    "samplingratio",
    "mergeschema",
    "compression",
    "ignoreleadingwhitespace",
    "ignoretrailingwhitespace",
    "emptyvalue",
    "primitivesasstring",
    "allowcomments",
    "wholetext",
)

#: data source short names: Spark reads a two-part table name ``parquet.`/some/path``` as
#: those files (``spark.sql.runSQLOnFiles``), so such a name is never a table to this check
FILE_SOURCE_NAMES: frozenset[str] = frozenset(
    {
        "parquet",
        "orc",
        "json",
        "csv",
        "text",
        "avro",
        "xml",
        "binaryfile",
        "image",
        "libsvm",
        "jdbc",
        "delta",
        "iceberg",
        "hudi",
        "kafka",
        "noop",
        "hive",
        "file",
        "files",
        "org",
        "com",
    }
)

#: the save modes a Write has after parsing
WRITE_MODES = ("error", "append", "overwrite", "ignore")
UDF_RULES = ("none", "registered", "any")

#: characters a path may not contain: percent escapes (decoded or not depending on the file
#: system), brace globs (expanded across '/'), backslashes, commas (lists in some readers)
_BAD_PATH_CHARS = re.compile(r"[%{}\\,\x00-\x1f\x7f]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$", re.S)
_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WILDCARD = re.compile(r"[*?\[]")


# --------------------------------------------------------------------------- names and paths


@frozen
class PathLocation(Value):
    """A normalised path: scheme ('' for a bare path, resolved by the server's default file
    system), authority (host, bucket) and segments."""

    scheme: str
    authority: str
    segments: tuple[str, ...]

    def __str__(self) -> str:
        head = f"{self.scheme}://{self.authority}" if self.scheme else ""
        return head + "/" + "/".join(self.segments)

    def under(self, prefix: PathLocation) -> bool:
        return (
            self.scheme == prefix.scheme
            and self.authority == prefix.authority
            and self.segments[: len(prefix.segments)] == prefix.segments
        )


def parse_path(text: str) -> PathLocation | str:
    """A path (``/a/b``, ``file:/a``, ``file:///a``, ``s3a://bucket/a``) normalised as Hadoop
    resolves it, or the reason it is refused (a string)."""
    if not text or _BAD_PATH_CHARS.search(text):
        return "has a character paths may not hold here (%, {, }, \\, ',' or a control character)"
    scheme = ""
    rest = text
    m = _SCHEME.match(text)
    if m is not None and "/" not in m.group(1):
        scheme, rest = m.group(1).lower(), m.group(2)
    authority = ""
    if rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        authority = authority.lower()
        rest = slash + tail
        if scheme == "file" and authority not in ("", "localhost"):
            return "a file: path with a host"
        if scheme == "file":
            authority = ""
        if not scheme:
            return "a path starting with '//' (a host without a scheme)"
    if not rest.startswith("/"):
        return "not an absolute path"
    if ":" in rest:
        return "':' inside a path"
    segments = tuple(s for s in rest.split("/") if s not in ("", "."))
    if ".." in segments:
        return "a '..' segment"
    return PathLocation(scheme, authority, segments)


# --------------------------------------------------------------------------- the policy


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
        checker = _Checker(self, frozenset(registered_udfs))
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


# --------------------------------------------------------------------------- the walk


def _lower_set(names: tuple[str, ...] | None) -> frozenset[str] | None:
    return None if names is None else frozenset(n.lower() for n in names)


#: every name a Spark built-in function may be called by (plan names and Spark names)
_BUILTINS: frozenset[str] = frozenset({n.lower() for n in CATALOG} | {s.spark.lower() for s in CATALOG.values()})


class _Checker:
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

_SOURCES: dict[type, Callable[[_Checker, Any, int], None]] = ir.covering(
    {
        ir.InlineData: _Checker.inline,
        ir.TableSource: _Checker.table,
        ir.FileSource: _Checker.files,
        ir.RangeSource: _Checker.range,
        ir.SqlSource: _Checker.sql,
        ir.SharedPlan: _Checker.shared,
    },
    ir.SOURCE_CLASSES,
    "policy._SOURCES",
)

REVIEWED_SOURCES: frozenset[type] = frozenset(_SOURCES)

#: rules of particular steps, beyond the walk of their expressions and nested plans
_STEPS: dict[type, Callable[[_Checker, Any, int], None]] = ir.partial(
    {
        ir.Join: _Checker.join,
        ir.CrossJoin: _Checker.cross,
        ir.Repartition: _Checker.repartition,
        ir.Tail: _Checker.tail,
        ir.Hint: _Checker.hint,
    },
    ir.STEP_CLASSES,
    "policy._STEPS",
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
