-- mod() with negative operands takes the dividend's sign
SELECT id, mod(ii, 3) AS m FROM t
