-- decimal(5,2) to decimal(10,4) and decimal(18,4) to decimal(20,1)
SELECT id, cast(d1 AS decimal(10, 4)) AS a, cast(d2 AS decimal(20, 1)) AS b2 FROM t
