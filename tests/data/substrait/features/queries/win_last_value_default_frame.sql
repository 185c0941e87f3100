-- last_value with the default frame (RANGE UNBOUNDED PRECEDING..CURRENT ROW): the current row's value
SELECT id, g, last_value(s) OVER (PARTITION BY g ORDER BY id) AS lv FROM t
