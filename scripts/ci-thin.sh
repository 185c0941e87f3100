#!/usr/bin/env bash
# The thin-install job: a fresh venv with pyspark-client (the pure-Python Connect client,
# no jars) and pysail instead of pyspark, then the unit tests and the integration suite
# against an in-process Sail server. No JVM can start here: there are no Spark jars.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .ci-thin
. .ci-thin/bin/activate
python -m pip install --upgrade pip
# pysail 0.7 accepts PySpark up to 4.2 (it reads the version installed beside it); tests/engines.py
# records the differences of pysail 0.7 (strict xfails), so a new minor is a deliberate update
pip install 'pyspark-client>=4.0,<4.3' 'pandas>=2.2,<3' 'pysail>=0.7,<0.8' pytest pytest-timeout hypothesis pyyaml 'cryptography>=42'
pip install --no-deps -e .
python - <<'PY'
import importlib.util, sys
assert importlib.util.find_spec("py4j") is None, "the thin profile must not have py4j"
import pyspark, pathlib
assert not (pathlib.Path(pyspark.__file__).parent / "jars").exists(), "the thin profile must not have Spark jars"
print("thin profile: pyspark-client", pyspark.__version__)
PY
SPARK_REMOTE=sail python -m pytest
