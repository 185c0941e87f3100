-- decimal literals of several precisions and scales
SELECT 1.5 AS a, -0.001 AS b2, 12345678901234.5678 AS c, cast(0.1 AS decimal(38, 20)) AS d
