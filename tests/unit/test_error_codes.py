"""The error-code registry (connect_plan/error_codes.py) holds exactly the codes the package
reports, and docs/error-codes.md is generated from it.

The call sites are found by walking the package's syntax trees (scripts/gen_error_codes_doc.py,
``scan``); codes computed at run time are caught during the whole test session as well
(tests/seen_codes.py, installed by tests/conftest.py).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import connect_plan
from connect_plan.error_codes import CODES
from connect_plan.errors import ErrorDetail, PlanError
from tests import seen_codes

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_error_codes_doc", ROOT / "scripts" / "gen_error_codes_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def found(gen: ModuleType) -> Any:
    return gen.scan()


def test_the_registry_is_sorted_and_each_meaning_is_one_line() -> None:
    assert list(CODES) == sorted(CODES)
    for code, meaning in CODES.items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", code), code
        assert meaning.strip() == meaning and meaning and "\n" not in meaning, code
        assert meaning[0].isupper() and meaning.endswith("."), code


def test_every_code_written_at_a_call_site_is_registered(found: Any) -> None:
    missing = sorted(set(found.messages) - set(CODES))
    assert not missing, f"codes reported but not in connect_plan/error_codes.py: {missing}"


def test_every_computed_code_has_a_known_source(gen: ModuleType, found: Any) -> None:
    """A call site whose code is neither a literal nor a choice between literals must be
    listed (with where its codes come from), so a new one is read by someone."""
    sites = {(path, func, expr) for path, func, expr, _ in found.dynamic}
    unknown = sorted(
        f"{p}:{line} in {f}(): {e}" for p, f, e, line in found.dynamic if (p, f, e) not in gen.DYNAMIC_SITES
    )
    assert not unknown, f"new computed codes: read where they come from, then list them in DYNAMIC_SITES: {unknown}"
    stale = sorted(set(gen.DYNAMIC_SITES) - sites)
    assert not stale, f"DYNAMIC_SITES lists sites that are gone: {stale}"


def test_every_registered_code_is_reported_somewhere(found: Any) -> None:
    dead = sorted(set(CODES) - set(found.messages))
    assert not dead, f"registered codes that nothing reports (remove them, or list their source): {dead}"


def test_code_functions_are_found(gen: ModuleType, found: Any) -> None:
    """The codes returned by shapes.shape_problem are scanned (not only written at calls)."""
    assert set(gen.CODE_FUNCTIONS) and {"cyclic_plan", "plan_too_large"} <= set(found.messages)


def test_codes_of_the_golden_errors_and_fixtures_are_registered() -> None:
    golden = {
        c
        for p in (ROOT / "tests" / "golden" / "errors").glob("*.txt")
        for c in re.findall(r"\[([a-z_]+)\]", p.read_text())
    }
    assert golden, "no golden error texts found"
    expected: set[str] = set()

    def codes(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("code"), str):
                expected.add(node["code"])
            for v in node.values():
                codes(v)
        elif isinstance(node, list):
            for v in node:
                codes(v)

    for p in sorted((ROOT / "tests" / "fixtures").rglob("*.json")):
        codes(json.loads(p.read_text(encoding="utf-8")))
    assert not sorted((golden | expected) - set(CODES))


def test_the_session_recorder_sees_codes_and_never_raises() -> None:
    """The recorder of tests/conftest.py is on; an unregistered code is recorded (and
    would fail the session), but constructing it raises nothing, as in production."""
    assert seen_codes.installed()
    with pytest.raises(PlanError):
        connect_plan.validate([[1]], [{"name": "id", "type": "bigint"}], [{"op": "nope"}])
    assert "unknown_op" in seen_codes.SEEN
    detail = ErrorDetail("surely_not_a_registered_code", "/", "a test of the recorder")
    assert detail.code == "surely_not_a_registered_code"
    assert "surely_not_a_registered_code" in seen_codes.unregistered()
    del seen_codes.SEEN["surely_not_a_registered_code"]  # built on purpose: must not fail the session


def test_error_codes_doc_is_up_to_date(gen: ModuleType, found: Any) -> None:
    committed = (ROOT / "docs" / "error-codes.md").read_text(encoding="utf-8")
    assert committed == gen.render(found), "docs/error-codes.md is stale: run python scripts/gen_error_codes_doc.py"
    assert all(f"| `{code}` |" in committed for code in CODES)


def test_the_registry_module_imports_nothing_from_the_package() -> None:
    source = (ROOT / "connect_plan" / "error_codes.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+(\.|connect_plan)", source, re.M)
