"""The spec's function semantics that need no server: options and enum arguments refused by name
and location, decimal literals exact at 38 digits, the conformance table in docs/substrait.md
current with its record (tests/integration/test_substrait_conformance.py runs the cases)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from connect_plan.errors import PlanError
from connect_plan.formats.substrait import parse_substrait_plan
from tests import substrait_testcases as st

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cases() -> list[st.Case]:
    pytest.importorskip("substrait_antlr")
    return st.read_cases()


def test_every_case_is_read(cases: list[st.Case]) -> None:
    kinds = {k: sum(1 for c in cases if c.kind == k) for k in ("scalar", "aggregate")}
    assert kinds["scalar"] > 1100 and kinds["aggregate"] > 150


def test_an_option_spark_cannot_honour_is_refused_by_name_and_location(cases: list[st.Case]) -> None:
    case = next(c for c in cases if c.text == "add(120::i8, 10::i8) [overflow:SATURATE] = 127::i8")
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(st.plan_of([case]))
    (d,) = e.value.details
    assert d.loc == "/relations/0/root/input/project/expressions/0/scalarFunction/options/0"
    assert "add" in d.message and "'overflow'" in d.message and "SATURATE" in d.message


def test_an_enum_argument_a_function_does_not_read_is_refused(cases: list[st.Case]) -> None:
    case = next(c for c in cases if c.name == "bool_and")
    plan = st.plan_of([case])
    measure = plan["relations"][0]["root"]["input"]["aggregate"]["measures"][0]["measure"]
    measure["arguments"].insert(0, {"enum": "SAMPLE"})
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(plan)
    assert any("enum argument 'SAMPLE'" in d.message for d in e.value.details)


def test_a_38_digit_decimal_literal_is_exact(cases: list[st.Case]) -> None:
    case = next(
        c for c in cases if c.name == "negate" and "99999999999999999999999999999999999999::dec<38, 0>" in c.text
    )
    steps = repr(parse_substrait_plan(st.plan_of([case])).steps)
    assert "'99999999999999999999999999999999999999'" in steps
    assert "E+38" not in steps


def test_the_conformance_table_is_current() -> None:
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_substrait_conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    golden = ROOT / "tests" / "golden"
    record = json.loads((golden / "substrait_conformance.json").read_text(encoding="utf-8"))
    # DataFusion's and DuckDB's outcomes on the same plans (scripts/gen_substrait_conformance.py --consumers)
    others = json.loads((golden / "substrait_conformance_consumers.json").read_text(encoding="utf-8"))
    assert module.table(record, others) in (ROOT / "docs" / "substrait.md").read_text(encoding="utf-8")
