-- running sum of a decimal(18,4) column
SELECT id, sum(d2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rs FROM t
