"""ibis as a Substrait producer, run by tests/substrait_producers.py in its own environment
(ibis-framework 9.5 + ibis-substrait 4.0.1 need substrait==0.21.0, which conflicts with this
project's pins): ``python substrait_ibis_gen.py DATA_DIR OUT_DIR`` writes OUT_DIR/qNN.pb (the plan
of ibis's own TPC-H query NN, from the suite in ibis's wheel) and OUT_DIR/qNN.sql (the same ibis
expression compiled to SQL and transpiled to Spark's dialect: the oracle), and results.json."""

# ruff: noqa
import glob
import inspect
import json
import os
import sys

import ibis
import pyarrow as pa
import pyarrow.parquet as pq
import ibis.backends.tests.tpc.h.test_queries as tq
from ibis_substrait.compiler.core import SubstraitCompiler

data, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def norm(t):
    return pa.string() if t == pa.string_view() else t


tables = {}
for f in sorted(glob.glob(f"{data}/*.parquet")):
    name = os.path.basename(f)[:-8]
    sch = pq.read_schema(f)
    sch = pa.schema([pa.field(x.name, norm(x.type), x.nullable) for x in sch])
    tables[name] = ibis.table(ibis.Schema.from_pyarrow(sch), name=name)
results = {}
for n in range(1, 23):
    fn = getattr(tq, f"test_{n:02d}")
    fn = getattr(fn, "__wrapped__", fn)
    if fn.__name__ == "inner":
        fn = next(c.cell_contents for c in fn.__closure__ if callable(c.cell_contents))
    args = {p: tables[p] for p in inspect.signature(fn).parameters}
    try:
        expr = fn(**args)
        plan = SubstraitCompiler().compile(expr)
        open(f"{out}/q{n:02d}.pb", "wb").write(plan.SerializeToString())
        results[n] = "ok"
        try:
            import sqlglot

            sql = sqlglot.transpile(ibis.to_sql(expr, dialect="duckdb"), read="duckdb", write="spark")[0]
            open(f"{out}/q{n:02d}.sql", "w").write(sql)
        except Exception as e:
            results[n] = f"ok, no Spark SQL: {type(e).__name__}: {str(e)[:100]}"
    except Exception as e:
        results[n] = f"{type(e).__name__}: {str(e)[:200]}"
json.dump(results, open(f"{out}/results.json", "w"), indent=1)
print(results)
