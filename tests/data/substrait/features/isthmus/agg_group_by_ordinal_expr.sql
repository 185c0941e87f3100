-- aggregate of an expression grouped by an expression
SELECT mod(ii, 2) AS parity, sum(bi) AS total FROM t GROUP BY mod(ii, 2)
