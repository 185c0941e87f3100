"""Record the team's Substrait corpus: every query of a suite planned by every producer, written
into tests/data/substrait/ (layout: tests/substrait_corpus.py). Re-running it gives identical files.

Producers (each optional; one that is not installed is reported and left as it is on disk):

- **datafusion**: ``datafusion.substrait.Serde.serialize_to_plan(sql, ctx)`` (DataFusion's
  optimized plan), tables registered from the parquet files.
- **duckdb**: DuckDB 1.1.3 + ``duckdb-extension-substrait`` loaded from the wheel's file (no
  download), ``get_substrait(sql, enable_optimizer=True)``, tables created from the parquet files.
- **isthmus**: Isthmus 0.5.0 (substrait-java's SQL→Substrait on Calcite), the jar of PyPI's
  ``substrait-tools`` 0.0.3 (downloaded alone, ``--no-deps``) on the machine's Java 17, with a DDL
  made from the parquet schemas (upper-case names, as Calcite folds unquoted identifiers). One JVM
  runs every query through Isthmus' own command line (``PlanEntryPoint``) instead of one JVM per
  query (4 s each).
- **ibis**: ibis 9.5 + ibis-substrait 4.0.1 + substrait 0.21.0 in an environment of their own
  (built once with pip), ``ibis.parse_sql(sql, catalog)`` then ``SubstraitCompiler().compile``
  (scripts/substrait_corpus_ibis.py).

Every plan is read with connect_plan's superset Substrait schema (connect_plan/formats/substrait/
proto.py, which knows every field of every spec version these producers write, and refuses an
unknown one) and written as Substrait JSON; the recorder proves that the JSON reads back to the
same message before it writes it. A producer's failure is recorded in ``errors.json`` with its own
message. Where a producer needs another text with the same meaning (its dialect), the variant is
written beside its plan (``<producer>/<id>.sql``); :data:`DIALECT` lists every one and says why.

Usage:
  python scripts/record_substrait_corpus.py [--suites features,tpcds] [--producers datafusion,...]
      [--out tests/data/substrait] [--work DIR] [--only ID,...]
``tpch`` is supported too (the team's TPC-H recordings are made elsewhere; ``--out`` a temporary
folder for it). ``--work`` keeps data, the jar and ibis' environment between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import substrait_corpus as sc  # noqa: E402
from tests.substrait_recorded import plan_json as recorded_text  # noqa: E402

PRODUCERS = ("datafusion", "duckdb", "isthmus", "ibis")
#: ibis.parse_sql reads 10 of the 99 TPC-DS texts; the TPC-DS corpus is the three SQL planners'
DEFAULT_PRODUCERS = {"tpcds": ("datafusion", "duckdb", "isthmus")}

# ------------------------------------------------------------------ dialect variants

#: a variant: why, and the producer's text made from the suite's text
Variant = tuple[str, Callable[[str], str]]


def _text(new: str) -> Callable[[str], str]:
    """A variant that replaces the whole text (keeping the query's comment line)."""

    def make(old: str) -> str:
        comment = old.splitlines()[0] if old.startswith("--") else ""
        return (comment + "\n" if comment else "") + new.strip() + "\n"

    return make


def _replace(*pairs: tuple[str, str]) -> Callable[[str], str]:
    def make(old: str) -> str:
        for a, b in pairs:
            if a not in old:
                raise ValueError(f"dialect variant: {a!r} is not in the text")
            old = old.replace(a, b)
        return old

    return make


ALL = PRODUCERS
_QUANTIFIED = (
    "Spark SQL has no quantified comparison (ANY/ALL over a subquery): the suite's text, Spark SQL's "
    "oracle, is the EXISTS it means; the producers get the ANY/ALL text"
)
_CONCAT = "Calcite 1.3x has no CONCAT(a, b): the standard's || (NULL in, NULL out, as Spark's concat)"
_STARTSWITH = "Spark SQL spells it startswith; the producers (and the SQL standard's neighbours) starts_with"

#: suite → query id → producers → variant. Every entry says why the text differs.
DIALECT: dict[str, dict[str, dict[tuple[str, ...], Variant]]] = {
    "features": {
        "sub_any_gt": {
            ALL: (_QUANTIFIED, _text("SELECT id FROM t WHERE ii > ANY (SELECT v FROM u WHERE v IS NOT NULL)"))
        },
        "sub_all_lt": {
            ALL: (_QUANTIFIED, _text("SELECT id FROM t WHERE ii < ALL (SELECT v FROM u WHERE v IS NOT NULL)"))
        },
        "sub_all_empty": {ALL: (_QUANTIFIED, _text("SELECT id FROM t WHERE ii > ALL (SELECT v FROM e)"))},
        "sub_all_with_null": {ALL: (_QUANTIFIED, _text("SELECT id FROM t WHERE ii < ALL (SELECT v FROM u)"))},
        "sub_any_eq": {ALL: (_QUANTIFIED, _text("SELECT id FROM t WHERE k = ANY (SELECT k FROM u)"))},
        "str_starts_with": {ALL: (_STARTSWITH, _replace(("startswith(", "starts_with(")))},
        "grp_grouping_id_cube": {
            ("datafusion",): (
                "DataFusion has no grouping_id: the SQL standard's GROUPING(a, b) is the same bit vector",
                _replace(("grouping_id(g, b)", "grouping(g, b)")),
            )
        },
        "math_mod_fn": {
            ("datafusion",): ("DataFusion has no mod(): the % operator", _replace(("mod(ii, 3)", "ii % 3")))
        },
        "str_char_length": {
            ("duckdb",): ("DuckDB 1.1 has no char_length(): length()", _replace(("char_length(s)", "length(s)")))
        },
        "str_regexp_like": {
            ("duckdb",): (
                "DuckDB 1.1 has no regexp_like(): regexp_matches() (a search, as Spark's)",
                _replace(("regexp_like(", "regexp_matches(")),
            )
        },
        "math_mod_operator": {
            ("isthmus",): (
                "Calcite refuses the % operator in its default conformance: MOD()",
                _replace(("bi % 7", "mod(bi, 7)")),
            )
        },
        "agg_group_by_ordinal_expr": {
            ("isthmus",): (
                "Calcite refuses the % operator in its default conformance: MOD()",
                _replace(("ii % 2 AS parity", "mod(ii, 2) AS parity"), ("GROUP BY ii % 2", "GROUP BY mod(ii, 2)")),
            )
        },
        "math_sign": {("datafusion",): ("DataFusion spells sign() signum()", _replace(("sign(f8)", "signum(f8)")))},
    },
    "tpcds": {
        "q05": {
            ("isthmus",): (
                _CONCAT,
                _replace(
                    ("concat('store', s_store_id)", "('store' || s_store_id)"),
                    ("concat('catalog_page', cp_catalog_page_id)", "('catalog_page' || cp_catalog_page_id)"),
                    ("concat('web_site', web_site_id)", "('web_site' || web_site_id)"),
                ),
            )
        },
        "q80": {
            ("isthmus",): (
                _CONCAT,
                _replace(
                    ("concat('store', store_id)", "('store' || store_id)"),
                    ("concat('catalog_page', catalog_page_id)", "('catalog_page' || catalog_page_id)"),
                    ("concat('web_site', web_site_id)", "('web_site' || web_site_id)"),
                ),
            )
        },
        "q84": {
            ("isthmus",): (
                _CONCAT,
                _replace(
                    (
                        "concat(concat(coalesce(c_last_name, '') , ', '), coalesce(c_first_name, ''))",
                        "(coalesce(c_last_name, '') || ', ' || coalesce(c_first_name, ''))",
                    )
                ),
            )
        },
        "q90": {
            ("isthmus",): (
                "AT is a reserved word in Calcite: the derived table's alias is renamed",
                _replace((") AT,", ") at_,")),
            )
        },
    },
    "tpch": {
        # Isthmus 0.5's Calcite (tests/substrait_producers.ISTHMUS_TEXT_FIXES)
        "q11": {
            ("isthmus",): (
                "VALUE is a reserved word in Calcite",
                _replace(("AS value", 'AS "VALUE"'), ("    value DESC", '    "VALUE" DESC')),
            )
        },
        "q15": {
            ("isthmus",): (
                "Calcite rejects GROUP BY <select alias> even in its lenient conformance modes",
                _replace(("GROUP BY\n        supplier_no", "GROUP BY\n        l_suppkey")),
            )
        },
    },
}


def variant(suite: str, qid: str, producer: str) -> Variant | None:
    for producers, v in DIALECT.get(suite, {}).get(qid, {}).items():
        if producer in producers:
            return v
    return None


# ------------------------------------------------------------------ producers

#: id → plan (bytes: binary protobuf; str starting with "{": JSON) or the producer's error
Made = dict[str, Any]


def _one_line(text: str, work: Path, limit: int = 600) -> str:
    line = " ".join(str(text).split()).replace(str(work), "<work>")
    line = re.sub(r" at 0x[0-9a-f]+", "", line)  # object addresses differ from one run to the next
    return line if len(line) <= limit else line[: limit - 1] + "…"


def run_datafusion(files: dict[str, str], texts: dict[str, str], work: Path) -> Made:
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    for name, path in sorted(files.items()):
        ctx.register_parquet(name, path)
    out: Made = {}
    for qid, sql in texts.items():
        try:
            out[qid] = Serde.serialize_to_plan(sql, ctx).encode()
        except Exception as e:  # the producer's own failure: recorded
            out[qid] = _one_line(f"{type(e).__name__}: {e}", work)
    return out


def run_duckdb(files: dict[str, str], texts: dict[str, str], work: Path) -> Made:
    from tests.substrait_producers import duckdb_with_tables

    tables = dict(sorted(files.items()))
    con = duckdb_with_tables(tables)
    out: Made = {}
    for qid, sql in texts.items():
        try:
            out[qid] = con.get_substrait(sql, enable_optimizer=True).fetchone()[0]
        except Exception as e:
            out[qid] = _one_line(f"{type(e).__name__}: {e}", work)
            # an internal error invalidates DuckDB's database: every later query would fail with
            # "Attempting to execute an unsuccessful or closed pending query result"
            con.close()
            con = duckdb_with_tables(tables)
    con.close()
    return out


_ISTHMUS_BATCH = """
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

/** Isthmus' own command line (PlanEntryPoint) once per query, in one JVM: args DIR, where DIR/args.txt
 *  holds the shared arguments (one a line) and DIR/queries/<id>.sql the queries; writes
 *  DIR/out/<id>.json (the plan Isthmus prints) or DIR/out/<id>.err (what it printed on failure). */
public class IsthmusBatch {
  public static void main(String[] a) throws Exception {
    Path dir = Paths.get(a[0]);
    List<String> shared = Files.readAllLines(dir.resolve("args.txt"), StandardCharsets.UTF_8);
    Path out = dir.resolve("out");
    Files.createDirectories(out);
    List<Path> queries = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir.resolve("queries"), "*.sql")) {
      for (Path p : ds) queries.add(p);
    }
    Collections.sort(queries);
    PrintStream realOut = System.out, realErr = System.err;
    for (Path q : queries) {
      String id = q.getFileName().toString().replaceAll("[.]sql$", "");
      List<String> args = new ArrayList<>(shared);
      args.add(Files.readString(q, StandardCharsets.UTF_8));
      ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
      int rc;
      System.setOut(new PrintStream(o, true, "UTF-8"));
      System.setErr(new PrintStream(e, true, "UTF-8"));
      try {
        rc = new picocli.CommandLine(new io.substrait.isthmus.PlanEntryPoint()).execute(args.toArray(new String[0]));
      } catch (Throwable t) {
        rc = 99;
        t.printStackTrace(System.err);
      } finally {
        System.setOut(realOut);
        System.setErr(realErr);
      }
      String text = o.toString(StandardCharsets.UTF_8);
      if (rc == 0 && text.trim().startsWith("{")) {
        Files.writeString(out.resolve(id + ".json"), text, StandardCharsets.UTF_8);
      } else {
        Files.writeString(out.resolve(id + ".err"), "exit " + rc + ": " + e.toString(StandardCharsets.UTF_8) + text, StandardCharsets.UTF_8);
      }
      realOut.println(id + " " + rc);
    }
  }
}
"""


def _sql_type(t: Any) -> str:
    import pyarrow as pa

    for test, name in (
        (pa.types.is_int8, "TINYINT"),
        (pa.types.is_int16, "SMALLINT"),
        (pa.types.is_int32, "INTEGER"),
        (pa.types.is_int64, "BIGINT"),
        (pa.types.is_float32, "FLOAT"),
        (pa.types.is_float64, "DOUBLE"),
        (pa.types.is_boolean, "BOOLEAN"),
        (pa.types.is_date32, "DATE"),
        (pa.types.is_timestamp, "TIMESTAMP"),
    ):
        if test(t):
            return name
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision},{t.scale})"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "VARCHAR"
    raise ValueError(f"no Isthmus DDL type for {t}")


