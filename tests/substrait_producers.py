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

import json
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


def duckdb_plans(tpch: Tpch) -> dict[int, bytes | str]:
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
    for name, path in tpch.files.items():
        con.sql(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{path}')")
    out: dict[int, bytes | str] = {}
    for n, q in tpch.queries.items():
        try:
            out[n] = con.get_substrait(q, enable_optimizer=True).fetchone()[0]
        except Exception as e:
            out[n] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    con.close()
    return out


def isthmus_jar(cache: Path) -> str | None:
    """Isthmus 0.5's jar, from PyPI's ``substrait-tools`` 0.0.3. Its dependencies (ibis, an old
    ``substrait``, protobuf 6) conflict with this project's, so the wheel is downloaded alone
    (``--no-deps``) and only its jar is used, on the machine's Java."""
    if shutil.which("java") is None:
        return None
    jar = cache / "isthmus-0.5.0-all.jar"
    if not jar.exists():
        import sys
        import zipfile

        cache.mkdir(parents=True, exist_ok=True)
        p = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(cache), "substrait-tools==0.0.3"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        wheels = list(cache.glob("substrait_tools-0.0.3-*.whl"))
        if p.returncode != 0 or not wheels:
            return None
        with zipfile.ZipFile(wheels[0]) as z:
            jar.write_bytes(z.read("produce_substrait/jars/isthmus-0.5.0-all.jar"))
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


def ibis_plans(tpch: Tpch, env: Path) -> dict[int, tuple[bytes, str] | str] | None:
    """ibis' TPC-H plans (with ibis' own SQL for each, in Spark's dialect), made in an environment
    of their own (``env``, built once with pip: the pins conflict with this project's). None when
    the environment cannot be built (no PyPI)."""
    import venv

    python = env / "bin" / "python"
    if not python.exists():
        venv.create(env, with_pip=True)
        p = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *IBIS_PINS], capture_output=True, text=True, timeout=900
        )
        if p.returncode != 0:
            return None
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
