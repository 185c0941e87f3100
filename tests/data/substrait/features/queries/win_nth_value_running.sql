-- nth_value(x, 3) with a running frame (NULL until the third row)
SELECT id, nth_value(s, 3) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS nv FROM t
