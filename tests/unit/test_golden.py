"""Golden files: the proto every fixture plan translates to, and the exact error text of
every invalid plan. Regenerate with ``pytest tests/unit/test_golden.py --update-goldens``
and review the diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import connect_plan
from connect_plan.cli import plan_text
from connect_plan.fixtures import plan_document

ROOT = Path(__file__).resolve().parent.parent
PLANS = sorted((ROOT / "fixtures" / "plans").glob("*.json"))
INVALID = sorted((ROOT / "fixtures" / "invalid").glob("*.json"))
GOLDEN = ROOT / "golden"


def _check(path: Path, text: str, update: bool) -> None:
    if update:
        path.write_text(text)
        return
    assert path.exists(), f"no golden file {path}; run pytest --update-goldens"
    assert text == path.read_text()


def _document(path: Path) -> dict:
    return plan_document(json.loads(path.read_text()))


def _translatable(doc: dict) -> bool:
    """Plans that translate without a server: not expected to be invalid, and not reading
    state that a 'setup' creates on the server (tables and views have no static columns,
    so their joins need the server's answer; test_fixtures runs those)."""
    return doc.get("expected", {}).get("error", {}).get("kind") != "plan" and "setup" not in doc


TRANSLATABLE = [p for p in PLANS if _translatable(json.loads(p.read_text()))]


@pytest.mark.parametrize("path", TRANSLATABLE, ids=[p.stem for p in TRANSLATABLE])
def test_proto_golden(path: Path, update_goldens: bool) -> None:
    proto = connect_plan.translate(None, None, _document(path))
    _check(GOLDEN / "protos" / f"{path.stem}.txt", plan_text(proto), update_goldens)


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_error_golden(path: Path, update_goldens: bool) -> None:
    with pytest.raises(connect_plan.PlanError) as info:
        connect_plan.translate(None, None, _document(path))
    _check(GOLDEN / "errors" / f"{path.stem}.txt", str(info.value) + "\n", update_goldens)


def test_translation_is_deterministic() -> None:
    for path in TRANSLATABLE:
        doc = _document(path)
        first = connect_plan.translate(None, None, doc).SerializeToString(deterministic=True)
        assert connect_plan.translate(None, None, doc).SerializeToString(deterministic=True) == first


def test_no_orphan_goldens() -> None:
    protos = {p.stem for p in TRANSLATABLE}
    errors = {p.stem for p in INVALID}
    assert {p.stem for p in (GOLDEN / "protos").glob("*.txt")} == protos
    assert {p.stem for p in (GOLDEN / "errors").glob("*.txt")} == errors
