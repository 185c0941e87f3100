#!/usr/bin/env bash
# The thin-install job: a fresh venv with pyspark-client (the pure-Python Connect client,
# no jars) and pysail instead of pyspark, then the unit tests and the integration suite
# against an in-process Sail server, with no Java visible at all: no Spark jars, no py4j,
# no `java` on PATH (scripts/nojava.sh), JAVA_HOME and SPARK_HOME unset; and no java
# process may appear while the suite runs (a watcher looks for one started by this job).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/nojava.sh
. scripts/nojava.sh
python3 -m venv .ci-thin
# shellcheck source=/dev/null
. .ci-thin/bin/activate
python -m pip install --upgrade pip
# pysail 0.7 accepts PySpark up to 4.2 (it reads the version installed beside it); tests/engines.py
# records the differences of pysail 0.7 (strict xfails), so a new minor is a deliberate update
pip install 'pyspark-client>=4.0,<4.3' 'pandas>=2.2,<3' 'pysail>=0.7,<0.8' 'rich>=13' 'graphviz-pure>=0.2.2,<0.3' pytest pytest-timeout hypothesis pyyaml 'cryptography>=42' 'pyte>=0.8'
# Substrait producers, so that the Substrait tests run on Sail too (tests/substrait_producers.py):
# DataFusion, and DuckDB 1.1.3 with its substrait extension (it also makes the TPC-H data), as in
# the test extra, and the `substrait` package whose builders make the plans no producer writes;
# wheels only, about 80 MB. Isthmus needs Java, which this job hides (its tests
# skip); ibis builds its own environment with pip at test time, as in the main job
pip install 'datafusion>=55,<56' 'duckdb==1.1.3' 'duckdb-extension-substrait==1.1.3' 'substrait[extensions]==0.37.1'
pip install --no-deps -e .

shadow=$(mktemp -d)
trap 'rm -rf "$shadow"' EXIT
hide_java "$shadow"
if command -v java > /dev/null; then
    echo "ci-thin: java is still on PATH: $(command -v java)" >&2
    exit 1
fi
python - <<'PY'
import importlib.util, os, pathlib, shutil
assert importlib.util.find_spec("py4j") is None, "the thin profile must not have py4j"
import pyspark
assert not (pathlib.Path(pyspark.__file__).parent / "jars").exists(), "the thin profile must not have Spark jars"
assert shutil.which("java") is None and not os.environ.get("JAVA_HOME") and not os.environ.get("SPARK_HOME")
from connect_plan.errors import LocalServerError
from connect_plan.server import find_java, spark_home
for probe in (find_java, spark_home):
    try:
        probe()
    except LocalServerError:
        continue
    raise AssertionError(f"{probe.__name__} found something in the thin profile")
print("thin profile: pyspark-client", pyspark.__version__, "- no jars, no py4j, no java")
PY

# every process this job starts inherits the marker (also one that starts a session of its
# own, as the server launcher does); a java process that carries it is this job's
marker="ci-thin-$$-$RANDOM"
CONNECT_PLAN_CI_THIN=$marker SPARK_REMOTE=sail python -m pytest &
tests=$!
seen=()
while kill -0 "$tests" 2> /dev/null; do
    mapfile -t -O "${#seen[@]}" seen < <(java_processes_marked "$marker")
    sleep 0.5
done
status=0
wait "$tests" || status=$?
if ((${#seen[@]})); then
    echo "ci-thin: java processes were started during the thin job (pids $(printf '%s\n' "${seen[@]}" | sort -u | xargs))" >&2
    exit 1
fi
exit "$status"
