"""connect_plan's published Substrait dialect (connect_plan/data/substrait_dialect.yaml): generated
from the function table and the converter's dispatch tables, valid against the spec's dialect
schema, and current (a function added to the table and not to the dialect fails here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIALECT = ROOT / "connect_plan" / "data" / "substrait_dialect.yaml"

pytest.importorskip("substrait_extensions")
pytest.importorskip("yaml")


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_substrait_dialect", ROOT / "scripts" / "gen_substrait_dialect.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dialect_is_current() -> None:
    assert DIALECT.read_text(encoding="utf-8") == _generator().render(), (
        "connect_plan/data/substrait_dialect.yaml is stale: run python scripts/gen_substrait_dialect.py"
    )


def test_the_dialect_validates_against_the_spec_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import substrait_extensions.dialects as d
    import yaml

    schema = yaml.safe_load((Path(d.__file__).parent / "dialect_schema.yaml").read_text(encoding="utf-8"))
    doc = yaml.safe_load(DIALECT.read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema)


def test_every_table_function_is_in_the_dialect_and_back() -> None:
    import yaml

    from connect_plan.formats.substrait import spellings as sp

    doc = yaml.safe_load(DIALECT.read_text(encoding="utf-8"))
    listed = {
        (kind, f["name"]) for kind in ("scalar", "aggregate", "window") for f in doc[f"supported_{kind}_functions"]
    } | {(f["kind"], f["name"]) for f in doc["metadata"]["producer_spellings"]}
    assert listed == set(sp.FUNCTIONS)


def test_the_dialect_ships_in_the_package() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'connect_plan = ["py.typed", "data/*.yaml"]' in text
