"""docs/substrait.md's function section is generated from the Substrait function table
(scripts/gen_substrait_functions_doc.py); the committed file must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_substrait_functions_doc_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_substrait_functions_doc", ROOT / "scripts" / "gen_substrait_functions_doc.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "docs" / "substrait.md").read_text(encoding="utf-8")
    assert committed == module.render(committed), (
        "docs/substrait.md's functions are stale: run python scripts/gen_substrait_functions_doc.py"
    )
    from connect_plan.formats.substrait import spellings as sp

    section = module.render_section()
    missing = [name for _, name in sp.FUNCTIONS if f"`{name.replace('|', chr(92) + '|')}`" not in section]
    assert not missing, missing
