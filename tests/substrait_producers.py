"""Real Substrait producers, run at test time: TPC-H data and query texts, and each producer's
plans for them. Each producer is optional (its package may be missing: the tests skip).

- DuckDB 1.1.3 (its statically linked ``tpch`` extension) makes the data (``CALL dbgen``) and
  gives the 22 query texts (``tpch_queries()``); with ``duckdb-extension-substrait`` it is
  also a producer (``get_substrait``).
- DataFusion (``datafusion.substrait.Serde.serialize_to_plan``) plans the same texts.
- Isthmus (substrait-java's SQL→Substrait, the jar in PyPI's ``substrait-tools``) runs on
  the machine's Java with a DDL made from the parquet schemas.
"""

from __future__ import annotations

import decimal
import json
import math
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TABLES = ("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier")


@dataclass
class Tpch:
    root: Path
    queries: dict[int, str]
    files: dict[str, str] = field(default_factory=dict)

    def tables(self) -> dict[str, Any]:
        """The ``tables=`` mapping: each table name → its parquet file."""
        return {name: {"files": [path], "format": "parquet"} for name, path in self.files.items()}


def make_tpch(root: Path, scale: float = 0.01) -> Tpch:
    import duckdb

    con = duckdb.connect()
    con.sql(f"CALL dbgen(sf={scale})")
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    files = {}
    for name in TABLES:
        path = data / f"{name}.parquet"
        con.sql(f"COPY {name} TO '{path}' (FORMAT parquet)")
        files[name] = str(path)
    queries = {int(n): q for n, q in con.sql("SELECT query_nr, query FROM tpch_queries()").fetchall()}
    con.close()
    return Tpch(root, queries, files)


#: (producer, query) → a producer bug that changes the plan's meaning (the plan is wrong, not us)
_IBIS_OUTER = "ibis-substrait 4.0.1 drops outer references: a correlated subquery compares its own columns"
PRODUCER_BUGS: dict[tuple[str, int], str] = {
    ("duckdb", 13): "DuckDB 1.1.3 writes NOT LIKE as not_equal:string_string (its own consumer maps it back)",
    **{("ibis", q): _IBIS_OUTER for q in (2, 4, 20, 21, 22)},
    ("ibis", 7): "ibis-substrait 4.0.1 drops the projection that computes l_year and volume (no extract in the "
    "plan): the aggregate reads other columns",
    ("ibis", 9): "ibis-substrait 4.0.1's plan differs from ibis' own SQL for the expression (428 rows vs 173; "
    "DuckDB's consumer reads the plan as we do)",
    ("ibis", 11): "ibis-substrait 4.0.1's plan differs from ibis' own SQL for the expression (374 rows vs 359; "
    "DuckDB's consumer reads the plan as we do)",
}


# ------------------------------------------------------------------ answers


def _sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((x is None, round(float(x), 2) if isinstance(x, (decimal.Decimal, float)) else x) for x in row)


def _rows(table: Any) -> list[tuple[Any, ...]]:
    cols = [c.to_pylist() for c in table.columns]
    return sorted((tuple(r) for r in zip(*cols)), key=_sort_key)


def _close(u: Any, v: Any) -> bool:
    """Numbers (decimal or float) to 1e-6 relative, or to one unit of a decimal's last digit:
    Spark SQL's decimal answers are rounded to their scale (an average of a decimal(15,2) has
    6 digits after the point) where another plan's types may keep a double, and engines round
    or truncate that last digit differently."""
    if isinstance(u, decimal.Decimal) and isinstance(v, decimal.Decimal):
        unit_d = max(decimal.Decimal(1).scaleb(int(d.as_tuple().exponent)) for d in (u, v))
        return abs(u - v) <= unit_d or math.isclose(float(u), float(v), rel_tol=1e-6)
    if isinstance(u, (decimal.Decimal, float)) and isinstance(v, (decimal.Decimal, float)):
        unit = max((10.0 ** int(d.as_tuple().exponent) for d in (u, v) if isinstance(d, decimal.Decimal)), default=0.0)
        return math.isclose(float(u), float(v), rel_tol=1e-6, abs_tol=max(1e-9, unit))
    return bool(u == v)


