-- decimal division
SELECT id, d2 / 4 AS q FROM t
