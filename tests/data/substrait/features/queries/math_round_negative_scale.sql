-- round(x, -1) to tens
SELECT id, round(si, -1) AS r FROM t