def assert_same_answer(ours: Any, theirs: Any) -> None:
    """Same rows (any order: ties in ORDER BY may come either way); numbers equal to 1e-6 relative
    or to the last digit of a decimal (:func:`_close`): a plan's types are its producer's, which
    may differ from what Spark SQL infers for the same text (DuckDB and DataFusion divide decimals
    as doubles in q14; Spark SQL keeps a decimal of scale 6), so digits past the sixth may differ."""
    assert ours.num_columns == theirs.num_columns, (ours.schema, theirs.schema)
    a, b = _rows(ours), _rows(theirs)
    assert len(a) == len(b), (len(a), len(b))
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            assert _close(u, v), (x, y)


# ------------------------------------------------------------------ producers


def datafusion_plans(tpch: Tpch) -> dict[int, bytes | str]:
    """Every query's plan, or the producer's error text."""
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    for name, path in tpch.files.items():
        ctx.register_parquet(name, path)
    out: dict[int, bytes | str] = {}
    for n, q in tpch.queries.items():
        try:
            out[n] = Serde.serialize_to_plan(q, ctx).encode()
        except Exception as e:  # the producer's own failure: recorded, not ours
            out[n] = f"{type(e).__name__}: {e}"
    return out


def duckdb_with_tables(files: dict[str, str]) -> Any:
    """A DuckDB connection with its substrait extension loaded and each parquet file a table
    (the producer here, and a consumer in scripts/substrait_matrix.py)."""
    import duckdb
    import duckdb_extension_substrait

    ext = os.path.join(
        os.path.dirname(duckdb_extension_substrait.__file__),
        "extensions",
        f"v{duckdb.__version__}",
        "substrait.duckdb_extension",
    )
    con = duckdb.connect()
    con.load_extension(ext)  # the signed extension shipped in the wheel: no download
    for name, path in files.items():  # DuckDB's identifiers are case-insensitive
        con.sql(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{path}')")
    return con


def duckdb_plans(tpch: Tpch) -> dict[int, bytes | str]:
    con = duckdb_with_tables(tpch.files)
    out: dict[int, bytes | str] = {}
    for n, q in tpch.queries.items():
        try:
            out[n] = con.get_substrait(q, enable_optimizer=True).fetchone()[0]
        except Exception as e:
            out[n] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    con.close()
    return out


def cache_dir() -> Path:
    """Where the producers' downloads and environments are kept between runs, under names that
    carry their versions: the user's cache directory (``XDG_CACHE_HOME``, else ``~/.cache``).
    Each is made whole in a directory of its own, then renamed into place: a run stopped half
    way, or two runs at once, never leave a half-made one under the final name."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "connect_plan" / "test-producers"


def isthmus_jar(cache: Path | None = None) -> str | None:
    """Isthmus 0.5's jar, from PyPI's ``substrait-tools`` 0.0.3. Its dependencies (ibis, an old
    ``substrait``, protobuf 6) conflict with this project's, so the wheel is downloaded alone
    (``--no-deps``) and only its jar is used, on the machine's Java. Kept in ``cache``
    (default :func:`cache_dir`)."""
    if shutil.which("java") is None:
        return None
    cache = cache_dir() if cache is None else cache
    jar = cache / "isthmus-0.5.0-all.jar"
    if not jar.exists():
        import sys
        import tempfile
        import zipfile

        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache, prefix=".isthmus-") as tmp:
            p = subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, "substrait-tools==0.0.3"],
                capture_output=True,
                text=True,
                timeout=600,
            )
            wheels = list(Path(tmp).glob("substrait_tools-0.0.3-*.whl"))
            if p.returncode != 0 or not wheels:
                return None
            with zipfile.ZipFile(wheels[0]) as z:
                (Path(tmp) / jar.name).write_bytes(z.read("produce_substrait/jars/isthmus-0.5.0-all.jar"))
            os.replace(Path(tmp) / jar.name, jar)
    return str(jar)


def _sql_type(t: Any) -> str:
    import pyarrow as pa

    if pa.types.is_int64(t):
        return "BIGINT"
    if pa.types.is_int32(t):
        return "INTEGER"
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision},{t.scale})"
    if pa.types.is_date32(t):
        return "DATE"
    return "VARCHAR"


#: Isthmus 0.5's Calcite dialect: two text changes with the same meaning
ISTHMUS_TEXT_FIXES: dict[int, list[tuple[str, str]]] = {
    # VALUE is a reserved word in Calcite
    11: [("AS value", 'AS "VALUE"'), ("    value DESC", '    "VALUE" DESC')],
    # GROUP BY <select alias> is rejected even in its lenient conformance modes
    15: [("GROUP BY\n        supplier_no", "GROUP BY\n        l_suppkey")],
}


def isthmus_plans(tpch: Tpch, jar: str) -> dict[int, bytes | str]:
    import pyarrow.parquet as pq

    ddl = []
    for name, path in tpch.files.items():
        schema = pq.read_schema(path)
        cols = ", ".join(f"{f.name} {_sql_type(f.type)}" + ("" if f.nullable else " NOT NULL") for f in schema)
        ddl.append(f"CREATE TABLE {name.upper()} ({cols})")
    # one JVM for every query (-m: statements separated by semicolons; one root relation each),
    # then one plan per root with the shared extension declarations
    texts = []
    for n, q in sorted(tpch.queries.items()):
        text = q.strip().rstrip(";")
        for old, new in ISTHMUS_TEXT_FIXES.get(n, []):
            text = text.replace(old, new)
        texts.append(text)
    args = ["java", "-jar", jar, "-m"]
    for d in ddl:
        args += ["-c", d]
    args += ["--crossjoinpolicy=KEEP_AS_CROSS_JOIN", ";\n".join(texts)]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or not p.stdout.strip().startswith("{"):
        error = (p.stderr or p.stdout)[-500:]
        return dict.fromkeys(tpch.queries, error)
    doc = json.loads(p.stdout)
    roots = doc["relations"]
    if len(roots) != len(texts):
        return dict.fromkeys(tpch.queries, f"isthmus wrote {len(roots)} plans for {len(texts)} queries")
    out: dict[int, bytes | str] = {}
    for n, root in zip(sorted(tpch.queries), roots):
        out[n] = json.dumps({**doc, "relations": [root]})
    return out


IBIS_PINS = (
    "ibis-framework==9.5.0",
    "ibis-substrait==4.0.1",
    "substrait==0.21.0",
    "pyarrow",
    "pyarrow_hotfix",
    "pytest",
    "sqlglot",
)


def ibis_env(cache: Path | None = None) -> Path | None:
    """The virtualenv of :data:`IBIS_PINS` (they conflict with this project's), built once with
    pip in ``cache`` (default :func:`cache_dir`) under a name keyed by the pins and this Python;
    None when it cannot be built (no PyPI)."""
    import hashlib
    import sys
    import tempfile
    import venv

    cache = cache_dir() if cache is None else cache
    key = hashlib.sha256(repr((IBIS_PINS, sys.version, sys.base_prefix)).encode()).hexdigest()[:12]
    env = cache / f"ibis-env-{key}"
    if (env / "bin" / "python").exists():
        return env
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".ibis-env-", ignore_cleanup_errors=True) as tmp:
        venv.create(tmp, with_pip=True)
        p = subprocess.run(
            [str(Path(tmp) / "bin" / "python"), "-m", "pip", "install", "-q", *IBIS_PINS],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if p.returncode != 0:
            return None
        try:  # the interpreter is a link to this one's and finds its packages next to it: it may move
            os.rename(tmp, env)
        except OSError:  # another run built it first
            if not (env / "bin" / "python").exists():
                raise
    return env


def ibis_plans(tpch: Tpch, env: Path | None) -> dict[int, tuple[bytes, str] | str] | None:
    """ibis' TPC-H plans (with ibis' own SQL for each, in Spark's dialect), made in ``env`` (see
    :func:`ibis_env`). None when there is no environment."""
    if env is None:
        return None
    python = env / "bin" / "python"
    out = tpch.root / "ibis-plans"
    gen = Path(__file__).with_name("substrait_ibis_gen.py")
    p = subprocess.run(
        [str(python), str(gen), str(tpch.root / "data"), str(out)], capture_output=True, text=True, timeout=600
    )
    if p.returncode != 0:
        return None
    results = json.loads((out / "results.json").read_text())
    plans: dict[int, tuple[bytes, str] | str] = {}
    for key, status in results.items():
        n = int(key)
        pb, sql = out / f"q{n:02d}.pb", out / f"q{n:02d}.sql"
        plans[n] = (pb.read_bytes(), sql.read_text()) if status == "ok" and sql.exists() else status
    return plans
