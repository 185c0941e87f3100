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
