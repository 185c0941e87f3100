-- date + INTERVAL '1' YEAR (leap day to Feb 28) (cast to date: DuckDB's date + interval is a timestamp)
SELECT id, cast(dt + INTERVAL '1' YEAR AS date) AS r FROM t
