"""Issue 14, a new user's first hour: each numbered item of the issue, through the real
``connect-plan`` entry point in a subprocess against the real server."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.processes import connect_plan, local_state_dir, no_traceback

#: one column of every Spark type the suite knows (the primitives of connect_plan.types,
#: intervals, variant, and nested types holding them), built by the server itself
EVERY_TYPE_SQL = (
    "SELECT CAST(1 AS TINYINT) ti, CAST(2 AS SMALLINT) si, 3 i, 4L bi, CAST(1.5 AS FLOAT) f, "
    "CAST('NaN' AS DOUBLE) d, 'x東京' s, true b, DATE'2024-01-02' dt, "
    "TIMESTAMP'2024-01-02 03:04:05' ts, TIMESTAMP_NTZ'2024-01-02 03:04:05' tsn, X'0102' bin, "
    "1.25BD dec, NULL v, array(1, 2) arr, map('a', 1) m, map(1, 'one') mi, named_struct('x', 1, 'y', 'z') st, "
    "parse_json('{\"a\": 1}') var, INTERVAL '1-2' YEAR TO MONTH ym, "
    "INTERVAL '1 02:03:04' DAY TO SECOND dts, array(map('k', named_struct('q', X'01'))) deep, "
    "array(CAST(NULL AS INT)) arrnull, CAST(map() AS MAP<STRING, INT>) empty"
)

#: what every text format writes for the nested and special columns (JSON values)
WRITTEN = {
    "arr": [1, 2],
    "m": {"a": 1},
    "mi": {"1": "one"},
    "st": {"x": 1, "y": "z"},
    "var": {"a": 1},
    "ym": "P1Y2M",
    "dts": "P1DT2H3M4S",
    "deep": [{"k": {"q": "AQ=="}}],
    "arrnull": [None],
    "empty": {},
    "bin": "AQI=",
}


@pytest.fixture(scope="module")
def every_type(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("types") / "every_type.json"
    path.write_text(json.dumps({"input": {"sql": EVERY_TYPE_SQL}, "plan": []}))
    return path


def test_item1_json_writes_every_type(spark_url: str, every_type: Path) -> None:
    out = connect_plan("run", str(every_type), "--format", "json", remote=spark_url)
    no_traceback(out)
    assert out.returncode == 0, out.stderr
    [row] = json.loads(out.stdout)
    assert {k: row[k] for k in WRITTEN} == WRITTEN
    assert row["d"] is None  # JSON has no NaN (documented)
    assert row["dec"] == "1.25" and row["dt"] == "2024-01-02" and row["s"] == "x東京" and row["v"] is None


def test_item1_csv_writes_nested_values_as_json_text(spark_url: str, every_type: Path, tmp_path: Path) -> None:
    out = connect_plan("run", str(every_type), "--format", "csv", remote=spark_url)
    no_traceback(out)
    assert out.returncode == 0, out.stderr
    header, row = list(csv.reader(io.StringIO(out.stdout)))
    cells = dict(zip(header, row))
    assert {k: json.loads(cells[k]) if k != "bin" and k not in ("ym", "dts") else cells[k] for k in WRITTEN} == WRITTEN
    assert cells["s"] == "x東京" and cells["dec"] == "1.25" and cells["v"] == ""
    to_file = connect_plan("run", str(every_type), "--format", "csv", "-o", str(tmp_path / "out.csv"), remote=spark_url)
    assert to_file.returncode == 0, to_file.stderr
    assert (tmp_path / "out.csv").read_text().splitlines()[1] == out.stdout.splitlines()[1]


def test_item1_table_and_parquet_write_every_type(spark_url: str, every_type: Path, tmp_path: Path) -> None:
    table = connect_plan("run", str(every_type), remote=spark_url)
    no_traceback(table)
    assert table.returncode == 0, table.stderr
    assert '| [1, 2] | {"a": 1} | {"1": "one"} |' in table.stdout and "| P1Y2M | P1DT2H3M4S |" in table.stdout
    target = tmp_path / "out.parquet"
    written = connect_plan("run", str(every_type), "--format", "parquet", "-o", str(target), remote=spark_url)
    no_traceback(written)
    assert written.returncode == 0, written.stderr
    back = pq.read_table(target)
    assert back.column("ym").to_pylist() == [14]  # months: parquet has no year-month interval
    assert back.column("arr").to_pylist() == [[1, 2]]


#: the connect-plan process (cli.entry, as the console script runs it), which reports what it
#: has loaded once main() returned
_REPORTING_ENTRY = """
import json, sys
from connect_plan.cli import process as cli

run = cli.main


def main(*args, **kwargs):
    code = run(*args, **kwargs)
    loaded = {m for m, module in sys.modules.items() if module is not None}
    print("LOADED " + json.dumps(sorted(m for m in loaded if m.split(".")[0] in ("numpy", "pandas", "pyspark", "py4j"))),
          file=sys.stderr)
    return code


