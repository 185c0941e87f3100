"""connect_plan's benchmark suite against PySpark's own Spark Connect client (and
robin-sparkless in-process where it applies). Run ``python -m benchmarks --help``;
not part of the test run (``tests/integration/test_benchmarks_smoke.py`` runs every
scenario at tiny sizes)."""
