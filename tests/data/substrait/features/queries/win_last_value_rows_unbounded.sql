-- last_value over the whole partition (ROWS)
SELECT id, g, last_value(ii) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv FROM t