cli.main = main
sys.argv[0] = "connect-plan"
cli.entry()
"""


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "parquet"])
def test_the_command_writes_every_type_without_numpy_or_pandas(
    spark_url: str, every_type: Path, tmp_path: Path, fmt: str
) -> None:
    """The connect-plan process runs pyarrow without NumPy (issue 17's cold start): nothing it
    does with any Spark type (a zoned timestamp, binary, decimals, nested values, variants)
    loads NumPy or pandas, which a pyarrow with NumPy probes for, or PySpark's package and
    py4j: a variant is shown by PySpark's decoder file alone (connect_plan.spark_proto)."""
    import os
    import subprocess
    import sys

    script = tmp_path / "entry.py"
    script.write_text(_REPORTING_ENTRY)
    target = ["-o", str(tmp_path / f"out.{fmt}")] if fmt == "parquet" else []

    def loaded(doc: Path) -> list[str]:
        out = subprocess.run(
            [sys.executable, str(script), "run", str(doc), "--format", fmt, *target, "--remote", spark_url],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )
        assert out.returncode == 0, out.stderr[-2000:]
        [line] = [x for x in out.stderr.splitlines() if x.startswith("LOADED ")]
        names: list[str] = json.loads(line[len("LOADED ") :])
        return names

    without_variant = tmp_path / "no_variant.json"
    without_variant.write_text(
        json.dumps({"input": {"sql": EVERY_TYPE_SQL}, "plan": [{"op": "drop", "payload": ["var"]}]})
    )
    assert loaded(without_variant) == []
    assert loaded(every_type) == []


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))


# item 2 (every example runs and explains as it is): test_new_user_walk.py's
# test_every_example_with_every_command_and_format runs and explains each of them.


def test_item2_run_keeps_tmp_under_tmp_dir(spark_url: str, tmp_path: Path) -> None:
    example = next(p for p in EXAMPLES if p.stem == "orders_pipeline")
    out = connect_plan("run", str(example), "--format", "json", "--tmp-dir", str(tmp_path), remote=spark_url)
    assert out.returncode == 0, out.stderr
    [report] = json.loads(out.stdout)
    assert report["rows"] == 9 and report["target"].startswith(str(tmp_path))
    assert pq.read_table(report["target"]).num_rows == 9