def isthmus_ddl(files: dict[str, str]) -> list[str]:
    """CREATE TABLE statements from the parquet schemas: names upper-case (Calcite folds unquoted
    identifiers to upper case), NOT NULL where the file says so."""
    import pyarrow.parquet as pq

    ddl = []
    for name, path in sorted(files.items()):
        schema = pq.read_schema(path)
        cols = ", ".join(f"{f.name.upper()} {_sql_type(f.type)}" + ("" if f.nullable else " NOT NULL") for f in schema)
        ddl.append(f"CREATE TABLE {name.upper()} ({cols})")
    return ddl


def run_isthmus(files: dict[str, str], texts: dict[str, str], work: Path) -> Made:
    from tests.substrait_producers import isthmus_jar

    jar = isthmus_jar(work / "isthmus")
    if jar is None:
        raise RuntimeError("Isthmus' jar could not be had (needs java and PyPI)")
    job = Path(tempfile.mkdtemp(prefix="isthmus-", dir=work))
    (job / "queries").mkdir()
    args = []
    for d in isthmus_ddl(files):
        args += ["-c", d]
    args.append("--crossjoinpolicy=KEEP_AS_CROSS_JOIN")
    (job / "args.txt").write_text("\n".join(args) + "\n", encoding="utf-8")
    for qid, sql in texts.items():
        # without the leading comment lines: Isthmus' command line (picocli) reads an argument that
        # starts with "--" as an option
        lines = sql.strip().splitlines()
        while lines and lines[0].lstrip().startswith("--"):
            lines.pop(0)
        body = "\n".join(lines)
        (job / "queries" / f"{qid}.sql").write_text(body.strip().rstrip(";") + "\n", encoding="utf-8")
    source = job / "IsthmusBatch.java"
    source.write_text(_ISTHMUS_BATCH, encoding="utf-8")
    p = subprocess.run(
        ["java", "-cp", jar, str(source), str(job)], capture_output=True, text=True, timeout=3600, cwd=job
    )
    out: Made = {}
    for qid in texts:
        plan, err = job / "out" / f"{qid}.json", job / "out" / f"{qid}.err"
        if plan.exists():
            out[qid] = plan.read_text(encoding="utf-8")
        elif err.exists():
            out[qid] = _isthmus_error(err.read_text(encoding="utf-8"), work)
        else:
            out[qid] = _one_line(f"the batch ended first (exit {p.returncode}): {p.stderr[-400:]}", work)
    shutil.rmtree(job, ignore_errors=True)
    return out


