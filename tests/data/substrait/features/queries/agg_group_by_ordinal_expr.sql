-- aggregate of an expression grouped by an expression
SELECT ii % 2 AS parity, sum(bi) AS total FROM t GROUP BY ii % 2
