"""docs/functions.md is generated from the catalog; the committed file must be current."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_functions_doc_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_functions_doc", ROOT / "scripts" / "gen_functions_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "docs" / "functions.md").read_text(encoding="utf-8")
    # the catalog follows the installed pyspark.sql.functions: only the PySpark release the
    # file was generated with can reproduce it (the thin profile has pyspark-client 4.2)
    import pyspark

    m = re.search(r"\(this file: PySpark (\d+\.\d+)\)", committed)
    installed = ".".join(pyspark.__version__.split(".")[:2])
    if m and m.group(1) != installed:
        pytest.skip(f"docs/functions.md was generated with PySpark {m.group(1)}; {installed} is installed")
    assert committed == module.render(), "docs/functions.md is stale: run python scripts/gen_functions_doc.py"
    # every catalog name appears in the tables
    from connect_plan.functions import CATALOG

    missing = [n for n in CATALOG if f"`{n.replace('|', chr(92) + '|')}`" not in committed]
    assert not missing, missing
