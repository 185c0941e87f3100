"""The scripted new-user walk (issue 14): what a new user does in the first hour, README in
hand, through the installed ``connect-plan`` command in a subprocess — every example with
every command and output format, ``check``, ``explain``, ``explain --analyzed``, ``ops``,
``server status`` and the bad inputs the issue found — asserting exit codes and that no
traceback is ever printed.

Run it alone: ``SPARK_REMOTE=sc://... python -m pytest tests/integration/test_new_user_walk.py``.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support.processes import EXAMPLES, connect_plan, local_state_dir, no_traceback

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))
ROWS = {
    "schema": [{"name": "a", "type": "int"}, {"name": "city", "type": "string"}],
    "rows": [[5, "東京"], [7, "Oslo"]],
}


def step(expect: int, *args: str, remote: str | None = None, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """One command of the walk: its exit code is ``expect``, and no traceback is printed."""
    out = connect_plan(*args, remote=remote, **kwargs)  # type: ignore[arg-type]
    no_traceback(out)
    assert out.returncode == expect, (args, out.returncode, out.stdout[-2000:], out.stderr[-2000:])
    return out


def write(folder: Path, name: str, doc: object) -> str:
    path = folder / name
    path.write_text(json.dumps(doc, ensure_ascii=False))
    return str(path)


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_with_every_command_and_format(spark_url: str, example: Path, tmp_path: Path) -> None:
    """(Also issue 35's item 2, which ran run/explain/explain --analyzed of every example a
    second time: no ``${...}`` placeholder is left in what is printed, and a run's ``${tmp}``
    directory is removed afterwards.)"""
    before = set(Path("/tmp").glob("connect-plan-run-*"))
    assert step(0, "check", str(example)).stdout.strip() == "ok"
    table = step(0, "run", str(example), remote=spark_url, cwd=tmp_path)
    assert table.stdout.rstrip().endswith("row)") or table.stdout.rstrip().endswith("rows)")
    assert "${" not in table.stdout.replace("${tmp}", ""), table.stdout
    rows = json.loads(step(0, "run", str(example), "--format", "json", remote=spark_url).stdout)
    assert isinstance(rows, list) and rows
    csv = step(0, "run", str(example), "--format", "csv", remote=spark_url).stdout
    assert len(csv.splitlines()) == len(rows) + 1
    target = tmp_path / "out.parquet"
    step(0, "run", str(example), "--format", "parquet", "-o", str(target), remote=spark_url)
    assert pq.read_table(target).num_rows == len(rows)
    explained = step(0, "explain", str(example), remote=spark_url).stdout
    assert "root {" in explained or "command {" in explained
    assert "${" not in explained.replace("${tmp}", ""), explained
    analyzed = step(0, "explain", "--analyzed", str(example), remote=spark_url).stdout
    assert "== Physical Plan ==" in analyzed and "${" not in analyzed.replace("${tmp}", ""), analyzed
    assert set(Path("/tmp").glob("connect-plan-run-*")) <= before  # ${tmp} removed afterwards


def test_ops_and_server_status(spark_url: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    ops = step(0, "ops").stdout.split()
    assert "filter" in ops and "withColumn" in ops
    assert "no local server is running" in step(4, "server", "status").stdout
    state = local_state_dir(spark_url, tmp_path_factory.getbasetemp())
    if state is not None:
        status = json.loads(step(0, "server", "status", state_dir=state).stdout)
        assert status["url"] == spark_url


def test_the_bad_inputs_of_issue_14(spark_url: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    # 1. nested columns as CSV (JSON text in the cell), NaN in JSON (null)
    nested = write(
        tmp_path,
        "nested.json",
        {
            "input": {"sql": "SELECT array(1, 2) a, map('k', 1) m, named_struct('x', 1) s, CAST('NaN' AS DOUBLE) d"},
            "plan": [],
        },
    )
    csv = step(0, "run", nested, "--format", "csv", remote=spark_url).stdout
    assert csv.splitlines()[1] == '"[1, 2]","{""k"": 1}","{""x"": 1}",nan'
    assert json.loads(step(0, "run", nested, "--format", "json", remote=spark_url).stdout)[0]["d"] is None
    # 2. an unfilled placeholder is a located invalid plan
    holder = write(tmp_path, "holder.json", {"input": {"files": "${data}/x.parquet"}, "plan": []})
    for command in ("check", "run", "explain"):
        assert "/input/files: unfilled placeholder ${data}" in step(2, command, holder, remote=spark_url).stderr
    # 3. a relative path, run from the folder that holds the file (the local server only)
    pq.write_table(pq.read_table(_parquet(tmp_path)), tmp_path / "weather.parquet")
    relative = write(
        tmp_path, "relative.json", {"input": {"files": "weather.parquet", "format": "parquet"}, "plan": []}
    )
    state = local_state_dir(spark_url, tmp_path_factory.getbasetemp())
    if state is not None:
        assert "(2 rows)" in step(0, "run", "relative.json", cwd=tmp_path, state_dir=state).stdout
    # 4. explain of a join against a file: offline, the hint names the command line's flag
    join = write(
        tmp_path,
        "join_file.json",
        {
            "input": {"files": str(tmp_path / "weather.parquet"), "format": "parquet"},
            "plan": [{"op": "join", "payload": {"other": {"input": ROWS, "plan": []}, "on": ["city"]}}],
        },
    )
    assert "--remote" in step(2, "explain", join).stderr
    assert "join {" in step(0, "explain", join, remote=spark_url).stdout
    # 5. a gRPC endpoint that is not Spark Connect
    from concurrent import futures

    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        err = step(3, "run", relative, "--remote", f"sc://127.0.0.1:{port}").stderr
    finally:
        server.stop(None)
    assert "does not implement the Spark Connect call" in err and "Rendezvous" not in err
    # 7. a cut preview says so
    many = write(tmp_path, "many.json", {"input": {"range": 1000}, "plan": []})
    assert "preview cut at --max-bytes 1000" in step(0, "run", many, "--max-bytes", "1000", remote=spark_url).stdout
    assert (
        "preview cut at --max-rows 3"
        in step(0, "run", many, "--max-rows", "3", "--format", "csv", remote=spark_url).stderr
    )
    # 8. noise and hints: the op list once, '%' as an op, wide characters, fixtures by path
    ops = write(tmp_path, "ops.json", {"input": ROWS, "plan": [{"op": "bogus"}, {"op": "order_by"}]})
    assert step(2, "check", ops).stderr.count("withColumnRenamed") == 1
    percent = write(
        tmp_path,
        "percent.json",
        {
            "input": ROWS,
            "plan": [{"op": "withColumn", "payload": {"name": "m", "expr": {"op": "%", "left": "a", "right": 3}}}],
        },
    )
    table = step(0, "run", percent, remote=spark_url).stdout.splitlines()
    from rich.cells import cell_len

    assert len({cell_len(line) for line in table[:-1]}) == 1, "\n".join(table)  # borders aligned
    assert "| 5 | 東京 | 2 |" in table
    if importlib.util.find_spec("pysail") is None:
        assert "not on PyPI" in step(4, "run", percent, "--remote", "sail").stderr
    fixture_dir = tmp_path / "fixtures"
    fixture_dir.mkdir()
    write(fixture_dir, "wrong.json", {"name": "label", "input": ROWS, "plan": [], "expected": {"rows": []}})
    assert f"FAIL  {fixture_dir / 'wrong.json'}" in step(1, "fixtures", str(fixture_dir), remote=spark_url).stdout
    # usage mistakes and unreadable input
    assert "--format parquet needs --output" in step(4, "run", percent, "--format", "parquet", remote=spark_url).stderr
    step(4, "run", str(tmp_path / "missing.json"), remote=spark_url)
    assert "json_syntax" in step(2, "check", "-", stdin="{not json").stderr
    step(4, "run", percent, "--format", "xml")
    unwritable = str(tmp_path / "no-such-dir" / "x.csv")
    assert (
        "No such file or directory"
        in step(4, "run", percent, "--format", "csv", "-o", unwritable, remote=spark_url).stderr
    )


def _parquet(folder: Path) -> Path:
    import pyarrow as pa

    path = folder / "source.parquet"
    pq.write_table(pa.table({"city": ["東京", "Oslo"], "temp": [21.5, 3.0]}), path)
    return path
