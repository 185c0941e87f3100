-- date - INTERVAL '1' MONTH (end of month clamps) (cast to date: DuckDB's date + interval is a timestamp)
SELECT id, cast(dt - INTERVAL '1' MONTH AS date) AS r FROM t
