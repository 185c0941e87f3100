"""Install profiles: the ``sail`` extra must resolve to a PySpark that its pysail accepts
(pysail declares no PySpark requirement and refuses a newer one at run time: pysail 0.7.2
answered every query with "unsupported PySpark version: 4.3.0"), and the README and the
thin CI job say the same bounds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parent.parent.parent
#: the PySpark releases pysail 0.7 accepts (checked with 0.7.2: 4.0.5, 4.1.4, 4.2.0, 4.2.1 ran
#: a plan; 4.3.0 was refused), and the first it refuses
PYSAIL_07_ACCEPTS = ["4.0.0", "4.0.5", "4.1.4", "4.2.0", "4.2.1"]
PYSAIL_07_REFUSES = "4.3.0"


def project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]  # type: ignore[no-any-return]


def requirements(items: list[str]) -> dict[str, Requirement]:
    return {Requirement(r).name: Requirement(r) for r in items}


def test_the_sail_extra_pins_a_pyspark_its_pysail_accepts() -> None:
    proj = project()
    base = requirements(proj["dependencies"])["pyspark"]  # type: ignore[arg-type, index]
    sail = requirements(proj["optional-dependencies"]["sail"])  # type: ignore[arg-type, index, call-overload]
    assert sail["pysail"].specifier == SpecifierSet(">=0.7,<0.8")  # a new minor is a deliberate update
    combined = base.specifier & sail["pyspark"].specifier  # what pip resolves pyspark within
    assert all(v in combined for v in PYSAIL_07_ACCEPTS)
    assert PYSAIL_07_REFUSES not in combined and "4.2.99" in combined
    assert sail["pyspark"].extras == {"connect"}


def test_the_readme_and_the_thin_job_state_the_same_bounds() -> None:
    readme = (ROOT / "docs" / "install.md").read_text()  # the install profiles (moved from the README)
    row = next(line for line in readme.splitlines() if line.startswith("| **+ Sail**"))
    assert "'.[sail]'" in row and "'pyspark-client>=4.0,<4.3' 'pysail>=0.7,<0.8'" in row
    thin = (ROOT / "scripts" / "ci-thin.sh").read_text()
    pins = dict(re.findall(r"'(pyspark-client|pysail)([^']*)'", thin))
    assert SpecifierSet(pins["pyspark-client"]) == SpecifierSet(">=4.0,<4.3")
    assert SpecifierSet(pins["pysail"]) == SpecifierSet(">=0.7,<0.8")


def test_the_readmes_install_commands_pin_what_pyproject_pins() -> None:
    """The thin rows install the dependencies by hand (then connect_plan with --no-deps): the
    same bounds as pyproject.toml, or a thin install resolves what the full one never would."""
    deps = requirements(project()["dependencies"])  # type: ignore[arg-type]
    readme = (ROOT / "docs" / "install.md").read_text()  # the install profiles (moved from the README)
    for label in ("| **thin**", "| **+ Sail**"):
        row = next(line for line in readme.splitlines() if line.startswith(label))
        pinned = requirements(re.findall(r"'([a-z-]+[<>=!][^']*)'", row))
        for name in ("pandas", "grpcio", "pyarrow", "rich"):
            assert pinned[name].specifier == deps[name].specifier, (label, name)
        client = pinned["pyspark-client"].specifier
        assert "4.0.0" in client and "5.0.0" not in client, label
        assert "pip install --no-deps ." in row, label  # connect-plan is not on PyPI
