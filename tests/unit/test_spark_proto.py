"""connect_plan.spark_proto: PySpark's own message classes without importing PySpark (issue 17).

Each check runs in a fresh interpreter, since what matters is which modules get imported and
in which order the private copy and PySpark's real package arrive.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEOPLE = ROOT / "examples" / "people.json"


def _run(code: str) -> dict[str, object]:
    # from a file, not `python -c`: under -c, PySpark's Connect dependency check takes the
    # main module for a doctest run and needs a SPARK_HOME pyspark-client does not have
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "check.py"
        script.write_text(textwrap.dedent(code))
        out = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=ROOT,
        )
    assert out.returncode == 0, out.stderr
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_translating_a_plan_imports_neither_pyspark_nor_pandas() -> None:
    seen = _run(
        f"""
        import json, sys
        import connect_plan
        doc = json.load(open({str(PEOPLE)!r}))
        plan = connect_plan.translate(None, None, doc)
        connect_plan.validate(None, None, doc)
        print(json.dumps({{
            "pyspark": sorted(m for m in sys.modules if m == "pyspark" or m.startswith("pyspark.")),
            "pandas": "pandas" in sys.modules,
            "grpc": "grpc" in sys.modules,
            "py4j": "py4j" in sys.modules,
            "limit": plan.root.limit.limit,
        }}))
        """
    )
    assert seen == {"pyspark": [], "pandas": False, "grpc": False, "py4j": False, "limit": 2}


@pytest.mark.parametrize("pyspark_first", [False, True], ids=["private-first", "pyspark-first"])
def test_the_classes_are_pysparks_own_in_either_order(pyspark_first: bool) -> None:
    first = "import pyspark.sql.connect.proto" if pyspark_first else "pass"
    seen = _run(
        f"""
        import json
        {first}
        from connect_plan.spark_proto import pb, types_pb2
        import connect_plan
        plan = connect_plan.translate([[1, "a"]], [("n", "int"), ("s", "string")], [{{"op": "limit", "payload": {{"n": 1}}}}])
        from pyspark.sql.connect import proto as real
        from pyspark.sql.connect.proto import types_pb2 as real_types
        built = real.Plan()
        built.ParseFromString(plan.SerializeToString())
        print(json.dumps({{
            "same": [pb.Plan is real.Plan, pb.Relation is real.Relation, pb.Expression.Literal is real.Expression.Literal,
                     pb.ExecutePlanRequest is real.ExecutePlanRequest, types_pb2.DataType is real_types.DataType,
                     pb.relations_pb2 is real.relations_pb2 if {pyspark_first} else True],
            "isinstance": isinstance(plan, real.Plan),
            "equal": built == plan,
            "request": real.ExecutePlanRequest(plan=plan).plan == plan,
            "module": type(plan).__module__,
        }}))
        """
    )
    assert seen == {
        "same": [True] * 6,
        "isinstance": True,
        "equal": True,
        "request": True,
        "module": "pyspark.sql.connect.proto.base_pb2",
    }


def test_the_private_package_exports_what_pysparks_does() -> None:
    seen = _run(
        """
        import json
        from connect_plan.spark_proto import pb
        mine = {k for k in vars(pb) if not k.startswith("_")}
        from pyspark.sql.connect import proto as real
        theirs = {k for k in vars(real) if not k.startswith("_")}
        grpc_names = {k for k in vars(real.base_pb2_grpc) if not k.startswith("_")} | {"base_pb2_grpc"}
        print(json.dumps({"missing": sorted(theirs - mine - grpc_names)}))
        """
    )
    assert seen == {"missing": []}


# ------------------------------------------------------------------ PySpark's variant decoder

VARIANT_VALUES = [
    {"a": [1, 2.5, "x", None, True], "b": {"c": "2024-01-01", "d": -(2**40)}},
    [],
    "text",
    12345678901234567890,
    1.5e300,
    None,
    False,
]


def test_the_variant_decoder_is_pysparks_and_loads_no_pyspark() -> None:
    """Showing a variant column (and encoding a variant input) uses PySpark's own decoder;
    it used to import PySpark with it (py4j and ~90 modules, ~125 ms), and now loads that one
    file: the same encoding and the same JSON as PySpark's module (the oracle, imported here)."""
    from pyspark.sql.variant_utils import VariantUtils

    texts = [json.dumps(v) for v in VARIANT_VALUES]
    seen = _run(
        f"""
        import json, sys
        from connect_plan.output import _variant_json
        from connect_plan.data.coerce import _variant_encoder
        encode = _variant_encoder()
        out = []
        for text in {texts!r}:
            value, metadata = encode(text)
            out.append([value.hex(), metadata.hex(), _variant_json({{"value": value, "metadata": metadata}})])
        print(json.dumps({{
            "out": out,
            "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("pyspark", "py4j", "pandas", "numpy")),
        }}))
        """
    )
    assert seen["loaded"] == []
    expected = []
    for text in texts:
        value, metadata = VariantUtils.parse_json(text)
        expected.append([value.hex(), metadata.hex(), json.loads(VariantUtils.to_json(value, metadata))])
    assert seen["out"] == expected
    assert [row[2] for row in expected] == VARIANT_VALUES  # PySpark's own round trip, as a check on the oracle


def test_the_variant_decoders_errors_are_pysparks() -> None:
    seen = _run(
        """
        import json, sys
        from connect_plan.spark_proto import variant_utils
        utils = variant_utils()
        private = utils.__module__
        before = "pyspark" in sys.modules
        try:
            utils.to_json(b"\\xff\\xff", b"\\x01")
        except Exception as exc:
            from pyspark.errors import PySparkValueError
            print(json.dumps({"private": private, "before": before, "pyspark": isinstance(exc, PySparkValueError),
                              "class": exc.getCondition(), "message": str(exc)}))
        """
    )
    assert seen["private"] == "connect_plan.spark_proto._variant_utils"
    assert seen["before"] is False and seen["pyspark"] is True
    assert seen["class"] == "MALFORMED_VARIANT" and "malformed" in str(seen["message"])


def test_an_imported_variant_module_is_used_as_it_is() -> None:
    seen = _run(
        """
        import json
        from pyspark.sql.variant_utils import VariantUtils
        from connect_plan.spark_proto import variant_utils
        print(json.dumps({"same": variant_utils() is VariantUtils}))
        """
    )
    assert seen == {"same": True}


@pytest.mark.parametrize(
    ("imports", "private"),
    [("from pyspark.errors import PySparkValueError", True), ("from pyspark.sql.types import StringType", False)],
)
def test_a_variant_file_importing_more_of_pyspark_gets_pysparks_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str, private: bool
) -> None:
    """Only ``pyspark.errors.PySparkValueError`` is stood in for: a file that imports anything
    else of PySpark is imported by PySpark's own import (here: the installed one), never run
    with a name missing."""
    import importlib.machinery
    import importlib.util

    from connect_plan import spark_proto

    fake = tmp_path / "pyspark"
    (fake / "sql").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "sql" / "variant_utils.py").write_text(f"{imports}\n\nclass VariantUtils:\n    pass\n")
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> importlib.machinery.ModuleSpec | None:
        if name == "pyspark":
            return importlib.util.spec_from_file_location("pyspark", fake / "__init__.py")
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.delitem(sys.modules, "pyspark.sql.variant_utils", raising=False)
    loaded = spark_proto._load_variant_utils()
    if private:
        assert loaded.__module__ == "connect_plan.spark_proto._variant_utils"
    else:
        from pyspark.sql.variant_utils import VariantUtils

        assert loaded is VariantUtils
