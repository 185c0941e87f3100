-- lag(x, 2, default) inside partitions
SELECT id, g, ii, lag(ii, 2, -1) OVER (PARTITION BY g ORDER BY id) AS p FROM t
