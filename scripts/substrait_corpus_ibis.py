"""ibis as a Substrait producer for the corpus recorder (scripts/record_substrait_corpus.py), run
in ibis' own environment (ibis-framework 9.5 + ibis-substrait 4.0.1 need substrait==0.21.0, which
conflicts with this project's pins; tests/substrait_producers.IBIS_PINS).

``python substrait_corpus_ibis.py JOB.json`` where the job names the tables (name → parquet file),
the queries (id → SQL) and an output folder: each query is parsed into an ibis expression by
``ibis.parse_sql`` (sqlglot underneath) and compiled by ibis-substrait's ``SubstraitCompiler``;
OUT/<id>.pb is the plan, OUT/errors.json the failures ({id: "stage: error"}, stage ``parse_sql``
or ``compile``)."""

# ruff: noqa
import json
import sys

import ibis
import pyarrow as pa
import pyarrow.parquet as pq
from ibis_substrait.compiler.core import SubstraitCompiler


def _norm(t):
    return pa.string() if t == pa.string_view() else t


def main(job_file):
    job = json.load(open(job_file))
    out = job["out"]
    catalog = {}
    for name, path in job["tables"].items():
        sch = pq.read_schema(path)
        sch = pa.schema([pa.field(f.name, _norm(f.type), f.nullable) for f in sch])
        catalog[name] = ibis.Schema.from_pyarrow(sch)
    errors = {}
    for qid, sql in sorted(job["queries"].items()):
        try:
            expr = ibis.parse_sql(sql, catalog)
        except Exception as e:
            errors[qid] = f"parse_sql: {type(e).__name__}: {' '.join(str(e).split())[:300]}"
            continue
        try:
            plan = SubstraitCompiler().compile(expr)
        except Exception as e:
            errors[qid] = f"compile: {type(e).__name__}: {' '.join(str(e).split())[:300]}"
            continue
        with open(f"{out}/{qid}.pb", "wb") as f:
            f.write(plan.SerializeToString())
    with open(f"{out}/errors.json", "w") as f:
        json.dump(errors, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
