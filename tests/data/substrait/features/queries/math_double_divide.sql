-- double division
SELECT id, f8 / 4.0 AS q FROM t
