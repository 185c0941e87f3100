-- nth_value(x, 2) over the whole ordered partition
SELECT id, g, nth_value(ii, 2) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS nv FROM t