@pytest.fixture(scope="module")
def local_state(spark_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The state directory recording the test server as the local server connect_plan
    started (items 3 and 4 are about that server)."""
    found = local_state_dir(spark_url, tmp_path_factory.getbasetemp())
    if found is None:
        pytest.skip("the test server is not a local server connect_plan started")
    return found


def _weather(folder: Path) -> None:
    pq.write_table(pa.table({"city": ["Tokyo", "Oslo"], "temp": [21.5, 3.0]}), folder / "weather.parquet")


def test_item3_relative_paths_resolve_in_the_clients_directory(local_state: str, tmp_path: Path) -> None:
    _weather(tmp_path)
    doc = {
        "input": {"files": "weather.parquet", "format": "parquet"},
        "plan": [
            {"op": "orderBy", "payload": {"columns": ["city"]}},
            {"op": "write", "payload": {"format": "parquet", "path": "out/sorted", "mode": "overwrite"}},
        ],
    }
    (tmp_path / "plan.json").write_text(json.dumps(doc))
    out = connect_plan("run", "plan.json", "--format", "json", cwd=tmp_path, state_dir=local_state)
    no_traceback(out)
    assert out.returncode == 0, out.stderr
    [report] = json.loads(out.stdout)
    assert report["target"] == str(tmp_path / "out" / "sorted") and report["rows"] == 2
    assert sorted(pq.read_table(tmp_path / "out" / "sorted").column("city").to_pylist()) == ["Oslo", "Tokyo"]
    # a nested plan's files too, and what explain shows is what run sends
    doc = {
        "input": {"schema": [{"name": "city", "type": "string"}], "rows": [["Oslo"]]},
        "plan": [
            {
                "op": "join",
                "payload": {
                    "other": {"input": {"files": "./weather.parquet", "format": "parquet"}, "plan": []},
                    "on": ["city"],
                },
            }
        ],
    }
    (tmp_path / "nested.json").write_text(json.dumps(doc))
    out = connect_plan("run", "nested.json", "--format", "json", cwd=tmp_path, state_dir=local_state)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"city": "Oslo", "temp": 3.0}]
    shown = connect_plan("explain", "nested.json", cwd=tmp_path, state_dir=local_state)
    assert shown.returncode == 0, shown.stderr
    assert f'paths: "{tmp_path / "weather.parquet"}"' in shown.stdout


def test_item3_paths_of_other_servers_are_sent_unchanged() -> None:
    from pyspark.sql.connect import proto as pb

    from connect_plan.client.paths import absolute_paths

    plan = pb.Plan()
    source = plan.root.read.data_source
    source.paths.extend(["a.parquet", "/abs/b", "s3a://bucket/c", "file:/d", "~/e"])
    source.options["path"] = "sub/f"
    absolute_paths(plan, "/home/me")
    assert list(source.paths) == ["/home/me/a.parquet", "/abs/b", "s3a://bucket/c", "file:/d", "~/e"]
    assert source.options["path"] == "/home/me/sub/f"


def test_item4_explain_asks_the_local_server_when_the_plan_needs_one(local_state: str, tmp_path: Path) -> None:
    _weather(tmp_path)
    doc = {
        "input": {"files": str(tmp_path / "weather.parquet"), "format": "parquet"},
        "plan": [
            {
                "op": "join",
                "payload": {
                    "other": {
                        "input": {"schema": [{"name": "city", "type": "string"}], "rows": [["Oslo"]]},
                        "plan": [],
                    },
                    "on": ["city"],
                },
            }
        ],
    }
    (tmp_path / "join_file.json").write_text(json.dumps(doc))
    out = connect_plan("explain", "join_file.json", cwd=tmp_path, state_dir=local_state)
    no_traceback(out)
    assert out.returncode == 0, out.stderr
    assert "join {" in out.stdout and "data_source" in out.stdout
    offline = connect_plan("explain", "join_file.json", cwd=tmp_path)  # no server anywhere
    no_traceback(offline)
    assert offline.returncode == 2, offline.stderr
    assert "--remote" in offline.stderr and "connect_plan.connect" not in offline.stderr


def test_item5_a_grpc_endpoint_that_is_not_spark_reads_as_a_sentence(tmp_path: Path) -> None:
    from concurrent import futures

    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(2))  # gRPC, but no Spark Connect service
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        example = Path(__file__).resolve().parents[2] / "examples" / "people.json"
        out = connect_plan("run", str(example), "--remote", f"sc://127.0.0.1:{port}", timeout=120)
    finally:
        server.stop(None)
    no_traceback(out)
    assert out.returncode == 3, out.stderr
    assert "Rendezvous" not in out.stderr and "StatusCode" not in out.stderr
    assert f"the server at sc://127.0.0.1:{port} answered, but does not implement the Spark Connect call" in out.stderr
    assert "15002" in out.stderr


def test_item7_previews_say_what_was_left_out(spark_url: str, tmp_path: Path) -> None:
    plan = tmp_path / "range.json"
    plan.write_text(json.dumps({"input": {"range": {"start": 0, "end": 100}}, "plan": []}))
    table = connect_plan("run", str(plan), "--max-bytes", "100", remote=spark_url)
    assert table.returncode == 0, table.stderr
    last = table.stdout.splitlines()[-1]
    assert last.startswith("(12 rows; preview cut at --max-bytes 100: ") and last.endswith("more rows not shown)")
    rows = connect_plan("run", str(plan), "--max-rows", "5", remote=spark_url)
    assert rows.stdout.splitlines()[-1] == "(5 rows; preview cut at --max-rows 5: more rows not shown)"
    for fmt in ("csv", "json"):
        out = connect_plan("run", str(plan), "--max-rows", "5", "--format", fmt, remote=spark_url)
        assert out.returncode == 0, out.stderr
        assert "connect-plan: preview cut at --max-rows 5: more rows not shown" in out.stderr
    whole = connect_plan("run", str(plan), "--max-rows", "100", "--format", "csv", remote=spark_url)
    assert len(whole.stdout.splitlines()) == 101 and "preview" not in whole.stderr
    exact = connect_plan("run", str(plan), "--max-rows", "100", remote=spark_url)
    assert exact.stdout.splitlines()[-1] == "(100 rows)"


def test_item8_explain_analyzed_names_the_failing_step(spark_url: str, tmp_path: Path) -> None:
    doc = {
        # an input whose columns only the server knows (on inline rows the missing column is a
        # PlanError found before the network, issue 13)
        "input": {"sql": "SELECT 5 AS a"},
        "plan": [
            {"op": "withColumn", "payload": {"name": "m", "expr": {"op": "%", "left": "a", "right": 3}}},
            {"op": "filter", "payload": {"op": "gt", "left": "nope", "right": 1}},
        ],
    }
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    for args in (["run"], ["explain", "--analyzed"]):
        out = connect_plan(*args, str(tmp_path / "bad.json"), remote=spark_url)
        no_traceback(out)
        assert out.returncode == 3, out.stderr
        assert "server error: plan step 1 (filter): [UNRESOLVED_COLUMN" in out.stderr


def test_item8_fixtures_label_files_by_path(spark_url: str, tmp_path: Path) -> None:
    doc = {
        "name": "a label that is not the file",
        "input": {"schema": [{"name": "a", "type": "int"}], "rows": [[5]]},
        "plan": [],
        "expected": {"rows": [[6]]},
    }
    (tmp_path / "wrong.json").write_text(json.dumps(doc))
    out = connect_plan("fixtures", str(tmp_path), remote=spark_url)
    assert out.returncode == 1
    assert f"FAIL  {tmp_path / 'wrong.json'}" in out.stdout
