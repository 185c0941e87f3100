-- ntile(2) within partitions of different sizes
SELECT id, g, ntile(2) OVER (PARTITION BY g ORDER BY id) AS n FROM t