def _isthmus_error(text: str, work: Path) -> str:
    """The first line that names an exception, and the deepest 'Caused by' (Calcite's own reason)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    first = next((ln for ln in lines if "Exception" in ln or "Error" in ln), lines[0] if lines else text)
    causes = [ln for ln in lines if ln.startswith("Caused by:")]
    msg = first if not causes or causes[-1][len("Caused by: ") :] in first else f"{first} | {causes[-1]}"
    msg = re.sub(r"#\d+", "#", msg)  # Calcite numbers its nodes across the queries of one JVM
    return _one_line(msg, work, 500)


def run_ibis(files: dict[str, str], texts: dict[str, str], work: Path) -> Made:
    import venv

    from tests.substrait_producers import IBIS_PINS

    env = work / "ibis-env"
    python = env / "bin" / "python"
    if not python.exists():
        venv.create(env, with_pip=True)
        p = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *IBIS_PINS], capture_output=True, text=True, timeout=1800
        )
        if p.returncode != 0:
            raise RuntimeError(f"ibis' environment could not be built: {p.stderr[-300:]}")
    job_dir = Path(tempfile.mkdtemp(prefix="ibis-", dir=work))
    job = job_dir / "job.json"
    job.write_text(json.dumps({"tables": files, "queries": texts, "out": str(job_dir)}))
    p = subprocess.run(
        [str(python), str(ROOT / "scripts" / "substrait_corpus_ibis.py"), str(job)],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # sqlglot's messages name set members in hash order
    )
    if p.returncode != 0:
        raise RuntimeError(f"ibis' generator failed: {p.stderr[-500:]}")
    errors = json.loads((job_dir / "errors.json").read_text())
    out: Made = {}
    for qid in texts:
        pb = job_dir / f"{qid}.pb"
        # sqlglot's KeyError on a table alias names one of a set of aliases, which one differs per run
        why = re.sub(r"KeyError: '[a-z]'$", "KeyError: <an alias>", errors.get(qid, "no plan written"))
        out[qid] = pb.read_bytes() if pb.exists() else _one_line(why, work)
    shutil.rmtree(job_dir, ignore_errors=True)
    return out


RUN: dict[str, Callable[[dict[str, str], dict[str, str], Path], Made]] = {
    "datafusion": run_datafusion,
    "duckdb": run_duckdb,
    "isthmus": run_isthmus,
    "ibis": run_ibis,
}


def versions() -> dict[str, str]:
    def v(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    from tests.substrait_producers import IBIS_PINS

    return {
        "datafusion": f"datafusion {v('datafusion')} (Serde.serialize_to_plan)",
        "duckdb": f"duckdb {v('duckdb')} + duckdb-extension-substrait {v('duckdb-extension-substrait')} "
        "(get_substrait, enable_optimizer=True)",
        "isthmus": "isthmus 0.5.0 (the jar of substrait-tools 0.0.3; --crossjoinpolicy=KEEP_AS_CROSS_JOIN)",
        "ibis": " + ".join(p for p in IBIS_PINS if "==" in p) + " (ibis.parse_sql, SubstraitCompiler)",
    }


# ------------------------------------------------------------------ writing


def plan_json(plan: bytes | str, producer: str = "") -> str:
    """The plan as Substrait JSON through connect_plan's superset schema; raises if the JSON does not
    read back to the very same message (so nothing the producer wrote is lost). DataFusion's
    function anchors are renumbered (:func:`canonical_anchors`)."""
    from connect_plan.formats.substrait.proto import parse_substrait

    msg = parse_substrait(plan)
    if producer == "datafusion":
        msg = canonical_anchors(msg)
    text = recorded_text(msg)
    back = parse_substrait(text)
    if back != msg or back.SerializeToString(deterministic=True) != msg.SerializeToString(deterministic=True):
        raise AssertionError("the plan's JSON does not read back to the same message")
    return text


def _calls(msg: Any, out: list[Any]) -> list[Any]:
    """Every message with a ``function_reference`` (a scalar, aggregate or window function call), in
    the order of a depth-first walk over the set fields."""
    stack = [msg]
    while stack:
        m = stack.pop()
        if "function_reference" in m.DESCRIPTOR.fields_by_name:
            out.append(m)
        children = []
        for fd, value in m.ListFields():
            if fd.message_type is None:
                continue
            if fd.message_type.GetOptions().map_entry:
                children.extend(v for v in value.values() if hasattr(v, "ListFields"))
            elif fd.is_repeated:
                children.extend(value)
            else:
                children.append(value)
        stack.extend(reversed(children))
    return out


def canonical_anchors(msg: Any) -> Any:
    """A copy of the plan with its function anchors numbered 0, 1, ... in the order of the
    functions' names and every call renumbered alike: DataFusion numbers them in the order of a hash
    map, which differs from one process to the next, so its plans would differ on every recording.
    A renaming of references only; proven here: every call names the same function as before."""
    decls = [e.extension_function for e in msg.extensions if e.HasField("extension_function")]
    order = sorted(decls, key=lambda f: (f.name, f.function_anchor))
    new = {f.function_anchor: i for i, f in enumerate(order)}
    if len(new) != len(decls):
        raise AssertionError("two function declarations share an anchor")
    out = type(msg)()
    out.CopyFrom(msg)
    for call in _calls(out, []):
        call.function_reference = new[call.function_reference]
    others = [e for e in out.extensions if not e.HasField("extension_function")]
    kept = [type(e)() for e in others]
    for k, e in zip(kept, others):
        k.CopyFrom(e)
    del out.extensions[:]
    out.extensions.extend(kept)
    for f in order:
        e = out.extensions.add()
        e.extension_function.CopyFrom(f)
        e.extension_function.function_anchor = new[f.function_anchor]

    def names(m: Any) -> list[str]:
        by_anchor = {e.extension_function.function_anchor: e.extension_function.name for e in m.extensions}
        return [by_anchor.get(c.function_reference, f"?{c.function_reference}") for c in _calls(m, [])]

    if names(out) != names(msg):
        raise AssertionError("renumbering the function anchors changed what a call refers to")
    return out


def suite_texts(suite: str, work: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(tables: name → parquet path, queries: id → SQL) for the suite; the queries of ``features``
    are the files under queries/, those of TPC-DS/TPC-H DuckDB's listings (written to queries/)."""
    data = work / suite / "data"
    files = sc.suite_tables(suite, data)
    if suite == "features":
        queries = {p.stem: p.read_text() for p in sorted((sc.CORPUS / "features" / "queries").glob("*.sql"))}
    else:
        queries = json.loads((data / "queries.json").read_text()) if (data / "queries.json").exists() else {}
        if not queries:
            queries = sc.duckdb_tables(work / suite / "texts", suite)[1]
            (data / "queries.json").write_text(json.dumps(queries, sort_keys=True))
    return files, queries


