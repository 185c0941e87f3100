"""TPC-DS (sf 0.01) as DataFusion Substrait plans on Spark through connect_plan, each compared with
Spark SQL's answer for the same query text on the same data: prints one line per query and the
counts (docs/substrait.md records them). Too slow for the test suite (99 queries, each run twice).

Usage: SPARK_REMOTE=sc://host:port python scripts/substrait_tpcds.py [OUT_DIR] [QUERY ...]
Needs duckdb==1.1.3 (data and query texts: its statically linked tpcds extension) and datafusion.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.substrait_producers import assert_same_answer


def main(argv: list[str]) -> int:
    import duckdb
    from datafusion import SessionContext
    from datafusion.substrait import Serde
    from pyspark.sql import SparkSession

    import connect_plan

    out_dir = Path(argv[0]) if argv and not argv[0].isdigit() else Path(tempfile.mkdtemp(prefix="tpcds-"))
    only = {int(a) for a in argv if a.isdigit()}
    data = out_dir / "data"
    data.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.sql("CALL dsdgen(sf=0.01)")
    files = {}
    for (name,) in con.sql("SHOW TABLES").fetchall():
        path = data / f"{name}.parquet"
        con.sql(f"COPY {name} TO '{path}' (FORMAT parquet)")
        files[name] = str(path)
    queries = {int(n): q for n, q in con.sql("SELECT query_nr, query FROM tpcds_queries()").fetchall()}
    ctx = SessionContext()
    for name, path in files.items():
        ctx.register_parquet(name, path)
    spark = SparkSession.builder.remote(os.environ["SPARK_REMOTE"]).getOrCreate()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    # DuckDB's TPC-DS texts quote aliases with double quotes (identifiers in ANSI SQL)
    spark.conf.set("spark.sql.ansi.doubleQuotedIdentifiers", "true")
    for name, path in files.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    tables = {name: {"files": [path], "format": "parquet"} for name, path in files.items()}
    results: dict[int, dict[str, Any]] = {}
    with connect_plan.connect(conf={"spark.sql.session.timeZone": "UTC"}) as client:
        for n, q in sorted(queries.items()):
            if only and n not in only:
                continue
            start = time.monotonic()
            try:
                plan = Serde.serialize_to_plan(q, ctx).encode()
            except Exception as e:
                results[n] = {"status": "not produced", "why": f"{type(e).__name__}: {str(e)[:200]}"}
            else:
                try:
                    ours = client.execute(plan, tables=tables)
                except Exception as e:
                    results[n] = {"status": "connect_plan error", "why": f"{type(e).__name__}: {str(e)[:300]}"}
                else:
                    try:
                        theirs = spark.sql(q).toArrow()
                    except Exception as e:
                        results[n] = {"status": "spark sql error", "why": str(e)[:200]}
                    else:
                        try:
                            assert_same_answer(ours, theirs)
                            results[n] = {"status": "equal"}
                        except AssertionError as e:
                            results[n] = {"status": "different", "why": str(e)[:300]}
            results[n]["seconds"] = round(time.monotonic() - start, 1)
            print(f"q{n:02d}", json.dumps(results[n]), flush=True)
    (out_dir / "results.json").write_text(json.dumps(results, indent=1))
    print(dict(Counter(r["status"] for r in results.values())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
