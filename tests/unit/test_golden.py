"""Golden files: the proto every fixture plan translates to, the exact error text of every
invalid plan, and for every recorded Substrait plan (tests/data/substrait/<suite>/<producer>/
<id>.json) its proto or its exact PlanError text, with no producer and no server. Regenerate
with ``pytest tests/unit/test_golden.py --update-goldens`` and review the diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import connect_plan
from connect_plan.cli import plan_text
from connect_plan.fixtures import plan_document
from connect_plan.formats.substrait import parse_substrait
from tests.substrait_recorded import ROOT as RECORDED
from tests.substrait_recorded import Recorded, plan_json, recorded_plans, tables_for

ROOT = Path(__file__).resolve().parent.parent
PLANS = sorted((ROOT / "fixtures" / "plans").glob("*.json"))
INVALID = sorted((ROOT / "fixtures" / "invalid").glob("*.json"))
GOLDEN = ROOT / "golden"


def _check(path: Path, text: str, update: bool) -> None:
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
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
#: every recorded producer plan, of every suite (a suite recorded later gets goldens with no change here)
SUBSTRAIT = recorded_plans()


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


# ---------------------------------------------------------------- recorded Substrait plans


def _substrait_golden(plan: Recorded) -> str:
    """The proto text of the recorded plan, each table it names read from a made-up parquet
    path, or the exact text of the PlanError that refuses it. The proto text is written one
    field per line with no indentation: still protobuf text (whitespace is not significant),
    still diffed line by line, and 6.6x smaller than indented text for these deeply nested
    plans (TPC-DS: 8.5 MB against 56 MB). ``connect-plan explain`` prints one indented."""
    text = plan.path.read_text()
    try:
        proto = connect_plan.translate(None, None, text, tables=tables_for(parse_substrait(text), plan.suite))
    except connect_plan.PlanError as e:
        return str(e) + "\n"
    return "".join(line.lstrip() + "\n" for line in plan_text(proto).splitlines())


@pytest.mark.parametrize("plan", SUBSTRAIT, ids=[p.key for p in SUBSTRAIT])
def test_substrait_golden(plan: Recorded, update_goldens: bool) -> None:
    path = GOLDEN / "substrait" / plan.suite / plan.producer / f"{plan.id}.txt"
    _check(path, _substrait_golden(plan), update_goldens)


@pytest.mark.parametrize("plan", SUBSTRAIT, ids=[p.key for p in SUBSTRAIT])
def test_recorded_substrait_plan_round_trips(plan: Recorded) -> None:
    """The file is the canonical JSON of the plan it holds (so nothing in it is ignored), and
    the plan survives binary protobuf: the recording still parses under today's schema."""
    text = plan.path.read_text()
    msg = parse_substrait(text)
    assert plan_json(msg) == text
    assert parse_substrait(msg.SerializeToString()) == msg


def test_recorded_substrait_layout() -> None:
    """Every plan has its SQL (the suite's query text, or the producer's own beside it); no id
    is both planned and refused; no file lies outside the layout."""
    assert SUBSTRAIT, f"no recorded plans under {RECORDED}"
    for suite in sorted({p.suite for p in SUBSTRAIT}):
        for folder in sorted(p for p in (RECORDED / suite).iterdir() if p.is_dir()):
            names = {p.name for p in folder.iterdir()}
            if folder.name == "queries":
                assert all(n.endswith(".sql") for n in names), (folder, names)
                continue
            plans = {n[: -len(".json")] for n in names if n.endswith(".json") and n != "errors.json"}
            sqls = {n[: -len(".sql")] for n in names if n.endswith(".sql")}
            errors = json.loads((folder / "errors.json").read_text()) if "errors.json" in names else {}
            assert names == {f"{i}.json" for i in plans} | {f"{i}.sql" for i in sqls} | (
                {"errors.json"} if "errors.json" in names else set()
            ), folder
            assert not plans & set(errors), (folder, plans & set(errors))
            for id_ in plans:
                assert id_ in sqls or (RECORDED / suite / "queries" / f"{id_}.sql").exists(), (folder, id_)


def test_no_orphan_substrait_goldens() -> None:
    """A golden with no recorded plan (a plan removed or renamed) fails, as a plan with no golden does."""
    goldens = {str(p.relative_to(GOLDEN / "substrait"))[: -len(".txt")] for p in (GOLDEN / "substrait").rglob("*.txt")}
    assert goldens == {p.key for p in SUBSTRAIT}
