-- date + INTERVAL 'n' DAY across a month and a leap day (cast to date: DuckDB's date + interval is a timestamp)
SELECT id, cast(dt + INTERVAL '3' DAY AS date) AS r FROM t
