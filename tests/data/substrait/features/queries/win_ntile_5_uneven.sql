-- ntile(5) over 12 rows: the first buckets get the extra rows
SELECT id, ntile(5) OVER (ORDER BY id DESC) AS n FROM t
