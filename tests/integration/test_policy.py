"""The policy on a real server: legitimate plans (the fixtures strict accepts, and
tests/policy_corpus.py's LEGITIMATE) run under ``Policy.strict()`` with the results they have
without it; tables and files a policy opens are read under every spelling Spark resolves to
them, checked against PySpark; what the policy refuses would have worked on the server (the
threat is real); the result bounds hold on the result path."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import connect_plan
from connect_plan import Policy, PolicyError, QueryTimeoutError
from connect_plan.fixtures import load_fixture, plan_document, run_fixture
from connect_plan.formats import load_plan
from tests.conftest import engine
from tests.policy_corpus import LEGITIMATE
from tests.support.tables import assert_same

ROOT = Path(__file__).resolve().parents[2]
STRICT = Policy.strict()


def _strict_fixtures() -> tuple[list[Path], list[Path]]:
    """Fixture files strict accepts (and that need no setup of their own), and the others."""
    accepted, refused = [], []
    for path in sorted((ROOT / "tests" / "fixtures" / "plans").glob("*.json")):
        doc = load_fixture(path)
        expected = doc.get("expected")
        if any(k in doc for k in ("setup", "then", "cleanup")) or (isinstance(expected, dict) and "error" in expected):
            continue
        try:
            ok = not STRICT.violations(load_plan(plan_document(doc)))
        except connect_plan.PlanError:
            continue
        (accepted if ok else refused).append(path)
    return accepted, refused


ACCEPTED, REFUSED = _strict_fixtures()


@pytest.fixture(scope="module")
def strict_client(spark_url: str) -> Iterator[Any]:
    with connect_plan.connect(spark_url, conf={"spark.sql.session.timeZone": "UTC"}, policy=STRICT) as c:
        yield c


def test_most_fixtures_are_accepted_by_strict() -> None:
    # the refused ones read tables, files or SQL, write, or set conf: what strict is for
    assert len(ACCEPTED) >= 50, (len(ACCEPTED), len(REFUSED))


@pytest.mark.parametrize("path", ACCEPTED, ids=[p.stem for p in ACCEPTED])
def test_fixture_runs_under_strict(strict_client: Any, path: Path) -> None:
    result = run_fixture(strict_client, load_fixture(path), str(path))
    assert result.ok, result.message


@pytest.mark.parametrize(("name", "plan"), LEGITIMATE, ids=[n for n, _ in LEGITIMATE])
def test_legitimate_plan_runs_under_strict_as_without_it(
    strict_client: Any, client: Any, name: str, plan: dict[str, Any]
) -> None:
    assert_same(strict_client.execute(plan), client.execute(plan), ordered=False)


@pytest.fixture(scope="module")
def shared_data(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A database with one table, and a directory with one parquet file, made by PySpark."""
    if engine() == "sail":
        pytest.skip("databases and saveAsTable: Spark only")
    db = f"i18_policy_{uuid.uuid4().hex[:8]}"
    root = tmp_path_factory.mktemp("policy-shared")
    spark.sql(f"CREATE DATABASE {db}")
    try:
        spark.range(5).selectExpr("id", "id * 2 AS twice").write.saveAsTable(f"{db}.orders")
        spark.range(3).write.parquet(str(root / "data" / "p"))
        (root / "private").mkdir()
        spark.range(2).write.parquet(str(root / "private" / "p"))
        yield db, root
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")


def test_opened_tables_match_every_spelling_spark_resolves(
    shared_data: tuple[str, Path], client: Any, spark: Any
) -> None:
    db, _ = shared_data
    policy = STRICT.replace(tables=(f"{db}.*",))
    expected = spark.table(f"{db}.orders").toArrow()
    for name in (f"{db}.orders", f"{db.upper()}.ORDERS", f"`{db}`.`orders`", f"spark_catalog.{db}.orders"):
        got = client.execute({"input": {"table": name}, "plan": []}, policy=policy)
        assert_same(got, expected, ordered=False)
    # spellings the server resolves to the same table, which the policy refuses rather than guesses
    for name in (f"{db} . orders", f"{db}/**/.orders"):
        assert client.execute({"input": {"table": name}, "plan": []}).num_rows == 5
        with pytest.raises(PolicyError):
            client.execute({"input": {"table": name}, "plan": []}, policy=policy)
    with pytest.raises(PolicyError):
        client.execute({"input": {"table": "default.orders"}, "plan": []}, policy=policy)


def test_opened_paths_and_what_strict_stops(shared_data: tuple[str, Path], client: Any, spark: Any) -> None:
    _, root = shared_data
    policy = STRICT.replace(paths=(str(root / "data"),), path_schemes=("",))
    expected = spark.read.parquet(str(root / "data" / "p")).toArrow()
    for path in (f"{root}/data/p", f"{root}//data/./p"):
        got = client.execute({"input": {"files": path, "format": "parquet"}, "plan": []}, policy=policy)
        assert_same(got, expected, ordered=False)
    # each of these reads the private directory on the server, and is refused under the policy
    private = spark.read.parquet(str(root / "private" / "p")).toArrow()
    for source in (
        {"files": f"{root}/data/../private/p", "format": "parquet"},
        {"files": f"file:{root}/private/p", "format": "parquet"},
        {"table": f"parquet.`{root}/private/p`"},
    ):
        doc = {"input": source, "plan": []}
        assert_same(client.execute(doc), private, ordered=False)
        with pytest.raises(PolicyError):
            client.execute(doc, policy=policy)


def test_result_bounds_hold_on_the_result_path(spark_url: str) -> None:
    doc = {"input": {"range": 1000}, "plan": []}
    with connect_plan.connect(spark_url, policy=STRICT.replace(max_rows=7)) as c:
        assert c.execute(doc).num_rows == 7
        assert c.execute(doc, max_rows=3).num_rows == 3  # the tighter bound wins
        assert c.stream(doc).read_all().num_rows == 7
    with connect_plan.connect(spark_url, policy=STRICT.replace(max_bytes=800)) as c:
        table = c.execute(doc)
        assert 0 < table.num_rows < 1000 and table.nbytes <= 800
    table = connect_plan.execute_plan(None, None, doc, spark_url, policy=STRICT.replace(max_rows=4))
    assert table.num_rows == 4


def test_the_policy_timeout_interrupts_the_query(spark_url: str) -> None:
    if engine() == "sail":
        pytest.skip("interrupts: Spark only")
    slow = {
        "input": {"range": 10**12},
        "plan": [
            {
                "op": "filter",
                "payload": {"op": "eq", "left": {"fn": "hash", "args": [{"col": "id"}]}, "right": {"lit": 0}},
            },
            {"op": "agg", "payload": [{"agg": "count", "alias": "n"}]},
        ],
    }
    with connect_plan.connect(spark_url, policy=Policy(timeout=1.5)) as c:
        start = time.monotonic()
        with pytest.raises(QueryTimeoutError):
            c.execute(slow)
        assert time.monotonic() - start < 10
