-- ntile(4) over 12 rows
SELECT id, ntile(4) OVER (ORDER BY id) AS n FROM t
