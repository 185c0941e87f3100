"""The policy (connect_plan/policy/): the adversarial corpus is refused before anything is
sent, legitimate plans pass, names and paths are compared as Spark resolves them, and a policy
is read from JSON with every unknown key refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import connect_plan
from connect_plan import InvalidPolicyError, PlanError, Policy, PolicyError
from connect_plan.cli import main
from connect_plan.formats import load_plan
from connect_plan.policy import STRICT, PathLocation, parse_path, parse_table_name, table_key
from tests.policy_corpus import ADVERSARIAL, INLINE, LEGITIMATE, OPENED, Case, doc, fn, lit, with_col
from tests.support.transport import counting_client

STRICT_POLICY = Policy.strict()


def test_the_corpus_is_large_and_names_are_unique() -> None:
    assert len(ADVERSARIAL) >= 100
    assert len({c.name for c in ADVERSARIAL}) == len(ADVERSARIAL)


@pytest.mark.parametrize("case", ADVERSARIAL, ids=lambda c: c.name)
def test_adversarial_plan_is_refused_before_anything_is_sent(case: Case) -> None:
    plan = load_plan(case.doc)  # a valid plan: the policy, not the parser, refuses it
    assert STRICT_POLICY.violations(plan), "strict let it through"
    rules = [v.rule for v in OPENED.violations(plan)]
    assert case.rule in rules, rules
    assert Policy.trusted().violations(plan) == []
    with pytest.raises(PolicyError):
        connect_plan.validate(None, None, case.doc, policy=STRICT_POLICY)
    with pytest.raises(PolicyError):
        connect_plan.translate(None, None, case.doc, policy=OPENED)
    for policy, per_call in ((STRICT_POLICY, None), (None, OPENED)):
        client, connector = counting_client(policy)
        with pytest.raises(PolicyError) as err:
            client.execute(case.doc, policy=per_call)
        assert all(isinstance(d, connect_plan.Violation) and d.loc and d.rule for d in err.value.details)
        for call in (client.stream, client.explain, client.schema, client.translate):
            with pytest.raises(PolicyError):
                call(case.doc, policy=per_call)
        assert connector.transport.calls == [], connector.transport.calls


@pytest.mark.parametrize(("name", "plan"), LEGITIMATE, ids=[n for n, _ in LEGITIMATE])
def test_legitimate_plans_pass_strict(name: str, plan: dict[str, Any]) -> None:
    assert STRICT_POLICY.violations(load_plan(plan)) == []
    connect_plan.translate(None, None, plan, policy=STRICT_POLICY)


def test_the_client_policy_is_replaced_per_call() -> None:
    client, connector = counting_client(STRICT_POLICY)
    bad = doc(input={"table": "sales.t"})
    with pytest.raises(PolicyError):
        client.translate(bad)
    client.translate(bad, policy=OPENED)  # no server needed: a table's columns are not asked for
    assert connector.transport.calls == []


def test_every_violation_is_listed_with_its_location_and_rule() -> None:
    plan = doc(
        [with_col(fn("reflect", lit("a"), lit("b"))), {"op": "repartition", "payload": {"n": 10**6}}],
        input={"table": "secret.t"},
        conf={"spark.sql.ansi.enabled": "false"},
    )
    with pytest.raises(PolicyError) as err:
        STRICT_POLICY.check(load_plan(plan))
    got = [(d.code, d.loc, d.rule) for d in err.value.details]  # type: ignore[attr-defined]
    assert got == [
        ("policy_conf", "/conf/spark.sql.ansi.enabled", "conf_keys"),
        ("policy_table", "/input", "tables"),
        ("policy_function", "/plan/0/payload/expr", "denied_functions"),
        ("policy_size", "/plan/1", "max_partitions"),
    ]
    assert err.value.rules == ("conf_keys", "tables", "denied_functions", "max_partitions")
    text = str(err.value)
    assert text.startswith("plan refused by policy: 4 violations")
    assert "(rule: tables)" in text
    assert isinstance(err.value, PlanError) and isinstance(err.value, ValueError)


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("a", ("a",)),
        ("a.b", ("a", "b")),
        ("`a`.`b`", ("a", "b")),
        ("`my-db`.t", ("my-db", "t")),
        ("`a``b`", None),  # a backtick inside a part
        ("a . b", None),
        ("a/**/.b", None),
        ("a.", None),
        (".a", None),
        ("`a.b`", None),
        ("ä.b", None),
        ("`ä`.b", None),
        ("parquet.`/x`", None),
        ("a.b.c.d", ("a", "b", "c", "d")),
    ],
)
def test_table_names_are_parsed_strictly(text: str, parts: tuple[str, ...] | None) -> None:
    assert parse_table_name(text) == parts


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("sales.orders", True),
        ("SALES.Orders", True),
        ("`sales`.`orders`", True),
        ("spark_catalog.sales.orders", True),
        ("Spark_Catalog.SALES.orders", True),
        ("shared.lookup", True),
        ("spark_catalog.shared.lookup", True),
        ("other.lookup", False),
        ("shared.lookup2", False),
        ("orders", False),
        ("mycat.sales.orders", False),
        ("parquet.orders", False),  # Spark would read the file 'orders' as parquet
        ("sales.orders.x", False),
        ("spark_catalog.orders", False),
    ],
)
def test_table_patterns_match_as_spark_resolves(name: str, allowed: bool) -> None:
    assert OPENED.allows_table(name) is allowed


def test_one_part_names_resolve_in_the_policy_current_database() -> None:
    policy = STRICT_POLICY.replace(tables=("app.*",), current_database="app")
    assert policy.allows_table("orders") and policy.allows_table("app.orders")
    assert not policy.allows_table("default.orders")
    assert table_key(("t",), "App") == ("spark_catalog", "app", "t")


# ---------------------------------------------------------------- paths


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/a/b", PathLocation("", "", ("a", "b"))),
        ("/a//b/./c/", PathLocation("", "", ("a", "b", "c"))),
        ("file:/a/b", PathLocation("file", "", ("a", "b"))),
        ("file:///a/b", PathLocation("file", "", ("a", "b"))),
        ("FILE://localhost/a", PathLocation("file", "", ("a",))),
        ("S3A://Bucket/a/B", PathLocation("s3a", "bucket", ("a", "B"))),
        ("/a/../b", "a '..' segment"),
        ("/a/%2e%2e/b", "has a character"),
        ("/a/{b,c}", "has a character"),
        ("a/b", "not an absolute path"),
        ("file:a", "not an absolute path"),
        ("file://host/a", "a file: path with a host"),
        ("//host/a", "a path starting with '//'"),
        ("/a:b", "':' inside a path"),
    ],
)
def test_paths_are_normalised_or_refused(text: str, expected: PathLocation | str) -> None:
    got = parse_path(text)
    if isinstance(expected, str):
        assert isinstance(got, str) and got.startswith(expected), got
    else:
        assert got == expected


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/srv/shared/x.parquet", True),
        ("/srv/shared", True),
        ("/srv//shared/./y/*.csv", True),
        ("s3a://team-bucket/data/2024/*", True),
        ("S3A://TEAM-BUCKET/data/x", True),
        ("s3a://team-bucket/Data/x", False),  # keys are case-sensitive
        ("/srv/shared-other/x", False),
        ("/srv/shar*/x", False),
        ("file:/srv/shared/x", False),  # the file: scheme is not in path_schemes
        ("/srv/shared/../x", False),
    ],
)
def test_path_prefixes(path: str, allowed: bool) -> None:
    assert OPENED.allows_path(path) is allowed


# ---------------------------------------------------------------- the other rules


def test_udfs_registered_with_the_client_may_be_allowed_alone() -> None:
    policy = STRICT_POLICY.replace(udfs="registered")
    client, connector = counting_client(policy)
    client.register_udf("mine", lambda x: x, "int")
    plan = doc([with_col({"udf": "mine", "args": [{"col": "k"}]})])
    client.translate(plan)
    with pytest.raises(PolicyError) as err:
        client.translate(doc([with_col({"udf": "theirs", "args": [{"col": "k"}]})]))
    assert err.value.codes == ("policy_udf",)
    with pytest.raises(PolicyError):  # no client: nothing is registered
        connect_plan.translate(None, None, plan, policy=policy)
    assert connector.transport.calls == []


def test_the_deny_list_is_extended_by_the_user() -> None:
    policy = STRICT_POLICY.denying("Sequence", "array_repeat")
    assert {"reflect", "sequence", "array_repeat"} <= set(policy.denied_functions)
    with pytest.raises(PolicyError) as err:
        policy.check(load_plan(doc([with_col(fn("sequence", lit(1), lit(10**9)))])))
    assert err.value.rules == ("denied_functions",)


def test_require_limit() -> None:
    policy = STRICT_POLICY.replace(require_limit=True, max_rows=100)
    ok = doc([{"op": "limit", "payload": {"n": 100}}])
    policy.check(load_plan(ok))
    for steps in (
        [],
        [{"op": "limit", "payload": {"n": 101}}],
        [{"op": "limit", "payload": {"n": 1}}, {"op": "distinct"}],
    ):
        with pytest.raises(PolicyError) as err:
            policy.check(load_plan(doc(steps)))
        assert err.value.codes == ("policy_limit",)


def test_temp_views_need_the_prefix() -> None:
    policy = STRICT_POLICY.replace(temp_views=True, temp_view_prefix="svc_")
    policy.check(load_plan(doc([{"op": "createOrReplaceTempView", "payload": {"name": "SVC_x"}}])))
    for name in ("x", "`svc_x`", "svc_x.y", "global_temp.svc_x"):
        with pytest.raises(PolicyError):
            policy.check(load_plan(doc([{"op": "createOrReplaceTempView", "payload": {"name": name}}])))
    with pytest.raises(PolicyError) as err:
        policy.check(load_plan(doc([{"op": "createGlobalTempView", "payload": {"name": "svc_x"}}])))
    assert err.value.rules == ("global_temp_views",)


def test_writes_under_an_opened_policy() -> None:
    policy = STRICT_POLICY.replace(
        write_paths=("/srv/out",), write_tables=("results.*",), path_schemes=("",), write_modes=("append",)
    )

    def write(**payload: Any) -> Any:
        return load_plan(doc([{"op": "write", "payload": payload}]))

    policy.check(write(path="/srv/out/a", format="parquet", mode="append"))
    policy.check(write(table="RESULTS.daily", mode="append"))
    for bad in (
        {"path": "/srv/out/../etc", "format": "parquet", "mode": "append"},
        {"path": "/srv/out/a", "format": "parquet", "mode": "overwrite"},
        {"path": "/srv/out/a", "format": "jdbc", "mode": "append"},
        {"path": "/srv/out/a", "format": "parquet", "mode": "append", "options": {"path": "/etc"}},
        {"table": "sales.orders", "mode": "append"},
        {"table": "results.daily", "mode": "append", "options": {"PATH": "/tmp/x"}},
    ):
        with pytest.raises(PolicyError):
            policy.check(write(**bad))


def test_result_bounds_are_the_tighter_ones() -> None:
    assert STRICT_POLICY.bounds(None, None, None) == (100_000, 64 * 1024 * 1024, 120.0)
    assert STRICT_POLICY.bounds(10, 10**12, 5.0) == (10, 64 * 1024 * 1024, 5.0)
    assert Policy().bounds(None, 3, None) == (None, 3, None)


# ---------------------------------------------------------------- the policy itself


def test_policies_are_immutable_and_checked() -> None:
    with pytest.raises(AttributeError):
        STRICT_POLICY.sql = True  # type: ignore[misc]
    with pytest.raises(InvalidPolicyError) as err:
        Policy(max_rows=-1, tables="sales.*", udfs="some")  # type: ignore[arg-type]
    assert [d.loc for d in err.value.details] == ["/tables", "/udfs", "/max_rows"]
    with pytest.raises(InvalidPolicyError):
        STRICT_POLICY.replace(tabels=("x",))
    with pytest.raises(InvalidPolicyError):
        Policy(paths=("relative/dir",))
    with pytest.raises(InvalidPolicyError):
        Policy(write_modes=("replace",))
    assert Policy().is_trusted and not STRICT_POLICY.is_trusted
    assert Policy.strict() == Policy(**STRICT)


def test_json_policies_refuse_unknown_keys_all_at_once() -> None:
    with pytest.raises(InvalidPolicyError) as err:
        Policy.from_json('{"tabels": ["sales.*"], "max_rows": "10", "sql": true, "extends": "lenient"}')
    assert [(d.code, d.loc) for d in err.value.details] == [
        ("policy_value", "/extends"),
        ("policy_key", "/tabels"),
        ("policy_value", "/max_rows"),
    ]
    with pytest.raises(InvalidPolicyError):
        Policy.from_json("[1]")
    with pytest.raises(InvalidPolicyError):
        Policy.from_json("{")


def test_json_policies_start_from_strict() -> None:
    policy = Policy.from_json({"tables": ["sales.*"], "also_denied_functions": ["sequence"]})
    assert policy.tables == ("sales.*",) and policy.sql is False and "sequence" in policy.denied_functions
    assert "reflect" in policy.denied_functions
    trusted = Policy.from_json({"extends": "trusted", "sql": False})
    assert trusted.sql is False and trusted.tables is None
    assert Policy.from_json(json.dumps(OPENED.to_json())) == OPENED
    assert Policy.from_json(json.dumps(STRICT_POLICY.to_json())) == STRICT_POLICY


# ---------------------------------------------------------------- the command line


def write_json(path: Path, value: Any) -> str:
    path.write_text(json.dumps(value))
    return str(path)


def test_cli_refuses_before_any_server_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write_json(tmp_path / "bad.json", doc(input={"table": "secret.t"}))
    good = write_json(tmp_path / "good.json", doc([{"op": "limit", "payload": {"n": 1}}]))
    assert main(["check", bad]) == 0
    assert main(["check", "--policy", "strict", bad]) == 2
    err = capsys.readouterr().err
    assert "plan refused by policy" in err and "[policy_table]" in err and "(rule: tables)" in err
    assert "Traceback" not in err
    assert main(["check", "--policy", "strict", good]) == 0
    # a port nothing listens on: a plan that were sent would fail with exit 3 (server error)
    for command in (["run"], ["explain", "--analyzed"]):
        assert main([*command, "--policy", "strict", "--remote", "sc://127.0.0.1:9", bad]) == 2
    assert main(["explain", "--policy", "strict", bad]) == 2
    opened = write_json(tmp_path / "policy.json", {"tables": ["secret.*"]})
    assert main(["check", "--policy", opened, bad]) == 0
    capsys.readouterr()
    assert main(["check", "--policy", write_json(tmp_path / "typo.json", {"tabels": []}), bad]) == 4
    assert "invalid policy" in capsys.readouterr().err
    assert main(["check", "--policy", str(tmp_path / "missing.json"), bad]) == 4


def test_cli_fixtures_under_a_policy_refuse_before_any_server_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "f").mkdir()
    write_json(
        tmp_path / "f" / "a.json", {**doc(input={"table": "secret.t"}), "expected": {"error": {"code": "policy_table"}}}
    )
    assert main(["fixtures", "--policy", write_json(tmp_path / "p.json", {"bogus": 1}), str(tmp_path / "f")]) == 4
    assert "invalid policy" in capsys.readouterr().err


def test_the_inline_input_bound_counts_every_input() -> None:
    policy = STRICT_POLICY.replace(max_inline_rows=3)
    two = {"schema": INLINE["schema"], "rows": INLINE["rows"]}
    policy.check(load_plan(doc(input=two)))
    with pytest.raises(PolicyError) as err:
        policy.check(load_plan(doc([join_inline(two)], input=two)))
    assert err.value.rules == ("max_inline_rows",)


def join_inline(right: Any) -> dict[str, Any]:
    return {"op": "join", "payload": {"other": {"input": right, "plan": []}, "on": ["k"]}}


def test_a_wildcard_database_matches_names_written_with_their_catalog_only() -> None:
    """Spark reads any two-part name '<data source>.<path>' as files, for every data source
    on its class path (a list here could never be complete)."""
    policy = STRICT_POLICY.replace(tables=("*.public_*",))
    assert policy.allows_table("spark_catalog.reports.public_daily")
    for name in ("reports.public_daily", "parquet.public_daily", "com.example.Source.public_x", "avro.public_x"):
        assert not policy.allows_table(name), name


def test_security_doc_lists_every_rule() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text(encoding="utf-8")
    for name in Policy.FIELDS:
        assert f"`{name}`" in text, name


def test_the_worked_service_example_refuses_other_tenants_data_without_sending() -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "examples" / "policy_service.py"
    spec = importlib.util.spec_from_file_location("policy_service", path)
    assert spec is not None and spec.loader is not None
    service = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(service)
    client, connector = counting_client()
    status, answer = service.run(client, "acme", json.dumps({"input": {"table": "tenant_globex.orders"}, "plan": []}))
    assert status == 403
    assert answer["refused"][0]["rule"] == "tables" and answer["refused"][0]["loc"] == "/input"
    status, answer = service.run(client, "acme", '{"input": {"range": 5}, "plan": [{"op": "nope"}]}')
    assert status == 400 and answer["invalid"][0]["code"] == "unknown_op"
    steps = [{"op": "withColumn", "payload": {"name": "s", "expr": fn("sequence", lit(1), lit(10**9))}}]
    status, answer = service.run(client, "acme", json.dumps({"input": {"table": "tenant_acme.orders"}, "plan": steps}))
    assert status == 403 and [v["rule"] for v in answer["refused"]] == ["denied_functions"]
    assert service.tenant_policy("acme").allows_table("TENANT_ACME.orders")
    assert connector.transport.calls == []


def test_any_table_but_restricted_files_still_refuses_file_reads_spelled_as_tables() -> None:
    policy = STRICT_POLICY.replace(tables=None, paths=("/srv/shared",), path_schemes=("",))
    policy.check(load_plan(doc(input={"table": "secret.t"})))
    policy.check(load_plan(doc(input={"table": "spark_catalog.parquet.t"})))
    for name in ("parquet.`/etc/passwd`", "CSV.t", "secret . t", "`org.x.Source`.`/etc`"):
        with pytest.raises(PolicyError) as err:
            policy.check(load_plan(doc(input={"table": name})))
        assert err.value.rules == ("paths",), name


def test_every_ir_class_is_reviewed_by_the_policy() -> None:
    """A step, expression or source class added to ir.py is refused by the policy (fail
    closed) until connect_plan/policy/check.py reviews it: this test says when that is due."""
    from connect_plan import ir
    from connect_plan.policy import REVIEWED_EXPRS, REVIEWED_SOURCES, REVIEWED_STEPS

    assert set(ir.STEP_CLASSES) == set(REVIEWED_STEPS)
    assert set(ir.EXPR_CLASSES) == set(REVIEWED_EXPRS)
    assert set(ir.Source.__args__) == set(REVIEWED_SOURCES)  # type: ignore[attr-defined]


def test_an_unknown_node_is_refused() -> None:
    from dataclasses import dataclass

    from connect_plan import ir

    @dataclass(frozen=True)
    class Mystery(ir.Step):
        pass

    plan = load_plan(doc())
    plan = ir.Plan(plan.source, (Mystery(0, "mystery", "/plan/0"),), plan.loc)
    with pytest.raises(PolicyError) as err:
        STRICT_POLICY.check(plan)
    assert err.value.codes == ("policy_source",) and err.value.locs == ("/plan/0",)
