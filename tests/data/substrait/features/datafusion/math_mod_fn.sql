-- mod() with negative operands takes the dividend's sign
SELECT id, ii % 3 AS m FROM t