def record(suite: str, producers: list[str], out: Path, work: Path, only: set[str]) -> dict[str, Any]:
    files, queries = suite_texts(suite, work)
    base = out / suite
    (base / "queries").mkdir(parents=True, exist_ok=True)
    if suite != "features":
        for qid, sql in queries.items():
            if not only or qid in only:
                (base / "queries" / f"{qid}.sql").write_text(sql.strip() + "\n")
    selected = {q: s for q, s in queries.items() if not only or q in only}
    manifest_path = base / "manifest.json"
    manifest: dict[str, Any] = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    summary: dict[str, Any] = {}
    for producer in producers:
        texts = {}
        variants: dict[str, str] = {}
        for qid, sql in sorted(selected.items()):
            v = variant(suite, qid, producer)
            texts[qid] = v[1](sql) if v else sql
            if v:
                variants[qid] = v[0]
        start = time.monotonic()
        try:
            made = RUN[producer](files, texts, work)
        except (ImportError, RuntimeError) as e:
            print(f"{suite}/{producer}: not available: {e}", flush=True)
            continue
        d = base / producer
        if d.exists() and not only:
            shutil.rmtree(d)
        d.mkdir(parents=True, exist_ok=True)
        errors_path = d / "errors.json"
        errors: dict[str, str] = json.loads(errors_path.read_text()) if errors_path.exists() else {}
        for qid in texts:
            for stale in (d / f"{qid}.json", d / f"{qid}.sql"):
                stale.unlink(missing_ok=True)
            errors.pop(qid, None)
            plan = made[qid]
            if qid in variants:
                (d / f"{qid}.sql").write_text(texts[qid])
            if isinstance(plan, bytes) or plan.startswith("{"):
                try:
                    (d / f"{qid}.json").write_text(plan_json(plan, producer), encoding="utf-8")
                except Exception as e:  # the plan cannot be read whole: recorded as the producer's
                    errors[qid] = f"connect_plan cannot read the plan whole: {_one_line(str(e), work)}"
            else:
                errors[qid] = plan
        errors_path.write_text(json.dumps(dict(sorted(errors.items())), indent=1, ensure_ascii=False) + "\n")
        n_plans = len(list(d.glob("*.json"))) - 1
        summary[producer] = {
            "version": versions()[producer],
            "plans": n_plans,
            "errors": len(errors),
            "dialect_variants": {q: w for q, w in sorted(variants.items())},
        }
        print(
            f"{suite}/{producer}: {sum(1 for q in texts if q not in errors)}/{len(texts)} planned "
            f"in {time.monotonic() - start:.0f} s",
            flush=True,
        )
    producers_info = {**manifest.get("producers", {}), **summary}
    for producer, info in producers_info.items():  # counts from the files on disk (--only keeps the rest)
        d = base / producer
        info["plans"] = len([p for p in d.glob("*.json") if p.name != "errors.json"])
        info["errors"] = len(json.loads((d / "errors.json").read_text())) if (d / "errors.json").exists() else 0
        all_variants = {q: w for q in sorted(queries) for v in [variant(suite, q, producer)] if v for w in [v[0]]}
        info["dialect_variants"] = all_variants
    manifest = {
        "suite": suite,
        "queries": len(list((base / "queries").glob("*.sql"))),
        "data": DATA_NOTE[suite],
        "spark_conf": sc.SPARK_CONF,
        "recorded_by": "scripts/record_substrait_corpus.py",
        "plan_form": "Substrait JSON (proto3 JSON names) of the plan read through connect_plan's superset "
        "schema, one line, UTF-8; proven to read back to the same message",
        "python": ".".join(platform.python_version_tuple()[:2]),
        "producers": dict(sorted(producers_info.items())),
    }
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


