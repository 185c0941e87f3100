"""Record real producers' Substrait plans for TPC-H into tests/data/substrait/tpch/ (the layout is
described in tests/substrait_recorded.py): the query texts, each producer's plan per query as
Substrait JSON, the producer's own error for a query it cannot plan, and for ibis (which plans its
own TPC-H expressions) ibis' own SQL beside each plan.

The producers are run as tests/substrait_producers.py runs them for the live TPC-H test: DuckDB
1.1.3 makes the data (``CALL dbgen``, sf 0.01) and the 22 query texts (``tpch_queries()``) and is a
producer (its substrait extension); DataFusion (``Serde.serialize_to_plan``); Isthmus 0.5 (the jar
of PyPI's substrait-tools 0.0.3, downloaded with --no-deps, on the machine's Java); ibis 9.5 +
ibis-substrait 4.0.1 (in an environment of their own, built with pip).

Each plan is read through connect_plan's superset schema (an unknown field stops the recording)
and written as that message's JSON. Nothing is lost, and this is checked for every plan: the JSON
read back is the same message, and for a producer that writes binary protobuf it re-encodes to
the producer's own bytes (or, where a producer's encoder orders fields otherwise, to the same
message); for Isthmus (JSON) the recorded JSON reads back to the message of Isthmus' own text.

Usage:
  python scripts/record_substrait.py [--producers datafusion,duckdb,isthmus,ibis] [--work DIR]
--work keeps the data, Isthmus' jar and ibis' environment between runs (default: a temporary
folder). Then regenerate the goldens: python -m pytest tests/unit/test_golden.py --update-goldens
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import substrait_producers as sp  # noqa: E402
from tests import substrait_recorded as rec  # noqa: E402

SUITE = "tpch"
PRODUCERS = ("datafusion", "duckdb", "isthmus", "ibis")


def query_id(n: int) -> str:
    return f"q{n:02d}"


def _clean(error: str, work: Path) -> str:
    """A producer's error as one stable text: the temporary folder's path replaced by ``<work>``."""
    return re.sub(r"\s+\Z", "", error.replace(str(work), "<work>"))


def lossless(original: bytes | str) -> tuple[Any, str]:
    """The producer's plan as a superset message, and how its losslessness was shown: the
    recorded JSON reads back to the same message, and (binary) that message re-encodes to the
    producer's own bytes ("bytes") or at least parses from them to the same message ("message")."""
    from connect_plan.formats.substrait.proto import parse_substrait

    msg = parse_substrait(original)  # strict: an unknown field (binary or JSON) is an error
    again = parse_substrait(rec.plan_json(msg))
    if again != msg:
        raise AssertionError("the recorded JSON does not read back to the producer's message")
    if isinstance(original, bytes):
        if again.SerializeToString() == original:
            return msg, "bytes"
        if parse_substrait(again.SerializeToString()) != parse_substrait(original):
            raise AssertionError("the recorded JSON's message re-encodes to other bytes")
        return msg, "message"
    return msg, "message (JSON)"


def produce(producer: str, tpch: sp.Tpch, work: Path) -> tuple[dict[int, Any], dict[int, str]]:
    """query → the producer's plan (binary or JSON text), and query → the producer's own SQL (ibis)."""
    if producer == "datafusion":
        return dict(sp.datafusion_plans(tpch)), {}
    if producer == "duckdb":
        return dict(sp.duckdb_plans(tpch)), {}
    if producer == "isthmus":
        jar = sp.isthmus_jar(work / "isthmus")
        if jar is None:
            raise RuntimeError("Isthmus' jar could not be had (needs java and PyPI)")
        return dict(sp.isthmus_plans(tpch, jar)), {}
    made = sp.ibis_plans(tpch, work / "ibis-env")
    if made is None:
        raise RuntimeError("ibis' environment could not be built (needs PyPI)")
    plans: dict[int, Any] = {}
    sqls: dict[int, str] = {}
    out = tpch.root / "ibis-plans"
    for n, made_n in made.items():
        pb = out / f"q{n:02d}.pb"
        if isinstance(made_n, tuple):
            plans[n], sqls[n] = made_n
        elif made_n.startswith("ok") and pb.exists():  # planned, but ibis' SQL did not transpile
            plans[n] = pb.read_bytes()
        else:
            plans[n] = made_n
    return plans, sqls


def record(producer: str, tpch: sp.Tpch, work: Path) -> dict[str, int]:
    made, sqls = produce(producer, tpch, work)
    plans: dict[str, Any] = {}
    errors: dict[str, str] = {}
    proofs: dict[str, int] = {}
    for n in sorted(tpch.queries):
        plan = made.get(n, "not planned")
        if isinstance(plan, str) and not plan.lstrip().startswith("{"):
            errors[query_id(n)] = _clean(plan, work)
            continue
        msg, how = lossless(plan)
        plans[query_id(n)] = msg
        proofs[how] = proofs.get(how, 0) + 1
    rec.write_producer(SUITE, producer, plans, errors, {query_id(n): s for n, s in sqls.items() if n in made})
    return {"plans": len(plans), "errors": len(errors), **proofs}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--producers", default=",".join(PRODUCERS))
    ap.add_argument("--work", type=Path, default=None, help="folder kept between runs (data, jar, ibis env)")
    args = ap.parse_args(argv)
    producers = [p for p in args.producers.split(",") if p]
    unknown = set(producers) - set(PRODUCERS)
    if unknown:
        ap.error(f"unknown producers {sorted(unknown)}; known: {', '.join(PRODUCERS)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="record-substrait-"))
    work.mkdir(parents=True, exist_ok=True)
    tpch = sp.make_tpch(work / "tpch")
    rec.write_queries(SUITE, {query_id(n): q for n, q in tpch.queries.items()})
    summary = {}
    for producer in producers:
        summary[producer] = record(producer, tpch, work)
        print(f"{producer}: {json.dumps(summary[producer])}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