DATA_NOTE = {
    "features": "tests/substrait_corpus.features_arrow (pyarrow, written to parquet at run time): t (12 rows, "
    "every type but timestamp), tm (12 rows: id, timestamp), u (9 rows), e (no rows)",
    "tpcds": "DuckDB 1.1.3 dsdgen(sf=0.01), each table written to parquet; queries: tpcds_queries()",
    "tpch": "DuckDB 1.1.3 dbgen(sf=0.01), each table written to parquet; queries: tpch_queries()",
}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default="features,tpcds")
    ap.add_argument("--producers", default="", help="default: every producer; TPC-DS: datafusion,duckdb,isthmus")
    ap.add_argument("--out", type=Path, default=sc.CORPUS)
    ap.add_argument("--work", type=Path, default=None, help="kept between runs: data, Isthmus' jar, ibis' env")
    ap.add_argument("--only", default="", help="comma-separated query ids (the rest stays as recorded)")
    args = ap.parse_args(argv)
    work = (args.work or Path(tempfile.mkdtemp(prefix="substrait-corpus-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TZ", "UTC")
    only = {q for q in args.only.split(",") if q}
    for suite in [s for s in args.suites.split(",") if s]:
        if suite not in sc.SUITES:
            ap.error(f"unknown suite {suite!r}")
        producers = [p for p in args.producers.split(",") if p] or list(DEFAULT_PRODUCERS.get(suite, PRODUCERS))
        for p in producers:
            if p not in PRODUCERS:
                ap.error(f"unknown producer {p!r}")
        if suite == "tpch" and args.out.resolve() == sc.CORPUS.resolve():
            ap.error("the TPC-H recordings are made elsewhere: give --out a folder of its own")
        record(suite, producers, args.out, work, only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
